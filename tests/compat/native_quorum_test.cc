// The native kafka-metadata-quorum.sh against Kafka 4.3.1's
// MetadataQuorumCommand on the same highwater cluster: one node, and three
// voters with an observer-free combined quorum (kraft_nodes.h).
//
// Both tools run one after the other, and a live quorum moves between the
// two runs: the high watermark and log end offsets grow (the controller
// writes to the metadata log as brokers heartbeat) and the fetch timestamps
// are the time of each answer. Those columns are compared for their form
// (a number, -1 where Kafka prints it for "none"); everything else (cluster
// id, leader, epoch, the voters with their endpoints, node ids, directory
// ids, statuses, the table's header) must be identical.

#include <gtest/gtest.h>

#include <stdlib.h>

#include <regex>

#include "broker_process.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_quorum_command = "org.apache.kafka.tools.MetadataQuorumCommand";

bool is_number(const std::string& s) { return std::regex_match(s, std::regex("-?[0-9]+")); }

// A table row's cells: Kafka ends each with a tab, padded with spaces.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
    std::string cell = line.substr(start, tab - start);
    cell.erase(cell.find_last_not_of(' ') + 1);
    out.push_back(cell);
  }
  return out;
}

// The --status lines whose values move between two runs.
bool moving_status_line(const std::string& line) {
  for (const char* key : {"HighWatermark:", "MaxFollowerLag:", "MaxFollowerLagTimeMs:"})
    if (line.rfind(key, 0) == 0) return true;
  return false;
}

void expect_same_status(const tool_result& java, const tool_result& native) {
  ASSERT_EQ(native.exit_code, 0) << native.all();
  ASSERT_EQ(java.exit_code, 0) << java.all();
  const auto j = tool_lines(java), n = lines_of(native.out);
  ASSERT_EQ(j.size(), 8u) << java.all();
  ASSERT_EQ(n.size(), j.size()) << native.all();
  for (size_t i = 0; i < j.size(); ++i) {
    if (!moving_status_line(j[i])) {
      EXPECT_EQ(n[i], j[i]);
      continue;
    }
    const auto key = j[i].substr(0, j[i].find(':') + 1);
    ASSERT_EQ(n[i].rfind(key, 0), 0u) << n[i];
    EXPECT_EQ(n[i].substr(0, 24), j[i].substr(0, 24));  // the key and its padding
    EXPECT_TRUE(is_number(n[i].substr(24))) << n[i];
  }
}

// --replication: header identical; per row the node, directory and status
// identical, the offsets, lag and timestamps well-formed numbers.
void expect_same_replication(const tool_result& java, const tool_result& native) {
  ASSERT_EQ(native.exit_code, 0) << native.all();
  ASSERT_EQ(java.exit_code, 0) << java.all();
  const auto j = tool_lines(java), n = lines_of(native.out);
  ASSERT_EQ(n.size(), j.size()) << java.all() << native.all();
  ASSERT_FALSE(n.empty());
  EXPECT_EQ(n[0].substr(0, n[0].find("LogEndOffset")), j[0].substr(0, j[0].find("LogEndOffset")));
  EXPECT_EQ(words_of(n[0]), words_of(j[0]));
  static const std::regex ago("[0-9]+ ms ago");
  for (size_t i = 1; i < j.size(); ++i) {
    const auto jw = cells_of(j[i]), nw = cells_of(n[i]);
    ASSERT_EQ(nw.size(), 7u) << n[i];
    ASSERT_EQ(jw.size(), 7u) << j[i];
    EXPECT_EQ(nw[0], jw[0]);
    EXPECT_EQ(nw[1], jw[1]);
    EXPECT_EQ(nw[6], jw[6]);
    for (size_t c = 2; c < 4; ++c) EXPECT_TRUE(is_number(nw[c])) << n[i];
    for (size_t c = 4; c < 6; ++c) EXPECT_TRUE(is_number(nw[c]) || std::regex_match(nw[c], ago)) << n[i];
    EXPECT_NE(n[i].back(), ' ');
    EXPECT_EQ(n[i].back(), '\t');  // Kafka ends every cell, the last too, with a tab
  }
}

class NativeQuorumIT : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = start_with_controller_listener(broker);
    ASSERT_TRUE(port) << broker.log();
    controller = "127.0.0.1:" + std::to_string(*port);
  }
  std::pair<tool_result, tool_result> both(const std::vector<std::string>& args) {
    return {run_kafka_tool(broker.dir(), k_quorum_command, args), run_native_tool(broker.dir(), "kafka-metadata-quorum.sh", args)};
  }
  std::string controller;
  broker_process broker;
};

