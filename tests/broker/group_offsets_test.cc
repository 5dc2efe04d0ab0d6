// OffsetCommit / OffsetFetch / OffsetDelete / DeleteGroups / retention and
// reload from the records a shard wrote.
#include <gtest/gtest.h>

#include "tests/broker/group_test_support.h"

namespace hw::broker::group {
namespace {

using namespace testing;

// One consumer-protocol member, stable at generation 1, subscribed to `topics`.
std::string stable_member(shard_harness& h, const std::string& group, const std::vector<std::string>& topics) {
  auto a = args(group);
  a.protocols = range_protocol(topics);
  auto [id, t] = h.join_dynamic(a);
  h.advance(3000);
  auto j = h.take<msg::join_group_response>(t);
  EXPECT_TRUE(j.has_value());
  auto s = h.take<msg::sync_group_response>(h.sync(group, id, 1, {{id, {9}}}));
  EXPECT_EQ(s->error_code, 0);
  return id;
}

TEST(GroupOffsets, SimpleConsumerCommitsWithoutGeneration) {
  shard_harness h;
  EXPECT_EQ(h.fetched("simple", "t", 0), -1);
  EXPECT_EQ(h.commit_error("simple", "", -1, "t", 0, 42), 0);
  EXPECT_EQ(h.fetched("simple", "t", 0), 42);
  const classic_group* g = h.shard.find_group("simple");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->state(), group_state::empty);
  EXPECT_FALSE(g->protocol_type().has_value());
}

TEST(GroupOffsets, CommitIsVisibleOnlyOnceDurable) {
  shard_harness h;
  h.auto_ack = false;
  auto t = h.commit("g", "", -1, "t", 0, 7);
  EXPECT_FALSE(h.answered(t));
  EXPECT_EQ(h.fetched("g", "t", 0), -1);
  h.ack(error_code::none);
  auto r = h.take<msg::offset_commit_response>(t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->topics[0].partitions[0].error_code, 0);
  EXPECT_EQ(h.fetched("g", "t", 0), 7);
}

TEST(GroupOffsets, FailedAppendMapsToCoordinatorErrors) {
  shard_harness h;
  h.auto_ack = false;
  auto t1 = h.commit("g", "", -1, "t", 0, 7);
  h.ack(error_code::not_leader_or_follower);
  EXPECT_EQ(h.take<msg::offset_commit_response>(t1)->topics[0].partitions[0].error_code,
            code(error_code::not_coordinator));
  auto t2 = h.commit("g", "", -1, "t", 0, 7);
  h.ack(error_code::not_enough_replicas);
  EXPECT_EQ(h.take<msg::offset_commit_response>(t2)->topics[0].partitions[0].error_code,
            code(error_code::coordinator_not_available));
  auto t3 = h.commit("g", "", -1, "t", 0, 7);
  h.ack(error_code::message_too_large);
  EXPECT_EQ(h.take<msg::offset_commit_response>(t3)->topics[0].partitions[0].error_code,
            code(error_code::unknown_server_error));
  EXPECT_EQ(h.fetched("g", "t", 0), -1);
  EXPECT_EQ(h.shard.find_group("g"), nullptr);  // the group the commit created is gone again
}

TEST(GroupOffsets, GenerationChecksOnCommit) {
  shard_harness h;
  EXPECT_EQ(h.commit_error("nope", "m", 1, "t", 0, 1, 9), code(error_code::group_id_not_found));
  EXPECT_EQ(h.commit_error("nope", "m", 1, "t", 0, 1, 8), code(error_code::illegal_generation));
  auto id = stable_member(h, "g", {"t"});
  EXPECT_EQ(h.commit_error("g", id, 1, "t", 0, 10), 0);
  EXPECT_EQ(h.commit_error("g", id, 0, "t", 0, 11), code(error_code::illegal_generation));
  EXPECT_EQ(h.commit_error("g", "stranger", 1, "t", 0, 11), code(error_code::unknown_member_id));
  EXPECT_EQ(h.commit_error("g", "", -1, "t", 0, 11), code(error_code::unknown_member_id));
  EXPECT_EQ(h.fetched("g", "t", 0), 10);
  // A rebalance past the join phase refuses commits until the new assignment.
  auto a = args("g");
  a.member_id = id;
  auto j = h.take<msg::join_group_response>(h.join(a));
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->generation_id, 2);
  EXPECT_EQ(h.commit_error("g", id, 2, "t", 0, 12), code(error_code::rebalance_in_progress));
  h.take<msg::sync_group_response>(h.sync("g", id, 2, {{id, {1}}}));
  EXPECT_EQ(h.commit_error("g", id, 2, "t", 0, 12), 0);
}

