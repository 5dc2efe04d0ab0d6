// Kafka's LineMessageReader (org.apache.kafka.tools.LineMessageReader) and
// the way Java reads stdin: lines, UTF-8, and the record size Kafka's
// producer estimates before it sends.

#include <regex>

#include "tools/commands/console.h"

namespace hw::tools::console {
namespace {

// Java's String.trim(): every char up to ' ' goes at both ends.
std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

bool java_true(std::string_view s) {
  s = java_trim(s);
  if (s.size() != 4) return false;
  const char* t = "true";
  for (size_t i = 0; i < 4; ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != t[i]) return false;
  return true;
}

const std::string* find(const properties& props, const char* key) {
  auto it = props.find(key);
  return it == props.end() ? nullptr : &it->second;
}

// LineMessageReader's parse(): the text from `start` up to the separator,
// nullopt when parsing is off or (with ignore.error) the separator is missing.
bool parse_part(const reader_settings& s, bool enabled, const std::string& line, size_t start,
                const std::string& separator, const char* name, int line_number, std::optional<std::string>* out,
                std::string* error) {
  out->reset();
  if (!enabled) return true;
  const size_t at = line.find(separator, start);
  if (at == std::string::npos) {
    if (s.ignore_error) return true;
    *error = std::string("No ") + name + " found on line number " + std::to_string(line_number) + ": '" + line + "'";
    return false;
  }
  *out = line.substr(start, at - start);
  return true;
}

bool split_headers(const reader_settings& s, const std::string& text, int line_number, std::vector<header>* out,
                   std::string* error) {
  std::vector<std::string> pairs;
  if (!java_split(s.headers_separator, text, &pairs, error)) return false;
  for (const auto& pair : pairs) {
    const size_t at = pair.find(s.headers_key_separator);
    if (at == std::string::npos) {
      if (!s.ignore_error) {
        *error = "No header key separator found in pair '" + pair + "' on line number " + std::to_string(line_number);
        return false;
      }
      out->push_back({pair, std::nullopt});
      continue;
    }
    std::string key = pair.substr(0, at);
    if (s.null_marker && key == *s.null_marker) {
      *error = "Header keys should not be equal to the null marker '" + *s.null_marker + "' as they can't be null";
      return false;
    }
    std::string value = pair.substr(at + s.headers_key_separator.size());
    if (s.null_marker && value == *s.null_marker)
      out->push_back({std::move(key), std::nullopt});
    else
      out->push_back({std::move(key), std::move(value)});
  }
  return true;
}

// The length of a zig-zag varint holding n (Kafka's ByteUtils.sizeOfVarint).
int64_t varint_size(int64_t n) {
  uint64_t v = (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63);
  int64_t bytes = 1;
  while ((v >>= 7) != 0) ++bytes;
  return bytes;
}

int64_t field_size(const std::optional<std::string>& field) {
  if (!field) return 1;  // a null is the one-byte varint -1
  const auto n = static_cast<int64_t>(field->size());
  return varint_size(n) + n;
}

// How many bytes of a well-formed UTF-8 sequence start at s[i] (0: the
// lead byte is not valid), and the range its second byte must be in.
int utf8_length(unsigned char lead, unsigned char* lo, unsigned char* hi) {
  *lo = 0x80;
  *hi = 0xBF;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead == 0xE0) *lo = 0xA0;
  if (lead == 0xED) *hi = 0x9F;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead == 0xF0) *lo = 0x90;
  if (lead == 0xF4) *hi = 0x8F;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

}  // namespace

bool configure_reader(const properties& props, reader_settings* out, std::string* error) {
  reader_settings s;
  if (auto v = find(props, "topic")) s.topic = *v;
  if (auto v = find(props, "parse.key")) s.parse_key = java_true(*v);
  if (auto v = find(props, "key.separator")) s.key_separator = *v;
  if (auto v = find(props, "parse.headers")) s.parse_headers = java_true(*v);
  if (auto v = find(props, "headers.delimiter")) s.headers_delimiter = *v;
  if (auto v = find(props, "headers.separator")) s.headers_separator = *v;
  std::vector<std::string> unused;
  if (!java_split(s.headers_separator, "", &unused, error)) return false;  // Kafka compiles it here
  if (auto v = find(props, "headers.key.separator")) s.headers_key_separator = *v;
  if (auto v = find(props, "ignore.error")) s.ignore_error = java_true(*v);
  auto refuse = [&](const char* message) {
    *error = message;
    return false;
  };
  if (s.headers_delimiter == s.headers_separator)
    return refuse("headers.delimiter and headers.separator may not be equal");
  if (s.headers_delimiter == s.headers_key_separator)
    return refuse("headers.delimiter and headers.key.separator may not be equal");
  if (s.headers_separator == s.headers_key_separator)
    return refuse("headers.separator and headers.key.separator may not be equal");
  if (auto v = find(props, "null.marker")) s.null_marker = *v;
  if (s.null_marker) {
    if (s.key_separator == *s.null_marker) return refuse("null.marker and key.separator may not be equal");
    if (s.headers_separator == *s.null_marker) return refuse("null.marker and headers.separator may not be equal");
    if (s.headers_delimiter == *s.null_marker) return refuse("null.marker and headers.delimiter may not be equal");
    if (s.headers_key_separator == *s.null_marker)
      return refuse("null.marker and headers.key.separator may not be equal");
  }
  *out = std::move(s);
  return true;
}

