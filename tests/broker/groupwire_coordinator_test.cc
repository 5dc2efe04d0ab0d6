// The group coordinator's asio glue on a real replica manager and log:
// shards load when this broker becomes leader of a __consumer_offsets
// partition and refuse requests when it stops; commits are written to the
// partition and read back by the next load; parked JoinGroups are answered
// by the shard's timer; the client host is read from the connection name.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "broker/asio.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/group_request_support.h"
#include "broker/replica/replica_manager.h"
#include "storage/io/file_system.h"
#include "storage/log_manager.h"

namespace hw::broker::group {
namespace {

using namespace std::chrono_literals;
using protocol::error_code;
namespace msg = protocol::msg;

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A log manager in a temporary directory, a replica manager on two
// threads, and a coordinator listening to it.
struct env {
  explicit env(group_config config = {}) {
    char tmpl[] = "/tmp/hw-groupwire-XXXXXX";
    dir = mkdtemp(tmpl);
    fs = storage::make_posix_file_system();
    storage::log_manager_config lm;
    lm.log_dirs = {dir / "logs"};
    lm.node = storage::node_id(1);
    lm.cluster_id = "MkU3OEVBNTcwNTJENDM2Qg";
    lm.random_seed = 7;
    auto err = storage::log_manager::start(*fs, lm, wall_ms(), &logs);
    EXPECT_FALSE(err) << err.message;
    replicas = std::make_unique<replica_manager>(io.get_executor(), *logs, 1);
    coordinator_options options;
    options.group = config;
    options.num_partitions = 1;
    options.random_seed = 42;
    coordinator = std::make_unique<group_coordinator>(*replicas, options, wall_ms);
    replicas->set_leadership_listener(
        [this](const storage::topic_partition& tp, bool leader, int32_t epoch) {
          coordinator->on_leadership(tp, leader, epoch);
        });
    for (int i = 0; i < 2; ++i) threads.emplace_back([this] { io.run(); });
  }
  ~env() {
    await(coordinator->stop());
    work.reset();
    io.stop();
    for (auto& t : threads) t.join();
    coordinator.reset();
    replicas.reset();
    if (logs) (void)logs->shutdown(storage::broker_epoch(-1));
    std::filesystem::remove_all(dir);
  }

  template <typename T>
  T await(asio::awaitable<T> a) {
    return asio::co_spawn(io, std::move(a), asio::use_future).get();
  }
  void await(asio::awaitable<void> a) { asio::co_spawn(io, std::move(a), asio::use_future).get(); }

  std::shared_ptr<partition> lead_offsets_partition(int32_t epoch) {
    partition_update u;
    u.tp = {"__consumer_offsets", 0};
    u.topic_id.bytes[0] = 0x42;
    u.role = partition_role{node_id(1), leader_epoch(epoch), partition_epoch(epoch), {node_id(1)}, {node_id(1)}};
    EXPECT_FALSE(await(replicas->apply({u}, wall_ms())));
    return replicas->get(u.tp);
  }

  group_coordinator::submitted heartbeat(const std::string& group) {
    msg::heartbeat_request r;
    r.group_id = group;
    r.generation_id = 1;
    r.member_id = "m";
    return await(coordinator->submit(0, [r](group_shard& s, request_token t, int64_t now) {
      s.heartbeat(t, 4, r, now);
    }));
  }

