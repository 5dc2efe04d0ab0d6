// KIP-227 session rules: which context a request gets, what it reads and
// which partitions its response carries.
#include <gtest/gtest.h>

#include <random>

#include "broker/fetch/fetch_session_cache.h"

namespace hw::broker::fetch {
namespace {

using protocol::error_code;
using storage::offset;

partition_key named(std::string topic, int32_t p) { return {{}, std::move(topic), p}; }

protocol::uuid id_of(uint8_t b) {
  protocol::uuid u;
  u.bytes[15] = b;
  u.bytes[0] = 0x42;
  return u;
}

partition_request req(partition_key k, int64_t fetch_offset, int32_t max_bytes = 1000) {
  partition_request r;
  r.key = std::move(k);
  r.fetch_offset = offset(fetch_offset);
  r.max_bytes = max_bytes;
  return r;
}

partition_result res(partition_key k, int64_t hw, int64_t log_start = 0, int64_t bytes = 0) {
  partition_result r;
  r.key = std::move(k);
  r.high_watermark = offset(hw);
  r.log_start_offset = offset(log_start);
  r.records_bytes = bytes;
  return r;
}

fetch_request_view request(int16_t version, int32_t id, int32_t epoch, std::vector<partition_request> parts,
                           std::vector<partition_key> forgotten = {}) {
  fetch_request_view r;
  r.version = version;
  r.session_id = id;
  r.session_epoch = epoch;
  r.partitions = std::move(parts);
  r.forgotten = std::move(forgotten);
  return r;
}

std::optional<std::string> no_names(const protocol::uuid&) { return std::nullopt; }

struct FetchSessionContext : ::testing::Test {
  std::mt19937 rng{7};
  fetch_session_cache cache{{}, [this] { return static_cast<uint32_t>(rng()); }};
  int64_t now = 1'000'000;

  // Opens a session for topic "t" partitions 0..n-1 (v12: names), all at HW 10.
  int32_t open(int n, int16_t version = 12) {
    std::vector<partition_request> parts;
    std::vector<partition_result> results;
    for (int p = 0; p < n; ++p) {
      parts.push_back(req(named("t", p), 0));
      results.push_back(res(named("t", p), 10));
    }
    auto ctx = cache.new_context(request(version, 0, initial_epoch, parts), no_names, now);
    EXPECT_EQ(ctx.what, fetch_context::kind::full);
    auto plan = cache.update_and_generate_response(ctx, results, now);
    EXPECT_EQ(plan.error, error_code::none);
    EXPECT_EQ(plan.include.size(), static_cast<size_t>(n));
    EXPECT_NE(plan.session_id, invalid_session_id);
    return plan.session_id;
  }
};

TEST(FetchMetadata, NextEpoch) {
  EXPECT_EQ(next_epoch(0), 1);
  EXPECT_EQ(next_epoch(41), 42);
  EXPECT_EQ(next_epoch(std::numeric_limits<int32_t>::max()), 1);
  EXPECT_EQ(next_epoch(final_epoch), final_epoch);
  EXPECT_EQ(next_epoch(-7), final_epoch);
}

TEST_F(FetchSessionContext, FinalEpochIsSessionlessAndOpensNoSession) {
  auto ctx = cache.new_context(request(12, 0, final_epoch, {req(named("t", 0), 5)}), no_names, now);
  EXPECT_EQ(ctx.what, fetch_context::kind::sessionless);
  ASSERT_EQ(ctx.partitions.size(), 1u);
  EXPECT_EQ(ctx.partitions[0].fetch_offset, offset(5));
  std::vector<partition_result> results = {res(named("t", 0), 10)};
  auto plan = cache.update_and_generate_response(ctx, results, now);
  EXPECT_EQ(plan.session_id, invalid_session_id);
  EXPECT_EQ(plan.include, std::vector<size_t>{0});
  EXPECT_EQ(cache.size(), 0u);
  // A pre-v7 request carries no session fields: the defaults make it sessionless.
  fetch_request_view legacy;
  legacy.version = 4;
  EXPECT_EQ(cache.new_context(legacy, no_names, now).what, fetch_context::kind::sessionless);
}

TEST_F(FetchSessionContext, FullRequestOpensSessionAtEpochOne) {
  int32_t id = open(3);
  auto s = cache.find(id);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->epoch(), 1);
  EXPECT_EQ(s->size(), 3u);
  EXPECT_FALSE(s->privileged());
  EXPECT_FALSE(s->uses_topic_ids());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.total_partitions(), 3u);
}