TEST(GroupOffsets, MetadataTooLargeRejectsOnlyThatPartition) {
  group_config config;
  config.offset_metadata_max_bytes = 4;
  shard_harness h(config);
  auto t = h.commit("g", "", -1, "t", 0, 1, 9, "12345");
  auto r = h.take<msg::offset_commit_response>(t);
  EXPECT_EQ(r->topics[0].partitions[0].error_code, code(error_code::offset_metadata_too_large));
  EXPECT_EQ(h.commit_error("g", "", -1, "t", 1, 1), 0);
}

TEST(GroupOffsets, FetchAllAndRequireStable) {
  shard_harness h;
  h.commit("g", "", -1, "a", 0, 1);
  h.commit("g", "", -1, "b", 3, 2);
  msg::offset_fetch_request::offset_fetch_request_group all;
  all.group_id = "g";
  all.topics.reset();
  auto t = h.next_token++;
  h.shard.fetch_offsets(t, all, false);
  auto r = h.take<offset_fetch_group_response>(t);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->topics.size(), 2u);
  EXPECT_EQ(r->topics[1].name, "b");
  EXPECT_EQ(r->topics[1].partitions[0].partition_index, 3);
  EXPECT_EQ(r->topics[1].partitions[0].committed_offset, 2);

  // require_stable waits for commits in flight; a plain fetch does not.
  h.auto_ack = false;
  h.commit("g", "", -1, "a", 0, 5);
  auto stable = h.next_token++;
  h.shard.fetch_offsets(stable, all, true);
  EXPECT_FALSE(h.answered(stable));
  EXPECT_EQ(h.fetched("g", "a", 0), 1);
  h.ack(error_code::none);
  auto s = h.take<offset_fetch_group_response>(stable);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->topics[0].partitions[0].committed_offset, 5);
}

TEST(GroupOffsets, ReloadFromRecordsEqualsStateBefore) {
  shard_harness h;
  auto id = stable_member(h, "g", {"t"});
  h.commit_error("g", id, 1, "t", 0, 10);
  h.commit_error("g", id, 1, "t", 1, 20);
  h.commit_error("g", id, 1, "t", 0, 11);  // last value wins
  h.commit_error("s", "", -1, "x", 0, 3);
  h.commit_error("s", "", -1, "y", 0, 4);
  auto del = h.next_token++;
  msg::offset_delete_request od;
  od.group_id = "s";
  od.topics.push_back({"y", {{0, {}}}, {}});
  h.shard.delete_offsets(del, od);
  ASSERT_EQ(h.take<msg::offset_delete_response>(del)->error_code, 0);

  shard_harness reloaded({}, 99, false);
  reloaded.shard.begin_load();
  for (const auto& rec : h.log) {
    std::optional<std::span<const uint8_t>> value;
    if (rec.value) value = std::span<const uint8_t>(*rec.value);
    ASSERT_TRUE(reloaded.shard.load({rec.key, value}));
  }
  reloaded.shard.end_load(h.now);
  EXPECT_EQ(reloaded.shard.offsets(), h.shard.offsets());
  EXPECT_EQ(reloaded.fetched("g", "t", 0), 11);
  EXPECT_EQ(reloaded.fetched("s", "y", 0), -1);
  const classic_group* before = h.shard.find_group("g");
  const classic_group* after = reloaded.shard.find_group("g");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->state(), group_state::stable);
  EXPECT_EQ(after->generation(), before->generation());
  EXPECT_EQ(after->protocol_name(), before->protocol_name());
  EXPECT_EQ(after->protocol_type(), before->protocol_type());
  EXPECT_EQ(after->leader_id(), before->leader_id());
  ASSERT_EQ(after->members().size(), 1u);
  ASSERT_NE(after->members().find(id), nullptr);
  ASSERT_NE(before->members().find(id), nullptr);
  EXPECT_EQ(after->members().find(id)->assignment, before->members().find(id)->assignment);
  // The reloaded member can carry on where it was.
  EXPECT_EQ(reloaded.heartbeat("g", id, 1), 0);
  EXPECT_EQ(reloaded.commit_error("g", id, 1, "t", 0, 12), 0);
  // ... and is expired if it does not: the group is empty at generation 2.
  reloaded.advance(10000);
  EXPECT_EQ(reloaded.shard.find_group("g")->state(), group_state::empty);
  EXPECT_EQ(reloaded.shard.find_group("g")->generation(), 2);
}