  // Waits (with a deadline) until the shard answers something other than
  // COORDINATOR_LOAD_IN_PROGRESS.
  bool wait_loaded() {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto r = heartbeat("probe");
      if (r.answer) {
        auto& hb = std::get<msg::heartbeat_response>(*r.answer);
        if (hb.error_code != static_cast<int16_t>(error_code::coordinator_load_in_progress)) return true;
      }
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

  error_code commit(const std::string& group, const std::string& topic, int32_t partition, int64_t offset) {
    msg::offset_commit_request r;
    r.group_id = group;
    r.generation_id_or_member_epoch = -1;
    auto& t = r.topics.emplace_back();
    t.name = topic;
    auto& p = t.partitions.emplace_back();
    p.partition_index = partition;
    p.committed_offset = offset;
    auto got = await(coordinator->submit(0, [r](group_shard& s, request_token token, int64_t now) {
      s.commit_offsets(token, 9, r, now);
    }));
    if (!got.answer) return got.error;
    auto& resp = std::get<msg::offset_commit_response>(*got.answer);
    return static_cast<error_code>(resp.topics.at(0).partitions.at(0).error_code);
  }

  // The committed offset, or -1; nullopt when the shard did not answer.
  std::optional<int64_t> fetch(const std::string& group, const std::string& topic, int32_t partition) {
    msg::offset_fetch_request::offset_fetch_request_group g;
    g.group_id = group;
    auto& t = g.topics->emplace_back();
    t.name = topic;
    t.partition_indexes = {partition};
    auto got = await(coordinator->submit(0, [g](group_shard& s, request_token token, int64_t) {
      s.fetch_offsets(token, g, false);
    }));
    if (!got.answer) return std::nullopt;
    auto& resp = std::get<offset_fetch_group_response>(*got.answer);
    if (resp.error_code != 0 || resp.topics.empty()) return std::nullopt;
    return resp.topics[0].partitions.at(0).committed_offset;
  }

  std::filesystem::path dir;
  std::unique_ptr<storage::file_system> fs;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{io.get_executor()};
  std::vector<std::thread> threads;
  std::unique_ptr<storage::log_manager> logs;
  std::unique_ptr<replica_manager> replicas;
  std::unique_ptr<group_coordinator> coordinator;
};

TEST(GroupwireClientHost, ReadFromTheConnectionName) {
  EXPECT_EQ(client_host_of("127.0.0.1:9092-127.0.0.1:53422-7"), "/127.0.0.1");
  EXPECT_EQ(client_host_of("10.0.0.1:9092-192.168.1.20:1-0"), "/192.168.1.20");
  EXPECT_EQ(client_host_of("::1:9092-::1:5000-3"), "/::1");
  EXPECT_EQ(client_host_of(""), "");
  EXPECT_EQ(client_host_of("nonsense"), "");
}

TEST(GroupwireCoordinator, NoShardBeforeLeadershipThenCommitsAreWrittenToThePartition) {
  env e;
  auto before = e.heartbeat("g");
  EXPECT_FALSE(before.answer);
  EXPECT_EQ(before.error, error_code::not_coordinator);

  auto p = e.lead_offsets_partition(0);
  ASSERT_TRUE(p);
  ASSERT_TRUE(e.wait_loaded());
  const int64_t end_before = p->log_end_offset().value;
  ASSERT_EQ(e.commit("g", "orders", 3, 17), error_code::none);
  // Acknowledged only once durable: the record is in the log below the HW.
  EXPECT_EQ(p->log_end_offset().value, end_before + 1);
  EXPECT_GE(p->high_watermark().value, end_before + 1);
  EXPECT_EQ(e.fetch("g", "orders", 3), 17);
  EXPECT_EQ(e.fetch("g", "orders", 4), -1);
}

TEST(GroupwireCoordinator, LosingLeadershipUnloadsAndRegainingItReloadsFromTheLog) {
  env e;
  auto p = e.lead_offsets_partition(0);
  ASSERT_TRUE(e.wait_loaded());
  ASSERT_EQ(e.commit("g", "orders", 0, 5), error_code::none);
  ASSERT_EQ(e.commit("g", "orders", 0, 9), error_code::none);
  ASSERT_EQ(e.commit("other", "t", 1, 2), error_code::none);

  e.coordinator->on_leadership({"__consumer_offsets", 0}, false, -1);
  auto gone = e.heartbeat("g");
  // The partition is still led here by the replica manager's account, so
  // the answer is "loading" rather than "not coordinator".
  EXPECT_FALSE(gone.answer);
  EXPECT_EQ(gone.error, error_code::coordinator_load_in_progress);
  EXPECT_TRUE(e.coordinator->shard_partitions().empty());

  e.coordinator->on_leadership({"__consumer_offsets", 0}, true, 1);
  ASSERT_TRUE(e.wait_loaded());
  EXPECT_EQ(e.fetch("g", "orders", 0), 9);
  EXPECT_EQ(e.fetch("other", "t", 1), 2);
}

TEST(GroupwireCoordinator, ParkedJoinIsAnsweredByTheShardTimer) {
  group_config config;
  config.initial_rebalance_delay_ms = 100;
  env e(config);
  e.lead_offsets_partition(0);
  ASSERT_TRUE(e.wait_loaded());
  msg::join_group_request r;
  r.group_id = "joiners";
  r.session_timeout_ms = 10000;
  r.rebalance_timeout_ms = 10000;
  r.member_id = "";
  r.protocol_type = "consumer";
  auto& proto = r.protocols.emplace_back();
  proto.name = "range";
  client_info client{"c1", "/127.0.0.1"};
  // v3: a new member is admitted at once (no MEMBER_ID_REQUIRED round).
  const auto start = std::chrono::steady_clock::now();
  auto got = e.await(e.coordinator->submit(0, [r, client](group_shard& s, request_token t, int64_t now) {
    s.join_group(t, 3, client, r, now);
  }));
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(got.answer);
  auto& join = std::get<msg::join_group_response>(*got.answer);
  EXPECT_EQ(join.error_code, 0);
  EXPECT_EQ(join.generation_id, 1);
  EXPECT_EQ(join.leader, join.member_id);
  // The answer came from the initial rebalance delay's timer.
  EXPECT_GE(waited, 90ms);
}

}  // namespace
}  // namespace hw::broker::group
