#pragma once
// Coordinator records (__consumer_offsets, __transaction_state) store a key
// and a value each as an int16 version followed by the message at that
// version, as Kafka's MessageUtil.toVersionPrefixedBytes writes them. Pure;
// any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::protocol {

template <typename T>
std::vector<uint8_t> encode_version_prefixed(const T& message, int16_t version) {
  std::vector<uint8_t> out;
  out.reserve(2 + message.encoded_size(version));
  writer w(out);
  w.write_int16(version);
  message.encode(w, version);
  return out;
}

// `T` at the version in the first two bytes, which must lie in
// [min_version, max_version]; the whole input must be consumed. nullopt on
// any error.
template <typename T>
std::optional<T> decode_version_prefixed(std::span<const uint8_t> bytes, int16_t min_version, int16_t max_version,
                                         int16_t* version_out = nullptr) {
  reader r(bytes);
  const int16_t version = r.read_int16();
  if (!r.ok() || version < min_version || version > max_version) return std::nullopt;
  T message;
  message.decode(r, version);
  if (!r.ok() || r.remaining() != 0) return std::nullopt;
  if (version_out) *version_out = version;
  return message;
}

}  // namespace hw::protocol
