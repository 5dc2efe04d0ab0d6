// DescribeTopicPartitions (key 75), version 0: topics with their
// partitions, paged — at most response_partition_limit partitions per
// answer, with a cursor to continue from. The Java admin client's
// describeTopics uses it.
//
// Kafka's rules (DescribeTopicPartitionsRequestHandler, KRaftMetadataCache
// .getTopicMetadataForDescribeTopicResponse): an empty topic list means
// every topic; topics are answered in name order from the cursor's topic
// on (the cursor's topic must be in a given list, its partition index
// non-negative, else the whole request fails INVALID_REQUEST); the limit is
// clamped to [1, 2000]; a topic cut short sets the next cursor at its first
// unanswered partition; when the limit is used up exactly, the cursor
// points at partition 0 of the next topic; unknown topics in a given list
// are UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for a bad name);
// a partition whose leader is not reachable on this listener has leader
// -1. With an authorizer, topics the principal may not describe are left
// out of a listing of all, and refused (TOPIC_AUTHORIZATION_FAILED, no id)
// when named; authorized operations are the principal's (without an
// authorizer, every topic operation).

#include <algorithm>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_topic_partitions.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_topic_partitions_request;
using protocol::msg::describe_topic_partitions_response;
using response_topic = describe_topic_partitions_response::describe_topic_partitions_response_topic;

// Kafka's max.request.partition.size.limit default.
constexpr int32_t max_partitions_per_response = 2000;
describe_topic_partitions_response whole_request_error(const describe_topic_partitions_request& request) {
  describe_topic_partitions_response r;
  for (const auto& t : request.topics) {
    response_topic out;
    out.name = t.name;
    out.error_code = static_cast<int16_t>(error_code::invalid_request);
    r.topics.push_back(std::move(out));
  }
  return r;
}

describe_topic_partitions_response::describe_topic_partitions_response_partition describe_partition(
    const controller::metadata_image& image, int32_t index, const controller::partition_registration& reg,
    std::string_view listener) {
  describe_topic_partitions_response::describe_topic_partitions_response_partition p;
  p.partition_index = index;
  const auto* leader = reg.has_leader() ? image.broker(reg.leader) : nullptr;
  p.leader_id = leader && !leader->fenced && leader->endpoint(listener) ? reg.leader.value : -1;
  p.leader_epoch = reg.leader_epoch.value;
  p.replica_nodes = storage::plain_list(reg.replicas);
  p.isr_nodes = storage::plain_list(reg.isr);
  p.eligible_leader_replicas = storage::plain_list(reg.elr);
  p.last_known_elr = storage::plain_list(reg.last_known_elr);
  for (node_id r : reg.replicas) {
    const auto* b = image.broker(r);
    if (!b || b->fenced) p.offline_replicas.push_back(r.value);
  }
  return p;
}

// Adds topic's partitions from `start` on, at most `remaining` of them; sets
// the next cursor and returns false when the topic was cut short.
bool add_topic(const request_context& ctx, const controller::metadata_image& image,
               const controller::topic_image& topic, int32_t start, int32_t& remaining,
               describe_topic_partitions_response& out) {
  const std::string_view listener = ctx.listener_name;
  response_topic t;
  t.name = topic.name;
  t.topic_id = topic.id.value;
  t.is_internal = is_internal_topic(topic.name);
  t.topic_authorized_operations = authorized_operations(ctx, controller::acl_resource_type::topic, topic.name);
  const int32_t count = static_cast<int32_t>(topic.partitions.size());
  const int32_t upper = std::min<int64_t>(count, int64_t{start} + remaining);
  for (int32_t i = start; i < upper; ++i) {
    auto it = topic.partitions.find(i);
    if (it != topic.partitions.end()) t.partitions.push_back(describe_partition(image, i, it->second, listener));
  }
  remaining -= static_cast<int32_t>(t.partitions.size());
  out.topics.push_back(std::move(t));
  if (upper < count) {
    out.next_cursor.emplace();
    out.next_cursor->topic_name = topic.name;
    out.next_cursor->partition_index = upper;
    return false;
  }
  return true;
}

describe_topic_partitions_response describe(const request_context& ctx, const controller::metadata_image& image,
                                            const describe_topic_partitions_request& request) {
  const bool all_topics = request.topics.empty();
  const std::string cursor_topic = request.cursor ? request.cursor->topic_name : "";
  std::set<std::string> names;
  if (all_topics) {
    for (const auto& [name, id] : image.topics_by_name)
      if (name >= cursor_topic) names.insert(name);
  } else {
    for (const auto& t : request.topics)
      if (t.name >= cursor_topic) names.insert(t.name);
    if (request.cursor && !names.count(request.cursor->topic_name)) return whole_request_error(request);
  }
  if (request.cursor && request.cursor->partition_index < 0) return whole_request_error(request);

  // Topics the principal may not describe: left out of a listing of every
  // topic, refused (without their id) after the others when named.
  std::vector<std::string> refused;
  std::erase_if(names, [&](const std::string& name) {
    if (authorize(ctx, api_acl(75, "topic"), name)) return false;
    if (!all_topics) refused.push_back(name);
    return true;
  });

  describe_topic_partitions_response out;
  int32_t remaining = std::clamp(request.response_partition_limit, 1, max_partitions_per_response);
  for (const std::string& name : names) {
    if (remaining == 0) {
      out.next_cursor.emplace();
      out.next_cursor->topic_name = name;
      out.next_cursor->partition_index = 0;
      break;
    }
    const int32_t start = request.cursor && name == cursor_topic ? request.cursor->partition_index : 0;
    if (const auto* topic = image.topic(name)) {
      if (!add_topic(ctx, image, *topic, start, remaining, out)) break;
    } else if (!all_topics) {
      response_topic t;
      t.name = name;
      t.is_internal = is_internal_topic(name);
      t.topic_authorized_operations = authorized_operations(ctx, controller::acl_resource_type::topic, name);
      t.error_code = static_cast<int16_t>(invalid_topic_name(name) ? error_code::invalid_topic_exception
                                                                     : error_code::unknown_topic_or_partition);
      out.topics.push_back(std::move(t));
    }
  }
  for (const std::string& name : refused) {
    response_topic t;
    t.name = name;
    t.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
    out.topics.push_back(std::move(t));
  }
  return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_topic_partitions_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  auto image = ctx.services->metadata->image();
  co_return respond(ctx, describe(ctx, *image, *request));
}

}  // namespace

api_handler describe_topic_partitions_handler() { return {75, 0, 0, &handle}; }

}  // namespace hw::broker
