#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"
#include "storage/producer_state.h"

namespace hw::storage {
namespace {

std::vector<uint8_t> from_hex(std::string_view hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

// Written by Apache Kafka 4.3.1's ProducerStateManager.writeSnapshot for two
// producers: 1000 (epoch 3, coordinator epoch 7, open transaction from 12,
// last batch sequences 32..41 at offsets 90..99, timestamp 1700000000123) and
// 2000 (epoch 0, no batch, no transaction, timestamp 1600000000000).
constexpr std::string_view kafka_snapshot_hex =
    "0001"      // version
    "51cffc00"  // CRC-32C of the rest
    "00000002"  // entries
    "00000000000003e8" "0003" "00000029" "0000000000000063" "00000009" "0000018bcfe5687b" "00000007"
    "000000000000000c"
    "00000000000007d0" "0000" "ffffffff" "ffffffffffffffff" "00000000" "00000174876e8000" "ffffffff"
    "ffffffffffffffff";

producer_entry producer_1000() {
  producer_entry e;
  e.id = producer_id(1000);
  e.epoch = producer_epoch(3);
  e.coordinator = coordinator_epoch(7);
  e.last_timestamp_ms = 1700000000123;
  e.current_txn_first_offset = offset(12);
  e.batches.push_back({41, offset(99), 9, 1700000000123});
  return e;
}

producer_entry producer_2000() {
  producer_entry e;
  e.id = producer_id(2000);
  e.epoch = producer_epoch(0);
  e.coordinator = coordinator_epoch(-1);
  e.last_timestamp_ms = 1600000000000;
  return e;
}

TEST(producer_snapshot, reads_kafkas_bytes) {
  std::vector<producer_entry> entries;
  auto err = decode_producer_snapshot(from_hex(kafka_snapshot_hex), "/d/00000000000000000100.snapshot", &entries);
  ASSERT_FALSE(err) << err.message;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0], producer_1000());
  EXPECT_EQ(entries[1], producer_2000());
  EXPECT_EQ(entries[0].batches[0].first_sequence(), 32);
  EXPECT_EQ(entries[0].batches[0].first_offset(), offset(90));
}

TEST(producer_snapshot, writes_kafkas_bytes) {
  producer_state state;
  std::vector<producer_entry> entries{producer_2000(), producer_1000()};
  state.load_snapshot(entries, offset(100), /*now_ms=*/1600000000000, /*producer_id_expiration_ms=*/INT64_MAX);
  EXPECT_EQ(encode_producer_snapshot(state), from_hex(kafka_snapshot_hex));
  EXPECT_EQ(state.first_undecided_offset(), offset(12));  // the open transaction is back
}

TEST(producer_snapshot, keeps_only_the_last_batch_like_kafka) {
  producer_state state;
  for (int i = 0; i < 3; ++i) {
    producer_batch b;
    b.id = producer_id(5);
    b.epoch = producer_epoch(1);
    b.base_sequence = i * 2;
    b.first_offset = offset(i * 2);
    b.last_offset = offset(i * 2 + 1);
    b.max_timestamp_ms = 10 + i;
    ASSERT_TRUE(state.check_and_update(b, producer_origin::client).ok());
  }
  std::vector<producer_entry> back;
  ASSERT_FALSE(decode_producer_snapshot(encode_producer_snapshot(state), "x", &back));
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].batches.size(), 1u);
  EXPECT_EQ(back[0].batches[0], (batch_metadata{5, offset(5), 1, 12}));
}

