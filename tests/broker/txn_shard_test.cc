#include "broker/txn/txn_shard.h"

#include <gtest/gtest.h>

namespace hw::broker::txn {
namespace {

using protocol::error_code;

constexpr int32_t k_coordinator_epoch = 7;

// Drives one shard as the coordinator's glue would: appends are
// acknowledged on demand, their records kept as the partition's log.
class TxnShard : public ::testing::Test {
 protected:
  explicit TxnShard(int16_t level = 1) : shard(3, config_at(level)) {
    shard.begin_load(k_coordinator_epoch);
    shard.end_load(now);
  }
  static txn_config config_at(int16_t level) {
    txn_config c;
    c.transaction_version_level = level;
    c.id_expiration_ms = 3'600'000;
    return c;
  }

  // Takes the output, acknowledging every append with `error`, and keeps
  // answers and marker jobs.
  void settle(error_code error = error_code::none) {
    for (int round = 0; round < 10; ++round) {
      auto out = shard.take_output();
      for (auto& c : out.completions) answers[c.token] = c.answer;
      for (auto& m : out.markers) markers.push_back(m);
      for (auto& i : out.illegal) ADD_FAILURE() << "coordinator bug: " << i;
      if (out.appends.empty()) return;
      for (auto& a : out.appends) {
        if (error == error_code::none) log.push_back(a.record);
        shard.on_append_done(a.token, error, now);
      }
    }
  }

  init_producer_id_result init(const std::string& id, std::optional<producer_id_and_epoch> expected = std::nullopt,
                               int32_t timeout_ms = 60000) {
    const request_token t = next_token++;
    std::optional<int64_t> fresh;
    if (shard.init_needs_producer_id(id, expected)) fresh = next_producer_id++;
    shard.init_producer_id(t, id, timeout_ms, expected, fresh, now);
    settle();
    return std::get<init_producer_id_result>(answers.at(t));
  }
  error_code add(const std::string& id, producer_id_and_epoch p, txn_partitions parts, int16_t version = 0) {
    const request_token t = next_token++;
    shard.add_partitions(t, id, p, parts, version, now);
    settle();
    return std::get<error_code>(answers.at(t));
  }
  end_txn_result end(const std::string& id, producer_id_and_epoch p, bool commit, int16_t version = 0) {
    const request_token t = next_token++;
    std::optional<int64_t> fresh;
    if (shard.end_needs_producer_id(id, version)) fresh = next_producer_id++;
    shard.end_txn(t, id, p, commit, version, fresh, now);
    settle();
    return std::get<end_txn_result>(answers.at(t));
  }
  // Reports every marker job as written and settles the complete records.
  void write_markers() {
    auto jobs = std::move(markers);
    markers.clear();
    for (const auto& j : jobs) shard.on_markers_written(j.transactional_id, j.coordinator_epoch, now);
    settle();
  }
  txn_state state(const std::string& id) const {
    auto* m = shard.states().find(id);
    return m ? m->state() : txn_state::dead;
  }
  // The states the log holds for an id, in order.
  std::vector<txn_state> logged(const std::string& id) const {
    std::vector<txn_state> out;
    for (const auto& r : log) {
      auto d = decode_txn_record(r.key, r.value ? std::optional<std::span<const uint8_t>>(*r.value) : std::nullopt);
      if (d && d->transactional_id == id && d->value) out.push_back(d->value->state);
    }
    return out;
  }

