#include "protocol/records/compression.h"

#include <gtest/gtest.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zstd.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace hw::protocol {
namespace {

using bytes = std::vector<uint8_t>;

constexpr compression kCodecs[] = {compression::none, compression::gzip, compression::snappy,
                                   compression::lz4, compression::zstd};
constexpr compression kRealCodecs[] = {compression::gzip, compression::snappy, compression::lz4,
                                       compression::zstd};
constexpr size_t kMiB = 1024 * 1024;

bytes random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// JSON-ish text: repetitive structure with varying numbers, like real payloads.
bytes compressible_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < n) {
    s += R"({"user_id":)" + std::to_string(rng() % 100000) + R"(,"event":"page_view","path":"/item/)" +
         std::to_string(rng() % 5000) + R"(","ok":true})";
  }
  s.resize(n);
  return {s.begin(), s.end()};
}

bytes as_bytes(std::string_view s) { return {s.begin(), s.end()}; }

std::string name_of(compression c) { return std::string(compression_name(c)); }

TEST(RecordsCompression, Ids) {
  for (int id = 0; id <= 4; ++id) EXPECT_EQ(static_cast<int>(*compression_from_id(id)), id);
  for (int id : {-1, 5, 6, 7, 8}) EXPECT_FALSE(compression_from_id(id));
  EXPECT_EQ(compression_name(compression::zstd), "zstd");
  EXPECT_EQ(compression_name(compression::none), "none");
}

TEST(RecordsCompression, RoundTripEveryCodecAndSize) {
  for (compression codec : kCodecs) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{1024}, kMiB}) {
      for (bool random : {true, false}) {
        bytes input = random ? random_bytes(size, 1) : compressible_bytes(size, 2);
        bytes packed = compress(codec, input);
        decompress_result out = decompress(codec, packed, size);
        ASSERT_TRUE(out.ok()) << name_of(codec) << " " << size << ": " << out.message();
        EXPECT_EQ(out.bytes(), input) << name_of(codec) << " " << size;
        if (!random && size == kMiB && codec != compression::none) {
          EXPECT_LT(packed.size(), size / 3) << name_of(codec);
        }
      }
    }
  }
}

TEST(RecordsCompression, RoundTripWithLevels) {
  bytes input = compressible_bytes(200000, 3);
  for (auto [codec, level] : {std::pair{compression::gzip, 1}, {compression::gzip, 9},
                              {compression::lz4, 1}, {compression::lz4, 12},
                              {compression::zstd, 1}, {compression::zstd, 10}}) {
    decompress_result out = decompress(codec, compress(codec, input, level), input.size());
    ASSERT_TRUE(out.ok()) << name_of(codec) << level;
    EXPECT_EQ(out.bytes(), input);
  }
}

TEST(RecordsCompression, DecompressIntoReusesTheBuffer) {
  bytes out;
  for (compression codec : kCodecs) {
    for (size_t size : {size_t{100000}, size_t{10}}) {
      bytes input = compressible_bytes(size, 4);
      codec_status s = decompress_into(codec, compress(codec, input), size, out);
      ASSERT_TRUE(s.ok()) << s.message;
      EXPECT_EQ(out, input);
    }
  }
}

TEST(RecordsCompression, JavaCompatibleFraming) {
  bytes input = compressible_bytes(100000, 5);
  bytes gz = compress(compression::gzip, input);
  EXPECT_EQ(gz[0], 0x1f);
  EXPECT_EQ(gz[1], 0x8b);
  EXPECT_EQ(gz[2], 8);  // deflate

  bytes lz = compress(compression::lz4, input);
  ASSERT_GE(lz.size(), 7u);
  EXPECT_EQ((bytes{lz.begin(), lz.begin() + 4}), (bytes{0x04, 0x22, 0x4d, 0x18}));
  // FLG: version 01, independent blocks, no block/content checksum, no content size.
  EXPECT_EQ(lz[4], 0x60);
  // BD: 64 KiB maximum block size, as KafkaLZ4BlockOutputStream writes.
  EXPECT_EQ(lz[5], 0x40);

  bytes zs = compress(compression::zstd, input);
  EXPECT_EQ((bytes{zs.begin(), zs.begin() + 4}), (bytes{0x28, 0xb5, 0x2f, 0xfd}));

  // snappy-java's SnappyOutputStream: header, then length-prefixed 32 KiB blocks.
  bytes sn = compress(compression::snappy, input);
  const bytes header = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
  ASSERT_GE(sn.size(), header.size());
  EXPECT_EQ((bytes{sn.begin(), sn.begin() + 16}), header);
  size_t pos = 16, chunks = 0, total = 0;
  while (pos < sn.size()) {
    ASSERT_LE(pos + 4, sn.size());
    size_t n = (size_t{sn[pos]} << 24) | (size_t{sn[pos + 1]} << 16) | (size_t{sn[pos + 2]} << 8) |
               sn[pos + 3];
    size_t block_size = 0;
    ASSERT_TRUE(snappy::GetUncompressedLength(reinterpret_cast<const char*>(&sn[pos + 4]), n,
                                              &block_size));
    EXPECT_LE(block_size, 32768u);
    total += block_size;
    pos += 4 + n;
    ++chunks;
  }
  EXPECT_EQ(pos, sn.size());
  EXPECT_EQ(chunks, (input.size() + 32767) / 32768);
  EXPECT_EQ(total, input.size());
}

