// shard_table: the coordinator runtime's slots by partition, what closing
// it does, and the sums it reads from the slots.
#include "broker/coordinator_log/shard_table.h"

#include <gtest/gtest.h>

#include <atomic>

namespace hw::broker {
namespace {

// What the table reads from the runtime's slot.
struct fake_slot {
  std::atomic<bool> loaded{false};
  std::atomic<int64_t> in_progress{0};
};

TEST(CoordinatorShardTable, PutFindTakeAndCloseRefusesNewSlots) {
  shard_table<fake_slot> t;
  auto a = std::make_shared<fake_slot>();
  auto b = std::make_shared<fake_slot>();
  EXPECT_TRUE(t.put(3, a));
  EXPECT_TRUE(t.put(1, b));
  EXPECT_EQ(t.find(3), a);
  EXPECT_EQ(t.find(2), nullptr);
  EXPECT_EQ(t.partitions(), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(t.all().size(), 2u);

  EXPECT_EQ(t.take(3), a);
  EXPECT_EQ(t.take(3), nullptr) << "taken once";
  EXPECT_EQ(t.find(3), nullptr);

  EXPECT_EQ(t.close(), (std::vector<int32_t>{1}));
  EXPECT_FALSE(t.put(4, std::make_shared<fake_slot>())) << "closed: no new slot";
  EXPECT_EQ(t.find(4), nullptr);
  EXPECT_EQ(t.find(1), b) << "closing keeps the slots it has until they are taken";
}

TEST(CoordinatorShardTable, LoadedAndInProgressReadTheSlotsPresent) {
  shard_table<fake_slot> t;
  auto a = std::make_shared<fake_slot>();
  auto b = std::make_shared<fake_slot>();
  t.put(0, a);
  t.put(1, b);
  EXPECT_FALSE(t.all_loaded({0}));
  a->loaded = true;
  EXPECT_TRUE(t.all_loaded({0}));
  EXPECT_FALSE(t.all_loaded({0, 1}));
  EXPECT_FALSE(t.all_loaded({0, 7})) << "no slot for 7";
  EXPECT_TRUE(t.all_loaded({}));

  a->in_progress = 2;
  b->in_progress = 5;
  EXPECT_EQ(t.in_progress_total(), 7);
  t.take(1);
  EXPECT_EQ(t.in_progress_total(), 2) << "a slot taken out no longer counts";
}

}  // namespace
}  // namespace hw::broker
