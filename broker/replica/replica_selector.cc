#include "broker/replica/replica_selector.h"

namespace hw::broker {

int32_t select_rack_aware(std::string_view client_rack, const replica_view& leader,
                          const std::vector<replica_view>& followers) {
  if (client_rack.empty() || leader.rack == client_rack) return leader.id;
  const replica_view* best = nullptr;
  for (const replica_view& f : followers) {
    if (f.rack != client_rack) continue;
    if (!best || f.log_end > best->log_end ||
        (f.log_end == best->log_end && f.since_caught_up_ms < best->since_caught_up_ms))
      best = &f;
  }
  return best ? best->id : leader.id;
}

}  // namespace hw::broker
