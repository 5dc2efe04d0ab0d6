// A broker restarted on the same data directory, after a clean stop
// (SIGTERM: controlled shutdown) or a crash (SIGKILL), combined with its
// controller or broker-only with the controller in another process. A
// client that reconnects the moment the client port takes connections (as
// a consumer does when its broker comes back) must find a ready broker:
// FindCoordinator names it and the first JoinGroup succeeds, with no
// NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE / COORDINATOR_LOAD_IN_PROGRESS
// answers to retry on. Prints the time from spawn to that JoinGroup.

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/join_group.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int16_t k_find_coordinator_version = 3;
constexpr int16_t k_join_group_version = 3;  // before KIP-394: one round, no MEMBER_ID_REQUIRED
constexpr int16_t k_not_coordinator = 16, k_coordinator_not_available = 15, k_load_in_progress = 14;

bool coordinator_error(int16_t e) {
  return e == k_not_coordinator || e == k_coordinator_not_available || e == k_load_in_progress;
}

struct join_outcome {
  bool joined = false;
  int coordinator_errors = 0;  // answers a client would have retried on
  milliseconds elapsed{0};     // from `since` to the successful JoinGroup
  std::string detail;
};

msg::join_group_request join_request(const std::string& group) {
  msg::join_group_request req;
  req.group_id = group;
  req.session_timeout_ms = 10000;
  req.rebalance_timeout_ms = 10000;
  req.protocol_type = "consumer";
  auto& p = req.protocols.emplace_back();
  p.name = "range";
  p.metadata = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // ConsumerProtocolSubscription v0: no topics, no user data
  return req;
}

// Connects as soon as the port takes connections, then FindCoordinator and
// JoinGroup, each asked again after a coordinator error (counted) until it
// succeeds or the deadline passes.
join_outcome join_when_reachable(uint16_t port, const std::string& group, clock_type::time_point since,
                                 milliseconds timeout = 60s) {
  join_outcome out;
  const auto deadline = clock_type::now() + timeout;
  std::unique_ptr<raw_client> client;
  while (clock_type::now() < deadline) {
    client = std::make_unique<raw_client>(port);
    if (client->connected()) break;
    client.reset();
    std::this_thread::sleep_for(2ms);
  }
  if (!client) {
    out.detail = "never connected";
    return out;
  }
  for (;;) {
    msg::find_coordinator_request find;
    find.key = group;
    auto found = client->call<msg::find_coordinator_response>(10, k_find_coordinator_version, find, 60s);
    if (!found) {
      out.detail = "no FindCoordinator answer";
      return out;
    }
    if (found->error_code == 0) break;
    if (!coordinator_error(found->error_code) || clock_type::now() > deadline) {
      out.detail = "FindCoordinator error " + std::to_string(found->error_code);
      return out;
    }
    ++out.coordinator_errors;
    std::this_thread::sleep_for(10ms);
  }
  for (;;) {
    auto joined = client->call<msg::join_group_response>(11, k_join_group_version, join_request(group), 60s);
    if (!joined) {
      out.detail = "no JoinGroup answer";
      return out;
    }
    if (joined->error_code == 0) break;
    if (!coordinator_error(joined->error_code) || clock_type::now() > deadline) {
      out.detail = "JoinGroup error " + std::to_string(joined->error_code);
      return out;
    }
    ++out.coordinator_errors;
    std::this_thread::sleep_for(10ms);
  }
  out.joined = true;
  out.elapsed = std::chrono::duration_cast<milliseconds>(clock_type::now() - since);
  return out;
}

// Restarts `b` on the same client port with `args` while a client waits
// for that port, and reports what the client saw.
join_outcome restart_and_join(broker_process& b, const std::vector<std::string>& args, const std::string& group,
                              const std::string& label, int sig) {
  const uint16_t port = b.port();
  EXPECT_TRUE(b.stop(sig, 30s).has_value()) << b.log();
  std::vector<std::string> again = args;
  again.insert(again.end(), {"--override", "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port)});
  const auto spawned = clock_type::now();
  bool started = false;
  std::thread starting([&] { started = b.start(again, 60s); });
  join_outcome out = join_when_reachable(port, group, spawned);
  starting.join();
  EXPECT_TRUE(started) << b.log();
  std::printf("[ restart ] %s after %s: first JoinGroup %lld ms after spawn, %d coordinator error(s)\n",
              label.c_str(), sig == SIGKILL ? "SIGKILL" : "SIGTERM", static_cast<long long>(out.elapsed.count()),
              out.coordinator_errors);
  return out;
}

const std::vector<std::string> k_group_args{"--override", "group.initial.rebalance.delay.ms=0", "--override",
                                            "offsets.topic.num.partitions=5"};

void combined_restart(int sig) {
  broker_process b;
  ASSERT_TRUE(b.start(k_group_args)) << b.log();
  // The offsets topic exists and a group has been coordinated (another one:
  // its member would not rejoin after the restart).
  auto first = join_when_reachable(b.port(), "before-restart", clock_type::now());
  ASSERT_TRUE(first.joined) << first.detail << b.log();
  auto again = restart_and_join(b, k_group_args, "restarted", "combined node", sig);
  EXPECT_TRUE(again.joined) << again.detail << b.log();
  EXPECT_EQ(again.coordinator_errors, 0) << b.log();
}

TEST(RestartIT, ACombinedNodeServesGroupsAtOnceAfterACleanRestart) { combined_restart(SIGTERM); }
TEST(RestartIT, ACombinedNodeServesGroupsAtOnceAfterACrash) { combined_restart(SIGKILL); }

void broker_only_restart(int sig) {
  setenv("CLUSTER_ID", "RestartITclusterAAAAAA", 1);
  broker_process controller, broker;
  std::string voters;
  auto chosen = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
    voters = "1@127.0.0.1:" + std::to_string(ports[0]);
    return started_or_port_taken(
        controller.start({"--override", "process.roles=controller", "--override", "node.id=1", "--override",
                          "listeners=CONTROLLER://127.0.0.1:" + std::to_string(ports[0]), "--override",
                          "controller.listener.names=CONTROLLER", "--override", "controller.quorum.voters=" + voters}),
        {&controller});
  });
  ASSERT_TRUE(chosen) << controller.log();
  std::vector<std::string> args{"--override", "process.roles=broker", "--override", "node.id=2", "--override",
                                "controller.listener.names=CONTROLLER", "--override", "controller.quorum.voters=" + voters};
  args.insert(args.end(), k_group_args.begin(), k_group_args.end());
  ASSERT_TRUE(broker.start(args)) << controller.log() << broker.log();
  auto first = join_when_reachable(broker.port(), "before-restart", clock_type::now());
  ASSERT_TRUE(first.joined) << first.detail << broker.log();
  auto again = restart_and_join(broker, args, "restarted", "broker-only node", sig);
  unsetenv("CLUSTER_ID");
  EXPECT_TRUE(again.joined) << again.detail << controller.log() << broker.log();
  EXPECT_EQ(again.coordinator_errors, 0) << controller.log() << broker.log();
}

TEST(RestartIT, ABrokerOnlyNodeServesGroupsAtOnceAfterACleanRestart) { broker_only_restart(SIGTERM); }
TEST(RestartIT, ABrokerOnlyNodeServesGroupsAtOnceAfterACrash) { broker_only_restart(SIGKILL); }

}  // namespace
}  // namespace hw::testing