  txn_shard shard;
  int64_t now = 1'000'000;
  request_token next_token = 1;
  int64_t next_producer_id = 5000;
  std::map<request_token, txn_answer> answers;
  std::vector<marker_job> markers;
  std::vector<txn_record> log;
};

class TxnShardV2 : public TxnShard {
 protected:
  TxnShardV2() : TxnShard(2) {}
};

TEST_F(TxnShard, ANewIdGetsAProducerIdAtEpochZeroOnceItsRecordIsDurable) {
  EXPECT_TRUE(shard.init_needs_producer_id("app", std::nullopt));
  shard.init_producer_id(1, "app", 60000, std::nullopt, 5000, now);
  auto out = shard.take_output();
  EXPECT_TRUE(out.completions.empty()) << "no answer before the record is durable";
  ASSERT_EQ(out.appends.size(), 1u);
  shard.on_append_done(out.appends[0].token, error_code::none, now);
  out = shard.take_output();
  ASSERT_EQ(out.completions.size(), 1u);
  auto r = std::get<init_producer_id_result>(out.completions[0].answer);
  EXPECT_EQ(r.error, error_code::none);
  EXPECT_EQ(r.producer_id, 5000);
  EXPECT_EQ(r.producer_epoch, 0);
  EXPECT_FALSE(shard.init_needs_producer_id("app", std::nullopt));
  // A second InitProducerId (a restarted producer) bumps the epoch.
  auto again = init("app");
  EXPECT_EQ(again.producer_id, 5000);
  EXPECT_EQ(again.producer_epoch, 1);
}

TEST_F(TxnShard, BadInitRequestsGetKafkasErrors) {
  EXPECT_EQ(init("").error, error_code::invalid_request);
  EXPECT_EQ(init("app", std::nullopt, 0).error, error_code::invalid_transaction_timeout);
  EXPECT_EQ(init("app", std::nullopt, 900001).error, error_code::invalid_transaction_timeout);
  EXPECT_EQ(init("app", std::nullopt, 900000).error, error_code::none);
  // Resuming with an id that is not this transactional id's.
  EXPECT_EQ(init("app", producer_id_and_epoch{1234, 0}).error, error_code::producer_fenced);
}

TEST_F(TxnShard, ACommitWritesPrepareMarkersThenComplete) {
  auto p = init("app");
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  EXPECT_EQ(shard.states().open_transactions(), 0);
  EXPECT_EQ(add("app", me, {{"orders", 0}, {"orders", 1}}), error_code::none);
  EXPECT_EQ(state("app"), txn_state::ongoing);
  EXPECT_EQ(shard.states().open_transactions(), 1);
  EXPECT_EQ(add("app", me, {{"orders", 1}}), error_code::none) << "already in: answered without a write";
  EXPECT_EQ(logged("app").size(), 2u);

  auto ended = end("app", me, true);
  EXPECT_EQ(ended.error, error_code::none);
  EXPECT_EQ(ended.producer_id, k_no_producer_id) << "version 1 answers no id";
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_TRUE(markers[0].commit);
  EXPECT_EQ(markers[0].producer_id, me.id);
  EXPECT_EQ(markers[0].producer_epoch, me.epoch);
  EXPECT_EQ(markers[0].coordinator_epoch, k_coordinator_epoch);
  EXPECT_EQ(markers[0].partitions, (txn_partitions{{"orders", 0}, {"orders", 1}}));
  EXPECT_EQ(state("app"), txn_state::prepare_commit);
  EXPECT_EQ(shard.states().open_transactions(), 1);

  // Until the markers are out the id is busy.
  EXPECT_EQ(add("app", me, {{"orders", 2}}), error_code::concurrent_transactions);
  EXPECT_EQ(end("app", me, true).error, error_code::concurrent_transactions);
  EXPECT_EQ(end("app", me, false).error, error_code::concurrent_transactions);
  EXPECT_EQ(init("app").error, error_code::concurrent_transactions);

  write_markers();
  EXPECT_EQ(state("app"), txn_state::complete_commit);
  EXPECT_EQ(shard.states().open_transactions(), 0);
  EXPECT_TRUE(shard.states().find("app")->partitions().empty());
  EXPECT_EQ(logged("app"), (std::vector<txn_state>{txn_state::empty, txn_state::ongoing, txn_state::prepare_commit,
                                                   txn_state::complete_commit}));
  // A retried commit is fine, an abort of it is not, and neither writes.
  EXPECT_EQ(end("app", me, true).error, error_code::none);
  EXPECT_EQ(end("app", me, false).error, error_code::invalid_txn_state);
  EXPECT_EQ(logged("app").size(), 4u);
}

TEST_F(TxnShard, EndTxnChecksTheProducerAndTheState) {
  auto p = init("app");
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  EXPECT_EQ(end("app", me, true).error, error_code::invalid_txn_state) << "no transaction open";
  EXPECT_EQ(end("nobody", me, true).error, error_code::invalid_producer_id_mapping);
  EXPECT_EQ(end("app", {me.id + 1, me.epoch}, true).error, error_code::invalid_producer_id_mapping);
  add("app", me, {{"t", 0}});
  EXPECT_EQ(end("app", {me.id, static_cast<int16_t>(me.epoch + 1)}, true).error, error_code::producer_fenced);
  EXPECT_EQ(end("", me, true).error, error_code::invalid_request);
  EXPECT_EQ(add("app", {me.id, static_cast<int16_t>(me.epoch + 1)}, {{"t", 1}}), error_code::producer_fenced);
  EXPECT_EQ(add("other", me, {{"t", 1}}), error_code::invalid_producer_id_mapping);
}

TEST_F(TxnShard, ANewInstanceFencesTheOldOneAndAbortsItsTransaction) {
  auto old = init("app");
  const producer_id_and_epoch first{old.producer_id, old.producer_epoch};
  add("app", first, {{"orders", 0}});
  // The new instance's InitProducerId aborts the open transaction first.
  auto retry_later = init("app");
  EXPECT_EQ(retry_later.error, error_code::concurrent_transactions);
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_FALSE(markers[0].commit);
  EXPECT_EQ(markers[0].producer_epoch, first.epoch + 1) << "the abort marker carries the fenced epoch";
  // The old instance can do nothing more.
  EXPECT_EQ(end("app", first, true).error, error_code::producer_fenced);
  write_markers();
  EXPECT_EQ(state("app"), txn_state::complete_abort);
  // The retry gets an epoch above the fenced one.
  auto fresh = init("app");
  EXPECT_EQ(fresh.error, error_code::none);
  EXPECT_EQ(fresh.producer_epoch, first.epoch + 2);
  EXPECT_EQ(add("app", first, {{"orders", 0}}), error_code::producer_fenced);
}

TEST_F(TxnShard, AResumingProducerKeepsItsIdAndAStaleOneIsFenced) {
  auto p = init("app");
  auto resumed = init("app", producer_id_and_epoch{p.producer_id, p.producer_epoch});
  EXPECT_EQ(resumed.error, error_code::none);
  EXPECT_EQ(resumed.producer_epoch, p.producer_epoch + 1);
  auto stale = init("app", producer_id_and_epoch{p.producer_id, static_cast<int16_t>(p.producer_epoch + 5)});
  EXPECT_EQ(stale.error, error_code::producer_fenced);
}

TEST_F(TxnShard, VerificationNamesThePartitionsOutsideTheTransaction) {
  auto p = init("app");
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  add("app", me, {{"orders", 0}});
  auto v = shard.verify_partitions("app", me, {{"orders", 0}, {"orders", 1}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].second, error_code::none);
  EXPECT_EQ(v[1].second, error_code::transaction_abortable);
  v = shard.verify_partitions("app", {me.id, static_cast<int16_t>(me.epoch + 1)}, {{"orders", 0}});
  EXPECT_EQ(v[0].second, error_code::producer_fenced);
  v = shard.verify_partitions("app", {me.id + 1, me.epoch}, {{"orders", 0}});
  EXPECT_EQ(v[0].second, error_code::invalid_producer_id_mapping);
  end("app", me, false);
  v = shard.verify_partitions("app", me, {{"orders", 0}});
  EXPECT_EQ(v[0].second, error_code::concurrent_transactions) << "markers on their way";
  write_markers();
  v = shard.verify_partitions("app", me, {{"orders", 0}});
  EXPECT_EQ(v[0].second, error_code::transaction_abortable) << "a late write of the ended transaction";
}

TEST_F(TxnShard, AFailedAppendAnswersTheCoordinatorErrorAndChangesNothing) {
  auto p = init("app");
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  shard.add_partitions(99, "app", me, {{"orders", 0}}, 0, now);
  settle(error_code::not_leader_or_follower);
  EXPECT_EQ(std::get<error_code>(answers.at(99)), error_code::not_coordinator);
  EXPECT_EQ(state("app"), txn_state::empty);
  EXPECT_FALSE(shard.states().find("app")->has_pending());
  shard.add_partitions(100, "app", me, {{"orders", 0}}, 0, now);
  settle(error_code::not_enough_replicas);
  EXPECT_EQ(std::get<error_code>(answers.at(100)), error_code::coordinator_not_available);
  EXPECT_EQ(add("app", me, {{"orders", 0}}), error_code::none);
}

TEST_F(TxnShard, ATransactionPastItsTimeoutIsAborted) {
  auto p = init("app", std::nullopt, 5000);
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  add("app", me, {{"orders", 0}});
  now += 5000;
  shard.tick(now);
  settle();
  EXPECT_TRUE(markers.empty()) << "not past the timeout yet";
  now += 1;
  shard.tick(now);
  settle();
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_FALSE(markers[0].commit);
  EXPECT_EQ(markers[0].producer_epoch, me.epoch + 1);
  write_markers();
  EXPECT_EQ(state("app"), txn_state::complete_abort);
  EXPECT_EQ(end("app", me, true).error, error_code::producer_fenced);
}

TEST_F(TxnShard, TheTickIsDueOneIntervalAfterTheLoadAndAfterEachTick) {
  const int64_t interval = shard.config().tick_interval_ms;
  ASSERT_TRUE(shard.next_deadline_ms());
  EXPECT_EQ(*shard.next_deadline_ms(), now + interval);
  now += 1234;
  shard.tick(now);
  EXPECT_EQ(*shard.next_deadline_ms(), now + interval);
  shard.unload();
  EXPECT_FALSE(shard.next_deadline_ms()) << "nothing is due for an unloaded shard";
}

TEST_F(TxnShard, AnIdleIdExpiresAsATombstone) {
  init("app");
  now += 3'600'000 - 1;
  shard.tick(now);
  settle();
  EXPECT_TRUE(shard.states().find("app")) << "short of the limit it stays";
  now += 1;
  shard.tick(now);
  settle();
  EXPECT_FALSE(shard.states().find("app"));
  EXPECT_FALSE(shard.states().describe("app"));
  ASSERT_FALSE(log.empty());
  EXPECT_FALSE(log.back().value) << "a tombstone";
}

TEST_F(TxnShard, ANewCoordinatorLoadsTheLogAndSendsUnfinishedMarkersAgain) {
  auto p = init("app");
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  add("app", me, {{"orders", 0}});
  end("app", me, true);
  ASSERT_EQ(markers.size(), 1u);
  auto b = init("other");
  add("other", {b.producer_id, b.producer_epoch}, {{"orders", 3}});

  // The leadership moves before the markers are reported.
  txn_shard next(3, config_at(1));
  next.begin_load(k_coordinator_epoch + 1);
  EXPECT_EQ(next.states().not_serving(), error_code::coordinator_load_in_progress);
  for (const auto& r : log) {
    std::string error;
    ASSERT_TRUE(next.load(r.key, r.value ? std::optional<std::span<const uint8_t>>(*r.value) : std::nullopt, &error))
        << error;
  }
  next.end_load(now);
  EXPECT_EQ(next.states().open_transactions(), 2) << "app in PrepareCommit, other Ongoing";
  auto out = next.take_output();
  ASSERT_EQ(out.markers.size(), 1u);
  EXPECT_EQ(out.markers[0].transactional_id, "app");
  EXPECT_TRUE(out.markers[0].commit);
  EXPECT_EQ(out.markers[0].coordinator_epoch, k_coordinator_epoch + 1);
  EXPECT_EQ(next.states().find("other")->state(), txn_state::ongoing);
  next.on_markers_written("app", k_coordinator_epoch, now);
  EXPECT_TRUE(next.take_output().appends.empty()) << "a report for an older coordinator epoch is ignored";
  next.on_markers_written("app", k_coordinator_epoch + 1, now);
  out = next.take_output();
  ASSERT_EQ(out.appends.size(), 1u);
  next.on_append_done(out.appends[0].token, error_code::none, now);
  EXPECT_EQ(next.states().find("app")->state(), txn_state::complete_commit);
  EXPECT_EQ(next.states().open_transactions(), 1);
  next.unload();
  EXPECT_EQ(next.states().open_transactions(), 0);
}

TEST_F(TxnShard, UnloadAnswersWhatWaitsNotCoordinator) {
  auto p = init("app");
  shard.add_partitions(42, "app", {p.producer_id, p.producer_epoch}, {{"orders", 0}}, 0, now);
  auto out = shard.take_output();
  ASSERT_EQ(out.appends.size(), 1u);
  shard.unload();
  out = shard.take_output();
  ASSERT_EQ(out.completions.size(), 1u);
  EXPECT_EQ(std::get<error_code>(out.completions[0].answer), error_code::not_coordinator);
  EXPECT_EQ(shard.states().size(), 0u);
  EXPECT_EQ(init("app").error, error_code::not_coordinator);
}

TEST_F(TxnShard, DescribeAndListShowWhatKafkaShows) {
  auto a = init("a");
  add("a", {a.producer_id, a.producer_epoch}, {{"orders", 0}});
  now += 10000;
  init("b");
  auto d = shard.states().describe("a");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->state, txn_state::ongoing);
  EXPECT_EQ(d->start_ms, now - 10000);
  EXPECT_EQ(d->partitions, (txn_partitions{{"orders", 0}}));
  EXPECT_FALSE(shard.states().describe("c"));
  list_filter ongoing;
  ongoing.states = {txn_state::ongoing};
  auto listed = shard.states().list(ongoing, now);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].transactional_id, "a");
  list_filter by_pid;
  by_pid.producer_ids = {a.producer_id};
  EXPECT_EQ(shard.states().list(by_pid, now).size(), 1u);
  list_filter long_running;
  long_running.states = {txn_state::ongoing};
  long_running.min_duration_ms = 10000;
  EXPECT_TRUE(shard.states().list(long_running, now).empty()) << "open exactly 10 s is not longer than 10 s";
  long_running.min_duration_ms = 9999;
  EXPECT_EQ(shard.states().list(long_running, now).size(), 1u);
  EXPECT_EQ(shard.states().list({}, now).size(), 2u);
}

