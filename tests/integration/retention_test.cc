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

  // Expected below clean_end: per key, the last record produced there.
  std::map<std::string, rd_record> expected;
  for (const auto& r : produced)
    if (r.offset < clean_end) expected[r.key] = r;
  auto read = read_from_beginning(broker.port(), "compacted", static_cast<int64_t>(produced.size()));
  ASSERT_FALSE(read.empty());
  EXPECT_EQ(read.back().offset, produced.back().offset);
  std::map<std::string, int> seen;
  for (const auto& r : read) {
    if (r.offset >= clean_end) continue;
    ++seen[r.key];
    ASSERT_TRUE(expected.count(r.key)) << r.key;
    EXPECT_EQ(r.offset, expected[r.key].offset) << r.key;
    EXPECT_EQ(r.value, expected[r.key].value) << r.key;
  }
  EXPECT_EQ(seen.size(), expected.size());
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1) << key;
  // The uncleaned tail is read as written.
  size_t tail = 0;
  for (const auto& r : read) tail += r.offset >= clean_end;
  EXPECT_EQ(tail, static_cast<size_t>(produced.size() - clean_end));
}

}  // namespace
}  // namespace hw::testing