TEST(GroupOffsets, TombstonesDeleteOnReplay) {
  shard_harness h({}, 7, false);
  h.shard.begin_load();
  committed_offset v{5, -1, "", 1, std::nullopt, {}};
  auto put = offset_commit_record("g", "t", 0, v);
  auto gone = offset_tombstone_record("g", "t", 0);
  auto group_gone = group_tombstone_record("g");
  for (const auto* rec : {&put, &gone, &put, &group_gone}) {
    std::optional<std::span<const uint8_t>> value;
    if (rec->value) value = std::span<const uint8_t>(*rec->value);
    ASSERT_TRUE(h.shard.load({rec->key, value}));
  }
  h.shard.end_load(h.now);
  // The group tombstone removes the group, not the offsets (they have their own).
  EXPECT_EQ(h.shard.find_group("g"), nullptr);
  ASSERT_NE(h.shard.offsets().get("g", "t", 0), nullptr);
  std::vector<uint8_t> junk{0, 1, 2};  // an OffsetCommitKey v1 cut short
  h.shard.unload();
  h.shard.begin_load();
  EXPECT_FALSE(h.shard.load({junk, std::nullopt}));
}

TEST(GroupOffsets, RetentionExpiresOffsetsThenTheEmptyGroup) {
  group_config config;
  config.offsets_retention_ms = 60000;
  config.offsets_retention_check_interval_ms = 10000;
  shard_harness h(config);
  h.commit_error("s", "", -1, "t", 0, 1);
  h.advance(30000);
  h.commit_error("s", "", -1, "t", 1, 2);
  h.advance(30000);  // partition 0 is 60 s old, partition 1 30 s
  EXPECT_EQ(h.fetched("s", "t", 0), -1);
  EXPECT_EQ(h.fetched("s", "t", 1), 2);
  ASSERT_NE(h.shard.find_group("s"), nullptr);
  h.advance(30000);
  EXPECT_EQ(h.fetched("s", "t", 1), -1);
  EXPECT_EQ(h.shard.find_group("s"), nullptr);
  // The log holds the tombstones.
  size_t tombstones = 0;
  for (const auto& r : h.log) tombstones += r.value ? 0 : 1;
  EXPECT_EQ(tombstones, 3u);
}

TEST(GroupOffsets, StableConsumerGroupKeepsSubscribedOffsets) {
  group_config config;
  config.offsets_retention_ms = 60000;
  config.offsets_retention_check_interval_ms = 10000;
  shard_harness h(config);
  auto id = stable_member(h, "g", {"t"});
  h.commit_error("g", id, 1, "t", 0, 1);
  h.commit_error("g", id, 1, "other", 0, 1);
  for (int i = 0; i < 8; ++i) {
    h.advance(9000);
    ASSERT_EQ(h.heartbeat("g", id, 1), 0);
  }
  EXPECT_EQ(h.fetched("g", "t", 0), 1);
  EXPECT_EQ(h.fetched("g", "other", 0), -1);
}

