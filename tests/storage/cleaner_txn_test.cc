// The cleaner and transactions: aborted data goes, committed data stays;
// markers stay until their transaction's data is gone and their delete
// horizon has passed; each active producer's last batch stays (possibly
// empty), so producer state rebuilt from the cleaned log equals the state
// before cleaning.

#include <gtest/gtest.h>

#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

constexpr int64_t retention_ms = 5'000;

log_config txn_config() {
  log_config c = cleaner_harness::default_config();
  c.delete_retention_ms = retention_ms;
  return c;
}

void txn_put(cleaner_harness& h, int64_t pid, int32_t seq, std::vector<kv> records) {
  h.append(keyed_batch(records, h.now, {pid, 0, seq, true}));
}

void end_txn(cleaner_harness& h, int64_t pid, bool commit) {
  h.append(marker_batch(pid, 0, commit, h.now), producer_origin::coordinator);
}

size_t markers(const std::vector<stored_record>& recs) {
  return static_cast<size_t>(std::count_if(recs.begin(), recs.end(), [](const auto& r) { return r.control; }));
}

// Cleans after appending a fresh key and rolling, so there is dirty data.
void clean_pass(cleaner_harness& h, const std::string& fresh_key) {
  h.put(fresh_key, "1");
  h.roll();
  ASSERT_TRUE(h.clean());
}

TEST(CleanerTxn, AbortedRecordsGoCommittedStay) {
  cleaner_harness h(txn_config());
  h.put("x", "1");
  txn_put(h, 10, 0, {{"a", "aborted"}, {"b", "aborted"}});
  txn_put(h, 20, 0, {{"c", "committed"}});
  end_txn(h, 10, false);
  end_txn(h, 20, true);
  h.roll();
  ASSERT_TRUE(h.clean());
  auto recs = h.records();
  auto latest = latest_by_key(recs);
  EXPECT_EQ(latest.count("a"), 0u);
  EXPECT_EQ(latest.count("b"), 0u);
  EXPECT_EQ(latest["c"], "committed");
  EXPECT_EQ(latest["x"], "1");
  // Both markers stay: each one's transaction had data this pass saw.
  EXPECT_EQ(markers(recs), 2u);
  // The abort stays in the cleaned segment's transaction index.
  std::vector<aborted_txn> aborted;
  ASSERT_FALSE(h.plog->log().collect_aborted_transactions(offset(0), h.plog->log().log_end_offset(), &aborted));
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0].id, producer_id(10));
}

TEST(CleanerTxn, MarkersGoOnlyWhenTheirDataIsGoneAndTheHorizonPassed) {
  cleaner_harness h(txn_config());
  h.put("x", "1");
  txn_put(h, 10, 0, {{"a", "aborted"}});
  txn_put(h, 20, 0, {{"c", "committed"}});
  end_txn(h, 10, false);
  end_txn(h, 20, true);
  // The producers expire: nothing keeps their last batches any more.
  h.now += 86'400'001;
  ASSERT_EQ(h.plog->expire_producers(h.now), 2u);
  const int64_t t1 = h.now;

  h.roll();
  ASSERT_TRUE(h.clean());  // pass 1: aborted data goes, both markers stay
  std::vector<stored_record> recs;
  std::vector<stored_batch> batches;
  read_log(h.plog->log(), &recs, &batches);
  EXPECT_EQ(markers(recs), 2u);
  EXPECT_EQ(latest_by_key(recs).count("a"), 0u);

  clean_pass(h, "y");  // pass 2: the abort marker is now discardable: stamped, kept
  read_log(h.plog->log(), &recs, &batches);
  ASSERT_EQ(markers(recs), 2u);
  for (const auto& b : batches) {
    if (!b.control) continue;
    if (b.producer_id == 10) {
      ASSERT_TRUE(b.delete_horizon);
      EXPECT_EQ(*b.delete_horizon, t1 + retention_ms);
    } else {
      EXPECT_FALSE(b.delete_horizon) << "the committed data is still there";
    }
  }

  h.now = t1 + retention_ms;
  h.put("c", "plain");  // the committed record is no longer the latest
  clean_pass(h, "z");   // pass 3: abort marker gone; commit marker stays (its data went only now)
  read_log(h.plog->log(), &recs, &batches);
  ASSERT_EQ(markers(recs), 1u);
  for (const auto& b : batches) {
    if (b.control) EXPECT_EQ(b.producer_id, 20);
  }
  EXPECT_EQ(latest_by_key(recs)["c"], "plain");

  clean_pass(h, "w");  // pass 4: commit marker discardable: stamped
  read_log(h.plog->log(), &recs, &batches);
  ASSERT_EQ(markers(recs), 1u);
  h.now += retention_ms;
  clean_pass(h, "v");  // pass 5: gone
  read_log(h.plog->log(), &recs, &batches);
  EXPECT_EQ(markers(recs), 0u);
  for (const char* k : {"x", "y", "z", "w", "v"}) EXPECT_EQ(latest_by_key(recs)[k], "1") << k;
}

