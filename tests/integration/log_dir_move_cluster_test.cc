// Moving replicas between log dirs on three nodes (each with two dirs)
// while a producer writes acks=all: the leader's and a follower's replica
// move at once, and the leader is stopped (SIGTERM) in the middle; after it
// comes back, its replica is in one dir only (the move finished, or it was
// dropped with the restart), the follower's move has finished, no
// acknowledged record is missing, and the three replicas hold the same bytes.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/describe_log_dirs.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

class LogDirMoveClusterIT : public replication_cluster {
 protected:
  std::vector<std::string> node_overrides(int i) const override {
    return {"log.dirs=" + nodes[i]->dir() + "/data," + nodes[i]->dir() + "/data2"};
  }

  struct copy {
    std::string dir;
    bool future = false;
    int64_t size = 0;
  };
  std::vector<copy> copies(int i, const std::string& topic) {
    raw_client client(at(i));
    msg::describe_log_dirs_request req;
    req.topics.reset();
    auto resp = client.call<msg::describe_log_dirs_response>(35, 4, req);
    std::vector<copy> out;
    if (!resp) return out;
    for (const auto& d : resp->results)
      for (const auto& t : d.topics)
        for (const auto& p : t.partitions)
          if (t.name == topic && p.partition_index == 0) out.push_back({d.log_dir, p.is_future_key, p.partition_size});
    return out;
  }
  int16_t move(int i, const std::string& topic, const std::string& dir) {
    raw_client client(at(i));
    msg::alter_replica_log_dirs_request req;
    auto& d = req.dirs.emplace_back();
    d.path = dir;
    auto& t = d.topics.emplace_back();
    t.name = topic;
    t.partitions = {0};
    auto resp = client.call<msg::alter_replica_log_dirs_response>(34, 2, req);
    if (!resp || resp->results.size() != 1 || resp->results[0].partitions.size() != 1) return -1;
    return resp->results[0].partitions[0].error_code;
  }
  std::string other_dir(int i, const std::string& dir) const {
    const std::string first = nodes[i]->dir() + "/data";
    return dir == first ? first + "2" : first;
  }
};

TEST_F(LogDirMoveClusterIT, LeaderAndFollowerMoveWhileTheLeaderRestarts) {
  create_placed("spread", {1, 2, 3});
  const std::map<std::string, std::string> safe{{"enable.idempotence", "true"}, {"message.timeout.ms", "60000"}};
  std::vector<rd_record> acked = produce_all(at(1), "spread", messages("before-", 4000), "all", nullptr, safe);
  ASSERT_EQ(acked.back().offset, 3999) << logs();

  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::thread producer([&] {
    for (int round = 0; !stop.load(); ++round) {
      auto more = produce_all(at(2), "spread", messages("r" + std::to_string(round) + "-", 100), "all", nullptr, safe);
      std::lock_guard lock(mutex);
      acked.insert(acked.end(), more.begin(), more.end());
    }
  });

  std::array<std::string, 2> from, to;
  for (int i : {0, 1}) {
    auto c = copies(i, "spread");
    ASSERT_EQ(c.size(), 1u) << logs();
    from[i] = c[0].dir;
    to[i] = other_dir(i, from[i]);
    EXPECT_EQ(move(i, "spread", to[i]), 0) << logs();
  }
  // The leader stops in the middle of its move (or just after it).
  ASSERT_EQ(nodes[0]->stop(SIGTERM, 30s), 0) << logs();
  ASSERT_TRUE(start_node(0)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_is(1, "spread", {1, 2, 3}); }, 30s)) << logs();

  EXPECT_TRUE(wait_until(
      [&] {
        auto c = copies(1, "spread");
        return c.size() == 1 && c[0].dir == to[1] && !c[0].future;
      },
      30s))
      << "the follower's move did not finish\n"
      << logs();
  auto leader_copy = copies(0, "spread");
  ASSERT_EQ(leader_copy.size(), 1u) << "one copy, no future left after the restart";
  EXPECT_FALSE(leader_copy[0].future);
  EXPECT_TRUE(leader_copy[0].dir == from[0] || leader_copy[0].dir == to[0]) << leader_copy[0].dir;

  stop = true;
  producer.join();
  for (const auto& r : acked) ASSERT_GE(r.offset, 0) << "a write failed\n" << logs();
  const int64_t end = acked.back().offset + 1;
  auto read = read_from_beginning(at(1), "spread", end);
  std::set<int64_t> seen;
  for (const auto& r : read) seen.insert(r.offset);
  for (const auto& r : acked) EXPECT_TRUE(seen.count(r.offset)) << "offset " << r.offset << " missing";
  // Followers catch up: every replica holds the same bytes.
  EXPECT_TRUE(wait_until(
      [&] {
        std::set<int64_t> sizes;
        for (int i = 0; i < 3; ++i) {
          auto c = copies(i, "spread");
          if (c.size() != 1) return false;
          sizes.insert(c[0].size);
        }
        return sizes.size() == 1;
      },
      30s))
      << logs();
}

}  // namespace
}  // namespace hw::testing