TEST(GroupOffsets, DeleteGroups) {
  shard_harness h;
  stable_member(h, "busy", {"t"});
  h.commit_error("idle", "", -1, "t", 0, 1);
  auto t = h.next_token++;
  h.shard.delete_groups(t, {"busy", "idle", "ghost"});
  auto r = h.take<delete_groups_results>(t);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].error_code, code(error_code::non_empty_group));
  EXPECT_EQ((*r)[1].error_code, 0);
  EXPECT_EQ((*r)[2].error_code, code(error_code::group_id_not_found));
  EXPECT_EQ(h.shard.find_group("idle"), nullptr);
  EXPECT_EQ(h.fetched("idle", "t", 0), -1);
  ASSERT_NE(h.shard.find_group("busy"), nullptr);
}

TEST(GroupOffsets, OffsetDelete) {
  shard_harness h;
  auto id = stable_member(h, "g", {"t"});
  h.commit_error("g", id, 1, "t", 0, 1);
  h.commit_error("g", id, 1, "gone", 0, 1);
  msg::offset_delete_request od;
  od.group_id = "g";
  od.topics.push_back({"t", {{0, {}}}, {}});
  od.topics.push_back({"gone", {{0, {}}}, {}});
  auto t = h.next_token++;
  h.shard.delete_offsets(t, od);
  auto r = h.take<msg::offset_delete_response>(t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error_code, 0);
  EXPECT_EQ(r->topics[0].partitions[0].error_code, code(error_code::group_subscribed_to_topic));
  EXPECT_EQ(r->topics[1].partitions[0].error_code, 0);
  EXPECT_EQ(h.fetched("g", "t", 0), 1);
  EXPECT_EQ(h.fetched("g", "gone", 0), -1);

  // A rebalance in progress does not change what the group is subscribed
  // to: that is fixed per generation.
  auto add = args("g");
  add.protocols = range_protocol({"gone"});
  h.join_dynamic(add);
  ASSERT_EQ(h.shard.find_group("g")->state(), group_state::preparing_rebalance);
  ASSERT_EQ(h.commit_error("g", id, 1, "gone", 0, 2), 0);
  od.topics = {{"gone", {{0, {}}}, {}}};
  t = h.next_token++;
  h.shard.delete_offsets(t, od);
  EXPECT_EQ(h.take<msg::offset_delete_response>(t)->topics[0].partitions[0].error_code, 0);
  EXPECT_EQ(h.fetched("g", "gone", 0), -1);

  od.group_id = "ghost";
  t = h.next_token++;
  h.shard.delete_offsets(t, od);
  EXPECT_EQ(h.take<msg::offset_delete_response>(t)->error_code, code(error_code::group_id_not_found));

  // A non-empty group that does not speak the consumer protocol.
  auto a = args("connect");
  a.protocol_type = "connect";
  a.protocols = {{"default", {1}}};
  auto [cid, jt] = h.join_dynamic(a);
  h.advance(3000);
  od.group_id = "connect";
  t = h.next_token++;
  h.shard.delete_offsets(t, od);
  EXPECT_EQ(h.take<msg::offset_delete_response>(t)->error_code, code(error_code::non_empty_group));
}

