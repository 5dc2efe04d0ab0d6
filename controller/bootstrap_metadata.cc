// bootstrap.checkpoint read as Kafka's controller reads it (bootstrap_metadata.h).

#include "controller/bootstrap_metadata.h"

#include <variant>

#include "controller/metadata/records.h"
#include "controller/raft/snapshot_file.h"

namespace hw::controller {

bool decode_bootstrap_metadata(protocol::bytes_view bytes, const std::string& source, bootstrap_metadata* out,
                               std::string* error) {
  const raft::decoded_snapshot file = raft::decode_snapshot(bytes);
  if (!file.ok()) {
    *error = "Unable to read " + source + ": " + file.error;
    return false;
  }
  bootstrap_metadata m;
  m.source = source;
  for (const auto& value : file.records) {
    metadata_record record;
    std::string why;
    if (!decode_record_value(value, &record, &why)) {
      *error = "Unable to read " + source + ": " + why;
      return false;
    }
    if (const auto* f = std::get_if<msg::feature_level_record>(&record))
      m.features[f->name] = f->feature_level;
    else if (const auto* s = std::get_if<msg::user_scram_credential_record>(&record))
      m.scram.push_back(*s);
    else
      m.other_records.emplace_back(record_name(record));
  }
  if (!m.features.count(std::string(metadata_version::feature_name))) {
    *error = "No FeatureLevelRecord for metadata.version was found in the bootstrap metadata from " + source;
    return false;
  }
  *out = std::move(m);
  return true;
}

std::optional<bootstrap_metadata> read_bootstrap_metadata(storage::file_system& fs, const std::filesystem::path& dir,
                                                          std::string* error) {
  const std::filesystem::path path = dir / bootstrap_file_name;
  if (!fs.exists(path)) return std::nullopt;
  std::string bytes;
  if (auto ec = storage::read_whole_file(fs, path, &bytes)) {
    *error = "Unable to read " + path.string() + ": " + ec.message();
    return std::nullopt;
  }
  bootstrap_metadata m;
  const protocol::bytes_view view(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!decode_bootstrap_metadata(view, "the binary bootstrap metadata file: " + path.string(), &m, error))
    return std::nullopt;
  return m;
}

}  // namespace hw::controller
