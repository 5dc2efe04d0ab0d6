// Golden checks: records Apache Kafka 4.3.1 wrote to __consumer_offsets
// (tests/broker/fixtures/group_golden_records.txt) against what we encode,
// decode and replay.
#include "broker/group/group_records.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/broker/golden_records.h"
#include "tests/broker/group_test_support.h"

namespace hw::broker::group {
namespace {

using namespace testing;

using golden = hw::testing::golden_record;
using hw::testing::read_golden;
using hw::testing::unhex;

loaded_record as_loaded(const golden& g) {
  loaded_record r{g.key, std::nullopt};
  if (g.value) r.value = std::span<const uint8_t>(*g.value);
  return r;
}

coordinator_record as_record(const golden& g) { return {g.key, g.value}; }

const int64_t created_ms = 0x1a22c0a6ad8;
const int64_t committed_ms = 0x1a22c0a6c7a;
const int64_t emptied_ms = 0x1a22c0a6c99;

protocol::uuid golden_topic_id() {
  protocol::uuid id;
  auto bytes = unhex("9f28e110f0394a2c8afc223a528c73f3");
  std::copy(bytes.begin(), bytes.end(), id.bytes.begin());
  return id;
}

TEST(GroupRecords, OffsetCommitRecordEqualsKafkas) {
  auto g = read_golden("group_golden_records.txt");
  committed_offset p1{3, 0, "", committed_ms, std::nullopt, golden_topic_id()};
  EXPECT_EQ(offset_commit_record("golden-group", "golden", 1, p1), as_record(g[2]));
  committed_offset p0{0, -1, "", committed_ms, std::nullopt, golden_topic_id()};
  EXPECT_EQ(offset_commit_record("golden-group", "golden", 0, p0), as_record(g[3]));
  EXPECT_EQ(offset_tombstone_record("golden-group", "golden", 0), as_record(g[5]));
  EXPECT_EQ(group_tombstone_record("golden-group"), as_record(g[7]));
}

TEST(GroupRecords, DecodesKafkasOffsetCommit) {
  auto g = read_golden("group_golden_records.txt");
  auto d = decode_record(g[2].key, std::span<const uint8_t>(*g[2].value));
  ASSERT_TRUE(d.has_value());
  auto* o = std::get_if<offset_record>(&*d);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->group, "golden-group");
  EXPECT_EQ(o->topic, "golden");
  EXPECT_EQ(o->partition, 1);
  ASSERT_TRUE(o->value.has_value());
  EXPECT_EQ(o->value->offset, 3);
  EXPECT_EQ(o->value->leader_epoch, 0);
  EXPECT_EQ(o->value->commit_timestamp_ms, committed_ms);
  EXPECT_EQ(o->value->topic_id, golden_topic_id());
  EXPECT_FALSE(o->value->expire_timestamp_ms.has_value());
}

TEST(GroupRecords, ExpireTimestampWritesValueVersionOne) {
  committed_offset v{5, 2, "m", 100, 200, golden_topic_id()};
  auto rec = offset_commit_record("g", "t", 0, v);
  ASSERT_TRUE(rec.value.has_value());
  EXPECT_EQ((*rec.value)[0], 0);
  EXPECT_EQ((*rec.value)[1], 1);
  auto d = decode_record(rec.key, std::span<const uint8_t>(*rec.value));
  ASSERT_TRUE(d.has_value());
  auto& o = std::get<offset_record>(*d);
  EXPECT_EQ(o.value->expire_timestamp_ms, std::optional<int64_t>(200));
  EXPECT_TRUE(o.value->topic_id.is_zero());  // v1 has no tagged fields
}

TEST(GroupRecords, RejectsGarbageAndSkipsOtherGroupTypes) {
  std::vector<uint8_t> bad{0x00};
  EXPECT_FALSE(decode_record(bad, std::nullopt).has_value());
  std::vector<uint8_t> truncated{0x00, 0x01, 0x00, 0x05, 'a'};
  EXPECT_FALSE(decode_record(truncated, std::nullopt).has_value());
  std::vector<uint8_t> share_group_key{0x00, 0x0b, 0x00, 0x01, 'g'};
  auto d = decode_record(share_group_key, std::nullopt);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(std::get<other_record>(*d).key_version, 11);
  // A consumer group's record is decoded (as a tombstone here), a broken one refused.
  std::vector<uint8_t> consumer_group_key{0x00, 0x03, 0x00, 0x01, 'g'};
  auto c = decode_record(consumer_group_key, std::nullopt);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(std::holds_alternative<consumer::consumer_group_record>(*c));
  std::vector<uint8_t> broken_consumer_group_key{0x00, 0x03, 0x00, 0x05, 'g'};
  EXPECT_FALSE(decode_record(broken_consumer_group_key, std::nullopt).has_value());
}

TEST(GroupRecords, NewGroupWritesKafkasEmptyGroupRecord) {
  shard_harness h;
  h.now = created_ms;
  h.auto_ack = false;
  auto t = h.join(args("golden-group", "golden-client"));
  auto r = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error_code, code(error_code::member_id_required));
  ASSERT_EQ(h.pending.size(), 1u);
  ASSERT_EQ(h.pending[0].records.size(), 1u);
  EXPECT_EQ(h.pending[0].records[0], as_record(read_golden("group_golden_records.txt")[0]));
}

