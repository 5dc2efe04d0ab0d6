// snappy as the Java client writes it (snappy-java's SnappyOutputStream):
// a 16-byte header (magic 0x82 "SNAPPY" 0, version 1, compatible version 1)
// then [int32 big-endian length][raw snappy block] chunks of 32 KiB input.
// Decoding also takes a bare raw snappy block, which librdkafka can send and
// SnappyInputStream accepts; and concatenated framed streams.

#include <snappy.h>

#include <algorithm>
#include <cstring>

#include "protocol/records/big_endian.h"
#include "protocol/records/codec_backends.h"

namespace hw::protocol::codec_backends {
namespace {
namespace snappy_detail {

constexpr uint8_t kMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kHeaderBytes = 16;  // magic, int32 version, int32 min compatible version
constexpr int32_t kVersion = 1;
constexpr size_t kBlockInputBytes = 32 * 1024;  // SnappyOutputStream's default block size

bool starts_with_magic(std::span<const uint8_t> in) {
  return in.size() >= sizeof(kMagic) && std::memcmp(in.data(), kMagic, sizeof(kMagic)) == 0;
}

// Appends one decoded raw block to the output; its declared length is checked
// against the bound before any allocation, and snappy verifies it exactly.
codec_status decode_block(std::span<const uint8_t> block, bounded_output& out) {
  auto src = reinterpret_cast<const char*>(block.data());
  size_t length = 0;
  if (!snappy::GetUncompressedLength(src, block.size(), &length)) {
    return {codec_error::corrupt, "snappy: bad block length"};
  }
  if (length > out.max_bytes() - out.written()) {
    return {codec_error::output_too_large, "snappy: output exceeds the bound"};
  }
  std::span<uint8_t> space = out.exact_space(length);
  if (!snappy::RawUncompress(src, block.size(), reinterpret_cast<char*>(space.data()))) {
    return {codec_error::corrupt, "snappy: corrupt block"};
  }
  out.commit(length);
  return {};
}

// Calls chunk(block) for each raw block of a framed stream, skipping the
// headers of concatenated streams; stops at the first failure.
template <typename Chunk>
codec_status for_each_block(std::span<const uint8_t> in, Chunk&& chunk) {
  size_t pos = 0;
  while (pos < in.size()) {
    std::span<const uint8_t> rest = in.subspan(pos);
    if (starts_with_magic(rest)) {
      if (rest.size() < kHeaderBytes) return {codec_error::truncated, "snappy: truncated header"};
      pos += kHeaderBytes;
      continue;
    }
    if (rest.size() < 4) return {codec_error::truncated, "snappy: truncated chunk length"};
    int32_t length = load_big_endian<int32_t>(rest.data());
    if (length < 0) return {codec_error::corrupt, "snappy: negative chunk length"};
    if (static_cast<size_t>(length) > rest.size() - 4) {
      return {codec_error::truncated, "snappy: truncated chunk"};
    }
    codec_status status = chunk(rest.subspan(4, static_cast<size_t>(length)));
    if (!status.ok()) return status;
    pos += 4 + static_cast<size_t>(length);
  }
  return {};
}

// Two passes: the blocks' declared sizes are summed and checked against the
// bound first (reading a varint per block), so the output is allocated once.
codec_status decode_framed(std::span<const uint8_t> in, bounded_output& out) {
  size_t total = 0;
  codec_status status = for_each_block(in, [&](std::span<const uint8_t> block) -> codec_status {
    size_t length = 0;
    if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(block.data()), block.size(),
                                       &length)) {
      return {codec_error::corrupt, "snappy: bad block length"};
    }
    if (length > out.max_bytes() - total) {
      return {codec_error::output_too_large, "snappy: output exceeds the bound"};
    }
    total += length;
    return {};
  });
  if (!status.ok()) return status;
  out.exact_space(total);
  return for_each_block(in, [&](std::span<const uint8_t> block) { return decode_block(block, out); });
}

}  // namespace snappy_detail
}  // namespace

codec_status snappy_decompress(std::span<const uint8_t> in, bounded_output& out) {
  using namespace snappy_detail;
  if (starts_with_magic(in)) return decode_framed(in, out);
  return decode_block(in, out);
}

void snappy_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out) {
  using namespace snappy_detail;
  size_t at = out.size();
  out.resize(at + kHeaderBytes);
  std::memcpy(out.data() + at, kMagic, sizeof(kMagic));
  store_big_endian<int32_t>(out.data() + at + 8, kVersion);
  store_big_endian<int32_t>(out.data() + at + 12, kVersion);
  for (size_t pos = 0; pos < in.size(); pos += kBlockInputBytes) {
    size_t n = std::min(kBlockInputBytes, in.size() - pos);
    size_t chunk_at = out.size();
    out.resize(chunk_at + 4 + snappy::MaxCompressedLength(n));
    size_t written = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data() + pos), n,
                        reinterpret_cast<char*>(out.data() + chunk_at + 4), &written);
    store_big_endian<int32_t>(out.data() + chunk_at, static_cast<int32_t>(written));
    out.resize(chunk_at + 4 + written);
  }
}

}  // namespace hw::protocol::codec_backends
