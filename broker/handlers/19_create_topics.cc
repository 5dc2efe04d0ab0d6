// CreateTopics (key 19), versions 2-7: forwarded to the active controller,
// which validates and writes the records (quorum_controller.h holds Kafka's
// rules); the answer waits until this broker has applied them, so a client
// that asks for metadata next finds the topic. With an authorizer, the
// topics the principal may not create are refused here (Kafka's
// ControllerApis does it on the controller, with the client's principal;
// here the broker the client reached does, before forwarding).

#include <algorithm>
#include <chrono>
#include <map>

#include "broker/admin/topic_creation.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::create_topics_request;
using protocol::msg::create_topics_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<create_topics_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const auto timeout = std::chrono::milliseconds(std::max(request->timeout_ms, 0));
  const bool forwarded = !ctx.services->is_controller_listener(ctx.listener_name);
  if (!authorizer_configured(ctx))
    co_return respond(ctx, co_await create_topics(*ctx.services, std::move(*request), ctx.api_version, timeout,
                                                  forwarded, &ctx));
  // Kafka's ControllerApis.createTopics: CREATE on the cluster, else on each
  // topic; a topic refused is left out of the creation and answered after
  // the others. Duplicates and __cluster_metadata are the controller's to
  // refuse, whatever the rights.
  const bool may_create_any = authorize(ctx, api_acl(19, "cluster"), {}, false);
  std::map<std::string, int> named;
  for (const auto& t : request->topics) ++named[t.name];
  std::vector<std::string> refused;
  std::erase_if(request->topics, [&](const auto& t) {
    if (may_create_any || named[t.name] > 1 || t.name == "__cluster_metadata" ||
        authorize(ctx, api_acl(19, "topic"), t.name))
      return false;
    refused.push_back(t.name);
    return true;
  });
  create_topics_response response;
  if (!request->topics.empty())
    response = co_await create_topics(*ctx.services, std::move(*request), ctx.api_version, timeout, forwarded, &ctx);
  // A topic created shows its configs, partitions and replication factor
  // only with DESCRIBE_CONFIGS on it.
  for (auto& r : response.topics) {
    if (r.error_code != 0 || authorize(ctx, api_acl(19, "topic_configs"), r.name, false)) continue;
    r.configs.emplace();
    r.num_partitions = -1;
    r.replication_factor = -1;
    r.topic_config_error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
  }
  for (auto& name : refused) {
    auto& r = response.topics.emplace_back();
    r.name = std::move(name);
    r.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
    r.error_message = "Authorization failed.";
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler create_topics_handler() { return {19, 2, 7, &handle}; }

}  // namespace hw::broker
