#include "storage/partition_metadata.h"

#include <cassert>

#include "storage/checkpoint_file.h"

namespace hw::storage {
namespace {

constexpr int32_t partition_metadata_version = 0;

storage_error malformed(const std::filesystem::path& where, size_t line_number, std::string_view line,
                        std::string_view why) {
  return {make_error_code(storage_errc::malformed), "malformed line " + std::to_string(line_number) +
                                                        " in partition metadata file " + where.string() + ": '" +
                                                        std::string(line) + "' (" + std::string(why) + ")"};
}

// Kafka splits at the regex ":\s+"; a line must yield exactly `key` and a value.
bool split_key_value(std::string_view line, std::string_view key, std::string_view* value) {
  if (line.substr(0, key.size()) != key || line.size() <= key.size() + 1 || line[key.size()] != ':') return false;
  std::string_view rest = line.substr(key.size() + 1);
  size_t blanks = 0;
  while (blanks < rest.size() && (rest[blanks] == ' ' || rest[blanks] == '\t' || rest[blanks] == '\f')) ++blanks;
  if (blanks == 0 || blanks == rest.size()) return false;
  *value = rest.substr(blanks);
  return value->find(": ") == std::string_view::npos && value->find(":\t") == std::string_view::npos;
}

}  // namespace

std::string format_partition_metadata(const protocol::uuid& topic_id) {
  return "version: " + std::to_string(partition_metadata_version) + "\ntopic_id: " + topic_id.to_string();
}

storage_error parse_partition_metadata(std::string_view content, const std::filesystem::path& where,
                                       protocol::uuid* topic_id) {
  std::vector<std::string_view> lines = split_lines(content);
  if (lines.size() < 2)
    return {make_error_code(storage_errc::malformed), "partition metadata file " + where.string() + " is incomplete"};
  std::string_view value;
  int32_t version = 0;
  if (!split_key_value(lines[0], "version", &value) || !parse_java_int32(value, &version))
    return malformed(where, 1, lines[0], "expected 'version: <number>'");
  if (version < partition_metadata_version)
    return {make_error_code(storage_errc::unsupported_version),
            "unrecognized version " + std::to_string(version) + " of partition metadata file " + where.string()};
  if (!split_key_value(lines[1], "topic_id", &value)) return malformed(where, 2, lines[1], "expected 'topic_id: <uuid>'");
  auto id = protocol::uuid::parse(value);
  if (!id) return malformed(where, 2, lines[1], "not a base64 UUID");
  if (id->is_zero()) return malformed(where, 2, lines[1], "the zero UUID is not a topic id");
  *topic_id = *id;
  return {};
}

storage_error write_partition_metadata(file_system& fs, const std::filesystem::path& p,
                                       const protocol::uuid& topic_id) {
  assert(!topic_id.is_zero());
  return write_text_file_atomically(fs, p, format_partition_metadata(topic_id));
}

storage_error read_partition_metadata(file_system& fs, const std::filesystem::path& p, protocol::uuid* topic_id) {
  std::string content;
  if (auto err = read_text_file(fs, p, &content)) return err;
  return parse_partition_metadata(content, p, topic_id);
}

}  // namespace hw::storage
