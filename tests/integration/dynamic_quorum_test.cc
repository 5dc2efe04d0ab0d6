// A dynamic controller quorum (KIP-853) of highwater nodes, run as an
// operator runs one: controller 1 formatted --standalone, controller 2
// formatted --no-initial-controllers (it observes), and a broker that knows
// the controllers only through controller.quorum.bootstrap.servers. The
// native kafka-metadata-quorum.sh adds controller 2 once it has caught up,
// the leader is removed (controller 2 leads alone, the cluster keeps
// working), controller 1 comes back as a voter, then at another address
// (UpdateRaftVoter); every step as DescribeQuorum reports it. Kafka's own tool on a Kafka quorum is compared with the native
// one in tests/compat/native_quorum_voters_test.cc.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "broker_process.h"

namespace hw::testing {
namespace {

namespace fs = std::filesystem;

struct run_result {
  int status = -1;
  std::string out;
};

run_result run_tool(const std::string& dir, const std::string& tool, const std::vector<std::string>& args) {
  const std::string log = dir + "/tool.out";
  std::string cmd = std::string("'") + HW_TOOLS_BINARY + "' " + tool;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " >'" + log + "' 2>&1";
  run_result r;
  const int status = std::system(cmd.c_str());
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  r.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return r;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string directory_id_of(const std::string& meta_dir) {
  std::smatch m;
  const std::string text = read_all(meta_dir + "/meta.properties");
  return std::regex_search(text, m, std::regex("directory.id=([A-Za-z0-9_-]{22})")) ? std::string(m[1]) : "";
}

class DynamicQuorumIT : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("hw-dynamic-quorum-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override {
    if (HasFailure())
      for (auto* n : {&c1, &c2, &broker}) ADD_FAILURE() << "---- node log ----\n" << n->log();
    for (auto* n : {&c1, &c2, &broker}) n->stop(SIGTERM);
    fs::remove_all(root);
  }
  std::string dir(const std::string& name) const { return (root / name).string(); }
  // A controller's configuration; its storage formatted with `how`.
  std::string controller_config(int id, uint16_t port, const std::string& bootstrap) {
    const std::string file = dir("c" + std::to_string(id) + ".properties");
    std::ofstream(file) << "process.roles=controller\nnode.id=" << id << "\ncontroller.listener.names=CONTROLLER\n"
                        << "listeners=CONTROLLER://127.0.0.1:" << port << "\n"
                        << "controller.quorum.bootstrap.servers=" << bootstrap << "\n"
                        << "controller.quorum.fetch.timeout.ms=2000\ncontroller.quorum.election.timeout.ms=500\n"
                        << "log.dirs=" << dir("c" + std::to_string(id)) << "\n";
    return file;
  }
  std::string describe(uint16_t controller_port) {
    auto r = run_tool(root.string(), "kafka-metadata-quorum.sh",
                      {"--bootstrap-controller", "127.0.0.1:" + std::to_string(controller_port), "describe", "--status"});
    return r.out;
  }
  fs::path root;
  broker_process c1, c2, broker;
  uint16_t p1 = 0, p2 = 0;
  std::string cfg1, cfg2, bootstrap;
};

TEST_F(DynamicQuorumIT, ControllersAddedAndRemovedLive) {
  const std::string cluster = "DynamicQuorumITcluster";
  auto chosen = start_on_fresh_ports(2, [&](const std::vector<uint16_t>& ports) {
    p1 = ports[0];
    p2 = ports[1];
    bootstrap = "127.0.0.1:" + std::to_string(p1) + ",127.0.0.1:" + std::to_string(p2);
    fs::remove_all(dir("c1"));
    fs::remove_all(dir("c2"));
    cfg1 = controller_config(1, p1, bootstrap);
    cfg2 = controller_config(2, p2, bootstrap);
    auto f1 = run_tool(root.string(), "kafka-storage.sh", {"format", "-c", cfg1, "-t", cluster, "--standalone"});
    auto f2 = run_tool(root.string(), "kafka-storage.sh", {"format", "-c", cfg2, "-t", cluster, "--no-initial-controllers"});
    EXPECT_EQ(f1.status, 0) << f1.out;
    EXPECT_EQ(f2.status, 0) << f2.out;
    const bool one = c1.start({"--config", cfg1, "--override", "listeners=CONTROLLER://127.0.0.1:" + std::to_string(p1)});
    const bool two =
        one && c2.start({"--config", cfg2, "--override", "listeners=CONTROLLER://127.0.0.1:" + std::to_string(p2)});
    return started_or_port_taken(one && two, {&c1, &c2});
  });
  ASSERT_TRUE(chosen);
  setenv("CLUSTER_ID", cluster.c_str(), 1);  // the broker formats itself into the controllers' cluster
  const bool broker_started =
      broker.start({"--override", "process.roles=broker", "--override", "node.id=3", "--override",
                    "controller.listener.names=CONTROLLER", "--override", "controller.quorum.bootstrap.servers=" + bootstrap});
  unsetenv("CLUSTER_ID");
  ASSERT_TRUE(broker_started);
  const std::string dir1 = directory_id_of(dir("c1")), dir2 = directory_id_of(dir("c2"));
  ASSERT_EQ(dir1.size(), 22u);
  ASSERT_EQ(dir2.size(), 22u);
  const std::string voter1 = "{\"id\": 1, \"directoryId\": \"" + dir1 + "\", \"endpoints\": [\"CONTROLLER://127.0.0.1:" +
                             std::to_string(p1) + "\"]}";
  const std::string voter2 = "{\"id\": 2, \"directoryId\": \"" + dir2 + "\", \"endpoints\": [\"CONTROLLER://127.0.0.1:" +
                             std::to_string(p2) + "\"]}";
  // Controller 2 observes; the broker (3) too.
  ASSERT_TRUE(wait_until([&] { return describe(p1).find("CurrentObservers:       [{\"id\": 2, \"directoryId\": \"" + dir2) != std::string::npos; }, 30s))
      << describe(p1);
  EXPECT_NE(describe(p1).find("CurrentVoters:          [" + voter1 + "]"), std::string::npos) << describe(p1);

  // Added once caught up.
  const std::vector<std::string> add{"--bootstrap-controller", "127.0.0.1:" + std::to_string(p1), "--command-config", cfg2,
                                     "add-controller"};
  run_result added;
  ASSERT_TRUE(wait_until([&] { return (added = run_tool(root.string(), "kafka-metadata-quorum.sh", add)).status == 0; }, 30s))
      << added.out;
  EXPECT_EQ(added.out, "Added controller 2 with directory id " + dir2 + " and endpoints: CONTROLLER://127.0.0.1:" +
                           std::to_string(p2) + "\n");
  EXPECT_NE(describe(p1).find("CurrentVoters:          [" + voter1 + ", " + voter2 + "]"), std::string::npos)
      << describe(p1);
  // Added twice: Kafka's refusal.
  auto twice = run_tool(root.string(), "kafka-metadata-quorum.sh", add);
  EXPECT_EQ(twice.status, 1);
  EXPECT_NE(twice.out.find("org.apache.kafka.common.errors.DuplicateVoterException: The voter id for ReplicaKey(id=2, "
                           "directoryId=" + dir2 + ") is already part of the set of voters"),
            std::string::npos)
      << twice.out;

  // The leader (1) removed: 2 leads alone, 1 observes.
  auto removed = run_tool(root.string(), "kafka-metadata-quorum.sh",
                          {"--bootstrap-controller", "127.0.0.1:" + std::to_string(p1), "remove-controller",
                           "--controller-id", "1", "--controller-directory-id", dir1});
  ASSERT_EQ(removed.status, 0) << removed.out;
  EXPECT_EQ(removed.out, "Removed  KRaft controller 1 with directory id " + dir1 + "\n");
  ASSERT_TRUE(wait_until([&] { return describe(p2).find("CurrentVoters:          [" + voter2 + "]") != std::string::npos; }, 30s))
      << describe(p2);
  EXPECT_TRUE(wait_until([&] { return describe(p2).find("\"id\": 1, \"directoryId\": \"" + dir1) != std::string::npos; }, 30s))
      << describe(p2);
  // The cluster works under its new quorum: a topic is made through the broker.
  auto topic = run_tool(root.string(), "kafka-topics.sh",
                        {"--bootstrap-server", "127.0.0.1:" + std::to_string(broker.port()), "--create", "--topic", "after"});
  EXPECT_EQ(topic.status, 0) << topic.out;

  // Controller 1 comes back as a voter.
  const std::vector<std::string> add_back{"--bootstrap-controller", "127.0.0.1:" + std::to_string(p2), "--command-config",
                                          cfg1, "add-controller"};
  ASSERT_TRUE(wait_until([&] { return (added = run_tool(root.string(), "kafka-metadata-quorum.sh", add_back)).status == 0; }, 30s))
      << added.out;
  EXPECT_NE(describe(p2).find("CurrentVoters:          [" + voter1 + ", " + voter2 + "]"), std::string::npos)
      << describe(p2);

  // Controller 1 (a follower now) comes back at another address: it tells
  // the leader (UpdateRaftVoter), whose voter set then names the new one.
  c1.stop(SIGTERM);
  uint16_t p3 = 0;
  auto moved = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
    p3 = ports[0];
    return started_or_port_taken(
        c1.start({"--config", cfg1, "--override", "listeners=CONTROLLER://127.0.0.1:" + std::to_string(p3)}), {&c1});
  });
  ASSERT_TRUE(moved);
  const std::string moved1 = "{\"id\": 1, \"directoryId\": \"" + dir1 +
                             "\", \"endpoints\": [\"CONTROLLER://127.0.0.1:" + std::to_string(p3) + "\"]}";
  EXPECT_TRUE(wait_until(
      [&] { return describe(p2).find("CurrentVoters:          [" + moved1 + ", " + voter2 + "]") != std::string::npos; },
      30s))
      << describe(p2);
  auto again = run_tool(root.string(), "kafka-topics.sh",
                        {"--bootstrap-server", "127.0.0.1:" + std::to_string(broker.port()), "--create", "--topic", "moved"});
  EXPECT_EQ(again.status, 0) << again.out;
}

}  // namespace
}  // namespace hw::testing
