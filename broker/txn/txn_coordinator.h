#pragma once
// The asio side of the transaction coordinator (broker/txn/README.md): one
// txn_shard per __transaction_state partition this broker leads, run on
// that partition's strand. It loads a shard when the replica manager makes
// this broker leader of the partition (the coordinator epoch is that
// leader epoch), unloads it when the lead goes, appends the shard's records
// (acks=all, acknowledged once the high watermark passes them), hands its
// marker jobs to the marker writer and reports them back, ticks it for
// timeouts and expiry, and hands each answer back to the handler coroutine
// that waits for it.
//
// Ownership and threads: owned by the broker node, outliving every
// connection. on_leadership() is called on the publisher strand; submit()
// and read() from any handler coroutine; each shard is touched only on its
// partition's strand. The slot table is read under a leaf mutex.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/replica_manager.h"
#include "broker/txn/txn_shard.h"
#include "protocol/error_code.h"

namespace hw::broker::txn {

inline constexpr std::string_view transaction_state_topic = "__transaction_state";

struct txn_coordinator_options {
  txn_config txn;
  // transaction.state.log.num.partitions
  int32_t num_partitions = 50;
  // transaction.state.log.load.buffer.size
  int32_t load_buffer_bytes = 5 * 1024 * 1024;
  // transaction.abort.timed.out.transaction.cleanup.interval.ms: how often
  // each shard looks for timed-out transactions and idle ids.
  int64_t tick_interval_ms = 10000;
};

class txn_coordinator {
 public:
  using clock = std::function<int64_t()>;
  // Writes the markers of a job, retrying until every partition has its
  // marker (or its topic is gone, or a newer coordinator took over), then
  // calls done() (from any thread, once).
  using marker_writer = std::function<void(marker_job job, std::function<void()> done)>;
  // Called on the shard's strand with the shard and the request's token.
  using issue_fn = std::function<void(txn_shard&, request_token, int64_t now_ms)>;
  using read_fn = std::function<void(const txn_shard&)>;

  txn_coordinator(replica_manager& replicas, txn_coordinator_options options, clock now_ms, marker_writer markers);
  ~txn_coordinator();
  txn_coordinator(const txn_coordinator&) = delete;
  txn_coordinator& operator=(const txn_coordinator&) = delete;

  int32_t num_partitions() const { return options_.num_partitions; }
  int32_t partition_for(std::string_view transactional_id) const;
  // The finalized transaction.version (metadata publisher, any thread):
  // the record format and the version of the coordinator's own aborts.
  void set_transaction_version_level(int16_t level);
  int16_t transaction_version_level() const { return level_.load(std::memory_order_relaxed); }

  // The replica manager's leadership listener (publisher strand).
  void on_leadership(const storage::topic_partition& tp, bool is_leader, int32_t epoch);

  struct submitted {
    protocol::error_code error = protocol::error_code::none;  // no shard could take it
    std::optional<txn_answer> answer;
  };
  // Sends one request to the shard of `partition` and waits for its answer.
  // `issue` must outlive the call (a named local of the caller).
  asio::awaitable<submitted> submit(int32_t partition, const issue_fn& issue);
  // Runs a read on the shard of `partition`: none, or the error when no
  // active shard is there (NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS;
  // fn not called).
  asio::awaitable<protocol::error_code> read(int32_t partition, const read_fn& fn);
  // The partitions whose shard is active here.
  std::vector<int32_t> active_partitions() const;
  // Whether the job's shard is still here at the job's coordinator epoch
  // (the marker sender asks before each round; any thread).
  bool still_coordinates(const marker_job& job) const;

  // Timers cancelled, shards unloaded. Call before the partitions' logs close.
  asio::awaitable<void> stop();

 private:
  struct slot;
  std::shared_ptr<slot> find(int32_t partition) const;
  protocol::error_code missing_error(int32_t partition) const;
  void start_shard(std::shared_ptr<partition> p, int32_t epoch);
  void stop_shard(int32_t partition);
  // On the slot's strand:
  void load(slot& s);
  void drain(slot& s);
  void schedule_tick(slot& s);

  replica_manager& replicas_;
  txn_coordinator_options options_;
  clock now_ms_;
  marker_writer markers_;
  std::atomic<int16_t> level_;
  mutable std::mutex mutex_;  // leaf: slots_
  std::map<int32_t, std::shared_ptr<slot>> slots_;
  bool stopped_ = false;
};

}  // namespace hw::broker::txn
