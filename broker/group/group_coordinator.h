#pragma once
// The asio side of the classic group coordinator: one group_shard per
// __consumer_offsets partition this broker leads, each run on that
// partition's strand. It loads a shard when the replica manager makes this
// broker leader of the partition (log start to log end replayed into the
// shard), unloads it when leadership goes, writes the shard's records to
// the partition (acks=all), drives its timers with one steady_timer, and
// hands each request's completion back to the handler coroutine that
// waits for it.
//
// Ownership and threads: owned by the broker node, outliving every
// connection. on_leadership() is called on the publisher strand; submit()
// and the other request entry points from any handler coroutine; each
// shard is touched only on its partition's strand. The slot table is read
// under a leaf mutex.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/asio.h"
#include "broker/group/group_config.h"
#include "broker/group/group_shard.h"
#include "broker/replica/replica_manager.h"
#include "protocol/error_code.h"

namespace hw::broker::group {

struct coordinator_options {
  group_config group;
  // offsets.topic.num.partitions
  int32_t num_partitions = 50;
  // offsets.load.buffer.size: bytes read per step while loading.
  int32_t load_buffer_bytes = 5 * 1024 * 1024;
  // Seeds member-id randomness (fixed in tests).
  uint64_t random_seed = 0;
};

class group_coordinator {
 public:
  using clock = std::function<int64_t()>;
  // Called on the shard's strand with the shard and the request's token.
  using issue_fn = std::function<void(group_shard&, request_token, int64_t now_ms)>;
  // Called on the shard's strand; the shard may be inactive or loading.
  using read_fn = std::function<void(const group_shard&)>;

  group_coordinator(asio::any_io_executor executor, replica_manager& replicas, coordinator_options options,
                    clock now_ms);
  ~group_coordinator();
  group_coordinator(const group_coordinator&) = delete;
  group_coordinator& operator=(const group_coordinator&) = delete;

  int32_t num_partitions() const { return options_.num_partitions; }
  // The __consumer_offsets partition that coordinates group_id.
  int32_t partition_for(std::string_view group_id) const;

  // The replica manager's leadership listener (publisher strand).
  void on_leadership(const storage::topic_partition& tp, bool is_leader, int32_t epoch);

  // Sends one request to the shard of `partition` and waits for its
  // completion. Nothing hosted or led here: the error to answer with
  // (NOT_COORDINATOR, or COORDINATOR_LOAD_IN_PROGRESS while a new leader
  // has not started loading yet).
  struct submitted {
    protocol::error_code error = protocol::error_code::none;
    std::optional<shard_response> response;
  };
  // `issue` must outlive the call (callers keep it in a named local: GCC 12
  // may destroy a temporary in a co_await expression twice).
  asio::awaitable<submitted> submit(int32_t partition, const issue_fn& issue);

  // Runs a read-only call on the shard of `partition`. Returns the error
  // of submit when no shard runs there (fn not called), else none.
  asio::awaitable<protocol::error_code> read(int32_t partition, const read_fn& fn);

  // The partitions that have a shard here (any state).
  std::vector<int32_t> shard_partitions() const;
  // True when each of `partitions` has a shard here that has finished
  // loading (what a starting broker waits for before it serves groups).
  bool loaded(const std::vector<int32_t>& partitions) const;

  // Timers cancelled, shards unloaded (parked requests answered
  // NOT_COORDINATOR). Call before the partitions' logs close.
  asio::awaitable<void> stop();

 private:
  struct slot;
  std::shared_ptr<slot> find(int32_t partition) const;
  protocol::error_code missing_error(int32_t partition) const;

  void start_shard(std::shared_ptr<partition> p, int32_t epoch);
  void stop_shard(int32_t partition);
  // Strand of the slot: everything below.
  void load(slot& s);
  void drain(slot& s);
  void write(slot& s, append_request request);
  void acknowledge_ready(slot& s);
  void schedule_tick(slot& s);

  asio::any_io_executor executor_;
  replica_manager& replicas_;
  coordinator_options options_;
  clock now_ms_;
  mutable std::mutex mutex_;  // leaf: slots_, looked up by handlers on any strand
  std::map<int32_t, std::shared_ptr<slot>> slots_;
  bool stopped_ = false;
};

}  // namespace hw::broker::group
