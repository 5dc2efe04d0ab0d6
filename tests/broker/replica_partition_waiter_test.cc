// How requests wait for partitions: a partition's wake list keeps only the
// wake-ups of waiters still waiting (an idle partition read by thousands
// of fetches holds a bounded list), calls each live one once; a waiter
// woken before it waits returns at once, and a new round drops the old
// round's waker.

#include <gtest/gtest.h>

#include <chrono>

#include "broker/replica/partition_waiter.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

TEST(WakeList, WakeUpsOfWaitersThatStoppedAreNotCollected) {
  wake_list list;
  size_t most = 0;
  // 10,000 fetches read an idle partition, each answered (its waker
  // dropped) because another partition moved.
  for (int i = 0; i < 10000; ++i) {
    auto waker = std::make_shared<std::function<void()>>([] {});
    list.add(waker);
    most = std::max(most, list.size());
  }
  EXPECT_LE(most, 32u);
  EXPECT_TRUE(list.take().empty());
}

TEST(WakeList, LiveWakeUpsAreKeptAndTakenOnce) {
  wake_list list;
  int calls = 0;
  std::vector<std::shared_ptr<std::function<void()>>> live;
  for (int i = 0; i < 100; ++i) {
    live.push_back(std::make_shared<std::function<void()>>([&] { ++calls; }));
    list.add(live.back());
    list.add(std::make_shared<std::function<void()>>([&] { ADD_FAILURE() << "a dropped waker was called"; }));
  }
  auto taken = list.take();
  EXPECT_EQ(taken.size(), 100u);
  for (auto& w : taken) (*w)();
  EXPECT_EQ(calls, 100);
  EXPECT_TRUE(list.take().empty());
}

TEST(PartitionWaiter, AWakeUpBeforeTheWaitIsNotLostAndANewRoundDropsTheOldWaker) {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  auto waiter = partition_waiter::make(strand);
  wake_list list;
  bool done = false;
  std::chrono::steady_clock::duration waited{};
  asio::co_spawn(strand, [&]() -> asio::awaitable<void> {
    waiter->arm();
    auto first = waiter->waker();
    list.add(first);
    EXPECT_EQ(waiter->waker(), first) << "one waker per round";
    for (auto& w : list.take()) (*w)();  // the partition moves before the wait
    const auto t0 = std::chrono::steady_clock::now();
    co_await waiter->wait(t0 + 5s);
    waited = std::chrono::steady_clock::now() - t0;
    std::weak_ptr<std::function<void()>> old = first;
    first.reset();
    waiter->arm();
    EXPECT_TRUE(old.expired()) << "the next round dropped the old waker";
    done = true;
  }, asio::detached);
  io.run_for(10s);
  EXPECT_TRUE(done);
  EXPECT_LT(waited, 1s);
}

}  // namespace
}  // namespace hw::broker
