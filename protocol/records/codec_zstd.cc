// zstd frames, decoded with the streaming API so that the output bound holds
// whatever the frame header claims.

#include <zstd.h>

#include <limits>

#include "protocol/records/codec_backends.h"

namespace hw::protocol::codec_backends {
namespace {
namespace zstd_detail {

// The Java client (zstd-jni) accepts windows up to 2^27, zstd's default
// limit; producers at high levels do use large windows for small batches,
// so a smaller limit would refuse valid data. The window is reserved, not
// written: resident memory still follows the output bound.
constexpr int kWindowLogMax = 27;

struct context_guard {
  ZSTD_DCtx* ctx;
  ~context_guard() { ZSTD_freeDCtx(ctx); }
};

}  // namespace zstd_detail
}  // namespace

codec_status zstd_decompress(std::span<const uint8_t> in, bounded_output& out) {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  if (ctx == nullptr) return {codec_error::internal, "zstd: cannot create a context"};
  zstd_detail::context_guard guard{ctx};
  ZSTD_DCtx_setParameter(ctx, ZSTD_d_windowLogMax, zstd_detail::kWindowLogMax);
  // A single frame written in one shot declares its size. Within the bound,
  // decode it in one call into exactly that much room (zstd refuses to write
  // past it and checks the size), skipping the stream's window copy.
  unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
      declared <= out.max_bytes() && ZSTD_findFrameCompressedSize(in.data(), in.size()) == in.size()) {
    std::span<uint8_t> space = out.exact_space(static_cast<size_t>(declared));
    size_t n = ZSTD_decompressDCtx(ctx, space.data(), space.size(), in.data(), in.size());
    if (ZSTD_isError(n)) return {codec_error::corrupt, ZSTD_getErrorName(n)};
    out.commit(n);
    return {};
  }
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  for (;;) {
    std::span<uint8_t> space = out.free_space();
    if (space.empty()) return {codec_error::output_too_large, "zstd: output exceeds the bound"};
    ZSTD_outBuffer output{space.data(), space.size(), 0};
    size_t hint = ZSTD_decompressStream(ctx, &output, &input);
    out.commit(output.pos);
    if (ZSTD_isError(hint)) return {codec_error::corrupt, ZSTD_getErrorName(hint)};
    if (out.over_limit()) return {codec_error::output_too_large, "zstd: output exceeds the bound"};
    if (hint == 0) {
      // A frame ended and is fully flushed; a concatenated one may follow.
      if (input.pos == input.size) return {};
      continue;
    }
    if (input.pos == input.size && output.pos < output.size) {
      return {codec_error::truncated, "zstd: truncated frame"};
    }
  }
}

void zstd_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level) {
  size_t at = out.size();
  size_t bound = ZSTD_compressBound(in.size());
  out.resize(at + bound);
  size_t written = ZSTD_compress(out.data() + at, bound, in.data(), in.size(), level);
  if (ZSTD_isError(written)) codec_fatal(ZSTD_getErrorName(written));
  out.resize(at + written);
}

}  // namespace hw::protocol::codec_backends
