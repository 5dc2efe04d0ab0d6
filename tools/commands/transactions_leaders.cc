// The calls kafka-transactions.sh sends to a partition's leader, or to a
// named broker, as Kafka's admin client makes them: DescribeProducers
// (describe-producers, abort --start-offset, find-hanging) and
// WriteTxnMarkers (abort), the leader found as PartitionLeaderStrategy
// finds it and found again when it moved; and the topics and their
// replicas find-hanging searches (Metadata).

#include <set>

#include "protocol/messages/describe_producers.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/write_txn_markers.h"
#include "tools/commands/transactions.h"

namespace hw::tools::txn {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_unknown_topic_or_partition = 3;
constexpr int16_t k_leader_not_available = 5;
constexpr int16_t k_not_leader_or_follower = 6;
constexpr int16_t k_broker_not_available = 8;
constexpr int16_t k_replica_not_available = 9;
constexpr int16_t k_invalid_topic = 17;
constexpr int16_t k_topic_authorization_failed = 29;
constexpr int16_t k_cluster_authorization_failed = 31;
constexpr int16_t k_invalid_producer_epoch = 47;
constexpr int16_t k_coordinator_fenced = 52;
constexpr int16_t k_kafka_storage_error = 56;

msg::metadata_request::metadata_request_topic topic_named(const std::string& name) {
  msg::metadata_request::metadata_request_topic t;
  t.name = name;
  return t;
}

// The partitions' leaders as PartitionLeaderStrategy finds them (Metadata):
// what it can map goes to *leaders, what Kafka's lookup fails to *failed,
// the rest (unknown topics and partitions, no leader yet) is left to retry.
// False when no Metadata answer came.
bool lookup_leaders(admin_client& admin, const std::set<topic_partition>& partitions,
                    std::map<topic_partition, int32_t>* leaders, std::map<topic_partition, call_error>* failed) {
  msg::metadata_request req;
  req.allow_auto_topic_creation = false;
  req.topics.emplace();
  std::set<std::string> topics;
  for (const auto& tp : partitions)
    if (topics.insert(tp.topic).second) req.topics->push_back(topic_named(tp.topic));
  msg::metadata_response resp;
  std::string why;
  if (!admin.call(admin_client::any_node, req, &resp, &why)) return false;
  for (const auto& t : resp.topics) {
    const std::string name = t.name.value_or("");
    if (t.error_code == k_unknown_topic_or_partition || t.error_code == k_leader_not_available ||
        t.error_code == k_broker_not_available)
      continue;  // retried
    for (const auto& tp : partitions) {
      if (tp.topic != name || t.error_code == 0) continue;
      const std::string start = "Failed to fetch metadata for partition " + to_string(tp);
      if (t.error_code == k_topic_authorization_failed)
        (*failed)[tp] = {start + " due to topic authorization failure", t.error_code};
      else if (t.error_code == k_invalid_topic)
        (*failed)[tp] = {start + " due to invalid topic `" + name + "`", t.error_code};
      else
        (*failed)[tp] = {start + " due to unexpected error for topic `" + name + "`", t.error_code};
    }
    if (t.error_code != 0) continue;
    for (const auto& p : t.partitions) {
      const topic_partition tp{name, p.partition_index};
      if (!partitions.count(tp)) continue;
      switch (p.error_code) {
        case 0:
          if (p.leader_id >= 0) (*leaders)[tp] = p.leader_id;
          break;
        case k_not_leader_or_follower: case k_replica_not_available: case k_leader_not_available:
        case k_broker_not_available: case k_kafka_storage_error: case k_unknown_topic_or_partition:
          break;
        default:
          (*failed)[tp] = {"Unexpected error during metadata lookup for " + to_string(tp), p.error_code};
      }
    }
  }
  return true;
}

// DescribeProducersHandler.handleResponse: the partitions answered leave
// *pending (completed or failed); one whose leader moved is unmapped.
void handle_producers(const msg::describe_producers_response& resp, std::optional<int32_t> broker_id,
                      std::set<topic_partition>* pending, std::map<topic_partition, int32_t>* mapped,
                      txn_client::producers_result* out) {
  for (const auto& t : resp.topics) {
    for (const auto& p : t.partitions) {
      const topic_partition tp{t.name, p.partition_index};
      if (!pending->count(tp)) continue;
      const std::string tp_name = to_string(tp);
      std::optional<call_error> failure;
      switch (p.error_code) {
        case 0: {
          auto& states = (*out)[tp].first;
          for (const auto& s : p.active_producers) {
            producer_state state{s.producer_id, s.producer_epoch, s.last_sequence, s.last_timestamp, {}, {}};
            if (s.coordinator_epoch >= 0) state.coordinator_epoch = s.coordinator_epoch;
            if (s.current_txn_start_offset >= 0) state.txn_start_offset = s.current_txn_start_offset;
            states.push_back(state);
          }
          pending->erase(tp);
          continue;
        }
        case k_not_leader_or_follower:
          if (!broker_id) {
            mapped->erase(tp);  // find the leader again
            continue;
          }
          failure = call_error{"Failed to describe active producers for partition " + tp_name + " on brokerId " +
                                   std::to_string(*broker_id),
                               p.error_code};
          break;
        case k_unknown_topic_or_partition:
          continue;  // retried
        case k_invalid_topic:
          failure = call_error{"Failed to fetch metadata for partition " + tp_name + " due to invalid topic error: " +
                                   error_message(p.error_code, p.error_message),
                               p.error_code};
          break;
        case k_topic_authorization_failed:
          failure = call_error{"Failed to describe active producers for partition " + tp_name +
                                   " due to authorization failure on topic `" + tp.topic + "`",
                               p.error_code};
          break;
        default:
          failure = call_error{"Failed to describe active producers for partition " + tp_name + " due to unexpected error",
                               p.error_code};
      }
      (*out)[tp].second = failure;
      pending->erase(tp);
    }
  }
}

// AbortTransactionHandler's checks of a WriteTxnMarkers answer: exactly
// the one marker, topic and partition asked.
std::optional<call_error> unexpected_markers(const msg::write_txn_markers_response& resp, const abort_spec& spec) {
  const std::string what = "WriteTxnMarkers response included unexpected ";
  if (resp.markers.size() != 1 || resp.markers[0].producer_id != spec.producer_id)
    return call_error{what + "marker entries (expected to find exactly one entry with producerId " +
                      std::to_string(spec.producer_id) + ")"};
  const auto& topics = resp.markers[0].topics;
  if (topics.size() != 1 || topics[0].name != spec.partition.topic)
    return call_error{what + "topic entries (expected to find exactly one entry with topic partition " +
                      to_string(spec.partition) + ")"};
  if (topics[0].partitions.size() != 1 || topics[0].partitions[0].partition_index != spec.partition.partition)
    return call_error{what + "partition entries for topic " + spec.partition.topic +
                      " (expected to find exactly one entry with partition " +
                      std::to_string(spec.partition.partition) + ")"};
  return std::nullopt;
}

}  // namespace

