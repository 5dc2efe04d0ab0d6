#pragma once
// Running work on another owner's strand from a coroutine.
//
// `co_await asio::post(strand, use_awaitable)` does not move a coroutine
// onto a strand: the coroutine resumes on its own executor. To run code
// serialised with an owner, spawn it there and wait for the result; the
// caller resumes on its own executor afterwards.

#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
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

// Calls f(i) for every i in [0, n) on strand_of(i) and resumes the caller
// once every call has returned; calls on different strands may run at the
// same time. One post per call and no coroutine per call: what a fetch uses
// to visit each partition of its session on the partition's own strand,
// where n run_on calls in turn cost a spawned coroutine and three
// scheduler hand-offs each. The first exception f throws is rethrown to the
// caller after every call has ended (f must not keep references past its
// call: the caller's frame is only suspended while they run).
template <typename StrandOf, typename F>
asio::awaitable<void> run_on_each(size_t n, StrandOf strand_of, F f) {
  if (n == 0) co_return;
  co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(std::exception_ptr)>(
      [n, &strand_of, &f](auto handler) {
        using handler_type = decltype(handler);
        struct state {
          state(size_t count, handler_type h) : left(count), handler(std::move(h)) {}
          std::atomic<size_t> left;
          std::atomic_flag failed;
          std::exception_ptr error;
          handler_type handler;
        };
        auto shared = std::make_shared<state>(n, std::move(handler));
        for (size_t i = 0; i < n; ++i) {
          asio::post(strand_of(i), [shared, &f, i] {
            try {
              f(i);
            } catch (...) {
              if (!shared->failed.test_and_set()) shared->error = std::current_exception();
            }
            if (shared->left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
            // The last call resumes the caller on the caller's executor.
            auto ex = asio::get_associated_executor(shared->handler);
            asio::post(ex, [shared]() mutable { std::move(shared->handler)(shared->error); });
          });
        }
      },
      asio::use_awaitable);
}

// Runs the coroutine made by make() on ex and returns its result.
template <typename Executor, typename Make>
auto run_coroutine_on(Executor ex, Make make) -> decltype(make()) {
  co_return co_await asio::co_spawn(ex, make(), asio::use_awaitable);
}

}  // namespace hw::broker
