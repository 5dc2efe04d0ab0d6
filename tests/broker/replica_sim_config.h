#pragma once
// The replica simulation's knobs and results: its random source, the rules
// it can break on purpose, its configuration and what a run reports. No
// real file is mirrored here; the defaults follow Kafka's (named per field).

#include <cstdint>
#include <string>

#include "tests/support/sim_rng.h"

namespace hw::broker::replica_sim {

using rng = hw::testing::sim_rng;  // seeded: a failing seed replays exactly

// Rules broken on purpose, to show that the checker notices (set only by
// the checker's own tests).
struct unsafe_switches {
  bool leader_skips_divergence_check = false;  // no DivergingEpoch: diverged followers keep their tails
  bool follower_skips_truncation = false;      // a DivergingEpoch is heard but nothing is cut
  bool hw_ignores_min_isr = false;             // HW and acks=all move with the leader alone
  bool unclean_elections = false;              // the controller elects outside the ISR
  // A fetch past the leader's log end answered OFFSET_OUT_OF_RANGE before
  // its DivergingEpoch is looked at: what read_one in handlers/01_fetch.cc
  // did before the fix, a defect this simulation found (Kafka's
  // Partition.readRecords answers the divergence first). The follower then
  // cuts to the leader's log end and keeps its diverged records below it.
  bool out_of_range_before_divergence = false;
  // A DivergingEpoch whose cut is at or past the log end leaves the epoch
  // cache alone: what partition::truncate and partition_log::truncate_to
  // did before the fix, a defect this simulation found (Kafka's
  // UnifiedLog.truncateTo cuts the cache at the log end even then). A
  // replica that led an epoch without writing keeps that epoch as its
  // latest, and the leader answers the same DivergingEpoch for ever.
  bool noop_truncation_keeps_epoch_cache = false;
};

struct config {
  uint64_t seed = 0;
  // Random faults and produces happen until chaos_ms; then everything heals
  // and the cluster has settle_ms to converge.
  int64_t chaos_ms = 1500;
  int64_t settle_ms = 3000;
  bool scripted = false;  // no random faults, produces or drops: a test drives them
  int64_t tick_min_ms = 4;
  int64_t tick_max_ms = 10;
  int64_t min_delay_ms = 1;
  int64_t max_delay_ms = 12;
  double p_drop = 0.04;             // data messages (fetch, produce, AlterPartition, metadata)
  int64_t lag_time_max_ms = 100;    // replica.lag.time.max.ms
  int64_t session_timeout_ms = 150; // broker.session.timeout.ms
  int64_t heartbeat_ms = 20;
  int64_t fetch_backoff_ms = 15;    // replica.fetch.backoff.ms
  int64_t request_timeout_ms = 60;  // fetch, ListOffsets, AlterPartition, registration
  int64_t alter_retry_ms = 30;
  int64_t metadata_refresh_ms = 40;  // the controller re-sends its image this often
  double p_produce = 0.5;            // per producer tick (every 5–15 ms)
  double p_acks_one = 0.2;
  double p_fault = 0.12;             // per fault tick (every 25 ms), when the fault model allows one
  int max_batches_per_fetch = 4;
  unsafe_switches unsafe;
  bool trace = false;  // print the event trace on stderr
  bool record_trace = false;  // keep the trace's hash (implied by trace)
};

struct stats {
  int64_t steps = 0;
  int64_t acked = 0;             // acks=all acknowledged
  int64_t acks_one = 0;          // acks=1 appended
  int64_t refused_min_isr = 0;   // NOT_ENOUGH_REPLICAS
  int64_t elections = 0;         // leader epochs the controller started
  int64_t crashes = 0;
  int64_t cuts = 0;
  int64_t truncations = 0;       // followers that cut their log (divergence or reset)
  int64_t divergences = 0;       // DivergingEpoch answers
  int64_t shrinks = 0;
  int64_t expansions = 0;
  int64_t lost_tails = 0;        // crashes that lost unflushed records
  uint64_t trace_hash = 1469598103934665603ULL;
};

struct outcome {
  bool ok = true;
  std::string failure;
  stats s;
};

}  // namespace hw::broker::replica_sim
