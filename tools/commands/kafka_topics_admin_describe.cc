// The reading calls of kafka-topics.sh --describe: DescribeTopicPartitions
// (with ELR, paged by a cursor), Metadata where that API is missing or a
// topic id is asked for, DescribeConfigs and ListPartitionReassignments.

#include <algorithm>

#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/list_partition_reassignments.h"
#include "protocol/messages/metadata.h"
#include "tools/commands/kafka_topics_admin.h"

namespace hw::tools::topics {
namespace {

namespace msg = protocol::msg;

constexpr int16_t cluster_authorization_failed = 31;
constexpr int16_t unsupported_version = 35;
constexpr int16_t unknown_topic_or_partition = 3;
constexpr int8_t topic_resource = 2;
constexpr int8_t default_config_source = 5;

// The Java client's Node for a leader id: live brokers only (a leader on a
// broker that is not live prints as "none").
std::optional<int32_t> live_leader(int32_t id, const std::vector<int32_t>& brokers) {
  if (id < 0 || std::find(brokers.begin(), brokers.end(), id) == brokers.end()) return std::nullopt;
  return id;
}

partition_view from_dtp(const msg::describe_topic_partitions_response::describe_topic_partitions_response_partition& p,
                        const std::vector<int32_t>& brokers) {
  partition_view v;
  v.partition = p.partition_index;
  v.leader = live_leader(p.leader_id, brokers);
  v.replicas = p.replica_nodes;
  v.isr = p.isr_nodes;
  // Kafka's brokers always send both lists (empty without ELR); a null one
  // prints as empty rather than failing as Java's client would.
  v.elr = p.eligible_leader_replicas.value_or(std::vector<int32_t>{});
  v.last_known_elr = p.last_known_elr.value_or(std::vector<int32_t>{});
  return v;
}

// The descriptions in the order DescribeTopicsResult.allTopicNames() puts
// them: a HashMap sized for the futures, filled in the futures' order.
std::vector<topic_description> in_result_order(const std::vector<std::string>& names,
                                               std::map<std::string, topic_description>& done) {
  const std::vector<std::string> futures = result_future_order(names);
  std::vector<topic_description> out;
  for (const auto& name : java::hash_map_order(futures, static_cast<int32_t>(futures.size())))
    out.push_back(std::move(done[name]));
  return out;
}

}  // namespace

bool topic_admin::describe_by_metadata(const std::vector<std::string>& names, const std::optional<protocol::uuid>& id,
                                       std::vector<topic_description>* out,
                                       std::vector<std::pair<std::string, topic_error>>* failed, topic_error* error) {
  msg::metadata_request req;
  req.allow_auto_topic_creation = false;
  req.topics.emplace();
  if (id) {
    // Java's client leaves the name "" here; Kafka's broker then goes by the
    // id. A null name says the same in every broker's reading.
    auto& t = req.topics->emplace_back();
    t.topic_id = *id;
    t.name.reset();
  } else {
    for (const auto& n : names) req.topics->emplace_back().name = n;
  }
  msg::metadata_response resp;
  if (!send(false, id ? "describeTopicsWithIds" : "describeTopics", req, &resp, error)) return false;
  std::vector<int32_t> brokers;
  for (const auto& b : resp.brokers) brokers.push_back(b.node_id);
  const std::vector<std::string> wanted = id ? std::vector<std::string>{id->to_string()} : names;
  for (const auto& key : wanted) {
    const msg::metadata_response::metadata_response_topic* t = nullptr;
    for (const auto& candidate : resp.topics)
      if (id ? candidate.topic_id == *id && candidate.error_code == 0 : candidate.name == key) t = &candidate;
    if (!t) {
      topic_error missing = id ? topic_error{"org.apache.kafka.common.errors.UnknownTopicIdException",
                                             "TopicId " + key + " not found."}
                               : topic_error{api_error(unknown_topic_or_partition, std::nullopt).java_class,
                                             "Topic " + key + " not found."};
      failed->push_back({key, missing});
      continue;
    }
    if (t->error_code != 0) {
      failed->push_back({key, api_error(t->error_code, std::nullopt)});
      continue;
    }
    topic_description d{t->name.value_or(""), t->topic_id, t->is_internal, {}};
    for (const auto& p : t->partitions) {
      partition_view v;  // elr stays N/A: Metadata has none
      v.partition = p.partition_index;
      v.leader = live_leader(p.leader_id, brokers);
      v.replicas = p.replica_nodes;
      v.isr = p.isr_nodes;
      d.partitions.push_back(std::move(v));
    }
    std::sort(d.partitions.begin(), d.partitions.end(),
              [](const auto& a, const auto& b) { return a.partition < b.partition; });
    out->push_back(std::move(d));
  }
  return true;
}

bool topic_admin::describe_topic_id(const protocol::uuid& id, topic_description* out, topic_error* error) {
  std::vector<topic_description> found;
  std::vector<std::pair<std::string, topic_error>> failed;
  if (!describe_by_metadata({}, id, &found, &failed, error)) return false;
  if (!failed.empty()) {
    *error = failed.front().second;
    return false;
  }
  *out = std::move(found.front());
  return true;
}

bool topic_admin::describe_topics_each(const std::vector<std::string>& names, int32_t partition_limit,
                                       std::map<std::string, topic_description>* done,
                                       std::map<std::string, topic_error>* failures, topic_error* error) {
  admin_client* c = client("describeTopics", error);
  if (!c) return false;
  std::string why;
  connection* conn = c->connection_to(admin_client::any_node, &why);
  topic_error call_error;
  bool ok = true;
  if (conn && !conn->version_for(msg::describe_topic_partitions_request::schema.api_key, 0, 0)) {
    // Kafka's client falls back to Metadata (no ELR) on brokers without the API.
    std::vector<topic_description> found;
    std::vector<std::pair<std::string, topic_error>> failed;
    ok = describe_by_metadata(names, std::nullopt, &found, &failed, &call_error);
    for (auto& d : found) (*done)[d.name] = std::move(d);
    for (auto& [name, e] : failed) (*failures)[name] = e;
  } else {
    std::vector<int32_t> brokers;
    ok = broker_nodes(&brokers, &call_error) &&
         page_topic_partitions(names, partition_limit, brokers, done, failures, &call_error);
  }
  if (!ok) {
    for (const auto& name : names)
      if (!done->count(name)) (*failures)[name] = call_error;
  }
  return true;
}

bool topic_admin::describe_topics(const std::vector<std::string>& names, int32_t partition_limit,
                                  std::vector<topic_description>* out, topic_error* error) {
  std::map<std::string, topic_description> done;
  std::map<std::string, topic_error> failures;
  if (!describe_topics_each(names, partition_limit, &done, &failures, error)) return false;
  for (const auto& name : result_future_order(names)) {
    if (auto it = failures.find(name); it != failures.end()) {
      *error = it->second;
      return false;
    }
  }
  *out = in_result_order(names, done);
  return true;
}

bool topic_admin::page_topic_partitions(const std::vector<std::string>& names, int32_t partition_limit,
                                        const std::vector<int32_t>& brokers,
                                        std::map<std::string, topic_description>* done,
                                        std::map<std::string, topic_error>* failures, topic_error* error) {
  std::vector<std::string> pending = names;  // asked for, in name order, until answered
  std::sort(pending.begin(), pending.end());
  auto finish = [&](const std::string& name) { pending.erase(std::remove(pending.begin(), pending.end(), name), pending.end()); };
  std::optional<topic_description> partial;  // the topic the last page ended inside
  while (!pending.empty()) {
    if (clock::now() >= client_->deadline()) {
      *error = timed_out("describeTopics");
      return false;
    }
    msg::describe_topic_partitions_request req;
    for (const auto& n : pending) req.topics.emplace_back().name = n;
    req.response_partition_limit = partition_limit;
    if (partial) {
      req.cursor.emplace();
      req.cursor->topic_name = partial->name;
      req.cursor->partition_index = static_cast<int32_t>(partial->partitions.size());
    }
    msg::describe_topic_partitions_response resp;
    if (!send(false, "describeTopics", req, &resp, error)) return false;
    std::optional<std::string> cursor_topic;
    if (resp.next_cursor) cursor_topic = resp.next_cursor->topic_name;
    std::optional<topic_description> next;
    for (const auto& t : resp.topics) {
      const std::string name = t.name.value_or("");
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;  // not asked for
      if (t.error_code != 0) {
        (*failures)[name] = api_error(t.error_code, std::nullopt);
        finish(name);
        if (cursor_topic == name) cursor_topic.reset();
        continue;
      }
      topic_description d{name, t.topic_id, t.is_internal, {}};
      for (const auto& p : t.partitions) d.partitions.push_back(from_dtp(p, brokers));
      if (partial && partial->name == name) {
        partial->partitions.insert(partial->partitions.end(), d.partitions.begin(), d.partitions.end());
      } else if (cursor_topic == name) {
        next = std::move(d);
      } else {
        finish(name);
        (*done)[name] = std::move(d);
      }
    }
    if (partial && cursor_topic != partial->name) {
      finish(partial->name);
      (*done)[partial->name] = std::move(*partial);
      partial.reset();
    }
    if (next) partial = std::move(next);
  }
  return true;
}

bool topic_admin::describe_configs(const std::vector<std::string>& names, std::map<std::string, topic_config>* out,
                                   topic_error* error) {
  msg::describe_configs_request req;
  for (const auto& n : names) {
    msg::describe_configs_request::describe_configs_resource r;
    r.resource_type = topic_resource;
    r.resource_name = n;
    r.configuration_keys.reset();  // null: every config
    req.resources.push_back(std::move(r));
  }
  msg::describe_configs_response resp;
  if (!send(false, "describeConfigs", req, &resp, error)) return false;
  out->clear();
  for (const auto& name : names) {
    topic_config& cfg = (*out)[name];
    auto it = std::find_if(resp.results.begin(), resp.results.end(),
                           [&](const auto& r) { return r.resource_type == topic_resource && r.resource_name == name; });
    if (it == resp.results.end()) {
      cfg.error = topic_error{"org.apache.kafka.common.errors.ApiException",
                              "The node response did not contain a result for config resource ConfigResource(type=TOPIC, name='" +
                                  name + "')"};
      continue;
    }
    if (it->error_code != 0) {
      cfg.error = api_error(it->error_code, it->error_message);
      continue;
    }
    // Kafka's Config keeps its entries in a HashMap keyed by name.
    std::vector<std::string> entry_names;
    for (const auto& e : it->configs) entry_names.push_back(e.name);
    for (const auto& entry_name : java::hash_map_order(entry_names)) {
      const auto& e = *std::find_if(it->configs.begin(), it->configs.end(),
                                    [&](const auto& x) { return x.name == entry_name; });
      cfg.entries.push_back({e.name, e.value, e.config_source == default_config_source});
    }
  }
  return true;
}

bool topic_admin::list_reassignments(const std::vector<topic_description>& topics, reassignment_map* out,
                                     topic_error* error) {
  msg::list_partition_reassignments_request req;
  req.topics.emplace();
  for (const auto& t : topics) {
    msg::list_partition_reassignments_request::list_partition_reassignments_topics rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) rt.partition_indexes.push_back(p.partition);
    req.topics->push_back(std::move(rt));
  }
  msg::list_partition_reassignments_response resp;
  out->clear();
  for (;;) {
    req.timeout_ms = client("listPartitionReassignments", error) ? remaining_ms() : 0;
    topic_error failed;
    if (!send(true, "listPartitionReassignments", req, &resp, &failed)) {
      if (failed.java_class.ends_with("UnsupportedVersionException")) return true;
      *error = failed;
      return false;
    }
    if (resp.error_code != 41 || !retry_after_not_controller()) break;
  }
  if (resp.error_code == unsupported_version || resp.error_code == cluster_authorization_failed) return true;
  if (resp.error_code != 0) {
    // TopicCommand wraps this one: its message is the ExecutionException's.
    const topic_error cause = api_error(resp.error_code, resp.error_message);
    *error = {"java.lang.RuntimeException",
              "java.util.concurrent.ExecutionException: " + cause.java_class + ": " + cause.message};
    return false;
  }
  for (const auto& t : resp.topics)
    for (const auto& p : t.partitions)
      (*out)[{t.name, p.partition_index}] = {p.replicas, p.adding_replicas, p.removing_replicas};
  return true;
}

}  // namespace hw::tools::topics
