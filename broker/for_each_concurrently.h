#pragma once
// Running one coroutine per item, several at a time, from a coroutine.
//
// for_each_concurrently(items, limit, fn) spawns fn(item) for every item on
// a strand made from the calling coroutine's executor (so they interleave
// there and never run in parallel with each other; on a caller's strand,
// nor with its other work), at most
// `limit` unfinished at once, and resumes the caller once every one has
// finished. An exception thrown by one is rethrown to the caller after the
// others have finished.

#include <cstddef>
#include <exception>
#include <vector>

#include "broker/asio.h"

namespace hw::broker {

namespace detail {
template <typename Item, typename Fn>
asio::awaitable<void> for_each_on_strand(asio::strand<asio::any_io_executor> strand, std::vector<Item>& items,
                                         size_t limit, Fn fn) {
  size_t running = 0;
  std::exception_ptr error;
  asio::steady_timer wake(strand, asio::steady_timer::time_point::max());
  // Completions run on the strand too: `running` is never changed between
  // a check of it and the wait that follows.
  auto wait_below = [&](size_t n) -> asio::awaitable<void> {
    while (running > n) {
      wake.expires_at(asio::steady_timer::time_point::max());
      boost::system::error_code ignored;
      co_await wake.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
  };
  for (auto& item : items) {
    co_await wait_below(limit > 0 ? limit - 1 : 0);
    ++running;
    asio::co_spawn(strand, fn(item), asio::bind_executor(strand, [&](std::exception_ptr e) {
                     if (e && !error) error = e;
                     --running;
                     wake.cancel();
                   }));
  }
  co_await wait_below(0);
  if (error) std::rethrow_exception(error);
}
}  // namespace detail

// The items' coroutines, their completions and the bookkeeping run on one
// strand made from the caller's executor: serialised with each other and,
// when the caller's executor is itself a strand, with the caller's owner.
template <typename Item, typename Fn>
asio::awaitable<void> for_each_concurrently(std::vector<Item>& items, size_t limit, Fn fn) {
  auto strand = asio::make_strand(co_await asio::this_coro::executor);
  co_await asio::co_spawn(strand, detail::for_each_on_strand(strand, items, limit, std::move(fn)),
                          asio::use_awaitable);
}

}  // namespace hw::broker