TEST_F(TxnShardV2, EveryEndBumpsTheEpochAndARetryGetsTheSameAnswer) {
  auto p = init("app");
  const producer_id_and_epoch e0{p.producer_id, p.producer_epoch};
  add("app", e0, {{"orders", 0}}, 2);
  auto ended = end("app", e0, true, 2);
  EXPECT_EQ(ended.error, error_code::none);
  EXPECT_EQ(ended.producer_id, e0.id);
  EXPECT_EQ(ended.producer_epoch, e0.epoch + 1) << "the client goes on at the bumped epoch";
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0].producer_epoch, e0.epoch + 1);
  EXPECT_EQ(markers[0].transaction_version, 2);
  // Retried while the markers are out: busy.
  EXPECT_EQ(end("app", e0, true, 2).error, error_code::concurrent_transactions);
  write_markers();
  // Retried after: the same answer, nothing written.
  const size_t records = log.size();
  auto retried = end("app", e0, true, 2);
  EXPECT_EQ(retried.error, error_code::none);
  EXPECT_EQ(retried.producer_epoch, e0.epoch + 1);
  EXPECT_EQ(log.size(), records);
  // A delayed write of the ended transaction at the old epoch can no longer
  // join the next one (KAFKA-17754).
  const producer_id_and_epoch e1{e0.id, static_cast<int16_t>(e0.epoch + 1)};
  EXPECT_EQ(add("app", e0, {{"orders", 0}}, 2), error_code::producer_fenced);
  EXPECT_EQ(add("app", e1, {{"orders", 0}}, 2), error_code::none);
}

