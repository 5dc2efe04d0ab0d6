#pragma once
// Running work on another owner's strand from a coroutine.
//
// `co_await asio::post(strand, use_awaitable)` does not move a coroutine
// onto a strand: the coroutine resumes on its own executor. To run code
// serialised with an owner, spawn it there and wait for the result; the
// caller resumes on its own executor afterwards.

#include <type_traits>
#include <utility>

#include "broker/asio.h"

namespace hw::broker {

// Calls f() on ex (a strand) and returns its result.
template <typename Executor, typename F>
asio::awaitable<std::invoke_result_t<F&>> run_on(Executor ex, F f) {
  using R = std::invoke_result_t<F&>;
  if constexpr (std::is_void_v<R>) {
    co_await asio::co_spawn(
        ex, [f = std::move(f)]() mutable -> asio::awaitable<void> { f(); co_return; }, asio::use_awaitable);
  } else {
    co_return co_await asio::co_spawn(
        ex, [f = std::move(f)]() mutable -> asio::awaitable<R> { co_return f(); }, asio::use_awaitable);
  }
}

// Runs the coroutine made by make() on ex and returns its result.
template <typename Executor, typename Make>
auto run_coroutine_on(Executor ex, Make make) -> decltype(make()) {
  co_return co_await asio::co_spawn(ex, make(), asio::use_awaitable);
}

}  // namespace hw::broker
