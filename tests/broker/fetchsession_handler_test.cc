// The client's side of a KIP-227 fetch session (a follower's fetcher):
// what each request carries, how answers and failures move the session,
// and, against the broker's own session cache, that the leader always
// reads exactly the partitions the client wants, with the fields it would
// have sent in a full request.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "broker/fetch/fetch_session_cache.h"
#include "broker/fetch/fetch_session_handler.h"

namespace hw::broker::fetch {
namespace {

using protocol::error_code;
using storage::offset;

protocol::uuid topic_id(uint8_t b) {
  protocol::uuid u;
  u.bytes[0] = 0x17;
  u.bytes[15] = b;
  return u;
}

partition_request at(int32_t partition, int64_t fetch_offset, uint8_t topic = 1) {
  partition_request r;
  r.key = {topic_id(topic), "", partition};
  r.fetch_offset = offset(fetch_offset);
  r.log_start_offset = offset(0);
  r.max_bytes = 1 << 20;
  r.current_leader_epoch = storage::leader_epoch(3);
  r.last_fetched_epoch = storage::leader_epoch(3);
  return r;
}

std::vector<int32_t> partitions_of(const std::vector<partition_request>& v) {
  std::vector<int32_t> out;
  for (const auto& p : v) out.push_back(p.key.partition);
  return out;
}

TEST(FetchSessionHandler, OpensWithAFullRequestThenSendsOnlyWhatChanged) {
  fetch_session_handler h;
  auto first = h.build({at(0, 10), at(1, 20), at(2, 30)});
  EXPECT_TRUE(first.full);
  EXPECT_EQ(first.session_id, invalid_session_id);
  EXPECT_EQ(first.session_epoch, initial_epoch);
  EXPECT_EQ(partitions_of(first.partitions), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_TRUE(h.handle_response(error_code::none, 77));
  EXPECT_EQ(h.session_id(), 77);
  EXPECT_EQ(h.session_size(), 3u);

  // Nothing changed: an incremental request with no partitions.
  auto idle = h.build({at(0, 10), at(1, 20), at(2, 30)});
  EXPECT_FALSE(idle.full);
  EXPECT_EQ(idle.session_id, 77);
  EXPECT_EQ(idle.session_epoch, 1);
  EXPECT_TRUE(idle.partitions.empty());
  EXPECT_TRUE(idle.forgotten.empty());
  EXPECT_TRUE(h.handle_response(error_code::none, 77));

  // Partition 1 appended (new fetch offset), 2 is no longer fetched, 3 is new.
  auto next = h.build({at(0, 10), at(1, 25), at(3, 0)});
  EXPECT_EQ(next.session_epoch, 2);
  EXPECT_EQ(partitions_of(next.partitions), (std::vector<int32_t>{1, 3}));
  ASSERT_EQ(next.forgotten.size(), 1u);
  EXPECT_EQ(next.forgotten[0].partition, 2);
  EXPECT_EQ(next.forgotten[0].topic_id, topic_id(1));
  EXPECT_TRUE(h.handle_response(error_code::none, 77));
  EXPECT_EQ(h.session_size(), 3u);

  // Every field counts as a change, not only the offset.
  auto bumped = at(0, 10);
  bumped.current_leader_epoch = storage::leader_epoch(4);
  auto epochs = h.build({bumped, at(1, 25), at(3, 0)});
  EXPECT_EQ(partitions_of(epochs.partitions), (std::vector<int32_t>{0}));
}

TEST(FetchSessionHandler, AFullAnswerWithoutASessionKeepsEveryRequestFull) {
  fetch_session_handler h;
  h.build({at(0, 1)});
  EXPECT_TRUE(h.handle_response(error_code::none, invalid_session_id));
  auto again = h.build({at(0, 2)});
  EXPECT_TRUE(again.full);
  EXPECT_EQ(again.session_id, invalid_session_id);
  EXPECT_EQ(again.session_epoch, initial_epoch);
  EXPECT_EQ(again.partitions.size(), 1u);
}

TEST(FetchSessionHandler, AnUnknownSessionStartsAfreshAndOtherErrorsReplaceTheSession) {
  fetch_session_handler h;
  h.build({at(0, 1), at(1, 1)});
  ASSERT_TRUE(h.handle_response(error_code::none, 5));
  h.build({at(0, 1), at(1, 1)});
  // The leader lost the session (restarted, evicted it): not used, and the
  // next request opens a new one with no id.
  EXPECT_FALSE(h.handle_response(error_code::fetch_session_id_not_found, invalid_session_id));
  auto fresh = h.build({at(0, 1), at(1, 1)});
  EXPECT_TRUE(fresh.full);
  EXPECT_EQ(fresh.session_id, invalid_session_id);
  EXPECT_EQ(fresh.partitions.size(), 2u);
  ASSERT_TRUE(h.handle_response(error_code::none, 6));

  // An epoch the leader did not expect: close session 6 and open another.
  h.build({at(0, 2), at(1, 1)});
  EXPECT_FALSE(h.handle_response(error_code::invalid_fetch_session_epoch, invalid_session_id));
  auto reopen = h.build({at(0, 2), at(1, 1)});
  EXPECT_TRUE(reopen.full);
  EXPECT_EQ(reopen.session_id, 6);
  EXPECT_EQ(reopen.session_epoch, initial_epoch);
  EXPECT_EQ(reopen.partitions.size(), 2u);
  ASSERT_TRUE(h.handle_response(error_code::none, 9));
  EXPECT_EQ(h.session_id(), 9);

  // No answer at all: the same, closing 9.
  h.build({at(0, 3), at(1, 1)});
  h.handle_error();
  auto after_loss = h.build({at(0, 3), at(1, 1)});
  EXPECT_TRUE(after_loss.full);
  EXPECT_EQ(after_loss.session_id, 9);
  EXPECT_EQ(after_loss.session_epoch, initial_epoch);

  // An incremental answer naming another session is not applied.
  ASSERT_TRUE(h.handle_response(error_code::none, 10));
  h.build({at(0, 4), at(1, 1)});
  EXPECT_FALSE(h.handle_response(error_code::none, 11));
  EXPECT_TRUE(h.build({at(0, 4), at(1, 1)}).full);
}

// The client against the broker's session cache, for many rounds of random
// changes (partitions appended to, dropped, added back; requests lost;
// sessions evicted by other clients): every request's context reads
// exactly the partitions the client wants, each with the fields the client
// holds for it now.
TEST(FetchSessionHandler, TheLeaderAlwaysReadsWhatTheClientWants) {
  std::mt19937 rng(2024);
  fetch_session_cache cache({.max_sessions = 2, .eviction_ms = 0}, [&] { return static_cast<uint32_t>(rng()); });
  fetch_session_handler h;
  std::map<std::pair<uint8_t, int32_t>, partition_request> wanted;
  for (uint8_t t = 1; t <= 3; ++t)
    for (int32_t p = 0; p < 4; ++p) wanted[{t, p}] = at(p, 0, t);
  int64_t now = 1000;
  int incremental = 0;
  for (int round = 0; round < 2000; ++round) {
    now += 10;
    for (auto& [key, p] : wanted)
      if (rng() % 4 == 0) p.fetch_offset = offset(p.fetch_offset.value + 1 + rng() % 5);
    if (rng() % 10 == 0) {
      const auto key = std::make_pair(static_cast<uint8_t>(1 + rng() % 3), static_cast<int32_t>(rng() % 6));
      if (wanted.count(key)) wanted.erase(key);
      else wanted[key] = at(key.second, 0, key.first);
    }
    std::vector<partition_request> next;
    for (const auto& [key, p] : wanted) next.push_back(p);

    auto r = h.build(next);
    fetch_request_view view;
    view.version = 16;
    view.from_follower = true;
    view.session_id = r.session_id;
    view.session_epoch = r.session_epoch;
    view.partitions = r.partitions;
    for (const auto& f : r.forgotten) view.forgotten.push_back({f.topic_id, f.topic, f.partition});
    auto ctx = cache.new_context(view, [](const protocol::uuid&) { return std::optional<std::string>("t"); }, now);
    if (rng() % 50 == 0) {
      h.handle_error();  // the answer never came
      continue;
    }
    if (ctx.what == fetch_context::kind::session_error) {
      EXPECT_FALSE(h.handle_response(ctx.error, invalid_session_id));
      continue;
    }
    if (ctx.what == fetch_context::kind::incremental) ++incremental;
    // The leader reads what the client wants, nothing more or less.
    std::map<std::pair<protocol::uuid, int32_t>, const partition_request*> read;
    for (const auto& p : ctx.partitions) read[{p.key.topic_id, p.key.partition}] = &p;
    ASSERT_EQ(read.size(), wanted.size()) << "round " << round;
    for (const auto& [key, p] : wanted) {
      auto it = read.find({topic_id(key.first), key.second});
      ASSERT_NE(it, read.end()) << "round " << round;
      EXPECT_EQ(it->second->fetch_offset, p.fetch_offset) << "round " << round;
    }
    std::vector<partition_result> results;
    for (const auto& p : ctx.partitions) {
      partition_result res;
      res.key = p.key;
      res.high_watermark = p.fetch_offset;
      res.log_start_offset = offset(0);
      results.push_back(res);
    }
    auto plan = cache.update_and_generate_response(ctx, results, now);
    EXPECT_TRUE(h.handle_response(plan.error, plan.session_id));
    // Now and then another client's session takes a slot, which may evict ours.
    if (rng() % 40 == 0) {
      fetch_request_view other;
      other.version = 16;
      other.from_follower = true;
      other.session_id = invalid_session_id;
      other.session_epoch = initial_epoch;
      for (int i = 0; i < 20; ++i) other.partitions.push_back(at(i, 0, 9));
      auto octx = cache.new_context(other, [](const protocol::uuid&) { return std::optional<std::string>("o"); }, now);
      std::vector<partition_result> ores;
      for (const auto& p : octx.partitions) {
        partition_result res;
        res.key = p.key;
        ores.push_back(res);
      }
      cache.update_and_generate_response(octx, ores, now);
    }
  }
  EXPECT_GT(incremental, 1000);
}

}  // namespace
}  // namespace hw::broker::fetch
