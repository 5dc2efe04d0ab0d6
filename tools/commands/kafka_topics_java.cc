// The Java behaviours kafka-topics.sh's output depends on: how TopicCommand
// splits and parses its arguments, the order a java.util.HashMap hands out
// its keys (Kafka's admin client collects topic descriptions and config
// entries in HashMaps, and TopicCommand prints them in that order), and
// the messages of Uuid.fromString.

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {
namespace {

constexpr int32_t max_capacity = 1 << 30;

// UTF-8 to UTF-16 code units, as the JVM decodes its arguments; a malformed
// byte becomes U+FFFD.
std::u16string to_utf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      out.push_back(0xfffd);
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? c : c & (0xff >> (len + 1));
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = ok && (cc & 0xc0) == 0x80;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (!ok) {
      out.push_back(0xfffd);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xd800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xdc00 + (cp & 0x3ff)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += len;
  }
  return out;
}

std::string to_utf8(std::u16string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    uint32_t cp = s[i];
    if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < s.size() && s[i + 1] >= 0xdc00 && s[i + 1] < 0xe000)
      cp = 0x10000 + ((cp - 0xd800) << 10) + (s[++i] - 0xdc00);
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  return out;
}

// HashMap.tableSizeFor: the power of two at or above capacity.
int32_t table_size_for(int32_t capacity) {
  if (capacity <= 1) return 1;
  const uint32_t n = ~0u >> __builtin_clz(static_cast<uint32_t>(capacity - 1));
  return n >= static_cast<uint32_t>(max_capacity) ? max_capacity : static_cast<int32_t>(n + 1);
}

int32_t spread(int32_t h) {
  const auto u = static_cast<uint32_t>(h);
  return static_cast<int32_t>(u ^ (u >> 16));
}

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

int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  for (char16_t c : to_utf16(utf8)) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

java_hash_order::java_hash_order(std::optional<int32_t> initial_capacity) {
  if (initial_capacity) threshold_ = table_size_for(std::max(*initial_capacity, 0));
}

java_hash_order java_hash_order::copy_of(const java_hash_order& other) {
  java_hash_order copy;
  if (other.size_ > 0) {
    // HashMap.putMapEntries (JDK 17): sized for s / 0.75 + 1.
    const float ft = static_cast<float>(other.size_) / 0.75f + 1.0f;
    const auto t = ft < static_cast<float>(max_capacity) ? static_cast<int32_t>(ft) : max_capacity;
    if (t > copy.threshold_) copy.threshold_ = table_size_for(t);
  }
  for (const auto& bucket : other.table_)
    for (const auto& e : bucket) copy.put(e.key_hash, e.id);
  return copy;
}

void java_hash_order::resize() {
  const auto old_cap = static_cast<int32_t>(table_.size());
  const int32_t old_thr = threshold_;
  int32_t new_cap = 0, new_thr = 0;
  if (old_cap > 0) {
    new_cap = old_cap << 1;
    if (new_cap < max_capacity && old_cap >= 16) new_thr = old_thr << 1;
  } else if (old_thr > 0) {
    new_cap = old_thr;
  } else {
    new_cap = 16;
    new_thr = 12;
  }
  if (new_thr == 0) new_thr = static_cast<int32_t>(static_cast<float>(new_cap) * 0.75f);
  threshold_ = new_thr;
  std::vector<std::vector<entry>> grown(static_cast<size_t>(new_cap));
  // Splitting each bin into its low and high halves keeps the entries' order.
  for (const auto& bucket : table_)
    for (const auto& e : bucket) grown[static_cast<uint32_t>(spread(e.key_hash)) & (new_cap - 1)].push_back(e);
  table_ = std::move(grown);
}

void java_hash_order::put(int32_t key_hash, size_t id) {
  if (table_.empty()) resize();
  auto& bucket = table_[static_cast<uint32_t>(spread(key_hash)) & (table_.size() - 1)];
  bucket.push_back({key_hash, id});
  // A bin reaching 9 entries makes a small table grow instead of treeifying.
  if (bucket.size() >= 9 && table_.size() < 64) resize();
  if (++size_ > static_cast<size_t>(threshold_)) resize();
}

std::vector<size_t> java_hash_order::order() const {
  std::vector<size_t> ids;
  for (const auto& bucket : table_)
    for (const auto& e : bucket) ids.push_back(e.id);
  return ids;
}

std::vector<std::string> java_hash_map_order(const std::vector<std::string>& names,
                                             std::optional<int32_t> initial_capacity) {
  java_hash_order map(initial_capacity);
  for (size_t i = 0; i < names.size(); ++i) map.put(java_string_hash(names[i]), i);
  std::vector<std::string> out;
  for (size_t i : map.order()) out.push_back(names[i]);
  return out;
}

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
  const std::u16string units = to_utf16(s);
  if (units.size() > 24) {
    *error = "Input string with prefix `" + to_utf8(units.substr(0, 24)) + "` is too long to be decoded as a base64 UUID";
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
