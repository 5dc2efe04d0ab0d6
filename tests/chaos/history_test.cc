// The chaos checker on small hand-made histories: each kind of finding is
// detected, with the partition, offset and values that locate it, and a
// clean history (including writes that failed or whose outcome is unknown,
// and a consumer re-reading after a rebalance) gives none.

#include <gtest/gtest.h>

#include <tuple>

#include "history.h"

namespace hw::chaos {
namespace {

// Two producers, two partitions; every write acknowledged, read once by a
// consumer and found by the final read where it was acknowledged.
void clean_writes(history& h) {
  h.rebalance(0, 1, {0, 1});
  const std::vector<std::pair<std::string, int32_t>> writes{{"p0-0", 0}, {"p1-0", 0}, {"p0-1", 1}, {"p0-2", 0}};
  std::map<int32_t, int64_t> next;
  for (const auto& [value, partition] : writes) {
    h.send(value, partition);
    const int64_t offset = next[partition]++;
    h.ack(value, partition, offset);
    h.read(0, 1, partition, offset, value);
  }
}

void final_read_of_clean(history& h) {
  h.final_read(0, 0, "p0-0");
  h.final_read(0, 1, "p1-0");
  h.final_read(0, 2, "p0-2");
  h.final_read(1, 0, "p0-1");
}

std::vector<finding> of_kind(const check_result& r, finding_kind k) {
  std::vector<finding> out;
  for (const auto& f : r.findings)
    if (f.kind == k) out.push_back(f);
  return out;
}

TEST(ChaosValues, RoundTripAndRejectOtherText) {
  EXPECT_EQ(make_value(2, 41), "p2-41");
  auto id = parse_value("p2-41");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->producer, 2);
  EXPECT_EQ(id->seq, 41);
  for (const char* bad : {"", "p", "p1", "p1-", "q1-2", "p-2", "p1-2x", "p1--2", "value-1"})
    EXPECT_FALSE(parse_value(bad)) << bad;
}

TEST(ChaosChecker, ACleanHistoryHasNoFindings) {
  history h;
  clean_writes(h);
  // A write that failed and one whose outcome is unknown may be absent; one
  // whose outcome is unknown may also be present.
  h.send("p1-1", 1);
  h.fail("p1-1", "Local: Message timed out (not persisted)");
  h.send("p1-2", 1);
  h.indeterminate("p1-2", "Local: Message timed out");
  h.send("p1-3", 1);  // never resolved
  // A rebalance lets the consumer read partition 0 again from the start.
  h.rebalance(0, 2, {0});
  h.read(0, 2, 0, 0, "p0-0");
  final_read_of_clean(h);
  h.final_read(1, 1, "p1-3");

  const auto r = check(h.events());
  EXPECT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(r.counts.sent, 7);
  EXPECT_EQ(r.counts.acked, 4);
  EXPECT_EQ(r.counts.failed, 1);
  EXPECT_EQ(r.counts.indeterminate, 2);
  EXPECT_EQ(r.counts.unacked_present, 1);
  EXPECT_EQ(r.counts.consumer_reads, 5);
  EXPECT_EQ(r.counts.rebalances, 2);
  EXPECT_EQ(r.counts.final_read, 5);
  EXPECT_NE(r.report().find("no findings"), std::string::npos);
}

TEST(ChaosChecker, AnAcknowledgedWriteMissingFromTheFinalReadIsLost) {
  history h;
  clean_writes(h);
  h.final_read(0, 0, "p0-0");
  h.final_read(0, 1, "p1-0");
  h.final_read(1, 0, "p0-1");  // p0-2, acknowledged at 0/2 and read by consumer 0, is gone
  const auto r = check(h.events());
  auto lost = of_kind(r, finding_kind::lost);
  ASSERT_EQ(lost.size(), 1u) << r.report();
  EXPECT_EQ(lost[0].partition, 0);
  EXPECT_EQ(lost[0].offset, 2);
  EXPECT_NE(lost[0].detail.find("p0-2"), std::string::npos) << lost[0].detail;
  EXPECT_NE(lost[0].detail.find("read earlier"), std::string::npos) << lost[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

TEST(ChaosChecker, AValueAtTwoOffsetsIsADuplicate) {
  history h;
  clean_writes(h);
  final_read_of_clean(h);
  h.final_read(0, 3, "p1-0");  // written again after p0-2
  const auto r = check(h.events());
  auto dup = of_kind(r, finding_kind::duplicate);
  ASSERT_EQ(dup.size(), 1u) << r.report();
  EXPECT_EQ(dup[0].partition, 0);
  EXPECT_EQ(dup[0].offset, 1);
  EXPECT_NE(dup[0].detail.find("partition 0 offset 3"), std::string::npos) << dup[0].detail;
  // p1-0 at offset 3 also comes after nothing of p1's later: no order finding.
  EXPECT_TRUE(of_kind(r, finding_kind::out_of_order).empty()) << r.report();
}

TEST(ChaosChecker, ADuplicatesBatchesSayWhetherOneWriteWasAppendedTwiceOrTheClientWroteItAgain) {
  auto duplicate_detail = [](batch_origin second) {
    history h;
    h.send("p0-0", 0);
    h.ack("p0-0", 0, 0);
    h.final_read(0, 0, "p0-0", {7, 0, 12, 3});
    h.final_read(0, 1, "p0-0", second);
    const auto r = check(h.events());
    auto dup = of_kind(r, finding_kind::duplicate);
    EXPECT_EQ(dup.size(), 1u) << r.report();
    return dup.empty() ? std::string() : dup[0].detail;
  };
  const std::string same = duplicate_detail({7, 0, 12, 4});
  EXPECT_NE(same.find("producer id 7 epoch 0 sequence 12, leader epoch 3"), std::string::npos) << same;
  EXPECT_NE(same.find("one write appended more than once"), std::string::npos) << same;
  const std::string resent = duplicate_detail({7, 1, 0, 4});
  EXPECT_NE(resent.find("the client sent the value again"), std::string::npos) << resent;
}

TEST(ChaosChecker, AProducersValuesOutOfSequenceInAPartitionAreOutOfOrder) {
  history h;
  for (const auto& v : {"p0-0", "p0-1", "p0-2", "p1-0"}) {
    h.send(v, 0);
    h.indeterminate(v, "timed out");
  }
  h.final_read(0, 0, "p0-0");
  h.final_read(0, 1, "p0-2");
  h.final_read(0, 2, "p1-0");  // another producer's value between them does not matter
  h.final_read(0, 3, "p0-1");
  const auto r = check(h.events());
  auto order = of_kind(r, finding_kind::out_of_order);
  ASSERT_EQ(order.size(), 1u) << r.report();
  EXPECT_EQ(order[0].partition, 0);
  EXPECT_EQ(order[0].offset, 3);
  EXPECT_NE(order[0].detail.find("p0-1 at offset 3 comes after p0-2 at offset 1"), std::string::npos)
      << order[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

TEST(ChaosChecker, OneValueInSeveralPartitionsIsNotOutOfOrderAcrossThem) {
  history h;
  for (const auto& [v, p] : std::vector<std::pair<std::string, int32_t>>{{"p0-0", 1}, {"p0-1", 0}, {"p0-2", 1}}) {
    h.send(v, p);
    h.ack(v, p, v == "p0-2" ? 1 : 0);
  }
  h.final_read(0, 0, "p0-1");
  h.final_read(1, 0, "p0-0");
  h.final_read(1, 1, "p0-2");
  const auto r = check(h.events());
  EXPECT_TRUE(r.ok()) << r.report();
}

TEST(ChaosChecker, AnOffsetReadWithTwoValuesIsInconsistent) {
  history h;
  clean_writes(h);
  // The final read has p1-0 at offset 1 where consumer 0 read it; put
  // another value there in a second consumer's read.
  h.send("p1-1", 0);
  h.indeterminate("p1-1", "timed out");
  h.rebalance(1, 1, {0});
  h.read(1, 1, 0, 1, "p1-1");
  final_read_of_clean(h);
  const auto r = check(h.events());
  auto bad = of_kind(r, finding_kind::inconsistent_offset);
  ASSERT_EQ(bad.size(), 1u) << r.report();
  EXPECT_EQ(bad[0].partition, 0);
  EXPECT_EQ(bad[0].offset, 1);
  EXPECT_NE(bad[0].detail.find("p1-0"), std::string::npos) << bad[0].detail;
  EXPECT_NE(bad[0].detail.find("p1-1 (consumer 1 gen 1"), std::string::npos) << bad[0].detail;
}

TEST(ChaosChecker, AnAcknowledgedOffsetHoldingAnotherValueIsInconsistent) {
  history h;
  h.send("p0-0", 0);
  h.ack("p0-0", 0, 0);
  h.send("p1-0", 0);
  h.ack("p1-0", 0, 0);  // the same offset acknowledged twice
  h.send("p0-1", 0);
  h.ack("p0-1", 0, 5);  // acknowledged at 5, kept at 2
  h.final_read(0, 0, "p0-0");
  h.final_read(0, 1, "p1-0");
  h.final_read(0, 2, "p0-1");
  const auto r = check(h.events());
  auto bad = of_kind(r, finding_kind::inconsistent_offset);
  ASSERT_EQ(bad.size(), 2u) << r.report();
  // 0/0 holds p0-0 and p1-0's ack (p1-0, read at 1, is not reported again);
  // p0-1 was acknowledged at 5 and read at 2.
  EXPECT_EQ(bad[0].offset, 0);
  EXPECT_NE(bad[0].detail.find("holds 2 values"), std::string::npos) << bad[0].detail;
  int acked_elsewhere = 0;
  for (const auto& f : bad)
    if (f.detail.find("acknowledged at partition 0 offset 5") != std::string::npos) ++acked_elsewhere;
  EXPECT_EQ(acked_elsewhere, 1) << r.report();
  EXPECT_TRUE(of_kind(r, finding_kind::lost).empty()) << r.report();
}

TEST(ChaosChecker, AConsumerReadingBackWithinAGenerationGoesBackwards) {
  history h;
  clean_writes(h);
  final_read_of_clean(h);
  h.read(0, 1, 0, 1, "p1-0");  // generation 1 had read 0/2 already
  const auto r = check(h.events());
  auto back = of_kind(r, finding_kind::position_backwards);
  ASSERT_EQ(back.size(), 1u) << r.report();
  EXPECT_EQ(back[0].partition, 0);
  EXPECT_EQ(back[0].offset, 1);
  EXPECT_NE(back[0].detail.find("consumer 0 in generation 1 read p1-0 at offset 1"), std::string::npos)
      << back[0].detail;
  EXPECT_NE(back[0].detail.find("after p0-2 at offset 2"), std::string::npos) << back[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

TEST(ChaosChecker, ReadingTheSameOffsetTwiceWithinAGenerationGoesBackwards) {
  history h;
  clean_writes(h);
  final_read_of_clean(h);
  h.read(0, 1, 1, 0, "p0-1");
  const auto r = check(h.events());
  EXPECT_EQ(of_kind(r, finding_kind::position_backwards).size(), 1u) << r.report();
}

TEST(ChaosChecker, AValueNoProducerSentIsUnknown) {
  history h;
  clean_writes(h);
  final_read_of_clean(h);
  h.final_read(1, 1, "garbage");
  const auto r = check(h.events());
  auto unknown = of_kind(r, finding_kind::unknown_value);
  ASSERT_EQ(unknown.size(), 1u) << r.report();
  EXPECT_EQ(unknown[0].partition, 1);
  EXPECT_EQ(unknown[0].offset, 1);
}

TEST(ChaosChecker, TheReportListsAtMostSoManyFindingsOfAKind) {
  history h;
  for (int i = 0; i < 30; ++i) {
    h.send(make_value(0, i), 0);
    h.ack(make_value(0, i), 0, i);
  }
  const auto r = check(h.events());
  EXPECT_EQ(r.findings.size(), 30u);
  EXPECT_EQ(r.by_kind().at(finding_kind::lost), 30);
  const std::string text = r.report(5);
  EXPECT_NE(text.find("30 findings: 30 lost;"), std::string::npos) << text;
  EXPECT_NE(text.find("... and 25 more lost"), std::string::npos) << text;
}

TEST(ChaosChecker, AResetOnAnOutOfRangeAnswerAtAValidPositionExplainsReadingBack) {
  history h;
  clean_writes(h);
  final_read_of_clean(h);
  // Consumer 0 had read partition 0 up to offset 2; a broker that did not
  // have offset 3 yet answered out of range; the final read holds offset 3.
  h.send("p1-1", 0);
  h.ack("p1-1", 0, 3);
  h.final_read(0, 3, "p1-1");
  h.client_reset(0, 0, 3, "broker 3 answered OFFSET_OUT_OF_RANGE");
  h.read(0, 1, 0, 0, "p0-0");
  const auto r = check(h.events());
  EXPECT_TRUE(r.findings.empty()) << r.report();
  EXPECT_EQ(r.counts.client_resets, 1);
  ASSERT_EQ(r.explained_resets.size(), 1u);
  EXPECT_NE(r.explained_resets[0].find("reset from offset 3"), std::string::npos) << r.explained_resets[0];
  EXPECT_NE(r.report().find("1 consumer resets explained"), std::string::npos) << r.report();
  // The reset explains one read back, not the next.
  h.read(0, 1, 0, 0, "p0-0");
  EXPECT_EQ(of_kind(check(h.events()), finding_kind::position_backwards).size(), 1u);
}

TEST(ChaosChecker, AResetToAPositionTheLogNeverHadIsNoExcuse) {
  history h;
  clean_writes(h);
  final_read_of_clean(h);
  // The final read of partition 0 ends at offset 2: offset 3 was never
  // there, so the out-of-range answer was right and reading back is not
  // explained by it.
  h.client_reset(0, 0, 3, "broker 1 answered OFFSET_OUT_OF_RANGE");
  h.read(0, 1, 0, 0, "p0-0");
  const auto r = check(h.events());
  EXPECT_EQ(of_kind(r, finding_kind::position_backwards).size(), 1u) << r.report();
  EXPECT_EQ(r.counts.client_resets, 0);
}

TEST(ChaosChecker, AResetBeforeTheReadsItWouldExplainIsNoExcuse) {
  history h;
  h.rebalance(0, 1, {0});
  for (int i = 0; i < 4; ++i) {
    h.send(make_value(0, i), 0);
    h.ack(make_value(0, i), 0, i);
    h.final_read(0, i, make_value(0, i));
  }
  h.read(0, 1, 0, 0, "p0-0");
  h.client_reset(0, 0, 1, "broker 2 answered OFFSET_OUT_OF_RANGE");
  h.read(0, 1, 0, 1, "p0-1");
  h.read(0, 1, 0, 2, "p0-2");
  h.read(0, 1, 0, 1, "p0-1");  // the reset was from offset 1, below what was read since
  const auto r = check(h.events());
  EXPECT_EQ(of_kind(r, finding_kind::position_backwards).size(), 1u) << r.report();
}

TEST(ChaosChecker, LibrdkafkasOffsetResetLineIsParsed) {
  auto r = parse_offset_reset(
      "[thrd:main]: chaos [1]: offset reset (at offset 4871, broker 3) to BEGINNING: fetch failed due to requested "
      "offset not available on the broker: Broker: Offset out of range");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->partition, 1);
  EXPECT_EQ(r->offset, 4871);
  EXPECT_EQ(r->broker, 3);
  EXPECT_FALSE(parse_offset_reset("[thrd:main]: chaos [1]: offset reset (at offset 4871, broker 3) to BEGINNING: "
                                  "fetch failed: Broker: Not leader for partition"));
  EXPECT_FALSE(parse_offset_reset("chaos [x]: offset reset (at offset 1, broker 3): Offset out of range"));
  EXPECT_FALSE(parse_offset_reset("Offset out of range"));
}

TEST(ChaosChecker, LibrdkafkasDrainAndBumpLinesAreParsed) {
  // As librdkafka 2.0 wrote them in seed 30's hour.
  auto reason = parse_epoch_bump_reason(
      "[thrd:sasl_ssl://10.219.97.13:9092/bootstrap]: Beginning partition drain in state Assigned for "
      "PID{Id:0,Epoch:2} epoch bump for 3 partition(s) with in-flight requests: skipped sequence numbers");
  ASSERT_TRUE(reason);
  EXPECT_EQ(*reason, "skipped sequence numbers");
  EXPECT_FALSE(parse_epoch_bump_reason(
      "[thrd:x]: chaos [5] beginning partition drain: wait for outstanding requests to finish before producing"));
  auto bumped = parse_epoch_bumped(
      "[thrd:sasl_ssl://10.219.97.11:9092/bootstrap]: All partitions drained, bumped epoch to PID{Id:1001,Epoch:3}");
  ASSERT_TRUE(bumped);
  EXPECT_EQ(bumped->producer_id, 1001);
  EXPECT_EQ(bumped->epoch, 3);
  EXPECT_FALSE(parse_epoch_bumped("All partitions drained, bumped epoch to PID{Id:1,Epoch:}"));
  EXPECT_FALSE(parse_epoch_bumped("All partitions drained, bumped epoch to PID{Id:x,Epoch:3}"));
  EXPECT_FALSE(parse_epoch_bumped("chaos [0] changed PID{Id:0,Epoch:2} -> PID{Id:0,Epoch:3}"));
}

// Producer 0 (producer id 7) writes p0-0..p0-3 to partition 0 under epoch
// 2; p0-1 and p0-2 are refused (the client says not written), the client
// bumps to epoch 3 and writes them again after p0-3.
std::vector<event> resent_after_bump(int16_t second_epoch, const std::string& reason, bool bump_logged = true,
                                     int16_t bumped_to = 3) {
  history h;
  for (const auto& v : {"p0-0", "p0-1", "p0-2", "p0-3"}) h.send(v, 0);
  h.ack("p0-0", 0, 0);
  h.ack("p0-3", 0, 3);
  if (bump_logged) h.epoch_bump(7, bumped_to, reason);
  h.ack("p0-1", 0, 4);
  h.ack("p0-2", 0, 5);
  h.final_read(0, 0, "p0-0", {7, 2, 10, 5});
  h.final_read(0, 1, "p0-1", {7, 2, 11, 5});
  h.final_read(0, 2, "p0-2", {7, 2, 12, 5});
  h.final_read(0, 3, "p0-3", {7, 2, 13, 6});
  h.final_read(0, 4, "p0-1", {7, second_epoch, 0, 6});
  h.final_read(0, 5, "p0-2", {7, second_epoch, 1, 6});
  return h.events();
}

TEST(ChaosChecker, ADuplicateTheClientWroteAgainAfterItsEpochBumpIsExplained) {
  const auto r = check(resent_after_bump(3, "skipped sequence numbers"));
  EXPECT_TRUE(r.ok()) << r.report();
  ASSERT_EQ(r.explained_duplicates.size(), 2u) << r.report();
  EXPECT_EQ(r.counts.client_resends, 2);
  EXPECT_NE(r.explained_duplicates[0].find("bumped producer id 7 to epoch 3"), std::string::npos)
      << r.explained_duplicates[0];
  EXPECT_NE(r.report().find("2 duplicates explained by the client's epoch bump"), std::string::npos) << r.report();
}

TEST(ChaosChecker, ADuplicateAcrossEpochsWithoutTheClientsBumpForASequenceGapIsAFinding) {
  // No bump logged.
  auto r = check(resent_after_bump(3, "skipped sequence numbers", false));
  EXPECT_EQ(of_kind(r, finding_kind::duplicate).size(), 2u) << r.report();
  EXPECT_EQ(of_kind(r, finding_kind::out_of_order).size(), 1u) << r.report();
  EXPECT_TRUE(r.explained_duplicates.empty());
  // A bump for another reason (messages timed out are failed, never sent again).
  r = check(resent_after_bump(3, "message timeout"));
  EXPECT_EQ(of_kind(r, finding_kind::duplicate).size(), 2u) << r.report();
  // The copies under one epoch: the broker appended one write twice, or
  // failed to recognise a retry.
  r = check(resent_after_bump(2, "skipped sequence numbers"));
  EXPECT_EQ(of_kind(r, finding_kind::duplicate).size(), 2u) << r.report();
  // A bump to the epoch the first copies were already written under.
  r = check(resent_after_bump(3, "skipped sequence numbers", true, 2));
  EXPECT_EQ(of_kind(r, finding_kind::duplicate).size(), 2u) << r.report();
}

// Transactions: producer 5 writes t5-0 (committed) and t5-1 (aborted) over
// two partitions; the markers follow each; a read_committed consumer reads
// the committed values only.
void transactions(history& h) {
  h.rebalance(3, 1, {0, 1});
  h.send("p5-0", 0, "t5-0");
  h.send("p5-1", 1, "t5-0");
  h.ack("p5-0", 0, 0);
  h.ack("p5-1", 1, 0);
  h.txn_end("t5-0", txn_outcome::committed);
  h.send("p5-2", 0, "t5-1");
  h.send("p5-3", 1, "t5-1");
  h.ack("p5-2", 0, 2);
  h.ack("p5-3", 1, 2);
  h.txn_end("t5-1", txn_outcome::aborted);
  h.read(3, 1, 0, 0, "p5-0", /*read_committed=*/true);
  h.read(3, 1, 1, 0, "p5-1", true);
}

void final_read_of_transactions(history& h, txn_status first = txn_status::committed,
                                txn_status second = txn_status::aborted) {
  h.final_read(0, 0, "p5-0", {}, first);
  h.final_read(1, 0, "p5-1", {}, first);
  h.final_read(0, 2, "p5-2", {}, second);
  h.final_read(1, 2, "p5-3", {}, second);
}

TEST(ChaosChecker, CommittedAndAbortedTransactionsAsToldHaveNoFindings) {
  history h;
  transactions(h);
  // A transaction of unknown outcome may have gone either way, wholly.
  h.send("p5-4", 0, "t5-2");
  h.send("p5-5", 1, "t5-2");
  h.txn_end("t5-2", txn_outcome::unknown, "Local: Timed out");
  final_read_of_transactions(h);
  h.final_read(0, 4, "p5-4", {}, txn_status::committed);
  h.final_read(1, 4, "p5-5", {}, txn_status::committed);
  const auto r = check(h.events());
  EXPECT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(r.counts.txn_committed, 1);
  EXPECT_EQ(r.counts.txn_aborted, 1);
  EXPECT_EQ(r.counts.txn_unknown, 1);
  EXPECT_EQ(r.counts.final_aborted, 2);
  EXPECT_NE(r.report().find("transactions: 1 committed, 1 aborted, 1 of unknown outcome"), std::string::npos)
      << r.report();
}

TEST(ChaosChecker, AReadCommittedConsumerReadingAnAbortedValueIsAnAbortedRead) {
  history h;
  transactions(h);
  h.read(3, 1, 0, 2, "p5-2", true);
  // A read_uncommitted consumer may read it.
  h.read(4, 1, 1, 2, "p5-3");
  final_read_of_transactions(h);
  const auto r = check(h.events());
  auto found = of_kind(r, finding_kind::aborted_read);
  ASSERT_EQ(found.size(), 1u) << r.report();
  EXPECT_EQ(found[0].partition, 0);
  EXPECT_EQ(found[0].offset, 2);
  EXPECT_NE(found[0].detail.find("the final read has it aborted"), std::string::npos) << found[0].detail;
  EXPECT_NE(found[0].detail.find("its transaction t5-1 was aborted"), std::string::npos) << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

TEST(ChaosChecker, AValueDecidedOtherwiseThanItsProducerWasToldIsAWrongOutcome) {
  history h;
  transactions(h);
  final_read_of_transactions(h, txn_status::committed, txn_status::committed);
  const auto r = check(h.events());
  auto found = of_kind(r, finding_kind::wrong_outcome);
  ASSERT_EQ(found.size(), 2u) << r.report();
  EXPECT_NE(found[0].detail.find("which its producer aborted, is committed"), std::string::npos) << found[0].detail;

  history committed_lost;
  transactions(committed_lost);
  final_read_of_transactions(committed_lost, txn_status::aborted, txn_status::aborted);
  const auto r2 = check(committed_lost.events());
  auto found2 = of_kind(r2, finding_kind::wrong_outcome);
  ASSERT_EQ(found2.size(), 2u) << r2.report();
  EXPECT_NE(found2[0].detail.find("which its producer committed, is aborted"), std::string::npos) << found2[0].detail;
  // ... and a read_committed consumer read them.
  EXPECT_EQ(of_kind(r2, finding_kind::aborted_read).size(), 2u) << r2.report();
}

TEST(ChaosChecker, ATransactionCommittedInPartIsPartial) {
  history h;
  transactions(h);
  h.send("p5-4", 0, "t5-2");
  h.send("p5-5", 1, "t5-2");
  h.txn_end("t5-2", txn_outcome::unknown, "Local: Timed out");
  final_read_of_transactions(h);
  h.final_read(0, 4, "p5-4", {}, txn_status::committed);
  h.final_read(1, 4, "p5-5", {}, txn_status::aborted);
  const auto r = check(h.events());
  auto found = of_kind(r, finding_kind::partial_transaction);
  ASSERT_EQ(found.size(), 1u) << r.report();
  EXPECT_EQ(found[0].partition, 0);
  EXPECT_EQ(found[0].offset, 4);
  EXPECT_NE(found[0].detail.find("p5-4 committed; p5-5 aborted;"), std::string::npos) << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

TEST(ChaosChecker, AValueOfACommittedTransactionMissingFromTheFinalReadIsLost) {
  history h;
  h.send("p5-0", 0, "t5-0");
  h.send("p5-1", 1, "t5-0");  // no delivery report came back for either
  h.txn_end("t5-0", txn_outcome::committed);
  h.final_read(0, 0, "p5-0", {}, txn_status::committed);
  const auto r = check(h.events());
  auto lost = of_kind(r, finding_kind::lost);
  ASSERT_EQ(lost.size(), 1u) << r.report();
  EXPECT_EQ(lost[0].partition, 1);
  EXPECT_NE(lost[0].detail.find("p5-1 of transaction t5-0"), std::string::npos) << lost[0].detail;
  // Half of it committed: partial too.
  EXPECT_EQ(of_kind(r, finding_kind::partial_transaction).size(), 1u) << r.report();
}

// Two members of a group share partition 0: between them they read
// offsets 0-3, one of them re-reading after a rebalance. A record below
// the highest offset the group read that none of them read was skipped.
TEST(ChaosChecker, ARecordNoMemberOfAGroupReadBelowWhatItReadWasSkipped) {
  auto run = [](bool skip_one) {
    history h;
    h.member(0, "g", false);
    h.member(1, "g", false);
    h.member(2, "other", false);
    for (int64_t o = 0; o < 4; ++o) {
      const std::string value = make_value(0, o);
      h.send(value, 0);
      h.ack(value, 0, o);
    }
    h.rebalance(0, 1, {0});
    h.read(0, 1, 0, 0, "p0-0");
    h.read(0, 1, 0, 1, "p0-1");
    h.rebalance(1, 1, {0});
    h.read(1, 1, 0, 1, "p0-1");
    if (!skip_one) h.read(1, 1, 0, 2, "p0-2");
    h.read(1, 1, 0, 3, "p0-3");
    // Another group that read only the first record skipped nothing.
    h.rebalance(2, 1, {0});
    h.read(2, 1, 0, 0, "p0-0");
    for (int64_t o = 0; o < 4; ++o) h.final_read(0, o, make_value(0, o));
    return check(h.events());
  };
  const auto clean = run(false);
  EXPECT_TRUE(clean.ok()) << clean.report();
  const auto r = run(true);
  auto found = of_kind(r, finding_kind::skipped);
  ASSERT_EQ(found.size(), 1u) << r.report();
  EXPECT_EQ(found[0].partition, 0);
  EXPECT_EQ(found[0].offset, 2);
  EXPECT_NE(found[0].detail.find("p0-2"), std::string::npos) << found[0].detail;
  EXPECT_NE(found[0].detail.find("group g, which read the partition up to offset 3"), std::string::npos)
      << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

// A read_committed group skips what the markers abort, not what they commit:
// its member read p5-0 (offset 0) and then p5-5 (offset 6); between them
// p5-2 is aborted and p5-4, committed, is read only when read_p5_4.
check_result read_committed_group(bool read_p5_4) {
  history h;
  h.member(3, "committed", true);
  transactions(h);
  for (const auto& [value, txn, offset] : {std::tuple{"p5-4", "t5-2", 4}, std::tuple{"p5-5", "t5-3", 6}}) {
    h.send(value, 0, txn);
    h.ack(value, 0, offset);
    h.txn_end(txn, txn_outcome::committed);
  }
  if (read_p5_4) h.read(3, 1, 0, 4, "p5-4", true);
  h.read(3, 1, 0, 6, "p5-5", true);
  final_read_of_transactions(h);
  h.final_read(0, 4, "p5-4", {}, txn_status::committed);
  h.final_read(0, 6, "p5-5", {}, txn_status::committed);
  return check(h.events());
}

TEST(ChaosChecker, AReadCommittedGroupSkipsOnlyAbortedRecords) {
  const auto clean = read_committed_group(true);
  EXPECT_TRUE(clean.ok()) << clean.report();
  const auto r = read_committed_group(false);
  auto found = of_kind(r, finding_kind::skipped);
  ASSERT_EQ(found.size(), 1u) << r.report();
  EXPECT_EQ(found[0].offset, 4);
  EXPECT_EQ(r.findings.size(), 1u) << r.report();
}

}  // namespace
}  // namespace hw::chaos
