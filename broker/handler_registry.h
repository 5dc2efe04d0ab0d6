#pragma once
// Lookup of the handler for an API key, and the advertised version list
// derived from the handlers. Immutable after construction; shared by every
// connection without locking.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "broker/handler.h"

namespace hw::broker {

struct advertised_api {
  int16_t api_key;
  int16_t min_version;
  int16_t max_version;
};

class handler_registry {
 public:
  explicit handler_registry(std::span<const api_handler> handlers);
  // by_key_ points into handlers_: not copyable or movable.
  handler_registry(const handler_registry&) = delete;
  handler_registry& operator=(const handler_registry&) = delete;

  // The handler for key, or nullptr if the broker does not serve it.
  const api_handler* find(int16_t api_key) const;
  // Every served API with its range, sorted by key (ApiVersions' api_keys).
  std::span<const advertised_api> advertised() const { return advertised_; }

 private:
  static constexpr size_t kMaxKey = 256;
  std::array<const api_handler*, kMaxKey> by_key_{};
  std::vector<api_handler> handlers_;
  std::vector<advertised_api> advertised_;
};

}  // namespace hw::broker