TEST(GroupOffsets, ErrorsWhileLoadingOrNotCoordinator) {
  shard_harness h({}, 7, false);
  EXPECT_EQ(h.commit_error("g", "", -1, "t", 0, 1), code(error_code::not_coordinator));
  h.shard.begin_load();
  EXPECT_EQ(h.commit_error("g", "", -1, "t", 0, 1), code(error_code::coordinator_load_in_progress));
  msg::offset_fetch_request::offset_fetch_request_group g;
  g.group_id = "g";
  auto t = h.next_token++;
  h.shard.fetch_offsets(t, g, false);
  EXPECT_EQ(h.take<offset_fetch_group_response>(t)->error_code, code(error_code::coordinator_load_in_progress));
  t = h.next_token++;
  h.shard.delete_groups(t, {"g"});
  EXPECT_EQ(h.take<delete_groups_results>(t)->at(0).error_code, code(error_code::coordinator_load_in_progress));
  std::vector<msg::list_groups_response::listed_group> out;
  EXPECT_EQ(h.shard.list_groups({}, {}, out), error_code::coordinator_load_in_progress);
  EXPECT_EQ(h.shard.describe_groups({"g"}).at(0).error_code, code(error_code::coordinator_load_in_progress));
}

TEST(GroupOffsets, UnloadAnswersCommitsAndStableFetchesInFlight) {
  shard_harness h;
  h.auto_ack = false;
  auto t = h.commit("g", "", -1, "t", 0, 1);
  msg::offset_fetch_request::offset_fetch_request_group all;
  all.group_id = "g";
  auto f = h.next_token++;
  h.shard.fetch_offsets(f, all, true);
  EXPECT_FALSE(h.answered(f));
  h.shard.unload();
  auto r = h.take<msg::offset_commit_response>(t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->topics[0].partitions[0].error_code, code(error_code::not_coordinator));
  auto fr = h.take<offset_fetch_group_response>(f);
  ASSERT_TRUE(fr.has_value());
  EXPECT_EQ(fr->error_code, code(error_code::not_coordinator));
  EXPECT_TRUE(fr->topics.empty());
}

TEST(GroupOffsets, OffsetOfAnotherTopicIncarnationIsNotReturned) {
  shard_harness h;
  protocol::uuid old_id, new_id;
  old_id.bytes[0] = 1;
  new_id.bytes[0] = 2;
  msg::offset_commit_request c;
  c.group_id = "g";
  c.generation_id_or_member_epoch = -1;
  c.topics.push_back({"t", old_id, {{0, 17, -1, -1, std::string(""), {}}}, {}});
  auto ct = h.next_token++;
  h.shard.commit_offsets(ct, 10, c, h.now);
  ASSERT_EQ(h.take<msg::offset_commit_response>(ct)->topics[0].topic_id, old_id);
  EXPECT_EQ(h.shard.offsets().get("g", "t", 0)->topic_id, old_id);
  auto fetch_with = [&](protocol::uuid id) {
    msg::offset_fetch_request::offset_fetch_request_group g;
    g.group_id = "g";
    g.topics = std::vector<msg::offset_fetch_request::offset_fetch_request_topics>{{"t", id, {0}, {}}};
    auto t = h.next_token++;
    h.shard.fetch_offsets(t, g, false);
    return h.take<offset_fetch_group_response>(t)->topics.at(0).partitions.at(0).committed_offset;
  };
  EXPECT_EQ(fetch_with(old_id), 17);
  EXPECT_EQ(fetch_with(protocol::uuid{}), 17);  // v9 and older carry no id
  EXPECT_EQ(fetch_with(new_id), -1);
}

}  // namespace
}  // namespace hw::broker::group

