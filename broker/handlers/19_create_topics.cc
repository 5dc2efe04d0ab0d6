// CreateTopics (key 19), versions 2-7: forwarded to the active controller,
// which validates and writes the records (quorum_controller.h holds Kafka's
// rules); the answer waits until this broker has applied them, so a client
// that asks for metadata next finds the topic.

#include <chrono>

#include "broker/admin/topic_creation.h"
#include "broker/handlers/handlers.h"

namespace hw::broker {
namespace {

using protocol::msg::create_topics_request;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<create_topics_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const auto timeout = std::chrono::milliseconds(std::max(request->timeout_ms, 0));
  auto response = co_await create_topics(*ctx.services, std::move(*request), ctx.api_version, timeout,
                                       !ctx.services->is_controller_listener(ctx.listener_name));
  co_return respond(ctx, response);
}

}  // namespace

api_handler create_topics_handler() { return {19, 2, 7, &handle}; }

}  // namespace hw::broker
