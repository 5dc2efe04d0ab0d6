#include "protocol/records/record_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "protocol/records/control_record.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/record_batch_builder.h"

namespace hw::protocol {
namespace {

using bytes = std::vector<uint8_t>;
constexpr size_t kBound = 4 * 1024 * 1024;
constexpr compression kCodecs[] = {compression::none, compression::gzip, compression::snappy,
                                   compression::lz4, compression::zstd};

bytes_view bv(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
std::string str(bytes_view b) { return {b.begin(), b.end()}; }

// One record, key "k", value "v", no headers, at offset 5 and time
// 1700000000000, assembled field by field from the v2 layout.
const bytes kKnownBatch = {
    0, 0, 0, 0, 0, 0, 0, 5,        // baseOffset 5
    0, 0, 0, 58,                   // batchLength: 70 bytes - 12
    0, 0, 0, 7,                    // partitionLeaderEpoch 7
    2,                             // magic
    0xe9, 0x9b, 0x8d, 0xd8,        // crc32c of bytes 21..69 (bitwise reference)
    0, 0,                          // attributes: none, create time
    0, 0, 0, 0,                    // lastOffsetDelta 0
    0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,  // baseTimestamp 1700000000000
    0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,  // maxTimestamp
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // producerId -1
    0xff, 0xff,                    // producerEpoch -1
    0xff, 0xff, 0xff, 0xff,        // baseSequence -1
    0, 0, 0, 1,                    // recordCount 1
    0x10,                          // record length 8 (zig-zag 16)
    0x00,                          // attributes
    0x00,                          // timestampDelta 0
    0x00,                          // offsetDelta 0
    0x02, 'k',                     // keyLength 1, key
    0x02, 'v',                     // valueLength 1, value
    0x00,                          // headers 0
};

TEST(RecordsBatch, BuilderWritesTheKnownBytes) {
  record_batch_options o;
  o.base_offset = 5;
  o.partition_leader_epoch = 7;
  record_batch_builder b(o);
  b.append(1700000000000, bv("k"), bv("v"));
  EXPECT_EQ(b.finish(), kKnownBatch);
}

TEST(RecordsBatch, ParsesTheKnownBytes) {
  batch_parse_result p = parse_record_batch(kKnownBatch);
  ASSERT_TRUE(p.ok());
  const record_batch_view& v = p.batch;
  EXPECT_EQ(v.validate(), batch_error::none);
  EXPECT_EQ(v.size_bytes(), 70u);
  EXPECT_EQ(v.base_offset(), 5);
  EXPECT_EQ(v.batch_length(), 58);
  EXPECT_EQ(v.partition_leader_epoch(), 7);
  EXPECT_EQ(v.magic(), 2);
  EXPECT_EQ(v.crc(), 0xe99b8dd8u);
  EXPECT_EQ(v.compute_crc(), 0xe99b8dd8u);
  EXPECT_EQ(v.attributes(), 0);
  EXPECT_EQ(v.codec(), compression::none);
  EXPECT_EQ(v.last_offset_delta(), 0);
  EXPECT_EQ(v.last_offset(), 5);
  EXPECT_EQ(v.next_offset(), 6);
  EXPECT_EQ(v.base_timestamp(), 1700000000000);
  EXPECT_EQ(v.max_timestamp(), 1700000000000);
  EXPECT_EQ(v.producer_id(), -1);
  EXPECT_EQ(v.producer_epoch(), -1);
  EXPECT_EQ(v.base_sequence(), -1);
  EXPECT_EQ(v.record_count(), 1);
  bytes scratch;
  record_iterator it;
  ASSERT_EQ(v.open_records(scratch, kBound, it), batch_error::none);
  record_view r;
  ASSERT_TRUE(it.next(r));
  EXPECT_EQ(r.offset, 5);
  EXPECT_EQ(r.timestamp, 1700000000000);
  EXPECT_EQ(str(*r.key), "k");
  EXPECT_EQ(str(*r.value), "v");
  EXPECT_EQ(r.header_count, 0);
  EXPECT_EQ(r.encoded_bytes, 9u);
  // Zero copy: the key points into the batch itself.
  EXPECT_EQ(r.key->data(), kKnownBatch.data() + 66);
  EXPECT_FALSE(it.next(r));
  EXPECT_EQ(it.error(), batch_error::none);
}

// A record with a null key, an empty value and two headers, one with a null value.
TEST(RecordsBatch, KnownRecordWithHeaders) {
  record_batch_builder b({});
  record_header headers[] = {{"h", bv("x")}, {"n", std::nullopt}};
  b.append(10, std::nullopt, bv(""), headers);
  bytes batch = b.finish();
  const bytes expected_record = {
      0x1a,              // length 13 (zig-zag 26)
      0x00, 0x00, 0x00,  // attributes, timestampDelta 0, offsetDelta 0
      0x01,              // key null (-1)
      0x00,              // value length 0
      0x04,              // 2 headers
      0x02, 'h', 0x02, 'x',
      0x02, 'n', 0x01,   // value null
  };
  EXPECT_EQ(bytes(batch.begin() + batch_layout::records, batch.end()), expected_record);
  record_batch_view v = parse_record_batch(batch).batch;
  ASSERT_EQ(v.validate(), batch_error::none);
  record_iterator it = v.iterate(v.records_bytes());
  record_view r;
  ASSERT_TRUE(it.next(r));
  EXPECT_FALSE(r.key.has_value());
  ASSERT_TRUE(r.value.has_value());
  EXPECT_TRUE(r.value->empty());
  std::vector<std::pair<std::string, std::optional<std::string>>> seen;
  for (const record_header_view& h : r.headers()) {
    seen.emplace_back(std::string(h.key), h.value ? std::optional(str(*h.value)) : std::nullopt);
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, "h");
  EXPECT_EQ(seen[0].second, "x");
  EXPECT_EQ(seen[1].first, "n");
  EXPECT_FALSE(seen[1].second.has_value());
}

struct test_record {
  int64_t timestamp;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

std::vector<test_record> sample_records(int n) {
  std::vector<test_record> out;
  for (int i = 0; i < n; ++i) {
    test_record r;
    r.timestamp = 1700000000000 + (i * 37) % 1000 - 200;  // out of order, some before the base
    if (i % 5 != 0) r.key = "key-" + std::to_string(i);
    if (i % 7 == 3) r.key = "";
    if (i % 11 != 4) {
      r.value = std::string(static_cast<size_t>(i % 300), static_cast<char>('a' + i % 26));
    }
    for (int h = 0; h < i % 4; ++h) {
      r.headers.emplace_back("h" + std::to_string(h),
                             h == 2 ? std::nullopt : std::optional("hv" + std::to_string(i)));
    }
    out.push_back(r);
  }
  return out;
}

std::optional<bytes_view> opt_bv(const std::optional<std::string>& s) {
  return s ? std::optional(bv(*s)) : std::nullopt;
}

void append_all(record_batch_builder& b, const std::vector<test_record>& records) {
  for (const test_record& r : records) {
    std::vector<record_header> headers;
    for (const auto& [k, v] : r.headers) headers.push_back({k, opt_bv(v)});
    b.append(r.timestamp, opt_bv(r.key), opt_bv(r.value), headers);
  }
}

void expect_records(const record_batch_view& v, const std::vector<test_record>& expected,
                    int64_t base_offset) {
  bytes scratch;
  record_iterator it;
  ASSERT_EQ(v.open_records(scratch, kBound, it), batch_error::none);
  record_view r;
  size_t i = 0;
  for (; it.next(r); ++i) {
    ASSERT_LT(i, expected.size());
    const test_record& e = expected[i];
    EXPECT_EQ(r.offset, base_offset + static_cast<int64_t>(i));
    EXPECT_EQ(r.offset_delta, static_cast<int32_t>(i));
    EXPECT_EQ(r.timestamp, e.timestamp);
    EXPECT_EQ(r.key.has_value(), e.key.has_value());
    if (e.key) {
      EXPECT_EQ(str(*r.key), *e.key);
    }
    EXPECT_EQ(r.value.has_value(), e.value.has_value());
    if (e.value) {
      EXPECT_EQ(str(*r.value), *e.value);
    }
    ASSERT_EQ(r.headers().size(), e.headers.size());
    size_t h = 0;
    for (const record_header_view& hv : r.headers()) {
      EXPECT_EQ(hv.key, e.headers[h].first);
      EXPECT_EQ(hv.value.has_value(), e.headers[h].second.has_value());
      if (hv.value) {
        EXPECT_EQ(str(*hv.value), *e.headers[h].second);
      }
      ++h;
    }
  }
  EXPECT_EQ(it.error(), batch_error::none);
  EXPECT_EQ(i, expected.size());
}

TEST(RecordsBatch, RoundTripEveryCodec) {
  std::vector<test_record> records = sample_records(200);
  for (compression codec : kCodecs) {
    record_batch_options o;
    o.base_offset = 1000;
    o.codec = codec;
    record_batch_builder b(o);
    append_all(b, records);
    bytes batch = b.finish();
    batch_parse_result p = parse_record_batch(batch);
    ASSERT_TRUE(p.ok()) << compression_name(codec);
    EXPECT_EQ(p.batch.size_bytes(), batch.size());
    EXPECT_EQ(p.batch.validate(), batch_error::none);
    EXPECT_EQ(p.batch.codec(), codec);
    EXPECT_EQ(p.batch.record_count(), 200);
    EXPECT_EQ(p.batch.last_offset_delta(), 199);
    EXPECT_EQ(p.batch.base_timestamp(), records[0].timestamp);
    int64_t max_ts = 0;
    for (const auto& r : records) max_ts = std::max(max_ts, r.timestamp);
    EXPECT_EQ(p.batch.max_timestamp(), max_ts);
    bytes scratch;
    EXPECT_EQ(p.batch.validate_records(scratch, kBound), batch_error::none);
    expect_records(p.batch, records, 1000);
    if (codec != compression::none) {
      EXPECT_LT(batch.size(), b.records_bytes());
    }
  }
}

TEST(RecordsBatch, EveryHeaderField) {
  record_batch_options o;
  o.base_offset = 0x0102030405060708;
  o.partition_leader_epoch = 0x7eadbeef;
  o.codec = compression::zstd;
  o.transactional = true;
  o.producer_id = 0x1122334455667788;
  o.producer_epoch = 0x3456;
  o.base_sequence = 0x789abcd;
  o.delete_horizon_ms = 1234567;
  record_batch_builder b(o);
  b.append(1234600, bv("a"), bv("b"));
  b.append(1234500, bv("c"), bv("d"));
  bytes batch = b.finish();
  record_batch_view v = parse_record_batch(batch).batch;
  ASSERT_EQ(v.validate(), batch_error::none);
  EXPECT_EQ(v.base_offset(), 0x0102030405060708);
  EXPECT_EQ(v.partition_leader_epoch(), 0x7eadbeef);
  EXPECT_EQ(v.codec(), compression::zstd);
  EXPECT_EQ(v.compression_id(), 4);
  EXPECT_EQ(v.ts_type(), timestamp_type::create_time);
  EXPECT_TRUE(v.is_transactional());
  EXPECT_FALSE(v.is_control());
  EXPECT_TRUE(v.has_delete_horizon());
  EXPECT_EQ(v.delete_horizon_ms(), 1234567);
  EXPECT_EQ(v.attributes(), 4 | 0x10 | 0x40);
  EXPECT_EQ(v.last_offset_delta(), 1);
  EXPECT_EQ(v.base_timestamp(), 1234567);  // the horizon, not the first record
  EXPECT_EQ(v.max_timestamp(), 1234600);
  EXPECT_EQ(v.producer_id(), 0x1122334455667788);
  EXPECT_EQ(v.producer_epoch(), 0x3456);
  EXPECT_EQ(v.base_sequence(), 0x789abcd);
  EXPECT_EQ(v.record_count(), 2);
  bytes scratch;
  record_iterator it;
  ASSERT_EQ(v.open_records(scratch, kBound, it), batch_error::none);
  record_view r;
  ASSERT_TRUE(it.next(r));
  EXPECT_EQ(r.timestamp, 1234600);
  EXPECT_EQ(r.timestamp_delta, 33);
  ASSERT_TRUE(it.next(r));
  EXPECT_EQ(r.timestamp, 1234500);
  EXPECT_EQ(r.timestamp_delta, -67);
}

TEST(RecordsBatch, LogAppendTimeReportsTheBatchTime) {
  record_batch_options o;
  o.ts_type = timestamp_type::log_append_time;
  o.log_append_time_ms = 999999;
  record_batch_builder b(o);
  b.append(100, bv("a"), bv("b"));
  b.append(200, bv("a"), bv("b"));
  bytes batch = b.finish();
  record_batch_view v = parse_record_batch(batch).batch;
  ASSERT_EQ(v.validate(), batch_error::none);
  EXPECT_EQ(v.ts_type(), timestamp_type::log_append_time);
  EXPECT_EQ(v.attributes(), 0x08);
  EXPECT_EQ(v.max_timestamp(), 999999);
  record_iterator it = v.iterate(v.records_bytes());
  record_view r;
  while (it.next(r)) EXPECT_EQ(r.timestamp, 999999);
}

TEST(RecordsBatch, BrokerAssignsOffsetsInPlace) {
  for (compression codec : kCodecs) {
    record_batch_options o;
    o.codec = codec;
    record_batch_builder b(o);
    append_all(b, sample_records(20));
    bytes buffer = {0xaa, 0xbb};  // the batch sits inside a bigger frame
    b.finish_into(buffer);
    record_batch_view v = parse_record_batch(bytes_view(buffer).subspan(2)).batch;
    uint32_t crc = v.crc();
    auto m = mutable_record_batch_view::within(buffer, v);
    m.set_base_offset(424242);
    m.set_partition_leader_epoch(17);
    EXPECT_EQ(v.crc(), crc);  // neither field is covered
    EXPECT_EQ(v.validate(), batch_error::none);
    EXPECT_EQ(v.base_offset(), 424242);
    EXPECT_EQ(v.partition_leader_epoch(), 17);
    EXPECT_EQ(v.last_offset(), 424242 + 19);
    expect_records(v, sample_records(20), 424242);

    m.set_log_append_time(5555);
    EXPECT_EQ(v.validate(), batch_error::none);
    EXPECT_NE(v.crc(), crc);
    EXPECT_EQ(v.ts_type(), timestamp_type::log_append_time);
    EXPECT_EQ(v.codec(), codec);  // other attribute bits kept
    EXPECT_EQ(v.max_timestamp(), 5555);
    EXPECT_EQ(buffer[0], 0xaa);
    EXPECT_EQ(buffer[1], 0xbb);

    m.set_max_timestamp(1);
    EXPECT_EQ(v.validate(), batch_error::crc_mismatch);
    m.update_crc();
    EXPECT_EQ(v.validate(), batch_error::none);
  }
}

TEST(RecordsBatch, EndTxnMarkers) {
  for (auto type : {control_record_type::commit, control_record_type::abort}) {
    end_txn_marker_batch m;
    m.base_offset = 77;
    m.partition_leader_epoch = 3;
    m.producer_id = 9000;
    m.producer_epoch = 4;
    m.timestamp_ms = 1700000000123;
    m.marker = {type, 21};
    bytes batch;
    append_end_txn_marker_batch(batch, m);
    record_batch_view v = parse_record_batch(batch).batch;
    bytes scratch;
    ASSERT_EQ(v.validate_records(scratch, kBound), batch_error::none);
    EXPECT_TRUE(v.is_control());
    EXPECT_TRUE(v.is_transactional());
    EXPECT_EQ(v.attributes(), 0x30);
    EXPECT_EQ(v.producer_id(), 9000);
    EXPECT_EQ(v.producer_epoch(), 4);
    EXPECT_EQ(v.base_sequence(), -1);
    EXPECT_EQ(v.record_count(), 1);
    EXPECT_EQ(v.base_offset(), 77);
    EXPECT_EQ(v.partition_leader_epoch(), 3);
    EXPECT_EQ(v.max_timestamp(), 1700000000123);
    record_iterator it = v.iterate(v.records_bytes());
    record_view r;
    ASSERT_TRUE(it.next(r));
    EXPECT_EQ(bytes(r.key->begin(), r.key->end()), (bytes{0, 0, 0, static_cast<uint8_t>(type)}));
    EXPECT_EQ(bytes(r.value->begin(), r.value->end()), (bytes{0, 0, 0, 0, 0, 21}));
    auto key = parse_control_key(r);
    ASSERT_TRUE(key);
    EXPECT_EQ(key->version, 0);
    EXPECT_EQ(key->type, static_cast<int16_t>(type));
    auto marker = parse_end_txn_marker(r);
    ASSERT_TRUE(marker);
    EXPECT_EQ(marker->type, type);
    EXPECT_EQ(marker->coordinator_epoch, 21);
  }
}

TEST(RecordsBatch, ControlRecordParsing) {
  record_view r;
  EXPECT_FALSE(parse_control_key(r));  // null key
  bytes short_key = {0, 0, 0};
  r.key = short_key;
  EXPECT_FALSE(parse_control_key(r));
  bytes negative_version = {0xff, 0xff, 0, 1};
  r.key = negative_version;
  EXPECT_FALSE(parse_control_key(r));
  bytes leader_change = {0, 0, 0, 2};
  r.key = leader_change;
  ASSERT_TRUE(parse_control_key(r));
  EXPECT_EQ(parse_control_key(r)->type, 2);
  EXPECT_FALSE(parse_end_txn_marker(r));  // not a transaction marker
  bytes commit_v1 = {0, 1, 0, 1, 0xee};  // later key versions may be longer
  r.key = commit_v1;
  bytes value = {0, 0, 0, 0, 1, 0, 0xaa};  // and values too
  r.value = value;
  ASSERT_TRUE(parse_end_txn_marker(r));
  EXPECT_EQ(parse_end_txn_marker(r)->coordinator_epoch, 256);
  bytes short_value = {0, 0, 0, 0, 1};
  r.value = short_value;
  EXPECT_FALSE(parse_end_txn_marker(r));
}

TEST(RecordsBatch, ControlBatchContents) {
  record_batch_options o;
  o.control = true;
  o.transactional = true;
  record_batch_builder two(o);
  auto key = encode_control_key(control_record_type::commit);
  auto value = encode_end_txn_marker_value(1);
  two.append(1, bytes_view(key), bytes_view(value));
  two.append(1, bytes_view(key), bytes_view(value));
  bytes batch = two.finish();
  bytes scratch;
  EXPECT_EQ(parse_record_batch(batch).batch.validate_records(scratch, kBound),
            batch_error::invalid_control_record);
  record_batch_builder bad_key(o);
  bad_key.append(1, bv("x"), bytes_view(value));
  batch = bad_key.finish();
  EXPECT_EQ(parse_record_batch(batch).batch.validate_records(scratch, kBound),
            batch_error::invalid_control_record);
  record_batch_builder short_value(o);
  short_value.append(1, bytes_view(key), bv("x"));
  batch = short_value.finish();
  EXPECT_EQ(parse_record_batch(batch).batch.validate_records(scratch, kBound),
            batch_error::invalid_control_record);
  // KRaft writes several control records in one batch (here: snapshot
  // header, kraft version, voters); their values belong to the raft layer.
  record_batch_options raft;
  raft.control = true;
  record_batch_builder kraft(raft);
  for (auto type : {control_record_type::snapshot_header, control_record_type::kraft_version,
                    control_record_type::kraft_voters}) {
    auto k = encode_control_key(type);
    kraft.append(1, bytes_view(k), bv("opaque"));
  }
  batch = kraft.finish();
  EXPECT_EQ(parse_record_batch(batch).batch.validate_records(scratch, kBound), batch_error::none);
}

TEST(RecordsBatch, EmptyBatchLeftByCompaction) {
  record_batch_options o;
  o.base_offset = 50;
  o.last_offset_delta = 9;
  o.producer_id = 3;
  o.base_sequence = 100;
  bytes batch = record_batch_builder(o).finish();
  EXPECT_EQ(batch.size(), batch_layout::header_bytes);
  record_batch_view v = parse_record_batch(batch).batch;
  bytes scratch;
  EXPECT_EQ(v.validate_records(scratch, kBound), batch_error::none);
  EXPECT_EQ(v.record_count(), 0);
  EXPECT_EQ(v.next_offset(), 60);
  EXPECT_EQ(v.base_timestamp(), -1);
  EXPECT_EQ(v.max_timestamp(), -1);
}

TEST(RecordsBatch, CompactedBatchWithOffsetGaps) {
  record_batch_options o;
  o.codec = compression::lz4;
  o.last_offset_delta = 20;
  record_batch_builder b(o);
  b.append_at(2, 10, bv("a"), bv("1"));
  b.append_at(7, 11, bv("b"), bv("2"));
  b.append_at(20, 12, bv("c"), std::nullopt);  // a tombstone
  bytes batch = b.finish();
  record_batch_view v = parse_record_batch(batch).batch;
  bytes scratch;
  ASSERT_EQ(v.validate_records(scratch, kBound), batch_error::none);
  record_iterator it;
  ASSERT_EQ(v.open_records(scratch, kBound, it), batch_error::none);
  record_view r;
  std::vector<int64_t> offsets;
  while (it.next(r)) offsets.push_back(r.offset);
  EXPECT_EQ(offsets, (std::vector<int64_t>{2, 7, 20}));
  EXPECT_FALSE(r.value.has_value());
}

TEST(RecordsBatch, WalkerYieldsBatchesAndStopsAtAPartialTail) {
  bytes records;
  for (int i = 0; i < 3; ++i) {
    record_batch_options o;
    o.base_offset = i * 10;
    o.codec = kCodecs[i];
    record_batch_builder b(o);
    append_all(b, sample_records(10));
    b.finish_into(records);
  }
  size_t complete = records.size();
  bytes next;
  append_end_txn_marker_batch(next, {});
  for (size_t extra = 0; extra < next.size(); ++extra) {
    bytes buf = records;
    buf.insert(buf.end(), next.begin(), next.begin() + static_cast<std::ptrdiff_t>(extra));
    record_batch_walker w(buf);
    record_batch_view v;
    std::vector<int64_t> bases;
    while (w.next(v)) {
      EXPECT_EQ(v.validate(), batch_error::none);
      bases.push_back(v.base_offset());
    }
    EXPECT_EQ(w.error(), batch_error::none) << extra;
    EXPECT_EQ(bases, (std::vector<int64_t>{0, 10, 20}));
    EXPECT_EQ(w.position(), complete);
    EXPECT_EQ(w.partial_tail_bytes(), extra);
  }
}

TEST(RecordsBatch, ErrorCodes) {
  EXPECT_EQ(to_error_code(batch_error::none), error_code::none);
  EXPECT_EQ(to_error_code(batch_error::crc_mismatch), error_code::corrupt_message);
  EXPECT_EQ(to_error_code(batch_error::truncated), error_code::corrupt_message);
  EXPECT_EQ(to_error_code(batch_error::invalid_length), error_code::corrupt_message);
  EXPECT_EQ(to_error_code(batch_error::legacy_magic), error_code::invalid_record);
  EXPECT_EQ(to_error_code(batch_error::invalid_record), error_code::invalid_record);
  EXPECT_EQ(to_error_code(batch_error::unsupported_compression),
            error_code::unsupported_compression_type);
  EXPECT_EQ(batch_error_name(batch_error::crc_mismatch), "crc_mismatch");
}

}  // namespace
}  // namespace hw::protocol