// What a rebuilt producer state must reproduce (a snapshot's view: epoch,
// coordinator epoch, open transaction, last batch).
std::map<int64_t, std::string> producer_view(const producer_state& s) {
  std::map<int64_t, std::string> out;
  for (const auto& [id, e] : s.producers()) {
    std::string last = e.batches.empty() ? "none"
                                         : std::to_string(e.batches.back().last_sequence) + "@" +
                                               std::to_string(e.batches.back().last_offset.value) + "-" +
                                               std::to_string(e.batches.back().offset_delta) + " ts " +
                                               std::to_string(e.batches.back().timestamp_ms);
    out[id.value] = "epoch " + std::to_string(e.epoch.value) + " coordinator " + std::to_string(e.coordinator.value) +
                    " txn " + std::to_string(e.current_txn_first_offset.value_or(offset(-1)).value) + " last " + last;
  }
  return out;
}

TEST(CleanerTxn, ProducerStateRebuiltFromTheCleanedLogEqualsTheStateBefore) {
  cleaner_harness h(txn_config());
  // Idempotent producers overwriting the same keys: their old batches go.
  for (int i = 0; i < 20; ++i) {
    h.append(keyed_batch({{"k" + std::to_string(i % 3), "p30-" + std::to_string(i)}}, h.now + i, {30, 0, i}));
    h.append(keyed_batch({{"k" + std::to_string(i % 3), "p31-" + std::to_string(i)}, {"j", "x"}}, h.now + i,
                         {31, 0, 2 * i}));
  }
  // A transactional producer that committed, one whose last act was an abort.
  txn_put(h, 40, 0, {{"t", "1"}, {"u", "1"}});
  end_txn(h, 40, true);
  txn_put(h, 41, 0, {{"k0", "aborted"}});
  end_txn(h, 41, false);
  // Later plain writes shadow everything the producers wrote.
  for (const char* k : {"k0", "k1", "k2", "j", "t", "u"}) h.put(k, "final");
  h.roll();
  auto before = producer_view(h.plog->producers());
  ASSERT_EQ(before.size(), 4u);

  ASSERT_TRUE(h.clean());
  clean_pass(h, "fresh");
  auto recs = h.records();
  for (const auto& r : recs)
    if (!r.control && r.key != "fresh") EXPECT_EQ(r.value, "final") << r.key << "@" << r.offset;

  // Rebuild from the log alone: no snapshots, full recovery.
  ASSERT_FALSE(h.plog->close());
  std::vector<std::string> names;
  ASSERT_FALSE(h.fs.list(h.dir(), &names));
  for (const auto& n : names)
    if (n.ends_with(".snapshot")) ASSERT_FALSE(h.fs.remove(h.dir() / n));
  ASSERT_FALSE(h.fs.sync_directory(h.dir()));
  h.open(false);
  EXPECT_EQ(producer_view(h.plog->producers()), before);
  // And the idempotence window still works: the next sequence is accepted.
  h.append(keyed_batch({{"k0", "next"}}, h.now, {30, 0, 20}));
}

}  // namespace
}  // namespace hw::storage
