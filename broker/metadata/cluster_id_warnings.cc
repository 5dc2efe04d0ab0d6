#include "broker/metadata/cluster_id_warnings.h"

#include <spdlog/spdlog.h>

namespace hw::broker {

cluster_id_warnings::cluster_id_warnings(std::string own_cluster_id, int64_t interval_ms)
    : own_(std::move(own_cluster_id)), interval_ms_(interval_ms) {}

bool cluster_id_warnings::refused(std::string_view api, int32_t peer, std::string_view their_cluster_id,
                                  int64_t now_ms) {
  {
    std::lock_guard lock(mutex_);
    if (last_logged_ms_.size() >= max_remembered) last_logged_ms_.clear();
    auto [it, fresh] = last_logged_ms_.try_emplace({peer, std::string(their_cluster_id)}, now_ms);
    if (!fresh) {
      if (now_ms - it->second < interval_ms_) return false;
      it->second = now_ms;
    }
  }
  spdlog::warn(
      "Refusing {} from node {}: it belongs to cluster {} but this node to cluster {} (INCONSISTENT_CLUSTER_ID). "
      "Every node of a cluster needs the same cluster id: set CLUSTER_ID before the first start, or run "
      "highwater format --cluster-id on each node",
      api, peer, their_cluster_id, own_);
  return true;
}

}  // namespace hw::broker