// A consume-transform-produce client commits, begins the next transaction
// at the bumped epoch and aborts it (its group rebalanced) while the
// commit's markers are still being written: the abort waits for them
// (CONCURRENT_TRANSACTIONS) and then goes through; it is never taken for a
// stale producer.
TEST_F(TxnShardV2, TheNextEndAtTheBumpedEpochWaitsForTheMarkersOfTheLast) {
  auto p = init("app");
  const producer_id_and_epoch e0{p.producer_id, p.producer_epoch};
  ASSERT_EQ(add("app", e0, {{"orders", 0}}, 2), error_code::none);
  ASSERT_EQ(end("app", e0, true, 2).error, error_code::none);
  const producer_id_and_epoch e1{e0.id, static_cast<int16_t>(e0.epoch + 1)};
  ASSERT_EQ(markers.size(), 1u) << "the markers are out";
  EXPECT_EQ(add("app", e1, {{"orders", 1}}, 2), error_code::concurrent_transactions);
  EXPECT_EQ(end("app", e1, false, 2).error, error_code::concurrent_transactions);
  EXPECT_EQ(end("app", e1, true, 2).error, error_code::concurrent_transactions);
  write_markers();
  EXPECT_EQ(state("app"), txn_state::complete_commit);
  auto aborted = end("app", e1, false, 2);
  EXPECT_EQ(aborted.error, error_code::none);
  EXPECT_EQ(aborted.producer_epoch, e1.epoch + 1);
  EXPECT_EQ(state("app"), txn_state::complete_abort);
}

