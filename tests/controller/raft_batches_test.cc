// controller/raft/raft_batches: log entries as KRaft record batches and back.

#include <gtest/gtest.h>

#include "controller/raft/raft_batches.h"

#include <fstream>
#include <iterator>

#include "controller/raft/snapshot_file.h"
#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"

namespace hw::controller::raft {
namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

std::vector<log_entry> sample() {
  std::vector<node_id> voters{node_id(1), node_id(2), node_id(3)};
  return {
      log_entry{offset(0), epoch(1), true, {leader_change_record(node_id(2), voters)}, 1'700'000'000'000},
      log_entry{offset(1), epoch(1), false, {bytes_of("a"), bytes_of("bb"), bytes_of("")}, 1'700'000'000'005},
      log_entry{offset(4), epoch(3), false, {bytes_of("ccc")}, 1'700'000'000'009},
  };
}

TEST(RaftBatches, EntriesRoundTrip) {
  auto entries = sample();
  auto bytes = encode_entries(entries);
  std::vector<log_entry> back;
  std::string error;
  ASSERT_TRUE(decode_entries(protocol::bytes_view(bytes.data(), bytes.size()), &back, &error)) << error;
  EXPECT_EQ(back, entries);
}

TEST(RaftBatches, BatchesAreKafkasKRaftBatches) {
  auto entries = sample();
  auto bytes = encode_entries(entries);
  protocol::record_batch_walker walker(protocol::bytes_view(bytes.data(), bytes.size()));
  protocol::record_batch_view b;
  ASSERT_TRUE(walker.next(b));
  EXPECT_EQ(b.validate(), protocol::batch_error::none);
  EXPECT_TRUE(b.is_control());
  EXPECT_EQ(b.partition_leader_epoch(), 1);
  EXPECT_EQ(b.producer_id(), -1);
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  ASSERT_EQ(b.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
  protocol::record_view r;
  ASSERT_TRUE(it.next(r));
  auto key = protocol::parse_control_key(r);
  ASSERT_TRUE(key);
  EXPECT_EQ(key->type, static_cast<int16_t>(protocol::control_record_type::leader_change));
  ASSERT_TRUE(r.value);
  protocol::reader vr(*r.value);
  protocol::msg::leader_change_message lc;
  lc.decode(vr, 0);
  ASSERT_TRUE(vr.ok());
  EXPECT_EQ(lc.leader_id, 2);
  ASSERT_EQ(lc.voters.size(), 3u);
  EXPECT_EQ(lc.voters[2].voter_id, 3);
  EXPECT_EQ(lc.granting_voters.size(), 3u);

  ASSERT_TRUE(walker.next(b));
  EXPECT_FALSE(b.is_control());
  EXPECT_EQ(b.base_offset(), 1);
  EXPECT_EQ(b.next_offset(), 4);
  EXPECT_EQ(b.base_timestamp(), 1'700'000'000'005);
  ASSERT_EQ(b.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
  ASSERT_TRUE(it.next(r));
  EXPECT_FALSE(r.key) << "metadata records have null keys";
}

TEST(RaftBatches, APartialBatchAtTheEndIsLeftOut) {
  auto entries = sample();
  auto bytes = encode_entries(entries);
  bytes.resize(bytes.size() - 5);
  std::vector<log_entry> back;
  std::string error;
  ASSERT_TRUE(decode_entries(protocol::bytes_view(bytes.data(), bytes.size()), &back, &error)) << error;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1], entries[1]);
}

TEST(RaftBatches, DamageIsRefusedWithAReason) {
  auto entries = sample();
  auto bytes = encode_entries(entries);
  bytes[bytes.size() - 2] ^= 0x40;  // inside the last batch's records
  std::vector<log_entry> back;
  std::string error;
  EXPECT_FALSE(decode_entries(protocol::bytes_view(bytes.data(), bytes.size()), &back, &error));
  EXPECT_NE(error.find("corrupt batch at offset 4"), std::string::npos) << error;

  // Batches out of order.
  std::vector<log_entry> swapped{entries[2], entries[1]};
  auto out_of_order = encode_entries(swapped);
  back.clear();
  EXPECT_FALSE(decode_entries(protocol::bytes_view(out_of_order.data(), out_of_order.size()), &back, &error));
  EXPECT_NE(error.find("goes back"), std::string::npos) << error;
}

voter_set two_voters() {
  voter_set s;
  for (int32_t id : {1, 2}) {
    voter v;
    v.id = node_id(id);
    v.directory_id.bytes[15] = static_cast<uint8_t>(id);
    v.endpoints.push_back({"CONTROLLER", "127.0.0.1", static_cast<uint16_t>(29100 + id)});
    s = s.with(v);
  }
  return s;
}

// The KRaftVoters batches of a dynamic quorum (KIP-853): the first batch of
// an epoch whose voters came from the bootstrap checkpoint (LeaderChange,
// KRaftVersion, KRaftVoters) and a voter change (KRaftVoters alone).
TEST(RaftBatches, VoterBatchesRoundTripWithTheirControlTypes) {
  const voter_set set = two_voters();
  std::vector<log_entry> entries{
      log_entry{offset(0), epoch(1), true,
                {leader_change_record(node_id(1), set.ids()), kraft_version_record(1), voters_record(set)}, 7, set},
      log_entry{offset(3), epoch(1), true, {voters_record(set.without(node_id(1)))}, 9, set.without(node_id(1))},
  };
  auto bytes = encode_entries(entries);
  std::vector<log_entry> back;
  std::string error;
  ASSERT_TRUE(decode_entries(protocol::bytes_view(bytes.data(), bytes.size()), &back, &error)) << error;
  EXPECT_EQ(back, entries);
  protocol::record_batch_walker walker(protocol::bytes_view(bytes.data(), bytes.size()));
  protocol::record_batch_view b;
  ASSERT_TRUE(walker.next(b));
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  ASSERT_EQ(b.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
  std::vector<int16_t> types;
  protocol::record_view r;
  while (it.next(r)) types.push_back(protocol::parse_control_key(r)->type);
  EXPECT_EQ(types, (std::vector<int16_t>{2, 5, 6}));
}

// The VotersRecord Kafka 4.3.1's `kafka-storage.sh format --standalone`
// wrote (tests/controller/fixtures/kafka_4_3_1_snapshot_kraft1): decoded,
// and written back byte for byte.
TEST(RaftBatches, ReadsAndWritesKafkasVotersRecord) {
  std::ifstream in(std::string(HW_SOURCE_DIR) +
                       "/tests/controller/fixtures/kafka_4_3_1_snapshot_kraft1/00000000000000000000-0000000000.checkpoint",
                   std::ios::binary);
  std::vector<uint8_t> file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto snap = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(snap.ok()) << snap.error;
  ASSERT_TRUE(snap.voters_record);
  const auto& raw = *snap.voters_record;
  auto set = decode_voters_record(protocol::bytes_view(raw.data(), raw.size()));
  ASSERT_TRUE(set);
  ASSERT_EQ(set->size(), 1u);
  const voter& v = set->voters[0];
  EXPECT_EQ(v.id, node_id(1));
  EXPECT_FALSE(v.directory_id.is_zero());
  ASSERT_EQ(v.endpoints.size(), 1u);
  EXPECT_EQ(v.endpoints[0].name, "CONTROLLER");
  EXPECT_EQ(v.endpoints[0].port, 39293);
  EXPECT_EQ(v.min_kraft_version, 0);
  EXPECT_EQ(v.max_kraft_version, 1);
  EXPECT_EQ(voters_record(*set), raw);
  // A record with two voters of one id is not a voter set.
  std::vector<uint8_t> doubled = voters_record(two_voters());
  auto twice = two_voters();
  twice.voters[1].id = node_id(1);
  protocol::msg::voters_record rec;
  rec.version = 0;
  for (const auto& x : twice.voters) {
    protocol::msg::voters_record::voter w;
    w.voter_id = x.id.value;
    w.voter_directory_id = x.directory_id;
    rec.voters.push_back(w);
  }
  std::vector<uint8_t> bad;
  protocol::writer wr(bad);
  rec.encode(wr, 0);
  EXPECT_FALSE(decode_voters_record(protocol::bytes_view(bad.data(), bad.size())));
  EXPECT_TRUE(decode_voters_record(protocol::bytes_view(doubled.data(), doubled.size())));
}

}  // namespace
}  // namespace hw::controller::raft
