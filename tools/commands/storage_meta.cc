// kafka-storage.sh: meta.properties as Kafka reads and reports it, Java's
// orders and path forms, and the info sub-command.

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "storage/meta_properties.h"
#include "tools/commands/feature_levels.h"
#include "tools/commands/storage_scram.h"
#include "tools/commands/storage_tool.h"

namespace hw::tools {
namespace {

// Integer.parseInt, which (unlike Properties) does not trim.
std::optional<int32_t> java_parse_int(const std::string& s) {
  std::string_view digits = s;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  long long v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc{}) return std::nullopt;
  if (s[0] == '-') v = -v;
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(v);
}

// Uuid.fromString's checks and messages.
bool kafka_uuid(const std::string& text, protocol::uuid* out, std::string* error) {
  if (text.size() > 24) {
    *error = "Input string with prefix `" + text.substr(0, 24) + "` is too long to be decoded as a base64 UUID";
    return false;
  }
  auto parsed = protocol::uuid::parse(text);
  if (!parsed) {
    *error = "Input string `" + text + "` decoded as " + std::to_string(text.size() * 3 / 4) +
             " bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID";
    return false;
  }
  *out = *parsed;
  return true;
}

bool load_int(const std::map<std::string, std::string>& props, const std::string& key, int32_t* out,
              std::string* error) {
  auto it = props.find(key);
  if (it == props.end()) {
    *error = "Failed to find " + key;
    return false;
  }
  auto v = java_parse_int(it->second);
  if (!v) {
    *error = "Unable to read " + key + " as a base-10 number.";
    return false;
  }
  *out = *v;
  return true;
}

}  // namespace