TEST_F(FetchSessionContext, IncrementalReadsEverySessionPartitionAndAnswersOnlyChanges) {
  int32_t id = open(3);
  // The client names only partition 1, with a new offset.
  auto ctx = cache.new_context(request(12, id, 1, {req(named("t", 1), 7, 500)}), no_names, now + 10);
  ASSERT_EQ(ctx.what, fetch_context::kind::incremental);
  ASSERT_EQ(ctx.partitions.size(), 3u);
  EXPECT_EQ(ctx.partitions[0].fetch_offset, offset(0));
  EXPECT_EQ(ctx.partitions[1].fetch_offset, offset(7));
  EXPECT_EQ(ctx.partitions[1].max_bytes, 500);
  EXPECT_EQ(cache.find(id)->epoch(), 2);

  std::vector<partition_result> results = {res(named("t", 0), 10), res(named("t", 1), 11),
                                           res(named("t", 2), 10, 0, 0)};
  auto plan = cache.update_and_generate_response(ctx, results, now + 10);
  EXPECT_EQ(plan.error, error_code::none);
  EXPECT_EQ(plan.session_id, id);
  EXPECT_EQ(plan.include, std::vector<size_t>{1});  // only the HW change

  // Next round: nothing changed → nothing; then each kind of change.
  ctx = cache.new_context(request(12, id, 2, {}), no_names, now + 20);
  plan = cache.update_and_generate_response(ctx, results, now + 20);
  EXPECT_TRUE(plan.include.empty());
  EXPECT_EQ(plan.session_id, id);

  ctx = cache.new_context(request(12, id, 3, {}), no_names, now + 30);
  std::vector<partition_result> changed = {res(named("t", 0), 10, 4), res(named("t", 1), 11),
                                           res(named("t", 2), 10)};
  changed[1].diverging_epoch = true;
  changed[2].preferred_read_replica = true;
  plan = cache.update_and_generate_response(ctx, changed, now + 30);
  EXPECT_EQ(plan.include, (std::vector<size_t>{0, 1, 2}));  // log start, diverging epoch, preferred replica
}

TEST_F(FetchSessionContext, ErrorsAreAlwaysSentAndThePartitionIsResentWhenTheErrorClears) {
  int32_t id = open(1);
  auto ctx = cache.new_context(request(12, id, 1, {}), no_names, now);
  std::vector<partition_result> r = {res(named("t", 0), 10)};
  r[0].error = error_code::not_leader_or_follower;
  EXPECT_EQ(cache.update_and_generate_response(ctx, r, now).include, std::vector<size_t>{0});
  ctx = cache.new_context(request(12, id, 2, {}), no_names, now);
  EXPECT_EQ(cache.update_and_generate_response(ctx, r, now).include, std::vector<size_t>{0});
  // Same HW as before the error, yet it is sent: the error reset the cached HW.
  r[0].error = error_code::none;
  ctx = cache.new_context(request(12, id, 3, {}), no_names, now);
  EXPECT_EQ(cache.update_and_generate_response(ctx, r, now).include, std::vector<size_t>{0});
  ctx = cache.new_context(request(12, id, 4, {}), no_names, now);
  EXPECT_TRUE(cache.update_and_generate_response(ctx, r, now).include.empty());
}

TEST_F(FetchSessionContext, PartitionsThatReturnedRecordsMoveToTheEnd) {
  int32_t id = open(3);
  auto ctx = cache.new_context(request(12, id, 1, {}), no_names, now);
  std::vector<partition_result> r = {res(named("t", 0), 10, 0, 100), res(named("t", 1), 10),
                                     res(named("t", 2), 10)};
  cache.update_and_generate_response(ctx, r, now);
  ctx = cache.new_context(request(12, id, 2, {}), no_names, now);
  ASSERT_EQ(ctx.partitions.size(), 3u);
  EXPECT_EQ(ctx.partitions[0].key.partition, 1);
  EXPECT_EQ(ctx.partitions[1].key.partition, 2);
  EXPECT_EQ(ctx.partitions[2].key.partition, 0);
}

