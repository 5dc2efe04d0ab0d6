// The native kafka-cluster.sh against Kafka 4.3.1's ClusterTool on the same
// highwater cluster: cluster-id, list-endpoints and unregister's refusals
// print the same lines and exit the same way (stderr compared without the
// admin client's log lines and stack frames); and a broker retired as an
// operator retires one (its replicas reassigned away with Kafka's
// kafka-reassign-partitions.sh, the broker stopped, then unregistered).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <csignal>
#include <regex>
#include <sstream>

#include "broker_process.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;

const char* const k_cluster_tool = "org.apache.kafka.tools.ClusterTool";
const char* const k_reassign_command = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";
const char* const k_script = "kafka-cluster.sh";

// stderr without log4j lines, stack frames and the JVM's own lines.
std::vector<std::string> stderr_messages(const std::string& err) {
  static const std::regex dropped(R"(^(\[\d{4}-\d\d-\d\d .*|\s+at .*|\s*\.\.\. \d+ more|\s*Caused by: .*|))");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!std::regex_match(line, dropped) && !jvm_log_line(line)) out.push_back(line);
  return out;
}

void expect_same(const std::string& dir, const std::vector<std::string>& args) {
  SCOPED_TRACE(::testing::PrintToString(args));
  auto java = run_kafka_tool(dir, k_cluster_tool, args);
  auto native = run_native_tool(dir, k_script, args);
  EXPECT_EQ(native.exit_code, java.exit_code) << native.all() << java.all();
  EXPECT_EQ(lines_of(native.out), tool_lines(java)) << native.all() << java.all();
  EXPECT_EQ(stderr_messages(native.err), stderr_messages(java.err)) << native.all() << java.all();
}

class NativeClusterIT : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = start_with_controller_listener(broker);
    ASSERT_TRUE(port) << broker.log();
    controller = "127.0.0.1:" + std::to_string(*port);
    server = "127.0.0.1:" + std::to_string(broker.port());
  }
  std::string controller, server;
  broker_process broker;
};

TEST_F(NativeClusterIT, ReadsTheClusterAsKafkasToolDoes) {
  for (const auto& connect : {std::vector<std::string>{"-b", server}, {"--bootstrap-controller", controller}}) {
    std::vector<std::string> id{"cluster-id"}, endpoints{"list-endpoints"};
    id.insert(id.end(), connect.begin(), connect.end());
    endpoints.insert(endpoints.end(), connect.begin(), connect.end());
    expect_same(broker.dir(), id);
    expect_same(broker.dir(), endpoints);
  }
  expect_same(broker.dir(), {"list-endpoints", "--bootstrap-server", server, "--include-fenced-brokers"});
  auto native = run_native_tool(broker.dir(), k_script, {"list-endpoints", "-b", server});
  ASSERT_EQ(lines_of(native.out).size(), 2u) << native.all();
  EXPECT_NE(native.out.find(" unfenced "), std::string::npos) << native.all();
}

TEST_F(NativeClusterIT, RefusalsAsKafkasTool) {
  // An id nobody registered: BROKER_ID_NOT_REGISTERED, through a broker
  // (forwarded) and from the controller itself.
  expect_same(broker.dir(), {"unregister", "-b", server, "--id", "99"});
  expect_same(broker.dir(), {"unregister", "-C", controller, "--id", "99"});
  expect_same(broker.dir(), {"unregister", "-b", server});
  expect_same(broker.dir(), {"unregister", "-b", server, "--id", "x"});
  expect_same(broker.dir(), {"list-endpoints", "-C", controller, "--include-fenced-brokers"});
  expect_same(broker.dir(), {"cluster-id", "-b", server, "-C", controller});
  expect_same(broker.dir(), {"retire"});
  auto native = run_native_tool(broker.dir(), k_script, {"unregister", "-b", server, "--id", "99"});
  EXPECT_EQ(stderr_messages(native.err).front(),
            "org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 99 is not currently registered");
}

