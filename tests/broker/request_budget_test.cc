// The broker-wide request budget: slots up to the bound, then wake-ups.

#include <gtest/gtest.h>

#include "broker/listener/request_budget.h"

namespace hw::broker {
namespace {

TEST(RequestBudget, GrantsUpToTheBoundThenQueuesWakeUps) {
  request_budget budget(2);
  int woken = 0;
  auto wake = [&] { ++woken; };
  EXPECT_TRUE(budget.acquire_or_wait(wake));
  EXPECT_TRUE(budget.acquire_or_wait(wake));
  EXPECT_FALSE(budget.acquire_or_wait(wake));
  EXPECT_FALSE(budget.acquire_or_wait(wake));
  EXPECT_EQ(budget.in_use(), 2);
  EXPECT_EQ(budget.waiting(), 2u);
  EXPECT_EQ(woken, 0);

  budget.release();  // every waiter is told; the first to retry wins the slot
  EXPECT_EQ(woken, 2);
  EXPECT_EQ(budget.waiting(), 0u);
  EXPECT_TRUE(budget.acquire_or_wait(wake));
  EXPECT_FALSE(budget.acquire_or_wait(wake));  // the loser waits again
  EXPECT_EQ(budget.waiting(), 1u);
}

TEST(RequestBudget, ReleaseWithoutWaitersWakesNobody) {
  request_budget budget(1);
  int woken = 0;
  EXPECT_TRUE(budget.acquire_or_wait([&] { ++woken; }));
  budget.release();
  EXPECT_EQ(woken, 0);
  EXPECT_EQ(budget.in_use(), 0);
  EXPECT_TRUE(budget.try_acquire());
  EXPECT_FALSE(budget.try_acquire());
}

}  // namespace
}  // namespace hw::broker
