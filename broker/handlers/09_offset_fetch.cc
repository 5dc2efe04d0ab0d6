// OffsetFetch (key 9), versions 1-10: a group's committed offsets (v8+:
// several groups per request, each answered by its own shard).
//
// v1-7 name one group at top level and are converted to the v8 group form
// and back (legacy_forms.h). v10 names topics by id: ids this broker does
// not know are answered UNKNOWN_TOPIC_ID per partition; the rest are
// resolved to names for the shard and back to ids in the answer. A group
// whose shard is not here gets the coordinator error for the whole group.
// Authorization: DESCRIBE on each group (else GROUP_AUTHORIZATION_FAILED
// for that group) and on each topic (named ones refused per partition,
// unnamed ones left out of a fetch of all).

#include <map>

#include "broker/group/legacy_forms.h"
#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/authorization.h"
#include "protocol/messages/offset_fetch.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::offset_fetch_request;
using protocol::msg::offset_fetch_response;
using request_group = offset_fetch_request::offset_fetch_request_group;
using response_group = offset_fetch_response::offset_fetch_response_group;

// A topic's partitions, each answered with this error.
offset_fetch_response::offset_fetch_response_topics refused_topic(
    const offset_fetch_request::offset_fetch_request_topics& t, error_code e) {
  offset_fetch_response::offset_fetch_response_topics out;
  out.name = t.name;
  out.topic_id = t.topic_id;
  for (int32_t p : t.partition_indexes) {
    auto& part = out.partitions.emplace_back();
    part.partition_index = p;
    part.committed_offset = -1;
    part.error_code = static_cast<int16_t>(e);
  }
  return out;
}

asio::awaitable<response_group> fetch_group(request_context& ctx, request_group wanted, bool require_stable) {
  const bool by_id = ctx.api_version >= 10;
  if (!authorize(ctx, api_acl(9, "group"), wanted.group_id)) {
    response_group out;
    out.group_id = wanted.group_id;
    out.error_code = static_cast<int16_t>(error_code::group_authorization_failed);
    co_return out;
  }
  // Offsets of topics the principal may not describe are not shown: named
  // ones are refused, and a fetch of all leaves them out.
  authorized_names may_describe(ctx, api_acl(9, "topic"));
  std::vector<offset_fetch_response::offset_fetch_response_topics> unknown;
  std::vector<offset_fetch_response::offset_fetch_response_topics> refused;
  std::map<std::string, protocol::uuid> ids;
  if (wanted.topics) {
    auto image = ctx.services->metadata->image();
    std::vector<offset_fetch_request::offset_fetch_request_topics> known;
    for (auto& t : *wanted.topics) {
      if (by_id) {
        const auto* topic = image->topic(controller::topic_id(t.topic_id));
        if (!topic) {
          unknown.push_back(refused_topic(t, error_code::unknown_topic_id));
          continue;
        }
        t.name = topic->name;
      }
      if (!may_describe(t.name)) {
        refused.push_back(refused_topic(t, error_code::topic_authorization_failed));
        continue;
      }
      if (const auto* topic = image->topic(t.name)) ids[t.name] = topic->id.value;
      known.push_back(std::move(t));
    }
    wanted.topics = std::move(known);
  }
  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t) {
    shard.fetch_offsets(token, wanted, require_stable);
  };
  auto answer = co_await group::call_shard<group::offset_fetch_group_response>(ctx, wanted.group_id, issue, &failure);
  response_group out;
  if (!answer) {
    out.group_id = wanted.group_id;
    out.error_code = static_cast<int16_t>(failure);
    co_return out;
  }
  out = std::move(*answer);
  if (out.error_code == 0) {
    if (!wanted.topics) std::erase_if(out.topics, [&](const auto& t) { return !may_describe(t.name); });
    for (auto& r : refused) out.topics.push_back(std::move(r));
  }
  if (by_id) {
    for (auto& t : out.topics) {
      if (auto it = ids.find(t.name); it != ids.end()) t.topic_id = it->second;
    }
  }
  for (auto& u : unknown) out.topics.push_back(std::move(u));
  co_return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<offset_fetch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  offset_fetch_response response;
  if (version < 8) {
    response_group answer =
        co_await fetch_group(ctx, group::legacy_offset_fetch_group(*request), request->require_stable);
    group::fill_legacy_offset_fetch(response, answer, version);
    co_return respond(ctx, response);
  }
  for (auto& g : request->groups)
    response.groups.push_back(co_await fetch_group(ctx, std::move(g), request->require_stable));
  co_return respond(ctx, response);
}

}  // namespace

api_handler offset_fetch_handler() { return {9, 1, 10, &handle}; }

}  // namespace hw::broker
