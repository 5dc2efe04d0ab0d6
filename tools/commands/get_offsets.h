#pragma once
// kafka-get-offsets.sh (Kafka's GetOffsetShell), split by concern:
//   get_offsets.cc         options, the flow, the printed lines
//   get_offsets_parse.cc   pure parts: --time, --topic-partitions, --topic and
//                          --partitions filters, Java's number and split rules
//   get_offsets_client.cc  metadata and ListOffsets (shared with
//                          kafka-consumer-groups.sh)
// Declarations here are internal to the tool (and its unit tests).

#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tools/commands/get_offsets_client.h"

namespace hw::tools::get_offsets {

// ---- Java's rules, as the tool's output shows them ----

// String.split(",")-style: on a literal character, trailing empty strings
// dropped; "" splits to {""}.
std::vector<std::string> java_split(std::string_view text, char separator);
// Long.parseLong / Integer.parseInt: optional sign, ASCII digits, in range.
bool java_parse_long(std::string_view text, int64_t* out);
bool java_parse_int(std::string_view text, int32_t* out);
// String.trim(): drops characters up to ' ' at both ends.
std::string java_trim(std::string_view text);

// An error as GetOffsetShell reports it: "Error occurred: <message>" on
// stderr; `trace` is the first line of the stack trace Kafka prints after
// it (empty for its TerseExceptions, which print none).
struct tool_error {
  std::string message;
  std::string trace;
};

// --time: the names and numbers Kafka takes, as a ListOffsets timestamp.
bool parse_time(const std::string& text, int64_t* timestamp, tool_error* error);

// The topic and partition filter of --topic-partitions, or of --topic with
// --partitions.
struct partition_rule {
  std::optional<std::regex> topic;  // nullopt: any topic
  enum class kind { unique, range, set } partitions = kind::range;
  int32_t low = 0;                    // range: low inclusive, high exclusive
  int32_t high = INT32_MAX;
  std::set<int32_t> ids;              // set: empty means every partition
  bool topic_allowed(const std::string& topic) const;
  bool allowed(const topic_partition& tp) const;
};

struct partition_filter {
  std::vector<partition_rule> rules;
  bool topic_allowed(const std::string& topic) const;
  bool allowed(const topic_partition& tp) const;
};

// Kafka's IncludeList: the pattern trimmed, ',' read as '|', spaces and
// surrounding quotes dropped, then a regular expression the whole name must
// match. False with "<regex> is an invalid regex.".
bool topic_regex(const std::string& pattern, std::regex* out, tool_error* error);
// --topic-partitions "topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3".
bool parse_topic_partitions(const std::string& spec, partition_filter* out, tool_error* error);
// --topic (nullopt: ".*") and --partitions (nullopt or "": every partition).
bool parse_topic_and_partitions(const std::optional<std::string>& topic, const std::optional<std::string>& partitions,
                                partition_filter* out, tool_error* error);

// ToolsUtils.validateBootstrapServer: empty when valid, else the message.
std::string validate_bootstrap_server(const std::string& servers);

// The printed lines, "topic:partition:offset", in Kafka's order (the
// TopicPartition strings "topic-partition" compared as strings).
std::vector<std::string> offset_lines(const std::vector<std::pair<topic_partition, int64_t>>& offsets);

}  // namespace hw::tools::get_offsets
