#pragma once
// kafka-consumer-groups.sh (Kafka's ConsumerGroupCommand), split by concern:
//   consumer_groups.cc           options, their checks, the dispatch
//   consumer_groups_actions.cc   --list, --describe, --delete, --delete-offsets
//   consumer_groups_reset.cc     --reset-offsets
//   consumer_groups_client.cc    the group requests, answered as the Java admin client answers them
//   consumer_groups_format.cc    pure parts: the printed tables
//   consumer_groups_parse.cc     pure parts: states, types, topic:partitions, datetimes, durations
//   consumer_groups_java.cc      the Java behaviours that show in the output (String.hashCode and
//                                HashMap order, String.length, %-Ns)
// Declarations here are internal to the tool (and its unit tests).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tools/cli/options.h"
#include "tools/client/admin_client.h"
#include "tools/commands/command.h"
#include "tools/commands/get_offsets_client.h"
#include "tools/commands/java.h"

namespace hw::tools::groups {

using get_offsets::topic_partition;

// ---- Java behaviours (consumer_groups_java.cc) ----

// TopicPartition.hashCode.
int32_t java_hash(const topic_partition& tp);
// String.format("%-<width>s", s).
std::string pad(std::string_view s, size_t width);
// The order a java.util.HashMap whose table ends with `capacity` buckets
// (0: a default map filled one put at a time), filled by putting these keys
// in this order, each once, iterates them: by bucket of the spread hash,
// ties in insertion order. Returns indexes.
std::vector<size_t> java_hash_order(const std::vector<int32_t>& hashes, size_t capacity = 0);
std::vector<std::string> java_hash_order(const std::vector<std::string>& keys);
std::vector<topic_partition> java_hash_order(const std::vector<topic_partition>& keys, size_t capacity = 0);
// The table of a default HashMap after `size` puts (16, doubled past 3/4 full).
size_t java_map_capacity(size_t size);
// The table after putAll(m) of `added` entries into a map of `size` (an
// empty map sizes its table for m at once).
size_t java_put_all_capacity(size_t size, size_t added);

// ---- errors ----

// An exception as the tool prints it: `type` is the Java class (may be
// empty), `message` its message. str() is Throwable.toString().
struct kafka_error {
  std::string type;
  std::string message;
  int16_t code = -1;  // the error code it came from (-1: none)
  std::string str() const { return type.empty() ? message : type + ": " + message; }
};
kafka_error error_of(int16_t code, const std::optional<std::string>& broker_message = std::nullopt);
kafka_error timeout_error(const std::string& call);

// ---- parsing (consumer_groups_parse.cc) ----

// GroupState: the names Kafka prints ("Stable", "PreparingRebalance", ...).
enum class group_state { unknown, preparing_rebalance, completing_rebalance, stable, dead, empty, assigning, reconciling, not_ready };
std::string state_name(group_state s);
// GroupState.parse: case-insensitive, unknown for anything else.
group_state parse_state(std::string_view name);
// --state's value: the states named (comma separated), or false with
// Kafka's "Invalid state list ..." message.
bool parse_state_list(const std::string& input, std::vector<group_state>* out, std::string* error);
// --type's value: "classic", "consumer" (case-insensitive), or false with
// Kafka's "Invalid types list ..." message. Out: "Classic"/"Consumer".
bool parse_type_list(const std::string& input, std::vector<std::string>* out, std::string* error);

// "topic:0,1,2" (OffsetsUtils.parseTopicsWithPartitions): false with Kafka's
// IllegalArgumentException message.
bool parse_topic_with_partitions(const std::string& arg, std::vector<topic_partition>* out, std::string* error);

// Utils.getDateTime ("yyyy-MM-ddTHH:mm:ss.SSS" with an optional zone, UTC
// by default, as Java's strict SimpleDateFormat reads it): epoch ms, or
// false with the ParseException's message.
bool parse_datetime(const std::string& text, int64_t* epoch_ms, std::string* error);
// java.time.Duration.parse ("PnDTnHnMn.nS"): nanoseconds, or false.
bool parse_duration(const std::string& text, __int128* nanos);

// ---- the data the tables show ----

struct member_info {
  std::string consumer_id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string host;
  std::vector<topic_partition> assignment;  // a set: each partition once
  std::optional<std::vector<topic_partition>> target_assignment;
  std::optional<int32_t> member_epoch;
  std::optional<bool> upgraded;
};

struct group_info {
  std::string group_id;
  bool consumer_type = false;  // the new protocol (ConsumerGroupDescribe) vs classic
  group_state state = group_state::unknown;
  std::string assignor;  // classic: the protocol (e.g. "range")
  node_info coordinator;
  std::vector<member_info> members;
  std::optional<int32_t> group_epoch;
  std::optional<int32_t> target_assignment_epoch;
};

struct group_listing {
  std::string group_id;
  std::string type;   // "" when the broker named none
  std::string state;  // likewise
};

// One row of --describe's offsets table.
struct offset_row {
  std::string group;
  std::optional<std::string> topic;
  std::optional<int32_t> partition;
  std::optional<int32_t> leader_epoch;
  std::optional<int64_t> offset;
  std::optional<int64_t> log_end_offset;
  std::optional<int64_t> lag;
  std::optional<std::string> consumer_id, host, client_id;
};

// One row of --members.
struct member_row {
  std::string group, consumer_id, host, client_id, instance_id;
  size_t partitions = 0;
  std::vector<topic_partition> assignment, target_assignment;
  std::optional<int32_t> current_epoch, target_epoch;
  std::optional<bool> upgraded;
};

// ---- the printed tables (consumer_groups_format.cc), exactly as Kafka prints them ----

std::string format_group_list(const std::vector<group_listing>& groups, bool with_type, bool with_state);
std::string format_offsets(const std::vector<offset_row>& rows, bool verbose);
// Widths come from the rows only when Kafka computed them (size_widths).
std::string format_members(const std::vector<member_row>& rows, bool verbose, bool size_widths);
std::string format_state(const group_info& group, bool verbose);
// "orders:0,1,2;payments:0" as Kafka joins an assignment.
std::string assignment_string(const std::vector<topic_partition>& assignment);
// --reset-offsets: the groups in the order given, each with its partitions in order.
using reset_plan = std::vector<std::pair<std::string, std::vector<std::pair<topic_partition, int64_t>>>>;
std::string format_reset_plan(const reset_plan& plan);
// --export's CSV: topic,partition,offset (or group,topic,... for several groups).
std::string format_reset_csv(const reset_plan& plan, bool with_group);
// --delete-offsets: (partition, error or "" for success), sorted as Kafka sorts them.
std::string format_delete_offsets(const std::vector<std::pair<topic_partition, std::string>>& results);

// ---- the requests (consumer_groups_client.cc) ----

// Without an admin (no broker answered the bootstrap) every call fails as
// Kafka's admin client fails it then.
class group_client {
 public:
  explicit group_client(admin_client* admin) : admin_(admin) {}

