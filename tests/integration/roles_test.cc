// process.roles=broker and =controller in separate processes, as in a
// cluster with dedicated controllers: the broker fetches the metadata log
// from the controller quorum as an observer, registers with the active
// controller over its controller listener, and forwards admin requests and
// producer-id allocation to it; clients see an ordinary broker.

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/metadata.h"
#include "raw_requests.h"
#include "rdkafka_support.h"

namespace hw::testing {
namespace {

using namespace rdk;

class split_roles {
 public:
  split_roles() { setenv("CLUSTER_ID", "RolesITclusterAAAAAAAA", 1); }
  ~split_roles() { unsetenv("CLUSTER_ID"); }

  // The first start picks the controller's port (again if it is taken
  // before the controller binds it); a restart keeps it.
  bool start_controller() {
    if (controller_port_ != 0) return start_controller_on(controller_port_);
    auto chosen = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
      return started_or_port_taken(start_controller_on(ports[0]), {&controller});
    });
    return chosen.has_value();
  }
  uint16_t controller_port() const { return controller_port_; }
  bool start_broker(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"--override", "process.roles=broker", "--override", "node.id=2", "--override",
                                  "controller.listener.names=CONTROLLER", "--override",
                                  "controller.quorum.voters=" + voters_};
    args.insert(args.end(), extra.begin(), extra.end());
    return broker.start(args);
  }
  // The broker knows the controllers only through
  // controller.quorum.bootstrap.servers, as with a Kafka 4 dynamic quorum.
  bool start_broker_with_bootstrap_servers() {
    return broker.start({"--override", "process.roles=broker", "--override", "node.id=2", "--override",
                         "controller.listener.names=CONTROLLER", "--override",
                         "controller.quorum.bootstrap.servers=127.0.0.1:" + std::to_string(controller_port_)});
  }
  std::string logs() const { return "---- controller ----\n" + controller.log() + "---- broker ----\n" + broker.log(); }

  broker_process controller;
  broker_process broker;

 private:
  bool start_controller_on(uint16_t port) {
    controller_port_ = port;
    voters_ = "1@127.0.0.1:" + std::to_string(port);
    return controller.start({"--override", "process.roles=controller", "--override", "node.id=1", "--override",
                             "listeners=CONTROLLER://127.0.0.1:" + std::to_string(port), "--override",
                             "controller.listener.names=CONTROLLER", "--override", "controller.quorum.voters=" + voters_});
  }

  uint16_t controller_port_ = 0;
  std::string voters_;
};

std::vector<std::pair<std::string, std::string>> messages(int n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < n; ++i) out.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
  return out;
}

// With its controller gone, a broker-only node answers the admin requests
// it forwards as Kafka's forwarding does when no controller answers in
// time: REQUEST_TIMED_OUT for each resource the request names (CreateTopics
// after the request's own timeout, the others after request.timeout.ms),
// never an empty answer, which clients would take for a broken broker.
TEST(RolesIT, AdminRequestsNoControllerAnswersTimeOutForEachResource) {
  split_roles c;
  ASSERT_TRUE(c.start_controller()) << c.logs();
  ASSERT_TRUE(c.start_broker({"--override", "request.timeout.ms=2000"})) << c.logs();
  ASSERT_EQ(create_topic(c.broker.port(), "before", {}), "") << c.logs();
  ASSERT_EQ(c.controller.stop(SIGKILL), -SIGKILL);
  constexpr int16_t k_timed_out = 7;
  raw_client client(c.broker.port());

  msg::create_topics_request create;
  create.timeout_ms = 2000;
  for (const char* name : {"t1", "t2"}) {
    auto& t = create.topics.emplace_back();
    t.name = name;
    t.num_partitions = 1;
    t.replication_factor = 1;
  }
  auto created = client.call<msg::create_topics_response>(19, 7, create, 30s);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->topics.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(created->topics[i].name, create.topics[i].name);
    EXPECT_EQ(created->topics[i].error_code, k_timed_out);
  }

  msg::create_partitions_request grow;
  grow.timeout_ms = 2000;
  auto& g = grow.topics.emplace_back();
  g.name = "before";
  g.count = 3;
  g.assignments.reset();
  auto grown = client.call<msg::create_partitions_response>(37, 3, grow, 30s);
  ASSERT_TRUE(grown);
  ASSERT_EQ(grown->results.size(), 1u);
  EXPECT_EQ(grown->results[0].name, "before");
  EXPECT_EQ(grown->results[0].error_code, k_timed_out);

  msg::incremental_alter_configs_request alter;
  auto& r = alter.resources.emplace_back();
  r.resource_type = 2;  // topic
  r.resource_name = "before";
  auto& cfg = r.configs.emplace_back();
  cfg.name = "retention.ms";
  cfg.config_operation = 0;  // set
  cfg.value = "1000";
  auto altered = client.call<msg::incremental_alter_configs_response>(44, 1, alter, 30s);
  ASSERT_TRUE(altered);
  ASSERT_EQ(altered->responses.size(), 1u);
  EXPECT_EQ(altered->responses[0].resource_name, "before");
  EXPECT_EQ(altered->responses[0].resource_type, 2);
  EXPECT_EQ(altered->responses[0].error_code, k_timed_out);
}

