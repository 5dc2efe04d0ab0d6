#include "broker/admin/client_quotas.h"

#include <string>

namespace hw::broker {

namespace {

// Kafka's Errors messages of the codes a whole request is refused with.
std::optional<std::string> default_message(protocol::error_code code) {
  switch (code) {
    case protocol::error_code::none: return std::nullopt;
    case protocol::error_code::cluster_authorization_failed: return "Cluster authorization failed.";
    case protocol::error_code::request_timed_out: return "The request timed out.";
    case protocol::error_code::not_controller: return "This is not the correct controller for this cluster.";
    case protocol::error_code::unknown_server_error:
      return "The server experienced an unexpected error when processing the request.";
    default: return std::string(protocol::error_name(code));
  }
}

}  // namespace

protocol::msg::alter_client_quotas_response alter_client_quotas_refused(
    const protocol::msg::alter_client_quotas_request& request, protocol::error_code code) {
  protocol::msg::alter_client_quotas_response out;
  for (const auto& e : request.entries) {
    auto& r = out.entries.emplace_back();
    r.error_code = static_cast<int16_t>(code);
    r.error_message = default_message(code);
    for (const auto& d : e.entity) {
      auto& entity = r.entity.emplace_back();
      entity.entity_type = d.entity_type;
      entity.entity_name = d.entity_name;
    }
  }
  return out;
}

}  // namespace hw::broker
