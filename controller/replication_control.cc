// Replication control: leader and ISR changes. Elections (requested,
// periodic, and the ones a broker's change of state calls for) and
// AlterPartition — a leader's ISR change, a compare-and-set on the leader
// and partition epochs — all go through partition_change_builder, so an
// ISR shrink below min ISR fills the ELR.

#include "controller/replication_control.h"

#include <algorithm>
#include <set>

#include "controller/broker_epoch_check.h"
#include "controller/feature_control.h"
#include "controller/metadata/delta.h"

namespace hw::controller {

namespace {

std::vector<node_id> new_isr_of(const msg::alter_partition_request::partition_data& data, int16_t version) {
  if (version < 3) return storage::named_list<node_id>(data.new_isr);
  std::vector<node_id> isr;
  for (const auto& s : data.new_isr_with_epochs) isr.emplace_back(s.broker_id);
  return isr;
}

error_code alter_partition_error(const metadata_image& image, node_id broker, const partition_registration* partition,
                                 const msg::alter_partition_request::partition_data& data, int16_t version) {
  if (!partition) return error_code::unknown_topic_or_partition;
  const leader_epoch sent_leader_epoch(data.leader_epoch);
  const partition_epoch sent_partition_epoch(data.partition_epoch);
  // An epoch newer than ours: this controller is behind the log.
  if (sent_leader_epoch > partition->leader_epoch) return error_code::not_controller;
  if (sent_partition_epoch > partition->partition_epoch) return error_code::not_controller;
  if (sent_leader_epoch < partition->leader_epoch) return error_code::fenced_leader_epoch;
  if (broker != partition->leader) return error_code::invalid_request;
  if (sent_partition_epoch < partition->partition_epoch) return error_code::invalid_update_version;
  std::vector<node_id> isr = new_isr_of(data, version);
  std::set<node_id> unique(isr.begin(), isr.end());
  bool all_replicas = std::all_of(isr.begin(), isr.end(), [&](node_id r) { return partition->is_replica(r); });
  if (unique.size() != isr.size() || !all_replicas) return error_code::invalid_request;
  if (!unique.count(partition->leader)) return error_code::invalid_request;
  constexpr int8_t recovering = static_cast<int8_t>(leader_recovery_state::recovering);
  if (data.leader_recovery_state == recovering && isr.size() > 1) return error_code::invalid_request;
  if (partition->leader_recovery_state != recovering && data.leader_recovery_state == recovering) {
    return error_code::invalid_request;
  }
  // Only registered, unfenced brokers not shutting down may join, and (v3)
  // only the incarnation the leader saw.
  for (const auto& state : data.new_isr_with_epochs) {
    const broker_registration* b = image.broker(node_id(state.broker_id));
    bool eligible = b && !b->in_controlled_shutdown && !b->fenced &&
                    (state.broker_epoch == -1 || broker_epoch(state.broker_epoch) == b->epoch);
    if (!eligible) return error_code::ineligible_replica;
  }
  if (version < 3) {
    for (node_id r : isr) {
      const broker_registration* b = image.broker(r);
      if (!b || b->in_controlled_shutdown || b->fenced) return error_code::ineligible_replica;
    }
  }
  return error_code::none;
}

// Kafka's DirectoryId.isOnline against the broker's registration: the
// reserved MIGRATING (0) and UNASSIGNED (1) ids count as online, LOST (2)
// as offline; a broker that registered no dirs is trusted.
bool directory_online(const metadata_image& image, node_id broker, const protocol::uuid& dir) {
  if (dir.is_reserved()) return true;  // MIGRATING (0), UNASSIGNED (1)
  protocol::uuid lost;
  lost.bytes[15] = 2;
  if (dir == lost) return false;
  const broker_registration* b = image.broker(broker);
  if (!b || b->log_dirs.empty()) return true;
  return std::find(b->log_dirs.begin(), b->log_dirs.end(), dir) != b->log_dirs.end();
}

}  // namespace

replication_control::replication_control(replication_control_options options, const configuration_control& configs)
    : options_(std::move(options)), configs_(configs), random_(options_.random_seed) {}

partition_change_options replication_control::change_options(const metadata_image& image,
                                                             const topic_image& topic) const {
  partition_change_options o;
  o.acceptable_leader = [&image](node_id r) { return image.active_broker(r); };
  o.version = image.version();
  o.min_isr = configs_.effective_min_isr(image, topic);
  o.elr_enabled = feature_control::elr_enabled(image);
  o.default_directory = [&image](node_id r) { return image.default_log_dir(r); };
  o.directory_online = [&image](node_id r, const protocol::uuid& dir) { return directory_online(image, r, dir); };
  return o;
}

void replication_control::leader_and_isr_updates(const metadata_image& image, node_id broker_to_remove,
                                                 node_id broker_to_add, node_id unclean_shutdown,
                                                 const std::function<bool(const partition_registration&)>& pick,
                                                 std::vector<metadata_record>& out) const {
  auto acceptable = [&](node_id r) {
    if (r.value < 0 || r == broker_to_remove || r == unclean_shutdown) return false;
    return r == broker_to_add || image.active_broker(r);
  };
  for (const auto& [id, topic] : image.topics_by_id) {
    // Resolved once per topic: a fencing walks every partition.
    const bool unclean = configs_.unclean_election_enabled(image, topic->name);
    std::optional<partition_change_options> o;
    for (const auto& [partition, p] : topic->partitions) {
      if (!pick(p)) continue;
      if (!o) {
        o = change_options(image, *topic);
        o->acceptable_leader = acceptable;
      }
      partition_change_builder builder(p, id, partition, *o);
      if (unclean) builder.set_election(election_type::unclean);
      if (unclean_shutdown != no_leader) builder.set_unclean_shutdown_replicas({unclean_shutdown});
      std::vector<node_id> isr;
      for (node_id r : p.isr) {
        if (r != broker_to_remove && r != unclean_shutdown) isr.push_back(r);
      }
      builder.set_target_isr(std::move(isr));
      if (auto record = builder.build()) out.push_back(*record);
    }
  }
}

void replication_control::remove_from_isrs(const metadata_image& image, node_id broker,
                                           std::vector<metadata_record>& out) const {
  leader_and_isr_updates(image, broker, no_leader, no_leader,
                         [&](const partition_registration& p) { return p.in_isr(broker); }, out);
}

void replication_control::elect_after_unfence(const metadata_image& image, node_id broker,
                                              std::vector<metadata_record>& out) const {
  leader_and_isr_updates(image, no_leader, broker, no_leader,
                         [](const partition_registration& p) { return !p.has_leader(); }, out);
}

void replication_control::remove_unclean_shutdown(const metadata_image& image, node_id broker,
                                                  std::vector<metadata_record>& out) const {
  leader_and_isr_updates(image, no_leader, no_leader, broker,
                         [&](const partition_registration& p) {
                           return p.in_isr(broker) || std::count(p.elr.begin(), p.elr.end(), broker);
                         },
                         out);
}

void replication_control::remove_from_isrs_and_elrs(const metadata_image& image, node_id broker,
                                                    std::vector<metadata_record>& out) const {
  remove_from_isrs(image, broker, out);
  leader_and_isr_updates(image, broker, no_leader, no_leader,
                         [&](const partition_registration& p) {
                           return std::count(p.elr.begin(), p.elr.end(), broker) > 0;
                         },
                         out);
}

void replication_control::remove_offline_dirs(const metadata_image& image, node_id broker,
                                              const std::vector<protocol::uuid>& offline,
                                              std::vector<metadata_record>& out) const {
  leader_and_isr_updates(image, broker, no_leader, no_leader,
                         [&](const partition_registration& p) {
                           for (size_t i = 0; i < p.replicas.size() && i < p.directories.size(); ++i) {
                             if (p.replicas[i] == broker && std::count(offline.begin(), offline.end(), p.directories[i])) {
                               return true;
                             }
                           }
                           return false;
                         },
                         out);
}

controller_result<msg::assign_replicas_to_dirs_response> replication_control::assign_replicas_to_dirs(
    const metadata_image& image, const msg::assign_replicas_to_dirs_request& request) const {
  controller_result<msg::assign_replicas_to_dirs_response> out;
  if (!image.version().directory_assignment_supported()) {
    out.response.error_code = static_cast<int16_t>(error_code::unsupported_version);
    return out;
  }
  const node_id sender(request.broker_id);
  if (api_error epoch = check_broker_epoch(image, sender, broker_epoch(request.broker_epoch)); !epoch.ok()) {
    out.response.error_code = static_cast<int16_t>(epoch.code);
    return out;
  }
  // As in Kafka, every change is built from the partitions as they stand
  // before this request (the records are applied in order).
  std::set<std::pair<topic_id, int32_t>> into_offline_dirs;
  for (const auto& dir : request.directories) {
    const bool offline = !directory_online(image, sender, dir.id);
    auto& dir_result = out.response.directories.emplace_back();
    dir_result.id = dir.id;
    for (const auto& t : dir.topics) {
      auto& topic_result = dir_result.topics.emplace_back();
      topic_result.topic_id = t.topic_id;
      const topic_image* topic = image.topic(topic_id(t.topic_id));
      for (const auto& part : t.partitions) {
        auto& r = topic_result.partitions.emplace_back();
        r.partition_index = part.partition_index;
        if (!topic) {
          r.error_code = static_cast<int16_t>(error_code::unknown_topic_id);
          continue;
        }
        auto it = topic->partitions.find(part.partition_index);
        if (it == topic->partitions.end()) {
          r.error_code = static_cast<int16_t>(error_code::unknown_topic_or_partition);
          continue;
        }
        if (!it->second.is_replica(sender)) {
          r.error_code = static_cast<int16_t>(error_code::not_leader_or_follower);
          continue;
        }
        partition_change_builder builder(it->second, topic->id, part.partition_index, change_options(image, *topic));
        builder.set_directory(sender, dir.id);
        if (auto record = builder.build()) out.records.push_back(*record);
        if (offline) into_offline_dirs.emplace(topic->id, part.partition_index);
      }
    }
  }
  if (!into_offline_dirs.empty()) {
    std::set<const partition_registration*> picked;
    for (const auto& [id, index] : into_offline_dirs) picked.insert(image.partition(id, index));
    leader_and_isr_updates(image, sender, no_leader, no_leader,
                           [&](const partition_registration& p) { return picked.count(&p) > 0; }, out.records);
  }
  return out;
}

bool replication_control::leads_any(const metadata_image& image, node_id broker) {
  for (const auto& [_, topic] : image.topics_by_id) {
    for (const auto& [__, p] : topic->partitions) {
      if (p.leader == broker) return true;
    }
  }
  return false;
}

controller_result<msg::alter_partition_response> replication_control::alter_partition(
    const metadata_image& image, const msg::alter_partition_request& request, int16_t version) const {
  controller_result<msg::alter_partition_response> out;
  const node_id sender(request.broker_id);
  api_error epoch = check_broker_epoch(image, sender, broker_epoch(request.broker_epoch));
  if (!epoch.ok()) {
    out.response.error_code = static_cast<int16_t>(epoch.code);
    return out;
  }
  for (const auto& topic_data : request.topics) {
    auto& topic_result = out.response.topics.emplace_back();
    topic_result.topic_id = topic_data.topic_id;
    const topic_image* topic = image.topic(topic_id(topic_data.topic_id));
    for (const auto& data : topic_data.partitions) {
      auto& r = topic_result.partitions.emplace_back();
      r.partition_index = data.partition_index;
      if (!topic) {
        r.error_code = static_cast<int16_t>(error_code::unknown_topic_id);
        continue;
      }
      auto it = topic->partitions.find(data.partition_index);
      const partition_registration* partition = it == topic->partitions.end() ? nullptr : &it->second;
      if (error_code e = alter_partition_error(image, sender, partition, data, version); e != error_code::none) {
        r.error_code = static_cast<int16_t>(e);
        continue;
      }
      partition_change_options o = change_options(image, *topic);
      partition_change_builder builder(*partition, topic->id, data.partition_index, o);
      if (configs_.unclean_election_enabled(image, topic->name)) builder.set_election(election_type::unclean);
      builder.set_target_isr(new_isr_of(data, version));
      builder.set_target_leader_recovery_state(data.leader_recovery_state);
      partition_registration after = *partition;
      if (auto record = builder.build()) {
        out.records.push_back(*record);
        after = merge(*partition, *record);
        if (record->leader != no_leader_change && record->leader != request.broker_id) {
          r.error_code = static_cast<int16_t>(error_code::new_leader_elected);
          continue;
        }
      }
      r.error_code = 0;
      r.leader_id = after.leader.value;
      r.isr = storage::plain_list(after.isr);
      r.leader_recovery_state = after.leader_recovery_state;
      r.leader_epoch = after.leader_epoch.value;
      r.partition_epoch = after.partition_epoch.value;
    }
  }
  return out;
}


controller_result<msg::elect_leaders_response> replication_control::elect_leaders(
    const metadata_image& image, const msg::elect_leaders_request& request, int16_t version) const {
  controller_result<msg::elect_leaders_response> out;
  // v0 has no election type: it means PREFERRED.
  int8_t type = version >= 1 ? request.election_type : 0;
  if (type != 0 && type != 1) {
    out.response.error_code = static_cast<int16_t>(error_code::invalid_request);
    return out;
  }
  auto elect = [&](const std::string& topic_name, int32_t partition) -> api_error {
    const topic_image* topic = image.topic(topic_name);
    if (!topic) return {error_code::unknown_topic_or_partition, "No such topic as " + topic_name};
    auto it = topic->partitions.find(partition);
    if (it == topic->partitions.end()) {
      return {error_code::unknown_topic_or_partition,
              "No such partition as " + topic_name + "-" + std::to_string(partition)};
    }
    const partition_registration& p = it->second;
    bool preferred = type == 0;
    if ((preferred && !p.replicas.empty() && p.leader == p.replicas.front()) || (!preferred && p.has_leader())) {
      return {error_code::election_not_needed, "Leader election not needed for topic partition."};
    }
    partition_change_options o = change_options(image, *topic);
    partition_change_builder builder(p, topic->id, partition, o);
    builder.set_election(preferred ? election_type::preferred : election_type::unclean);
    auto record = builder.build();
    if (!record) {
      if (preferred) return {error_code::preferred_leader_not_available, "The preferred leader was not available."};
      return {error_code::eligible_leaders_not_available, "Eligible topic partition leaders are not available."};
    }
    out.records.push_back(*record);
    return {};
  };
  auto add = [&](msg::elect_leaders_response::replica_election_result& results, int32_t partition, const api_error& e) {
    msg::elect_leaders_response::partition_result r;
    r.partition_id = partition;
    r.error_code = static_cast<int16_t>(e.code);
    r.error_message = e.ok() ? std::nullopt : std::optional<std::string>(e.message);
    results.partition_result.push_back(std::move(r));
  };
  if (!request.topic_partitions) {
    // Every partition; those that need no election are left out.
    for (const auto& [name, id] : image.topics_by_name) {
      msg::elect_leaders_response::replica_election_result results;
      results.topic = name;
      for (const auto& [partition, _] : image.topic(id)->partitions) {
        api_error e = elect(name, partition);
        if (e.code != error_code::election_not_needed) add(results, partition, e);
      }
      out.response.replica_election_results.push_back(std::move(results));
    }
  } else {
    for (const auto& t : *request.topic_partitions) {
      msg::elect_leaders_response::replica_election_result results;
      results.topic = t.topic;
      for (int32_t partition : t.partitions) add(results, partition, elect(t.topic, partition));
      out.response.replica_election_results.push_back(std::move(results));
    }
  }
  return out;
}

std::vector<metadata_record> replication_control::balance_leaders(const metadata_image& image,
                                                                 size_t max_elections) const {
  std::vector<metadata_record> out;
  for (const auto& [id, topic] : image.topics_by_id) {
    std::optional<partition_change_options> o;
    for (const auto& [partition, p] : topic->partitions) {
      if (out.size() >= max_elections) return out;
      if (p.replicas.empty() || p.leader == p.replicas.front()) continue;
      if (!o) o = change_options(image, *topic);
      partition_change_builder builder(p, id, partition, *o);
      builder.set_election(election_type::preferred);
      if (auto record = builder.build()) out.push_back(*record);
    }
  }
  return out;
}

std::vector<metadata_record> replication_control::elect_unclean_leaders(const metadata_image& image,
                                                                       size_t max_elections) const {
  std::vector<metadata_record> out;
  for (const auto& [id, topic] : image.topics_by_id) {
    if (!configs_.unclean_election_enabled(image, topic->name)) continue;
    std::optional<partition_change_options> o;
    for (const auto& [partition, p] : topic->partitions) {
      if (out.size() >= max_elections) return out;
      if (p.has_leader()) continue;
      if (!o) o = change_options(image, *topic);
      partition_change_builder builder(p, id, partition, *o);
      builder.set_election(election_type::unclean);
      if (auto record = builder.build()) out.push_back(*record);
    }
  }
  return out;
}

std::vector<metadata_record> replication_control::periodic_elections(const metadata_image& image, int64_t now_ms) {
  if (next_unclean_election_ms_ < 0) next_unclean_election_ms_ = now_ms + options_.unclean_election_interval_ms;
  if (next_balance_ms_ < 0) next_balance_ms_ = now_ms + options_.leader_imbalance_check_interval_ms;
  if (now_ms >= next_unclean_election_ms_) {
    next_unclean_election_ms_ = now_ms + options_.unclean_election_interval_ms;
    std::vector<metadata_record> out = elect_unclean_leaders(image);
    if (!out.empty()) return out;
  }
  if (options_.auto_leader_rebalance_enable && now_ms >= next_balance_ms_) {
    next_balance_ms_ = now_ms + options_.leader_imbalance_check_interval_ms;
    return balance_leaders(image);
  }
  return {};
}
}  // namespace hw::controller
