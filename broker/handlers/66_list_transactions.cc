// ListTransactions (key 66), versions 0-2: the transactional ids this
// broker coordinates (kafka-transactions.sh list and find-hanging), filtered
// by state, producer id, how long they have been open (v1) and an id
// pattern (v2).
//
// Kafka's rules (TransactionStateManager.listTransactionStates): while any
// of this broker's __transaction_state partitions is loading the answer is
// COORDINATOR_LOAD_IN_PROGRESS alone; state names Kafka does not know are
// echoed in UnknownStateFilters (and, when no name is known, nothing
// matches); ids being expired are left out; the pattern must match the
// whole id, and one that does not compile is INVALID_REGULAR_EXPRESSION.

#include <regex>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "broker/txn/txn_coordinator.h"
#include "protocol/error_code.h"
#include "protocol/messages/list_transactions.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::list_transactions_request;
using protocol::msg::list_transactions_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<list_transactions_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  txn::txn_coordinator& coordinator = *ctx.services->txns;
  list_transactions_response response;

  txn::list_filter filter;
  for (const auto& name : request->state_filters) {
    if (auto state = txn::state_from_name(name)) {
      filter.states.push_back(*state);
    } else {
      response.unknown_state_filters.push_back(name);
    }
  }
  const bool none_can_match = !request->state_filters.empty() && filter.states.empty();
  filter.producer_ids = request->producer_id_filters;
  filter.min_duration_ms = request->duration_filter;
  std::optional<std::regex> pattern;
  if (request->transactional_id_pattern && !request->transactional_id_pattern->empty()) {
    try {
      pattern.emplace(*request->transactional_id_pattern);
    } catch (const std::regex_error&) {
      list_transactions_response refused;
      refused.error_code = static_cast<int16_t>(error_code::invalid_regular_expression);
      co_return respond(ctx, refused);
    }
  }

  const int64_t now_ms = ctx.services->now_ms ? ctx.services->now_ms() : 0;
  for (int32_t partition : coordinator.shard_partitions()) {
    std::vector<txn::txn_description> found;
    const txn::txn_coordinator::read_fn read = [&](const txn::txn_shard& shard) {
      if (!none_can_match) found = shard.states().list(filter, now_ms);
    };
    const error_code e = co_await coordinator.read(partition, read);
    if (e == error_code::coordinator_load_in_progress) {
      list_transactions_response loading;
      loading.error_code = static_cast<int16_t>(e);
      co_return respond(ctx, loading);
    }
    if (e != error_code::none) continue;  // the lead moved meanwhile: not ours to list
    for (const auto& d : found) {
      if (pattern && !std::regex_match(d.transactional_id, *pattern)) continue;
      // Only the transactions the principal may describe.
      if (!authorize(ctx, api_acl(66, "transactional_id"), d.transactional_id)) continue;
      auto& out = response.transaction_states.emplace_back();
      out.transactional_id = d.transactional_id;
      out.producer_id = d.producer_id;
      out.transaction_state = std::string(txn::state_name(d.state));
    }
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler list_transactions_handler() { return {66, 0, 2, &handle}; }

}  // namespace hw::broker
