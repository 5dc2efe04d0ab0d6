#pragma once
// Three combined nodes (broker and controller in each, as in a three-broker
// docker-compose file) on 127.0.0.1, for the replication tests: replication
// factor 3 topics, min.insync.replicas=2, short lag and session timeouts so
// that failures are noticed within seconds. Helpers read a partition's
// leader, epoch and ISR as a node's metadata has it, and compare the
// replicas' segment files.

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "network_lab.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_quorum.h"
#include "raw_requests.h"
#include "rdkafka_support.h"

namespace hw::testing {

using namespace rdk;

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::pair<std::string, std::string>> messages(const std::string& prefix, int n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < n; ++i) out.emplace_back(prefix + std::to_string(i), "value-" + prefix + std::to_string(i));
  return out;
}

struct partition_view {
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
};

class replication_cluster : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "ReplicationITclusterAA", 1);
    std::vector<broker_process*> all;
    for (int i = 0; i < 3; ++i) {
      nodes.push_back(std::make_unique<broker_process>());
      all.push_back(nodes.back().get());
    }
    if (networked()) {
      // Each node on its own host of a network_lab, on fixed ports of its
      // own address: no other process can take them.
      if (auto why = network_lab::unavailable()) GTEST_SKIP() << *why;
      lab = std::make_unique<network_lab>(3);
      for (int i = 0; i < 3; ++i) {
        nodes[i]->set_netns(lab->netns(i), lab->address(i));
        controller_ports.push_back(k_lab_controller_port);
        voters += (i ? "," : "") + std::to_string(i + 1) + "@" + lab->address(i) + ":" +
                  std::to_string(k_lab_controller_port);
      }
      std::vector<std::thread> starting;
      std::vector<int> started(3, 0);
      for (int i = 0; i < 3; ++i) starting.emplace_back([&, i] { started[i] = start_node(i); });
      for (auto& t : starting) t.join();
      ASSERT_TRUE(started[0] && started[1] && started[2]) << logs();
      return;
    }
    auto chosen = start_on_fresh_ports(3, [&](const std::vector<uint16_t>& ports) {
      controller_ports = ports;
      voters.clear();
      for (int i = 0; i < 3; ++i) voters += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
      std::vector<std::thread> starting;
      std::vector<int> started(3, 0);
      for (int i = 0; i < 3; ++i) starting.emplace_back([&, i] { started[i] = start_node(i); });
      for (auto& t : starting) t.join();
      return started_or_port_taken(started[0] && started[1] && started[2], all);
    });
    ASSERT_TRUE(chosen) << logs();
  }
  void TearDown() override { unsetenv("CLUSTER_ID"); }

  // Overrides a fixture adds to every node's, at every start.
  virtual std::vector<std::string> extra_overrides() const { return {}; }
  // Overrides a fixture adds to node i's only (0-based).
  virtual std::vector<std::string> node_overrides(int) const { return {}; }
  // Called before node i (0-based) starts, every time; false fails the start.
  virtual bool before_start(int) { return true; }
  // Whether the nodes run on the hosts of a network_lab (so a test can cut
  // links) rather than on 127.0.0.1.
  virtual bool networked() const { return false; }

  // Where node i's client listener is.
  endpoint at(int i) const { return endpoint(nodes[i]->host(), nodes[i]->port()); }

  bool start_node(int i) {
    const std::string host = nodes[i]->host();
    const std::string client_port = lab ? std::to_string(k_lab_client_port) : "0";
    std::vector<std::string> args{"--override", "node.id=" + std::to_string(i + 1), "--override",
                                  "listeners=PLAINTEXT://" + host + ":" + client_port + ",CONTROLLER://" + host +
                                      ":" + std::to_string(controller_ports[i]),
                                  "--override", "controller.listener.names=CONTROLLER", "--override",
                                  "controller.quorum.voters=" + voters, "--override", "min.insync.replicas=2",
                                  "--override", "replica.lag.time.max.ms=3000", "--override",
                                  "broker.session.timeout.ms=4000", "--override", "broker.heartbeat.interval.ms=500"};
    std::vector<std::string> overrides = extra_overrides();
    for (auto& o : node_overrides(i)) overrides.push_back(std::move(o));
    for (const auto& o : overrides) {
      args.push_back("--override");
      args.push_back(o);
    }
    if (!before_start(i)) return false;
    return nodes[i]->start(args, 60s);
  }

  std::string logs() const {
    std::string out;
    for (size_t i = 0; i < nodes.size(); ++i) out += "---- node " + std::to_string(i + 1) + " ----\n" + nodes[i]->log();
    return out;
  }

  // The partition as node i's metadata has it.
  std::optional<partition_view> view(int i, const std::string& topic) {
    raw_client client(at(i));
    auto resp = client.metadata(std::vector<std::string>{topic});
    if (!resp || resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1) return std::nullopt;
    const auto& p = resp->topics[0].partitions[0];
    if (p.error_code != 0 && p.error_code != 9) return std::nullopt;  // 9: REPLICA_NOT_AVAILABLE, ISR still shown
    return partition_view{p.leader_id, p.leader_epoch, p.replica_nodes, p.isr_nodes};
  }
  // Waits until node `via` sees another leader than `before`'s, at a later epoch.
  std::optional<partition_view> new_leader_of(int via, const std::string& topic, const partition_view& before,
                                              std::chrono::milliseconds timeout) {
    std::optional<partition_view> after;
    const bool moved = wait_until(
        [&] {
          after = view(via, topic);
          return after && after->leader > 0 && after->leader != before.leader &&
                 after->leader_epoch > before.leader_epoch;
        },
        timeout);
    return moved ? after : std::nullopt;
  }
  bool isr_is(int via, const std::string& topic, std::set<int32_t> expected) {
    auto v = view(via, topic);
    return v && std::set<int32_t>(v->isr.begin(), v->isr.end()) == expected;
  }

  std::filesystem::path segment(int i, const std::string& topic) const {
    return std::filesystem::path(nodes[i]->dir()) / "data" / (topic + "-0") / "00000000000000000000.log";
  }
  bool segments_identical(const std::string& topic) const {
    const std::string first = read_file(segment(0, topic));
    return !first.empty() && read_file(segment(1, topic)) == first && read_file(segment(2, topic)) == first;
  }

  // Creates the topic (RF 3) and waits until every node's metadata has it
  // with every replica in the ISR and the same leader (a new topic's ISR is
  // its whole replica set from the start, so one node's view says nothing
  // of whether the leader itself knows it leads yet).
  void create_replicated(const std::string& topic) {
    ASSERT_EQ(create_topic(at(0), topic, {}, 3), "") << logs();
    ASSERT_TRUE(wait_until(
        [&] {
          auto first = view(0, topic);
          if (!first || first->leader <= 0) return false;
          for (int i = 0; i < 3; ++i) {
            auto v = view(i, topic);
            if (!v || v->leader != first->leader || !isr_is(i, topic, {1, 2, 3})) return false;
          }
          return true;
        },
        20s))
        << logs();
  }

  // Creates a one-partition topic with these replicas (the first leads)
  // and waits until every node's metadata names that leader with every
  // replica in the ISR.
  void create_placed(const std::string& topic, std::vector<int32_t> replicas,
                     const std::string& min_insync_replicas = "2") {
    raw_client client(at(0));
    msg::create_topics_request req;
    auto& t = req.topics.emplace_back();
    t.name = topic;
    t.num_partitions = -1;
    t.replication_factor = -1;
    t.assignments.push_back({0, replicas, {}});
    t.configs.push_back({"min.insync.replicas", min_insync_replicas, {}});
    auto resp = client.call<msg::create_topics_response>(19, k_create_topics_version, req);
    ASSERT_TRUE(resp && resp->topics.size() == 1);
    ASSERT_EQ(resp->topics[0].error_code, 0) << resp->topics[0].error_message.value_or("");
    ASSERT_TRUE(wait_until(
        [&] {
          for (int i = 0; i < 3; ++i) {
            auto v = view(i, topic);
            if (!v || v->leader != replicas[0] || v->isr.size() != replicas.size()) return false;
          }
          return true;
        },
        20s))
        << logs();
  }

  // The active controller and its epoch as node i's quorum state has them.
  std::optional<std::pair<int32_t, int32_t>> quorum_leader(int i) {
    raw_client client(at(i));
    msg::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back();
    auto resp = client.call<msg::describe_quorum_response>(55, 1, req);
    if (!resp || resp->error_code != 0 || resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1)
      return std::nullopt;
    const auto& p = resp->topics[0].partitions[0];
    if (p.error_code != 0 || p.leader_id < 0) return std::nullopt;
    return std::make_pair(p.leader_id, p.leader_epoch);
  }

  static constexpr uint16_t k_lab_client_port = 9092;
  static constexpr uint16_t k_lab_controller_port = 9093;
  std::vector<uint16_t> controller_ports;
  std::string voters;
  // Declared before the nodes, so the nodes stop before their hosts go.
  std::unique_ptr<network_lab> lab;
  std::vector<std::unique_ptr<broker_process>> nodes;
};

}  // namespace hw::testing
