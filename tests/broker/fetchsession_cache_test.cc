// The session cache's bound, eviction order and session ids.
#include <gtest/gtest.h>

#include <deque>

#include "broker/fetch/fetch_session_cache.h"

namespace hw::broker::fetch {
namespace {

using storage::offset;

struct FetchSessionCache : ::testing::Test {
  std::deque<uint32_t> ids;  // scripted random numbers; counts up when empty
  uint32_t next = 100;
  fetch_session_cache cache{{2, 1000}, [this] {
                              if (ids.empty()) return next++;
                              uint32_t v = ids.front();
                              ids.pop_front();
                              return v;
                            }};

  // Tries to open a session of `n` partitions; returns its id or 0.
  int32_t open(int n, bool follower, int64_t now) {
    fetch_request_view r;
    r.version = 12;
    r.session_epoch = initial_epoch;
    r.from_follower = follower;
    std::vector<partition_result> results;
    for (int p = 0; p < n; ++p) {
      partition_request pr;
      pr.key = {{}, "t", p};
      r.partitions.push_back(pr);
      partition_result res;
      res.key = pr.key;
      res.high_watermark = offset(1);
      results.push_back(res);
    }
    auto ctx = cache.new_context(r, [](const protocol::uuid&) { return std::nullopt; }, now);
    return cache.update_and_generate_response(ctx, results, now).session_id;
  }

  void use(int32_t id, int64_t now) {
    fetch_request_view r;
    r.version = 12;
    r.session_id = id;
    r.session_epoch = cache.find(id)->epoch();
    auto ctx = cache.new_context(r, [](const protocol::uuid&) { return std::nullopt; }, now);
    ASSERT_EQ(ctx.what, fetch_context::kind::incremental);
  }
};

TEST_F(FetchSessionCache, FullCacheRefusesYoungPeersOfEqualOrSmallerSize) {
  int32_t a = open(5, false, 0), b = open(5, false, 0);
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  EXPECT_EQ(open(50, false, 10), invalid_session_id);  // both too young to be evicted by a consumer
  EXPECT_EQ(cache.size(), 2u);
  // Once older than the eviction time (and touched since), a bigger consumer
  // session may take the smallest one's slot; an equal one may not.
  use(a, 1500);
  use(b, 1500);
  EXPECT_EQ(open(5, false, 1600), invalid_session_id);
  int32_t c = open(6, false, 1600);
  EXPECT_NE(c, invalid_session_id);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.total_partitions(), 11u);
}

TEST_F(FetchSessionCache, SmallestThenLowestIdIsEvictedFirst) {
  ids = {20, 10};
  int32_t a = open(3, false, 0), b = open(3, false, 0);
  ASSERT_EQ(a, 21);
  ASSERT_EQ(b, 11);
  use(a, 1500);
  use(b, 1500);
  EXPECT_NE(open(4, false, 1600), invalid_session_id);
  EXPECT_TRUE(cache.find(a));
  EXPECT_FALSE(cache.find(b));
}

TEST_F(FetchSessionCache, FollowersEvictYoungConsumersButNotYoungFollowers) {
  int32_t consumer = open(10, false, 0), follower = open(1, true, 0);
  ASSERT_NE(consumer, 0);
  ASSERT_NE(follower, 0);
  // A young consumer session is fair game for a follower, even a smaller one.
  int32_t f2 = open(1, true, 5);
  ASSERT_NE(f2, invalid_session_id);
  EXPECT_FALSE(cache.find(consumer));
  // Now only young followers remain: nobody evicts them.
  EXPECT_EQ(open(100, true, 10), invalid_session_id);
  EXPECT_EQ(open(100, false, 10), invalid_session_id);
  EXPECT_TRUE(cache.find(follower) && cache.find(f2));
  EXPECT_TRUE(cache.find(f2)->privileged());
}

TEST_F(FetchSessionCache, StaleSessionsAreEvictedByAnyone) {
  int32_t a = open(100, true, 0), b = open(100, true, 500);
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  EXPECT_EQ(open(1, false, 1000), invalid_session_id);  // a is unused for exactly the eviction time: not stale
  int32_t c = open(1, false, 1001);
  EXPECT_NE(c, invalid_session_id);
  EXPECT_FALSE(cache.find(a));  // the least recently used
  EXPECT_TRUE(cache.find(b));
}

TEST_F(FetchSessionCache, ZeroSlotsMeansNoSessions) {
  fetch_session_cache none({0, 1000}, [] { return 5u; });
  fetch_request_view r;
  r.version = 12;
  r.session_epoch = initial_epoch;
  auto ctx = none.new_context(r, [](const protocol::uuid&) { return std::nullopt; }, 0);
  EXPECT_EQ(ctx.what, fetch_context::kind::full);
  EXPECT_EQ(none.update_and_generate_response(ctx, {}, 0).session_id, invalid_session_id);
  EXPECT_EQ(none.size(), 0u);
}

TEST_F(FetchSessionCache, SessionIdsArePositiveAndUnique) {
  // Draws map onto 1 .. INT32_MAX-1 (Kafka's range); an id in use is drawn again.
  ids = {0, 0, 0x7ffffffdu};
  int32_t a = open(1, false, 0);
  EXPECT_EQ(a, 1);
  int32_t b = open(1, false, 0);  // 0 maps to 1 again, which is taken
  EXPECT_EQ(b, 0x7ffffffe);
  use(a, 2000);
  use(b, 2000);
  int32_t c = open(2, false, 2001);  // evicts a, the smaller id of two equal sessions
  EXPECT_EQ(c, 101);
  EXPECT_FALSE(cache.find(a));
  EXPECT_TRUE(cache.find(b));
}

}  // namespace
}  // namespace hw::broker::fetch