TEST(producer_snapshot, rejects_corruption) {
  std::vector<uint8_t> bytes = from_hex(kafka_snapshot_hex);
  std::vector<producer_entry> entries;
  std::vector<uint8_t> flipped = bytes;
  flipped[20] ^= 1;
  auto err = decode_producer_snapshot(flipped, "/d/00000000000000000100.snapshot", &entries);
  EXPECT_EQ(err.code, storage_errc::checksum_mismatch);
  EXPECT_NE(err.message.find("/d/00000000000000000100.snapshot"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("CRC"), std::string::npos) << err.message;

  std::vector<uint8_t> version2 = bytes;
  version2[1] = 2;
  EXPECT_EQ(decode_producer_snapshot(version2, "x", &entries).code, storage_errc::unsupported_version);

  std::vector<uint8_t> shortened(bytes.begin(), bytes.end() - 5);
  EXPECT_EQ(decode_producer_snapshot(shortened, "x", &entries).code, storage_errc::malformed);
  EXPECT_EQ(decode_producer_snapshot(std::vector<uint8_t>{0}, "x", &entries).code, storage_errc::malformed);
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(decode_producer_snapshot(longer, "x", &entries).code, storage_errc::checksum_mismatch);
}

TEST(producer_snapshot, names) {
  EXPECT_EQ(producer_snapshot_name(offset(100)), "00000000000000000100.snapshot");
  EXPECT_EQ(producer_snapshot_name(offset(INT64_MAX)), "09223372036854775807.snapshot");
}

class producer_snapshot_files : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs.create_directories(dir));
    ASSERT_FALSE(fs.sync_directory("/"));
    ASSERT_FALSE(fs.sync_directory("/logs"));
  }

  // A state with one producer whose last batch ends just below `end`.
  void snapshot_at(int64_t end, int64_t pid) {
    producer_state s;
    producer_batch b;
    b.id = producer_id(pid);
    b.epoch = producer_epoch(0);
    b.first_offset = offset(end - 1);
    b.last_offset = offset(end - 1);
    b.max_timestamp_ms = 1000;
    s.update_from_recovered_batch(b);
    ASSERT_EQ(s.map_end_offset(), offset(end));
    ASSERT_FALSE(write_producer_snapshot(fs, dir, s));
  }

  std::vector<offset> listed() {
    std::vector<offset> out;
    EXPECT_FALSE(list_producer_snapshots(fs, dir, &out));
    return out;
  }

  faulty_file_system fs;
  const std::filesystem::path dir = "/logs/orders-0";
};

TEST_F(producer_snapshot_files, write_list_read_delete) {
  snapshot_at(100, 1);
  snapshot_at(50, 2);
  snapshot_at(200, 3);
  ASSERT_FALSE(write_file_atomically(fs, dir / "00000000000000000000.log", ""));
  ASSERT_FALSE(write_file_atomically(fs, dir / "junk.snapshot", ""));
  EXPECT_EQ(listed(), (std::vector<offset>{offset(50), offset(100), offset(200)}));

  std::vector<producer_entry> entries;
  ASSERT_FALSE(read_producer_snapshot(fs, dir / "00000000000000000100.snapshot", &entries));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, producer_id(1));

  ASSERT_FALSE(delete_producer_snapshots_below(fs, dir, offset(100)));
  EXPECT_EQ(listed(), (std::vector<offset>{offset(100), offset(200)}));

  fs.crash();  // snapshots are written durably
  EXPECT_FALSE(listed().empty());
}

TEST_F(producer_snapshot_files, truncate_and_reload_uses_the_latest_snapshot_in_range) {
  snapshot_at(50, 1);
  snapshot_at(100, 2);
  snapshot_at(200, 3);
  producer_state state;
  state.update_map_end_offset(offset(250));
  // The log was truncated to 150: the snapshot at 200 is beyond it.
  ASSERT_FALSE(truncate_and_reload(state, fs, dir, offset(0), offset(150), 1000, 60000));
  EXPECT_EQ(listed(), (std::vector<offset>{offset(50), offset(100)}));
  EXPECT_EQ(state.map_end_offset(), offset(100));
  ASSERT_NE(state.find(producer_id(2)), nullptr);
  EXPECT_EQ(state.producers().size(), 1u);
  // The log replays 100..149 next; meanwhile the log start moved to 50.
  ASSERT_FALSE(truncate_and_reload(state, fs, dir, offset(50), offset(100), 1000, 60000));
  EXPECT_EQ(listed(), (std::vector<offset>{offset(100)}));  // at or below the log start: gone
  EXPECT_EQ(state.map_end_offset(), offset(100));
}

