// Partition reassignment (AlterPartitionReassignments, ListPartitionReassignments),
// as Kafka 4.3's ReplicationControlManager runs it:
//
// 1. A PartitionChangeRecord lists the target replicas first and the ones
//    leaving after them, with `adding` and `removing` set. The new replicas
//    start fetching as followers.
// 2. When the ISR holds every target replica (the leader's AlterPartition
//    adds the new ones as they catch up), the change that does so also
//    completes the reassignment: the leaving replicas go from replicas and
//    ISR, adding/removing clear, and a leader that left is replaced.
// Both steps are partition_change_builder's; a reassignment that only
// reorders replicas, or whose targets are all in sync already, completes in
// its first record. A cancel goes back to the replicas before step 1.

#include <algorithm>
#include <set>

#include "controller/replication_control.h"

namespace hw::controller {

namespace {

// Replication factor of a partition: under reassignment, the one it is
// moving to.
size_t replication_factor_of(const partition_registration& p) {
  if (p.adding.empty() && p.removing.empty()) return p.replicas.size();
  std::set<node_id> target(p.replicas.begin(), p.replicas.end());
  target.insert(p.adding.begin(), p.adding.end());
  for (node_id r : p.removing) target.erase(r);
  return target.size();
}

bool in_progress(const partition_registration& p) { return !p.adding.empty() || !p.removing.empty(); }

}  // namespace

api_error replication_control::reassign_partition(const metadata_image& image, const std::string& topic_name,
                                                  int32_t partition, const std::optional<std::vector<node_id>>& target,
                                                  bool allow_replication_factor_change,
                                                  std::vector<metadata_record>& out) const {
  const topic_image* topic = image.topic(topic_name);
  if (!topic) return {error_code::unknown_topic_or_partition, "Unable to find a topic named " + topic_name + "."};
  auto it = topic->partitions.find(partition);
  if (it == topic->partitions.end()) {
    return {error_code::unknown_topic_or_partition,
            "Unable to find partition " + topic_name + ":" + std::to_string(partition) + "."};
  }
  const partition_registration& p = it->second;
  partition_change_builder builder(p, topic->id, partition, change_options(image, *topic));
  if (!target) {
    // Cancel: the added replicas go, the removed ones stay.
    if (!in_progress(p)) {
      return {error_code::no_reassignment_in_progress, ""};  // Kafka sends no message with it
    }
    reassignment_replicas ongoing{p.replicas, p.adding, p.removing};
    std::vector<node_id> isr;
    for (node_id r : p.isr)
      if (std::find(p.adding.begin(), p.adding.end(), r) == p.adding.end()) isr.push_back(r);
    const bool unclean_allowed = configs_.unclean_election_enabled(image, topic_name);
    if (isr.empty()) {
      // Only new replicas are in sync: going back means an old one leads
      // without the data.
      if (!unclean_allowed) {
        return {error_code::invalid_replica_assignment,
                "Unable to revert partition assignment for " + topic_name + ":" + std::to_string(partition) +
                    " because it would require an unclean leader election."};
      }
      isr.push_back(ongoing.original().front());
    }
    if (unclean_allowed) builder.set_election(election_type::unclean);
    builder.set_target_isr(std::move(isr))
        .set_target_replicas(ongoing.original())
        .set_target_adding({})
        .set_target_removing({});
  } else {
    if (api_error e = validate_manual_assignment(image, *target, std::nullopt); !e.ok()) return e;
    if (!allow_replication_factor_change && replication_factor_of(p) != target->size()) {
      return {error_code::invalid_replication_factor, "The replication factor is changed from " +
                                                          std::to_string(replication_factor_of(p)) + " to " +
                                                          std::to_string(target->size())};
    }
    // From the partition's current replica list (which, mid-reassignment,
    // still holds the replicas on their way out).
    reassignment_replicas moving = reassignment_replicas::between(p.replicas, *target);
    if (moving.replicas != p.replicas) builder.set_target_replicas(moving.replicas);
    builder.set_target_adding(moving.adding).set_target_removing(moving.removing);
  }
  if (auto record = builder.build()) out.push_back(*record);
  return {};
}

controller_result<msg::alter_partition_reassignments_response> replication_control::alter_partition_reassignments(
    const metadata_image& image, const msg::alter_partition_reassignments_request& request, int16_t version) const {
  controller_result<msg::alter_partition_reassignments_response> out;
  // An empty request is answered before any work, with the schema's default
  // message (""); otherwise the message is null unless the whole call failed.
  if (!request.topics.empty()) out.response.error_message = std::nullopt;
  if (version >= 1) out.response.allow_replication_factor_change = request.allow_replication_factor_change;
  for (const auto& topic : request.topics) {
    auto& topic_result = out.response.responses.emplace_back();
    topic_result.name = topic.name;
    for (const auto& partition : topic.partitions) {
      std::optional<std::vector<node_id>> target;
      if (partition.replicas) target = storage::named_list<node_id>(*partition.replicas);
      api_error e = reassign_partition(image, topic.name, partition.partition_index, target,
                                       version < 1 || request.allow_replication_factor_change, out.records);
      auto& r = topic_result.partitions.emplace_back();
      r.partition_index = partition.partition_index;
      r.error_code = static_cast<int16_t>(e.code);
      r.error_message = e.ok() || e.message.empty() ? std::nullopt : std::optional<std::string>(e.message);
    }
  }
  return out;
}

msg::list_partition_reassignments_response replication_control::list_partition_reassignments(
    const metadata_image& image, const msg::list_partition_reassignments_request& request) const {
  msg::list_partition_reassignments_response response;
  response.error_message = std::nullopt;
  auto list_topic = [&](const topic_image& topic, const std::vector<int32_t>* partitions) {
    msg::list_partition_reassignments_response::ongoing_topic_reassignment t;
    t.name = topic.name;
    auto add = [&](int32_t id, const partition_registration& p) {
      if (!in_progress(p)) return;
      auto& r = t.partitions.emplace_back();
      r.partition_index = id;
      r.replicas = storage::plain_list(p.replicas);
      r.adding_replicas = storage::plain_list(p.adding);
      r.removing_replicas = storage::plain_list(p.removing);
    };
    if (partitions) {
      for (int32_t id : *partitions)
        if (auto it = topic.partitions.find(id); it != topic.partitions.end()) add(id, it->second);
    } else {
      for (const auto& [id, p] : topic.partitions) add(id, p);
    }
    if (!t.partitions.empty()) response.topics.push_back(std::move(t));
  };
  if (!request.topics) {
    for (const auto& [name, id] : image.topics_by_name) list_topic(*image.topic(id), nullptr);
  } else {
    for (const auto& t : *request.topics)
      if (const topic_image* topic = image.topic(t.name)) list_topic(*topic, &t.partition_indexes);
  }
  return response;
}

}  // namespace hw::controller