TEST(GroupRecords, LoadedStableGroupReencodesToKafkasBytes) {
  auto g = read_golden("group_golden_records.txt");
  shard_harness h({}, 7, false);
  h.shard.begin_load();
  ASSERT_TRUE(h.shard.load(as_loaded(g[0])));
  ASSERT_TRUE(h.shard.load(as_loaded(g[1])));
  h.shard.end_load(h.now);
  const classic_group* cg = h.shard.find_group("golden-group");
  ASSERT_NE(cg, nullptr);
  EXPECT_EQ(cg->state(), group_state::stable);
  EXPECT_EQ(cg->generation(), 1);
  EXPECT_EQ(cg->protocol_name(), std::optional<std::string>("range"));
  ASSERT_EQ(cg->members().size(), 1u);
  const auto& m = cg->members().begin()->second;
  EXPECT_EQ(m.client_id, "golden-client");
  EXPECT_EQ(m.client_host, "/127.0.0.1");
  EXPECT_EQ(m.session_timeout_ms, 45000);
  EXPECT_EQ(m.rebalance_timeout_ms, 300000);
  EXPECT_EQ(group_metadata_record("golden-group", cg->record_value(nullptr)), as_record(g[1]));
}

TEST(GroupRecords, LeaveToEmptyAndDeleteEqualKafkas) {
  auto g = read_golden("group_golden_records.txt");
  shard_harness h({}, 7, false);
  h.shard.begin_load();
  for (int i = 0; i <= 3; ++i) ASSERT_TRUE(h.shard.load(as_loaded(g[i])));
  h.shard.end_load(h.now);
  h.auto_ack = false;
  h.now = emptied_ms;
  const std::string member = h.shard.find_group("golden-group")->members().begin()->first;
  auto left = h.leave("golden-group", member);
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0].error_code, 0);
  ASSERT_EQ(h.pending.size(), 1u);
  ASSERT_EQ(h.pending[0].records.size(), 1u);
  EXPECT_EQ(h.pending[0].records[0], as_record(g[4]));
  h.ack(error_code::none);

  auto t = h.next_token++;
  h.shard.delete_groups(t, {"golden-group"});
  h.drain();
  ASSERT_EQ(h.pending.size(), 1u);
  std::vector<coordinator_record> expected{as_record(g[5]), as_record(g[6]), as_record(g[7])};
  EXPECT_EQ(h.pending[0].records, expected);
  EXPECT_FALSE(h.answered(t));  // not before the tombstones are durable
  h.ack(error_code::none);
  auto r = h.take<delete_groups_results>(t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->at(0).error_code, 0);
  EXPECT_EQ(h.shard.find_group("golden-group"), nullptr);
  EXPECT_EQ(h.shard.offsets().group_offsets("golden-group"), nullptr);
}

