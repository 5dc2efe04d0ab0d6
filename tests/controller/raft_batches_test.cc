// controller/raft/raft_batches: log entries as KRaft record batches and back.

#include <gtest/gtest.h>

#include "controller/raft/raft_batches.h"
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

}  // namespace
}  // namespace hw::controller::raft