TEST_F(FetchSessionContext, SessionErrors) {
  int32_t id = open(1);
  auto expect_error = [&](const fetch_context& ctx, error_code e) {
    EXPECT_EQ(ctx.what, fetch_context::kind::session_error);
    EXPECT_EQ(ctx.error, e);
    EXPECT_TRUE(ctx.partitions.empty());
    std::vector<partition_result> none;
    auto plan = cache.update_and_generate_response(ctx, none, now);
    EXPECT_EQ(plan.error, e);
    EXPECT_EQ(plan.session_id, invalid_session_id);
    EXPECT_TRUE(plan.include.empty());
  };
  expect_error(cache.new_context(request(12, id + 1, 1, {}), no_names, now), error_code::fetch_session_id_not_found);
  expect_error(cache.new_context(request(12, invalid_session_id, 1, {}), no_names, now),
               error_code::fetch_session_id_not_found);
  expect_error(cache.new_context(request(12, id, 2, {}), no_names, now), error_code::invalid_fetch_session_epoch);
  expect_error(cache.new_context(request(13, id, 1, {}), no_names, now), error_code::fetch_session_topic_id_error);
  // None of these touched the session: the right request still works.
  EXPECT_EQ(cache.find(id)->epoch(), 1);
  EXPECT_EQ(cache.new_context(request(12, id, 1, {}), no_names, now).what, fetch_context::kind::incremental);
}

TEST_F(FetchSessionContext, TopicIdSessionRefusesNameRequests) {
  std::vector<partition_request> parts = {req({id_of(1), "a", 0}, 0)};
  std::vector<partition_result> results = {res({id_of(1), "a", 0}, 5)};
  auto ctx = cache.new_context(request(13, 0, initial_epoch, parts), no_names, now);
  int32_t id = cache.update_and_generate_response(ctx, results, now).session_id;
  ASSERT_TRUE(cache.find(id) && cache.find(id)->uses_topic_ids());
  EXPECT_EQ(cache.new_context(request(12, id, 1, {}), no_names, now).error, error_code::fetch_session_topic_id_error);
  EXPECT_EQ(cache.new_context(request(17, id, 1, {}), no_names, now).what, fetch_context::kind::incremental);
}

TEST_F(FetchSessionContext, TopicIdsAreTheIdentityAndUnknownNamesResolveLater) {
  // Partition added while its topic id is unknown to this broker (no name).
  std::vector<partition_request> parts = {req({id_of(1), "", 0}, 0)};
  std::vector<partition_result> results = {res({id_of(1), "", 0}, -1)};
  results[0].error = error_code::unknown_topic_id;
  auto ctx = cache.new_context(request(13, 0, initial_epoch, parts), no_names, now);
  int32_t id = cache.update_and_generate_response(ctx, results, now).session_id;
  auto names = [](const protocol::uuid& u) -> std::optional<std::string> {
    if (u == id_of(1)) return "late";
    return std::nullopt;
  };
  ctx = cache.new_context(request(13, id, 1, {}), names, now);
  ASSERT_EQ(ctx.partitions.size(), 1u);
  EXPECT_EQ(ctx.partitions[0].key.topic, "late");
  // The same id under any name is the same partition: an update, not an add.
  ctx = cache.new_context(request(13, id, 2, {req({id_of(1), "other", 0}, 9)}), names, now);
  ASSERT_EQ(ctx.partitions.size(), 1u);
  EXPECT_EQ(ctx.partitions[0].fetch_offset, offset(9));
  EXPECT_EQ(ctx.partitions[0].key.topic, "late");
}

TEST_F(FetchSessionContext, AddedPartitionsAreAppendedAndSentOnceTheyHaveState) {
  int32_t id = open(1);
  auto ctx = cache.new_context(request(12, id, 1, {req(named("u", 0), 0)}), no_names, now);
  ASSERT_EQ(ctx.partitions.size(), 2u);
  EXPECT_EQ(ctx.partitions[1].key.topic, "u");
  std::vector<partition_result> r = {res(named("t", 0), 10), res(named("u", 0), -1, -1)};
  // An added partition starts from HW -1 and log start -1, so any real state
  // is news; one that really is at -1/-1 is left out, as in Kafka.
  EXPECT_TRUE(cache.update_and_generate_response(ctx, r, now).include.empty());
  ctx = cache.new_context(request(12, id, 2, {req(named("v", 0), 0)}), no_names, now);
  std::vector<partition_result> r2 = {res(named("t", 0), 10), res(named("u", 0), -1, -1), res(named("v", 0), 0)};
  EXPECT_EQ(cache.update_and_generate_response(ctx, r2, now).include, std::vector<size_t>{2});
  EXPECT_EQ(cache.total_partitions(), 3u);
}

