// CreateAcls (key 30), versions 1-3: forwarded to the active controller,
// whose ACL control writes the new bindings (controller/acl_control.h), as
// Kafka's broker forwards it. Without an authorizer every creation gets
// SECURITY_DISABLED, as Kafka's; a binding with an UNKNOWN field closes the
// connection, as Kafka's parser does.

#include "broker/admin/acl_requests.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"

namespace hw::broker {
namespace {

using protocol::msg::create_acls_request;
using protocol::msg::create_acls_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<create_acls_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (auto why = unreadable(*request)) co_return handler_result::close(*why);
  if (!authorize(ctx, api_acl(30, "cluster")))
    co_return respond(ctx, create_acls_refused(*request, api_acl(30, "cluster").refusal,
                                               cluster_refusal_message(ctx, api_acl(30, "cluster").operation)));
  if (!authorizer_configured(ctx))
    co_return respond(ctx, create_acls_refused(*request, protocol::error_code::security_disabled,
                                               "No Authorizer is configured."));
  auto response = co_await call_controller<create_acls_response>(
      ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.create_acls(*request); });
  // A controller answers every creation; none means no controller took it.
  if (response.results.size() != request->creations.size())
    response = create_acls_refused(*request, protocol::error_code::not_controller);
  co_return respond(ctx, response);
}

}  // namespace

api_handler create_acls_handler() { return {30, 1, 3, &handle}; }

}  // namespace hw::broker
