#pragma once
// kafka-topics.sh (Kafka's TopicCommand), split by concern:
//   kafka_topics.cc           options, their checks, the create/alter/list/delete flows
//   kafka_topics_describe.cc  --describe
//   kafka_topics_admin.cc     the requests, answered as the Java admin client answers them
//   kafka_topics_parse.cc     pure parts: --replica-assignment, --config, the --topic
//                             filter, the printed lines
//   kafka_topics_java.cc      the Java behaviours that show in the output (String.split,
//                             Integer.parseInt, HashMap iteration order, Uuid.fromString)
//   kafka_topics_errors.cc    the Java exception class of each error code
// Declarations here are internal to the tool (and its unit tests).

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/wire/uuid.h"
#include "tools/commands/java.h"

namespace hw::tools::topics {

// What Kafka's tool catches and prints as "Error while executing topic
// command : <message>": the exception's class (for the log line on stderr)
// and its message. `uncaught`: an error Kafka's tool does not catch there
// (the command config file, creating the admin client), whose message goes
// to stderr alone.
struct topic_error {
  std::string java_class;
  std::string message;
  bool uncaught = false;
};

// ---- Java behaviours (kafka_topics_java.cc) ----

// String.split(literal) for a one-character separator: trailing empty
// strings dropped; "" gives {""}.
std::vector<std::string> java_split(std::string_view s, char separator);
// String.trim(): strips characters <= ' ' at both ends.
std::string java_trim(std::string_view s);
// Integer.parseInt, or nullopt (NumberFormatException).
std::optional<int32_t> java_parse_int(std::string_view s);
// Integer.parseInt's exception message: For input string: "x".
std::string number_format_message(std::string_view s);
// Uuid.fromString, with the messages of its IllegalArgumentException.
bool java_uuid_from_string(std::string_view s, protocol::uuid* out, std::string* error);

// ---- the Java exception class of an error code (kafka_topics_errors.cc) ----

// The exception the Java admin client completes a topic's future with:
// the broker's message when it sent one (even an empty one), else the
// error's default message.
topic_error api_error(int16_t code, const std::optional<std::string>& broker_message);

// ---- pure parts of the command (kafka_topics_parse.cc) ----

// --replica-assignment "1:2,3:4": one broker list per partition, or the
// error TopicCommand raises (duplicates, differing replication factors,
// NumberFormatException). An empty result means no assignment (",").
bool parse_replica_assignment(std::string_view text, std::vector<std::vector<int32_t>>* out, topic_error* error);

// --config values, split as TopicCommand splits them (on \s*=\s*) and
// validated as LogConfig.validate does on the client, before any request.
// *out is in the order Java's HashMap hands them to the request.
bool parse_topic_configs(const std::vector<std::string>& values, std::vector<std::pair<std::string, std::string>>* out,
                         topic_error* error);

// Kafka's TopicFilter.IncludeList: the --topic value with ',' as '|', blanks
// removed and quotes at either end dropped, matched against whole names.
// Java regex syntax is read as ECMAScript (std::regex): the same for
// ordinary patterns (., *, +, ?, [...], (...), |, \d, \w, \s); Java-only
// constructs (possessive quantifiers, \p{...}, (?i), \Q...\E, named groups
// (?<n>...)) are refused as invalid regexes where ECMAScript does not know them.
class include_list {
 public:
  // False with TopicFilter's "<regex> is an invalid regex." message.
  static bool make(std::string_view raw, include_list* out, std::string* error);
  bool allowed(const std::string& topic, bool exclude_internal) const;
  const std::string& regex_text() const { return text_; }

 private:
  std::string text_;
  std::regex re_;
};

// Kafka's Topic.isInternal: the topics of the group, transaction and share
// coordinators.
bool is_internal_topic(std::string_view name);
// Topic.hasCollisionChars: a '.' or a '_'.
bool has_collision_chars(std::string_view name);

// One partition as the describe output sees it (TopicPartitionInfo with the
// reassignment, if one is in progress).
struct partition_view {
  int32_t partition = 0;
  std::optional<int32_t> leader;  // none: no leader, or one not among the live brokers
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::optional<std::vector<int32_t>> elr;  // nullopt: N/A (not from DescribeTopicPartitions)
  std::optional<std::vector<int32_t>> last_known_elr;
  struct reassignment {
    std::vector<int32_t> replicas, adding, removing;
  };
  std::optional<reassignment> reassigning;
};

// TopicCommand's replication factor of a partition: while a reassignment is
// in progress, its target set without the replicas being added.
int replication_factor(const partition_view& p);
bool under_replicated(const partition_view& p);
bool under_min_isr(const partition_view& p, int min_isr);
bool at_min_isr(const partition_view& p, int min_isr);
bool unavailable(const partition_view& p, const std::vector<int32_t>& live_brokers);

// "Topic: t\tTopicId: id\tPartitionCount: n\tReplicationFactor: r\tConfigs: a=1,b=2"
// (no TopicId part for the zero id).
std::string topic_line(const std::string& topic, const protocol::uuid& id, size_t partitions, int replication_factor,
                       const std::vector<std::pair<std::string, std::optional<std::string>>>& non_default_configs);
// "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\tElr: \tLastKnownElr: "
std::string partition_line(const std::string& topic, const partition_view& p);

}  // namespace hw::tools::topics
