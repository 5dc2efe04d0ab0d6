#pragma once
// What the transaction handlers share: sending a request to the shard that
// coordinates a transactional id, fetching a new producer id first when
// the shard says the request needs one. Handlers call these from their
// connection's strand.

#include <optional>
#include <string>

#include "broker/asio.h"
#include "broker/producer_id_manager.h"
#include "broker/services.h"
#include "broker/txn/txn_coordinator.h"

namespace hw::broker::txn {

// Asks the shard of `transactional_id` whether it needs a producer id
// (`needs`, run on its strand), fetches one if so, then submits the request
// (`issue` gets the id). Returns the answer of type R, or nothing with
// *error set when no shard here can take it or no id could be had.
template <typename R, typename Needs, typename Issue>
asio::awaitable<std::optional<R>> call_txn_shard(const broker_services& s, const std::string& transactional_id,
                                                 Needs needs, Issue issue, protocol::error_code* error) {
  txn_coordinator& coordinator = *s.txns;
  const int32_t partition = coordinator.partition_for(transactional_id);
  bool wants_id = false;
  const txn_coordinator::read_fn ask = [&](const txn_shard& shard) { wants_id = needs(shard); };
  if (auto e = co_await coordinator.read(partition, ask); e != protocol::error_code::none) {
    *error = e;
    co_return std::nullopt;
  }
  std::optional<int64_t> fresh;
  if (wants_id) {
    if (!s.producer_ids) {
      *error = protocol::error_code::coordinator_not_available;
      co_return std::nullopt;
    }
    producer_id_result next = co_await s.producer_ids->next_id();
    if (next.error != protocol::error_code::none) {
      *error = next.error;
      co_return std::nullopt;
    }
    fresh = next.id;
  }
  const txn_coordinator::issue_fn run = [&](txn_shard& shard, request_token token, int64_t now_ms) {
    issue(shard, token, fresh, now_ms);
  };
  co_return co_await call_coordinator<R>(coordinator, partition, run, error);
}

}  // namespace hw::broker::txn