TEST_F(FetchSessionContext, ForgottenPartitionsLeaveAndForgettingAllEndsTheSession) {
  int32_t id = open(2);
  auto ctx = cache.new_context(request(12, id, 1, {}, {named("t", 0), named("nope", 3)}), no_names, now);
  ASSERT_EQ(ctx.partitions.size(), 1u);
  EXPECT_EQ(ctx.partitions[0].key.partition, 1);
  EXPECT_EQ(cache.total_partitions(), 1u);
  // Fetched and forgotten in one request: forgotten wins.
  ctx = cache.new_context(request(12, id, 2, {req(named("t", 1), 3)}, {named("t", 1)}), no_names, now);
  EXPECT_EQ(ctx.what, fetch_context::kind::sessionless);
  EXPECT_EQ(ctx.partitions.size(), 1u);  // answered like a sessionless request
  EXPECT_FALSE(cache.find(id));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.total_partitions(), 0u);
}

TEST_F(FetchSessionContext, FullRequestNamingASessionClosesIt) {
  int32_t id = open(1);
  auto ctx = cache.new_context(request(12, id, initial_epoch, {req(named("t", 0), 0)}), no_names, now);
  EXPECT_EQ(ctx.what, fetch_context::kind::full);
  EXPECT_FALSE(cache.find(id));
  std::vector<partition_result> r = {res(named("t", 0), 10)};
  int32_t id2 = cache.update_and_generate_response(ctx, r, now).session_id;
  EXPECT_NE(id2, invalid_session_id);
  EXPECT_NE(id2, id);
  ctx = cache.new_context(request(12, id2, final_epoch, {req(named("t", 0), 0)}), no_names, now);
  EXPECT_EQ(ctx.what, fetch_context::kind::sessionless);
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(FetchSessionContext, DuplicateRequestGetsInvalidEpochWithTheSessionId) {
  int32_t id = open(1);
  auto first = cache.new_context(request(12, id, 1, {}), no_names, now);
  auto second = cache.new_context(request(12, id, 2, {}), no_names, now);  // overtakes the first
  std::vector<partition_result> r = {res(named("t", 0), 11)};
  auto plan = cache.update_and_generate_response(first, r, now);
  EXPECT_EQ(plan.error, error_code::invalid_fetch_session_epoch);
  EXPECT_EQ(plan.session_id, id);
  EXPECT_TRUE(plan.include.empty());
  EXPECT_EQ(cache.throttled_response(first).error, error_code::invalid_fetch_session_epoch);
  plan = cache.update_and_generate_response(second, r, now);
  EXPECT_EQ(plan.error, error_code::none);
  EXPECT_EQ(plan.include, std::vector<size_t>{0});
}

TEST_F(FetchSessionContext, APartitionNamedTwiceCountsOnceWithItsLastParameters) {
  auto ctx = cache.new_context(
      request(12, 0, initial_epoch, {req(named("t", 0), 1), req(named("t", 1), 2), req(named("t", 0), 3)}), no_names,
      now);
  ASSERT_EQ(ctx.partitions.size(), 2u);
  EXPECT_EQ(ctx.partitions[0].key.partition, 0);
  EXPECT_EQ(ctx.partitions[0].fetch_offset, offset(3));
  // Even if the results repeat it, the session holds it once.
  std::vector<partition_result> r = {res(named("t", 0), 10), res(named("t", 1), 10), res(named("t", 0), 10)};
  int32_t id = cache.update_and_generate_response(ctx, r, now).session_id;
  EXPECT_EQ(cache.find(id)->size(), 2u);
  ctx = cache.new_context(request(12, 0, final_epoch, {req(named("t", 0), 1), req(named("t", 0), 3)}), no_names, now);
  ASSERT_EQ(ctx.partitions.size(), 1u);
}

TEST_F(FetchSessionContext, ThrottledFullRequestOpensNoSession) {
  auto ctx = cache.new_context(request(12, 0, initial_epoch, {req(named("t", 0), 0)}), no_names, now);
  auto plan = cache.throttled_response(ctx);
  EXPECT_EQ(plan.error, error_code::none);
  EXPECT_EQ(plan.session_id, invalid_session_id);
  EXPECT_TRUE(plan.include.empty());
  EXPECT_EQ(cache.size(), 0u);
  int32_t id = open(1);
  ctx = cache.new_context(request(12, id, 1, {}), no_names, now);
  plan = cache.throttled_response(ctx);
  EXPECT_EQ(plan.session_id, id);
  EXPECT_EQ(plan.error, error_code::none);
}

}  // namespace
}  // namespace hw::broker::fetch