// Kafka's own run (fixtures/group_static_records.txt), replayed through a
// shard whose random source yields the member ids Kafka chose: every record
// must come out byte for byte, including the static member's replacement
// without a rebalance.
TEST(GroupRecords, StaticMemberRestartWritesKafkasRecords) {
  auto g = read_golden("group_static_records.txt");
  ASSERT_EQ(g.size(), 7u);
  auto stored = [&](size_t i) {
    auto d = decode_record(g[i].key, std::span<const uint8_t>(*g[i].value));
    return std::get<group_record>(*d).value->members.at(0);
  };
  const int64_t created = 0x1a22c26f5c7, completed = 0x1a22c26f5f0, stable = 0x1a22c26f65c,
                committed = 0x1a22c26f752;
  // The UUIDs in Kafka's member ids, as two 64-bit halves each.
  std::vector<uint64_t> bits{0xaa70c171d92b4e3fULL, 0x90106387a978e730ULL, 0x821b43450a104f7eULL,
                             0xa64125f3643de6f4ULL};
  size_t next = 0;
  group_config config;
  // Kafka's timer fired 41 ms after the join; ours fires at its deadline.
  config.initial_rebalance_delay_ms = static_cast<int32_t>(completed - created);
  group_shard shard(config, [&] { return bits.at(next++); });
  shard.begin_load();
  shard.end_load(created);
  std::vector<coordinator_record> written;
  auto take_records = [&] {
    auto out = shard.take_output();
    std::vector<append_request> appends = std::move(out.appends);
    for (auto& a : appends) written.insert(written.end(), a.records.begin(), a.records.end());
    return appends;
  };

  msg::join_group_request join;
  join.group_id = "static-group";
  join.group_instance_id = "inst-1";
  join.protocol_type = "consumer";
  join.session_timeout_ms = 45000;
  join.rebalance_timeout_ms = 300000;
  join.protocols.push_back({"range", stored(1).subscription, {}});
  shard.join_group(1, 9, {"static-client", "/127.0.0.1"}, join, created);
  for (auto& a : take_records()) shard.on_append_done(a.token, error_code::none, created);
  shard.tick(completed);
  std::string first_id = "inst-1-aa70c171-d92b-4e3f-9010-6387a978e730";
  ASSERT_EQ(shard.find_group("static-group")->leader_id(), first_id);

  msg::sync_group_request sync;
  sync.group_id = "static-group";
  sync.generation_id = 1;
  sync.member_id = first_id;
  sync.group_instance_id = "inst-1";
  sync.assignments.push_back({first_id, stored(1).assignment, {}});
  shard.sync_group(2, 5, sync, completed);
  for (auto& a : take_records()) shard.on_append_done(a.token, error_code::none, stable);

  msg::offset_commit_request commit;
  commit.group_id = "static-group";
  commit.generation_id_or_member_epoch = 1;
  commit.member_id = first_id;
  commit.group_instance_id = "inst-1";
  protocol::uuid topic_id;
  auto id_bytes = unhex("6db2b6fdf4e94dae88b0aa48a10899ab");
  std::copy(id_bytes.begin(), id_bytes.end(), topic_id.bytes.begin());
  commit.topics.push_back({"st", topic_id, {{1, 0, -1, -1, std::string(""), {}}, {0, 1, -1, -1, std::string(""), {}}}, {}});
  shard.commit_offsets(3, 9, commit, committed);
  for (auto& a : take_records()) shard.on_append_done(a.token, error_code::none, committed);

  // The consumer process restarts with the same group.instance.id.
  join.protocols[0].metadata = stored(4).subscription;
  shard.join_group(4, 9, {"static-client", "/127.0.0.1"}, join, committed + 5000);
  for (auto& a : take_records()) shard.on_append_done(a.token, error_code::none, committed + 5000);

  ASSERT_EQ(written.size(), 5u);
  for (size_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i], as_record(g[i])) << "record " << i;
  auto out = shard.take_output();
  bool rejoined = false;
  for (auto& c : out.completions) {
    if (c.token != 4) continue;
    auto& j = std::get<msg::join_group_response>(c.answer);
    EXPECT_EQ(j.error_code, 0);
    EXPECT_EQ(j.generation_id, 1);
    EXPECT_EQ(j.member_id, "inst-1-821b4345-0a10-4f7e-a641-25f3643de6f4");
    rejoined = true;
  }
  EXPECT_TRUE(rejoined);
}

// Consumer groups (KIP-848): every record Kafka 4.3.1 wrote for a group of
// regex and static members (fixtures/consumer_group_records_4_3.txt, from
// tests/tools/capture_consumer_group_records.py) decodes, and encodes back to
// Kafka's bytes.
TEST(ConsumerGroupRecords, KafkasRecordsDecodeAndEncodeBackByteForByte) {
  auto records = read_golden("consumer_group_records_4_3.txt");
  std::map<int16_t, int> types;
  for (const auto& g : records) {
    SCOPED_TRACE("offset " + std::to_string(g.offset));
    auto d = decode_record(g.key, g.value ? std::optional<byte_view>(*g.value) : std::nullopt);
    ASSERT_TRUE(d.has_value());
    if (std::holds_alternative<offset_record>(*d)) continue;  // the members' commits
    auto* c = std::get_if<consumer::consumer_group_record>(&*d);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(consumer::group_of(*c), "cg-capture");
    const auto again = consumer::encode_record(*c);
    EXPECT_EQ(again.key, g.key);
    EXPECT_EQ(again.value, g.value);
    ++types[static_cast<int16_t>((g.key[0] << 8) | g.key[1])];
  }
  // Each kind Kafka 4.3 writes for such a group (not type 4, the partition
  // metadata it stopped writing in 4.1).
  for (int16_t type : {3, 5, 6, 7, 8, 16}) EXPECT_GT(types[type], 0) << "record type " << type;
}

