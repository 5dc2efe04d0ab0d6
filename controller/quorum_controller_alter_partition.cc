// AlterPartition: a partition leader's ISR change (shrink or expand), a
// compare-and-set on the leader and partition epochs, checked and turned
// into a PartitionChangeRecord by the same builder that elects leaders (so
// an ISR shrink below min ISR fills the ELR).

#include <algorithm>
#include <set>

#include "controller/metadata/delta.h"
#include "controller/quorum_controller.h"

namespace hw::controller {

error_code quorum_controller::alter_partition_error(int32_t broker, const partition_registration* partition,
                                                    const msg::alter_partition_request::partition_data& data,
                                                    int16_t version) const {
  if (!partition) return error_code::unknown_topic_or_partition;
  // An epoch newer than ours: this controller is behind the log.
  if (data.leader_epoch > partition->leader_epoch) return error_code::not_controller;
  if (data.partition_epoch > partition->partition_epoch) return error_code::not_controller;
  if (data.leader_epoch < partition->leader_epoch) return error_code::fenced_leader_epoch;
  if (broker != partition->leader) return error_code::invalid_request;
  if (data.partition_epoch < partition->partition_epoch) return error_code::invalid_update_version;
  std::vector<int32_t> isr = new_isr_of(data, version);
  std::set<int32_t> unique(isr.begin(), isr.end());
  bool all_replicas = std::all_of(isr.begin(), isr.end(), [&](int32_t r) { return partition->is_replica(r); });
  if (unique.size() != isr.size() || !all_replicas) return error_code::invalid_request;
  if (!unique.count(partition->leader)) return error_code::invalid_request;
  constexpr int8_t recovering = static_cast<int8_t>(leader_recovery_state::recovering);
  if (data.leader_recovery_state == recovering && isr.size() > 1) return error_code::invalid_request;
  if (partition->leader_recovery_state != recovering && data.leader_recovery_state == recovering) {
    return error_code::invalid_request;
  }
  // Only registered, unfenced brokers not shutting down may join, and (v3)
  // only the incarnation the leader saw.
  const metadata_image& image = *image_;
  for (const auto& state : data.new_isr_with_epochs) {
    const broker_registration* b = image.broker(state.broker_id);
    bool eligible = b && !b->in_controlled_shutdown && !b->fenced &&
                    (state.broker_epoch == -1 || state.broker_epoch == b->epoch);
    if (!eligible) return error_code::ineligible_replica;
  }
  if (version < 3) {
    for (int32_t r : isr) {
      const broker_registration* b = image.broker(r);
      if (!b || b->in_controlled_shutdown || b->fenced) return error_code::ineligible_replica;
    }
  }
  return error_code::none;
}

std::vector<int32_t> quorum_controller::new_isr_of(const msg::alter_partition_request::partition_data& data,
                                                   int16_t version) {
  if (version < 3) return data.new_isr;
  std::vector<int32_t> isr;
  for (const auto& s : data.new_isr_with_epochs) isr.push_back(s.broker_id);
  return isr;
}

controller_result<msg::alter_partition_response> quorum_controller::alter_partition(
    const msg::alter_partition_request& request, int16_t version) {
  flush();
  controller_result<msg::alter_partition_response> out;
  api_error epoch = check_broker_epoch(request.broker_id, request.broker_epoch);
  if (!epoch.ok()) {
    out.response.error_code = static_cast<int16_t>(epoch.code);
    return out;
  }
  const metadata_image& image = *image_;
  for (const auto& topic_data : request.topics) {
    auto& topic_result = out.response.topics.emplace_back();
    topic_result.topic_id = topic_data.topic_id;
    const topic_image* topic = image.topic(topic_data.topic_id);
    for (const auto& data : topic_data.partitions) {
      auto& r = topic_result.partitions.emplace_back();
      r.partition_index = data.partition_index;
      if (!topic) {
        r.error_code = static_cast<int16_t>(error_code::unknown_topic_id);
        continue;
      }
      auto it = topic->partitions.find(data.partition_index);
      const partition_registration* partition = it == topic->partitions.end() ? nullptr : &it->second;
      if (error_code e = alter_partition_error(request.broker_id, partition, data, version); e != error_code::none) {
        r.error_code = static_cast<int16_t>(e);
        continue;
      }
      partition_change_options o = change_options(image, *topic);
      partition_change_builder builder(*partition, topic->id, data.partition_index, o);
      if (unclean_election_enabled(image, topic->name)) builder.set_election(election_type::unclean);
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
      r.leader_id = after.leader;
      r.isr = after.isr;
      r.leader_recovery_state = after.leader_recovery_state;
      r.leader_epoch = after.leader_epoch;
      r.partition_epoch = after.partition_epoch;
    }
  }
  return out;
}

}  // namespace hw::controller
