// controller/raft/raft_wire: every KRaft message from the core to Kafka's
// wire format, through bytes at the version the driver speaks, and back.

#include <gtest/gtest.h>

#include "controller/raft/raft_batches.h"
#include "controller/raft/raft_wire.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::controller::raft {
namespace {

using protocol::error_code;
const std::string cluster = "MkU3OEVBNTcwNTJENDM2Qg";

// Encodes w at version and decodes it again, as a peer would.
template <typename W>
W through_bytes(const W& w, int16_t version, std::vector<uint8_t>& buffer) {
  buffer.clear();
  protocol::writer out(buffer);
  w.encode(out, version);
  EXPECT_EQ(buffer.size(), w.encoded_size(version));
  protocol::reader in(buffer);
  W back;
  back.decode(in, version);
  EXPECT_TRUE(in.ok() && in.remaining() == 0);
  return back;
}

TEST(RaftWire, VoteRoundTrip) {
  vote_request m{0, epoch(7), node_id(2), epoch(6), offset(120), true};
  std::vector<uint8_t> buf;
  auto w = through_bytes(to_wire(m, cluster, node_id(3)), vote_version, buf);
  EXPECT_EQ(w.voter_id, 3);
  EXPECT_EQ(w.topics.at(0).topic_name, "__cluster_metadata");
  vote_request back;
  ASSERT_EQ(from_wire(w, cluster, &back), error_code::none);
  EXPECT_EQ(back.replica_epoch, m.replica_epoch);
  EXPECT_EQ(back.replica_id, m.replica_id);
  EXPECT_EQ(back.last_offset_epoch, m.last_offset_epoch);
  EXPECT_EQ(back.last_offset, m.last_offset);
  EXPECT_TRUE(back.pre_vote);

  vote_response r{0, error_code::none, {node_id(3), epoch(7)}, true, true};
  auto rw = through_bytes(to_wire(r), vote_version, buf);
  vote_response rback;
  from_wire(rw, 41, &rback);
  EXPECT_EQ(rback.correlation, 41u);
  EXPECT_EQ(rback.error, error_code::none);
  EXPECT_EQ(rback.current, r.current);
  EXPECT_TRUE(rback.vote_granted);
}

TEST(RaftWire, BeginAndEndQuorumEpochRoundTrip) {
  std::vector<uint8_t> buf;
  begin_quorum_epoch_request b{0, node_id(1), epoch(4)};
  begin_quorum_epoch_request bback;
  ASSERT_EQ(from_wire(through_bytes(to_wire(b, cluster, node_id(2)), begin_quorum_epoch_version, buf), cluster, &bback),
            error_code::none);
  EXPECT_EQ(bback.leader_id, node_id(1));
  EXPECT_EQ(bback.leader_epoch, epoch(4));

  end_quorum_epoch_request e{0, node_id(1), epoch(4), {node_id(3), node_id(2)}};
  for (int16_t v : {int16_t{0}, end_quorum_epoch_version}) {
    end_quorum_epoch_request eback;
    ASSERT_EQ(from_wire(through_bytes(to_wire(e, cluster), v, buf), cluster, &eback), error_code::none) << v;
    EXPECT_EQ(eback.preferred_successors, e.preferred_successors) << "v" << v;
  }

  end_quorum_epoch_response er{0, error_code::fenced_leader_epoch, {node_id(2), epoch(5)}};
  end_quorum_epoch_response erback;
  from_wire(through_bytes(to_wire(er), end_quorum_epoch_version, buf), 9, &erback);
  EXPECT_EQ(erback.error, error_code::fenced_leader_epoch);
  EXPECT_EQ(erback.current, er.current);
}

TEST(RaftWire, FetchRoundTripWithEntries) {
  std::vector<uint8_t> buf;
  fetch_request f{0, node_id(3), epoch(5), offset(40), epoch(4), 500};
  auto fw = through_bytes(to_wire(f, cluster), fetch_version, buf);
  EXPECT_EQ(fw.topics.at(0).topic_id, metadata_topic_id());
  EXPECT_EQ(fw.replica_state.replica_id, 3);
  fetch_request fback;
  ASSERT_EQ(from_wire(fw, cluster, &fback), error_code::none);
  EXPECT_EQ(fback.replica_id, f.replica_id);
  EXPECT_EQ(fback.current_leader_epoch, f.current_leader_epoch);
  EXPECT_EQ(fback.fetch_offset, f.fetch_offset);
  EXPECT_EQ(fback.last_fetched_epoch, f.last_fetched_epoch);
  EXPECT_EQ(fback.max_wait_ms, 500);
  EXPECT_EQ(fback.high_watermark, std::nullopt) << "not told: the field's default";
  f.high_watermark = offset(38);
  ASSERT_EQ(from_wire(through_bytes(to_wire(f, cluster), fetch_version, buf), cluster, &fback), error_code::none);
  EXPECT_EQ(fback.high_watermark, offset(38));

  fetch_response r;
  r.current = {node_id(1), epoch(5)};
  r.high_watermark = offset(42);
  r.log_start_offset = offset(10);
  r.entries = {log_entry{offset(40), epoch(5), false, {{'x'}, {'y', 'z'}}, 1000},
               log_entry{offset(42), epoch(5), false, {{'w'}}, 1001}};
  std::vector<uint8_t> storage;
  auto rw = through_bytes(to_wire(r, storage), fetch_version, buf);
  fetch_response rback;
  std::string why;
  from_wire(rw, 7, &rback, &why);
  EXPECT_EQ(rback.error, error_code::none) << why;
  EXPECT_EQ(rback.current, r.current);
  EXPECT_EQ(rback.high_watermark, r.high_watermark);
  EXPECT_EQ(rback.log_start_offset, r.log_start_offset);
  EXPECT_FALSE(rback.diverging_epoch);
  EXPECT_FALSE(rback.snapshot);
  EXPECT_EQ(rback.entries, r.entries);
}

TEST(RaftWire, FetchAnswersWithDivergenceOrASnapshot) {
  std::vector<uint8_t> buf, storage;
  fetch_response d;
  d.diverging_epoch = epoch_end_offset{epoch(3), offset(17)};
  fetch_response dback;
  std::string why;
  from_wire(through_bytes(to_wire(d, storage), fetch_version, buf), 1, &dback, &why);
  ASSERT_TRUE(dback.diverging_epoch);
  EXPECT_EQ(*dback.diverging_epoch, *d.diverging_epoch);
  EXPECT_FALSE(dback.snapshot);

  fetch_response s;
  s.snapshot = snapshot_id{offset(100), epoch(6)};
  fetch_response sback;
  from_wire(through_bytes(to_wire(s, storage), fetch_version, buf), 1, &sback, &why);
  ASSERT_TRUE(sback.snapshot);
  EXPECT_EQ(*sback.snapshot, *s.snapshot);
  EXPECT_FALSE(sback.diverging_epoch);
}

TEST(RaftWire, FetchSnapshotRoundTrip) {
  std::vector<uint8_t> buf;
  fetch_snapshot_request q{0, node_id(2), epoch(6), {offset(100), epoch(6)}, 4096, 1 << 20};
  fetch_snapshot_request qback;
  ASSERT_EQ(from_wire(through_bytes(to_wire(q, cluster), fetch_snapshot_version, buf), cluster, &qback),
            error_code::none);
  EXPECT_EQ(qback.snapshot, q.snapshot);
  EXPECT_EQ(qback.position, 4096);
  EXPECT_EQ(qback.max_bytes, 1 << 20);

  fetch_snapshot_response r{0, error_code::none, {node_id(1), epoch(6)}, {offset(100), epoch(6)}, 9000, 4096, {1, 2, 3}};
  fetch_snapshot_response rback;
  from_wire(through_bytes(to_wire(r), fetch_snapshot_version, buf), 3, &rback);
  EXPECT_EQ(rback.error, error_code::none);
  EXPECT_EQ(rback.snapshot, r.snapshot);
  EXPECT_EQ(rback.size, 9000);
  EXPECT_EQ(rback.position, 4096);
  EXPECT_EQ(rback.bytes, r.bytes);
}

TEST(RaftWire, RequestsForAnotherClusterOrPartitionAreRefused) {
  vote_request v{0, epoch(1), node_id(2), epoch(0), offset(0), false};
  vote_request out;
  EXPECT_EQ(from_wire(to_wire(v, "another-cluster", node_id(1)), cluster, &out), error_code::inconsistent_cluster_id);
  auto wrong_partition = to_wire(v, cluster, node_id(1));
  wrong_partition.topics[0].partitions[0].partition_index = 1;
  EXPECT_EQ(from_wire(wrong_partition, cluster, &out), error_code::invalid_request);
  auto no_cluster = to_wire(v, cluster, node_id(1));
  no_cluster.cluster_id.reset();  // an older sender: accepted
  EXPECT_EQ(from_wire(no_cluster, cluster, &out), error_code::none);

  fetch_request f{0, node_id(3), epoch(1), offset(0), epoch(0), 0};
  auto other_topic = to_wire(f, cluster);
  other_topic.topics[0].topic_id.bytes[15] = 2;
  fetch_request fout;
  EXPECT_EQ(from_wire(other_topic, cluster, &fout), error_code::invalid_request);
}

TEST(RaftWire, ErrorAnswersReachTheCore) {
  std::vector<uint8_t> buf;
  vote_response v;
  from_wire(through_bytes(vote_error(error_code::inconsistent_cluster_id), vote_version, buf), 5, &v);
  EXPECT_EQ(v.error, error_code::inconsistent_cluster_id);
  EXPECT_FALSE(v.vote_granted);

  fetch_response f;
  std::string why;
  from_wire(through_bytes(fetch_error(error_code::invalid_request), fetch_version, buf), 5, &f, &why);
  EXPECT_EQ(f.error, error_code::invalid_request);

  // Batches that do not decode are a corrupt answer, not entries.
  fetch_response r;
  r.entries = {log_entry{offset(0), epoch(1), false, {{'a'}}, 5}};
  std::vector<uint8_t> storage;
  auto w = to_wire(r, storage);
  storage[storage.size() - 1] ^= 0x10;
  fetch_response bad;
  from_wire(w, 5, &bad, &why);
  EXPECT_EQ(bad.error, error_code::corrupt_message);
  EXPECT_TRUE(bad.entries.empty());
  EXPECT_NE(why.find("corrupt batch"), std::string::npos) << why;
}

}  // namespace
}  // namespace hw::controller::raft