void txn_client::describe_producers(const std::vector<topic_partition>& partitions, std::optional<int32_t> broker_id,
                                    producers_result* out) {
  std::set<topic_partition> pending(partitions.begin(), partitions.end());
  const std::string call = broker_id ? "describeProducers(api=DESCRIBE_PRODUCERS)" : "describeProducers(api=METADATA)";
  call_error error;
  auto admin = start(call, &error);
  auto fail_pending = [&](const call_error& e) {
    for (const auto& tp : pending) (*out)[tp].second = e;
  };
  if (!admin) return fail_pending(error);
  std::map<topic_partition, int32_t> mapped;
  if (broker_id)
    for (const auto& tp : pending) mapped[tp] = *broker_id;
  int lookups = 0;
  bool stuck_in_lookup = false;
  do {
    std::set<topic_partition> unmapped;
    for (const auto& tp : pending)
      if (!mapped.count(tp)) unmapped.insert(tp);
    if (!unmapped.empty()) {
      std::map<topic_partition, call_error> failed;
      ++lookups;
      if (lookup_leaders(*admin, unmapped, &mapped, &failed)) stuck_in_lookup = true;
      for (auto& [tp, e] : failed) {
        (*out)[tp].second = e;
        pending.erase(tp);
      }
    }
    std::map<int32_t, std::vector<topic_partition>> by_node;
    for (const auto& tp : pending)
      if (mapped.count(tp)) by_node[mapped[tp]].push_back(tp);
    for (const auto& [node, tps] : by_node) {
      msg::describe_producers_request req;
      for (const auto& tp : tps) {
        if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({tp.topic, {}, {}});
        req.topics.back().partition_indexes.push_back(tp.partition);
      }
      msg::describe_producers_response resp;
      std::string why;
      if (!admin->call(node, req, &resp, &why)) continue;
      handle_producers(resp, broker_id, &pending, &mapped, out);
    }
    if (pending.empty()) return;
    bool any_unmapped = false;
    for (const auto& tp : pending) any_unmapped = any_unmapped || !mapped.count(tp);
    stuck_in_lookup = stuck_in_lookup && any_unmapped;
  } while (admin->back_off());
  fail_pending(stuck_in_lookup ? attempts_timeout("describeProducers(api=METADATA)", *admin, lookups)
                               : node_assignment_timeout("describeProducers(api=DESCRIBE_PRODUCERS)"));
}

