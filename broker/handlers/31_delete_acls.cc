// DeleteAcls (key 31), versions 1-3: forwarded to the active controller,
// whose ACL control removes what each filter matches
// (controller/acl_control.h), as Kafka's broker forwards it. Without an
// authorizer every filter gets SECURITY_DISABLED, as Kafka's; a filter with
// an UNKNOWN field closes the connection, as Kafka's parser does.

#include "broker/admin/acl_requests.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"

namespace hw::broker {
namespace {

using protocol::msg::delete_acls_request;
using protocol::msg::delete_acls_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<delete_acls_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (auto why = unreadable(*request)) co_return handler_result::close(*why);
  if (!authorize(ctx, api_acl(31, "cluster")))
    co_return respond(ctx, delete_acls_refused(*request, api_acl(31, "cluster").refusal,
                                               cluster_refusal_message(ctx, api_acl(31, "cluster").operation)));
  if (!authorizer_configured(ctx))
    co_return respond(ctx, delete_acls_refused(*request, protocol::error_code::security_disabled,
                                               "No Authorizer is configured."));
  auto response = co_await call_controller<delete_acls_response>(
      ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.delete_acls(*request); });
  if (response.filter_results.size() != request->filters.size())
    response = delete_acls_refused(*request, protocol::error_code::not_controller);
  co_return respond(ctx, response);
}

}  // namespace

api_handler delete_acls_handler() { return {31, 1, 3, &handle}; }

}  // namespace hw::broker
