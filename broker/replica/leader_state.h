#pragma once
// A partition leader's bookkeeping of its followers: how far each has
// fetched and when it was last caught up, the ISR (the committed one from
// the metadata log, and at most one change of it in flight to the
// controller), the high watermark that follows from them, and when an
// acks=all produce is done. Kafka 4.3's rules (Partition, Replica):
//
// - A follower's fetch at offset F, when the leader's log ends at L:
//   F >= L makes it caught up now; F >= the leader's log end at its previous
//   fetch makes it caught up as of that fetch. A fetch carrying a broker
//   epoch older than the broker's registered one is refused
//   (NOT_LEADER_OR_FOLLOWER): it comes from an earlier incarnation.
// - Caught up: log end == the leader's, or caught up within
//   replica.lag.time.max.ms.
// - Joins the ISR (an expansion is proposed) when it is not in it, no
//   change is in flight, it is eligible (registered, unfenced, not shutting
//   down, fetching with the broker epoch the metadata has, or -1), and its
//   log end is at or above the HW and at or above this leader epoch's start.
// - Leaves the ISR (a shrink is proposed) when no change is in flight and
//   it is no longer caught up.
// - The HW is the smallest log end among the "maximal ISR" (the committed
//   ISR plus a pending joiner; a pending shrink still counts the leavers)
//   and the followers caught up and eligible that are not in it yet; it
//   never moves back, and does not move while the committed ISR is below
//   the effective min ISR (min(min.insync.replicas, replication factor);
//   KIP-966's strict min ISR).
// - acks=all at required offset R is done once HW >= R; then NONE, or
//   NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR is below min ISR.
// - The controller's answer to a change: success moves the committed ISR
//   and partition epoch (ignored if its leader epoch is not ours or its
//   partition epoch older); INELIGIBLE_REPLICA and OPERATION_NOT_ATTEMPTED
//   go back to the committed state; the fencing errors and unknown
//   partitions wait for metadata; anything else is retried.
// - A role from the metadata log with an older partition epoch than the
//   leader knows (an AlterPartition answer got here first) is skipped.
//
// Pure: time and the brokers' states come in as arguments. Owned by a
// partition while it leads, used on its strand only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker/replica/replica_types.h"
#include "protocol/error_code.h"

namespace hw::broker {

struct leader_settings {
  int64_t replica_lag_time_max_ms = 30'000;  // replica.lag.time.max.ms
  int32_t min_insync_replicas = 1;           // the topic's min.insync.replicas
};

// One follower as the leader tracks it (offsets -1 until it fetches).
struct follower_progress {
  node_id id = no_node;
  offset log_end{-1};
  offset log_start{-1};
  offset last_fetch_leader_log_end{-1};
  int64_t last_fetch_time_ms = 0;
  int64_t last_caught_up_time_ms = 0;
  std::optional<broker_epoch> epoch;  // from its fetches

  bool caught_up(offset leader_log_end, int64_t now_ms, int64_t max_lag_ms) const {
    return leader_log_end == log_end || now_ms - last_caught_up_time_ms <= max_lag_ms;
  }
};

// An ISR change to send to the controller (AlterPartition), or in flight.
struct isr_change {
  enum class kind : uint8_t { expand, shrink };
  kind what = kind::expand;
  uint64_t id = 0;  // matches the answer to the change
  storage::leader_epoch leader_epoch{-1};
  broker::partition_epoch partition_epoch{-1};
  // The proposed ISR (the committed one in its order, a joiner last, as
  // Kafka sends it), each with the broker epoch the leader saw it fetch
  // with (-1 when it has not fetched yet; its own for the leader).
  std::vector<node_id> isr;
  std::vector<broker_epoch> broker_epochs;
  std::vector<node_id> changed;  // who joins or leaves
};

// The controller's answer for one partition of an AlterPartition.
struct alter_partition_answer {
  protocol::error_code error = protocol::error_code::none;
  storage::leader_epoch leader_epoch{-1};
  broker::partition_epoch partition_epoch{-1};
  std::vector<node_id> isr;
};

enum class alter_outcome : uint8_t {
  committed,          // the ISR and partition epoch moved (or the controller had them already)
  published,          // committed, and the metadata log brought the change here before the answer
  stale,              // an answer for an older state; nothing changed
  reverted,           // refused for good; back to the committed state, may propose again
  await_metadata,     // refused; stays pending until the metadata log says more
  retry,              // send the same change again
};

// What a follower's fetch did to the leader's view.
struct follower_fetch_outcome {
  protocol::error_code error = protocol::error_code::none;
  bool log_end_moved = false;          // the HW may move
  std::optional<isr_change> expand;    // to send to the controller
  bool in_sync = false;                // in the (maximal) ISR: never throttled
};

class leader_state {
 public:
  // self_epoch: this broker's registration epoch (sent with its own ISR entry).
  leader_state(node_id self, broker_epoch self_epoch, leader_settings settings)
      : self_(self), self_epoch_(self_epoch), settings_(settings) {}