bool parse_line(const reader_settings& s, const std::string& line, int line_number, produced_record* out,
                std::string* error) {
  std::optional<std::string> headers, key;
  if (!parse_part(s, s.parse_headers, line, 0, s.headers_delimiter, "headers delimiter", line_number, &headers, error))
    return false;
  const size_t header_offset = headers ? headers->size() + s.headers_delimiter.size() : 0;
  if (!parse_part(s, s.parse_key, line, header_offset, s.key_separator, "key separator", line_number, &key, error))
    return false;
  const size_t key_offset = key ? key->size() + s.key_separator.size() : 0;
  std::string value = line.substr(header_offset + key_offset);

  produced_record r;
  r.topic = s.topic;
  const bool null_key = !key || (s.null_marker && *key == *s.null_marker);
  if (!null_key) r.key = std::move(*key);
  if (!(s.null_marker && value == *s.null_marker)) r.value = std::move(value);
  if (headers && !(s.null_marker && *headers == *s.null_marker) &&
      !split_headers(s, *headers, line_number, &r.headers, error))
    return false;
  *out = std::move(r);
  return true;
}

bool java_split(const std::string& pattern, const std::string& input, std::vector<std::string>* out,
                std::string* error) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    *error = "java.util.regex.PatternSyntaxException: " + std::string(e.what()) + " near index 0\n" + pattern;
    return false;
  }
  std::vector<std::string> pieces;
  size_t index = 0;
  bool matched = false;
  for (auto it = std::sregex_iterator(input.begin(), input.end(), re); it != std::sregex_iterator(); ++it) {
    const auto start = static_cast<size_t>(it->position(0));
    const auto length = static_cast<size_t>(it->length(0));
    if (index == 0 && start == 0 && length == 0) continue;  // Java never yields an empty first piece here
    pieces.push_back(input.substr(index, start - index));
    index = start + length;
    matched = true;
  }
  if (!matched) {
    *out = {input};
    return true;
  }
  pieces.push_back(input.substr(index));
  while (!pieces.empty() && pieces.back().empty()) pieces.pop_back();
  *out = std::move(pieces);
  return true;
}

std::string java_utf8(std::string_view bytes) {
  static const char replacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    unsigned char lo, hi;
    const int n = utf8_length(static_cast<unsigned char>(bytes[i]), &lo, &hi);
    if (n == 1) {
      out += bytes[i++];
      continue;
    }
    // The longest valid start of a sequence is replaced by one U+FFFD.
    size_t good = n == 0 ? 0 : 1;
    while (n > 0 && good < static_cast<size_t>(n) && i + good < bytes.size()) {
      const auto c = static_cast<unsigned char>(bytes[i + good]);
      const unsigned char min = good == 1 ? lo : 0x80, max = good == 1 ? hi : 0xBF;
      if (c < min || c > max) break;
      ++good;
    }
    if (n > 0 && good == static_cast<size_t>(n)) {
      out.append(bytes.substr(i, good));
      i += good;
    } else {
      out += replacement;
      i += good == 0 ? 1 : good;
    }
  }
  return out;
}

void line_splitter::feed(std::string_view bytes, std::vector<std::string>* lines) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;  // the "\n" of a "\r\n"
    }
    if (c == '\n' || c == '\r') {
      lines->push_back(std::move(pending_));
      pending_.clear();
      after_cr_ = c == '\r';
      continue;
    }
    pending_ += c;
  }
}

std::optional<std::string> line_splitter::finish() {
  if (pending_.empty()) return std::nullopt;
  std::string last = std::move(pending_);
  pending_.clear();
  return last;
}

int64_t estimated_record_size(const produced_record& r) {
  constexpr int64_t batch_overhead = 61;   // a v2 record batch's header
  constexpr int64_t record_overhead = 21;  // attributes, timestamp, offset and size varints at their longest
  int64_t size = batch_overhead + record_overhead + field_size(r.key) + field_size(r.value);
  size += varint_size(static_cast<int64_t>(r.headers.size()));
  for (const auto& h : r.headers) {
    const auto k = static_cast<int64_t>(h.key.size());
    size += varint_size(k) + k + field_size(h.value);
  }
  return size;
}

}  // namespace hw::tools::console
