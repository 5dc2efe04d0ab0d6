#include "broker/handlers/group_request_support.h"

#include <algorithm>

#include "broker/metadata/metadata_publisher.h"
#include "config/broker_config.h"

namespace hw::broker::group {

std::string client_host_of(std::string_view connection_name) {
  const size_t first = connection_name.find('-');
  if (first == std::string_view::npos) return "";
  std::string_view rest = connection_name.substr(first + 1);
  const size_t second = rest.find('-');
  std::string_view remote = second == std::string_view::npos ? rest : rest.substr(0, second);
  const size_t colon = remote.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return "";
  return "/" + std::string(remote.substr(0, colon));
}

client_info client_of(const request_context& ctx) {
  client_info out;
  if (ctx.client_id) out.client_id = std::string(*ctx.client_id);
  out.client_host = client_host_of(ctx.connection_name);
  return out;
}

namespace {

bool protocol_enabled(const request_context& ctx, std::string_view protocol, std::string_view feature) {
  const auto* services = ctx.services;
  if (!services || !services->groups) return false;
  if (services->config) {
    const auto& protocols = services->config->get_list("group.coordinator.rebalance.protocols");
    if (std::find(protocols.begin(), protocols.end(), protocol) == protocols.end()) return false;
  }
  if (!services->metadata) return true;
  return services->metadata->image()->feature_level(std::string(feature)).value_or(0) >= 1;
}

}  // namespace

bool consumer_protocol_enabled(const request_context& ctx) {
  return protocol_enabled(ctx, "consumer", "group.version");
}

bool streams_protocol_enabled(const request_context& ctx) {
  return protocol_enabled(ctx, "streams", "streams.version");
}

}  // namespace hw::broker::group
