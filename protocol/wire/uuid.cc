#include "protocol/wire/uuid.h"

namespace hw::protocol {
namespace {
constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}
}  // namespace

bool uuid::is_zero() const {
  for (uint8_t b : bytes)
    if (b) return false;
  return true;
}

bool uuid::is_reserved() const {
  for (size_t i = 0; i < 15; ++i)
    if (bytes[i]) return false;
  return bytes[15] <= 1;
}

std::string uuid::to_string() const {
  std::string out;
  out.reserve(22);
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3f]);
  return out;
}

std::optional<uuid> uuid::parse(std::string_view s) {
  if (s.size() != 22) return std::nullopt;
  uuid u;
  uint32_t acc = 0;
  int bits = 0;
  size_t out = 0;
  for (char c : s) {
    int v = decode_char(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (out < 16) u.bytes[out++] = static_cast<uint8_t>(acc >> bits);
    }
  }
  if ((acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // non-canonical tail
  return u;
}

}  // namespace hw::protocol
