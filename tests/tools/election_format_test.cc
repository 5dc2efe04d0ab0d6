// kafka-leader-election.sh's orders and lines: the request grouped as
// Kafka's builder groups a HashSet's partitions, and the response split
// into elected / not needed / failed, each printed in the iteration order
// of Kafka's HashMap and HashSets. The expected orders are what the JDK's
// collections gave for the same TopicPartitions.

#include <gtest/gtest.h>

#include "tools/commands/leader_election.h"

namespace hw::tools::election {
namespace {

std::string names(const std::vector<topic_partition>& partitions) {
  std::string out;
  for (const auto& tp : partitions) out += (out.empty() ? "" : ", ") + tp.str();
  return out;
}

TEST(ElectionFormat, HashSetOrders) {
  std::vector<topic_partition> added = {{"b", 1}, {"b", 0}};
  for (int p = 0; p < 14; ++p) added.push_back({"ord", p});
  for (int p = 0; p < 4; ++p) added.push_back({"alpha", p});
  added.push_back({"x", 0});
  // 21 partitions: the set grew from 16 to 32 buckets while they were added.
  EXPECT_EQ(names(hash_set_order(added)),
            "ord-1, ord-2, b-1, b-0, ord-0, ord-13, alpha-2, alpha-3, ord-11, alpha-0, ord-12, alpha-1, ord-9, "
            "ord-10, x-0, ord-7, ord-8, ord-5, ord-6, ord-3, ord-4");
}

TEST(ElectionFormat, RequestTopicsInSetOrder) {
  const auto topics = request_topics({{"ord", -1}, {"le", 7}, {"nope", 0}, {"alpha", 1}, {"le", 0}, {"ord", 3}});
  ASSERT_EQ(topics.size(), 4u);
  EXPECT_EQ(topics[0], (std::pair<std::string, std::vector<int32_t>>{"ord", {-1, 3}}));
  EXPECT_EQ(topics[1], (std::pair<std::string, std::vector<int32_t>>{"le", {7, 0}}));
  EXPECT_EQ(topics[2].first, "nope");
  EXPECT_EQ(topics[3].first, "alpha");
}

TEST(ElectionFormat, ReportLinesInKafkasOrders) {
  std::vector<partition_result> results;
  auto add = [&](const std::string& topic, int32_t p, int16_t code, std::optional<std::string> message = {}) {
    results.push_back({{topic, p}, code, std::move(message)});
  };
  const std::set<int> not_needed = {2, 6, 9, 13, 19};
  add("alpha", 0, 0);
  add("alpha", 1, 84);
  add("alpha", 2, 0);
  add("alpha", 3, 3, "No such topic as alpha");
  add("b", 0, 0);
  add("b", 1, 84);
  for (int p = 0; p < 20; ++p) add("ord", p, p == 4 ? 80 : not_needed.count(p) ? 84 : 0);
  add("zeta", 0, 3);
  const auto r = report("PREFERRED", results);
  ASSERT_EQ(r.lines.size(), 5u);
  EXPECT_EQ(r.lines[0],
            "Successfully completed leader election (PREFERRED) for partitions ord-1, b-0, ord-0, ord-17, ord-18, "
            "ord-15, ord-16, alpha-2, ord-14, alpha-0, ord-11, ord-12, ord-10, ord-7, ord-8, ord-5, ord-3");
  EXPECT_EQ(r.lines[1], "Valid replica already elected for partitions ord-2, b-1, ord-13, alpha-1, ord-9, ord-6, ord-19");
  // Failures: the broker's message, else the error's default one; an empty
  // message stays empty, as in Java.
  EXPECT_EQ(r.lines[2],
            "Error completing leader election (PREFERRED) for partition: zeta-0: "
            "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this "
            "topic-partition.");
  EXPECT_EQ(r.lines[3],
            "Error completing leader election (PREFERRED) for partition: alpha-3: "
            "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: No such topic as alpha");
  EXPECT_EQ(r.lines[4],
            "Error completing leader election (PREFERRED) for partition: ord-4: "
            "org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: The preferred leader was not "
            "available.");
  EXPECT_EQ(r.failed, 3u);
}

TEST(ElectionFormat, ExceptionTexts) {
  EXPECT_EQ(exception_text(84, std::nullopt),
            "org.apache.kafka.common.errors.ElectionNotNeededException: Leader election not needed for topic partition.");
  EXPECT_EQ(exception_text(83, std::string("")), "org.apache.kafka.common.errors.EligibleLeadersNotAvailableException: ");
  // A code the client does not know is an UnknownServerException.
  EXPECT_EQ(exception_text(9999, std::nullopt),
            "org.apache.kafka.common.errors.UnknownServerException: The server experienced an unexpected error when "
            "processing the request.");
}

TEST(ElectionFormat, NothingToPrint) {
  const auto r = report("UNCLEAN", {});
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(r.failed, 0u);
  // One partition answered twice: its first place, its last answer.
  const auto twice = report("UNCLEAN", {{{"u", 0}, 83, std::nullopt}, {{"u", 0}, 0, std::nullopt}});
  ASSERT_EQ(twice.lines.size(), 1u);
  EXPECT_EQ(twice.lines[0], "Successfully completed leader election (UNCLEAN) for partitions u-0");
}

}  // namespace
}  // namespace hw::tools::election
