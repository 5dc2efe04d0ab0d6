#include "broker/group/group_coordinator.h"

#include <random>

#include "broker/coordinator_log/coordinator_log.h"
#include "broker/coordinator_log/coordinator_runtime_impl.h"
#include "broker/group/group_partition.h"
#include "broker/group/image_topics.h"
#include "broker/topics.h"
#include "protocol/records/control_record.h"

namespace hw::broker {
template class coordinator_runtime<group::group_shard, group::shard_response>;
}  // namespace hw::broker

namespace hw::broker::group {

namespace {

coordinator_runtime_options runtime_options_of(const coordinator_options& o) {
  coordinator_runtime_options r;
  r.topic = std::string(consumer_offsets_topic);
  r.num_partitions = o.num_partitions;
  r.load_buffer_bytes = o.load_buffer_bytes;
  // A new epoch of the same leadership keeps the shard: its state is still
  // this log's state.
  r.reload_on_new_epoch = false;
  r.what = "group metadata";
  r.entries = "groups";
  return r;
}

}  // namespace

group_coordinator::group_coordinator(replica_manager& replicas, coordinator_options options, clock now_ms)
    : coordinator_runtime(replicas, runtime_options_of(options), std::move(now_ms)), options_(options) {}

int32_t group_coordinator::partition_for(std::string_view group_id) const {
  return group_partition(group_id, num_partitions());
}

std::unique_ptr<group_shard> group_coordinator::make_shard(int32_t partition, int32_t) {
  std::random_device device;
  const uint64_t seed = options_.random_seed != 0 ? options_.random_seed + static_cast<uint64_t>(partition)
                                                   : (static_cast<uint64_t>(device()) << 32) ^ device();
  auto rng = std::make_shared<std::mt19937_64>(seed);
  auto shard = std::make_unique<group_shard>(options_.group, [rng] { return (*rng)(); }, options_.consumer,
                                             options_.streams);
  {
    std::lock_guard lock(image_mutex_);
    if (topics_) shard->set_topics(topics_, {}, false);
  }
  shard->begin_load();
  return shard;
}

void group_coordinator::published(int32_t partition, const group_shard* shard) {
  const int64_t now = now_ms();
  std::lock_guard lock(counts_mutex_);
  auto it = counts_.find(partition);
  if (!shard) {
    if (it == counts_.end()) return;
    rebalances_ += it->second.counts.consumer_rebalances;
    streams_rebalances_ += it->second.counts.streams_rebalances;
    counts_.erase(it);
    return;
  }
  // Counting walks every group: at most once a second per shard.
  if (it != counts_.end() && now - it->second.at_ms < 1000) return;
  counts_[partition] = {shard->counts(), now};
}

group_counts group_coordinator::counts() const {
  std::lock_guard lock(counts_mutex_);
  group_counts total;
  total.consumer_rebalances = rebalances_;
  total.streams_rebalances = streams_rebalances_;
  for (const auto& [partition, c] : counts_) {
    total.classic += c.counts.classic;
    total.consumer += c.counts.consumer;
    for (size_t i = 0; i < total.consumer_by_state.size(); ++i) total.consumer_by_state[i] += c.counts.consumer_by_state[i];
    total.consumer_rebalances += c.counts.consumer_rebalances;
    total.streams += c.counts.streams;
    for (size_t i = 0; i < total.streams_by_state.size(); ++i) total.streams_by_state[i] += c.counts.streams_by_state[i];
    total.streams_rebalances += c.counts.streams_rebalances;
  }
  return total;
}

void group_coordinator::on_image(std::shared_ptr<const controller::metadata_image> image) {
  if (!image) return;
  topic_changes changes;
  std::shared_ptr<const consumer::topic_image_view> topics;
  {
    std::lock_guard lock(image_mutex_);
    if (image_ == image) return;
    if (image_) changes = changes_between(*image_, *image);
    image_ = image;
    topics_ = std::make_shared<const image_topics>(image);
    topics = topics_;
  }
  post_to_each([topics, changes](group_shard& shard) { shard.set_topics(topics, changes.changed, changes.created); });
}

void group_coordinator::on_txn_marker(int32_t partition, int64_t producer_id, bool commit) {
  apply_on_strand(partition, [&](group_shard& shard, int64_t) {
    if (shard.active()) shard.on_txn_marker(producer_id, commit);
  });
}

bool group_coordinator::replay(group_shard& shard, const protocol::record_batch_view& batch,
                               const protocol::record_view& record, int32_t) {
  if (batch.is_control()) {
    if (auto marker = protocol::parse_end_txn_marker(record))
      shard.on_txn_marker(batch.producer_id(), marker->type == protocol::control_record_type::commit);
    return false;
  }
  if (!record.key) return false;
  loaded_record in;
  in.key = *record.key;
  in.value = record.value;
  in.producer_id = batch.is_transactional() ? batch.producer_id() : -1;
  return shard.load(in);
}

bool group_coordinator::handle_output(slot& s, output& out) {
  for (auto& request : out.appends) {
    std::vector<coordinator_append_record> records;
    records.reserve(request.records.size());
    for (const auto& r : request.records) {
      coordinator_append_record record{r.key, std::nullopt};
      if (r.value) record.value = std::span<const uint8_t>(*r.value);
      records.push_back(record);
    }
    if (request.producer_id >= 0) {
      const coordinator_producer producer{request.producer_id, request.producer_epoch, request.verification};
      append(s, request.token, records, "transactional offsets", &producer);
    } else {
      append(s, request.token, records, std::to_string(request.records.size()) + " group records");
    }
  }
  return !out.appends.empty();
}

}  // namespace hw::broker::group
