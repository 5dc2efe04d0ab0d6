// StreamsGroupHeartbeat (key 88), version 0: a member of a streams group
// (KIP-1071, Kafka Streams with group.protocol=streams) joins with its
// topology, stays, is reconciled towards its tasks or leaves. Before the
// group's shard sees it, as Kafka's broker does: READ on the group; a
// topology naming Kafka's internal topics or invalid topic names refused
// (STREAMS_INVALID_TOPOLOGY); DESCRIBE on every topic the topology names.
// After: the internal topics the group needs and lacks are created in the
// background when the principal may create them (else the members are told
// so in the MISSING_INTERNAL_TOPICS status), with the errors of recent
// failed creations added to that status. Served when the streams protocol
// is enabled (else UNSUPPORTED_VERSION, as Kafka answers).

#include <set>

#include "broker/admin/streams_topic_creator.h"
#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/topics.h"
#include "config/broker_config.h"
#include "controller/topic_name.h"
#include "protocol/messages/streams_group_heartbeat.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::streams_group_heartbeat_request;
using protocol::msg::streams_group_heartbeat_response;

constexpr int8_t missing_internal_topics = 3;  // StreamsGroupHeartbeatResponse.Status

handler_result refuse(request_context& ctx, error_code e, std::optional<std::string> message = std::nullopt) {
  streams_group_heartbeat_response response;
  response.error_code = static_cast<int16_t>(e);
  response.error_message = std::move(message);
  return respond(ctx, response);
}

// Every topic the topology names, each once, in the order Kafka lists them.
std::vector<std::string> required_topics(const streams_group_heartbeat_request::topology_data& t) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (seen.insert(name).second) out.push_back(name);
  };
  for (const auto& s : t.subtopologies) {
    for (const auto& name : s.source_topics) add(name);
    for (const auto& name : s.repartition_sink_topics) add(name);
    for (const auto& r : s.repartition_source_topics) add(r.name);
    for (const auto& c : s.state_changelog_topics) add(c.name);
  }
  return out;
}

std::string joined(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : std::string(separator)) + n;
  return out;
}

// The topology's checks before the coordinator sees it; the refusal, if any.
std::optional<handler_result> check_topology(request_context& ctx, const streams_group_heartbeat_request& request) {
  if (!request.topology) return std::nullopt;
  const auto required = required_topics(*request.topology);
  std::vector<std::string> internal, invalid;
  for (const auto& name : required) {
    if (controller::is_internal_topic(name)) internal.push_back(name);
    if (controller::invalid_topic_name(name)) invalid.push_back(name);
  }
  if (!internal.empty()) {
    return refuse(ctx, error_code::streams_invalid_topology,
                  "Use of Kafka internal topics " + joined(internal, ",") +
                      " in a Kafka Streams topology is prohibited.");
  }
  if (!invalid.empty())
    return refuse(ctx, error_code::streams_invalid_topology, "Topic names " + joined(invalid, ",") + " are not valid topic names.");
  authorized_names described(ctx, api_acl(88, "topic"));
  for (const auto& name : required)
    if (!described(name)) return refuse(ctx, error_code::topic_authorization_failed);
  return std::nullopt;
}

streams_group_heartbeat_response::status_data* missing_status(streams_group_heartbeat_response& r) {
  if (!r.status) return nullptr;
  for (auto& s : *r.status)
    if (s.status_code == missing_internal_topics) return &s;
  return nullptr;
}

// The internal topics to create: created when the principal may, else the
// members told who may not; failed creations told while remembered.
void create_internal_topics(request_context& ctx, const std::vector<group::streams::internal_topic>& to_create,
                            streams_group_heartbeat_response& response) {
  if (to_create.empty()) return;
  std::vector<std::string> names;
  for (const auto& t : to_create) names.push_back(t.name);
  std::vector<std::string> refused;
  if (!authorize(ctx, api_acl(88, "create_cluster"), {}, false)) {
    for (const auto& name : names)
      if (!authorize(ctx, api_acl(88, "create_topic"), name, false)) refused.push_back(name);
  }
  if (!refused.empty()) {
    if (!response.status) response.status.emplace();
    const std::string detail = "Unauthorized to CREATE on topics " + joined(refused, ", ") + ".";
    if (auto* s = missing_status(response)) {
      s->status_detail += "; " + detail;
    } else {
      streams_group_heartbeat_response::status_data added;
      added.status_code = missing_internal_topics;
      added.status_detail = detail;
      response.status->push_back(std::move(added));
    }
    return;
  }
  auto* creator = ctx.services->streams_topics;
  if (!creator || !ctx.services->config) return;
  // Kafka 4.3 remembers failures for twice the group's own heartbeat interval; the broker's here.
  const int64_t ttl_ms = 2 * ctx.services->config->get_int("group.streams.heartbeat.interval.ms");
  const int64_t now_ms = ctx.services->now_ms ? ctx.services->now_ms() : 0;
  creator->create(to_create, ttl_ms, now_ms);
  auto* s = missing_status(response);
  if (!s) return;
  const auto errors = creator->errors(names, now_ms);
  if (errors.empty()) return;
  std::vector<std::string> listed;
  for (const auto& [name, message] : errors) {
    if (listed.size() == 3) break;
    listed.push_back(name + " (" + message + ")");
  }
  std::string details = joined(listed, ", ");
  if (errors.size() > 3) details += " and " + std::to_string(errors.size() - 3) + " more";
  s->status_detail += "; Creation failed: " + details + ".";
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<streams_group_heartbeat_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (!group::streams_protocol_enabled(ctx)) co_return refuse(ctx, error_code::unsupported_version);
  if (!authorize(ctx, api_acl(88, "group"), request->group_id))
    co_return refuse(ctx, error_code::group_authorization_failed);
  if (auto refused = check_topology(ctx, *request)) co_return std::move(*refused);
  const group::client_info client = group::client_of(ctx);
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.streams_group_heartbeat(token, client, *request, now_ms);
  };
  error_code failure = error_code::none;
  auto answer = co_await group::call_shard<group::streams_heartbeat_answer>(ctx, request->group_id, issue, &failure);
  if (!answer) co_return refuse(ctx, failure);
  if (answer->response.error_code == 0) create_internal_topics(ctx, answer->to_create, answer->response);
  co_return respond(ctx, answer->response);
}

}  // namespace

api_handler streams_group_heartbeat_handler() { return {88, 0, 0, &handle}; }

}  // namespace hw::broker
