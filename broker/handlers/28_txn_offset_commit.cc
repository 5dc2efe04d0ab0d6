// TxnOffsetCommit (key 28), versions 0-5: a transactional producer commits
// a consumer group's offsets inside its transaction
// (sendOffsetsToTransaction). The group's shard writes them as the
// producer's transactional batch in __consumer_offsets; they stay pending
// (OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT) until
// the COMMIT marker makes them the group's offsets, or the ABORT marker
// drops them.
//
// Kafka's rules (KafkaApis.handleTxnOffsetCommitRequest and the group
// coordinator's commitTransactionalOffset): unknown topics and partitions
// are answered here UNKNOWN_TOPIC_OR_PARTITION and never reach the
// coordinator; an empty group id is INVALID_GROUP_ID; a member and
// generation, when given, must be the group's current ones (KIP-447);
// v0-1 clients get COORDINATOR_NOT_AVAILABLE for
// COORDINATOR_LOAD_IN_PROGRESS, which they do not know. Before the first
// offsets of a transaction reach the group's partition, the transaction
// coordinator vouches for that partition (KIP-890; v5 adds it).

#include <algorithm>
#include <chrono>
#include <iterator>

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/topics.h"
#include "broker/txn/txn_verifier.h"
#include "protocol/messages/txn_offset_commit.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::txn_offset_commit_request;
using protocol::msg::txn_offset_commit_response;
using response_topic = txn_offset_commit_response::txn_offset_commit_response_topic;

void add_partition(txn_offset_commit_response& r, const std::string& topic, int32_t partition, error_code e) {
  auto it = std::find_if(r.topics.begin(), r.topics.end(), [&](const response_topic& t) { return t.name == topic; });
  if (it == r.topics.end()) {
    r.topics.push_back({});
    r.topics.back().name = topic;
    it = std::prev(r.topics.end());
  }
  it->partitions.push_back({partition, static_cast<int16_t>(e), {}});
}

void add_all(txn_offset_commit_response& r, const txn_offset_commit_request& request, error_code e) {
  for (const auto& t : request.topics)
    for (const auto& p : t.partitions) add_partition(r, t.name, p.partition_index, e);
}

// KIP-890: unless the producer already has a transaction open in the
// group's __consumer_offsets partition at this epoch, the transaction
// coordinator vouches for (v5, a transactions v2 client: adds) that
// partition first. none, or the error every partition gets, as Kafka's
// group coordinator maps a failed verification; `guard` gets what the
// write must carry (unset when verification is off).
asio::awaitable<error_code> verify(const request_context& ctx, const txn_offset_commit_request& request,
                                   std::optional<storage::verification_guard>* guard) {
  const broker_services& s = *ctx.services;
  if (!s.txn_verifier || !s.groups || !s.replicas) co_return error_code::none;
  *guard = storage::no_verification_guard;
  const int32_t index = s.groups->partition_for(request.group_id);
  auto p = s.replicas->get({std::string(consumer_offsets_topic), index});
  if (!p) co_return error_code::none;  // the shard answers NOT_COORDINATOR
  txn::verify_request v;
  v.transactional_id = request.transactional_id;
  v.producer_id = request.producer_id;
  v.producer_epoch = request.producer_epoch;
  v.partitions.insert({std::string(consumer_offsets_topic), index});
  v.operation = ctx.api_version >= 5 ? txn::verify_operation::add_partition : txn::verify_operation::verify_old_client;
  const auto began = std::chrono::steady_clock::now();
  txn::verify_errors errors;
  do {
    // A fresh guard on each attempt: a marker may have spent the last one.
    const int64_t now_ms = s.now_ms();
    const auto started = co_await run_on(p->strand(), [&] {
      return p->start_transaction_verification(request.producer_id, request.producer_epoch,
                                               v.operation == txn::verify_operation::add_partition, now_ms);
    });
    *guard = started.value_or(storage::no_verification_guard);
    if (!started) co_return error_code::none;  // its transaction is open there
    errors = co_await s.txn_verifier->verify(v);
  } while (co_await s.txn_verifier->wait_to_retry(v, errors, began));
  if (errors.empty()) co_return error_code::none;
  switch (const error_code e = errors.begin()->second) {
    case error_code::unknown_topic_or_partition:
    case error_code::not_enough_replicas:
    case error_code::request_timed_out:
      co_return error_code::coordinator_not_available;
    case error_code::not_leader_or_follower:
    case error_code::kafka_storage_error:
      co_return error_code::not_coordinator;
    default:
      co_return e;
  }
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<txn_offset_commit_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  auto send = [&](txn_offset_commit_response& r) {
    if (version < 2) {
      for (auto& t : r.topics)
        for (auto& p : t.partitions)
          if (p.error_code == static_cast<int16_t>(error_code::coordinator_load_in_progress))
            p.error_code = static_cast<int16_t>(error_code::coordinator_not_available);
    }
    return respond(ctx, r);
  };

  txn_offset_commit_response response;
  // WRITE on the transactional id, then READ on the group (a refusal
  // answers every partition), then READ on each topic.
  if (!authorize(ctx, api_acl(28, "transactional_id"), request->transactional_id)) {
    add_all(response, *request, error_code::transactional_id_authorization_failed);
    co_return send(response);
  }
  if (!authorize(ctx, api_acl(28, "group"), request->group_id)) {
    add_all(response, *request, error_code::group_authorization_failed);
    co_return send(response);
  }
  authorized_names may_read(ctx, api_acl(28, "topic"));
  auto image = ctx.services->metadata->image();
  txn_offset_commit_request known = *request;
  known.topics.clear();
  for (const auto& t : request->topics) {
    if (!may_read(t.name)) {
      for (const auto& p : t.partitions) add_partition(response, t.name, p.partition_index, error_code::topic_authorization_failed);
      continue;
    }
    const auto* topic = image->topic(t.name);
    if (!topic) {
      for (const auto& p : t.partitions) add_partition(response, t.name, p.partition_index, error_code::unknown_topic_or_partition);
      continue;
    }
    txn_offset_commit_request::txn_offset_commit_request_topic valid;
    valid.name = t.name;
    for (const auto& p : t.partitions) {
      if (topic->partitions.contains(p.partition_index)) {
        valid.partitions.push_back(p);
      } else {
        add_partition(response, t.name, p.partition_index, error_code::unknown_topic_or_partition);
      }
    }
    if (!valid.partitions.empty()) known.topics.push_back(std::move(valid));
  }
  if (known.topics.empty()) co_return send(response);
  if (known.group_id.empty()) {
    add_all(response, known, error_code::invalid_group_id);
    co_return send(response);
  }

  std::optional<storage::verification_guard> guard;
  if (const error_code e = co_await verify(ctx, known, &guard); e != error_code::none) {
    add_all(response, known, e);
    co_return send(response);
  }
  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.commit_txn_offsets(token, known, now_ms, guard);
  };
  auto answer = co_await group::call_shard<txn_offset_commit_response>(ctx, known.group_id, issue, &failure);
  if (!answer) {
    add_all(response, known, failure);
    co_return send(response);
  }
  for (const auto& t : answer->topics)
    for (const auto& p : t.partitions) add_partition(response, t.name, p.partition_index, static_cast<error_code>(p.error_code));
  co_return send(response);
}

}  // namespace

api_handler txn_offset_commit_handler() { return {28, 0, 5, &handle}; }

}  // namespace hw::broker
