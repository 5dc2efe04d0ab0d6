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
// With an authorizer: a listing of every topic leaves out those the
// principal may not describe; named ones are refused
// (TOPIC_AUTHORIZATION_FAILED, no id disclosed for a name); auto-creation
// needs CREATE on the cluster or on the topic.

#include <algorithm>
#include <chrono>

#include "broker/admin/topic_creation.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/authorization.h"
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

metadata_response::metadata_response_topic error_topic(std::optional<std::string> name, protocol::uuid id,
                                                       error_code error, bool internal = false) {
  metadata_response::metadata_response_topic t;
  t.error_code = static_cast<int16_t>(error);
  t.name = std::move(name);
  t.topic_id = id;
  t.is_internal = internal;
  return t;
}

// A request naming topics, sorted as Kafka answers it: ids it does not
// know, the topics the principal may describe (existing, or created now),
// those it may not auto-create, and those it may not describe.
struct named_topics {
  std::vector<protocol::uuid> unknown_ids;
  std::vector<const metadata_request::metadata_request_topic*> described;
  std::vector<std::string> create_refused;
  std::vector<metadata_response::metadata_response_topic> describe_refused;
};

named_topics sort_named(const request_context& ctx, const metadata_request& request,
                        const controller::metadata_image& image, bool may_create, bool by_id) {
  authorized_names may_describe(ctx, api_acl(3, "topic"));
  std::optional<bool> cluster_create;  // asked once, and only if a topic needs it
  authorized_names may_create_topic(ctx, api_acl(3, "auto_create_topic"));
  named_topics out;
  for (const auto& t : *request.topics) {
    if (by_id) {
      const controller::topic_image* topic = image.topic(controller::topic_id(t.topic_id));
      if (!topic) out.unknown_ids.push_back(t.topic_id);
      else if (!may_describe(topic->name))
        out.describe_refused.push_back(error_topic(std::nullopt, t.topic_id, error_code::topic_authorization_failed));
      else out.described.push_back(&t);
      continue;
    }
    if (!t.name) {  // neither name nor id: no topic Kafka knows
      out.unknown_ids.push_back(t.topic_id);
      continue;
    }
    if (!may_describe(*t.name)) {
      out.describe_refused.push_back(error_topic(t.name, {}, error_code::topic_authorization_failed));
      continue;
    }
    if (may_create && !image.topic(*t.name)) {
      if (!cluster_create) cluster_create = authorize(ctx, api_acl(3, "auto_create_cluster"), {}, false);
      if (!*cluster_create && !may_create_topic(*t.name)) {
        out.create_refused.push_back(*t.name);
        continue;
      }
    }
    out.described.push_back(&t);
  }
  return out;
}

// The alive brokers reachable on the client's listener, and a controller id
// among them (clients cannot reach controllers).
void add_brokers(const controller::metadata_image& image, std::string_view listener, int32_t self,
                 metadata_response& response) {
  for (const auto& [id, endpoint] : image.endpoints(listener)) {
    const auto* b = image.broker(id);
    if (!b || b->fenced) continue;
    metadata_response::metadata_response_broker mb;
    mb.node_id = id.value;
    mb.host = endpoint.host;
    mb.port = endpoint.port;
    mb.rack = b->rack;
    response.brokers.push_back(std::move(mb));
  }
  response.controller_id = response.brokers.empty() ? -1 : self;
  if (!response.brokers.empty() &&
      std::none_of(response.brokers.begin(), response.brokers.end(), [&](auto& b) { return b.node_id == self; }))
    response.controller_id = response.brokers.front().node_id;
}

