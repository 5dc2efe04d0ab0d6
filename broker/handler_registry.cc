#include "broker/handler_registry.h"

#include <cassert>

namespace hw::broker {

handler_registry::handler_registry(std::span<const api_handler> handlers)
    : handlers_(handlers.begin(), handlers.end()) {
  for (const api_handler& h : handlers_) {
    assert(h.api_key >= 0 && static_cast<size_t>(h.api_key) < kMaxKey);
    assert(h.min_version <= h.max_version);
    assert(by_key_[h.api_key] == nullptr && "two handlers for one API");
    by_key_[h.api_key] = &h;
  }
  for (const api_handler* h : by_key_)
    if (h)
      advertised_.push_back({h->api_key, h->advertised_min_version >= 0 ? h->advertised_min_version : h->min_version,
                             h->max_version});
}

const api_handler* handler_registry::find(int16_t api_key) const {
  if (api_key < 0 || static_cast<size_t>(api_key) >= kMaxKey) return nullptr;
  return by_key_[api_key];
}

}  // namespace hw::broker
