// gzip as java.util.zip.GZIPOutputStream writes it: a deflate stream in the
// RFC 1952 wrapper. Decoding accepts concatenated members, as
// GZIPInputStream does.

#include <zlib.h>

#include <algorithm>
#include <climits>

#include "protocol/records/codec_backends.h"

namespace hw::protocol::codec_backends {
namespace {
namespace gzip_detail {

// windowBits 15 with 16 added: gzip wrapper only, no zlib or raw deflate.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;

struct inflate_guard {
  z_stream* zs;
  ~inflate_guard() { inflateEnd(zs); }
};

codec_status corrupt(const z_stream& zs) {
  return {codec_error::corrupt, zs.msg != nullptr ? zs.msg : "gzip: corrupt stream"};
}

}  // namespace gzip_detail
}  // namespace

codec_status gzip_decompress(std::span<const uint8_t> in, bounded_output& out) {
  using namespace gzip_detail;
  if (in.size() > UINT_MAX) return {codec_error::corrupt, "gzip: input larger than 4 GiB"};
  z_stream zs{};
  if (inflateInit2(&zs, kGzipWindowBits) != Z_OK) return {codec_error::internal, "gzip: inflateInit2"};
  inflate_guard guard{&zs};
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  for (;;) {
    std::span<uint8_t> space = out.free_space();
    if (space.empty()) return {codec_error::output_too_large, "gzip: output exceeds the bound"};
    zs.next_out = space.data();
    zs.avail_out = static_cast<uInt>(std::min<size_t>(space.size(), UINT_MAX));
    uInt offered = zs.avail_out;
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.commit(offered - zs.avail_out);
    if (out.over_limit()) return {codec_error::output_too_large, "gzip: output exceeds the bound"};
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) return {};
      // Another member follows; anything else there fails its header check.
      if (inflateReset(&zs) != Z_OK) return {codec_error::internal, "gzip: inflateReset"};
      continue;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) {
      // inflate stops early only when it needs more input or more room.
      if (zs.avail_in == 0 && zs.avail_out != 0) {
        return {codec_error::truncated, "gzip: truncated stream"};
      }
      if (rc == Z_BUF_ERROR && zs.avail_out != 0) return corrupt(zs);
      continue;
    }
    if (rc == Z_MEM_ERROR) return {codec_error::internal, "gzip: out of memory"};
    return corrupt(zs);
  }
}

void gzip_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level) {
  if (in.size() > UINT_MAX) codec_fatal("gzip: input larger than 4 GiB");
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, gzip_detail::kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    codec_fatal("gzip: deflateInit2 failed (bad level or out of memory)");
  }
  size_t start = out.size();
  size_t bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  out.resize(start + bound);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data() + start;
  zs.avail_out = static_cast<uInt>(bound);
  // deflateBound guarantees a single Z_FINISH call completes the stream.
  int rc = deflate(&zs, Z_FINISH);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) codec_fatal("gzip: deflate did not finish within deflateBound");
  out.resize(start + bound - zs.avail_out);
}

}  // namespace hw::protocol::codec_backends
