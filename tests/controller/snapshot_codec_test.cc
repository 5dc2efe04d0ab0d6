// Snapshot files: names as Kafka's Snapshots.java writes and parses them;
// encode_snapshot's batches as Kafka's RecordsSnapshotWriter lays them out;
// decode_snapshot takes back exactly what was written and refuses corrupt,
// truncated and misshapen files with a reason.

#include <gtest/gtest.h>

#include <random>

#include "controller/raft/snapshot_file.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"

namespace hw::controller::raft {
namespace {

snapshot_id sid(int64_t offset, int32_t e) { return {raft::offset(offset), epoch(e)}; }

std::vector<std::vector<uint8_t>> values(size_t n, size_t bytes = 10) {
  std::vector<std::vector<uint8_t>> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(bytes, static_cast<uint8_t>(i));
  return out;
}

struct batch_info {
  int64_t base_offset;
  int32_t count;
  int32_t epoch;
  bool control;
  int64_t base_timestamp;
  int64_t max_timestamp;
  size_t bytes;
};

std::vector<batch_info> batches_of(const std::vector<uint8_t>& file) {
  std::vector<batch_info> out;
  protocol::record_batch_walker walker(protocol::bytes_view(file.data(), file.size()));
  protocol::record_batch_view b;
  while (walker.next(b)) {
    EXPECT_EQ(b.validate(), protocol::batch_error::none);
    out.push_back({b.base_offset(), b.record_count(), b.partition_leader_epoch(), b.is_control(), b.base_timestamp(),
                   b.max_timestamp(), b.size_bytes()});
  }
  EXPECT_EQ(walker.error(), protocol::batch_error::none);
  EXPECT_EQ(walker.partial_tail_bytes(), 0u);
  return out;
}

TEST(SnapshotNames, KafkasZeroPaddedNames) {
  EXPECT_EQ(snapshot_file_name(sid(0, 0)), "00000000000000000000-0000000000.checkpoint");
  EXPECT_EQ(snapshot_file_name(sid(174, 1)), "00000000000000000174-0000000001.checkpoint");
  EXPECT_EQ(snapshot_file_name(sid(INT64_MAX, INT32_MAX)), "09223372036854775807-2147483647.checkpoint");
  for (auto id : {sid(0, 0), sid(174, 1), sid(123456789012, 77), sid(INT64_MAX, INT32_MAX)}) {
    EXPECT_EQ(parse_snapshot_file_name(snapshot_file_name(id)), id);
  }
}

TEST(SnapshotNames, ParserKnowsPartialAndDeletedAndRefusesTheRest) {
  auto partial = classify_snapshot_file_name("00000000000000000174-0000000001.checkpoint.part");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->kind, snapshot_file_kind::partial);
  EXPECT_EQ(partial->id, sid(174, 1));
  // Kafka's temp files: Files.createTempFile(dir, "<id>-", ".checkpoint.part").
  auto kafka_partial = classify_snapshot_file_name("00000000000000000174-0000000001-8812739123.checkpoint.part");
  ASSERT_TRUE(kafka_partial);
  EXPECT_EQ(kafka_partial->kind, snapshot_file_kind::partial);
  auto deleted = classify_snapshot_file_name("00000000000000000174-0000000001.checkpoint.deleted");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->kind, snapshot_file_kind::deleted);

  EXPECT_FALSE(parse_snapshot_file_name("00000000000000000174-0000000001.checkpoint.part"));
  EXPECT_FALSE(parse_snapshot_file_name("00000000000000000174-0000000001.checkpoint.deleted"));
  for (const char* bad : {"", "00000000000000000000.log", "00000000000000000000.index", "quorum-state",
                          "leader-epoch-checkpoint", "partition.metadata", "0-0.checkpoint",
                          "0000000000000000174-0000000001.checkpoint",     // 19 digits
                          "00000000000000000174_0000000001.checkpoint",    // no dash
                          "00000000000000000174-000000001.checkpoint",     // 9 digits
                          "00000000000000000174-0000000001.checkpointx", "00000000000000000174-0000000001.snapshot",
                          "-0000000000000000174-0000000001.checkpoint", "+0000000000000000174-0000000001.checkpoint",
                          "99999999999999999999-0000000001.checkpoint",  // past int64
                          "00000000000000000174-9999999999.checkpoint",  // past int32
                          "00000000000000000174-0000000001x.checkpoint.part"}) {
    EXPECT_FALSE(classify_snapshot_file_name(bad)) << bad;
  }
}

