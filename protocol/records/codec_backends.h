#pragma once
// Internal to protocol/records: one pair of functions per codec library, and
// the bounded output buffer they all decode into. Users include
// compression.h instead.

#include <cstdint>
#include <span>
#include <vector>

#include "protocol/records/compression.h"

namespace hw::protocol::codec_backends {

// A caller's vector used as a decode target that never grows past
// max_bytes + 1: the extra byte lets a streaming decoder prove that the
// output is too large without trusting any size the input declares.
// Growth is geometric from a hint, so small outputs stay small.
class bounded_output {
 public:
  bounded_output(std::vector<uint8_t>& out, size_t max_bytes, size_t size_hint);

  // Writable space after what has been written; empty once the buffer holds
  // max_bytes + 1 bytes (which over_limit() then reports).
  std::span<uint8_t> free_space();
  // Space for exactly n more bytes; the caller has checked written() + n <= max_bytes().
  std::span<uint8_t> exact_space(size_t n);
  void commit(size_t n) { written_ += n; }

  size_t written() const { return written_; }
  size_t max_bytes() const { return max_bytes_; }
  bool over_limit() const { return written_ > max_bytes_; }
  // Trims the vector to what was written.
  void finish() { out_.resize(written_); }

 private:
  void grow_to(size_t size);

  std::vector<uint8_t>& out_;
  size_t max_bytes_;
  size_t capacity_limit_;  // max_bytes + 1, saturated
  size_t size_hint_;
  size_t written_ = 0;
};

// Each decoder reports truncation, corruption and overflow; on success the
// output's written() bytes are the payload.
codec_status gzip_decompress(std::span<const uint8_t> in, bounded_output& out);
codec_status snappy_decompress(std::span<const uint8_t> in, bounded_output& out);
codec_status lz4_decompress(std::span<const uint8_t> in, bounded_output& out);
codec_status zstd_decompress(std::span<const uint8_t> in, bounded_output& out);

// Each encoder appends to out; failure of the library on valid input means
// memory is exhausted, which is fatal.
void gzip_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level);
void snappy_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out);
void lz4_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level);
void zstd_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level);

// Stops the process with a message: a broken invariant, not an input error.
[[noreturn]] void codec_fatal(const char* what);

}  // namespace hw::protocol::codec_backends
