#include "controller/metadata/records.h"

#include <cassert>
#include <utility>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::controller {

namespace {

const protocol::schema_info& info(const metadata_record& record) {
  return std::visit([](const auto& r) -> const protocol::schema_info& { return std::decay_t<decltype(r)>::schema; },
                    record);
}

// Builds the variant alternative whose api key is `key`, decoding its body.
template <size_t I = 0>
bool decode_alternative(int16_t key, int16_t version, protocol::reader& r, metadata_record* out,
                        std::string* error) {
  if constexpr (I == std::variant_size_v<metadata_record>) {
    *error = "unknown metadata record api key " + std::to_string(key);
    return false;
  } else {
    using T = std::variant_alternative_t<I, metadata_record>;
    if (T::schema.api_key != key) return decode_alternative<I + 1>(key, version, r, out, error);
    if (version < T::schema.min_version || version > T::schema.max_version) {
      *error = std::string(T::schema.name) + " version " + std::to_string(version) +
               " is not supported";
      return false;
    }
    T record;
    record.decode(r, version);
    if (!r.ok()) {
      *error = std::string(T::schema.name) + " v" + std::to_string(version) + ": " + r.error();
      return false;
    }
    *out = std::move(record);
    return true;
  }
}

}  // namespace

int16_t record_api_key(const metadata_record& record) { return info(record).api_key; }

std::string_view record_name(const metadata_record& record) { return info(record).name; }

int16_t record_version_for(const metadata_record& record, metadata_version mv) {
  if (std::holds_alternative<msg::register_broker_record>(record)) return mv.register_broker_record_version();
  if (std::holds_alternative<msg::partition_record>(record)) return mv.partition_record_version();
  if (std::holds_alternative<msg::partition_change_record>(record)) {
    return mv.partition_change_record_version();
  }
  if (auto* r = std::get_if<msg::broker_registration_change_record>(&record)) {
    if (r->cordoned_log_dirs) return 3;
    if (!r->log_dirs.empty()) return 2;
    if (r->in_controlled_shutdown != 0) return 1;
    return 0;
  }
  return info(record).max_version;  // every other record has one version
}

std::vector<uint8_t> encode_record_value(const metadata_record& record, int16_t version) {
  if (version == latest_record_version) {
    version = record_version_for(record, latest_production_metadata_version);
  }
  const protocol::schema_info& schema = info(record);
  assert(version >= schema.min_version && version <= schema.max_version);
  std::vector<uint8_t> out;
  size_t body = std::visit([&](const auto& r) { return r.encoded_size(version); }, record);
  out.reserve(body + 6);
  protocol::writer w(out);
  w.write_uvarint(record_frame_version);
  w.write_uvarint(static_cast<uint32_t>(schema.api_key));
  w.write_uvarint(static_cast<uint32_t>(version));
  std::visit([&](const auto& r) { r.encode(w, version); }, record);
  return out;
}

bool decode_record_value(std::span<const uint8_t> value, metadata_record* out, std::string* error,
                         int16_t* version_out) {
  protocol::reader r(value);
  uint32_t frame = r.read_uvarint();
  uint32_t key = r.read_uvarint();
  uint32_t version = r.read_uvarint();
  if (!r.ok()) {
    *error = std::string("metadata record frame: ") + r.error();
    return false;
  }
  if (frame != record_frame_version) {
    *error = "unsupported metadata record frame version " + std::to_string(frame);
    return false;
  }
  if (key > 0x7fff || version > 0x7fff) {
    *error = "metadata record api key or version out of range";
    return false;
  }
  auto v = static_cast<int16_t>(version);
  if (!decode_alternative(static_cast<int16_t>(key), v, r, out, error)) return false;
  if (r.remaining() != 0) {
    *error = std::string(record_name(*out)) + ": " + std::to_string(r.remaining()) +
             " bytes after the record";
    return false;
  }
  if (version_out) *version_out = v;
  return true;
}

}  // namespace hw::controller