TEST(ConsumerGroupRecords, KafkasRecordsSayWhatTheGroupDid) {
  using namespace consumer;
  std::vector<consumer_group_record> decoded;
  for (const auto& g : read_golden("consumer_group_records_4_3.txt")) {
    auto d = decode_record(g.key, g.value ? std::optional<byte_view>(*g.value) : std::nullopt);
    ASSERT_TRUE(d.has_value());
    if (auto* c = std::get_if<consumer_group_record>(&*d)) decoded.push_back(std::move(*c));
  }
  // The first member: librdkafka subscribing to a regular expression with the uniform assignor.
  const auto& member = std::get<member_metadata_record>(decoded.at(0));
  ASSERT_TRUE(member.value.has_value());
  EXPECT_EQ(member.value->client_id, "rdkafka");
  // librdkafka sends its subscribed expressions joined, each in parentheses.
  EXPECT_EQ(member.value->subscribed_topic_regex, std::optional<std::string>("(^cap-.*)"));
  EXPECT_EQ(member.value->server_assignor, std::optional<std::string>("uniform"));
  EXPECT_FALSE(member.value->instance_id.has_value());
  // The regular expression resolved to the two topics it matched, then to three once cap-c was made.
  std::vector<std::vector<std::string>> resolved;
  bool regex_removed = false;
  int32_t last_epoch = 0, static_leave_epoch = 0;
  bool assignment_epochs_seen = false;
  for (const auto& r : decoded) {
    if (auto* re = std::get_if<regular_expression_record>(&r)) {
      EXPECT_EQ(re->key.regular_expression, "(^cap-.*)");
      if (re->value) resolved.push_back(re->value->topics);
      else regex_removed = true;
    }
    if (auto* e = std::get_if<group_epoch_record>(&r); e && e->value) {
      EXPECT_GT(e->value->epoch, last_epoch);  // the group epoch only grows
      last_epoch = e->value->epoch;
      EXPECT_NE(e->value->metadata_hash, 0);
    }
    if (auto* a = std::get_if<current_assignment_record>(&r); a && a->value) {
      for (const auto& tp : a->value->assigned_partitions) assignment_epochs_seen |= !tp.assignment_epochs->empty();
      if (a->value->member_epoch == -2) static_leave_epoch = a->value->member_epoch;
    }
  }
  EXPECT_EQ(resolved, (std::vector<std::vector<std::string>>{{"cap-a", "cap-b"}, {"cap-a", "cap-b", "cap-c"}}));
  EXPECT_TRUE(regex_removed);           // once no member subscribed to it any more
  EXPECT_TRUE(assignment_epochs_seen);  // 4.3's per-partition assignment epochs (tagged)
  EXPECT_EQ(static_leave_epoch, -2);    // the static member left temporarily
}

TEST(ConsumerGroupRecords, BrokenRecordsAreRefused) {
  using namespace consumer;
  member_metadata_record m;
  m.key.group_id = "g";
  m.key.member_id = "m";
  m.value.emplace();
  m.value->client_id = "c";
  auto rec = encode_record(m);
  EXPECT_TRUE(decode_consumer_group_record(rec.key, byte_view(*rec.value)).has_value());
  auto truncated = *rec.value;
  truncated.pop_back();
  EXPECT_FALSE(decode_consumer_group_record(rec.key, byte_view(truncated)).has_value());
  auto wrong_version = *rec.value;
  wrong_version[1] = 1;
  EXPECT_FALSE(decode_consumer_group_record(rec.key, byte_view(wrong_version)).has_value());
  auto trailing = *rec.value;
  trailing.push_back(0);
  EXPECT_FALSE(decode_consumer_group_record(rec.key, byte_view(trailing)).has_value());
  std::vector<uint8_t> share_key{0x00, 0x0b, 0x00, 0x01, 'g'};
  EXPECT_FALSE(decode_consumer_group_record(share_key, std::nullopt).has_value());
  EXPECT_FALSE(is_consumer_group_record_type(11));
  EXPECT_TRUE(is_consumer_group_record_type(16));
}

}  // namespace
}  // namespace hw::broker::group
