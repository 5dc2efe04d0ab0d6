#include "protocol/json/json_out.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace hw::protocol::json {

void json_out::separator() {
  if (first_.empty()) return;
  if (!first_.back()) text_ += ',';
  first_.back() = false;
}

void json_out::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  separator();
}

void json_out::begin_object() {
  before_value();
  text_ += '{';
  first_.push_back(true);
}

void json_out::end_object() {
  text_ += '}';
  first_.pop_back();
}

void json_out::begin_array() {
  before_value();
  text_ += '[';
  first_.push_back(true);
}

void json_out::end_array() {
  text_ += ']';
  first_.pop_back();
}

void json_out::key(std::string_view name) {
  separator();
  text_ += quoted(name);
  text_ += ':';
  after_key_ = true;
}

void json_out::null() {
  before_value();
  text_ += "null";
}

void json_out::boolean(bool v) {
  before_value();
  text_ += v ? "true" : "false";
}

void json_out::integer(int64_t v) {
  before_value();
  text_ += std::to_string(v);
}

void json_out::float64(double v) {
  before_value();
  // Jackson quotes the values JSON has no number for.
  if (std::isnan(v) || std::isinf(v)) {
    text_ += '"' + java_double(v) + '"';
  } else {
    text_ += java_double(v);
  }
}

void json_out::string(std::string_view utf8) {
  before_value();
  text_ += quoted(java_utf8(utf8));
}

void json_out::uuid(const ::hw::protocol::uuid& v) {
  before_value();
  text_ += '"' + v.to_string() + '"';
}

void json_out::bytes(std::string_view field, const std::vector<uint8_t>& v) {
  if (bytes_hook) {
    // The hook writes a whole value: let it see a clean position.
    const bool pending_key = after_key_;
    const size_t mark = text_.size();
    if (bytes_hook(field, v, *this)) return;
    text_.resize(mark);
    after_key_ = pending_key;
  }
  before_value();
  text_ += '"' + base64(v.data(), v.size()) + '"';
}

void json_out::raw(std::string_view json) {
  before_value();
  text_ += json;
}

namespace {

// Length of the well-formed UTF-8 sequence at s[i], or 0 with *bad the
// length of its maximal ill-formed subpart (Unicode 3.9, Table 3-7).
size_t utf8_sequence(std::string_view s, size_t i, size_t* bad) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  *bad = 1;
  if (c < 0x80) return 1;
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) return 0;
    const unsigned char d = b(i + k);
    const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (d < l || d > h) return 0;
    *bad = k + 1;
  }
  return need + 1;
}

}  // namespace

std::string java_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    size_t bad = 1;
    const size_t n = utf8_sequence(bytes, i, &bad);
    if (n) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      i += bad;
    }
  }
  return out;
}

std::string quoted(std::string_view utf8) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char ch : utf8) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

std::string java_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The shortest digits that read back as v, and the decimal exponent.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t e = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (sci[i] != '.') digits += sci[i];
  if (exponent >= -3 && exponent < 7) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
      const size_t point = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= point) {
        out = digits + std::string(point - digits.size(), '0') + ".0";
      } else {
        out = digits.substr(0, point) + "." + digits.substr(point);
      }
    }
    return sign + out;
  }
  std::string mantissa = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  return sign + mantissa + "E" + std::to_string(exponent);
}

std::string base64(const uint8_t* data, size_t size) {
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t n = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8) | data[i + 2];
    out += table[n >> 18];
    out += table[(n >> 12) & 63];
    out += table[(n >> 6) & 63];
    out += table[n & 63];
  }
  if (size - i == 1) {
    const uint32_t n = uint32_t{data[i]} << 16;
    out += table[n >> 18];
    out += table[(n >> 12) & 63];
    out += "==";
  } else if (size - i == 2) {
    const uint32_t n = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8);
    out += table[n >> 18];
    out += table[(n >> 12) & 63];
    out += table[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace hw::protocol::json