TEST(RecordsCompression, DecodesForeignGzip) {
  // Python's gzip module, mtime 0: another implementation's bytes.
  const bytes gz = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xcb, 0x48,
                    0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x4e, 0x4c, 0xcb, 0x4e, 0xd4, 0x51, 0xc8,
                    0x40, 0x70, 0x00, 0xef, 0x98, 0xac, 0x8c, 0x18, 0x00, 0x00, 0x00};
  decompress_result out = decompress(compression::gzip, gz, 100);
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out.bytes(), as_bytes("hello kafka, hello kafka"));
}

TEST(RecordsCompression, DecodesHandBuiltXerialSnappy) {
  // Header, then one chunk: a raw block of length 5 holding one literal.
  const bytes framed = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
                        0, 0, 0, 7, 0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};
  decompress_result out = decompress(compression::snappy, framed, 100);
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out.bytes(), as_bytes("hello"));
  // Header-only: an empty stream, as SnappyOutputStream writes for no input.
  out = decompress(compression::snappy, bytes(framed.begin(), framed.begin() + 16), 100);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out.bytes().empty());
}

TEST(RecordsCompression, DecodesRawSnappyBlocks) {
  bytes input = compressible_bytes(50000, 6);
  std::string raw;
  snappy::Compress(reinterpret_cast<const char*>(input.data()), input.size(), &raw);
  decompress_result out = decompress(compression::snappy, as_bytes(raw), input.size());
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out.bytes(), input);
  // The declared size is checked before anything is allocated.
  out = decompress(compression::snappy, as_bytes(raw), input.size() - 1);
  EXPECT_EQ(out.error(), codec_error::output_too_large);
}

// zstd-jni (the Java client) streams: its frames do not declare their size,
// which takes the streaming decoder rather than the one-shot one.
TEST(RecordsCompression, ZstdFramesWithoutDeclaredSize) {
  bytes input = compressible_bytes(300000, 15);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ASSERT_NE(cctx, nullptr);
  bytes packed(ZSTD_compressBound(input.size()) + 1024);
  ZSTD_outBuffer out{packed.data(), packed.size(), 0};
  for (size_t pos = 0; pos < input.size(); pos += 16384) {
    ZSTD_inBuffer in{input.data() + pos, std::min<size_t>(16384, input.size() - pos), 0};
    while (in.pos < in.size) {
      ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue)));
    }
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  while (ZSTD_compressStream2(cctx, &out, &none, ZSTD_e_end) != 0) {
  }
  ZSTD_freeCCtx(cctx);
  packed.resize(out.pos);
  ASSERT_EQ(ZSTD_getFrameContentSize(packed.data(), packed.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  decompress_result result = decompress(compression::zstd, packed, input.size());
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.bytes(), input);
  EXPECT_EQ(decompress(compression::zstd, packed, input.size() - 1).error(),
            codec_error::output_too_large);
  packed.resize(packed.size() - 3);
  EXPECT_EQ(decompress(compression::zstd, packed, input.size()).error(), codec_error::truncated);
}

// Other writers' lz4 frames: content size, checksums, linked blocks.
TEST(RecordsCompression, Lz4FramesWithEveryOption) {
  bytes input = compressible_bytes(300000, 16);
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max256KB;
  prefs.frameInfo.blockMode = LZ4F_blockLinked;
  prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  prefs.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
  prefs.frameInfo.contentSize = input.size();
  bytes packed(LZ4F_compressFrameBound(input.size(), &prefs));
  size_t n = LZ4F_compressFrame(packed.data(), packed.size(), input.data(), input.size(), &prefs);
  ASSERT_FALSE(LZ4F_isError(n));
  packed.resize(n);
  decompress_result result = decompress(compression::lz4, packed, input.size());
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.bytes(), input);
  // With checksums, damage anywhere in the data is caught.
  packed[packed.size() / 2] ^= 0x01;
  EXPECT_EQ(decompress(compression::lz4, packed, input.size()).error(), codec_error::corrupt);
}

TEST(RecordsCompression, ConcatenatedStreams) {
  bytes a = compressible_bytes(70000, 7), b = random_bytes(3000, 8);
  bytes both = a;
  both.insert(both.end(), b.begin(), b.end());
  for (compression codec : kRealCodecs) {
    bytes packed = compress(codec, a);
    bytes second = compress(codec, b);
    packed.insert(packed.end(), second.begin(), second.end());
    decompress_result out = decompress(codec, packed, both.size());
    ASSERT_TRUE(out.ok()) << name_of(codec) << ": " << out.message();
    EXPECT_EQ(out.bytes(), both) << name_of(codec);
  }
}

