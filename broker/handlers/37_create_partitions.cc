// CreatePartitions (key 37), versions 0-3: more partitions for existing
// topics, through the controller (validate_only writes nothing).

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/create_partitions.h"

namespace hw::broker {
namespace {

using protocol::msg::create_partitions_request;
using protocol::msg::create_partitions_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<create_partitions_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  auto response = co_await call_controller<create_partitions_response>(ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.create_partitions(*request); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler create_partitions_handler() { return {37, 0, 3, &handle}; }

}  // namespace hw::broker
