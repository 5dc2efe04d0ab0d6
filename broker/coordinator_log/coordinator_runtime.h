#pragma once
// The asio side shared by the group and transaction coordinators: one pure
// shard per partition of their internal topic (__consumer_offsets,
// __transaction_state) that this broker leads, each run on that partition's
// strand. The runtime creates a shard when the replica manager makes this
// broker the partition's leader and replays the log into it, unloads it
// when the lead goes, sends each request to it and hands its answer back to
// the coroutine that waits, appends its records with acks=all semantics
// (durable_appender), and drives its timer from the shard's next deadline.
// What differs lives in the hooks a coordinator implements: how a shard is
// made, how one replayed record goes in, and what its output holds besides
// answers (records to append, marker jobs).
//
// A Shard provides: unload(), tick(now_ms), next_deadline_ms(),
// on_append_done(token, error, now_ms) and take_output(), whose result has
// `completions`, each with a `token` and an `answer` of type Answer.
//
// Ownership and threads: owned by the broker node (through the coordinator
// deriving from it), outliving every connection. on_leadership() is called
// on the publisher strand; submit() and read() from any coroutine; a
// shard is touched only on its partition's strand. The slot table
// (shard_table.h) and the load times (load_metrics.h) each have their own
// leaf mutex. Member definitions: coordinator_runtime_impl.h, instantiated
// once per coordinator.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "broker/asio.h"
#include "broker/coordinator_log/load_metrics.h"
#include "broker/coordinator_log/shard_table.h"
#include "broker/replica/replica_manager.h"
#include "protocol/error_code.h"
#include "protocol/records/record_batch.h"

namespace hw::broker {

struct coordinator_append_record;
struct coordinator_producer;

struct coordinator_runtime_options {
  // The internal topic whose partitions the shards follow.
  std::string topic;
  // Its partition count (offsets.topic.num.partitions,
  // transaction.state.log.num.partitions).
  int32_t num_partitions = 50;
  // Bytes read per step while loading (*.load.buffer.size).
  int32_t load_buffer_bytes = 5 * 1024 * 1024;
  // Whether a new leader epoch of the same leadership reloads the shard
  // (the transaction coordinator's epoch is the leader epoch).
  bool reload_on_new_epoch = false;
  // Names in the log lines: what a shard holds ("group metadata") and
  // what its size counts ("groups").
  std::string what = "coordinator state";
  std::string entries = "entries";
};

template <typename Shard, typename Answer>
class coordinator_runtime {
 public:
  using clock = std::function<int64_t()>;
  using token = uint64_t;
  // Called on the shard's strand with the shard and the request's token.
  using issue_fn = std::function<void(Shard&, token, int64_t now_ms)>;
  // Called on the shard's strand.
  using read_fn = std::function<void(const Shard&)>;

  coordinator_runtime(replica_manager& replicas, coordinator_runtime_options options, clock now_ms);
  virtual ~coordinator_runtime();
  coordinator_runtime(const coordinator_runtime&) = delete;
  coordinator_runtime& operator=(const coordinator_runtime&) = delete;

  int32_t num_partitions() const { return options_.num_partitions; }

  // The replica manager's leadership listener (publisher strand).
  void on_leadership(const storage::topic_partition& tp, bool is_leader, int32_t epoch);

  struct submitted {
    // No shard here could take it: NOT_COORDINATOR, or
    // COORDINATOR_LOAD_IN_PROGRESS while a new leader's shard has not been
    // made yet.
    protocol::error_code error = protocol::error_code::none;
    std::optional<Answer> answer;
  };
  // Sends one request to the shard of `partition` and waits for its answer.
  // `issue` must outlive the call (a named local of the caller: GCC 12 may
  // destroy a temporary in a co_await expression twice).
  asio::awaitable<submitted> submit(int32_t partition, const issue_fn& issue);
  // Runs fn on the shard of `partition`: none, or the error when there is
  // no shard or read_refusal() refuses (fn not called).
  asio::awaitable<protocol::error_code> read(int32_t partition, const read_fn& fn);

  // Runs fn on the shard of `partition` now and drains it after; the
  // caller is on that partition's strand (so fn sees the shard in log
  // order with the caller's own appends). False: no shard here.
  bool apply_on_strand(int32_t partition, const std::function<void(Shard&, int64_t now_ms)>& fn);

