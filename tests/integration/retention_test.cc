// Background storage work seen from outside: a topic created with
// retention.ms=1000 loses its old segments on the broker's retention
// schedule (log.retention.check.interval.ms=500), the log start offset
// moves (ListOffsets earliest) and the broker log says why in Kafka's
// words; a compacted topic is cleaned by the log cleaner until a consumer
// reading from the beginning sees one record per key, the latest, in the
// cleaned part.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "broker_process.h"
#include "rdkafka_support.h"

namespace hw::testing {
namespace {

using namespace rdk;

TEST(RetentionIT, OldSegmentsAreDeletedAndTheLogStartMoves) {
  broker_process broker;
  ASSERT_TRUE(broker.start({"--override", "log.retention.check.interval.ms=500", "--override",
                            "log.segment.delete.delay.ms=200"}))
      << broker.log();
  ASSERT_EQ(create_topic(broker.port(), "retained", {{"retention.ms", "1000"}, {"segment.bytes", "1048576"}}), "")
      << broker.log();
  std::vector<std::pair<std::string, std::string>> messages;
  for (int i = 0; i < 30; ++i) messages.emplace_back("k" + std::to_string(i), std::string(100'000, 'r'));
  auto produced = produce_all(broker.port(), "retained", messages);
  ASSERT_EQ(produced.back().offset, 29) << broker.log();

  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_CONSUMER, rd_conf(broker.port()), err, sizeof err);
  ASSERT_NE(h.rk, nullptr) << err;
  std::optional<std::pair<int64_t, int64_t>> w;
  EXPECT_TRUE(wait_until(
      [&] {
        w = watermarks(h.rk, "retained");
        return w && w->first == 30;
      },
      30s))
      << (w ? std::to_string(w->first) + ".." + std::to_string(w->second) : "no answer") << "\n" << broker.log();

  const std::string log = broker.log();
  EXPECT_NE(log.find("[UnifiedLog partition=retained-0, dir="), std::string::npos) << log;
  EXPECT_NE(log.find("Incremented log start offset to 30 due to segment deletion"), std::string::npos) << log;
  EXPECT_TRUE(std::regex_search(log, std::regex("Deleting segment LogSegment\\(baseOffset=0, .*\\) due to log "
                                                "retention time 1000ms breach based on the largest record timestamp "
                                                "in the segment")))
      << log;
  EXPECT_NE(log.find("[LocalLog partition=retained-0, dir="), std::string::npos) << log;
  EXPECT_NE(log.find("Rolled new log segment at offset 30 in "), std::string::npos) << log;
}

TEST(RetentionIT, CompactedTopicKeepsTheLatestValuePerKey) {
  broker_process broker;
  ASSERT_TRUE(broker.start({"--override", "log.cleaner.backoff.ms=100"})) << broker.log();
  ASSERT_EQ(create_topic(broker.port(), "compacted",
                         {{"cleanup.policy", "compact"},
                          {"segment.bytes", "1048576"},
                          {"min.cleanable.dirty.ratio", "0.01"}}),
            "")
      << broker.log();
  // Ten keys written eight times, 40 kB each: about three segments.
  std::vector<std::pair<std::string, std::string>> messages;
  for (int round = 0; round < 8; ++round)
    for (int k = 0; k < 10; ++k)
      messages.emplace_back("key" + std::to_string(k), std::to_string(round) + std::string(40'000, 'c'));
  auto produced = produce_all(broker.port(), "compacted", messages);
  ASSERT_EQ(produced.back().offset, static_cast<int64_t>(messages.size()) - 1) << broker.log();

  // The cleaner's line names the end of the cleaned section.
  const std::regex cleaned("cleaned log compacted-0 \\(dirty section = \\[\\d+, (\\d+)\\]\\)");
  std::smatch m;
  std::string log;
  ASSERT_TRUE(wait_until(
      [&] {
        log = broker.log();
        return std::regex_search(log, m, cleaned);
      },
      60s))
      << log;
  EXPECT_NE(log.find("Cleaner 0: Beginning cleaning of log compacted-0"), std::string::npos) << log;
  const int64_t clean_end = std::stoll(m[1].str());
  ASSERT_GT(clean_end, 10);

  // The cleaner may run again while the test reads (a later pass cleans
  // further), so the read is checked against what compaction guarantees
  // whatever the passes: every record read is the one produced at its
  // offset; the latest record of every key survives; below the end of the
  // section cleaned before the read, each key appears at most once.
  std::map<int64_t, rd_record> by_offset;
  std::map<std::string, int64_t> latest;
  for (const auto& r : produced) {
    by_offset[r.offset] = r;
    latest[r.key] = r.offset;
  }
  auto read = read_from_beginning(broker.port(), "compacted", static_cast<int64_t>(produced.size()));
  ASSERT_FALSE(read.empty());
  EXPECT_EQ(read.back().offset, produced.back().offset);
  std::map<std::string, int> below_clean_end;
  std::set<int64_t> offsets_read;
  int64_t previous = -1;
  for (const auto& r : read) {
    ASSERT_GT(r.offset, previous);
    previous = r.offset;
    offsets_read.insert(r.offset);
    ASSERT_TRUE(by_offset.count(r.offset)) << r.offset;
    EXPECT_EQ(r.key, by_offset[r.offset].key) << r.offset;
    EXPECT_EQ(r.value, by_offset[r.offset].value) << r.offset;
    if (r.offset < clean_end) ++below_clean_end[r.key];
  }
  for (const auto& [key, offset] : latest) EXPECT_TRUE(offsets_read.count(offset)) << key << " lost its latest value";
  for (const auto& [key, n] : below_clean_end) EXPECT_EQ(n, 1) << key << " appears twice in the cleaned section";
  // Compaction removed something: 80 records, 10 keys.
  EXPECT_LT(read.size(), produced.size()) << broker.log();
}

}  // namespace
}  // namespace hw::testing
