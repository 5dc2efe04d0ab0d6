#include "storage/checkpoint_file.h"

#include <cassert>
#include <functional>
#include <limits>

namespace hw::storage {
namespace {

constexpr int32_t checkpoint_version = 0;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Java's String.split("\\s+"): leading whitespace gives an empty first field,
// trailing whitespace is dropped.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  if (!line.empty() && is_space(line[0])) fields.emplace_back();
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

template <typename T>
bool parse_java_integer(std::string_view s, T* out) {
  if (s.empty()) return false;
  bool negative = s[0] == '-';
  if (s[0] == '-' || s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  // Accumulate negatively so that the minimum value parses without overflow.
  constexpr T min = std::numeric_limits<T>::min();
  T value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    T digit = static_cast<T>(c - '0');
    if (value < (min + digit) / 10) return false;
    value = static_cast<T>(value * 10 - digit);
  }
  if (!negative) {
    if (value == min) return false;
    value = static_cast<T>(-value);
  }
  *out = value;
  return true;
}

std::string quote(std::string_view line) { return "'" + std::string(line) + "'"; }

storage_error malformed(const std::filesystem::path& where, size_t line_number, std::string_view line,
                        std::string_view why) {
  return {make_error_code(storage_errc::malformed),
          "malformed line " + std::to_string(line_number) + " in checkpoint file " + where.string() + ": " +
              quote(line) + " (" + std::string(why) + ")"};
}

// The frame shared by every checkpoint: version, count, one entry per line.
// parse_entry gets the fields of one entry line and its 1-based line number.
using entry_parser = std::function<storage_error(const std::vector<std::string_view>& fields, size_t line_number,
                                                 std::string_view line)>;

storage_error parse_checkpoint(std::string_view content, const std::filesystem::path& where, const entry_parser& parse_entry) {
  std::vector<std::string_view> lines = split_lines(content);
  if (lines.empty()) return {};  // Kafka creates the file empty before its first write
  int32_t version = 0;
  if (!parse_java_int32(lines[0], &version)) return malformed(where, 1, lines[0], "expected the version");
  if (version != checkpoint_version)
    return {make_error_code(storage_errc::unsupported_version),
            "unrecognised version " + std::to_string(version) + " (expected " + std::to_string(checkpoint_version) +
                ") in checkpoint file " + where.string()};
  if (lines.size() < 2)
    return {make_error_code(storage_errc::malformed), "missing entry count in checkpoint file " + where.string()};
  int32_t count = 0;
  if (!parse_java_int32(lines[1], &count) || count < 0)
    return malformed(where, 2, lines[1], "expected the entry count");
  for (size_t i = 2; i < lines.size(); ++i) {
    if (auto err = parse_entry(split_fields(lines[i]), i + 1, lines[i])) return err;
  }
  size_t found = lines.size() - 2;
  if (found != static_cast<size_t>(count))
    return {make_error_code(storage_errc::malformed),
            "expected " + std::to_string(count) + " entries in checkpoint file " + where.string() + " but found " +
                std::to_string(found)};
  return {};
}

std::string frame(size_t count) {
  return std::to_string(checkpoint_version) + "\n" + std::to_string(count) + "\n";
}

}  // namespace

bool parse_java_int32(std::string_view s, int32_t* out) { return parse_java_integer(s, out); }
bool parse_java_int64(std::string_view s, int64_t* out) { return parse_java_integer(s, out); }

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    lines.push_back(text.substr(start, i - start));
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

storage_error read_text_file(file_system& fs, const std::filesystem::path& p, std::string* out) {
  if (auto ec = read_whole_file(fs, p, out)) return {ec, "cannot read " + p.string() + ": " + ec.message()};
  return {};
}

storage_error write_text_file_atomically(file_system& fs, const std::filesystem::path& p, std::string_view content,
                                        std::string_view tmp_suffix) {
  if (auto ec = write_file_atomically(fs, p, content, tmp_suffix))
    return {ec, "cannot write " + p.string() + ": " + ec.message()};
  return {};
}

std::string format_offset_checkpoint(std::span<const topic_partition_offset> entries) {
  std::string out = frame(entries.size());
  for (const auto& e : entries) {
    // Topic names are validated long before they reach a checkpoint.
    assert(!e.topic.empty() && split_fields(e.topic).size() == 1);
    out += e.topic + " " + std::to_string(e.partition) + " " + std::to_string(e.value.value) + "\n";
  }
  return out;
}

storage_error parse_offset_checkpoint(std::string_view content, const std::filesystem::path& where,
                                      std::vector<topic_partition_offset>* out) {
  std::vector<topic_partition_offset> entries;
  auto err = parse_checkpoint(content, where, [&](const auto& f, size_t n, std::string_view line) -> storage_error {
    if (f.size() != 3 || f[0].empty()) return malformed(where, n, line, "expected: topic partition offset");
    topic_partition_offset e;
    e.topic = std::string(f[0]);
    if (!parse_java_int32(f[1], &e.partition) || e.partition < 0)
      return malformed(where, n, line, "bad partition");
    if (!parse_java_int64(f[2], &e.value.value)) return malformed(where, n, line, "bad offset");
    entries.push_back(std::move(e));
    return {};
  });
  if (err) return err;
  *out = std::move(entries);
  return {};
}

storage_error write_offset_checkpoint(file_system& fs, const std::filesystem::path& p,
                                      std::span<const topic_partition_offset> entries) {
  return write_text_file_atomically(fs, p, format_offset_checkpoint(entries));
}

storage_error read_offset_checkpoint(file_system& fs, const std::filesystem::path& p,
                                     std::vector<topic_partition_offset>* out) {
  std::string content;
  if (auto err = read_text_file(fs, p, &content)) return err;
  return parse_offset_checkpoint(content, p, out);
}

std::string format_epoch_checkpoint(std::span<const epoch_entry> entries) {
  std::string out = frame(entries.size());
  for (const auto& e : entries)
    out += std::to_string(e.epoch.value) + " " + std::to_string(e.start_offset.value) + "\n";
  return out;
}

storage_error parse_epoch_checkpoint(std::string_view content, const std::filesystem::path& where,
                                     std::vector<epoch_entry>* out) {
  std::vector<epoch_entry> entries;
  auto err = parse_checkpoint(content, where, [&](const auto& f, size_t n, std::string_view line) -> storage_error {
    if (f.size() != 2) return malformed(where, n, line, "expected: epoch start_offset");
    epoch_entry e;
    if (!parse_java_int32(f[0], &e.epoch.value) || e.epoch.value < 0) return malformed(where, n, line, "bad epoch");
    if (!parse_java_int64(f[1], &e.start_offset.value) || e.start_offset.value < 0)
      return malformed(where, n, line, "bad start offset");
    entries.push_back(e);
    return {};
  });
  if (err) return err;
  *out = std::move(entries);
  return {};
}

storage_error write_epoch_checkpoint(file_system& fs, const std::filesystem::path& p,
                                     std::span<const epoch_entry> entries, std::string_view tmp_suffix) {
  return write_text_file_atomically(fs, p, format_epoch_checkpoint(entries), tmp_suffix);
}

storage_error read_epoch_checkpoint(file_system& fs, const std::filesystem::path& p, std::vector<epoch_entry>* out) {
  std::string content;
  if (auto err = read_text_file(fs, p, &content)) return err;
  return parse_epoch_checkpoint(content, p, out);
}

}  // namespace hw::storage
