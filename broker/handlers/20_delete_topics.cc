// DeleteTopics (key 20), versions 1-6: by name, or by id from v6; the
// controller removes the topics and this broker deletes their logs
// (renamed `-delete`, removed in the background) before answering.

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/delete_topics.h"

namespace hw::broker {
namespace {

using protocol::msg::delete_topics_request;
using protocol::msg::delete_topics_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<delete_topics_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  auto response = co_await call_controller<delete_topics_response>(ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.delete_topics(*request, version); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler delete_topics_handler() { return {20, 1, 6, &handle}; }

}  // namespace hw::broker
