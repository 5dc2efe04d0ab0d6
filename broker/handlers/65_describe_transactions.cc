// DescribeTransactions (key 65), version 0: the state of transactional ids
// whose coordinator is this broker (kafka-transactions.sh describe).
//
// Kafka's rules (TransactionCoordinator.handleDescribeTransactions): an
// empty id is INVALID_REQUEST; an id this broker does not coordinate
// NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS while its partition loads);
// an unknown or expiring id TRANSACTIONAL_ID_NOT_FOUND; otherwise the
// producer id and epoch, the state's name, the timeout, the start time and
// the partitions in the transaction, by topic.

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "broker/txn/txn_coordinator.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_transactions.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_transactions_request;
using protocol::msg::describe_transactions_response;
using transaction_state = describe_transactions_response::transaction_state;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_transactions_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  txn::txn_coordinator& coordinator = *ctx.services->txns;
  describe_transactions_response response;
  for (const std::string& id : request->transactional_ids) {
    transaction_state& out = response.transaction_states.emplace_back();
    out.transactional_id = id;
    if (!authorize(ctx, api_acl(65, "transactional_id"), id)) {  // DESCRIBE on the id first
      out.error_code = static_cast<int16_t>(error_code::transactional_id_authorization_failed);
      continue;
    }
    if (id.empty()) {
      out.error_code = static_cast<int16_t>(error_code::invalid_request);
      continue;
    }
    std::optional<txn::txn_description> found;
    const txn::txn_coordinator::read_fn read = [&](const txn::txn_shard& shard) {
      found = shard.states().describe(id);
    };
    const error_code e = co_await coordinator.read(coordinator.partition_for(id), read);
    if (e != error_code::none) {
      out.error_code = static_cast<int16_t>(e);
      continue;
    }
    if (!found) {
      out.error_code = static_cast<int16_t>(error_code::transactional_id_not_found);
      continue;
    }
    out.producer_id = found->producer_id;
    out.producer_epoch = found->producer_epoch;
    out.transaction_state = std::string(txn::state_name(found->state));
    out.transaction_timeout_ms = found->timeout_ms;
    out.transaction_start_time_ms = found->start_ms;
    for (const auto& [topic, partition] : found->partitions) {
      if (out.topics.empty() || out.topics.back().topic != topic) {
        out.topics.emplace_back();
        out.topics.back().topic = topic;
      }
      out.topics.back().partitions.push_back(partition);
    }
    // Only the partitions of topics the principal may describe.
    std::erase_if(out.topics, [&](const auto& t) { return !authorize(ctx, api_acl(65, "topic"), t.topic); });
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_transactions_handler() { return {65, 0, 0, &handle}; }

}  // namespace hw::broker