TEST_F(TxnShardV2, AnAbortOfNothingBumpsTheEpochWithoutMarkers) {
  auto p = init("app");
  const producer_id_and_epoch me{p.producer_id, p.producer_epoch};
  EXPECT_EQ(end("app", me, true, 2).error, error_code::invalid_txn_state) << "nothing to commit";
  auto aborted = end("app", me, false, 2);
  EXPECT_EQ(aborted.error, error_code::none);
  EXPECT_EQ(aborted.producer_epoch, me.epoch + 1);
  EXPECT_TRUE(markers.empty());
  EXPECT_EQ(state("app"), txn_state::complete_abort);
}

TEST_F(TxnShardV2, AnExhaustedEpochMovesToANewProducerIdAtTheEnd) {
  auto p = init("app");
  // Bring the epoch to the last usable one through the log, as a long-lived
  // producer would have.
  txn_transit top = shard.states().find("app")->current();
  top.producer_epoch = INT16_MAX - 1;
  txn_shard loaded(3, config_at(2));
  loaded.begin_load(k_coordinator_epoch);
  auto rec = transit_record("app", top, 2);
  ASSERT_TRUE(loaded.load(rec.key, std::span<const uint8_t>(*rec.value), nullptr));
  loaded.end_load(now);
  const producer_id_and_epoch me{p.producer_id, static_cast<int16_t>(INT16_MAX - 1)};
  loaded.add_partitions(1, "app", me, {{"orders", 0}}, 2, now);
  auto out = loaded.take_output();
  loaded.on_append_done(out.appends.at(0).token, error_code::none, now);
  loaded.take_output();
  ASSERT_TRUE(loaded.end_needs_producer_id("app", 2));
  loaded.end_txn(2, "app", me, true, 2, 7777, now);
  out = loaded.take_output();
  loaded.on_append_done(out.appends.at(0).token, error_code::none, now);
  out = loaded.take_output();
  ASSERT_EQ(out.completions.size(), 1u);
  auto r = std::get<end_txn_result>(out.completions[0].answer);
  EXPECT_EQ(r.error, error_code::none);
  ASSERT_EQ(out.markers.size(), 1u);
  EXPECT_EQ(out.markers[0].producer_epoch, INT16_MAX) << "the markers use the last epoch";
  loaded.on_markers_written("app", k_coordinator_epoch, now);
  out = loaded.take_output();
  loaded.on_append_done(out.appends.at(0).token, error_code::none, now);
  EXPECT_EQ(loaded.states().find("app")->producer_id(), 7777);
  EXPECT_EQ(loaded.states().find("app")->producer_epoch(), 0);
  // The client retrying its EndTxn with the old id is answered, not fenced.
  loaded.end_txn(3, "app", me, true, 2, std::nullopt, now);
  out = loaded.take_output();
  ASSERT_EQ(out.completions.size(), 1u);
  r = std::get<end_txn_result>(out.completions[0].answer);
  EXPECT_EQ(r.error, error_code::none);
  EXPECT_EQ(r.producer_id, 7777);
  EXPECT_EQ(r.producer_epoch, 0);
}

}  // namespace
}  // namespace hw::broker::txn
