#pragma once
// Kafka-style KRaft clusters of highwater processes for the compat tests:
// three combined broker+controller nodes (ids 1-3), or three dedicated
// controllers (1-3) with three brokers (4-6), on 127.0.0.1 with the
// controller ports chosen by start_on_fresh_ports (no pick-then-bind race),
// every process with short lag and session timeouts so that a stopped
// broker is noticed within seconds. The arguments each process started with
// are kept, so that a test can start it again the same way. A `prepare`
// hook runs before each process starts (in its directory, with its
// arguments): formatting its storage at an older release, say.

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"

namespace hw::testing {

struct kraft_nodes {
  std::vector<std::unique_ptr<broker_process>> nodes;  // nodes[id - 1]
  std::vector<std::vector<std::string>> args;          // each one's start arguments
  // Before each start (false: do not start it).
  std::function<bool(int id, broker_process& node, const std::vector<std::string>& args)> prepare;

  // Starts the cluster; `extra` overrides go to every process. False (with
  // the processes' logs in the test's failure) when one did not start.
  bool start(bool dedicated, const std::vector<std::string>& extra = {}) {
    using namespace std::chrono_literals;
    const int processes = dedicated ? 6 : 3;
    std::vector<broker_process*> all;
    for (int i = 0; i < processes; ++i) {
      nodes.push_back(std::make_unique<broker_process>());
      all.push_back(nodes.back().get());
    }
    const auto chosen = start_on_fresh_ports(3, [&](const std::vector<uint16_t>& ports) {
      std::string voters;
      for (int i = 0; i < 3; ++i) voters += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
      args.assign(processes, {});
      for (int i = 0; i < processes; ++i) {
        const int id = i + 1;
        std::vector<std::string> overrides{"node.id=" + std::to_string(id), "controller.listener.names=CONTROLLER",
                                           "controller.quorum.voters=" + voters, "replica.lag.time.max.ms=3000",
                                           "broker.session.timeout.ms=4000", "broker.heartbeat.interval.ms=500"};
        if (!dedicated) {
          overrides.push_back("process.roles=broker,controller");
          overrides.push_back("listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" + std::to_string(ports[i]));
        } else if (id <= 3) {
          overrides.push_back("process.roles=controller");
          overrides.push_back("listeners=CONTROLLER://127.0.0.1:" + std::to_string(ports[i]));
        } else {
          overrides.push_back("process.roles=broker");
        }
        overrides.insert(overrides.end(), extra.begin(), extra.end());
        for (const auto& o : overrides) {
          args[i].push_back("--override");
          args[i].push_back(o);
        }
      }
      std::vector<std::thread> starting;
      std::vector<int> started(processes, 0);
      for (int i = 0; i < processes; ++i)
        starting.emplace_back([&, i] {
          started[i] = (!prepare || prepare(i + 1, *nodes[i], args[i])) && nodes[i]->start(args[i], 60s);
        });
      for (auto& t : starting) t.join();
      return started_or_port_taken(std::all_of(started.begin(), started.end(), [](int s) { return s != 0; }), all);
    });
    return chosen.has_value();
  }

  broker_process& node(int id) { return *nodes[id - 1]; }
  // Started again with the arguments of its first start: its client
  // listener on a new port, or, with same_client_port, on the port it had
  // (as a restarted broker of a real cluster comes back at its address;
  // librdkafka 2.16 does not find a transaction coordinator that moved to
  // another port). The controller ports are always the same.
  bool restart(int id, bool same_client_port = false) {
    using namespace std::chrono_literals;
    std::vector<std::string> again = args[id - 1];
    if (same_client_port && node(id).port() != 0) {
      const std::string own = "PLAINTEXT://127.0.0.1:" + std::to_string(node(id).port());
      bool replaced = false;
      for (auto& a : again)
        if (a.rfind("listeners=PLAINTEXT://127.0.0.1:0", 0) == 0) {
          a.replace(std::string("listeners=").size(), std::string("PLAINTEXT://127.0.0.1:0").size(), own);
          replaced = true;
        }
      if (!replaced) again.insert(again.end(), {"--override", "listeners=" + own});
    }
    return node(id).start(again, 60s);
  }
  // The client ports of the nodes running now.
  std::vector<uint16_t> running_ports() {
    std::vector<uint16_t> out;
    for (auto& n : nodes)
      if (n->running()) out.push_back(n->port());
    return out;
  }
};

}  // namespace hw::testing
