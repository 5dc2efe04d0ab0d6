// The Java behaviours kafka-topics.sh's output depends on beyond java.h:
// how TopicCommand splits and parses its arguments and the messages of
// Uuid.fromString.

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {
namespace {

// java.util.Base64.getUrlDecoder() on the ISO-8859-1 bytes of a string:
// the decoded bytes, or the decoder's IllegalArgumentException message.
int base64_url_value(int b) {
  if (b >= 'A' && b <= 'Z') return b - 'A';
  if (b >= 'a' && b <= 'z') return b - 'a' + 26;
  if (b >= '0' && b <= '9') return b - '0' + 52;
  if (b == '-') return 62;
  if (b == '_') return 63;
  return b == '=' ? -2 : -1;
}

bool base64_url_decode(const std::vector<int8_t>& src, std::vector<uint8_t>* out, std::string* error) {
  const size_t sl = src.size();
  if (sl == 1) {
    *error = "Input byte[] should at least have 2 bytes for base64 bytes";
    return false;
  }
  size_t sp = 0;
  uint32_t bits = 0;
  int shift_to = 18;
  while (sp < sl) {
    const int raw = src[sp++];
    const int b = base64_url_value(raw & 0xff);
    if (b == -2) {
      // '=' is only legal as the end of a "xx==" or "xxx=" unit.
      if ((shift_to == 6 && (sp == sl || src[sp++] != '=')) || shift_to == 18) {
        *error = "Input byte array has wrong 4-byte ending unit";
        return false;
      }
      break;
    }
    if (b < 0) {
      // Integer.toString(byte, 16): bytes above 0x7f print negative.
      const int v = raw;
      char buf[8];
      snprintf(buf, sizeof buf, "%s%x", v < 0 ? "-" : "", v < 0 ? -v : v);
      *error = std::string("Illegal base64 character ") + buf;
      return false;
    }
    bits |= static_cast<uint32_t>(b) << shift_to;
    shift_to -= 6;
    if (shift_to < 0) {
      out->push_back(static_cast<uint8_t>(bits >> 16));
      out->push_back(static_cast<uint8_t>(bits >> 8));
      out->push_back(static_cast<uint8_t>(bits));
      shift_to = 18;
      bits = 0;
    }
  }
  if (shift_to == 6) {
    out->push_back(static_cast<uint8_t>(bits >> 16));
  } else if (shift_to == 0) {
    out->push_back(static_cast<uint8_t>(bits >> 16));
    out->push_back(static_cast<uint8_t>(bits >> 8));
  } else if (shift_to == 12) {
    *error = "Last unit does not have enough valid bits";
    return false;
  }
  if (sp < sl) {
    *error = "Input byte array has incorrect ending byte at " + std::to_string(sp);
    return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> java_split(std::string_view s, char separator) {
  std::vector<std::string> parts;
  size_t off = 0;
  for (size_t next; (next = s.find(separator, off)) != std::string_view::npos; off = next + 1)
    parts.emplace_back(s.substr(off, next - off));
  if (off == 0) return {std::string(s)};
  parts.emplace_back(s.substr(off));
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

std::string java_trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
  return std::string(s.substr(b, e - b));
}

std::optional<int32_t> java_parse_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    if (s.size() == 1) return std::nullopt;
    i = 1;
  }
  int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    value = value * 10 + (s[i] - '0');
    if (value > static_cast<int64_t>(INT32_MAX) + 1) return std::nullopt;
  }
  if (negative) value = -value;
  if (value > INT32_MAX || value < INT32_MIN) return std::nullopt;
  return static_cast<int32_t>(value);
}

std::string number_format_message(std::string_view s) { return "For input string: \"" + std::string(s) + "\""; }

bool java_uuid_from_string(std::string_view s, protocol::uuid* out, std::string* error) {
  const std::u16string units = java::utf16(s);
  if (units.size() > 24) {
    *error = "Input string with prefix `" + java::utf8(units.substr(0, 24)) + "` is too long to be decoded as a base64 UUID";
    return false;
  }
  // String.getBytes(ISO_8859_1): what does not fit becomes '?'.
  std::vector<int8_t> bytes;
  for (char16_t c : units) bytes.push_back(static_cast<int8_t>(c > 0xff ? '?' : c));
  std::vector<uint8_t> decoded;
  if (!base64_url_decode(bytes, &decoded, error)) return false;
  if (decoded.size() != 16) {
    *error = "Input string `" + std::string(s) + "` decoded as " + std::to_string(decoded.size()) +
             " bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID";
    return false;
  }
  std::copy(decoded.begin(), decoded.end(), out->bytes.begin());
  return true;
}

}  // namespace hw::tools::topics
