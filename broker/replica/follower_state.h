#pragma once
// A follower's fetch state for one partition, and the decisions it makes
// from the leader's answers (Kafka 4.3's AbstractFetcherThread with
// truncation on fetch, KIP-595's DivergingEpoch):
//
// - Fetching at the log end with the epoch of the last batch it holds
//   (none for an empty log), at the leader epoch the metadata gave it.
// - Records: appended as they are; the next fetch starts after the last
//   one, with its epoch.
// - DivergingEpoch (E, end): its history parts from the leader's after
//   epoch E. With a local end offset for E (the largest local epoch <= E
//   and where it ends): the same epoch → truncate to min(end, local end,
//   log end); a smaller one → truncate to min(local end, log end) and let
//   the next fetch find the rest; no epoch <= E → min(end, log end). Then
//   fetching from the new log end.
// - OFFSET_OUT_OF_RANGE: the leader's latest and earliest offsets decide
//   (a ListOffsets to the leader): a leader ending below this log end →
//   truncate to its end; a leader starting above this log end → empty the
//   log and start at its start; otherwise fetch on from the log end.
// - FENCED_LEADER_EPOCH: the leader is at a newer epoch than ours; wait for
//   the metadata log to give us that epoch (a new start()).
// - Any other partition error, or a failed request: retry after
//   replica.fetch.backoff.ms.
// - A storage error: failed, until the replica is given a role again.
//
// Pure. Owned by the fetcher that serves the partition; the partition's
// log is read and changed by the caller, on the partition's strand.

#include <cstdint>
#include <optional>
#include <string>

#include "broker/replica/replica_types.h"
#include "protocol/error_code.h"

namespace hw::broker {

enum class follower_phase : uint8_t {
  fetching,
  delayed,         // after an error, until retry_at_ms
  resetting,       // OFFSET_OUT_OF_RANGE: waits for the leader's offsets
  awaiting_epoch,  // fenced: waits for newer metadata
  failed,          // storage error
};
const char* to_string(follower_phase p);

// What the next Fetch asks for this partition.
struct fetch_position {
  offset fetch_offset{0};
  std::optional<storage::leader_epoch> last_fetched_epoch;
  storage::leader_epoch current_leader_epoch{-1};
};

// Where a log should be cut, and why (for the log line).
struct truncation {
  enum class kind : uint8_t { none, to_offset, fully_and_start_at };
  kind what = kind::none;
  offset at{-1};
  std::string reason;
};

// The leader's (epoch, end offset) for a DivergingEpoch, and the local
// epoch cache's answer for that epoch (epoch -1: no local epoch <= it).
struct diverging_epoch {
  storage::leader_epoch epoch{-1};
  offset end_offset{-1};
};
truncation truncation_for_divergence(const diverging_epoch& leader, storage::leader_epoch local_epoch,
                                     offset local_end_offset, offset log_end);

// OFFSET_OUT_OF_RANGE: what the leader's latest and earliest offsets mean
// for this replica, and where to fetch next.
struct reset_decision {
  truncation cut;
  offset fetch_offset{0};
};
reset_decision reset_after_out_of_range(offset leader_log_end, offset leader_log_start, offset log_end);

class follower_state {
 public:
  explicit follower_state(int64_t backoff_ms) : backoff_ms_(backoff_ms) {}

  // A role from the metadata log: follow at this leader epoch from the log end.
  void start(storage::leader_epoch leader_epoch, offset log_end, std::optional<storage::leader_epoch> latest_epoch);

  follower_phase phase(int64_t now_ms) const;
  bool ready(int64_t now_ms) const { return phase(now_ms) == follower_phase::fetching; }
  const fetch_position& position() const { return position_; }
  // When a delayed partition may fetch again.
  int64_t retry_at_ms() const { return retry_at_ms_; }
  // The leader's high watermark minus the next fetch offset, from the last answer.
  int64_t lag() const { return lag_; }

  // Records fetched from `requested` were appended: the log now ends at
  // next, its last batch at epoch last_epoch. False (ignore the answer) when
  // the position moved since the request.
  bool on_appended(offset requested, offset next, std::optional<storage::leader_epoch> last_epoch,
                   offset leader_high_watermark);
  // An answer without records and without an error.
  void on_empty(offset leader_high_watermark);
  // The log was truncated (divergence or reset) and now ends at log_end.
  void on_truncated(offset log_end, std::optional<storage::leader_epoch> latest_epoch);
  // The partition-level error in the leader's answer (not NONE).
  void on_error(protocol::error_code error, int64_t now_ms);
  // The request failed as a whole (connection, timeout).
  void on_request_failed(int64_t now_ms) { delay(now_ms); }
  // The leader's offsets after OFFSET_OUT_OF_RANGE, applied by the caller.
  void on_reset(offset fetch_offset, std::optional<storage::leader_epoch> latest_epoch, offset leader_log_end);
  void on_storage_error() { phase_ = follower_phase::failed; }

 private:
  void delay(int64_t now_ms);

  int64_t backoff_ms_;
  follower_phase phase_ = follower_phase::fetching;
  int64_t retry_at_ms_ = 0;
  fetch_position position_;
  int64_t lag_ = 0;
};

}  // namespace hw::broker
