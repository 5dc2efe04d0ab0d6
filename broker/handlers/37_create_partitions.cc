// CreatePartitions (key 37), versions 0-3: more partitions for existing
// topics, through the controller (validate_only writes nothing).

#include <iterator>
#include <map>

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/quota/request_quotas.h"
#include "broker/security/authorization.h"
#include "protocol/messages/create_partitions.h"

namespace hw::broker {
namespace {

using protocol::msg::create_partitions_request;
using protocol::msg::create_partitions_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<create_partitions_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // ALTER on each topic (a name given twice is the controller's to refuse):
  // the topics refused are left out and answered first, as Kafka's
  // controller answers them before the rest.
  std::vector<create_partitions_response::create_partitions_topic_result> refused;
  if (authorizer_configured(ctx)) {
    std::map<std::string, int> named;
    for (const auto& t : request->topics) ++named[t.name];
    authorized_names may_alter(ctx, api_acl(37, "topic"));
    std::erase_if(request->topics, [&](const auto& t) {
      if (named[t.name] > 1 || may_alter(t.name)) return false;
      auto& r = refused.emplace_back();
      r.name = t.name;
      r.error_code = static_cast<int16_t>(protocol::error_code::topic_authorization_failed);
      return true;
    });
  }
  // The client's controller mutation quota: strict from v3.
  quota::mutation_quota mutations(&ctx, 3);
  auto response = co_await call_controller<create_partitions_response>(
      ctx, *request,
      [&](controller::quorum_controller& qc, int64_t) { return qc.create_partitions(*request, mutations.applier()); });
  response.throttle_time_ms = std::max(response.throttle_time_ms, mutations.finish());
  response.results.insert(response.results.begin(), std::make_move_iterator(refused.begin()),
                          std::make_move_iterator(refused.end()));
  co_return respond(ctx, response);
}

}  // namespace

api_handler create_partitions_handler() { return {37, 0, 3, &handle}; }

}  // namespace hw::broker