TEST(RecordsCompression, TruncatedInputFails) {
  bytes input = compressible_bytes(20000, 9);
  for (compression codec : kRealCodecs) {
    bytes packed = compress(codec, input);
    for (size_t n = 0; n < packed.size(); ++n) {
      bytes cut(packed.begin(), packed.begin() + n);
      decompress_result out = decompress(codec, cut, input.size());
      if (codec == compression::snappy && out.ok()) {
        // The xerial framing has no end marker: a cut at a chunk boundary is
        // a shorter valid stream (snappy-java reads it the same way).
        EXPECT_LT(out.bytes().size(), input.size());
        EXPECT_TRUE(std::equal(out.bytes().begin(), out.bytes().end(), input.begin()));
        continue;
      }
      ASSERT_FALSE(out.ok()) << name_of(codec) << " cut at " << n;
      EXPECT_TRUE(out.error() == codec_error::truncated || out.error() == codec_error::corrupt)
          << name_of(codec) << " cut at " << n << ": " << out.message();
      EXPECT_TRUE(out.bytes().empty());
    }
  }
}

TEST(RecordsCompression, CorruptedInputFailsOrStaysBounded) {
  bytes input = compressible_bytes(20000, 10);
  std::mt19937 rng(11);
  for (compression codec : kRealCodecs) {
    bytes packed = compress(codec, input);
    for (int trial = 0; trial < 500; ++trial) {
      bytes damaged = packed;
      size_t at = rng() % damaged.size();
      damaged[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
      decompress_result out = decompress(codec, damaged, input.size());
      if (out.ok()) {
        // Formats without checksums (lz4 and zstd as Kafka writes them,
        // snappy) may decode damage into other bytes, never more of them.
        // gzip checks everything after its 10-byte header (mtime, flags, OS
        // are informational) with a CRC-32 and the length.
        EXPECT_FALSE(codec == compression::gzip && at >= 10) << "gzip damage at " << at;
        EXPECT_LE(out.bytes().size(), input.size());
      }
    }
  }
}

TEST(RecordsCompression, GarbageAfterTheStreamFails) {
  bytes input = compressible_bytes(5000, 12);
  for (compression codec : {compression::gzip, compression::lz4, compression::zstd}) {
    bytes packed = compress(codec, input);
    packed.push_back(0x42);
    EXPECT_FALSE(decompress(codec, packed, input.size()).ok()) << name_of(codec);
  }
}

TEST(RecordsCompression, GarbageIsRefused) {
  bytes garbage = random_bytes(4096, 13);
  for (compression codec : kRealCodecs) {
    decompress_result out = decompress(codec, garbage, kMiB);
    EXPECT_FALSE(out.ok()) << name_of(codec);
  }
}

TEST(RecordsCompression, ExactBound) {
  bytes input = compressible_bytes(123457, 14);
  for (compression codec : kCodecs) {
    bytes packed = compress(codec, input);
    EXPECT_TRUE(decompress(codec, packed, input.size()).ok()) << name_of(codec);
    decompress_result out = decompress(codec, packed, input.size() - 1);
    EXPECT_EQ(out.error(), codec_error::output_too_large) << name_of(codec);
    EXPECT_TRUE(out.bytes().empty());
    EXPECT_EQ(decompress(codec, packed, 0).error(), codec_error::output_too_large);
  }
}

// 100 MB of zeros shrinks to kilobytes; with a 1 MiB bound the decoder must
// stop at the bound and never size its output from the input's claims.
TEST(RecordsCompression, BombIsRefusedWithoutAllocatingIt) {
  bytes zeros(100 * 1000 * 1000, 0);
  for (compression codec : kRealCodecs) {
    bytes packed = compress(codec, zeros, codec == compression::lz4 ? std::optional<int>(1)
                                                                    : std::nullopt);
    EXPECT_LT(packed.size(), 5 * kMiB) << name_of(codec);
    bytes out;
    codec_status s = decompress_into(codec, packed, kMiB, out);
    EXPECT_EQ(s.error, codec_error::output_too_large) << name_of(codec) << ": " << s.message;
    EXPECT_TRUE(out.empty());
    EXPECT_LE(out.capacity(), kMiB + 1) << name_of(codec);
  }
}

TEST(RecordsCompression, UnknownCodec) {
  bytes input = as_bytes("abc");
  decompress_result out = decompress(static_cast<compression>(5), input, 100);
  EXPECT_EQ(out.error(), codec_error::unknown_codec);
}

TEST(RecordsCompression, EmptyInputIsTruncatedForRealCodecs) {
  for (compression codec : kRealCodecs) {
    decompress_result out = decompress(codec, bytes{}, 100);
    EXPECT_FALSE(out.ok()) << name_of(codec);
  }
  EXPECT_TRUE(decompress(compression::none, bytes{}, 0).ok());
}

}  // namespace
}  // namespace hw::protocol