namespace hw::broker::group {
namespace {

using namespace testing;

void load(shard_harness& h, const coordinator_record& rec, int64_t producer_id = -1) {
  std::optional<std::span<const uint8_t>> value;
  if (rec.value) value = std::span<const uint8_t>(*rec.value);
  ASSERT_TRUE(h.shard.load({rec.key, value, producer_id}));
}

int16_t stable_fetch_error(shard_harness& h, const std::string& group, const std::string& topic, int32_t partition) {
  msg::offset_fetch_request::offset_fetch_request_group g;
  g.group_id = group;
  g.topics = std::vector<msg::offset_fetch_request::offset_fetch_request_topics>{{topic, {}, {partition}, {}}};
  auto t = h.next_token++;
  h.shard.fetch_offsets(t, g, true);
  return h.take<offset_fetch_group_response>(t)->topics.at(0).partitions.at(0).error_code;
}

committed_offset at(int64_t offset) { return committed_offset{offset, -1, "", 1, std::nullopt, {}}; }

TEST(GroupTxnOffsets, TransactionalOffsetsWaitForTheirMarker) {
  shard_harness h({}, 7, false);
  h.shard.begin_load();
  load(h, offset_commit_record("g", "t", 0, at(5)));
  load(h, offset_commit_record("g", "t", 0, at(9)), 1000);
  load(h, offset_commit_record("g", "t", 1, at(3)), 2000);
  h.shard.on_txn_marker(2000, false);  // aborted: never visible
  h.shard.end_load(h.now);
  EXPECT_EQ(h.fetched("g", "t", 0), 5);
  EXPECT_EQ(h.fetched("g", "t", 1), -1);
  EXPECT_EQ(stable_fetch_error(h, "g", "t", 0), code(error_code::unstable_offset_commit));
  EXPECT_EQ(stable_fetch_error(h, "g", "t", 1), 0);
  h.shard.on_txn_marker(1000, true);
  EXPECT_EQ(h.fetched("g", "t", 0), 9);
  EXPECT_EQ(stable_fetch_error(h, "g", "t", 0), 0);
}

TEST(GroupTxnOffsets, LaterPlainCommitWinsOverCommittedTransaction) {
  shard_harness h({}, 7, false);
  h.shard.begin_load();
  load(h, offset_commit_record("g", "t", 0, at(9)), 1000);
  load(h, offset_commit_record("g", "t", 0, at(12)));
  h.shard.on_txn_marker(1000, true);
  h.shard.end_load(h.now);
  EXPECT_EQ(h.fetched("g", "t", 0), 12);
}

TEST(GroupTxnOffsets, DeleteGroupTombstonesOpenTransactionOffsets) {
  shard_harness h({}, 7, false);
  h.shard.begin_load();
  load(h, offset_commit_record("g", "t", 0, at(9)), 1000);
  h.shard.end_load(h.now);
  auto t = h.next_token++;
  h.shard.delete_groups(t, {"g"});
  EXPECT_EQ(h.take<delete_groups_results>(t)->at(0).error_code, 0);
  ASSERT_EQ(h.log.size(), 2u);
  EXPECT_EQ(h.log[0], offset_tombstone_record("g", "t", 0));
  h.shard.on_txn_marker(1000, true);
  EXPECT_EQ(h.fetched("g", "t", 0), -1);
}

msg::txn_offset_commit_request txn_commit(const std::string& group, const std::string& member_id, int32_t generation,
                                          int64_t producer_id, int64_t offset, std::string topic = "t",
                                          int32_t partition = 0) {
  msg::txn_offset_commit_request r;
  r.transactional_id = "app";
  r.group_id = group;
  r.producer_id = producer_id;
  r.producer_epoch = 3;
  r.generation_id = generation;
  r.member_id = member_id;
  msg::txn_offset_commit_request::txn_offset_commit_request_topic t;
  t.name = std::move(topic);
  msg::txn_offset_commit_request::txn_offset_commit_request_partition p;
  p.partition_index = partition;
  p.committed_offset = offset;
  p.committed_metadata = "";
  t.partitions.push_back(p);
  r.topics.push_back(std::move(t));
  return r;
}

int16_t txn_commit_error(shard_harness& h, const msg::txn_offset_commit_request& r) {
  auto t = h.next_token++;
  h.shard.commit_txn_offsets(t, r, h.now);
  auto resp = h.take<msg::txn_offset_commit_response>(t);
  EXPECT_TRUE(resp.has_value());
  if (!resp) return -999;
  return resp->topics.at(0).partitions.at(0).error_code;
}

TEST(GroupTxnOffsets, ACommittedTransactionsOffsetsBecomeTheGroupsAnAbortedOnesDoNot) {
  shard_harness h;
  h.commit("g", "", -1, "t", 0, 5);
  h.auto_ack = false;
  auto t = h.next_token++;
  h.shard.commit_txn_offsets(t, txn_commit("g", "", -1, 1000, 9), h.now);
  EXPECT_FALSE(h.answered(t)) << "answered once durable";
  ASSERT_EQ(h.pending.size(), 1u);
  EXPECT_EQ(h.pending[0].producer_id, 1000) << "written as the producer's transactional batch";
  EXPECT_EQ(h.pending[0].producer_epoch, 3);
  h.ack(error_code::none);
  EXPECT_EQ(h.take<msg::txn_offset_commit_response>(t)->topics.at(0).partitions.at(0).error_code, 0);
  EXPECT_EQ(h.fetched("g", "t", 0), 5) << "pending until the marker";
  EXPECT_EQ(stable_fetch_error(h, "g", "t", 0), code(error_code::unstable_offset_commit));
  h.shard.on_txn_marker(1000, true);
  EXPECT_EQ(h.fetched("g", "t", 0), 9);

  h.auto_ack = true;
  EXPECT_EQ(txn_commit_error(h, txn_commit("g", "", -1, 1000, 20)), 0);
  h.shard.on_txn_marker(1000, false);
  EXPECT_EQ(h.fetched("g", "t", 0), 9) << "an aborted transaction's offsets go";
  EXPECT_EQ(stable_fetch_error(h, "g", "t", 0), 0);
}

TEST(GroupTxnOffsets, AMemberFencedByARebalanceCannotCommit) {
  shard_harness h;
  const std::string member = stable_member(h, "g", {"t"});
  EXPECT_EQ(txn_commit_error(h, txn_commit("g", member, 1, 1000, 9)), 0);
  EXPECT_EQ(txn_commit_error(h, txn_commit("g", member, 0, 1000, 9)), code(error_code::illegal_generation));
  EXPECT_EQ(txn_commit_error(h, txn_commit("g", "zombie", 1, 1000, 9)), code(error_code::unknown_member_id));
  // A generation for a group that does not exist.
  EXPECT_EQ(txn_commit_error(h, txn_commit("other", "m", 4, 1000, 9)), code(error_code::illegal_generation));
  // Without a generation, a group outside group management takes it.
  EXPECT_EQ(txn_commit_error(h, txn_commit("simple", "", -1, 1000, 9)), 0);
}

TEST(GroupTxnOffsets, PendingOffsetsReloadAsPendingAndAFailedWriteLeavesNothing) {
  shard_harness h;
  h.auto_ack = false;
  auto t = h.next_token++;
  h.shard.commit_txn_offsets(t, txn_commit("g", "", -1, 1000, 9), h.now);
  h.drain();
  h.ack(error_code::not_enough_replicas);
  EXPECT_EQ(h.take<msg::txn_offset_commit_response>(t)->topics.at(0).partitions.at(0).error_code,
            code(error_code::coordinator_not_available));
  EXPECT_EQ(stable_fetch_error(h, "g", "t", 0), 0) << "nothing pending";
  EXPECT_EQ(h.shard.find_group("g"), nullptr) << "the group made for the commit goes with it";

  h.auto_ack = true;
  EXPECT_EQ(txn_commit_error(h, txn_commit("g", "", -1, 1000, 9)), 0);
  shard_harness reloaded({}, 7, false);
  reloaded.shard.begin_load();
  for (const auto& rec : h.log) load(reloaded, rec, 1000);
  reloaded.shard.end_load(reloaded.now);
  EXPECT_EQ(stable_fetch_error(reloaded, "g", "t", 0), code(error_code::unstable_offset_commit));
  reloaded.shard.on_txn_marker(1000, true);
  EXPECT_EQ(reloaded.fetched("g", "t", 0), 9);
}

}  // namespace
}  // namespace hw::broker::group
