#pragma once
// java.lang.String's methods that Kafka's parsing leans on, where the
// result must match Java's byte for byte (JAAS options, principal rules,
// super.users, OAUTHBEARER allow-lists and claims). Pure.

#include <string>
#include <string_view>

namespace hw::protocol {

// String.trim: strips every character up to and including the space
// (control characters too), unlike config::trim's ASCII white space.
inline std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// The UTF-16 code units of a java.lang.String made from these UTF-8 bytes.
// A malformed sequence (a bad lead or continuation byte, one cut short, an
// overlong form, a surrogate, past U+10FFFF) becomes U+FFFD for its first
// byte, and decoding goes on at the next byte.
inline std::u16string java_utf16(std::string_view utf8) {
  std::u16string out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size();) {
    const auto b0 = static_cast<unsigned char>(utf8[i]);
    if (b0 < 0x80) {
      out.push_back(b0);
      ++i;
      continue;
    }
    int extra = 0;
    char32_t cp = 0, min = 0;
    if ((b0 & 0xe0) == 0xc0) extra = 1, cp = b0 & 0x1f, min = 0x80;
    else if ((b0 & 0xf0) == 0xe0) extra = 2, cp = b0 & 0x0f, min = 0x800;
    else if ((b0 & 0xf8) == 0xf0) extra = 3, cp = b0 & 0x07, min = 0x10000;
    bool ok = extra > 0 && i + extra < utf8.size();
    for (int k = 1; ok && k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(utf8[i + k]);
      ok = (b & 0xc0) == 0x80;
      cp = (cp << 6) | (b & 0x3f);
    }
    ok = ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (!ok) {
      out.push_back(u'\ufffd');
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      out.push_back(static_cast<char16_t>(0xd800 + ((cp - 0x10000) >> 10)));
      out.push_back(static_cast<char16_t>(0xdc00 + ((cp - 0x10000) & 0x3ff)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += extra + 1;
  }
  return out;
}

}  // namespace hw::protocol
