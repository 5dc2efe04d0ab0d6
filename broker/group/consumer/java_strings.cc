#include "broker/group/consumer/java_strings.h"

#include <algorithm>

namespace hw::broker::group::consumer {

namespace {

constexpr char32_t replacement_char = 0xfffd;

// Decodes one code point starting at s[i] and advances i past it. Malformed
// input yields U+FFFD for its first byte only.
char32_t next_code_point(std::string_view s, size_t& i) {
  auto b0 = static_cast<uint8_t>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int extra = 0;
  char32_t cp = 0;
  char32_t min = 0;
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

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<uint8_t>(c) < 0x80; });
}

}  // namespace

std::vector<char16_t> java_utf16(std::string_view utf8) {
  std::vector<char16_t> out;
  out.reserve(utf8.size());
  size_t i = 0;
  while (i < utf8.size()) {
    char32_t cp = next_code_point(utf8, i);
    if (cp >= 0x10000) {
      char32_t v = cp - 0x10000;
      out.push_back(static_cast<char16_t>(0xd800 + (v >> 10)));
      out.push_back(static_cast<char16_t>(0xdc00 + (v & 0x3ff)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  if (is_ascii(utf8)) {
    for (char c : utf8) h = 31 * h + static_cast<uint8_t>(c);
  } else {
    for (char16_t unit : java_utf16(utf8)) h = 31 * h + unit;
  }
  return static_cast<int32_t>(h);
}

int java_string_compare(std::string_view a, std::string_view b) {
  // For ASCII, bytes are code units.
  if (is_ascii(a) && is_ascii(b)) {
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  std::vector<char16_t> ua = java_utf16(a), ub = java_utf16(b);
  auto [ia, ib] = std::mismatch(ua.begin(), ua.end(), ub.begin(), ub.end());
  if (ia != ua.end() && ib != ub.end()) return *ia < *ib ? -1 : 1;
  if (ua.size() == ub.size()) return 0;
  return ua.size() < ub.size() ? -1 : 1;
}

}  // namespace hw::broker::group::consumer
