#include "storage/meta_properties.h"

#include <cassert>
#include <ctime>

#include "storage/checkpoint_file.h"

namespace hw::storage {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

bool read_hex4(std::string_view s, size_t at, uint32_t* out) {
  if (at + 4 > s.size()) return false;
  uint32_t v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  *out = v;
  return true;
}

// Properties.loadConvert: resolves the escapes of a key or a value.
bool unescape(std::string_view s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      *out += s[i];
      continue;
    }
    char c = s[++i];
    if (c != 'u') {
      *out += c == 't' ? '\t' : c == 'r' ? '\r' : c == 'n' ? '\n' : c == 'f' ? '\f' : c;
      continue;
    }
    uint32_t unit = 0, low = 0;
    if (!read_hex4(s, i + 1, &unit)) return false;
    i += 4;
    // A UTF-16 surrogate pair written as two escapes is one code point.
    if (unit >= 0xd800 && unit < 0xdc00 && s.substr(i + 1, 2) == "\\u" && read_hex4(s, i + 3, &low) &&
        low >= 0xdc00 && low < 0xe000) {
      unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      i += 6;
    }
    append_utf8(*out, unit);
  }
  return true;
}

bool ends_with_odd_backslashes(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

// Joins natural lines into Properties' logical lines, dropping comments and blanks.
std::vector<std::string> logical_lines(std::string_view text) {
  std::vector<std::string> out;
  std::vector<std::string_view> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    std::string logical;
    while (ends_with_odd_backslashes(line) && i + 1 < lines.size()) {
      logical += line.substr(0, line.size() - 1);
      line = lines[++i];
      while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
    }
    if (ends_with_odd_backslashes(line)) line.remove_suffix(1);  // a continuation at end of file
    logical += line;
    out.push_back(std::move(logical));
  }
  return out;
}

const char* const day_names[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
const char* const month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

storage_error invalid(const std::filesystem::path& where, const std::string& why) {
  return {make_error_code(storage_errc::malformed), "invalid " + where.string() + ": " + why};
}

storage_error read_node_id(const std::map<std::string, std::string>& props, const std::string& key,
                           const std::filesystem::path& where, std::optional<node_id>* out) {
  auto it = props.find(key);
  if (it == props.end()) return {};
  int32_t id = 0;
  if (!parse_java_int32(it->second, &id)) return invalid(where, "unable to read " + key + " as a base-10 number");
  *out = node_id(id);
  return {};
}

}  // namespace

bool parse_java_properties(std::string_view text, std::map<std::string, std::string>* out, std::string* error) {
  for (const std::string& line : logical_lines(text)) {
    size_t key_end = 0;
    bool backslash = false;
    while (key_end < line.size()) {
      char c = line[key_end];
      if (!backslash && (c == '=' || c == ':' || is_blank(c))) break;
      backslash = c == '\\' && !backslash;
      ++key_end;
    }
    size_t value_start = key_end;
    bool has_separator = false;
    while (value_start < line.size()) {
      char c = line[value_start];
      if (!is_blank(c)) {
        if (has_separator || (c != '=' && c != ':')) break;
        has_separator = true;
      }
      ++value_start;
    }
    std::string key, value;
    if (!unescape(std::string_view(line).substr(0, key_end), &key) ||
        !unescape(std::string_view(line).substr(value_start), &value)) {
      *error = "malformed \\uxxxx encoding in line '" + line + "'";
      return false;
    }
    (*out)[key] = value;
  }
  return true;
}

std::string escape_java_property(std::string_view s, bool is_key) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case ' ': out += (i == 0 || is_key) ? "\\ " : " "; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\f': out += "\\f"; break;
      case '\\': out += "\\\\"; break;
      case '=': case ':': case '#': case '!': out += '\\'; out += c; break;
      default: out += c;
    }
  }
  return out;
}

std::string java_date_string(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %s %02d %02d:%02d:%02d UTC %d", day_names[tm.tm_wday], month_names[tm.tm_mon],
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_year + 1900);
  return buf;
}

std::string format_meta_properties(const meta_properties& props, std::chrono::system_clock::time_point now) {
  std::string out = "#\n#" + java_date_string(now) + "\n";
  auto put = [&](std::string_view key, std::string_view value) {
    out += escape_java_property(key, true) + "=" + escape_java_property(value, false) + "\n";
  };
  // The order Kafka 4.3's Properties hash table happens to write.
  if (props.node) put(props.version == 0 ? "broker.id" : "node.id", std::to_string(props.node->value));
  if (props.directory_id) put("directory.id", props.directory_id->to_string());
  put("version", std::to_string(props.version));
  if (props.cluster_id) put("cluster.id", *props.cluster_id);
  return out;
}

storage_error parse_meta_properties(std::string_view content, const std::filesystem::path& where,
                                    meta_properties* out) {
  std::map<std::string, std::string> props;
  std::string why;
  if (!parse_java_properties(content, &props, &why)) return invalid(where, why);
  meta_properties result;
  result.version = 0;  // Kafka: a file without a version is version 0
  if (auto it = props.find("version"); it != props.end()) {
    std::string_view v = it->second;
    while (!v.empty() && v.front() <= ' ') v.remove_prefix(1);  // String.trim
    while (!v.empty() && v.back() <= ' ') v.remove_suffix(1);
    if (!parse_java_int32(v, &result.version)) return invalid(where, "invalid version string '" + it->second + "'");
    if (result.version != 0 && result.version != 1)
      return {make_error_code(storage_errc::unsupported_version),
              "unknown meta.properties version " + std::to_string(result.version) + " in " + where.string()};
  }
  if (auto err = read_node_id(props, result.version == 0 ? "broker.id" : "node.id", where, &result.node)) return err;
  if (auto it = props.find("cluster.id"); it != props.end()) result.cluster_id = it->second;
  if (auto it = props.find("directory.id"); it != props.end()) {
    result.directory_id = protocol::uuid::parse(it->second);
    if (!result.directory_id) return invalid(where, "unable to read directory.id as a Uuid: '" + it->second + "'");
  }
  if (result.version == 1 && !result.node) return invalid(where, "node.id was not found");
  if (result.version == 1 && !result.cluster_id) return invalid(where, "cluster.id was not found");
  *out = std::move(result);
  return {};
}

storage_error write_meta_properties(file_system& fs, const std::filesystem::path& p, const meta_properties& props,
                                    std::chrono::system_clock::time_point now) {
  assert(props.version == 0 || props.version == 1);
  assert(props.version == 0 || (props.node && props.cluster_id));
  return write_text_file_atomically(fs, p, format_meta_properties(props, now));
}

storage_error read_meta_properties(file_system& fs, const std::filesystem::path& p, meta_properties* out) {
  std::string content;
  if (auto err = read_text_file(fs, p, &content)) return err;
  return parse_meta_properties(content, p, out);
}

}  // namespace hw::storage
