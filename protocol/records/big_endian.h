#pragma once
// Unaligned big-endian loads and stores on raw pointers, for fixed-offset
// header fields that are read and patched in place (the wire reader and
// writer work on streams; a batch header is random access).

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "protocol/wire/endian.h"

namespace hw::protocol {

template <typename T>
inline T load_big_endian(const uint8_t* p) {
  using U = std::make_unsigned_t<T>;
  U v;
  std::memcpy(&v, p, sizeof(U));
  if constexpr (std::endian::native == std::endian::little) v = byteswap(v);
  return static_cast<T>(v);
}

template <typename T>
inline void store_big_endian(uint8_t* p, T value) {
  using U = std::make_unsigned_t<T>;
  auto v = static_cast<U>(value);
  if constexpr (std::endian::native == std::endian::little) v = byteswap(v);
  std::memcpy(p, &v, sizeof(U));
}

}  // namespace hw::protocol