std::string java_path_string(std::string_view path) {
  std::string out;
  for (char c : path)
    if (!(c == '/' && !out.empty() && out.back() == '/')) out += c;
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool kafka_meta_from(const std::map<std::string, std::string>& props, kafka_meta* out, std::string* error) {
  kafka_meta m;
  auto version = props.find("version");
  const std::string version_text = version == props.end() ? "0" : version->second;
  std::string trimmed = version_text;
  trimmed.erase(0, trimmed.find_first_not_of(" \t\r\n\f\v"));
  trimmed.erase(trimmed.find_last_not_of(" \t\r\n\f\v") + 1);
  auto number = java_parse_int(trimmed);
  if (!number) {
    *error = "Invalid meta.properties version string '" + version_text + "'";
    return false;
  }
  if (*number != 0 && *number != 1) {
    *error = "Unknown meta.properties version number " + std::to_string(*number);
    return false;
  }
  m.version = *number;
  const std::string id_key = m.version == 0 ? "broker.id" : "node.id";
  if (m.version == 1 || props.count(id_key)) {
    int32_t id = 0;
    if (!load_int(props, id_key, &id, error)) return false;
    m.node_id = id;
  }
  if (auto c = props.find("cluster.id"); c != props.end()) m.cluster_id = c->second;
  if (auto d = props.find("directory.id"); d != props.end()) {
    protocol::uuid id;
    std::string why;
    if (!kafka_uuid(d->second, &id, &why)) {
      *error = "Unable to read directory.id as a Uuid: " + why;
      return false;
    }
    m.directory_id = id;
  }
  if (m.version == 1 && !m.cluster_id) {
    *error = "cluster.id was not found.";
    return false;
  }
  *out = m;
  return true;
}

std::string kafka_meta_string(const kafka_meta& meta) {
  std::map<std::string, std::string> sorted;
  sorted["version"] = std::to_string(meta.version);
  if (meta.cluster_id) sorted["cluster.id"] = *meta.cluster_id;
  if (meta.node_id) sorted[meta.version == 0 ? "broker.id" : "node.id"] = std::to_string(*meta.node_id);
  if (meta.directory_id) sorted["directory.id"] = meta.directory_id->to_string();
  std::string out = "{";
  for (const auto& [k, v] : sorted) out += (out.size() > 1 ? ", " : "") + k + "=" + v;
  return out + "}";
}

bool reserved_directory_id(const protocol::uuid& id) {
  for (size_t i = 0; i < 8; ++i)
    if (id.bytes[i]) return false;
  uint64_t low = 0;
  for (size_t i = 8; i < 16; ++i) low = (low << 8) | id.bytes[i];
  return static_cast<int64_t>(low) < 100;
}

std::vector<std::pair<std::string, int16_t>> bootstrap_feature_levels(int16_t metadata_level,
                                                                      const std::map<std::string, int16_t>& features) {
  std::vector<std::pair<std::string, int16_t>> out{{"metadata.version", metadata_level}};
  for (const auto& [name, level] : features)
    if (name != "metadata.version" && name != "kraft.version" && level > 0) out.emplace_back(name, level);
  return out;
}

std::string bootstrap_metadata_string(int16_t metadata_level, const std::map<std::string, int16_t>& features,
                                      const std::vector<protocol::msg::user_scram_credential_record>& scram) {
  auto record = [](const std::string& text) { return "ApiMessageAndVersion(" + text + " at version 0)"; };
  std::string records;
  for (const auto& [name, level] : bootstrap_feature_levels(metadata_level, features))
    records += (records.empty() ? "" : ", ") +
               record("FeatureLevelRecord(name='" + name + "', featureLevel=" + std::to_string(level) + ")");
  for (const auto& r : scram) records += ", " + record(scram_record_string(r));
  return "BootstrapMetadata(records=[" + records + "], metadataVersionLevel=" + std::to_string(metadata_level) +
         ", source=format command)";
}

int storage_info(bool kraft_mode, const std::vector<std::string>& directories, std::string* out) {
  std::vector<std::string> problems, found;
  std::optional<kafka_meta> first;
  std::vector<std::string> sorted = directories;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& dir : sorted) {
    const std::string path = java_path_string(dir);
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      problems.push_back(path + (std::filesystem::exists(path, ec) ? " is not a directory" : " does not exist"));
      continue;
    }
    found.push_back(path);
    const std::string meta_path = path + "/" + std::string(storage::meta_properties_name);
    if (!std::filesystem::exists(meta_path, ec)) {
      problems.push_back(path + " is not formatted.");
      continue;
    }
    std::ifstream in(meta_path);
    std::stringstream text;
    text << in.rdbuf();
    std::map<std::string, std::string> props;
    std::string error;
    kafka_meta meta;
    if (!storage::parse_java_properties(text.str(), &props, &error) || !kafka_meta_from(props, &meta, &error)) {
      // Kafka prints the exception's stack trace here; its first line stands for it.
      *out += "java.lang.RuntimeException: " + error + "\n";
      problems.push_back("Error loading " + meta_path + ": " + error);
      continue;
    }
    if (!first) first = meta;
    else if (first->cluster_id != meta.cluster_id) problems.push_back("Mismatched cluster IDs between storage directories.");
    else if (first->node_id != meta.node_id) problems.push_back("Mismatched node IDs between storage directories.");
  }
  if (first && kraft_mode && first->version == 0)
    problems.push_back("The kafka configuration file appears to be for a cluster in KRaft mode, but the directories are formatted for legacy mode.");
  if (first && !kraft_mode && first->version == 1)
    problems.push_back("The kafka configuration file appears to be for a legacy cluster, but the directories are formatted for a cluster in KRaft mode.");
  if (directories.empty()) {
    *out += "No directories specified.\n";
    return 0;
  }
  if (!found.empty()) {
    *out += found.size() == 1 ? "Found log directory:\n" : "Found log directories:\n";
    for (const auto& d : found) *out += "  " + d + "\n";
    *out += "\n";
  }
  if (first) *out += "Found metadata: " + kafka_meta_string(*first) + "\n\n";
  if (problems.empty()) return 0;
  *out += problems.size() == 1 ? "Found problem:\n" : "Found problems:\n";
  for (const auto& p : problems) *out += "  " + p + "\n";
  *out += "\n";
  return 1;
}

bool storage_feature_dependencies(const std::vector<std::string>& features, std::string* out, std::string* error) {
  for (const auto& arg : features) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      *error = "Invalid feature format: " + arg + ". Expected format: 'feature=version' (e.g. 'group.version=1')";
      return false;
    }
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t\r\n\f\v"));
      s.erase(s.find_last_not_of(" \t\r\n\f\v") + 1);
      return s;
    };
    const std::string name = trim(arg.substr(0, eq)), version = trim(arg.substr(eq + 1));
    auto level = java_parse_short(version);
    if (!level) {
      *error = "Invalid version format: " + version + " for feature " + name;
      return false;
    }
    const std::string head = name + "=" + std::to_string(*level);
    if (name == "metadata.version") {
      const metadata_version_info* mv = metadata_version_by_level(*level);
      if (!mv) {
        *error = "Unknown metadata.version " + std::to_string(*level);
        return false;
      }
      *out += head + " (" + std::string(mv->name) + ") has no dependencies.\n";
      continue;
    }
    const feature_info* feature = feature_by_name(name);
    if (!feature) {
      *error = "Unknown feature: " + name;
      return false;
    }
    const feature_version_info* v = feature->version(*level, true);
    if (!v) {
      *error = "Feature level " + std::to_string(*level) + " is not supported for feature " + name;
      return false;
    }
    *out += dependencies_text(head, *v);
  }
  return true;
}

}  // namespace hw::tools