TEST(SnapshotCodec, KafkasLayout) {
  snapshot_write_options o;
  o.last_contained_log_timestamp_ms = 1'700'000'000'123;
  o.write_time_ms = 1'700'000'000'999;
  auto records = values(5);
  auto file = encode_snapshot(sid(500, 7), records, o);
  auto b = batches_of(file);
  ASSERT_EQ(b.size(), 3u);
  // Header at offset 0, the records from 1, the footer after them.
  EXPECT_EQ(b[0].base_offset, 0);
  EXPECT_TRUE(b[0].control);
  EXPECT_EQ(b[0].count, 1);
  EXPECT_EQ(b[1].base_offset, 1);
  EXPECT_FALSE(b[1].control);
  EXPECT_EQ(b[1].count, 5);
  EXPECT_EQ(b[2].base_offset, 6);
  EXPECT_TRUE(b[2].control);
  EXPECT_EQ(b[2].count, 1);
  for (const auto& batch : b) {
    EXPECT_EQ(batch.epoch, 7);  // the snapshot's epoch, not the offset's
    EXPECT_EQ(batch.base_timestamp, o.write_time_ms);
    EXPECT_EQ(batch.max_timestamp, o.write_time_ms);
  }
  // Kafka's header batch is 83 bytes, its footer batch 75 (kafka-dump-log).
  EXPECT_EQ(b[0].bytes, 83u);
  EXPECT_EQ(b[2].bytes, 75u);

  auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.last_contained_log_timestamp_ms, o.last_contained_log_timestamp_ms);
  EXPECT_EQ(d.records, records);
  EXPECT_EQ(d.leader_epoch, epoch(7));
  EXPECT_FALSE(d.kraft_version);
  EXPECT_FALSE(d.voters_record);
}

TEST(SnapshotCodec, EmptySnapshotIsHeaderAndFooter) {
  auto file = encode_snapshot(sid(0, 0), {}, {});
  auto b = batches_of(file);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].base_offset, 1);
  auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_TRUE(d.records.empty());
}

// Under kraft.version 1 the header batch carries the quorum too, as in
// Kafka's snapshots and in the bootstrap checkpoint `format --standalone`
// writes (3 records, then the footer at offset 3 when there is no data).
TEST(SnapshotCodec, ADynamicQuorumsVotersFollowTheHeader) {
  snapshot_write_options o;
  o.voters_record = std::vector<uint8_t>{1, 2, 3};
  auto file = encode_snapshot(sid(0, 0), {}, o);
  auto b = batches_of(file);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_TRUE(b[0].control);
  EXPECT_EQ(b[0].count, 3);
  EXPECT_EQ(b[1].base_offset, 3);
  auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.kraft_version, 1);
  EXPECT_EQ(d.voters_record, (std::vector<uint8_t>{1, 2, 3}));
  file = encode_snapshot(sid(10, 2), values(5), o);
  d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.records, values(5));
  EXPECT_EQ(batches_of(file)[1].base_offset, 3);
}

TEST(SnapshotCodec, BatchesHoldWholeGroupsUpToTheByteLimit) {
  // 10 records of 100 bytes in groups of 3: a record takes 109 bytes at
  // these offset deltas, a batch header 61.
  snapshot_write_options o;
  o.records_per_append = 3;
  o.max_batch_bytes = 61 + 6 * 109;  // two groups fit, a third does not
  auto records = values(10, 100);
  auto file = encode_snapshot(sid(20, 2), records, o);
  auto b = batches_of(file);
  ASSERT_EQ(b.size(), 4u);  // header, 6 records, 4 records, footer
  EXPECT_EQ(b[1].count, 6);
  EXPECT_EQ(b[1].base_offset, 1);
  EXPECT_EQ(b[1].bytes, o.max_batch_bytes);
  EXPECT_EQ(b[2].count, 4);
  EXPECT_EQ(b[2].base_offset, 7);
  EXPECT_EQ(b[3].base_offset, 11);
  auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.records, records);

  // One byte less: the second group starts a batch; the last, a single
  // record, still fits beside the third.
  o.max_batch_bytes -= 1;
  b = batches_of(encode_snapshot(sid(20, 2), records, o));
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[1].count, 3);
  EXPECT_EQ(b[2].count, 3);
  EXPECT_EQ(b[3].count, 4);
}

