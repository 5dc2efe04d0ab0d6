// AllocateProducerIds (key 67), version 0, on controller listeners only: a
// broker without the active controller in its process asks it for a block
// of producer ids (Kafka's ProducerIdControlManager rules live in
// quorum_controller).

#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_service.h"
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
  controller_service* c = ctx.services->controller;
  if (!c) {
    allocate_producer_ids_response r;
    r.error_code = static_cast<int16_t>(protocol::error_code::not_controller);
    co_return respond(ctx, r);
  }
  const allocate_producer_ids_request& req = *request;
  auto response = co_await c->submit<allocate_producer_ids_response>(
      [&](controller::quorum_controller& qc, int64_t, storage::offset) { return qc.allocate_producer_ids(req); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler allocate_producer_ids_handler() { return {67, 0, 0, &handle}; }

}  // namespace hw::broker
