#include "protocol/records/compression.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "protocol/records/codec_backends.h"

namespace hw::protocol {

namespace codec_backends {

bounded_output::bounded_output(std::vector<uint8_t>& out, size_t max_bytes, size_t size_hint)
    : out_(out),
      max_bytes_(max_bytes),
      capacity_limit_(max_bytes == std::numeric_limits<size_t>::max() ? max_bytes : max_bytes + 1),
      // Below this the doubling steps cost more than they save.
      size_hint_(std::max<size_t>(size_hint, 16 * 1024)) {
  out_.clear();
}

void bounded_output::grow_to(size_t size) {
  // Reserve exactly, so the vector's own growth policy cannot overshoot the bound.
  if (size > out_.capacity()) out_.reserve(size);
  out_.resize(size);
}

std::span<uint8_t> bounded_output::free_space() {
  if (written_ == out_.size()) {
    if (out_.size() >= capacity_limit_) return {};
    // Allocation waits for the first write: decoders that learn the exact
    // size (exact_space, hint) never pay for the guess.
    size_t doubled = out_.size() > capacity_limit_ / 2 ? capacity_limit_ : out_.size() * 2;
    grow_to(out_.empty() ? std::min(capacity_limit_, std::max<size_t>(size_hint_, 1)) : doubled);
  }
  return {out_.data() + written_, out_.size() - written_};
}

std::span<uint8_t> bounded_output::exact_space(size_t n) {
  if (out_.size() - written_ < n) {
    // Doubling keeps a long run of small chunks linear; the bound caps it.
    size_t want = std::max(written_ + n, std::min(out_.size() * 2, max_bytes_));
    grow_to(want);
  }
  return {out_.data() + written_, n};
}

void codec_fatal(const char* what) {
  std::fprintf(stderr, "fatal: compression: %s\n", what);
  std::abort();
}

}  // namespace codec_backends

std::optional<compression> compression_from_id(int id) {
  if (id < 0 || id > static_cast<int>(compression::zstd)) return std::nullopt;
  return static_cast<compression>(id);
}

std::string_view compression_name(compression codec) {
  switch (codec) {
    case compression::none: return "none";
    case compression::gzip: return "gzip";
    case compression::snappy: return "snappy";
    case compression::lz4: return "lz4";
    case compression::zstd: return "zstd";
  }
  return "unknown";
}

codec_status decompress_into(compression codec, std::span<const uint8_t> input,
                             size_t max_output_bytes, std::vector<uint8_t>& out) {
  using namespace codec_backends;
  // Guess a compression ratio of 4; the buffer doubles from there if needed.
  size_t hint = input.size() > std::numeric_limits<size_t>::max() / 4 ? input.size()
                                                                      : input.size() * 4;
  bounded_output output(out, max_output_bytes, hint);
  codec_status status;
  switch (codec) {
    case compression::none:
      if (input.size() > max_output_bytes) {
        status = {codec_error::output_too_large, "uncompressed input exceeds the bound"};
      } else {
        std::copy(input.begin(), input.end(), output.exact_space(input.size()).begin());
        output.commit(input.size());
      }
      break;
    case compression::gzip: status = gzip_decompress(input, output); break;
    case compression::snappy: status = snappy_decompress(input, output); break;
    case compression::lz4: status = lz4_decompress(input, output); break;
    case compression::zstd: status = zstd_decompress(input, output); break;
    default: status = {codec_error::unknown_codec, "unknown compression codec"}; break;
  }
  if (status.ok() && output.over_limit()) {
    status = {codec_error::output_too_large, "decompressed size exceeds the bound"};
  }
  if (!status.ok()) {
    out.clear();
    return status;
  }
  output.finish();
  return status;
}

decompress_result decompress(compression codec, std::span<const uint8_t> input,
                             size_t max_output_bytes) {
  std::vector<uint8_t> out;
  codec_status status = decompress_into(codec, input, max_output_bytes, out);
  if (!status.ok()) return decompress_result(status);
  return decompress_result(std::move(out));
}

void compress_into(compression codec, std::span<const uint8_t> input, std::vector<uint8_t>& out,
                   std::optional<int> level) {
  using namespace codec_backends;
  // Kafka's defaults: compression.gzip.level -1 (zlib's 6), lz4 9, zstd 3.
  switch (codec) {
    case compression::none: out.insert(out.end(), input.begin(), input.end()); return;
    case compression::gzip: gzip_compress(input, out, level.value_or(6)); return;
    case compression::snappy: snappy_compress(input, out); return;
    case compression::lz4: lz4_compress(input, out, level.value_or(9)); return;
    case compression::zstd: zstd_compress(input, out, level.value_or(3)); return;
  }
  codec_fatal("compress called with an unknown codec");
}

std::vector<uint8_t> compress(compression codec, std::span<const uint8_t> input,
                              std::optional<int> level) {
  std::vector<uint8_t> out;
  compress_into(codec, input, out, level);
  return out;
}

}  // namespace hw::protocol
