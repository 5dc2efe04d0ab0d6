#pragma once
// The asio side of the classic group coordinator: one group_shard per
// __consumer_offsets partition this broker leads, run by the coordinator
// runtime (broker/coordinator_log/coordinator_runtime.h) on that
// partition's strand. Replaying the partition feeds the shard its group
// and offset records and the transaction markers that settle pending
// transactional offsets; the shard's records go back to the partition.
//
// Ownership and threads: owned by the broker node, outliving every
// connection; see the runtime for which call runs where.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "broker/coordinator_log/coordinator_runtime.h"
#include "broker/group/group_config.h"
#include "broker/group/group_shard.h"
#include "controller/metadata/image.h"

namespace hw::broker::group {

struct coordinator_options {
  group_config group;
  // offsets.topic.num.partitions
  int32_t num_partitions = 50;
  // offsets.load.buffer.size: bytes read per step while loading.
  int32_t load_buffer_bytes = 5 * 1024 * 1024;
  // Seeds member-id randomness (fixed in tests).
  uint64_t random_seed = 0;
  // group.consumer.* (KIP-848 consumer groups).
  consumer::consumer_group_options consumer;
  // group.streams.* (KIP-1071 streams groups).
  streams::streams_group_options streams;
};

class group_coordinator : public coordinator_runtime<group_shard, shard_response> {
 public:
  group_coordinator(replica_manager& replicas, coordinator_options options, clock now_ms);

  // The __consumer_offsets partition that coordinates group_id.
  int32_t partition_for(std::string_view group_id) const;

  // A transaction marker was just appended to `partition` of
  // __consumer_offsets (WriteTxnMarkers, on that partition's strand): the
  // producer's pending offsets there become the group's (commit) or go.
  // A shard still loading replays the marker from the log instead.
  void on_txn_marker(int32_t partition, int64_t producer_id, bool commit);

  // Each new metadata image (publisher strand): the shards' consumer groups
  // see its topics, and those that subscribe to a topic it changed check
  // their metadata hash at their next heartbeat.
  void on_image(std::shared_ptr<const controller::metadata_image> image);

  // For the metrics (any thread): the groups of every shard here, as each
  // last published them (at most a second old), and the consumer group
  // rebalances since this broker started.
  group_counts counts() const;

 private:
  void published(int32_t partition, const group_shard* shard) override;
  std::unique_ptr<group_shard> make_shard(int32_t partition, int32_t epoch) override;
  bool replay(group_shard& shard, const protocol::record_batch_view& batch, const protocol::record_view& record,
              int32_t partition) override;
  void end_load(group_shard& shard, int64_t now_ms) override { shard.end_load(now_ms); }
  size_t size(const group_shard& shard) const override { return shard.group_count(); }
  bool handle_output(slot& s, output& out) override;

  coordinator_options options_;
  mutable std::mutex image_mutex_;  // leaf: the last image and its view
  std::shared_ptr<const controller::metadata_image> image_;
  std::shared_ptr<const consumer::topic_image_view> topics_;
  struct shard_counts {
    group_counts counts;
    int64_t at_ms = 0;
  };
  mutable std::mutex counts_mutex_;  // leaf: the shards' published counts
  std::map<int32_t, shard_counts> counts_;
  uint64_t rebalances_ = 0;  // rebalances of shards since unloaded, and the published ones' before
  uint64_t streams_rebalances_ = 0;  // the same for streams groups
};

}  // namespace hw::broker::group
