#include "broker/metadata/timed_out_response.h"

#include <gtest/gtest.h>

namespace hw::broker {
namespace {

constexpr int16_t k_timed_out = 7;

TEST(TimedOutResponse, DeleteTopicsNamesEachTopicByNameBeforeV6AndByStateFromV6) {
  msg::delete_topics_request old_form;
  old_form.topic_names = {"a", "b"};
  auto r = timed_out_response(old_form, 5);
  ASSERT_EQ(r.responses.size(), 2u);
  EXPECT_EQ(r.responses[1].name, "b");
  EXPECT_EQ(r.responses[1].error_code, k_timed_out);

  msg::delete_topics_request by_id;
  auto& t = by_id.topics.emplace_back();
  t.name = std::nullopt;
  t.topic_id = protocol::uuid{1, 2};
  r = timed_out_response(by_id, 6);
  ASSERT_EQ(r.responses.size(), 1u);
  EXPECT_EQ(r.responses[0].name, std::nullopt);
  EXPECT_EQ(r.responses[0].topic_id, (protocol::uuid{1, 2}));
  EXPECT_EQ(r.responses[0].error_code, k_timed_out);
}

TEST(TimedOutResponse, ElectLeadersAndReassignmentsCarryTheErrorAtTheTopAndPerPartition) {
  msg::elect_leaders_request elect;
  elect.topic_partitions.emplace().push_back({"t", {0, 2}, {}});
  auto e = timed_out_response(elect, 2);
  EXPECT_EQ(e.error_code, k_timed_out);
  ASSERT_EQ(e.replica_election_results.size(), 1u);
  ASSERT_EQ(e.replica_election_results[0].partition_result.size(), 2u);
  EXPECT_EQ(e.replica_election_results[0].partition_result[1].partition_id, 2);
  EXPECT_EQ(e.replica_election_results[0].partition_result[1].error_code, k_timed_out);
  EXPECT_EQ(e.replica_election_results[0].partition_result[1].error_message, std::nullopt);

  msg::elect_leaders_request all;
  all.topic_partitions.reset();  // every partition: nothing to name
  EXPECT_TRUE(timed_out_response(all, 2).replica_election_results.empty());

  msg::alter_partition_reassignments_request alter;
  auto& t = alter.topics.emplace_back();
  t.name = "t";
  t.partitions.emplace_back().partition_index = 4;
  auto a = timed_out_response(alter, 0);
  EXPECT_EQ(a.error_code, k_timed_out);
  ASSERT_EQ(a.responses.size(), 1u);
  ASSERT_EQ(a.responses[0].partitions.size(), 1u);
  EXPECT_EQ(a.responses[0].partitions[0].partition_index, 4);
  EXPECT_EQ(a.responses[0].partitions[0].error_code, k_timed_out);

  msg::list_partition_reassignments_request list;
  list.topics.emplace().push_back({"t", {1}, {}});
  auto l = timed_out_response(list, 0);
  EXPECT_EQ(l.error_code, k_timed_out);
  ASSERT_EQ(l.topics.size(), 1u);
  EXPECT_EQ(l.topics[0].partitions.at(0).partition_index, 1);
}

TEST(TimedOutResponse, ConfigChangesNameEachResource) {
  msg::alter_configs_request req;
  auto& res = req.resources.emplace_back();
  res.resource_type = 4;  // broker
  res.resource_name = "1";
  auto r = timed_out_response(req, 2);
  ASSERT_EQ(r.responses.size(), 1u);
  EXPECT_EQ(r.responses[0].resource_type, 4);
  EXPECT_EQ(r.responses[0].resource_name, "1");
  EXPECT_EQ(r.responses[0].error_code, k_timed_out);
  EXPECT_EQ(r.responses[0].error_message, std::nullopt);
}

}  // namespace
}  // namespace hw::broker