// Three controllers (1-3) and brokers 4-6. Broker 6's replicas move to 4
// and 5 with Kafka's reassignment tool, 6 stops and is unregistered, once by
// Kafka's tool and once by the native one (6 registers again when it
// starts); both print the same, and the cluster no longer lists it.
class NativeClusterRetireIT : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "NativeClusterRetire1AA", 1);
    ASSERT_TRUE(cluster.start(true)) << logs();
    for (int id = 4; id <= 6; ++id) servers += (id > 4 ? "," : "") + ("127.0.0.1:" + std::to_string(cluster.node(id).port()));
    dir = cluster.node(4).dir();
  }
  void TearDown() override { unsetenv("CLUSTER_ID"); }
  std::string logs() {
    std::string out;
    for (auto& n : cluster.nodes) out += n->log();
    return out;
  }
  std::string endpoints() {
    auto r = run_native_tool(dir, k_script, {"list-endpoints", "-b", servers, "--include-fenced-brokers"});
    return r.out;
  }
  kraft_nodes cluster;
  std::string servers, dir;
};

TEST_F(NativeClusterRetireIT, RetiresABrokerAfterItsReplicasMoveAway) {
  auto created = run_native_tool(dir, "kafka-topics.sh",
                                 {"--bootstrap-server", servers, "--create", "--topic", "retire",
                                  "--replica-assignment", "4:6,6:5,5:6"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  const std::string plan = dir + "/move-off-6.json";
  std::ofstream(plan) << R"({"version":1,"partitions":[)"
                      << R"({"topic":"retire","partition":0,"replicas":[4,5]},)"
                      << R"({"topic":"retire","partition":1,"replicas":[5,4]},)"
                      << R"({"topic":"retire","partition":2,"replicas":[5,4]}]})";
  auto moved = run_kafka_tool(dir, k_reassign_command,
                              {"--bootstrap-server", servers, "--execute", "--reassignment-json-file", plan});
  ASSERT_EQ(moved.exit_code, 0) << moved.all();
  ASSERT_TRUE(wait_until(
      [&] {
        auto v = run_kafka_tool(dir, k_reassign_command,
                                {"--bootstrap-server", servers, "--verify", "--reassignment-json-file", plan});
        return v.exit_code == 0 && v.out.find("is still in progress") == std::string::npos &&
               v.out.find("is complete") != std::string::npos;
      },
      60s))
      << logs();
  // No replica of the topic is on 6 any more.
  auto described = run_native_tool(dir, "kafka-topics.sh", {"--bootstrap-server", servers, "--describe", "--topic", "retire"});
  static const std::regex replicas_with_6(R"(Replicas: [0-9,]*6)");
  EXPECT_EQ(described.exit_code, 0) << described.all();
  EXPECT_FALSE(std::regex_search(described.out, replicas_with_6)) << described.out;

  // Kafka's tool first, with broker 6 stopped.
  cluster.node(6).stop(SIGTERM);
  auto java = run_kafka_tool(dir, k_cluster_tool, {"unregister", "-b", servers, "--id", "6"});
  EXPECT_EQ(java.exit_code, 0) << java.all();
  ASSERT_EQ(tool_lines(java), std::vector<std::string>{"Broker 6 is no longer registered."}) << java.all();
  EXPECT_TRUE(wait_until([&] { return endpoints().find("\n6 ") == std::string::npos; }, 30s)) << endpoints();

  // 6 comes back (it registers again), stops, and the native tool retires it.
  ASSERT_TRUE(cluster.restart(6)) << logs();
  ASSERT_TRUE(wait_until([&] { return endpoints().find("\n6 ") != std::string::npos; }, 30s)) << endpoints();
  cluster.node(6).stop(SIGTERM);
  auto native = run_native_tool(dir, k_script, {"unregister", "--bootstrap-controller",
                                                "127.0.0.1:" + std::to_string(cluster.node(1).port("CONTROLLER")), "--id", "6"});
  EXPECT_EQ(native.exit_code, 0) << native.all();
  EXPECT_EQ(lines_of(native.out), tool_lines(java)) << native.all();
  EXPECT_TRUE(wait_until([&] { return endpoints().find("\n6 ") == std::string::npos; }, 30s)) << endpoints();
  // Once gone, gone: a second unregister is refused, by both tools alike.
  expect_same(dir, {"unregister", "-b", servers, "--id", "6"});
  expect_same(dir, {"list-endpoints", "-b", servers, "--include-fenced-brokers"});
  // The topic is whole on the brokers left.
  auto after = run_native_tool(dir, "kafka-topics.sh",
                               {"--bootstrap-server", servers, "--describe", "--under-replicated-partitions"});
  EXPECT_EQ(after.exit_code, 0) << after.all();
  EXPECT_EQ(after.out, "") << after.all();
}

}  // namespace
}  // namespace hw::testing
