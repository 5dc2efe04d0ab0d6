#pragma once
// Running one coroutine per item, several at a time, from a coroutine.
//
// for_each_concurrently(items, limit, fn) spawns fn(item) for every item on
// the calling coroutine's executor (so, on a strand, they interleave there
// and never run in parallel with each other or with the caller), at most
// `limit` unfinished at once, and resumes the caller once every one has
// finished. An exception thrown by one is rethrown to the caller after the
// others have finished.

#include <cstddef>
#include <exception>
#include <vector>

#include "broker/asio.h"

namespace hw::broker {

template <typename Item, typename Fn>
asio::awaitable<void> for_each_concurrently(std::vector<Item>& items, size_t limit, Fn fn) {
  auto executor = co_await asio::this_coro::executor;
  size_t running = 0;
  std::exception_ptr error;
  asio::steady_timer wake(executor, asio::steady_timer::time_point::max());
  // Completions run on `executor` too: `running` is never changed between
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
    asio::co_spawn(executor, fn(item), [&](std::exception_ptr e) {
      if (e && !error) error = e;
      --running;
      wake.cancel();
    });
  }
  co_await wait_below(0);
  if (error) std::rethrow_exception(error);
}

}  // namespace hw::broker
