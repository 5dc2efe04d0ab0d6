#pragma once
// How a request waits, up to a deadline, for any of several partitions to
// change (an append, a HW move, a role change): a delayed fetch, an acks=all
// produce. The waiting coroutine arms the waiter, registers waker() with
// each partition (partition_status::add_waiter), looks at the partitions, and
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

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "broker/asio.h"

namespace hw::broker {

class partition_waiter : public std::enable_shared_from_this<partition_waiter> {
 public:
  using clock = std::chrono::steady_clock;

  explicit partition_waiter(asio::any_io_executor executor) : executor_(executor), timer_(executor) {}

  static std::shared_ptr<partition_waiter> make(asio::any_io_executor executor) {
    return std::make_shared<partition_waiter>(executor);
  }

  // Forgets earlier wake-ups and drops the round's waker (the partitions
  // registered with it then forget it): call before registering for the
  // next round.
  void arm() {
    woken_ = false;
    waker_.reset();
  }

  // For partition_status::add_waiter, which holds it weakly: this waiter keeps it
  // until the next arm() or its end. A partition calls it at most once.
  std::shared_ptr<std::function<void()>> waker() {
    if (!waker_)
      waker_ = std::make_shared<std::function<void()>>([weak = weak_from_this(), executor = executor_] {
        asio::post(executor, [weak] {
          if (auto self = weak.lock()) {
            self->woken_ = true;
            self->timer_.cancel();
          }
        });
      });
    return waker_;
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
  std::shared_ptr<std::function<void()>> waker_;
};

// The wake-ups registered with one partition until its next change. Held
// weakly: a waiter that stopped waiting (its fetch was answered because
// another partition moved) has dropped its waker, and the dropped ones are
// pruned as the list grows, so an idle partition does not collect a
// wake-up from every fetch that read it. Not thread-safe: the partition
// guards it with its mutex.
class wake_list {
 public:
  void add(const std::shared_ptr<std::function<void()>>& waker) {
    if (wakers_.size() >= prune_at_) {
      std::erase_if(wakers_, [](const auto& w) { return w.expired(); });
      prune_at_ = std::max<size_t>(k_min_prune, 2 * wakers_.size());
    }
    wakers_.push_back(waker);
  }
  // Every waker still held by its waiter; the list is then empty.
  std::vector<std::shared_ptr<std::function<void()>>> take() {
    std::vector<std::shared_ptr<std::function<void()>>> out;
    out.reserve(wakers_.size());
    for (auto& w : wakers_)
      if (auto f = w.lock()) out.push_back(std::move(f));
    wakers_.clear();
    prune_at_ = k_min_prune;
    return out;
  }
  size_t size() const { return wakers_.size(); }

 private:
  static constexpr size_t k_min_prune = 16;
  std::vector<std::weak_ptr<std::function<void()>>> wakers_;
  size_t prune_at_ = k_min_prune;
};

}  // namespace hw::broker
