// kafka-storage.sh format: Kafka's Formatter over the broker's own
// meta.properties writer.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "protocol/wire/writer.h"
#include "storage/io/file_system.h"
#include "storage/meta_properties.h"
#include "storage/snapshot_batches.h"
#include "tools/commands/feature_levels.h"
#include "tools/commands/java.h"
#include "tools/commands/storage_tool.h"

namespace hw::tools {
namespace {

// What Kafka's MetaPropertiesEnsemble.Loader finds in the directories.
struct ensemble {
  std::map<std::string, kafka_meta> formatted;  // by directory, as configured
  std::vector<std::string> empty;               // sorted
  std::vector<std::string> failed;              // sorted
};

ensemble load_ensemble(const std::vector<std::string>& sorted_dirs) {
  ensemble e;
  for (const auto& dir : sorted_dirs) {
    const std::string path = java_path_string(dir) + "/" + std::string(storage::meta_properties_name);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      e.empty.push_back(dir);
      continue;
    }
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::map<std::string, std::string> props;
    std::string error;
    kafka_meta meta;
    if (!in || !storage::parse_java_properties(text.str(), &props, &error) || !kafka_meta_from(props, &meta, &error))
      e.failed.push_back(dir);
    else
      e.formatted.emplace(dir, meta);
  }
  return e;
}

std::vector<std::string> keys_of(const std::map<std::string, kafka_meta>& m) {
  std::vector<std::string> out;
  for (const auto& kv : m) out.push_back(kv.first);
  return out;
}

// MetaPropertiesEnsemble.verify against this node's cluster and node ids;
// its failures are RuntimeExceptions the JVM reports.
bool verify(const ensemble& e, const format_request& req, std::string* error) {
  std::map<std::string, std::string> seen;  // directory id -> directory
  for (const auto& dir : java::hash_map_order(keys_of(e.formatted))) {
    const kafka_meta& m = e.formatted.at(dir);
    const std::string path = java_path_string(dir) + "/meta.properties";
    std::string why;
    if (!m.cluster_id && m.version == 1) why = "cluster.id was not specified in the v1 file: " + path;
    else if (m.cluster_id && *m.cluster_id != req.cluster_id)
      why = "Invalid cluster.id in: " + path + ". Expected " + req.cluster_id + ", but read " + *m.cluster_id;
    else if (!m.node_id && m.version == 1) why = "node.id was not specified in " + path;
    else if (m.node_id && *m.node_id != req.node_id)
      why = "Stored node id " + std::to_string(*m.node_id) + " doesn't match previous node id " +
            std::to_string(req.node_id) + " in " + path +
            ". If you moved your data, make sure your configured node id matches. If you intend to create a new "
            "node, you should remove all data in your data directories.";
    else if (m.directory_id && reserved_directory_id(*m.directory_id))
      why = "Invalid reserved directory ID " + m.directory_id->to_string() + " found in " + dir;
    else if (m.directory_id && seen.count(m.directory_id->to_string()))
      why = "Duplicate directory ID Optional[" + m.directory_id->to_string() + "] found. It was the ID of " +
            seen[m.directory_id->to_string()] + ", but also of " + dir;
    if (!why.empty()) {
      *error = "Exception in thread \"main\" java.lang.RuntimeException: " + why;
      return false;
    }
    if (m.directory_id) seen[m.directory_id->to_string()] = dir;
  }
  if (std::find(e.failed.begin(), e.failed.end(), req.metadata_directory) != e.failed.end()) {
    *error = "Exception in thread \"main\" java.lang.RuntimeException: Encountered I/O error in metadata log directory " +
             req.metadata_directory + ". Cannot continue.";
    return false;
  }
  return true;
}

std::string description(const format_request& req, const std::string& dir) {
  if (dir != req.metadata_directory) return "data directory";
  if (!req.initial_voters) return "metadata directory";
  return req.voter_directory_id ? "dynamic metadata voter directory" : "dynamic metadata directory";
}

// Copier.generateValidDirectoryId: random, not reserved, not starting with
// '-', not one a directory already has.
protocol::uuid new_directory_id(std::mt19937_64& rng, const std::set<std::string>& taken) {
  for (;;) {
    auto id = protocol::uuid::random(rng);
    if (!reserved_directory_id(id) && !taken.count(id.to_string())) return id;
  }
}

// The dynamic quorum's first voters, read-only as Kafka leaves the file.
storage::storage_error write_bootstrap_snapshot(storage::file_system& fs, const std::string& dir,
                                                const std::vector<dynamic_voter>& voters, const std::string& listener,
                                                int64_t now_ms) {
  const std::filesystem::path path = std::filesystem::path(dir) / bootstrap_snapshot_path;
  if (auto ec = fs.create_directories(path.parent_path())) return {ec, path.parent_path().string() + ": " + ec.message()};
  const auto bytes = bootstrap_snapshot_bytes(voters, listener, now_ms);
  const std::string_view view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (auto ec = storage::write_file_atomically(fs, path, view)) return {ec, path.string() + ": " + ec.message()};
  std::error_code ec;
  std::filesystem::permissions(path, std::filesystem::perms::owner_read, std::filesystem::perm_options::replace, ec);
  return {};
}

// A metadata log value as Kafka's MetadataRecordSerde frames it: frame
// version 1, api key, record version 0, the body.
template <class Record>
std::vector<uint8_t> framed(const Record& r) {
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_uvarint(1);
  w.write_uvarint(static_cast<uint32_t>(Record::schema.api_key));
  w.write_uvarint(0);
  r.encode(w, 0);
  return out;
}

}  // namespace

