// Metadata (key 3), versions 0-13: brokers reachable on the client's
// listener, the cluster id, a controller id, and per topic its id and
// partitions (leader, leader epoch, replicas, ISR, offline replicas).
//
// Kafka's rules (KafkaApis.handleTopicMetadataRequest, KRaftMetadataCache):
// a null topic list (v1+; an empty one at v0) means every topic; a topic
// that does not exist is auto-created when the request allows it (v4+) and
// auto.create.topics.enable is set, except internal ones; by topic id
// (v10+), an unknown id is UNKNOWN_TOPIC_ID; a partition whose leader has no
// endpoint on this listener is LEADER_NOT_AVAILABLE; the controller id a
// client sees is an alive broker, since clients cannot reach controllers.

#include <algorithm>
#include <chrono>

#include "broker/admin/topic_creation.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/metadata.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::metadata_request;
using protocol::msg::metadata_response;

void add_topic(const controller::metadata_image& image, const controller::topic_image& topic,
               std::string_view listener, metadata_response& out) {
  metadata_response::metadata_response_topic t;
  t.name = topic.name;
  t.topic_id = topic.id.value;
  t.is_internal = is_internal_topic(topic.name);
  for (const auto& [index, reg] : topic.partitions) {
    metadata_response::metadata_response_partition p;
    p.partition_index = index;
    p.leader_id = reg.leader.value;
    p.leader_epoch = reg.leader_epoch.value;
    p.replica_nodes = storage::plain_list(reg.replicas);
    p.isr_nodes = storage::plain_list(reg.isr);
    for (storage::node_id r : reg.replicas) {
      const auto* b = image.broker(r);
      if (!b || b->fenced) p.offline_replicas.push_back(r.value);
    }
    const auto* leader = reg.has_leader() ? image.broker(reg.leader) : nullptr;
    if (!leader || !leader->endpoint(listener)) {
      p.error_code = static_cast<int16_t>(error_code::leader_not_available);
      p.leader_id = -1;
    }
    t.partitions.push_back(std::move(p));
  }
  out.topics.push_back(std::move(t));
}

void add_error_topic(std::optional<std::string> name, protocol::uuid id, error_code error, metadata_response& out) {
  metadata_response::metadata_response_topic t;
  t.error_code = static_cast<int16_t>(error);
  t.name = std::move(name);
  t.topic_id = id;
  out.topics.push_back(std::move(t));
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<metadata_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;

  auto image = s.metadata->image();
  const bool all_topics = !request->topics || (ctx.api_version == 0 && request->topics->empty());
  const bool may_create = request->allow_auto_topic_creation && s.config->auto_create_topics_enable;

  // Auto-create first, so the answer can carry the new topics.
  if (!all_topics && may_create) {
    bool created = false;
    for (const auto& t : *request->topics) {
      if (!t.name || t.name->empty() || image->topic(*t.name) || is_internal_topic(*t.name)) continue;
      if (invalid_topic_name(*t.name)) continue;  // answered below with INVALID_TOPIC_EXCEPTION
      error_code e = co_await create_topic(s, *t.name, -1, -1);
      created = created || e == error_code::none;
    }
    if (created) image = s.metadata->image();
  }

  metadata_response response;
  response.cluster_id = s.cluster_id;
  for (const auto& [id, endpoint] : image->endpoints(ctx.listener_name)) {
    const auto* b = image->broker(id);
    if (!b || b->fenced) continue;
    metadata_response::metadata_response_broker mb;
    mb.node_id = id.value;
    mb.host = endpoint.host;
    mb.port = endpoint.port;
    mb.rack = b->rack;
    response.brokers.push_back(std::move(mb));
  }
  response.controller_id = response.brokers.empty() ? -1 : s.node_id;
  if (!response.brokers.empty() &&
      std::none_of(response.brokers.begin(), response.brokers.end(), [&](auto& b) { return b.node_id == s.node_id; }))
    response.controller_id = response.brokers.front().node_id;

  if (all_topics) {
    for (const auto& [name, id] : image->topics_by_name)
      if (const auto* t = image->topic(id)) add_topic(*image, *t, ctx.listener_name, response);
  } else {
    // As Kafka: a request naming any topic by id is answered by ids (the
    // Java client sends the id with an empty name, not a null one).
    const bool by_id = std::any_of(request->topics->begin(), request->topics->end(),
                                   [](const auto& t) { return !t.topic_id.is_zero(); });
    for (const auto& t : *request->topics) {
      const controller::topic_image* topic = nullptr;
      if (t.name && !by_id) {
        topic = image->topic(*t.name);
        if (!topic) {
          error_code e = error_code::unknown_topic_or_partition;
          if (auto invalid = invalid_topic_name(*t.name)) e = error_code::invalid_topic_exception;
          else if (may_create && !is_internal_topic(*t.name)) e = error_code::leader_not_available;
          add_error_topic(t.name, {}, e, response);
          continue;
        }
      } else {
        topic = image->topic(controller::topic_id(t.topic_id));
        if (!topic) {
          add_error_topic(std::nullopt, t.topic_id, error_code::unknown_topic_id, response);
          continue;
        }
      }
      add_topic(*image, *topic, ctx.listener_name, response);
    }
  }
  // No authorizer: every operation, with Kafka's bit sets for a topic and
  // for the cluster (the cluster's only through v10).
  if (ctx.api_version >= 8 && request->include_topic_authorized_operations) {
    for (auto& t : response.topics)
      if (t.error_code == 0) t.topic_authorized_operations = 3576;
  }
  if (ctx.api_version >= 8 && ctx.api_version <= 10 && request->include_cluster_authorized_operations)
    response.cluster_authorized_operations = 8096;
  co_return respond(ctx, response);
}

}  // namespace

api_handler metadata_handler() { return {3, 0, 13, &handle}; }

}  // namespace hw::broker
