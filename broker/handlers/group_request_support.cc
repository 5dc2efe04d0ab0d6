#include "broker/handlers/group_request_support.h"

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

}  // namespace hw::broker::group
