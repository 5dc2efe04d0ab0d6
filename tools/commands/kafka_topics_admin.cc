#include "tools/commands/kafka_topics_admin.h"

#include <algorithm>

#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/metadata.h"
#include "tools/client/client_security.h"
#include "tools/commands/command.h"

namespace hw::tools::topics {
namespace {

namespace msg = protocol::msg;

constexpr int16_t not_controller = 41;

const char* const api_exception = "org.apache.kafka.common.errors.ApiException";

template <class Results>
bool any_not_controller(const Results& results) {
  return std::any_of(results.begin(), results.end(), [](const auto& r) { return r.error_code == not_controller; });
}

// The first failure, in the order Kafka's result's all() reports failures.
bool first_failure(const std::vector<std::string>& names, const std::map<std::string, topic_error>& failures,
                   topic_error* error) {
  for (const auto& name : result_future_order(names)) {
    auto it = failures.find(name);
    if (it != failures.end()) {
      *error = it->second;
      return false;
    }
  }
  return true;
}

}  // namespace

topic_error timed_out(const std::string& call) {
  return {"org.apache.kafka.common.errors.TimeoutException", "Timed out waiting for a node assignment. Call: " + call};
}

std::vector<std::string> result_future_order(const std::vector<std::string>& names) {
  java::hash_order futures(static_cast<int32_t>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) futures.put(java::string_hash(names[i]), i);
  std::vector<std::string> out;
  for (size_t i : java::hash_order::copy_of(futures).order()) out.push_back(names[i]);
  return out;
}

const config_entry* topic_config::get(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

topic_admin::topic_admin(std::optional<std::string> bootstrap,
                         std::vector<std::pair<std::string, std::string>> command_config)
    : bootstrap_(std::move(bootstrap)), command_config_(std::move(command_config)) {}

topic_admin::~topic_admin() = default;

admin_client* topic_admin::client(const char* call, topic_error* error) {
  if (client_) return client_.get();
  std::string why;
  client_ = connect_admin(bootstrap_, false, command_config_, &why);
  if (client_) return client_.get();
  if (why.starts_with("Timed out")) {
    // What the Java admin client says when no node answered before the deadline.
    *error = timed_out(call);
  } else if (connection::authentication_failure(why)) {
    // "<exception class>: <message>": the call fails with Kafka's exception.
    const size_t colon = why.find(": ");
    *error = {why.substr(0, colon), why.substr(colon + 2), false};
  } else if (login_context_failure(why)) {
    // Kafka's admin client fails to be built: its message, then the trace.
    *error = {"", "Failed to create new KafkaAdminClient\norg.apache.kafka.common.KafkaException: Failed to create new "
                  "KafkaAdminClient\nCaused by: org.apache.kafka.common.KafkaException: Failed to create new "
                  "NetworkClient\nCaused by: " + why,
              true};
  } else {
    *error = {"org.apache.kafka.common.KafkaException", why, true};
  }
  return nullptr;
}

int32_t topic_admin::controller_node() const {
  // Kafka's admin client sends controller calls to the node Metadata names
  // as the controller (in KRaft a broker, which forwards them).
  for (const auto& n : client_->nodes())
    if (n.id == client_->controller_id()) return n.id;
  return admin_client::any_node;
}

int32_t topic_admin::remaining_ms() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(client_->deadline() - clock::now()).count();
  return static_cast<int32_t>(std::clamp<int64_t>(left, 0, INT32_MAX));
}

bool topic_admin::list_topics(bool include_internal, std::vector<topic_listing>* out, topic_error* error) {
  msg::metadata_request req;
  req.topics.reset();  // null: every topic
  req.allow_auto_topic_creation = false;
  msg::metadata_response resp;
  if (!send(false, "listTopics", req, &resp, error)) return false;
  out->clear();
  for (const auto& t : resp.topics) {
    if (!t.name || (t.is_internal && !include_internal)) continue;
    out->push_back({*t.name, t.topic_id, t.is_internal});
  }
  return true;
}

bool topic_admin::broker_nodes(std::vector<int32_t>* out, topic_error* error) {
  if (brokers_) {
    *out = *brokers_;
    return true;
  }
  admin_client* c = client("describeCluster", error);
  if (!c) return false;
  msg::describe_cluster_request req;
  msg::describe_cluster_response resp;
  topic_error failed;
  std::vector<int32_t> ids;
  if (send(false, "describeCluster", req, &resp, &failed)) {
    if (resp.error_code != 0) {
      *error = api_error(resp.error_code, resp.error_message);
      return false;
    }
    for (const auto& b : resp.brokers) ids.push_back(b.broker_id);
  } else if (failed.java_class.ends_with("UnsupportedVersionException")) {
    // Kafka's client asks Metadata for the brokers when DescribeCluster is unknown.
    std::string why;
    if (!c->refresh(&why)) {
      *error = timed_out("listNodes");
      return false;
    }
    for (const auto& n : c->nodes()) ids.push_back(n.id);
  } else {
    *error = failed;
    return false;
  }
  brokers_ = ids;
  *out = std::move(ids);
  return true;
}

bool topic_admin::live_brokers(std::vector<int32_t>* out, topic_error* error) { return broker_nodes(out, error); }


bool topic_admin::create_topic(const new_topic& topic, topic_error* error) {
  admin_client* c = client("createTopics", error);
  if (!c) return false;
  msg::create_topics_request::creatable_topic t;
  t.name = topic.name;
  if (!topic.assignment.empty()) {
    t.num_partitions = -1;
    t.replication_factor = -1;
    for (size_t i = 0; i < topic.assignment.size(); ++i) {
      auto& a = t.assignments.emplace_back();
      a.partition_index = static_cast<int32_t>(i);
      a.broker_ids = topic.assignment[i];
    }
  } else {
    t.num_partitions = topic.partitions.value_or(-1);
    t.replication_factor = topic.replication_factor.value_or(-1);
  }
  for (const auto& [name, value] : topic.configs) {
    auto& c = t.configs.emplace_back();
    c.name = name;
    c.value = value;
  }
  msg::create_topics_request req;
  req.topics.push_back(std::move(t));
  msg::create_topics_response resp;
  for (;;) {
    req.timeout_ms = remaining_ms();
    if (!send(true, "createTopics", req, &resp, error)) return false;
    if (!any_not_controller(resp.topics) || !retry_after_not_controller()) break;
  }
  for (const auto& r : resp.topics) {
    if (r.name != topic.name) continue;
    if (r.error_code == 0) return true;
    *error = api_error(r.error_code, r.error_message);
    return false;
  }
  *error = {api_exception, "The controller response did not contain a result for topic " + topic.name};
  return false;
}

bool topic_admin::create_partitions(const std::vector<new_partitions>& topics, topic_error* error) {
  admin_client* c = client("createPartitions", error);
  if (!c) return false;
  // TopicCommand collects them into a HashMap first: the request, and
  // which failure is reported, follow its order.
  std::vector<std::string> names;
  for (const auto& t : topics) names.push_back(t.topic);
  names = java::hash_map_order(names);
  msg::create_partitions_request req;
  for (const auto& name : names) {
    const auto& t = *std::find_if(topics.begin(), topics.end(), [&](const auto& x) { return x.topic == name; });
    msg::create_partitions_request::create_partitions_topic rt;
    rt.name = t.topic;
    rt.count = t.count;
    if (t.assignments) {
      rt.assignments.emplace();
      for (const auto& brokers : *t.assignments) rt.assignments->emplace_back().broker_ids = brokers;
    } else {
      rt.assignments.reset();
    }
    req.topics.push_back(std::move(rt));
  }
  msg::create_partitions_response resp;
  for (;;) {
    req.timeout_ms = remaining_ms();
    if (!send(true, "createPartitions", req, &resp, error)) return false;
    if (!any_not_controller(resp.results) || !retry_after_not_controller()) break;
  }
  std::map<std::string, topic_error> failures;
  for (const auto& name : names) {
    auto it = std::find_if(resp.results.begin(), resp.results.end(), [&](const auto& r) { return r.name == name; });
    if (it == resp.results.end())
      failures[name] = {api_exception, "The controller response did not contain a result for topic " + name};
    else if (it->error_code != 0)
      failures[name] = api_error(it->error_code, it->error_message);
  }
  return first_failure(names, failures, error);
}

bool topic_admin::delete_topics(const std::vector<std::string>& names, topic_error* error) {
  admin_client* c = client("deleteTopics", error);
  if (!c) return false;
  msg::delete_topics_request req;
  req.topic_names = names;  // up to v5
  for (const auto& n : names) req.topics.emplace_back().name = n;  // v6 on
  msg::delete_topics_response resp;
  for (;;) {
    req.timeout_ms = remaining_ms();
    if (!send(true, "deleteTopics", req, &resp, error)) return false;
    if (!any_not_controller(resp.responses) || !retry_after_not_controller()) break;
  }
  std::map<std::string, topic_error> failures;
  for (const auto& name : names) {
    auto it = std::find_if(resp.responses.begin(), resp.responses.end(), [&](const auto& r) { return r.name == name; });
    if (it == resp.responses.end())
      failures[name] = {api_exception, "The controller response did not contain a result for topic " + name};
    else if (it->error_code != 0)
      failures[name] = api_error(it->error_code, it->error_message);
  }
  return first_failure(names, failures, error);
}

bool topic_admin::retry_after_not_controller() { return client_->back_off(); }

}  // namespace hw::tools::topics
