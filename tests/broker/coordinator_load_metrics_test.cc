// load_metrics: the window behind partition-load-time-max/avg, and what it
// keeps (the newest 4096 loads of the last ten minutes, the newest always).
#include "broker/coordinator_log/load_metrics.h"

#include <gtest/gtest.h>

namespace hw::broker {
namespace {

TEST(CoordinatorLoadMetrics, NoLoadsNoTimes) {
  load_metrics m;
  EXPECT_FALSE(m.recent(1'000'000).has_value());
}

TEST(CoordinatorLoadMetrics, MaxAndMeanOverTheLoadsInTheWindow) {
  load_metrics m;
  m.record(10'000, 400);  // ends 60.001 s before the query: outside the default window
  m.record(20'000, 30);
  m.record(70'000, 10);
  auto t = m.recent(70'001);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 30);
  EXPECT_EQ(t->avg_ms, 20);
  // A wider window sees the older one too.
  t = m.recent(70'001, 120'000);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 400);
  EXPECT_DOUBLE_EQ(t->avg_ms, 440.0 / 3);
  EXPECT_FALSE(m.recent(200'000).has_value()) << "all too old for the default window";
}

TEST(CoordinatorLoadMetrics, KeepsTheNewest4096Loads) {
  load_metrics m;
  constexpr int64_t window = 1'000'000;  // wider than anything recorded
  // Ten slow loads first, then exactly max_kept fast ones, all within a minute.
  for (int i = 0; i < 10; ++i) m.record(1'000, 900);
  for (size_t i = 0; i < load_metrics::max_kept - 1; ++i) m.record(2'000, 1);
  auto t = m.recent(3'000, window);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 900) << "4095 fast loads leave one slow load in";
  m.record(2'000, 1);
  t = m.recent(3'000, window);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 1) << "the 4096 newest are all fast: the slow ones were dropped";
  EXPECT_EQ(t->avg_ms, 1);
}

TEST(CoordinatorLoadMetrics, DropsLoadsOlderThanTenMinutesButNeverTheNewest) {
  load_metrics m;
  constexpr int64_t window = 10'000'000;
  m.record(0, 500);
  m.record(load_metrics::kept_ms, 7);  // exactly ten minutes later: the first stays
  auto t = m.recent(load_metrics::kept_ms, window);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 500);
  m.record(load_metrics::kept_ms + 1, 3);  // now the first is older than ten minutes
  t = m.recent(load_metrics::kept_ms + 1, window);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 7);
  EXPECT_EQ(t->avg_ms, 5);
  // Much later, a single load is kept however old the previous ones are,
  // and it alone is what a wide window sees.
  m.record(50 * load_metrics::kept_ms, 42);
  t = m.recent(50 * load_metrics::kept_ms, window);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 42);
  EXPECT_EQ(t->avg_ms, 42);
  // Old loads are trimmed only when a new one arrives; the window still
  // filters on read.
  EXPECT_FALSE(m.recent(60 * load_metrics::kept_ms).has_value());
  t = m.recent(60 * load_metrics::kept_ms, 20 * load_metrics::kept_ms);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->max_ms, 42);
}

}  // namespace
}  // namespace hw::broker
