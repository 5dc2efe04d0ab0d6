// FindCoordinator (key 10), versions 0-6: which broker coordinates a group
// (v4+: several keys in one request).
//
// Kafka's rules (KafkaApis.handleFindCoordinatorRequest): a GROUP key is
// coordinated by the leader of __consumer_offsets partition
// hash(key) mod offsets.topic.num.partitions; the topic is created on
// first use (compacted, offsets.topic.replication.factor replicas), which
// the controller refuses until that many brokers are registered. No topic
// yet, no leader, or none reachable on this listener:
// COORDINATOR_NOT_AVAILABLE. A TRANSACTION key is coordinated by the
// leader of __transaction_state partition hash(key) mod
// transaction.state.log.num.partitions, the topic created on first use in
// the same way (transaction.state.log.replication.factor replicas,
// transaction.state.log.min.isr). Other key types are
// INVALID_REQUEST. v4+ answers per key; a v0-3 request carrying batched
// keys, or a v4+ one without them, is refused as Kafka does. DESCRIBE on
// the group (transactional id) comes first: GROUP_AUTHORIZATION_FAILED
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED) for that key.

#include <algorithm>

#include "broker/admin/topic_creation.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "broker/txn/txn_coordinator.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/find_coordinator.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::find_coordinator_request;
using protocol::msg::find_coordinator_response;

constexpr int8_t group_key_type = 0;
constexpr int8_t transaction_key_type = 1;

struct coordinator_answer {
  error_code error = error_code::none;
  std::optional<std::string> message;
  int32_t node_id = -1;
  std::string host;
  int32_t port = -1;
};

// Kafka sends the error's default message, and "NONE" for success.
std::string default_message(error_code e) {
  switch (e) {
    case error_code::none: return "NONE";
    case error_code::coordinator_not_available: return "The coordinator is not available.";
    case error_code::not_coordinator: return "This is not the correct coordinator.";
    case error_code::group_authorization_failed:
    case error_code::transactional_id_authorization_failed: return std::string(authorization_error_message(e));
    case error_code::invalid_request:
      return "This most likely occurs because of a request being malformed by the client library or the message "
             "was sent to an incompatible broker. See the broker logs for more details.";
    default: return std::string(protocol::error_name(e));
  }
}

coordinator_answer failed(error_code e, std::optional<std::string> message = std::nullopt) {
  coordinator_answer a;
  a.error = e;
  a.message = message ? std::move(message) : default_message(e);
  return a;
}

// A coordinator topic: __consumer_offsets for groups, __transaction_state
// for transactions.
struct coordinator_topic {
  std::string_view name;
  int32_t partitions = 0;
  int16_t replication_factor = 0;
  std::vector<std::pair<std::string, std::string>> configs;
};

coordinator_topic topic_for(const broker_services& s, int8_t key_type) {
  const auto& c = *s.config;
  coordinator_topic t;
  if (key_type == group_key_type) {
    t.name = consumer_offsets_topic;
    t.partitions = s.groups->num_partitions();
    t.replication_factor = c.offsets_topic_replication_factor;
    t.configs = {{"cleanup.policy", "compact"},
                 {"compression.type", "producer"},
                 {"segment.bytes", std::to_string(c.get_int("offsets.topic.segment.bytes"))}};
  } else {
    // Kafka's TransactionLog topic configs: compacted, uncompressed,
    // transaction.state.log.min.isr, no unclean election.
    t.name = txn::transaction_state_topic;
    t.partitions = s.txns->num_partitions();
    t.replication_factor = static_cast<int16_t>(c.get_int("transaction.state.log.replication.factor"));
    t.configs = {{"cleanup.policy", "compact"},
                 {"compression.type", "uncompressed"},
                 {"min.insync.replicas", std::to_string(c.get_int("transaction.state.log.min.isr"))},
                 {"unclean.leader.election.enable", "false"},
                 {"segment.bytes", std::to_string(c.get_int("transaction.state.log.segment.bytes"))}};
  }
  return t;
}

// Creates the coordinator topic when it does not exist yet.
asio::awaitable<bool> ensure_topic(const broker_services& s, const coordinator_topic& t) {
  auto image = s.metadata->image();
  if (image->topic(t.name)) co_return true;
  // The controller's placer would refuse it (INVALID_REPLICATION_FACTOR):
  // spare it a request per FindCoordinator while brokers are still coming.
  if (image->brokers.size() < static_cast<size_t>(t.replication_factor)) co_return false;
  co_await create_topic(s, std::string(t.name), t.partitions, t.replication_factor, t.configs);
  co_return s.metadata->image()->topic(t.name) != nullptr;
}

asio::awaitable<coordinator_answer> find_coordinator(const request_context& ctx, int8_t key_type,
                                                     const std::string& key) {
  const broker_services& s = *ctx.services;
  const coordinator_topic t = topic_for(s, key_type);
  if (!co_await ensure_topic(s, t)) co_return failed(error_code::coordinator_not_available);
  auto image = s.metadata->image();
  const int32_t index =
      key_type == group_key_type ? s.groups->partition_for(key) : s.txns->partition_for(key);
  const auto* reg = image->partition(t.name, index);
  if (!reg || !reg->has_leader()) co_return failed(error_code::coordinator_not_available);
  auto broker = image->brokers.find(reg->leader);
  if (broker == image->brokers.end()) co_return failed(error_code::coordinator_not_available);
  const auto* endpoint = broker->second.endpoint(ctx.listener_name);
  if (!endpoint) co_return failed(error_code::coordinator_not_available);
  coordinator_answer a;
  a.message = default_message(error_code::none);
  a.node_id = reg->leader.value;
  a.host = endpoint->host;
  a.port = endpoint->port;
  co_return a;
}

asio::awaitable<coordinator_answer> find_one(const request_context& ctx, int8_t key_type, const std::string& key) {
  // DESCRIBE on the group or transactional id first.
  if (key_type == group_key_type && !authorize(ctx, api_acl(10, "group"), key))
    co_return failed(error_code::group_authorization_failed);
  if (key_type == transaction_key_type && !authorize(ctx, api_acl(10, "transactional_id"), key))
    co_return failed(error_code::transactional_id_authorization_failed);
  if (key_type == group_key_type || key_type == transaction_key_type)
    co_return co_await find_coordinator(ctx, key_type, key);
  co_return failed(error_code::invalid_request, "Invalid coordinator type: " + std::to_string(key_type));
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<find_coordinator_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  find_coordinator_response response;
  if (ctx.api_version < 4) {
    coordinator_answer a = co_await find_one(ctx, request->key_type, request->key);
    response.error_code = static_cast<int16_t>(a.error);
    response.error_message = a.message;
    response.node_id = a.node_id;
    response.host = a.host;
    response.port = a.port;
    co_return respond(ctx, response);
  }
  for (const auto& key : request->coordinator_keys) {
    coordinator_answer a = co_await find_one(ctx, request->key_type, key);
    find_coordinator_response::coordinator c;
    c.key = key;
    c.error_code = static_cast<int16_t>(a.error);
    // Kafka's v4 answers leave each key's message empty (its texts are the
    // v0-3 whole-request form's), but for a key type it cannot look up.
    c.error_message = a.error == error_code::invalid_request ? a.message : std::string();
    c.node_id = a.node_id;
    c.host = a.host;
    c.port = a.port;
    response.coordinators.push_back(std::move(c));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler find_coordinator_handler() { return {10, 0, 6, &handle}; }

}  // namespace hw::broker