  // ListGroups at every broker; false with the first broker's error.
  bool list_groups(const std::vector<std::string>& states, const std::vector<std::string>& types,
                   std::vector<group_listing>* out, kafka_error* error);
  // Consumer groups only (protocol type "consumer" or none), the plain --list.
  bool list_consumer_groups(std::vector<std::string>* out, kafka_error* error);
  // Each group's description or the error describing it failed with.
  std::map<std::string, std::variant<group_info, kafka_error>> describe(const std::vector<std::string>& groups);
  // OffsetFetch for every partition the group committed; nullopt: the
  // broker answered offset -1. In the broker's order.
  using committed = std::vector<std::pair<topic_partition, std::optional<std::pair<int64_t, int32_t>>>>;
  bool committed_offsets(const std::string& group, committed* out, kafka_error* error);
  // OffsetCommit as the admin client alters a group's offsets.
  bool commit_offsets(const std::string& group, const std::vector<std::pair<topic_partition, int64_t>>& offsets,
                      kafka_error* error);
  // DeleteGroups: each group's error, nullopt for deleted.
  std::map<std::string, std::optional<kafka_error>> delete_groups(const std::vector<std::string>& groups);
  // OffsetDelete: the group's error code and each partition's.
  bool delete_offsets(const std::string& group, const std::vector<topic_partition>& partitions, int16_t* group_error,
                      std::map<topic_partition, int16_t>* partition_errors, kafka_error* error);

  // Topics as describeTopics sees them: each topic's partitions (with
  // leaders), or the topic's error.
  std::map<std::string, std::variant<get_offsets::topic_info, kafka_error>> describe_topics(
      const std::vector<std::string>& topics);
  // Offsets for a spec as listOffsets(...).all() gives them: all, or the
  // first error.
  bool list_offsets(const std::vector<topic_partition>& partitions, int64_t timestamp,
                    std::map<topic_partition, int64_t>* out, kafka_error* error);

 private:
  // `call`: the admin call Kafka names when the lookup times out.
  bool coordinator(const std::string& group, const std::string& call, node_info* out, kafka_error* error);
  std::variant<group_info, kafka_error> describe_one(const std::string& group);
  admin_client* admin_;
  std::map<std::string, node_info> coordinators_;
};

// ---- the actions ----

// Everything the command line asked, read once (consumer_groups.cc).
struct command {
  cli::option_set opts;
  std::vector<std::string> groups;  // --group values, in order
  std::optional<std::string> state_value, type_value;  // --state/--type's optional values
  std::optional<int64_t> to_offset, shift_by;
  int64_t timeout_ms = 30000;
  bool has(std::string_view name) const { return opts.has(name); }
};

// What the actions print to stdout through Kafka's printError.
void print_error(std::ostream& out, const std::string& message);

void list_groups(group_client& client, const command& cmd, tool_io io);
void describe_groups(group_client& client, const command& cmd, tool_io io);
void delete_groups(group_client& client, const command& cmd, tool_io io);
void delete_offsets(group_client& client, const command& cmd, tool_io io);
void reset_offsets(group_client& client, const command& cmd, tool_io io);

// Thrown by the actions where Kafka's tool throws: a failure it reports as
// "Error: Executing consumer group command failed due to <message>" (exit
// status 0, as Kafka's), and an IllegalArgumentException it prints with the
// usage (exit status 1).
struct command_failure {
  std::string message;
};
struct usage_failure {
  std::string message;
};

}  // namespace hw::tools::groups
