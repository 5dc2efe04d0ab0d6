#pragma once
// How a request waits, up to a deadline, for any of several partitions to
// change (an append, a HW move, a role change): a delayed fetch, an acks=all
// produce. The waiting coroutine arms the waiter, registers waker() with
// each partition (partition::add_waiter), looks at the partitions, and
// then calls wait(): a change that came while it looked is not lost.
//
// Partitions call the waker on their own strands. It only posts to the
// waiter's executor (the request's strand), where the flag and the timer
// live, so they are touched by one strand and a wake-up that arrives before
// wait() makes wait() return at once. (A timer cancelled from another
// strand both races with async_wait and is lost when no wait is pending
// yet: an acks=all produce then waited for its whole timeout.)
//
// Ownership and threads: a shared_ptr held by the waiting coroutine; the
// wakers hold it weakly. arm() and wait() on the executor given at
// construction, which must be the coroutine's own (a strand).

#include <chrono>
#include <functional>
#include <memory>

#include "broker/asio.h"

namespace hw::broker {

class partition_waiter : public std::enable_shared_from_this<partition_waiter> {
 public:
  using clock = std::chrono::steady_clock;

  explicit partition_waiter(asio::any_io_executor executor) : executor_(executor), timer_(executor) {}

  static std::shared_ptr<partition_waiter> make(asio::any_io_executor executor) {
    return std::make_shared<partition_waiter>(executor);
  }

  // Forgets earlier wake-ups: call before registering for the next round.
  void arm() { woken_ = false; }

  // For partition::add_waiter; a partition calls it at most once.
  std::shared_ptr<std::function<void()>> waker() {
    return std::make_shared<std::function<void()>>([weak = weak_from_this(), executor = executor_] {
      asio::post(executor, [weak] {
        if (auto self = weak.lock()) {
          self->woken_ = true;
          self->timer_.cancel();
        }
      });
    });
  }

  // Until a wake-up since arm() or the deadline; at once if one came already.
  asio::awaitable<void> wait(clock::time_point deadline) {
    if (woken_) co_return;
    timer_.expires_at(deadline);
    boost::system::error_code ignored;  // cancelled by a wake-up, or the deadline passed
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }

 private:
  asio::any_io_executor executor_;
  asio::steady_timer timer_;
  bool woken_ = false;
};

}  // namespace hw::broker