TEST_F(NativeQuorumIT, OneNodeStatusAndReplicationThroughBothListeners) {
  const std::string server = "127.0.0.1:" + std::to_string(broker.port());
  for (const auto& [how, address] : {std::pair{std::string("--bootstrap-server"), server},
                                     std::pair{std::string("--bootstrap-controller"), controller}}) {
    SCOPED_TRACE(how);
    auto [java, native] = both({how, address, "describe", "--status"});
    expect_same_status(java, native);
    // One voter: no follower to lag.
    EXPECT_TRUE(printed_line(native, "MaxFollowerLag:         0")) << native.all();
    EXPECT_TRUE(printed_line(native, "MaxFollowerLagTimeMs:   0")) << native.all();
    auto [java_rep, native_rep] = both({how, address, "describe", "--replication"});
    expect_same_replication(java_rep, native_rep);
    auto [java_hr, native_hr] = both({how, address, "describe", "--replication", "--human-readable"});
    expect_same_replication(java_hr, native_hr);
    EXPECT_NE(native_hr.out.find(" ms ago"), std::string::npos) << native_hr.all();
  }
}

TEST_F(NativeQuorumIT, BadArgumentsAndRefusedCommands) {
  const std::string server = "127.0.0.1:" + std::to_string(broker.port());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--bootstrap-server", server, "describe", "--status", "--foo"},
        {"--bootstrap-server", server, "describe"},
        {"--bootstrap-server", server, "describe", "--status", "--human-readable"},
        {"describe", "--status"},
        {"--bootstrap-server", server, "frobnicate"}}) {
    auto [java, native] = both(args);
    EXPECT_EQ(native.exit_code, java.exit_code) << native.all() << java.all();
    EXPECT_EQ(native.err, java.err);
    EXPECT_EQ(native.out, "");
  }
  // A static quorum that serves no RemoveRaftVoter: the client's refusal, as Kafka's tool prints it.
  auto [java, native] = both({"--bootstrap-server", server, "remove-controller", "-i", "1", "-d", "AAAAAAAAAAAAAAAAAAAAAA"});
  EXPECT_EQ(native.exit_code, 1);
  EXPECT_EQ(native.exit_code, java.exit_code);
  std::string java_message;  // the first line that is not a log line
  for (const auto& line : lines_of(java.err))
    if (java_message.empty() && !line.starts_with("[")) java_message = line;
  ASSERT_FALSE(lines_of(native.err).empty()) << native.all();
  EXPECT_EQ(lines_of(native.err).at(0), java_message) << native.all() << java.all();
}

TEST(NativeQuorumThreeNodesIT, StatusAndReplicationAsKafka) {
  setenv("CLUSTER_ID", "NativeQuorum3clusterAA", 1);  // one cluster id for the three nodes
  kraft_nodes cluster;
  const bool started = cluster.start(false);
  unsetenv("CLUSTER_ID");
  ASSERT_TRUE(started) << cluster.node(1).log();
  std::string controllers;
  for (int id = 1; id <= 3; ++id)
    controllers += (id > 1 ? "," : "") + std::string("127.0.0.1:") + std::to_string(cluster.node(id).port("CONTROLLER"));
  const std::string server = "127.0.0.1:" + std::to_string(cluster.node(2).port());
  // Wait for a settled quorum: every voter caught up once, so the status is stable.
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = run_native_tool(cluster.node(1).dir(), "kafka-metadata-quorum.sh",
                                 {"--bootstrap-controller", controllers, "describe", "--replication"});
        return r.exit_code == 0 && table_rows(r.out, "NodeId").size() == 3 &&
               r.out.find("\t-1") == std::string::npos;
      },
      60s));
  for (const auto& [how, address] : {std::pair{std::string("--bootstrap-server"), server},
                                     std::pair{std::string("--bootstrap-controller"), controllers}}) {
    SCOPED_TRACE(how);
    const std::vector<std::string> status{how, address, "describe", "--status"};
    auto java = run_kafka_tool(cluster.node(1).dir(), k_quorum_command, status);
    auto native = run_native_tool(cluster.node(1).dir(), "kafka-metadata-quorum.sh", status);
    expect_same_status(java, native);
    const std::vector<std::string> replication{how, address, "describe", "--replication"};
    expect_same_replication(run_kafka_tool(cluster.node(1).dir(), k_quorum_command, replication),
                            run_native_tool(cluster.node(1).dir(), "kafka-metadata-quorum.sh", replication));
  }
}

}  // namespace
}  // namespace hw::testing
