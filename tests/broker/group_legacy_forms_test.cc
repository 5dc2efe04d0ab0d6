#include "broker/group/legacy_forms.h"

#include <gtest/gtest.h>

#include "tests/broker/group_test_support.h"

namespace hw::broker::group {
namespace {

using namespace testing;

TEST(GroupLegacyForms, OffsetFetchV1ToV7RoundTripThroughTheShard) {
  shard_harness h;
  h.commit_error("g", "", -1, "t", 2, 40);
  msg::offset_fetch_request req;
  req.group_id = "g";
  req.topics = std::vector<msg::offset_fetch_request::offset_fetch_request_topic>{{"t", {2, 3}, {}}};
  auto t = h.next_token++;
  h.shard.fetch_offsets(t, legacy_offset_fetch_group(req), false);
  msg::offset_fetch_response resp;
  fill_legacy_offset_fetch(resp, *h.take<offset_fetch_group_response>(t), 7);
  ASSERT_EQ(resp.topics.size(), 1u);
  ASSERT_EQ(resp.topics[0].partitions.size(), 2u);
  EXPECT_EQ(resp.topics[0].partitions[0].committed_offset, 40);
  EXPECT_EQ(resp.topics[0].partitions[1].committed_offset, -1);

  req.topics.reset();  // v2+: all topics
  EXPECT_FALSE(legacy_offset_fetch_group(req).topics.has_value());
}

TEST(GroupLegacyForms, OffsetFetchV1PutsGroupErrorIntoPartitions) {
  offset_fetch_group_response g;
  g.error_code = code(error_code::coordinator_load_in_progress);
  g.topics.push_back({"t", {}, {{0, 5, 1, std::string("m"), 0, {}}}, {}});
  msg::offset_fetch_response v1, v2;
  fill_legacy_offset_fetch(v1, g, 1);
  fill_legacy_offset_fetch(v2, g, 2);
  EXPECT_EQ(v1.topics[0].partitions[0].error_code, g.error_code);
  EXPECT_EQ(v1.topics[0].partitions[0].committed_offset, -1);
  EXPECT_EQ(v2.error_code, g.error_code);
  EXPECT_EQ(v2.topics[0].partitions[0].committed_offset, 5);
}

TEST(GroupLegacyForms, LeaveGroupV0ToV2) {
  shard_harness h;
  msg::leave_group_request old;
  old.group_id = "nope";
  old.member_id = "m";
  auto req = leave_group_members(old, 2);
  ASSERT_EQ(req.members.size(), 1u);
  EXPECT_EQ(req.members[0].member_id, "m");
  auto t = h.next_token++;
  h.shard.leave_group(t, 2, req, h.now);
  auto resp = *h.take<msg::leave_group_response>(t);
  fold_legacy_leave(resp, 2);
  EXPECT_EQ(resp.error_code, code(error_code::unknown_member_id));
  EXPECT_TRUE(resp.members.empty());
}

}  // namespace
}  // namespace hw::broker::group