// The operations the principal may do on each topic described (topics
// [first, end) of the answer), and (v8 to v10) on the cluster: none without
// DESCRIBE on it. Without an authorizer, every operation Kafka lists.
void add_authorized_operations(const request_context& ctx, const metadata_request& request, size_t first, size_t end,
                               metadata_response& response) {
  if (ctx.api_version < 8) return;
  if (request.include_topic_authorized_operations) {
    for (size_t i = first; i < end; ++i) {
      auto& t = response.topics[i];
      if (t.name)  // an unknown one's too, as Kafka's
        t.topic_authorized_operations = authorized_operations(ctx, controller::acl_resource_type::topic, *t.name);
    }
  }
  if (ctx.api_version <= 10 && request.include_cluster_authorized_operations)
    response.cluster_authorized_operations =
        authorize(ctx, api_acl(3, "cluster_operations"))
            ? authorized_operations(ctx, controller::acl_resource_type::cluster, controller::acl_cluster_name)
            : 0;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<metadata_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;

  auto image = s.metadata->image();
  const bool all_topics = !request->topics || (ctx.api_version == 0 && request->topics->empty());
  const bool may_create = !all_topics && request->allow_auto_topic_creation && s.config->auto_create_topics_enable;
  // As Kafka: a request naming any topic by id is answered by ids (the
  // Java client sends the id with an empty name, not a null one).
  const bool by_id = !all_topics && std::any_of(request->topics->begin(), request->topics->end(),
                                                [](const auto& t) { return !t.topic_id.is_zero(); });
  named_topics named;
  if (!all_topics) named = sort_named(ctx, *request, *image, may_create, by_id);

  // Auto-create first, so the answer can carry the new topics.
  if (may_create && !by_id) {
    bool created = false;
    for (const auto* t : named.described) {
      if (!t->name || t->name->empty() || image->topic(*t->name) || is_internal_topic(*t->name)) continue;
      if (invalid_topic_name(*t->name)) continue;  // answered below with INVALID_TOPIC_EXCEPTION
      error_code e = co_await create_topic(s, *t->name, -1, -1, {}, &ctx);
      created = created || e == error_code::none;
    }
    if (created) image = s.metadata->image();
  }

  metadata_response response;
  response.cluster_id = s.cluster_id;
  add_brokers(*image, ctx.listener_name, s.node_id, response);

  for (const protocol::uuid& id : named.unknown_ids)
    response.topics.push_back(error_topic(std::nullopt, id, error_code::unknown_topic_id));
  const size_t first_described = response.topics.size();
  if (all_topics) {
    // Topics the principal may not describe are left out, unlogged.
    authorized_names may_describe(ctx, api_acl(3, "topic"), /*log_denied=*/false);
    for (const auto& [name, id] : image->topics_by_name)
      if (const auto* t = image->topic(id); t && may_describe(t->name))
        add_topic(*image, *t, ctx.listener_name, response);
  } else {
    for (const auto* t : named.described) {
      const controller::topic_image* topic =
          by_id ? image->topic(controller::topic_id(t->topic_id)) : image->topic(*t->name);
      if (!topic) {
        if (by_id) {  // deleted since it was looked up
          response.topics.push_back(error_topic(std::nullopt, t->topic_id, error_code::unknown_topic_id));
          continue;
        }
        error_code e = error_code::unknown_topic_or_partition;
        if (auto invalid = invalid_topic_name(*t->name)) e = error_code::invalid_topic_exception;
        else if (may_create && !is_internal_topic(*t->name)) e = error_code::leader_not_available;
        response.topics.push_back(error_topic(t->name, {}, e));
        continue;
      }
      add_topic(*image, *topic, ctx.listener_name, response);
    }
  }
  const size_t end_described = response.topics.size();
  for (const std::string& name : named.create_refused)
    response.topics.push_back(error_topic(name, {}, error_code::topic_authorization_failed, is_internal_topic(name)));
  for (auto& t : named.describe_refused) response.topics.push_back(std::move(t));

  add_authorized_operations(ctx, *request, first_described, end_described, response);
  co_return respond(ctx, response);
}

}  // namespace

api_handler metadata_handler() { return {3, 0, 13, &handle}; }

}  // namespace hw::broker
