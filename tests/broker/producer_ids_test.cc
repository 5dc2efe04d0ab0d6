// producer_id_pool and producer_id_manager: ids come from controller
// blocks in order, none given twice, a new block fetched only when the
// pool is empty, and a failed fetch answered with a retriable error.

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "broker/producer_id_manager.h"

namespace hw::broker {
namespace {

using protocol::error_code;

TEST(ProducerIdPool, TakesInOrderAcrossBlocks) {
  producer_id_pool pool;
  EXPECT_FALSE(pool.take());
  pool.add({1000, 2});
  pool.add({5000, 1});
  pool.add({7000, 0});  // empty blocks add nothing
  EXPECT_EQ(pool.remaining(), 3);
  EXPECT_EQ(pool.take(), 1000);
  EXPECT_EQ(pool.take(), 1001);
  EXPECT_EQ(pool.take(), 5000);
  EXPECT_FALSE(pool.take());
  EXPECT_EQ(pool.remaining(), 0);
}

// Runs the manager's coroutines to completion on one io_context.
std::vector<producer_id_result> next_ids(producer_id_manager& m, int n) {
  asio::io_context io;
  std::vector<producer_id_result> out;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (int i = 0; i < n; ++i) out.push_back(co_await m.next_id());
      },
      asio::detached);
  io.run();
  return out;
}

TEST(ProducerIdManager, FetchesABlockOnlyWhenEmpty) {
  int fetches = 0;
  producer_id_manager m([&]() -> asio::awaitable<producer_id_fetch_result> {
    const int64_t first = 1000 * fetches++;
    co_return producer_id_fetch_result{error_code::none, {first, 3}};
  });
  auto ids = next_ids(m, 7);
  ASSERT_EQ(ids.size(), 7u);
  std::vector<int64_t> got;
  for (auto& r : ids) {
    EXPECT_EQ(r.error, error_code::none);
    got.push_back(r.id);
  }
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 1000, 1001, 1002, 2000}));
  EXPECT_EQ(fetches, 3);
}

TEST(ProducerIdManager, FailedFetchIsRetriableAndLosesNothing) {
  int calls = 0;
  producer_id_manager m([&]() -> asio::awaitable<producer_id_fetch_result> {
    if (calls++ == 0) co_return producer_id_fetch_result{error_code::stale_broker_epoch, {}};
    co_return producer_id_fetch_result{error_code::none, {42, 2}};
  });
  auto ids = next_ids(m, 3);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].error, error_code::coordinator_load_in_progress);
  EXPECT_EQ(ids[0].id, -1);
  EXPECT_EQ(ids[1].id, 42);
  EXPECT_EQ(ids[2].id, 43);
}

TEST(ProducerIdManager, ConcurrentCallersGetDistinctIds) {
  // Every caller finds the pool empty and fetches: all blocks are kept.
  int64_t next_block = 0;
  producer_id_manager m([&]() -> asio::awaitable<producer_id_fetch_result> {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);  // interleave the callers
    const int64_t first = next_block;
    next_block += 2;
    co_return producer_id_fetch_result{error_code::none, {first, 2}};
  });
  asio::io_context io;
  std::vector<int64_t> ids;
  for (int c = 0; c < 5; ++c) {
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          for (int i = 0; i < 3; ++i) {
            auto r = co_await m.next_id();
            if (r.error == error_code::none) ids.push_back(r.id);
          }
        },
        asio::detached);
  }
  io.run();
  EXPECT_EQ(ids.size(), 15u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), ids.size());
}

}  // namespace
}  // namespace hw::broker
