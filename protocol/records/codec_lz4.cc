// lz4 in the LZ4 frame format, as Kafka's KafkaLZ4BlockOutputStream writes
// it for magic 2: independent 64 KiB blocks, no content size, no checksums,
// and a correct header checksum (the "broken" one belongs to magic 0/1).

#include <lz4frame.h>

#include "protocol/records/codec_backends.h"

namespace hw::protocol::codec_backends {
namespace {
namespace lz4_detail {

struct context_guard {
  LZ4F_dctx* ctx;
  ~context_guard() { LZ4F_freeDecompressionContext(ctx); }
};

}  // namespace lz4_detail
}  // namespace

codec_status lz4_decompress(std::span<const uint8_t> in, bounded_output& out) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    return {codec_error::internal, "lz4: cannot create a context"};
  }
  lz4_detail::context_guard guard{ctx};
  size_t pos = 0;
  for (;;) {
    std::span<uint8_t> space = out.free_space();
    if (space.empty()) return {codec_error::output_too_large, "lz4: output exceeds the bound"};
    size_t produced = space.size();
    size_t consumed = in.size() - pos;
    size_t hint = LZ4F_decompress(ctx, space.data(), &produced, in.data() + pos, &consumed, nullptr);
    pos += consumed;
    out.commit(produced);
    if (LZ4F_isError(hint)) return {codec_error::corrupt, LZ4F_getErrorName(hint)};
    if (out.over_limit()) return {codec_error::output_too_large, "lz4: output exceeds the bound"};
    if (hint == 0) {
      // A frame ended; the context is ready for a concatenated one.
      if (pos == in.size()) return {};
      continue;
    }
    // Input used up without filling the output: the decoder wants more.
    if (pos == in.size() && produced < space.size()) {
      return {codec_error::truncated, "lz4: truncated frame"};
    }
    if (consumed == 0 && produced == 0) return {codec_error::corrupt, "lz4: decoder made no progress"};
  }
}

void lz4_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  // The Java reader refuses linked blocks.
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
  prefs.compressionLevel = level;
  size_t at = out.size();
  size_t bound = LZ4F_compressFrameBound(in.size(), &prefs);
  out.resize(at + bound);
  size_t written = LZ4F_compressFrame(out.data() + at, bound, in.data(), in.size(), &prefs);
  if (LZ4F_isError(written)) codec_fatal(LZ4F_getErrorName(written));
  out.resize(at + written);
}

}  // namespace hw::protocol::codec_backends
