#include "protocol/records/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#include "protocol/wire/endian.h"

#if defined(HW_X86_64)
#include <nmmintrin.h>
#endif

namespace hw::protocol {
namespace {
namespace crc32c_tables {

// Castagnoli polynomial, bit-reflected (CRC-32C processes bits LSB first).
constexpr uint32_t kPolynomial = 0x82F63B78;

using table = std::array<uint32_t, 256>;

// Slicing-by-8: slice[0] is the classic byte table; slice[k][b] is the CRC of
// byte b followed by k zero bytes, so eight bytes fold in with eight lookups.
constexpr std::array<table, 8> make_slicing_tables() {
  std::array<table, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][b] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (size_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
  return t;
}
constexpr std::array<table, 8> kSlicing = make_slicing_tables();

// a(x) * b(x) mod P(x), both reflected (x^0 is the top bit).
constexpr uint32_t multiply_mod_p(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1) ? (b >> 1) ^ kPolynomial : b >> 1;
  }
  return product;
}

// x^(8 * n_bytes) mod P: appending n zero bytes to a raw CRC register
// multiplies it by this.
constexpr uint32_t x_pow_8n_mod_p(size_t n_bytes) {
  uint32_t result = 1u << 31;  // x^0
  uint32_t square = 1u << 23;  // x^8
  for (size_t n = n_bytes; n != 0; n >>= 1) {
    if (n & 1) result = multiply_mod_p(square, result);
    square = multiply_mod_p(square, square);
  }
  return result;
}

// Shifting a register past n zero bytes is linear in the register, so it
// splits into four byte-indexed tables: the combination step of the
// interleaved hardware loop costs four lookups instead of n zero bytes.
using shift_table = std::array<table, 4>;
constexpr shift_table make_shift_table(size_t n_bytes) {
  shift_table t{};
  uint32_t factor = x_pow_8n_mod_p(n_bytes);
  for (size_t k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = multiply_mod_p(factor, b << (8 * k));
  }
  return t;
}

// Stream lengths for the three-way loop: long streams for bulk data, short
// ones so that buffers of a few hundred bytes still overlap three streams.
constexpr size_t kLongBlock = 8192;
constexpr size_t kShortBlock = 256;
constexpr shift_table kShiftLong = make_shift_table(kLongBlock);
constexpr shift_table kShiftShort = make_shift_table(kShortBlock);

inline uint32_t shift(const shift_table& t, uint32_t crc) {
  return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

inline uint32_t load_le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = byteswap(v);
  return v;
}

inline uint64_t load_native64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

#if defined(HW_X86_64)
// Runs three independent CRC32 chains over three adjacent blocks (the
// instruction has a latency of three cycles but a throughput of one), then
// folds them: crc(A B C) = shift(shift(crc A) ^ crc B) ^ crc C on raw registers.
template <size_t kBlock>
__attribute__((target("sse4.2"))) inline uint64_t three_way(uint64_t crc, const uint8_t* p,
                                                            const shift_table& t) {
  uint64_t c0 = crc, c1 = 0, c2 = 0;
  for (size_t i = 0; i < kBlock; i += 8) {
    c0 = _mm_crc32_u64(c0, load_native64(p + i));
    c1 = _mm_crc32_u64(c1, load_native64(p + kBlock + i));
    c2 = _mm_crc32_u64(c2, load_native64(p + 2 * kBlock + i));
  }
  uint32_t folded = shift(t, static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1);
  return shift(t, folded) ^ static_cast<uint32_t>(c2);
}
#endif

}  // namespace crc32c_tables
}  // namespace

namespace crc32c_impl {

uint32_t extend_portable(uint32_t crc, std::span<const uint8_t> data) {
  using namespace crc32c_tables;
  const uint8_t* p = data.data();
  size_t n = data.size();
  uint32_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t lo = c ^ load_le32(p);
    uint32_t hi = load_le32(p + 4);
    c = kSlicing[7][lo & 0xff] ^ kSlicing[6][(lo >> 8) & 0xff] ^ kSlicing[5][(lo >> 16) & 0xff] ^
        kSlicing[4][lo >> 24] ^ kSlicing[3][hi & 0xff] ^ kSlicing[2][(hi >> 8) & 0xff] ^
        kSlicing[1][(hi >> 16) & 0xff] ^ kSlicing[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) c = (c >> 8) ^ kSlicing[0][(c ^ *p) & 0xff];
  return ~c;
}

#if defined(HW_X86_64)

bool hardware_available() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2"))) static uint32_t extend_sse42(uint32_t crc, const uint8_t* p,
                                                                size_t n) {
  using namespace crc32c_tables;
  uint64_t c = static_cast<uint32_t>(~crc);
  for (; n >= 3 * kLongBlock; n -= 3 * kLongBlock, p += 3 * kLongBlock) {
    c = three_way<kLongBlock>(c, p, kShiftLong);
  }
  for (; n >= 3 * kShortBlock; n -= 3 * kShortBlock, p += 3 * kShortBlock) {
    c = three_way<kShortBlock>(c, p, kShiftShort);
  }
  for (; n >= 8; n -= 8, p += 8) c = _mm_crc32_u64(c, load_native64(p));
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}

uint32_t extend_hardware(uint32_t crc, std::span<const uint8_t> data) {
  static const bool available = hardware_available();
  if (!available) return extend_portable(crc, data);
  return extend_sse42(crc, data.data(), data.size());
}

#else

bool hardware_available() { return false; }

uint32_t extend_hardware(uint32_t crc, std::span<const uint8_t> data) {
  return extend_portable(crc, data);
}

#endif

}  // namespace crc32c_impl

uint32_t crc32c_extend(uint32_t crc, std::span<const uint8_t> data) {
  return crc32c_impl::extend_hardware(crc, data);
}

uint32_t crc32c(std::span<const uint8_t> data) { return crc32c_extend(0, data); }

}  // namespace hw::protocol
