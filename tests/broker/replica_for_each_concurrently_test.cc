// for_each_concurrently, with which the replica manager applies many
// partitions' role changes side by side: every item runs, never more than
// the limit at once, the caller resumes only after the last one, and an
// exception reaches the caller after the others finished.

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

#include "broker/for_each_concurrently.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

struct ForEachConcurrently : ::testing::Test {
  asio::io_context io;
  asio::strand<asio::io_context::executor_type> strand = asio::make_strand(io);

  // Runs body on the strand to completion; whether it finished.
  template <typename Body>
  bool run(Body body) {
    bool finished = false;
    std::exception_ptr failure;
    asio::co_spawn(strand, body(), [&](std::exception_ptr e) {
      failure = e;
      finished = true;
    });
    io.run_for(10s);
    if (failure) std::rethrow_exception(failure);
    return finished;
  }
};

TEST_F(ForEachConcurrently, RunsEveryItemAtMostLimitAtOnceAndWaitsForTheLast) {
  std::vector<int> items(20);
  for (int i = 0; i < 20; ++i) items[i] = i;
  int running = 0, most = 0, done = 0;
  bool resumed_after_all = false;
  ASSERT_TRUE(run([&]() -> asio::awaitable<void> {
    co_await for_each_concurrently(items, 3, [&](int i) -> asio::awaitable<void> {
      ++running;
      most = std::max(most, running);
      // Different lengths, so that items finish out of order.
      asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(1 + (i * 7) % 5));
      co_await t.async_wait(asio::use_awaitable);
      --running;
      ++done;
    });
    resumed_after_all = done == 20 && running == 0;
  }));
  EXPECT_EQ(done, 20);
  EXPECT_EQ(most, 3);
  EXPECT_TRUE(resumed_after_all);
}

TEST_F(ForEachConcurrently, NothingToDoResumesAtOnce) {
  std::vector<int> none;
  EXPECT_TRUE(run([&]() -> asio::awaitable<void> {
    co_await for_each_concurrently(none, 4, [](int) -> asio::awaitable<void> { co_return; });
  }));
}

TEST_F(ForEachConcurrently, AFailureReachesTheCallerAfterTheOthersFinished) {
  std::vector<int> items{0, 1, 2, 3, 4, 5};
  int done = 0;
  bool caught = false;
  ASSERT_TRUE(run([&]() -> asio::awaitable<void> {
    try {
      co_await for_each_concurrently(items, 2, [&](int i) -> asio::awaitable<void> {
        asio::steady_timer t(co_await asio::this_coro::executor, 2ms);
        co_await t.async_wait(asio::use_awaitable);
        if (i == 1) throw std::runtime_error("item 1 failed");
        ++done;
      });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "item 1 failed";
    }
  }));
  EXPECT_TRUE(caught);
  EXPECT_EQ(done, 5);
}

}  // namespace
}  // namespace hw::broker