TEST(RolesIT, ABrokerOnlyNodeServesClientsWithTheControllerElsewhere) {
  split_roles c;
  ASSERT_TRUE(c.start_controller()) << c.logs();
  ASSERT_TRUE(c.start_broker()) << c.logs();
  EXPECT_NE(c.broker.log().find("Registered broker 2"), std::string::npos) << c.logs();

  // CreateTopics through the broker reaches the controller; the broker hosts
  // the partition once the committed records reach it.
  ASSERT_EQ(create_topic(c.broker.port(), "split", {}), "") << c.logs();
  // The controller answered at commit; the broker applies the records a
  // moment later (as with Kafka, whose clients retry meanwhile). The order
  // check below needs the first produce to reach a partition that is there:
  // Metadata names the leader as soon as the broker has the records, its
  // log may come a moment later, and ListOffsets answers once it leads.
  raw_client lookup(c.broker.port());
  ASSERT_TRUE(wait_until(
      [&] {
        auto md = lookup.metadata(std::vector<std::string>{"split"});
        if (!md || md->topics.size() != 1 || md->topics[0].error_code != 0 ||
            md->topics[0].partitions.size() != 1 || md->topics[0].partitions[0].leader_id != 2)
          return false;
        auto end = lookup.list_offset("split", 0, -1);
        return end && end->error_code == 0;
      },
      20s))
      << c.logs();
  auto produced = produce_all(c.broker.port(), "split", messages(50));
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << c.logs();
  auto read = read_from_beginning(c.broker.port(), "split", 50);
  ASSERT_EQ(read.size(), 50u);
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i].value, "v" + std::to_string(i));

  // DescribeQuorum on the broker is answered by the leader: the broker is
  // an observer that has fetched the whole log.
  raw_client client(c.broker.port());
  msg::describe_quorum_request req;
  auto& t = req.topics.emplace_back();
  t.topic_name = "__cluster_metadata";
  t.partitions.emplace_back().partition_index = 0;
  auto quorum = client.call<msg::describe_quorum_response>(55, 2, req);
  ASSERT_TRUE(quorum);
  const auto& p = quorum->topics.at(0).partitions.at(0);
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.leader_id, 1);
  ASSERT_EQ(p.observers.size(), 1u);
  EXPECT_EQ(p.observers[0].replica_id, 2);

  // The broker restarts from its own copy of the metadata log and its data.
  ASSERT_EQ(c.broker.stop(SIGTERM), 0) << c.logs();
  ASSERT_TRUE(c.start_broker()) << c.logs();
  EXPECT_EQ(read_from_beginning(c.broker.port(), "split", 50).size(), 50u) << c.logs();
}

