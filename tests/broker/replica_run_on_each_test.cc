// run_on_each, with which a replica's fetch visits every partition of its
// session on the partition's own strand: each call runs on the strand it
// names, calls on different strands may overlap, the caller resumes on its
// own executor only after the last call, and an exception reaches it after
// every other call has run.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "broker/run_on.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;
using strand_type = asio::strand<asio::io_context::executor_type>;

struct RunOnEach : ::testing::Test {
  asio::io_context io;
  strand_type caller = asio::make_strand(io);
  std::vector<strand_type> strands;

  RunOnEach() {
    for (int i = 0; i < 40; ++i) strands.push_back(asio::make_strand(io));
  }

  // Runs body on the caller's strand with two threads; whether it finished.
  template <typename Body>
  bool run(Body body) {
    std::atomic<bool> finished{false};
    std::exception_ptr failure;
    asio::co_spawn(caller, body(), [&](std::exception_ptr e) {
      failure = e;
      finished = true;
    });
    std::thread second([&] { io.run_for(10s); });
    io.run_for(10s);
    second.join();
    if (failure) std::rethrow_exception(failure);
    return finished;
  }
};

TEST_F(RunOnEach, EveryCallRunsOnItsStrandAndTheCallerResumesAfterTheLast) {
  std::vector<int> on_own_strand(strands.size(), 0);
  std::atomic<int> calls{0};
  bool resumed_after_all = false, resumed_on_caller = false;
  ASSERT_TRUE(run([&]() -> asio::awaitable<void> {
    co_await run_on_each(
        strands.size(), [&](size_t i) -> strand_type& { return strands[i]; },
        [&](size_t i) {
          on_own_strand[i] = strands[i].running_in_this_thread() && !caller.running_in_this_thread() ? 1 : -1;
          // Calls of different lengths, so that an early resume would be seen.
          std::this_thread::sleep_for(std::chrono::microseconds(100 * (i % 3)));
          ++calls;
        });
    resumed_after_all = calls.load() == static_cast<int>(strands.size());
    resumed_on_caller = caller.running_in_this_thread();
  }));
  EXPECT_TRUE(resumed_after_all);
  EXPECT_TRUE(resumed_on_caller);
  EXPECT_EQ(on_own_strand, std::vector<int>(strands.size(), 1));
}

TEST_F(RunOnEach, NothingToDoResumesAtOnce) {
  EXPECT_TRUE(run([&]() -> asio::awaitable<void> {
    co_await run_on_each(0, [&](size_t i) -> strand_type& { return strands[i]; }, [](size_t) { FAIL(); });
  }));
}

TEST_F(RunOnEach, AFailureReachesTheCallerAfterTheOthersRan) {
  std::atomic<int> done{0};
  bool caught = false;
  ASSERT_TRUE(run([&]() -> asio::awaitable<void> {
    try {
      co_await run_on_each(
          strands.size(), [&](size_t i) -> strand_type& { return strands[i]; },
          [&](size_t i) {
            if (i == 3) throw std::runtime_error("call 3 failed");
            ++done;
          });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "call 3 failed";
    }
  }));
  EXPECT_TRUE(caught);
  EXPECT_EQ(done.load(), static_cast<int>(strands.size()) - 1);
}

}  // namespace
}  // namespace hw::broker
