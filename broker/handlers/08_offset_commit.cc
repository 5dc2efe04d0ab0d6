// OffsetCommit (key 8), versions 2-10: a group's committed positions,
// made durable in __consumer_offsets before the answer.
//
// Kafka's rules (KafkaApis.handleOffsetCommitRequest): topics this broker's
// metadata does not know are answered here, per partition,
// UNKNOWN_TOPIC_OR_PARTITION (v10, named by id: UNKNOWN_TOPIC_ID) and never
// reach the coordinator; the rest go to the group's shard by name, with
// the topic id stored beside the offset. v10 answers carry ids back.
// Authorization: READ on the group (else every partition is refused
// GROUP_AUTHORIZATION_FAILED), READ on each topic.

#include <map>

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/authorization.h"
#include "protocol/messages/offset_commit.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::offset_commit_request;
using protocol::msg::offset_commit_response;

offset_commit_response::offset_commit_response_topic topic_error(const offset_commit_request::offset_commit_request_topic& t,
                                                                 error_code e) {
  offset_commit_response::offset_commit_response_topic out;
  out.name = t.name;
  out.topic_id = t.topic_id;
  for (const auto& p : t.partitions) out.partitions.push_back({p.partition_index, static_cast<int16_t>(e), {}});
  return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<offset_commit_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  auto image = ctx.services->metadata->image();

  offset_commit_response response;
  // READ on the group, else every partition is refused.
  if (!authorize(ctx, api_acl(8, "group"), request->group_id)) {
    for (const auto& t : request->topics) response.topics.push_back(topic_error(t, error_code::group_authorization_failed));
    co_return respond(ctx, response);
  }
  authorized_names may_read(ctx, api_acl(8, "topic"));
  offset_commit_request known = *request;
  known.topics.clear();
  std::map<std::string, protocol::uuid> ids;
  for (auto& t : request->topics) {
    const auto* topic = version >= 10 ? image->topic(controller::topic_id(t.topic_id)) : image->topic(t.name);
    if (!topic && version >= 10) {
      response.topics.push_back(topic_error(t, error_code::unknown_topic_id));
      continue;
    }
    if (!may_read(topic ? std::string_view(topic->name) : std::string_view(t.name))) {
      response.topics.push_back(topic_error(t, error_code::topic_authorization_failed));
      continue;
    }
    if (!topic) {
      response.topics.push_back(topic_error(t, error_code::unknown_topic_or_partition));
      continue;
    }
    t.name = topic->name;
    t.topic_id = topic->id.value;
    ids[topic->name] = topic->id.value;
    known.topics.push_back(std::move(t));
  }
  if (known.topics.empty()) co_return respond(ctx, response);

  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.commit_offsets(token, version, known, now_ms);
  };
  auto answer = co_await group::call_shard<offset_commit_response>(ctx, known.group_id, issue, &failure);
  if (!answer) {
    for (const auto& t : known.topics) response.topics.push_back(topic_error(t, failure));
    co_return respond(ctx, response);
  }
  for (auto& t : answer->topics) {
    if (auto it = ids.find(t.name); it != ids.end()) t.topic_id = it->second;
    response.topics.push_back(std::move(t));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler offset_commit_handler() { return {8, 2, 10, &handle}; }

}  // namespace hw::broker
