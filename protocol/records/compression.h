#pragma once
// The record batch codecs, byte-compatible with what the Java client writes
// and reads: gzip (RFC 1952), snappy (xerial framing; raw blocks accepted on
// decode), lz4 (LZ4 frame format, independent 64 KiB blocks) and zstd.
//
// Decompression is bounded: output never grows past max_output_bytes (plus
// one byte used to detect overflow), whatever sizes the input claims, so a
// small payload cannot make the broker allocate gigabytes. Failures are
// values; nothing here throws. Stateless and thread-safe.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace hw::protocol {

// The low three bits of a batch's attributes.
enum class compression : int8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };

// The codec with this id, or nothing for ids 5..7 (and anything else).
std::optional<compression> compression_from_id(int id);
// Kafka's name of the codec ("none", "gzip", "snappy", "lz4", "zstd").
std::string_view compression_name(compression codec);

enum class codec_error : uint8_t {
  none = 0,
  unknown_codec,     // a compression value outside the enum
  corrupt,           // the codec rejected the data (bad magic, checksum, stream)
  truncated,         // the input ends inside the compressed stream
  output_too_large,  // the output would exceed max_output_bytes
  internal,          // the codec library failed to set up (out of memory)
};

struct codec_status {
  codec_error error = codec_error::none;
  const char* message = "";  // static text, for logs only

  bool ok() const { return error == codec_error::none; }
};

class decompress_result {
 public:
  explicit decompress_result(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  explicit decompress_result(codec_status status) : status_(status) {}

  bool ok() const { return status_.ok(); }
  codec_error error() const { return status_.error; }
  const char* message() const { return status_.message; }
  // The output; empty unless ok().
  const std::vector<uint8_t>& bytes() const& { return bytes_; }
  std::vector<uint8_t>&& bytes() && { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
  codec_status status_;
};

// Decompresses input into out (cleared first; its capacity is reused, so a
// caller decoding many batches keeps one buffer). On failure out is empty.
codec_status decompress_into(compression codec, std::span<const uint8_t> input,
                             size_t max_output_bytes, std::vector<uint8_t>& out);

decompress_result decompress(compression codec, std::span<const uint8_t> input,
                             size_t max_output_bytes);

// Appends the compressed form of input to out. level uses the codec's own
// scale; nothing means Kafka's default (gzip 6, lz4 9, zstd 3; snappy has no
// levels). An unknown codec is a programming error and aborts.
void compress_into(compression codec, std::span<const uint8_t> input, std::vector<uint8_t>& out,
                   std::optional<int> level = std::nullopt);

std::vector<uint8_t> compress(compression codec, std::span<const uint8_t> input,
                              std::optional<int> level = std::nullopt);

}  // namespace hw::protocol
