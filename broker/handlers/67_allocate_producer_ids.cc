// AllocateProducerIds (key 67), version 0, on controller listeners only: a
// broker without the active controller in its process asks it for a block
// of producer ids (Kafka's ProducerIdControlManager rules live in
// quorum_controller).

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/allocate_producer_ids.h"

namespace hw::broker {
namespace {

using protocol::msg::allocate_producer_ids_request;
using protocol::msg::allocate_producer_ids_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<allocate_producer_ids_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<allocate_producer_ids_response>(ctx, api_acl(67, "cluster")))
    co_return respond(ctx, *refused);
  const allocate_producer_ids_request& req = *request;
  // Answered here or NOT_CONTROLLER: the broker asks the active controller.
  auto response = co_await call_active_controller<allocate_producer_ids_response>(
      *ctx.services, false, ctx.api_key, ctx.api_version, req,
      [&](controller::quorum_controller& qc, int64_t, storage::offset) {
        return qc.allocate_producer_ids(req);
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler allocate_producer_ids_handler() { return {67, 0, 0, &handle}; }

}  // namespace hw::broker
