// TxnOffsetCommit's answers to requests the broker refuses itself: topics
// or partitions it does not know, an empty group id.

#include "protocol/messages/txn_offset_commit.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

msg::txn_offset_commit_request commit_request(const std::string& id, const std::string& group, const std::string& topic,
                                              std::vector<int32_t> partitions, int64_t producer_id = 4242,
                                              int16_t producer_epoch = 0, int32_t generation = -1) {
  msg::txn_offset_commit_request req;
  req.transactional_id = id;
  req.group_id = group;
  req.producer_id = producer_id;
  req.producer_epoch = producer_epoch;
  req.generation_id = generation;
  msg::txn_offset_commit_request::txn_offset_commit_request_topic t;
  t.name = topic;
  for (int32_t p : partitions) {
    msg::txn_offset_commit_request::txn_offset_commit_request_partition part;
    part.partition_index = p;
    part.committed_offset = 10;
    part.committed_metadata = "";
    t.partitions.push_back(part);
  }
  req.topics.push_back(t);
  return req;
}

// What the broker answers before the group coordinator (or the
// transaction coordinator's verification) is asked.
TEST_F(DifferentialTest, TxnOffsetCommitRefusedByTheBroker) {
  const std::string topic = fresh_name("txn-offsets");
  create_topic(t(), topic);
  const std::string group = fresh_name("txn-offsets-group");
  wait_for_coordinator(t(), group);
  for (int16_t v : {0, 3, 5}) {
    SCOPED_TRACE("v" + std::to_string(v));
    expect_same(t().call("unknown topic", 28, v, commit_request("nope", group, fresh_name("absent"), {0})));
    expect_same(t().call("unknown partition", 28, v, commit_request("nope", group, topic, {3, 4})));
    expect_same(t().call("empty group id", 28, v, commit_request("nope", "", topic, {0})));
  }
}

}  // namespace
}  // namespace hw::testing::differential
