#include "broker/group/consumer/java_strings.h"

#include <algorithm>

#include "protocol/java_string.h"

namespace hw::broker::group::consumer {

namespace {

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<uint8_t>(c) < 0x80; });
}

}  // namespace

int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  if (is_ascii(utf8)) {
    for (char c : utf8) h = 31 * h + static_cast<uint8_t>(c);
  } else {
    for (char16_t unit : protocol::java_utf16(utf8)) h = 31 * h + unit;
  }
  return static_cast<int32_t>(h);
}

int java_string_compare(std::string_view a, std::string_view b) {
  // For ASCII, bytes are code units.
  if (is_ascii(a) && is_ascii(b)) {
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  const std::u16string ua = protocol::java_utf16(a), ub = protocol::java_utf16(b);
  auto [ia, ib] = std::mismatch(ua.begin(), ua.end(), ub.begin(), ub.end());
  if (ia != ua.end() && ib != ub.end()) return *ia < *ib ? -1 : 1;
  if (ua.size() == ub.size()) return 0;
  return ua.size() < ub.size() ? -1 : 1;
}

}  // namespace hw::broker::group::consumer
