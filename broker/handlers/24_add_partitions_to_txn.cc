// AddPartitionsToTxn (key 24), versions 0-5: a transactional producer adds
// partitions to its transaction (v0-3, one transaction), or a partition
// leader checks or adds them for a producer's write (v4+, batched by
// transactional id; VerifyOnly for KIP-890 part 1's verification).
//
// Kafka's rules (KafkaApis.handleAddPartitionsToTxnRequest): partitions of
// topics the metadata does not know are UNKNOWN_TOPIC_OR_PARTITION and the
// others of that transaction OPERATION_NOT_ATTEMPTED; otherwise the
// coordinator's one answer goes to every partition (broker/txn/txn_shard.h),
// or, verify-only, its answer per partition. v4+ adds partitions for a
// transactions-v2 client (the partition leader adds them at its first
// write); v0-3 comes from version 0-1 clients. Authorization: a client
// needs WRITE on the transactional id (else every partition is refused)
// and on each topic (refused ones TOPIC_AUTHORIZATION_FAILED, internal
// topics always, and the rest OPERATION_NOT_ATTEMPTED); a broker needs
// CLUSTER_ACTION.

#include <set>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "broker/txn/txn_requests.h"
#include "protocol/error_code.h"
#include "protocol/messages/add_partitions_to_txn.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::add_partitions_to_txn_request;
using protocol::msg::add_partitions_to_txn_response;
using topic_results = std::vector<add_partitions_to_txn_response::add_partitions_to_txn_topic_result>;

topic_results results_for(const std::vector<add_partitions_to_txn_request::add_partitions_to_txn_topic>& topics,
                          const std::function<error_code(const std::string&, int32_t)>& error_of) {
  topic_results out;
  for (const auto& t : topics) {
    auto& r = out.emplace_back();
    r.name = t.name;
    for (int32_t p : t.partitions) {
      auto& pr = r.results_by_partition.emplace_back();
      pr.partition_index = p;
      pr.partition_error_code = static_cast<int16_t>(error_of(t.name, p));
    }
  }
  return out;
}

asio::awaitable<topic_results> one_transaction(const request_context& ctx, const std::string& id,
                                               txn::producer_id_and_epoch producer, bool verify_only,
                                               int16_t client_version,
                                               const std::vector<add_partitions_to_txn_request::add_partitions_to_txn_topic>& topics) {
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  // A client (v0-3) needs WRITE on the transactional id, then on each
  // topic; internal topics are never a client's to add.
  const bool from_client = ctx.api_version < 4;
  if (from_client && !authorize(ctx, api_acl(24, "transactional_id"), id))
    co_return results_for(topics, [](const std::string&, int32_t) {
      return error_code::transactional_id_authorization_failed;
    });
  authorized_names may_write(ctx, api_acl(24, "topic"));
  std::set<std::string> unknown;
  std::set<std::string> refused;
  txn::txn_partitions partitions;
  for (const auto& t : topics) {
    if (from_client && (is_internal_topic(t.name) || !may_write(t.name))) {
      refused.insert(t.name);
      continue;
    }
    for (int32_t p : t.partitions) {
      if (!image->partition(t.name, p)) unknown.insert(t.name);
      partitions.emplace(t.name, p);
    }
  }
  if (!unknown.empty() || !refused.empty()) {
    co_return results_for(topics, [&](const std::string& topic, int32_t p) {
      if (refused.contains(topic)) return error_code::topic_authorization_failed;
      if (!image->partition(topic, p)) return error_code::unknown_topic_or_partition;
      return error_code::operation_not_attempted;
    });
  }
  txn::txn_coordinator& coordinator = *s.txns;
  const int32_t shard = coordinator.partition_for(id);
  if (verify_only) {
    std::map<txn::txn_topic_partition, error_code> verdicts;
    const txn::txn_coordinator::read_fn verify = [&](const txn::txn_shard& sh) {
      for (auto& [tp, e] : sh.verify_partitions(id, producer, partitions)) verdicts[tp] = e;
    };
    const error_code e = co_await coordinator.read(shard, verify);
    co_return results_for(topics, [&](const std::string& topic, int32_t p) {
      if (e != error_code::none) return e;
      auto it = verdicts.find({topic, p});
      return it == verdicts.end() ? error_code::unknown_server_error : it->second;
    });
  }
  auto needs = [](const txn::txn_shard&) { return false; };
  auto issue = [&](txn::txn_shard& sh, txn::request_token token, std::optional<int64_t>, int64_t now) {
    sh.add_partitions(token, id, producer, partitions, client_version, now);
  };
  error_code e = error_code::none;
  auto answer = co_await txn::call_txn_shard<error_code>(s, id, needs, issue, &e);
  if (answer) e = *answer;
  co_return results_for(topics, [&](const std::string&, int32_t) { return e; });
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<add_partitions_to_txn_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  add_partitions_to_txn_response response;
  if (ctx.api_version < 4) {
    response.results_by_topic_v3_and_below = co_await one_transaction(
        ctx, request->v3_and_below_transactional_id,
        {request->v3_and_below_producer_id, request->v3_and_below_producer_epoch}, false, 0,
        request->v3_and_below_topics);
    co_return respond(ctx, response);
  }
  // Brokers verifying a producer's write: CLUSTER_ACTION, else the whole
  // request is refused.
  if (!authorize(ctx, api_acl(24, "cluster"))) {
    response.error_code = static_cast<int16_t>(error_code::cluster_authorization_failed);
    co_return respond(ctx, response);
  }
  for (const auto& t : request->transactions) {
    auto& r = response.results_by_transaction.emplace_back();
    r.transactional_id = t.transactional_id;
    // A partition leader adding a transactions-v2 producer's partition.
    r.topic_results = co_await one_transaction(ctx, t.transactional_id, {t.producer_id, t.producer_epoch},
                                               t.verify_only, 2, t.topics);
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler add_partitions_to_txn_handler() { return {24, 0, 5, &handle}; }

}  // namespace hw::broker
