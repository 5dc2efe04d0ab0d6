// Damaged, truncated and lying batches: every one must be refused with the
// right error, never read out of bounds.

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "protocol/records/big_endian.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/writer.h"

namespace hw::protocol {
namespace {

using bytes = std::vector<uint8_t>;
constexpr size_t kBound = 4 * 1024 * 1024;

bytes_view bv(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

bytes sample_batch(compression codec = compression::none, int records = 5) {
  record_batch_options o;
  o.base_offset = 100;
  o.codec = codec;
  o.producer_id = 12;
  o.producer_epoch = 1;
  o.base_sequence = 0;
  record_batch_builder b(o);
  record_header h[] = {{"trace", bv("abc")}};
  for (int i = 0; i < records; ++i) b.append(1000 + i, bv("key"), bv("value-value"), h);
  return b.finish();
}

// A batch with its records replaced by raw bytes and the count and CRC set,
// to reach the record decoder past the checksum.
bytes with_records(bytes_view records, int32_t count, int32_t last_delta,
                   compression codec = compression::none) {
  record_batch_options o;
  o.codec = compression::none;
  bytes batch = record_batch_builder(o).finish();
  batch.insert(batch.end(), records.begin(), records.end());
  store_big_endian<int32_t>(batch.data() + batch_layout::batch_length,
                            static_cast<int32_t>(batch.size() - batch_layout::log_overhead));
  store_big_endian<int32_t>(batch.data() + batch_layout::record_count, count);
  store_big_endian<int32_t>(batch.data() + batch_layout::last_offset_delta, last_delta);
  store_big_endian<int16_t>(batch.data() + batch_layout::attributes, static_cast<int16_t>(codec));
  mutable_record_batch_view(batch).update_crc();
  return batch;
}

batch_error deep_validate(const bytes& batch) {
  batch_parse_result p = parse_record_batch(batch);
  if (!p.ok()) return p.error;
  bytes scratch;
  return p.batch.validate_records(scratch, kBound);
}

TEST(RecordsBatchCorruption, SingleBitFlipInTheCrcRangeIsCaught) {
  for (compression codec : {compression::none, compression::gzip, compression::zstd}) {
    bytes good = sample_batch(codec);
    for (size_t at = batch_layout::crc; at < good.size(); ++at) {
      for (int bit = 0; bit < 8; ++bit) {
        bytes bad = good;
        bad[at] ^= static_cast<uint8_t>(1u << bit);
        batch_parse_result p = parse_record_batch(bad);
        ASSERT_TRUE(p.ok());
        ASSERT_EQ(p.batch.validate(), batch_error::crc_mismatch) << at << ":" << bit;
      }
    }
  }
}

TEST(RecordsBatchCorruption, FieldsOutsideTheCrcAreNotCovered) {
  bytes good = sample_batch();
  for (size_t at : {batch_layout::base_offset + 3, batch_layout::partition_leader_epoch + 2}) {
    bytes changed = good;
    changed[at] ^= 0x10;
    EXPECT_EQ(deep_validate(changed), batch_error::none);
  }
}

TEST(RecordsBatchCorruption, TruncatedAtEveryLength) {
  for (compression codec : {compression::none, compression::lz4}) {
    bytes good = sample_batch(codec);
    for (size_t n = 0; n < good.size(); ++n) {
      bytes_view cut(good.data(), n);
      EXPECT_EQ(parse_record_batch(cut).error, batch_error::truncated) << n;
      // In a records field the same bytes are a partial tail, not an error.
      record_batch_walker w(cut);
      record_batch_view v;
      EXPECT_FALSE(w.next(v));
      EXPECT_EQ(w.error(), batch_error::none);
      EXPECT_EQ(w.partial_tail_bytes(), n);
    }
    EXPECT_TRUE(parse_record_batch(good).ok());
  }
}

TEST(RecordsBatchCorruption, LengthsThatLie) {
  bytes good = sample_batch();
  auto with_length = [&](int32_t length) {
    bytes b = good;
    store_big_endian<int32_t>(b.data() + batch_layout::batch_length, length);
    return b;
  };
  for (int32_t length : {-1, -12, INT32_MIN, 0, 1, 48}) {
    bytes b = with_length(length);
    EXPECT_EQ(parse_record_batch(b).error, batch_error::invalid_length) << length;
    record_batch_walker w(b);
    record_batch_view v;
    EXPECT_FALSE(w.next(v));
    EXPECT_EQ(w.error(), batch_error::invalid_length) << length;
  }
  int32_t real = static_cast<int32_t>(good.size() - batch_layout::log_overhead);
  for (int32_t length : {real + 1, real + 1000, INT32_MAX}) {
    EXPECT_EQ(parse_record_batch(with_length(length)).error, batch_error::truncated) << length;
  }
  // Shorter than the records: the view ends early, the CRC no longer matches...
  bytes shorter = with_length(real - 3);
  batch_parse_result p = parse_record_batch(shorter);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.batch.size_bytes(), good.size() - 3);
  EXPECT_EQ(p.batch.validate(), batch_error::crc_mismatch);
  // ...and with the CRC fixed the last record is cut short.
  mutable_record_batch_view(std::span<uint8_t>(shorter).first(p.batch.size_bytes())).update_crc();
  EXPECT_EQ(p.batch.validate(), batch_error::none);
  bytes scratch;
  EXPECT_EQ(p.batch.validate_records(scratch, kBound), batch_error::invalid_record);
  // Just the header: the minimum length, with records claimed but absent.
  bytes header_only = with_length(batch_layout::min_batch_length);
  p = parse_record_batch(header_only);
  ASSERT_TRUE(p.ok());
  mutable_record_batch_view(std::span<uint8_t>(header_only).first(batch_layout::header_bytes))
      .update_crc();
  EXPECT_EQ(p.batch.validate(), batch_error::invalid_record_count);
}

TEST(RecordsBatchCorruption, LegacyAndUnknownMagic) {
  for (int magic : {0, 1}) {
    bytes b = sample_batch();
    b[batch_layout::magic] = static_cast<uint8_t>(magic);
    EXPECT_EQ(parse_record_batch(b).error, batch_error::legacy_magic);
    EXPECT_EQ(to_error_code(batch_error::legacy_magic), error_code::invalid_record);
  }
  // A v0 message is smaller than a v2 header; the magic is still recognised.
  bytes v0 = {0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 14,  0xde, 0xad, 0xbe, 0xef,  0, 0,
              0xff, 0xff, 0xff, 0xff,  0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(parse_record_batch(v0).error, batch_error::legacy_magic);
  for (int magic : {3, 0x7f, 0x80, 0xff}) {
    bytes b = sample_batch();
    b[batch_layout::magic] = static_cast<uint8_t>(magic);
    EXPECT_EQ(parse_record_batch(b).error, batch_error::unknown_magic) << magic;
    record_batch_view direct(b);  // a view made without parsing still refuses it
    mutable_record_batch_view(b).update_crc();
    EXPECT_EQ(direct.validate(), batch_error::unknown_magic);
  }
}

TEST(RecordsBatchCorruption, UnknownCodec) {
  for (int16_t id : {5, 6, 7}) {
    bytes b = sample_batch();
    store_big_endian<int16_t>(b.data() + batch_layout::attributes, id);
    mutable_record_batch_view(b).update_crc();
    record_batch_view v = parse_record_batch(b).batch;
    EXPECT_FALSE(v.codec());
    EXPECT_EQ(v.compression_id(), id);
    EXPECT_EQ(v.validate(), batch_error::unsupported_compression);
    bytes scratch;
    record_iterator it;
    EXPECT_EQ(v.open_records(scratch, kBound, it), batch_error::unsupported_compression);
    EXPECT_EQ(to_error_code(v.validate()), error_code::unsupported_compression_type);
  }
}

TEST(RecordsBatchCorruption, CountsAndOffsetDeltas) {
  auto patched = [](size_t field, int32_t value) {
    bytes b = sample_batch();
    store_big_endian<int32_t>(b.data() + field, value);
    mutable_record_batch_view(b).update_crc();
    return b;
  };
  auto with_count = [](int32_t count) {
    bytes b = sample_batch();
    store_big_endian<int32_t>(b.data() + batch_layout::record_count, count);
    store_big_endian<int32_t>(b.data() + batch_layout::last_offset_delta, count - 1);
    mutable_record_batch_view(b).update_crc();
    return b;
  };
  auto header_error = [](const bytes& b) { return parse_record_batch(b).batch.validate(); };
  EXPECT_EQ(header_error(patched(batch_layout::record_count, -1)), batch_error::invalid_record_count);
  EXPECT_EQ(header_error(with_count(1000000)), batch_error::invalid_record_count);
  EXPECT_EQ(header_error(patched(batch_layout::record_count, 6)), batch_error::invalid_offset_delta);
  EXPECT_EQ(header_error(patched(batch_layout::last_offset_delta, -1)),
            batch_error::invalid_offset_delta);
  EXPECT_EQ(header_error(patched(batch_layout::last_offset_delta, 3)),
            batch_error::invalid_offset_delta);  // 5 records need at least 4
  // A larger last delta is legal in the header (compaction), and the records agree.
  EXPECT_EQ(deep_validate(patched(batch_layout::last_offset_delta, 50)), batch_error::none);
  // Fewer records than declared: the payload runs out.
  EXPECT_EQ(deep_validate(with_count(6)), batch_error::record_count_mismatch);
  // More: bytes are left over after the declared count.
  EXPECT_EQ(deep_validate(with_count(4)), batch_error::record_count_mismatch);
}

// Records assembled by hand: a valid one, then one broken field at a time.
bytes record_bytes(int32_t length, int64_t ts_delta, int32_t offset_delta, int32_t key_length,
                   std::string_view key, int32_t value_length, std::string_view value,
                   int32_t header_count, bytes_view header_bytes = {}) {
  bytes out;
  writer w(out);
  w.write_varint(length);
  w.write_int8(0);
  w.write_varlong(ts_delta);
  w.write_varint(offset_delta);
  w.write_varint(key_length);
  w.write_raw(key);
  w.write_varint(value_length);
  w.write_raw(value);
  w.write_varint(header_count);
  w.write_raw(header_bytes);
  return out;
}

TEST(RecordsBatchCorruption, MalformedRecords) {
  // attributes, ts, offset, key len, "k", value len, "v", header count = 8 bytes
  EXPECT_EQ(deep_validate(with_records(record_bytes(8, 0, 0, 1, "k", 1, "v", 0), 1, 0)),
            batch_error::none);
  struct bad_case {
    const char* what;
    bytes record;
    batch_error expected;
  };
  bytes one_header = {0x02, 'h', 0x02, 'x'};
  bytes negative_header_key = {0x01, 0x02, 'x'};
  bytes header_value_too_long = {0x02, 'h', 0x7e, 'x'};
  const bad_case cases[] = {
      {"length too long", record_bytes(9, 0, 0, 1, "k", 1, "v", 0), batch_error::invalid_record},
      {"length too short", record_bytes(7, 0, 0, 1, "k", 1, "v", 0), batch_error::invalid_record},
      {"negative length", record_bytes(-1, 0, 0, 1, "k", 1, "v", 0), batch_error::invalid_record},
      {"key length -2", record_bytes(8, 0, 0, -2, "k", 1, "v", 0), batch_error::invalid_record},
      {"key past the record", record_bytes(8, 0, 0, 60, "k", 1, "v", 0), batch_error::invalid_record},
      {"value length -5", record_bytes(8, 0, 0, 1, "k", -5, "v", 0), batch_error::invalid_record},
      {"negative headers", record_bytes(8, 0, 0, 1, "k", 1, "v", -1), batch_error::invalid_record},
      {"headers missing", record_bytes(8, 0, 0, 1, "k", 1, "v", 1), batch_error::invalid_record},
      {"header count huge", record_bytes(12, 0, 0, 1, "k", 1, "v", 1000000, one_header),
       batch_error::invalid_record},
      {"null header key", record_bytes(11, 0, 0, 1, "k", 1, "v", 1, negative_header_key),
       batch_error::invalid_record},
      {"header value too long", record_bytes(12, 0, 0, 1, "k", 1, "v", 1, header_value_too_long),
       batch_error::invalid_record},
      {"offset delta past last", record_bytes(8, 0, 1, 1, "k", 1, "v", 0),
       batch_error::invalid_offset_delta},
      {"negative offset delta", record_bytes(8, 0, -1, 1, "k", 1, "v", 0),
       batch_error::invalid_offset_delta},
  };
  for (const bad_case& c : cases) {
    EXPECT_EQ(deep_validate(with_records(c.record, 1, 0)), c.expected) << c.what;
  }
  // A ten-byte varint that overflows, as the record length.
  bytes overlong = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  EXPECT_EQ(deep_validate(with_records(overlong, 1, 0)), batch_error::invalid_record);
  // Offset deltas must increase.
  bytes twice = record_bytes(8, 0, 0, 1, "k", 1, "v", 0);
  bytes again = record_bytes(8, 0, 0, 1, "k", 1, "v", 0);
  twice.insert(twice.end(), again.begin(), again.end());
  EXPECT_EQ(deep_validate(with_records(twice, 2, 1)), batch_error::invalid_offset_delta);
}

// Kafka's varint reader takes overlong encodings (0x82 0x00 is 1); so do we,
// and the fields read back the same. Found by the fuzzer's round-trip check.
TEST(RecordsBatchCorruption, OverlongVarintsAreAccepted) {
  bytes record = {0x1a,             // length 13
                  0x00, 0x80, 0x00, // attributes, timestampDelta 0 in two bytes
                  0x00,             // offsetDelta 0
                  0x82, 0x00, 'k',  // key length 1 in two bytes
                  0x01,             // null value
                  0x02,             // one header
                  0x82, 0x00, 'h',  // header key length 1 in two bytes
                  0x01};            // null header value
  bytes batch = with_records(record, 1, 0);
  ASSERT_EQ(deep_validate(batch), batch_error::none);
  record_batch_view v = parse_record_batch(batch).batch;
  record_iterator it = v.iterate(v.records_bytes());
  record_view r;
  ASSERT_TRUE(it.next(r));
  EXPECT_EQ(std::string(r.key->begin(), r.key->end()), "k");
  EXPECT_FALSE(r.value.has_value());
  ASSERT_EQ(r.headers().size(), 1u);
  EXPECT_EQ(r.headers().begin()->key, "h");
  EXPECT_FALSE(r.headers().begin()->value.has_value());
}

TEST(RecordsBatchCorruption, BadCompressedPayloads) {
  bytes records = record_bytes(8, 0, 0, 1, "k", 1, "v", 0);
  for (compression codec : {compression::gzip, compression::snappy, compression::lz4,
                            compression::zstd}) {
    // Uncompressed bytes labelled as compressed.
    bytes b = with_records(records, 1, 0, codec);
    EXPECT_EQ(deep_validate(b), batch_error::decompression_failed) << compression_name(codec);
    EXPECT_EQ(to_error_code(batch_error::decompression_failed), error_code::corrupt_message);
    // Compressed records that decode to more than the caller allows.
    bytes big(100000, 'x');
    bytes packed = compress(codec, big);
    b = with_records(packed, 1, 0, codec);
    record_batch_view v = parse_record_batch(b).batch;
    bytes scratch;
    record_iterator it;
    EXPECT_EQ(v.open_records(scratch, 50000, it), batch_error::records_too_large);
    EXPECT_LE(scratch.capacity(), 50001u);
    // Compressed garbage that decodes fine but is not records.
    EXPECT_EQ(v.validate_records(scratch, kBound), batch_error::invalid_record);
  }
}

TEST(RecordsBatchCorruption, WalkerStopsAtAMalformedBatch) {
  bytes records = sample_batch();
  bytes second = sample_batch();
  store_big_endian<int32_t>(second.data() + batch_layout::batch_length, 10);
  records.insert(records.end(), second.begin(), second.end());
  record_batch_walker w(records);
  record_batch_view v;
  EXPECT_TRUE(w.next(v));
  EXPECT_FALSE(w.next(v));
  EXPECT_EQ(w.error(), batch_error::invalid_length);
  EXPECT_FALSE(w.next(v));  // and stays stopped
  EXPECT_EQ(w.position(), sample_batch().size());
}

}  // namespace
}  // namespace hw::protocol
