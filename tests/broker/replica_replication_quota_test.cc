// Replication throttles: which partitions a *.replication.throttled.replicas
// value names on a broker, and the byte rate measured as Kafka's SimpleRate does.

#include <gtest/gtest.h>

#include "broker/replica/replication_quota.h"

namespace hw::broker {
namespace {

TEST(ReplicationQuota, ThrottledReplicasNameThisBrokersPartitions) {
  EXPECT_TRUE(parse_throttled_replicas("*", 4).all);
  EXPECT_TRUE(parse_throttled_replicas(" * ", 4).contains(17));
  auto mine = parse_throttled_replicas("0:1,0:4, 1:2 ,2:4,", 4);
  EXPECT_FALSE(mine.all);
  EXPECT_EQ(mine.partitions, (std::set<int32_t>{0, 2}));
  EXPECT_TRUE(parse_throttled_replicas("0:1,1:2", 4).empty());
  EXPECT_TRUE(parse_throttled_replicas("", 4).empty());
}

TEST(ReplicationQuota, OnlyListedPartitionsAreThrottled) {
  replication_quota q;
  q.set_throttled({{"a", parse_throttled_replicas("1:4", 4)}, {"b", parse_throttled_replicas("*", 4)}});
  EXPECT_TRUE(q.throttled({"a", 1}));
  EXPECT_FALSE(q.throttled({"a", 0}));
  EXPECT_TRUE(q.throttled({"b", 9}));
  EXPECT_FALSE(q.throttled({"c", 1}));
  q.set_throttled({});
  EXPECT_FALSE(q.throttled({"b", 9}));
}

TEST(ReplicationQuota, TheRateIsMeasuredOverAtLeastOneWindow) {
  replication_quota q(11, 1000);
  EXPECT_FALSE(q.exceeded(0)) << "no bound, never exceeded";
  q.set_bound(1000);
  q.record(800, 0);
  // A first burst counts over one whole window: 800 B/s.
  EXPECT_DOUBLE_EQ(q.rate(0), 800.0);
  EXPECT_FALSE(q.exceeded(0));
  q.record(400, 500);
  EXPECT_DOUBLE_EQ(q.rate(500), 1200.0);
  EXPECT_TRUE(q.exceeded(500));
  // Time passes with nothing moved: 1200 B over 1.5 s is under the bound.
  EXPECT_DOUBLE_EQ(q.rate(1500), 800.0);
  EXPECT_FALSE(q.exceeded(1500));
  // Once every window has expired nothing counts.
  EXPECT_DOUBLE_EQ(q.rate(20'000), 0.0);
  q.set_bound(std::nullopt);
  q.record(1'000'000, 20'000);
  EXPECT_FALSE(q.exceeded(20'000));
}

TEST(ReplicationQuota, ASteadyFlowIsMeasuredAtItsRate) {
  replication_quota q(11, 1000);
  q.set_bound(1'000'000);
  // 200 KB every 100 ms: 2 MB/s once the windows are full.
  for (int64_t t = 0; t < 30'000; t += 100) q.record(200'000, t);
  EXPECT_NEAR(q.rate(30'000), 2'000'000.0, 200'000.0);
  EXPECT_TRUE(q.exceeded(30'000));
}

}  // namespace
}  // namespace hw::broker
