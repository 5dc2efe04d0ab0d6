#pragma once
// Kafka's UUID: 16 raw bytes, shown as URL-safe base64 without padding
// (the form kafka-topics.sh prints and accepts).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hw::protocol {

struct uuid {
  std::array<uint8_t, 16> bytes{};

  bool is_zero() const;
  std::string to_string() const;
  static std::optional<uuid> parse(std::string_view base64);
  // A random version-4 UUID that is neither zero nor Kafka's reserved
  // metadata topic id (1), and whose string form does not start with '-'.
  template <typename Rng>
  static uuid random(Rng& rng) {
    for (;;) {
      uuid u;
      for (auto& b : u.bytes) b = static_cast<uint8_t>(rng());
      u.bytes[6] = (u.bytes[6] & 0x0f) | 0x40;
      u.bytes[8] = (u.bytes[8] & 0x3f) | 0x80;
      if (!u.is_reserved() && u.to_string()[0] != '-') return u;
    }
  }
  bool is_reserved() const;

  auto operator<=>(const uuid&) const = default;
  bool operator==(const uuid&) const = default;
};

}  // namespace hw::protocol
