// Streams-group records (KIP-1071) in `__consumer_offsets`: each type
// encoded with its record type in the key and value version 0, decoded back
// to the same record, tombstones without a value, other record types and
// damaged bytes refused; a topology through its record value and back.
#include <gtest/gtest.h>

#include "broker/group/streams/streams_group_records.h"
#include "protocol/wire/reader.h"

namespace hw::broker::group::streams {
namespace {

template <class Record>
void round_trips(const Record& r, int16_t type) {
  const streams_group_record record = r;
  const auto encoded = encode_record(record);
  protocol::reader key(encoded.key);
  EXPECT_EQ(key.read_int16(), type);
  std::optional<byte_view> value;
  if (encoded.value) value = byte_view(*encoded.value);
  auto decoded = decode_streams_group_record(encoded.key, value);
  ASSERT_TRUE(decoded.has_value()) << "type " << type;
  EXPECT_EQ(*decoded, record) << "type " << type;
  EXPECT_EQ(group_of(*decoded), "app");
}

topology sample_topology() {
  topology t;
  t.epoch = 2;
  subtopology s;
  s.id = "0";
  s.source_topics = {"in", "other"};
  s.repartition_sink_topics = {"app-rep"};
  s.state_changelog_topics = {{"app-store-changelog", 0, 3, {{"cleanup.policy", "compact"}}}};
  s.copartition_groups = {{{0, 1}, {}, {}}};
  subtopology r;
  r.id = "1";
  r.repartition_source_topics = {{"app-rep", 0, 0, {}}};
  t.subtopologies = {s, r};
  return t;
}

TEST(StreamsRecords, EveryTypeRoundTripsAndTombstonesHaveNoValue) {
  group_metadata_record g;
  g.key.group_id = "app";
  g.value.emplace();
  g.value->epoch = 5;
  g.value->metadata_hash = -77;
  g.value->validated_topology_epoch = 2;
  g.value->last_assignment_configs = std::vector<msg::streams_group_metadata_value::last_assignment_config>{
      {"num.standby.replicas", "1", {}}};
  round_trips(g, 17);
  member_metadata_record m;
  m.key.group_id = "app";
  m.key.member_id = "m1";
  m.value.emplace();
  m.value->client_id = "app-client";
  m.value->client_host = "/127.0.0.1";
  m.value->process_id = "p1";
  m.value->rebalance_timeout_ms = 30000;
  m.value->topology_epoch = 2;
  round_trips(m, 19);
  target_assignment_epoch_record e;
  e.key.group_id = "app";
  e.value.emplace();
  e.value->assignment_epoch = 5;
  round_trips(e, 20);
  target_assignment_member_record a;
  a.key.group_id = "app";
  a.key.member_id = "m1";
  a.value.emplace();
  a.value->active_tasks.push_back({"0", {0, 1}, {}});
  round_trips(a, 21);
  current_assignment_record c;
  c.key.group_id = "app";
  c.key.member_id = "m1";
  c.value.emplace();
  c.value->member_epoch = 5;
  c.value->previous_member_epoch = 4;
  round_trips(c, 22);
  topology_record t;
  t.key.group_id = "app";
  t.value = to_value(sample_topology());
  round_trips(t, 23);
  topology_record tombstone;
  tombstone.key.group_id = "app";
  EXPECT_FALSE(encode_record(tombstone).value.has_value());
  round_trips(tombstone, 23);
}

TEST(StreamsRecords, OtherTypesAndDamagedBytesAreRefused) {
  EXPECT_TRUE(is_streams_group_record_type(17));
  EXPECT_FALSE(is_streams_group_record_type(18));  // partition metadata of releases before 4.3
  EXPECT_TRUE(is_streams_group_record_type(23));
  EXPECT_FALSE(is_streams_group_record_type(16));
  group_metadata_record g;
  g.key.group_id = "app";
  g.value.emplace();
  auto encoded = encode_record(g);
  std::vector<uint8_t> cut(encoded.value->begin(), encoded.value->end() - 1);
  EXPECT_FALSE(decode_streams_group_record(encoded.key, byte_view(cut)).has_value());
  std::vector<uint8_t> consumer_key = {0, 3, 0, 3, 'a', 'p', 'p'};
  EXPECT_FALSE(decode_streams_group_record(consumer_key, std::nullopt).has_value());
}

TEST(StreamsRecords, ATopologyKeepsItsShapeThroughItsRecord) {
  const auto t = sample_topology();
  EXPECT_EQ(topology_from(to_value(t)), t);
}

}  // namespace
}  // namespace hw::broker::group::streams
