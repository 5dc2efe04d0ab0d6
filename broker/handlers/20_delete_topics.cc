// DeleteTopics (key 20), versions 1-6: by name, or by id from v6; the
// controller removes the topics and this broker deletes their logs
// (renamed `-delete`, removed in the background) before answering.
// Authorization happens here, on the broker the client reached, before
// the request is forwarded.

#include <map>

#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/quota/request_quotas.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/delete_topics.h"

namespace hw::broker {
namespace {

using protocol::msg::delete_topics_request;
using protocol::msg::delete_topics_response;

// Kafka's ControllerApis.deleteTopics: DELETE on the cluster, else
// DESCRIBE and DELETE on each topic. A topic refused is taken out of the
// request and answered TOPIC_AUTHORIZATION_FAILED, named only when the
// principal may describe it (or named it); topics that do not exist,
// duplicates and malformed entries are the controller's to answer. Kafka
// shuffles its answers, so their order tells nothing.
std::vector<delete_topics_response::deletable_topic_result> refuse_unauthorized(const request_context& ctx,
                                                                                delete_topics_request& request) {
  std::vector<delete_topics_response::deletable_topic_result> refused;
  if (!authorizer_configured(ctx) || authorize(ctx, api_acl(20, "cluster"), {}, false)) return refused;
  auto image = ctx.services->metadata->image();
  authorized_names may_describe(ctx, api_acl(20, "describe"));
  authorized_names may_delete(ctx, api_acl(20, "delete"));
  auto refuse = [&](std::optional<std::string> name, protocol::uuid id) {
    auto& r = refused.emplace_back();
    r.name = std::move(name);
    r.topic_id = id;
    r.error_code = static_cast<int16_t>(protocol::error_code::topic_authorization_failed);
    r.error_message = "Topic authorization failed.";
  };
  std::map<std::string, int> names;
  std::map<protocol::uuid, int> ids;
  for (const auto& n : request.topic_names) ++names[n];
  for (const auto& t : request.topics) {
    if (t.name && t.topic_id.is_zero()) ++names[*t.name];
    else if (!t.name) ++ids[t.topic_id];
  }
  // A name refused for DESCRIBE says nothing of whether it exists.
  auto name_refused = [&](const std::string& name) {
    if (names[name] > 1) return false;
    if (!may_describe(name)) return true;
    return image->topic(name) && !may_delete(name);
  };
  std::erase_if(request.topic_names, [&](const std::string& name) {
    if (!name_refused(name)) return false;
    refuse(name, {});
    return true;
  });
  std::erase_if(request.topics, [&](const auto& t) {
    if (t.name && t.topic_id.is_zero()) {
      if (!name_refused(*t.name)) return false;
      refuse(t.name, {});
      return true;
    }
    if (t.name || t.topic_id.is_zero() || ids[t.topic_id] > 1) return false;
    const controller::topic_image* topic = image->topic(controller::topic_id(t.topic_id));
    if (!topic || may_delete(topic->name)) return false;
    refuse(may_describe(topic->name) ? std::optional<std::string>(topic->name) : std::nullopt, t.topic_id);
    return true;
  });
  return refused;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<delete_topics_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  std::vector<delete_topics_response::deletable_topic_result> refused = refuse_unauthorized(ctx, *request);
  // The client's controller mutation quota: strict from v5.
  quota::mutation_quota mutations(&ctx, 5);
  auto response = co_await call_controller<delete_topics_response>(
      ctx, *request,
      [&](controller::quorum_controller& qc, int64_t) { return qc.delete_topics(*request, version, mutations.applier()); });
  response.throttle_time_ms = std::max(response.throttle_time_ms, mutations.finish());
  for (auto& r : refused) response.responses.push_back(std::move(r));
  co_return respond(ctx, response);
}

}  // namespace

api_handler delete_topics_handler() { return {20, 1, 6, &handle}; }

}  // namespace hw::broker
