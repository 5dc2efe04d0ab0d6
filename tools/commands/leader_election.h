#pragma once
// kafka-leader-election.sh (Kafka's LeaderElectionCommand), split by concern:
//   leader_election.cc          options, the checks in Kafka's order, the flow
//   leader_election_json.cc     JSON read by nlohmann/json with Jackson's rules
//                               (what it accepts), nodes printed as Jackson does
//   leader_election_data.cc     --path-to-json-file's partitions and their errors
//   leader_election_result.cc   the request's partitions and the printed lines,
//                               in the orders of Kafka's HashSets and HashMaps
//   leader_election_client.cc   the admin connection and the ElectLeaders call
// Declarations here are internal to the tool (and its unit tests).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tools/commands/command.h"

namespace hw::tools::election {

struct topic_partition {
  std::string topic;
  int32_t partition = 0;
  // TopicPartition.toString.
  std::string str() const { return topic + "-" + std::to_string(partition); }
  bool operator==(const topic_partition&) const = default;
};

// An exception as LeaderElectionCommand's main reports it: its message on
// stderr, then its stack trace, whose first line is "<class>: <message>".
// Without a class, a message of the native tool's own (no trace).
struct failure {
  std::string exception;  // fully qualified class name
  std::string message;
};

// ---- JSON, as Kafka reads it (Jackson's ObjectMapper.readTree) ----
namespace json {

// nlohmann/json's tree holding what Jackson's would: object keys in the order
// first seen (a repeated key keeps its last value), numbers read into a float
// wide enough that Jackson's overflow to Infinity still reads, and integers
// beyond 64 bits (Jackson's BigIntegerNode) as binary holding their digits.
using value = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t,
                                   std::uint64_t, long double>;

// readTree of the text: false where Jackson throws (Kafka then says the
// data is empty). Text with nothing but whitespace reads as a missing node
// (a discarded value); anything after the first complete value is not read.
bool read_tree(std::string_view utf8, value* out);
// JsonNode.toString(): compact, Jackson's escapes, Java's Double.toString.
std::string to_string(const value& v);

}  // namespace json

// The partitions of a --path-to-json-file text ({"partitions": [{"topic":
// ..., "partition": ...}, ...]}), in the order Kafka's HashSet of them
// iterates; false with the exception Kafka's tool ends with.
bool parse_election_data(std::string_view content, std::vector<topic_partition>* out, failure* error);
// The file read as Kafka reads it (bytes decoded as UTF-8), then parsed.
bool read_election_data(const std::string& path, std::vector<topic_partition>* out, failure* error);

// ---- the request and the printed lines ----

// The order of distinct partitions in a java.util.HashSet built by adding
// them in this order (capacity: nullopt for new HashSet<>(), else the
// constructor's argument).
std::vector<topic_partition> hash_set_order(const std::vector<topic_partition>& added,
                                            std::optional<int32_t> capacity = std::nullopt);

// ElectLeadersRequest's topics as Kafka's builder groups a set's partitions:
// topics in order of first appearance, each with its partitions in order.
std::vector<std::pair<std::string, std::vector<int32_t>>> request_topics(const std::vector<topic_partition>& partitions);

struct partition_result {
  topic_partition partition;
  int16_t error_code = 0;
  std::optional<std::string> error_message;  // null: the error's default message
};

// "org.apache.kafka.common.errors.XException: message" for an error code,
// as Throwable.toString prints what Kafka's client makes of it.
std::string exception_text(int16_t code, const std::optional<std::string>& message);

struct election_report {
  std::vector<std::string> lines;  // stdout
  size_t failed = 0;               // partitions whose election failed
};
// What the tool prints for the response's partitions (in the response's
// order): those elected, those that needed none, then one line per failure.
election_report report(const std::string& election_type, const std::vector<partition_result>& results);

// ---- the admin side ----

// Whether Kafka's admin client would be created for this bootstrap list
// (every entry host:port with a valid port, at least one host resolvable).
bool bootstrap_usable(const std::string& servers);

// The call's outcome: the response's partitions, or the failure Kafka's tool
// ends with (and the line it prints to stdout first, if any).
struct call_outcome {
  bool ok = false;
  std::vector<partition_result> results;
  failure error;
  std::string stdout_line;
};
// Connects and sends ElectLeaders (partitions nullopt: every partition) to
// the node Kafka's admin client sends it to.
call_outcome elect_leaders(const std::string& bootstrap,
                           const std::vector<std::pair<std::string, std::string>>& config, int8_t election_type,
                           const std::optional<std::vector<topic_partition>>& partitions);

}  // namespace hw::tools::election