TEST(SnapshotCodec, OversizedGroupsAreSplitAndOversizedRecordsGoAlone) {
  snapshot_write_options o;
  o.records_per_append = 1024;
  o.max_batch_bytes = 61 + 2 * 109;
  auto records = values(5, 100);
  records.push_back(std::vector<uint8_t>(1000, 9));  // bigger than any batch
  records.push_back(std::vector<uint8_t>(100, 1));
  auto file = encode_snapshot(sid(8, 1), records, o);
  auto b = batches_of(file);
  std::vector<int32_t> counts;
  for (size_t i = 1; i + 1 < b.size(); ++i) counts.push_back(b[i].count);
  EXPECT_EQ(counts, (std::vector<int32_t>{2, 2, 1, 1, 1}));
  auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.records, records);
}

TEST(SnapshotCodec, RandomRoundTrips) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::vector<uint8_t>> records(rng() % 300);
    for (auto& r : records) {
      r.resize(rng() % 200);
      for (auto& byte : r) byte = static_cast<uint8_t>(rng());
    }
    snapshot_write_options o;
    o.records_per_append = 1 + rng() % 50;
    o.max_batch_bytes = 300 + rng() % 5000;
    o.last_contained_log_timestamp_ms = static_cast<int64_t>(rng());
    auto file = encode_snapshot(sid(static_cast<int64_t>(records.size()) + 3, static_cast<int32_t>(rng() % 9)), records, o);
    auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
    ASSERT_TRUE(d.ok()) << "round " << round << ": " << d.error;
    EXPECT_EQ(d.records, records);
    EXPECT_EQ(d.last_contained_log_timestamp_ms, o.last_contained_log_timestamp_ms);
  }
}

// --- refused files ---------------------------------------------------------

std::vector<uint8_t> sample() {
  snapshot_write_options o;
  o.records_per_append = 2;
  return encode_snapshot(sid(10, 3), values(5), o);
}

std::string error_of(const std::vector<uint8_t>& file) {
  auto d = decode_snapshot(protocol::bytes_view(file.data(), file.size()));
  EXPECT_TRUE(d.records.empty()) << "nothing is handed out of a refused file";
  return d.error;
}

void control_batch(std::vector<uint8_t>& out, int64_t base, int32_t e, protocol::control_record_type type,
                   std::vector<uint8_t> value) {
  protocol::record_batch_options o;
  o.base_offset = base;
  o.partition_leader_epoch = e;
  o.control = true;
  protocol::record_batch_builder builder(o);
  auto key = protocol::encode_control_key(type);
  builder.append(0, protocol::bytes_view(key.data(), key.size()), protocol::bytes_view(value.data(), value.size()));
  builder.finish_into(out);
}

void data_batch(std::vector<uint8_t>& out, int64_t base, int32_t e, size_t n) {
  protocol::record_batch_options o;
  o.base_offset = base;
  o.partition_leader_epoch = e;
  protocol::record_batch_builder builder(o);
  std::vector<uint8_t> v{1, 2, 3};
  for (size_t i = 0; i < n; ++i) builder.append(0, std::nullopt, protocol::bytes_view(v.data(), v.size()));
  builder.finish_into(out);
}

// SnapshotHeaderRecord v0: version, timestamp, no tagged fields.
std::vector<uint8_t> header_value() { return {0, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0}; }
std::vector<uint8_t> footer_value() { return {0, 0, 0}; }

TEST(SnapshotCodec, EveryTruncationIsRefused) {
  auto file = sample();
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(error_of(cut).empty()) << "cut at " << n;
  }
}

TEST(SnapshotCodec, EveryFlippedByteIsRefusedOrHarmless) {
  // A flip in a CRC-covered byte or the framing is refused; only the
  // partition leader epoch (outside the CRC) of a batch can change
  // undetected, and then the epochs no longer agree (unless it is the
  // first batch's, which the others must match: refused too).
  auto file = sample();
  for (size_t i = 0; i < file.size(); ++i) {
    auto bad = file;
    bad[i] ^= 0x01;
    EXPECT_FALSE(error_of(bad).empty()) << "byte " << i;
  }
}

