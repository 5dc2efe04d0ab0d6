#pragma once
// Helpers for the maintenance tests (tests/broker/maintenance_*_test.cc): a
// real log manager in a temporary directory, a replica manager on a small
// io_context, partitions led by this node (ISR = {self}, so the HW follows
// the log end), produce on the partition strand, and an injected clock.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "storage/io/file_system.h"
#include "storage/log_manager.h"
#include "tests/storage/cleaner_support.h"

namespace hw::broker::testing {

using storage::testing::bytes;
using storage::testing::kv;

constexpr int64_t t0 = storage::testing::cleaner_t0;

struct maintenance_env {
  explicit maintenance_env(storage::log_manager_config lm = {}) {
    char tmpl[] = "/tmp/hw-maint-XXXXXX";
    dir = mkdtemp(tmpl);
    fs = storage::make_posix_file_system();
    lm.log_dirs = {dir / "logs"};
    lm.node = storage::node_id(1);
    lm.cluster_id = "MkU3OEVBNTcwNTJENDM2Qg";
    lm.random_seed = 7;
    lm.on_log_event = [this](const std::string& line) {
      std::lock_guard lock(events_mutex);
      events.push_back(line);
    };
    auto err = storage::log_manager::start(*fs, lm, now.load(), &logs);
    EXPECT_FALSE(err) << err.message;
    replicas = std::make_unique<replica_manager>(io.get_executor(), *logs, 1);
    for (int i = 0; i < 2; ++i) threads.emplace_back([this] { io.run(); });
  }
  ~maintenance_env() {
    work.reset();
    io.stop();
    for (auto& t : threads) t.join();
    replicas.reset();
    if (logs) (void)logs->shutdown(storage::broker_epoch(-1));
    std::filesystem::remove_all(dir);
  }

  std::filesystem::path log_dir() const { return dir / "logs"; }

  template <typename T>
  T await(asio::awaitable<T> a) {
    return asio::co_spawn(io, std::move(a), asio::use_future).get();
  }

  std::shared_ptr<partition> add_partition(const storage::topic_partition& tp, const storage::log_config& config) {
    partition_update u;
    u.tp = tp;
    u.topic_id.bytes[0] = 0x12;
    u.topic_id.bytes[15] = static_cast<uint8_t>(tp.partition + 1);
    u.role = partition_role{node_id(1), leader_epoch(0), partition_epoch(0), {node_id(1)}, {node_id(1)}};
    u.log_config = config;
    EXPECT_FALSE(await(replicas->apply({u}, now.load())));
    return replicas->get(tp);
  }

  void remove_partition(const storage::topic_partition& tp) {
    partition_update u;
    u.tp = tp;
    EXPECT_FALSE(await(replicas->apply({u}, now.load())));
  }

  partition_produce_result produce(const std::shared_ptr<partition>& p, bytes batch) {
    return await(run_on(p->strand(), [&] {
      return p->append_records(batch, 1, produce_limits{}, storage::producer_origin::client, now.load());
    }));
  }

  bool saw_event(const std::string& needle) {
    std::lock_guard lock(events_mutex);
    for (const auto& e : events)
      if (e.find(needle) != std::string::npos) return true;
    return false;
  }

  std::function<int64_t()> clock() {
    return [this] { return now.load(); };
  }

  std::filesystem::path dir;
  std::unique_ptr<storage::file_system> fs;
  std::atomic<int64_t> now{t0};
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{io.get_executor()};
  std::vector<std::thread> threads;
  std::unique_ptr<storage::log_manager> logs;
  std::unique_ptr<replica_manager> replicas;
  std::mutex events_mutex;
  std::vector<std::string> events;
};

// Polls pred until it holds or the deadline passes.
inline bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Files in dir whose name ends with suffix.
inline size_t count_files(const std::filesystem::path& dir, const std::string& suffix) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) ++n;
  }
  return n;
}

}  // namespace hw::broker::testing