  // The partitions that have a shard here (any state).
  std::vector<int32_t> shard_partitions() const;
  // True when each of `partitions` has a shard here that has finished loading.
  bool loaded(const std::vector<int32_t>& partitions) const;
  // The leader epoch the shard of `partition` was made at; nullopt: none here.
  std::optional<int32_t> shard_epoch(int32_t partition) const;

  // For the metrics (any thread): the sum of in_progress() over the shards
  // here, as each last published it; and how long the recent loads took.
  int64_t in_progress_total() const;
  const load_metrics& loads() const { return loads_; }

  // Timers cancelled, shards unloaded (waiting requests answered
  // NOT_COORDINATOR). Call before the partitions' logs close.
  asio::awaitable<void> stop();

 protected:
  struct slot;
  using output = decltype(std::declval<Shard&>().take_output());
  using later_fn = std::function<void(Shard&, int64_t now_ms)>;

  // --- hooks (on the partition's strand) -----------------------------------
  // A new shard for `partition` at `epoch`, its load begun.
  virtual std::unique_ptr<Shard> make_shard(int32_t partition, int32_t epoch) = 0;
  // One record of the partition, in log order (control batches too);
  // true when it counts as loaded.
  virtual bool replay(Shard& shard, const protocol::record_batch_view& batch, const protocol::record_view& record,
                      int32_t partition) = 0;
  virtual void end_load(Shard& shard, int64_t now_ms) = 0;
  virtual size_t size(const Shard& shard) const = 0;
  // Handles what the output holds besides its completions (already
  // answered); true when there was any.
  virtual bool handle_output(slot& s, output& out) = 0;
  // The error a read gets from this shard (none: it runs).
  virtual protocol::error_code read_refusal(const Shard&) const { return protocol::error_code::none; }
  // What the metrics count in a shard (open transactions), published after
  // each load and drain.
  virtual int64_t in_progress(const Shard&) const { return 0; }
  // After each load and drain of the shard of `partition` (on its strand),
  // and with null once it is unloaded: where a coordinator publishes what
  // its metrics read of a shard.
  virtual void published(int32_t partition, const Shard* shard) {
    (void)partition;
    (void)shard;
  }

  // --- for the hooks --------------------------------------------------------
  void append(slot& s, uint64_t append_token, const std::vector<coordinator_append_record>& records,
              std::string_view what, const coordinator_producer* producer = nullptr);
  // Runs fn on the shard later (from any thread), if it is still the one
  // loaded at s's epoch, and drains it after.
  std::function<void(later_fn)> later(slot& s);
  // Posts fn to every shard's strand.
  void post_to_each(const std::function<void(Shard&)>& fn);
  const coordinator_runtime_options& runtime_options() const { return options_; }
  int64_t now_ms() const { return now_ms_(); }

 private:
  protocol::error_code missing_error(int32_t partition) const;
  void start_shard(std::shared_ptr<partition> p, int32_t epoch);
  void stop_shard(int32_t partition);
  // On the slot's strand (what drives a loaded shard is the slot's own:
  // coordinator_runtime_impl.h).
  void load(slot& s);

  replica_manager& replicas_;
  coordinator_runtime_options options_;
  clock now_ms_;
  shard_table<slot> slots_;
  load_metrics loads_;
};

// Sends a request to `runtime`'s shard of `partition` and returns its
// answer when it holds an R, else nothing with *error set (the submit
// error, or UNKNOWN_SERVER_ERROR for an answer of another type).
template <typename R, typename Runtime>
asio::awaitable<std::optional<R>> call_coordinator(Runtime& runtime, int32_t partition,
                                                   const typename Runtime::issue_fn& issue,
                                                   protocol::error_code* error) {
  auto result = co_await runtime.submit(partition, issue);
  *error = result.error;
  if (!result.answer) co_return std::nullopt;
  R* answer = std::get_if<R>(&*result.answer);
  if (!answer) {
    // A shard answers each request with that request's own type.
    *error = protocol::error_code::unknown_server_error;
    co_return std::nullopt;
  }
  co_return std::move(*answer);
}

}  // namespace hw::broker
