#pragma once
// acks=all for writes to several partitions at once (a Produce, a
// WriteTxnMarkers): every partition waits together until its high watermark
// passes what was appended, the deadline (REQUEST_TIMED_OUT), or an error
// (NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank below min ISR,
// NOT_LEADER_OR_FOLLOWER when leadership moved), as Kafka's DelayedProduce.
// Woken by the partitions' HW moves and role changes. Called from the
// request's coroutine (a strand).

#include <algorithm>
#include <chrono>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/partition.h"
#include "broker/replica/partition_waiter.h"
#include "broker/run_on.h"
#include "protocol/error_code.h"

namespace hw::broker {

// Awaiting has `part` (shared_ptr<partition>) and `required`
// (storage::offset); answer(const Awaiting&, error_code) is called once for
// each, in no particular order.
template <class Awaiting, class Answer>
asio::awaitable<void> await_acks(std::vector<Awaiting>& waiting, int32_t timeout_ms, Answer answer) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(timeout_ms, 0));
  auto waiter = partition_waiter::make(co_await asio::this_coro::executor);
  while (!waiting.empty()) {
    // Registered before looking, so that a move in between is not missed.
    waiter->arm();
    auto wake = waiter->waker();
    for (auto& w : waiting) w.part->status().add_waiter(wake);
    std::vector<Awaiting> still;
    for (auto& w : waiting) {
      auto [done, e] = co_await run_on(w.part->strand(), [&] { return w.part->acks_done(w.required); });
      if (done) answer(w, e);
      else still.push_back(w);
    }
    waiting.swap(still);
    if (waiting.empty()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (auto& w : waiting) answer(w, protocol::error_code::request_timed_out);
      break;
    }
    co_await waiter->wait(deadline);
  }
}

}  // namespace hw::broker
