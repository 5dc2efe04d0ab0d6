#pragma once
// Leaderships in doubt after the process stood still.
//
// A broker stopped for long enough (SIGSTOP, a frozen VM, a stalled
// machine) may have been fenced by the controller, its leaderships given
// to other replicas, while it could hear nothing. When it runs again it
// still believes it leads until its metadata catches up. Asked in that
// window, a deposed leader answers a consumer's fetch past its shorter log
// OFFSET_OUT_OF_RANGE (a client without KIP-320 then resets its position),
// takes acks=1 writes the new leader's log will truncate away, and refuses
// an idempotent producer's sequence the new leader has moved on to. Kafka's
// broker does all three; this one sends the client to refresh its metadata
// instead: while in doubt, the requests that need the leader (Produce, a
// consumer's Fetch, ListOffsets, OffsetForLeaderEpoch) are answered
// NOT_LEADER_OR_FOLLOWER.
//
// The stall is seen by the raft driver's tick (every few ms) finding a gap
// of `stall_ms` or more since the previous one, or by a request finding
// the tick that late (whichever runs first after the resume). Doubt ends
// once the metadata publisher has applied the quorum's log up to the high
// watermark of a metadata Fetch answer whose request left after the stall,
// or after `max_doubt_ms` whatever happens: a quorum out of reach must not
// keep the partitions unavailable for longer than that.
//
// Times are steady-clock milliseconds. Threads: tick() and answered() on
// the raft strand, in_doubt() on any (two atomic loads unless a stall is
// being noted).

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

namespace hw::broker {

class stall_guard {
 public:
  // applied_end: the offset below which the publisher has applied the
  // metadata log.
  stall_guard(int64_t stall_ms, int64_t max_doubt_ms, std::function<int64_t()> applied_end);

  // The raft driver's tick.
  void tick(int64_t now_ms);
  // A metadata Fetch answer from the quorum leader to a request sent at
  // sent_ms, with the leader's high watermark.
  void answered(int64_t sent_ms, int64_t high_watermark);
  // True while this broker's leaderships are in doubt.
  bool in_doubt(int64_t now_ms);

  static int64_t steady_now_ms();

 private:
  // Under mutex_.
  void note_stall(int64_t last_tick_ms, int64_t now_ms);
  // True when no longer in doubt.
  bool lift_if_caught_up();
  void expire(int64_t now_ms);

  const int64_t stall_ms_;
  const int64_t max_doubt_ms_;
  const std::function<int64_t()> applied_end_;
  std::atomic<int64_t> last_tick_ms_{0};  // 0: not ticking yet
  std::atomic<int64_t> doubt_until_ms_{0};  // 0: not in doubt
  std::mutex mutex_;
  int64_t noted_tick_ms_ = 0;  // the last tick before the stall being handled
  int64_t stalled_at_ms_ = 0;  // when it was seen
  int64_t heard_high_watermark_ = -1;  // from an answer to a fetch sent after it
};

// What a handler asks (null: no guard, as in tests of the front door).
inline bool leaderships_in_doubt(stall_guard* guard) {
  return guard && guard->in_doubt(stall_guard::steady_now_ms());
}

}  // namespace hw::broker
