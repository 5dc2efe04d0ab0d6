#pragma once
// Byte order helpers (std::byteswap is C++23; gcc 12 builds C++20).

#include <cstdint>
#include <type_traits>

namespace hw::protocol {

template <typename T>
constexpr T byteswap(T v) {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (sizeof(T) == 1) return v;
  else if constexpr (sizeof(T) == 2) return __builtin_bswap16(v);
  else if constexpr (sizeof(T) == 4) return __builtin_bswap32(v);
  else return __builtin_bswap64(v);
}

}  // namespace hw::protocol