TEST_F(producer_snapshot_files, a_corrupt_snapshot_is_deleted_and_an_older_one_used) {
  snapshot_at(50, 1);
  snapshot_at(100, 2);
  ASSERT_FALSE(write_file_atomically(fs, dir / "00000000000000000100.snapshot", "\x00\x01garbage"));
  producer_state state;
  ASSERT_FALSE(truncate_and_reload(state, fs, dir, offset(0), offset(120), 1000, 60000));
  EXPECT_EQ(state.map_end_offset(), offset(50));
  EXPECT_NE(state.find(producer_id(1)), nullptr);
  EXPECT_EQ(listed(), (std::vector<offset>{offset(50)}));
}

TEST_F(producer_snapshot_files, a_read_only_load_skips_a_corrupt_snapshot_and_keeps_it) {
  snapshot_at(50, 1);
  snapshot_at(100, 2);
  snapshot_at(200, 3);
  ASSERT_FALSE(write_file_atomically(fs, dir / "00000000000000000100.snapshot", "\x00\x01garbage"));
  // Only the snapshots at or below 150 are candidates: 100 is corrupt, 50 is loaded.
  std::vector<offset> candidates{offset(50), offset(100)};
  producer_state state;
  bool loaded = false;
  ASSERT_FALSE(load_newest_producer_snapshot(state, fs, dir, candidates, 1000, 60000, corrupt_snapshot::keep, &loaded));
  EXPECT_TRUE(loaded);
  EXPECT_EQ(state.map_end_offset(), offset(50));
  EXPECT_NE(state.find(producer_id(1)), nullptr);
  EXPECT_EQ(listed(), (std::vector<offset>{offset(50), offset(100), offset(200)}));

  ASSERT_FALSE(write_file_atomically(fs, dir / "00000000000000000050.snapshot", "junk"));
  producer_state none;
  ASSERT_FALSE(load_newest_producer_snapshot(none, fs, dir, candidates, 1000, 60000, corrupt_snapshot::keep, &loaded));
  EXPECT_FALSE(loaded);
  EXPECT_EQ(none.map_end_offset(), offset(0));
}

TEST_F(producer_snapshot_files, no_snapshot_starts_empty_at_the_log_start) {
  producer_state state;
  state.update_map_end_offset(offset(30));
  ASSERT_FALSE(truncate_and_reload(state, fs, dir, offset(7), offset(20), 1000, 60000));
  EXPECT_EQ(state.map_end_offset(), offset(7));
  EXPECT_TRUE(state.producers().empty());
}

TEST_F(producer_snapshot_files, expired_producers_are_not_loaded) {
  snapshot_at(100, 1);  // last timestamp 1000
  producer_state state;
  ASSERT_FALSE(truncate_and_reload(state, fs, dir, offset(0), offset(100), /*now_ms=*/61000, /*expiration=*/60000));
  EXPECT_EQ(state.map_end_offset(), offset(100));
  EXPECT_TRUE(state.producers().empty());
}

TEST_F(producer_snapshot_files, crash_while_writing_a_snapshot_leaves_no_partial_file) {
  snapshot_at(50, 1);
  fs.inject({.op = fs_op::rename, .action = fault_action::crash_before, .path_contains = ".snapshot"});
  producer_state s;
  s.update_map_end_offset(offset(100));
  EXPECT_TRUE(write_producer_snapshot(fs, dir, s));
  fs.restart();
  EXPECT_EQ(listed(), (std::vector<offset>{offset(50)}));
}

}  // namespace
}  // namespace hw::storage