std::vector<uint8_t> bootstrap_file_bytes(int16_t metadata_level, const std::map<std::string, int16_t>& features,
                                          const std::vector<protocol::msg::user_scram_credential_record>& scram,
                                          int64_t write_time_ms) {
  std::vector<std::vector<uint8_t>> values;
  for (const auto& [name, level] : bootstrap_feature_levels(metadata_level, features)) {
    protocol::msg::feature_level_record f;
    f.name = name;
    f.feature_level = level;
    values.push_back(framed(f));
  }
  for (const auto& r : scram) values.push_back(framed(r));
  // BatchFileWriter: one data batch for every record that fits 8 MiB.
  storage::snapshot_write_options o;
  o.write_time_ms = write_time_ms;
  o.records_per_append = std::max<size_t>(values.size(), 1);
  return storage::encode_snapshot_batches(0, values, o);
}

bool format_directories(const format_request& req, std::string* out, std::string* error) {
  if (req.node_id < 0) {
    *error = "Exception in thread \"main\" java.lang.RuntimeException: You must specify a valid non-negative node ID.";
    return false;
  }
  std::set<std::string> unique(req.directories.begin(), req.directories.end());
  unique.insert(req.metadata_directory);
  const std::vector<std::string> dirs(unique.begin(), unique.end());
  const ensemble e = load_ensemble(dirs);
  if (!verify(e, req, error)) return false;
  if (!req.ignore_formatted && !e.formatted.empty()) {
    *error = "Log directory " + java::hash_map_order(keys_of(e.formatted)).front() +
             " is already formatted. Use --ignore-formatted to ignore this directory and format the others.";
    return false;
  }
  if (!e.failed.empty()) {
    for (const auto& d : java::hash_map_order(e.failed)) *out += "I/O error trying to read log directory " + d + ". Ignoring...\n";
    if (e.empty.empty() && e.formatted.empty()) {
      *error = "No available log directories to format.";
      return false;
    }
  }
  if (e.empty.empty()) {
    *out += "All of the log directories are already formatted.\n";
    return true;
  }
  *out += "Bootstrap metadata: " + bootstrap_metadata_string(req.metadata_level, req.features, req.scram) + "\n";
  const auto now = std::chrono::system_clock::now();
  const std::vector<uint8_t> bootstrap = bootstrap_file_bytes(
      req.metadata_level, req.features, req.scram,
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
  std::mt19937_64 rng = seeded_rng();
  std::set<std::string> taken;
  for (const auto& [dir, meta] : e.formatted)
    if (meta.directory_id) taken.insert(meta.directory_id->to_string());
  std::map<std::string, protocol::uuid> ids;
  for (const auto& dir : e.empty) {
    const bool voter = dir == req.metadata_directory && req.voter_directory_id;
    ids[dir] = voter ? *req.voter_directory_id : new_directory_id(rng, taken);
    taken.insert(ids[dir].to_string());
  }
  // Kafka writes in the order of its HashMaps: all directories, then the new ones.
  std::vector<std::string> all = keys_of(e.formatted);
  all.insert(all.end(), e.empty.begin(), e.empty.end());
  std::vector<std::string> fresh;
  for (const auto& d : java::hash_map_order(all))
    if (ids.count(d)) fresh.push_back(d);
  const std::string version(metadata_version_by_level(req.metadata_level)->name);
  auto fs = storage::make_posix_file_system();
  for (const auto& dir : java::hash_map_order(fresh)) {
    *out += "Formatting " + description(req, dir) + " " + dir + " with metadata.version " + version + ".\n";
    storage::meta_properties props;
    props.version = 1;
    props.node = storage::node_id(req.node_id);
    props.cluster_id = req.cluster_id;
    props.directory_id = ids[dir];
    storage::storage_error failure;
    if (auto ec = fs->create_directories(dir)) failure = {ec, dir + ": " + ec.message()};
    // Kafka writes the bootstrap file first, meta.properties last: a
    // directory with meta.properties is whole.
    if (!failure) {
      const std::string_view bytes(reinterpret_cast<const char*>(bootstrap.data()), bootstrap.size());
      if (auto ec = storage::write_file_atomically(*fs, std::filesystem::path(dir) / bootstrap_file_name, bytes))
        failure = {ec, dir + "/" + std::string(bootstrap_file_name) + ": " + ec.message()};
    }
    if (!failure && dir == req.metadata_directory && req.initial_voters)
      failure = write_bootstrap_snapshot(*fs, dir, *req.initial_voters, req.controller_listener,
                                         std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
    if (!failure)
      failure = storage::write_meta_properties(*fs, std::filesystem::path(dir) / storage::meta_properties_name, props,
                                               now);
    if (failure) {
      *error = "Error while writing meta.properties file " + dir + ": java.io.IOException: " + failure.message;
      return false;
    }
  }
  return true;
}

}  // namespace hw::tools