TEST(SnapshotCodec, MisshapenFilesAreRefused) {
  using protocol::control_record_type;
  std::vector<uint8_t> f;
  // No header: a data batch first.
  data_batch(f, 0, 1, 1);
  control_batch(f, 1, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_NE(error_of(f).find("not a control batch"), std::string::npos) << error_of(f);

  // A control batch first, but not a header.
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_FALSE(error_of(f).empty());

  // No footer.
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_header, header_value());
  data_batch(f, 1, 1, 2);
  EXPECT_NE(error_of(f).find("no SnapshotFooterRecord"), std::string::npos) << error_of(f);

  // Something after the footer.
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_header, header_value());
  control_batch(f, 1, 1, control_record_type::snapshot_footer, footer_value());
  data_batch(f, 2, 1, 1);
  EXPECT_NE(error_of(f).find("after the SnapshotFooterRecord"), std::string::npos) << error_of(f);

  // A second header later on.
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_header, header_value());
  control_batch(f, 1, 1, control_record_type::snapshot_header, header_value());
  control_batch(f, 2, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_FALSE(error_of(f).empty());

  // A LeaderChange or a transaction marker has no place in a snapshot.
  for (auto type : {control_record_type::leader_change, control_record_type::commit}) {
    f.clear();
    control_batch(f, 0, 1, control_record_type::snapshot_header, header_value());
    control_batch(f, 1, 1, type, {0, 0, 0, 0, 0, 0});
    control_batch(f, 2, 1, control_record_type::snapshot_footer, footer_value());
    EXPECT_NE(error_of(f).find("in a snapshot"), std::string::npos) << error_of(f);
  }

  // Offsets that skip, start elsewhere, or batches of another epoch.
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_header, header_value());
  data_batch(f, 2, 1, 1);
  control_batch(f, 3, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_NE(error_of(f).find("was expected"), std::string::npos) << error_of(f);
  f.clear();
  control_batch(f, 5, 1, control_record_type::snapshot_header, header_value());
  control_batch(f, 6, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_FALSE(error_of(f).empty());
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_header, header_value());
  data_batch(f, 1, 2, 1);
  control_batch(f, 2, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_NE(error_of(f).find("epoch"), std::string::npos) << error_of(f);

  // A malformed header value.
  f.clear();
  control_batch(f, 0, 1, control_record_type::snapshot_header, {0, 0, 1});
  control_batch(f, 1, 1, control_record_type::snapshot_footer, footer_value());
  EXPECT_NE(error_of(f).find("malformed SnapshotHeaderRecord"), std::string::npos) << error_of(f);

  // Nothing at all, or garbage.
  EXPECT_FALSE(error_of({}).empty());
  EXPECT_FALSE(error_of(std::vector<uint8_t>(100, 0xff)).empty());
}

TEST(SnapshotCodec, KraftVersionAndVotersInTheHeaderBatchAreRead) {
  // kraft.version 1: Kafka's header batch also holds KRaftVersionRecord
  // and VotersRecord.
  std::vector<uint8_t> f;
  protocol::record_batch_options o;
  o.partition_leader_epoch = 4;
  o.control = true;
  protocol::record_batch_builder builder(o);
  auto add = [&](protocol::control_record_type type, std::vector<uint8_t> v) {
    auto key = protocol::encode_control_key(type);
    builder.append(5, protocol::bytes_view(key.data(), key.size()), protocol::bytes_view(v.data(), v.size()));
  };
  add(protocol::control_record_type::snapshot_header, header_value());
  add(protocol::control_record_type::kraft_version, {0, 0, 0, 1, 0});
  add(protocol::control_record_type::kraft_voters, {0, 0, 1, 0});  // VotersRecord v0, no voters
  builder.finish_into(f);
  data_batch(f, 3, 4, 2);
  control_batch(f, 5, 4, protocol::control_record_type::snapshot_footer, footer_value());
  auto d = decode_snapshot(protocol::bytes_view(f.data(), f.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.last_contained_log_timestamp_ms, 42);
  EXPECT_EQ(d.kraft_version, 1);
  ASSERT_TRUE(d.voters_record);
  EXPECT_EQ(*d.voters_record, (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(d.records.size(), 2u);
}

}  // namespace
}  // namespace hw::controller::raft
