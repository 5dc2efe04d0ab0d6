#include "broker/group/group_partition.h"

#include <cassert>

namespace hw::broker::group {

namespace {

constexpr uint32_t replacement_char = 0xfffd;

// Decodes one code point starting at s[i]; advances i. Malformed input
// yields U+FFFD for the first byte only, like Java's default decoder.
uint32_t next_code_point(std::string_view s, size_t& i) {
  auto b0 = static_cast<uint8_t>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int extra = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if ((b0 & 0xe0) == 0xc0) {
    extra = 1, cp = b0 & 0x1f, min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    extra = 2, cp = b0 & 0x0f, min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    extra = 3, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++i;
    return replacement_char;
  }
  if (i + extra >= s.size()) {
    ++i;
    return replacement_char;
  }
  for (int k = 1; k <= extra; ++k) {
    auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xc0) != 0x80) {
      ++i;
      return replacement_char;
    }
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    ++i;
    return replacement_char;
  }
  i += extra + 1;
  return cp;
}

}  // namespace

int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  size_t i = 0;
  while (i < utf8.size()) {
    uint32_t cp = next_code_point(utf8, i);
    if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      h = 31 * h + (0xd800 + (v >> 10));
      h = 31 * h + (0xdc00 + (v & 0x3ff));
    } else {
      h = 31 * h + cp;
    }
  }
  return static_cast<int32_t>(h);
}

int32_t kafka_abs(int32_t n) { return n == INT32_MIN ? 0 : (n < 0 ? -n : n); }

int32_t group_partition(std::string_view group_id, int32_t num_partitions) {
  assert(num_partitions > 0);
  return kafka_abs(java_string_hash(group_id)) % num_partitions;
}

}  // namespace hw::broker::group