// Three combined nodes, as in a three-broker docker-compose file: each
// broker registers with whichever controller the quorum elected, over the
// controller listener (on its own connection: the registration waits for a
// commit that needs this node's quorum Fetch on the other one).
TEST(RolesIT, ThreeCombinedNodesRegisterWithTheActiveControllerAndServeTogether) {
  setenv("CLUSTER_ID", "RolesITcombinedAAAAAAA", 1);
  std::vector<std::unique_ptr<broker_process>> nodes;
  std::vector<broker_process*> all;
  std::string logs;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(std::make_unique<broker_process>());
    all.push_back(nodes.back().get());
  }
  auto chosen = start_on_fresh_ports(3, [&](const std::vector<uint16_t>& ports) {
    std::string voters;
    for (int i = 0; i < 3; ++i) voters += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
    // They start together: each waits for the quorum to register its broker.
    std::vector<std::thread> starting;
    std::vector<int> started(3, 0);
    for (int i = 0; i < 3; ++i) {
      starting.emplace_back([&, i] {
        started[i] = nodes[i]->start({"--override", "node.id=" + std::to_string(i + 1), "--override",
                                      "listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" + std::to_string(ports[i]),
                                      "--override", "controller.listener.names=CONTROLLER", "--override",
                                      "controller.quorum.voters=" + voters},
                                     60s);
      });
    }
    for (auto& t : starting) t.join();
    return started_or_port_taken(started[0] && started[1] && started[2], all);
  });
  unsetenv("CLUSTER_ID");
  for (int i = 0; i < 3; ++i) logs += "---- node " + std::to_string(i + 1) + " ----\n" + nodes[i]->log();
  ASSERT_TRUE(chosen) << logs;

  // Every broker is in every broker's metadata.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(wait_until(
        [&] {
          raw_client client(nodes[i]->port());
          msg::metadata_request req;
          req.topics.reset();
          auto resp = client.call<msg::metadata_response>(3, k_metadata_version, req);
          return resp && resp->brokers.size() == 3;
        },
        10s))
        << logs;
  }
  // A topic created through one broker; records produced and read back
  // through another, whichever hosts the partition.
  ASSERT_EQ(create_topic(nodes[0]->port(), "spread", {}), "") << logs;
  auto produced = produce_all(nodes[1]->port(), "spread", messages(20));
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << logs;
  EXPECT_EQ(read_from_beginning(nodes[2]->port(), "spread", 20).size(), 20u);
}

TEST(RolesIT, ABrokerFindsTheQuorumThroughBootstrapServers) {
  split_roles c;
  ASSERT_TRUE(c.start_controller()) << c.logs();
  ASSERT_TRUE(c.start_broker_with_bootstrap_servers()) << c.logs();
  EXPECT_NE(c.broker.log().find("Registered broker 2"), std::string::npos) << c.logs();
  ASSERT_EQ(create_topic(c.broker.port(), "found", {}), "") << c.logs();
  auto produced = produce_all(c.broker.port(), "found", messages(10));
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << c.logs();
  EXPECT_EQ(read_from_beginning(c.broker.port(), "found", 10).size(), 10u);
}

TEST(RolesIT, ABrokerOnlyNodeWithoutVotersRefusesToStart) {
  broker_process b;
  auto code = b.run_to_exit({"--override", "process.roles=broker", "--override", "controller.listener.names=CONTROLLER"});
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);
  EXPECT_NE(b.log().find("process.roles=broker needs controller.quorum.voters"), std::string::npos) << b.log();
}

TEST(RolesIT, AControllerMustBeOneOfTheVoters) {
  broker_process b;
  const uint16_t port = 9;  // never bound: the configuration is refused first
  auto code = b.run_to_exit({"--override", "process.roles=controller", "--override", "node.id=5", "--override",
                             "listeners=CONTROLLER://127.0.0.1:" + std::to_string(port), "--override",
                             "controller.listener.names=CONTROLLER", "--override",
                             "controller.quorum.voters=1@127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);
  EXPECT_NE(b.log().find("is not in controller.quorum.voters"), std::string::npos) << b.log();
}

}  // namespace
}  // namespace hw::testing
