#pragma once
// The admin calls of kafka-topics.sh, on the project's protocol code, with
// the results and errors Kafka's Java admin client gives TopicCommand: the
// same requests, the same exception messages, and collections in the order
// the Java client's HashMaps hand them out where the tool prints that order.

#include <chrono>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/cli/options.h"
#include "tools/client/admin_client.h"
#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {

struct topic_listing {
  std::string name;
  protocol::uuid id;
  bool internal = false;
};

struct topic_description {
  std::string name;
  protocol::uuid id;
  bool internal = false;
  std::vector<partition_view> partitions;  // as the broker sent them (reassignments not filled in)
};

struct config_entry {
  std::string name;
  std::optional<std::string> value;
  bool is_default = false;
};

// One topic's DescribeConfigs result: its entries in the order Kafka's
// Config (a HashMap) iterates them, or the error of its future.
struct topic_config {
  std::optional<topic_error> error;
  std::vector<config_entry> entries;
  const config_entry* get(const std::string& name) const;
};

using reassignment_map = std::map<std::pair<std::string, int32_t>, partition_view::reassignment>;

struct new_topic {
  std::string name;
  std::optional<int32_t> partitions;
  std::optional<int16_t> replication_factor;
  std::vector<std::vector<int32_t>> assignment;  // partition i's brokers; empty: none
  std::vector<std::pair<std::string, std::string>> configs;
};

struct new_partitions {
  std::string topic;
  int32_t count = 0;
  std::optional<std::vector<std::vector<int32_t>>> assignments;
};

// Kafka's admin client's TimeoutException when no node answered in time.
topic_error timed_out(const std::string& call);

class topic_admin {
 public:
  topic_admin(std::optional<std::string> bootstrap, std::vector<std::pair<std::string, std::string>> command_config);
  ~topic_admin();

  // Every call returns false with the error Kafka's tool would print.
  bool list_topics(bool include_internal, std::vector<topic_listing>* out, topic_error* error);
  // DescribeCluster's brokers: the ones describe calls live.
  bool live_brokers(std::vector<int32_t>* out, topic_error* error);
  // DescribeTopicPartitions, paged by partition_limit; *out in the order
  // DescribeTopicsResult.allTopicNames() hands the descriptions out.
  bool describe_topics(const std::vector<std::string>& names, int32_t partition_limit,
                       std::vector<topic_description>* out, topic_error* error);
  // The same, topic by topic (a failed call fails every topic); false only
  // when the admin client could not be set up.
  bool describe_topics_each(const std::vector<std::string>& names, int32_t partition_limit,
                            std::map<std::string, topic_description>* done, std::map<std::string, topic_error>* failed,
                            topic_error* error);
  bool describe_topic_id(const protocol::uuid& id, topic_description* out, topic_error* error);
  bool describe_configs(const std::vector<std::string>& names, std::map<std::string, topic_config>* out,
                        topic_error* error);
  // Reassignments in progress among these partitions; none where the broker
  // does not list them (unsupported, or not authorized), as Kafka's tool.
  bool list_reassignments(const std::vector<topic_description>& topics, reassignment_map* out, topic_error* error);
  bool create_topic(const new_topic& topic, topic_error* error);
  bool create_partitions(const std::vector<new_partitions>& topics, topic_error* error);
  bool delete_topics(const std::vector<std::string>& names, topic_error* error);

 private:
  admin_client* client(const char* call, topic_error* error);
  int32_t controller_node() const;
  int32_t remaining_ms() const;
  // After a NOT_CONTROLLER answer: Kafka's client reads Metadata again and
  // retries, while the deadline allows.
  bool retry_after_not_controller();
  template <class Req, class Resp>
  bool send(bool to_controller, const char* call, const Req& req, Resp* resp, topic_error* error,
            int16_t* version = nullptr);
  bool describe_by_metadata(const std::vector<std::string>& names, const std::optional<protocol::uuid>& id,
                            std::vector<topic_description>* out, std::vector<std::pair<std::string, topic_error>>* failed,
                            topic_error* error);
  bool broker_nodes(std::vector<int32_t>* out, topic_error* error);
  bool page_topic_partitions(const std::vector<std::string>& names, int32_t partition_limit,
                             const std::vector<int32_t>& brokers, std::map<std::string, topic_description>* done,
                             std::map<std::string, topic_error>* failures, topic_error* error);

  std::optional<std::string> bootstrap_;
  std::vector<std::pair<std::string, std::string>> command_config_;
  std::unique_ptr<admin_client> client_;
  std::optional<std::vector<int32_t>> brokers_;  // DescribeCluster's, once read
};

template <class Req, class Resp>
bool topic_admin::send(bool to_controller, const char* call, const Req& req, Resp* resp, topic_error* error,
                       int16_t* version) {
  admin_client* c = client(call, error);
  if (!c) return false;
  for (;;) {
    std::string why;
    if (c->call(to_controller ? controller_node() : admin_client::any_node, req, resp, &why, version)) return true;
    if (admin_client::unsupported(why)) {
      *error = {"org.apache.kafka.common.errors.UnsupportedVersionException", why};
      return false;
    }
    // A broken connection: Kafka's client retries until the call's deadline.
    if (!c->back_off()) {
      *error = timed_out(call);
      return false;
    }
  }
}

// The first failure in the order KafkaFuture.allOf reports one: the
// futures of a result map copied from a HashMap<String, ...> built in
// `names` order (new HashMap<>(names.size())).
std::vector<std::string> result_future_order(const std::vector<std::string>& names);

// ---- the command's flows (kafka_topics.cc, kafka_topics_describe.cc) ----

// TopicCommand.getTopics: the topics --topic selects (all without it),
// internal ones unless --exclude-internal, sorted by name.
bool get_topics(const cli::option_set& opts, topic_admin& admin, std::vector<std::string>* out, topic_error* error);
// The same, with the "does not
// exist as expected" error when --topic named some and none matched
// (unless --if-exists).
bool matching_topics(const cli::option_set& opts, topic_admin& admin, std::vector<std::string>* out,
                     topic_error* error);
// An Integer option's value as joptsimple converts it.
bool option_int(const std::string& text, const std::string& option, int32_t* out, topic_error* error);
// --describe; prints as it goes (what printed before an error stays).
bool describe_command(const cli::option_set& opts, topic_admin& admin, std::ostream& out, topic_error* error);

}  // namespace hw::tools::topics
