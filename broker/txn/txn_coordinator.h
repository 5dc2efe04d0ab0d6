#pragma once
// The asio side of the transaction coordinator (broker/txn/README.md): one
// txn_shard per __transaction_state partition this broker leads, run by
// the coordinator runtime (broker/coordinator_log/coordinator_runtime.h)
// on that partition's strand. The coordinator epoch is the partition's
// leader epoch, so a new epoch reloads the shard. Besides answers and
// records, a shard hands out marker jobs: they go to the marker writer,
// and their completion comes back to the shard.
//
// Ownership and threads: owned by the broker node, outliving every
// connection; see the runtime for which call runs where.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "broker/coordinator_log/coordinator_runtime.h"
#include "broker/txn/txn_shard.h"

namespace hw::broker::txn {

inline constexpr std::string_view transaction_state_topic = "__transaction_state";

struct txn_coordinator_options {
  // tick_interval_ms is
  // transaction.abort.timed.out.transaction.cleanup.interval.ms.
  txn_config txn;
  // transaction.state.log.num.partitions
  int32_t num_partitions = 50;
  // transaction.state.log.load.buffer.size
  int32_t load_buffer_bytes = 5 * 1024 * 1024;
};

class txn_coordinator : public coordinator_runtime<txn_shard, txn_answer> {
 public:
  // Writes the markers of a job, retrying until every partition has its
  // marker (or its topic is gone, or a newer coordinator took over), then
  // calls done() (from any thread, once).
  using marker_writer = std::function<void(marker_job job, std::function<void()> done)>;

  txn_coordinator(replica_manager& replicas, txn_coordinator_options options, clock now_ms, marker_writer markers);

  int32_t partition_for(std::string_view transactional_id) const;
  // The finalized transaction.version (metadata publisher, any thread):
  // the record format and the version of the coordinator's own aborts.
  void set_transaction_version_level(int16_t level);
  int16_t transaction_version_level() const { return level_.load(std::memory_order_relaxed); }
  // Whether the job's shard is still here at the job's coordinator epoch
  // (the marker sender asks before each round; any thread).
  bool still_coordinates(const marker_job& job) const;

 private:
  std::unique_ptr<txn_shard> make_shard(int32_t partition, int32_t epoch) override;
  bool replay(txn_shard& shard, const protocol::record_batch_view& batch, const protocol::record_view& record,
              int32_t partition) override;
  void end_load(txn_shard& shard, int64_t now_ms) override { shard.end_load(now_ms); }
  size_t size(const txn_shard& shard) const override { return shard.states().size(); }
  bool handle_output(slot& s, output& out) override;
  protocol::error_code read_refusal(const txn_shard& shard) const override { return shard.states().not_serving(); }
  int64_t in_progress(const txn_shard& shard) const override { return shard.states().open_transactions(); }

  txn_config config_;
  marker_writer markers_;
  std::atomic<int16_t> level_;
  std::atomic<size_t> bad_records_{0};
};

}  // namespace hw::broker::txn