bool txn_client::abort_transaction(const abort_spec& spec, call_error* error) {
  auto admin = start("abortTransaction(api=METADATA)", error);
  if (!admin) return false;
  const std::string request = "WriteTxnMarkers request with " + to_string(spec);
  msg::write_txn_markers_request req;
  auto& marker = req.markers.emplace_back();
  marker.producer_id = spec.producer_id;
  marker.producer_epoch = spec.producer_epoch;
  marker.transaction_result = false;
  marker.coordinator_epoch = spec.coordinator_epoch;
  marker.topics.push_back({spec.partition.topic, {spec.partition.partition}, {}});
  int lookups = 0;
  bool found_leader = false;
  do {
    std::map<topic_partition, int32_t> leaders;
    std::map<topic_partition, call_error> failed;
    ++lookups;
    if (!lookup_leaders(*admin, {spec.partition}, &leaders, &failed)) continue;
    if (!failed.empty()) {
      *error = failed.begin()->second;
      return false;
    }
    if (leaders.empty()) continue;
    found_leader = true;
    msg::write_txn_markers_response resp;
    std::string why;
    if (!admin->call(leaders.begin()->second, req, &resp, &why)) continue;
    if (auto unexpected = unexpected_markers(resp, spec)) {
      *error = *unexpected;
      return false;
    }
    const int16_t code = resp.markers[0].topics[0].partitions[0].error_code;
    switch (code) {
      case 0:
        return true;
      case k_cluster_authorization_failed:
        *error = {request + " failed due to cluster authorization error", code};
        return false;
      case k_invalid_producer_epoch:
        *error = {request + " failed due an invalid producer epoch", code};
        return false;
      case k_coordinator_fenced:
        *error = {request + " failed since the provided coordinator epoch " + std::to_string(spec.coordinator_epoch) +
                      " has been fenced by the active coordinator",
                  code};
        return false;
      case k_not_leader_or_follower: case k_replica_not_available: case k_broker_not_available:
      case k_unknown_topic_or_partition:
        found_leader = false;
        break;
      default:
        *error = {request + " failed due to unexpected error: " + error_message(code), code};
        return false;
    }
  } while (admin->back_off());
  *error = found_leader ? node_assignment_timeout("abortTransaction(api=WRITE_TXN_MARKERS)")
                        : attempts_timeout("abortTransaction(api=METADATA)", *admin, lookups);
  return false;
}

bool txn_client::list_topics(std::vector<std::string>* out, call_error* error) {
  auto admin = start("listTopics", error);
  if (!admin) return false;
  msg::metadata_request req;
  req.allow_auto_topic_creation = false;
  req.topics.reset();  // all of them
  do {
    msg::metadata_response resp;
    std::string why;
    if (!admin->call(admin_client::any_node, req, &resp, &why)) continue;
    out->clear();
    for (const auto& t : resp.topics)
      if (t.name) out->push_back(*t.name);
    return true;
  } while (admin->back_off());
  *error = node_assignment_timeout("listTopics");
  return false;
}

bool txn_client::describe_topics(const std::vector<std::string>& topics, std::map<std::string, topic_partitions>* out,
                                 call_error* error) {
  auto admin = start("describeTopics", error);
  if (!admin) return false;
  msg::metadata_request req;
  req.allow_auto_topic_creation = false;
  req.topics.emplace();
  for (const auto& t : topics) req.topics->push_back(topic_named(t));
  do {
    msg::metadata_response resp;
    std::string why;
    if (!admin->call(admin_client::any_node, req, &resp, &why)) continue;
    std::map<std::string, int16_t> errors;
    for (const auto& t : resp.topics) {
      if (!t.name) continue;
      if (t.error_code != 0) {
        errors[*t.name] = t.error_code;
        continue;
      }
      auto& parts = (*out)[*t.name];
      for (const auto& p : t.partitions) parts.emplace_back(p.partition_index, p.replica_nodes);
    }
    // The first failed topic in the order Kafka's result map holds them.
    for (const auto& name : described_topics_order(topics))
      if (errors.count(name)) {
        *error = {error_message(errors[name]), errors[name]};
        return false;
      }
    return true;
  } while (admin->back_off());
  *error = node_assignment_timeout("describeTopics");
  return false;
}

}  // namespace hw::tools::txn
