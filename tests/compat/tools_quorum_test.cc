// Kafka 4.3.1's MetadataQuorumCommand (kafka-metadata-quorum.sh) against a
// highwater with a CONTROLLER listener, through the broker listener
// (--bootstrap-server) and the controller listener (--bootstrap-controller):
// leader, epoch, high watermark, the voter and its endpoint.

#include <gtest/gtest.h>

#include <algorithm>

#include "broker_process.h"
#include "kafka_tool.h"

namespace hw::testing {
namespace {

const char* const k_quorum_command = "org.apache.kafka.tools.MetadataQuorumCommand";

class ToolsQuorumIT : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = start_with_controller_listener(broker);
    ASSERT_TRUE(port) << broker.log();
    controller_port = *port;
  }
  tool_result quorum(const std::string& how, const std::string& address, const std::string& what) {
    return run_kafka_tool(broker.dir(), k_quorum_command, {how, address, "describe", what});
  }
  uint16_t controller_port = 0;
  broker_process broker;
};

TEST_F(ToolsQuorumIT, StatusAndReplicationThroughBothListeners) {
  const std::string broker_address = "127.0.0.1:" + std::to_string(broker.port());
  const std::string controller_address = "127.0.0.1:" + std::to_string(controller_port);
  const std::string voters =
      "CurrentVoters:          [{\"id\": 1, \"endpoints\": [\"CONTROLLER://" + controller_address + "\"]}]";
  for (const auto& [how, address] : {std::pair{std::string("--bootstrap-server"), broker_address},
                                     std::pair{std::string("--bootstrap-controller"), controller_address}}) {
    SCOPED_TRACE(how);
    auto status = quorum(how, address, "--status");
    ASSERT_EQ(status.exit_code, 0) << status.all();
    EXPECT_TRUE(printed_line_starting(status, "ClusterId:")) << status.all();
    EXPECT_TRUE(printed_line(status, "LeaderId:               1")) << status.all();
    EXPECT_TRUE(printed_line_starting(status, "LeaderEpoch:            ")) << status.all();
    EXPECT_TRUE(printed_line_starting(status, "HighWatermark:          ")) << status.all();
    EXPECT_TRUE(printed_line(status, voters)) << status.all();
    EXPECT_TRUE(printed_line(status, "CurrentObservers:       []")) << status.all();

    auto replication = quorum(how, address, "--replication");
    ASSERT_EQ(replication.exit_code, 0) << replication.all();
    auto rows = lines_of(replication.out);
    ASSERT_EQ(rows.size(), 2u) << replication.all();
    EXPECT_EQ(rows[0].rfind("NodeId", 0), 0u) << replication.all();
    EXPECT_EQ(rows[1].rfind("1 ", 0), 0u) << replication.all();
    EXPECT_NE(rows[1].find("Leader"), std::string::npos) << replication.all();
  }
}

// process.roles=controller alone: the node listens on its controller
// listener only, serving the quorum and the controller's admin APIs.
TEST(ToolsQuorumControllerOnlyIT, AControllerOnlyNodeServesTheControllerApis) {
  broker_process controller;
  auto chosen = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
    const std::string at = "127.0.0.1:" + std::to_string(ports[0]);
    return started_or_port_taken(
        controller.start({"--override", "process.roles=controller", "--override", "listeners=CONTROLLER://" + at,
                          "--override", "controller.listener.names=CONTROLLER", "--override",
                          "controller.quorum.voters=1@" + at}),
        {&controller});
  });
  ASSERT_TRUE(chosen) << controller.log();
  const uint16_t port = chosen->at(0);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(controller.port("CONTROLLER"), port);
  EXPECT_EQ(controller.port("PLAINTEXT"), 0) << "no broker listener";

  auto status = run_kafka_tool(controller.dir(), k_quorum_command, {"--bootstrap-controller", address, "describe", "--status"});
  ASSERT_EQ(status.exit_code, 0) << status.all();
  EXPECT_TRUE(printed_line(status, "LeaderId:               1")) << status.all();

  auto configs = run_kafka_tool(controller.dir(), "kafka.admin.ConfigCommand",
                                {"--bootstrap-controller", address, "--entity-type", "brokers", "--entity-name", "1",
                                 "--describe"});
  ASSERT_EQ(configs.exit_code, 0) << configs.all();
  EXPECT_EQ(lines_of(configs.out), std::vector<std::string>{"Dynamic configs for broker 1 are:"}) << configs.all();
}

}  // namespace
}  // namespace hw::testing