  // The metadata log's registration, with this broker leading. False when
  // skipped (older partition epoch than known). A new leader epoch starts
  // at leader_log_end and resets what is known of the followers.
  bool on_role(const partition_role& role, offset leader_log_end, int64_t now_ms);
  void set_settings(const leader_settings& s) { settings_ = s; }

  // A fetch from a follower that passed the epoch checks.
  follower_fetch_outcome on_follower_fetch(node_id follower, offset fetch_offset, offset follower_log_start,
                                           broker_epoch epoch, int64_t now_ms, offset leader_log_end,
                                           offset high_watermark, const broker_lookup& brokers);

  // The followers that fell out of sync, as a shrink to send; nullopt when
  // none did or a change is in flight.
  std::optional<isr_change> maybe_shrink(int64_t now_ms, offset leader_log_end);

  // The new HW when it can move forward from `current`; nullopt otherwise.
  std::optional<offset> next_high_watermark(offset leader_log_end, offset current, int64_t now_ms,
                                            const broker_lookup& brokers) const;

  // Whether an acks=all produce that must reach `required` is done, and its error.
  std::pair<bool, protocol::error_code> acks_done(offset required, offset high_watermark) const;

  alter_outcome on_alter_answer(uint64_t change_id, const alter_partition_answer& answer);

  // --- views -------------------------------------------------------------
  const std::vector<node_id>& isr() const { return isr_; }
  std::vector<node_id> maximal_isr() const;
  const std::optional<isr_change>& pending() const { return pending_; }
  storage::leader_epoch epoch() const { return leader_epoch_; }
  broker::partition_epoch version() const { return partition_epoch_; }
  offset epoch_start_offset() const { return epoch_start_; }
  const std::vector<node_id>& replicas() const { return replicas_; }
  const follower_progress* follower(node_id id) const;
  const std::vector<follower_progress>& followers() const { return followers_; }
  int32_t effective_min_isr() const;
  bool under_min_isr() const { return static_cast<int32_t>(isr_.size()) < effective_min_isr(); }
  bool under_replicated() const { return isr_.size() < replicas_.size(); }
  // Why a follower was found out of sync, for the log line.
  std::string describe(node_id follower) const;

 private:
  follower_progress* find(node_id id);
  bool isr_eligible(const follower_progress& f, const broker_lookup& brokers) const;
  bool in_maximal_isr(node_id id) const;
  isr_change propose(isr_change::kind what, std::vector<node_id> isr, std::vector<node_id> changed);

  node_id self_;
  broker_epoch self_epoch_;
  leader_settings settings_;
  storage::leader_epoch leader_epoch_{-1};
  broker::partition_epoch partition_epoch_{-1};
  offset epoch_start_{-1};
  std::vector<node_id> replicas_;
  std::vector<node_id> isr_;  // committed
  std::optional<isr_change> pending_;
  std::vector<follower_progress> followers_;
  uint64_t next_change_id_ = 1;
  // The pending change a metadata record committed before the
  // controller's answer came (0: none): its answer is still counted.
  uint64_t published_change_id_ = 0;
};

}  // namespace hw::broker
