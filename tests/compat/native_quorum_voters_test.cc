// The native kafka-metadata-quorum.sh add-controller and remove-controller
// against Kafka 4.3.1's MetadataQuorumCommand, on a dynamic controller
// quorum of Apache Kafka 4.3.1 itself (KIP-853): node 1 formatted
// --standalone, node 2 formatted --no-initial-controllers and observing.
// The dry run prints the same line; the native tool adds node 2 and removes
// it again; each refusal (a voter added twice, removed twice, bad ids, a
// configuration that is no controller's) prints Kafka's messages, and the
// voters Kafka then reports are what each step made them.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "broker_process.h"
#include "kafka_server.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_quorum_command = "org.apache.kafka.tools.MetadataQuorumCommand";
const char* const k_script = "kafka-metadata-quorum.sh";

// stderr without log4j lines, stack frames and the JVM's own lines.
std::vector<std::string> messages_of(const std::string& err) {
  static const std::regex dropped(R"(^(\[\d{4}-\d\d-\d\d .*|\s+at .*|\s*\.\.\. \d+ more|\s*Caused by: .*|.*WARN.*|))");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!std::regex_match(line, dropped) && !jvm_log_line(line)) out.push_back(line);
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string property_of(const std::string& text, const std::string& key) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("(^|\n)" + key + "=([^\n]*)"))) return m[2];
  return "";
}

class NativeQuorumVotersIT : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("HW_KAFKA_QUORUM", "standalone", 1);
    const bool first = one.start("");
    unsetenv("HW_KAFKA_QUORUM");
    ASSERT_TRUE(first) << one.error();
    controller = "127.0.0.1:" + std::to_string(one.port() + 1);
    const std::string cluster = property_of(read_all(one.dir() + "/data/meta.properties"), "cluster.id");
    ASSERT_FALSE(cluster.empty());
    setenv("HW_KAFKA_QUORUM", ("join:" + controller).c_str(), 1);
    setenv("HW_KAFKA_NODE_ID", "2", 1);
    setenv("HW_KAFKA_CLUSTER_ID", cluster.c_str(), 1);
    const bool second = two.start("");
    for (const char* v : {"HW_KAFKA_QUORUM", "HW_KAFKA_NODE_ID", "HW_KAFKA_CLUSTER_ID"}) unsetenv(v);
    ASSERT_TRUE(second) << two.error();
    config = two.dir() + "/server.properties";
    directory = property_of(read_all(two.dir() + "/data/meta.properties"), "directory.id");
    ASSERT_EQ(directory.size(), 22u);
  }
  std::vector<std::string> with_bootstrap(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--bootstrap-controller", controller});
    return args;
  }
  // Both tools with the same arguments: the same stdout, status and messages.
  void expect_same(const std::vector<std::string>& args) {
    SCOPED_TRACE(::testing::PrintToString(args));
    auto java = run_kafka_tool(one.dir(), k_quorum_command, with_bootstrap(args));
    auto native = run_native_tool(one.dir(), k_script, with_bootstrap(args));
    EXPECT_EQ(native.exit_code, java.exit_code) << native.all() << java.all();
    EXPECT_EQ(lines_of(native.out), tool_lines(java)) << native.all() << java.all();
    EXPECT_EQ(messages_of(native.err), messages_of(java.err)) << native.all() << java.all();
  }
  // The CurrentVoters and CurrentObservers lines Kafka's tool prints now.
  std::string voters_and_observers() {
    auto r = run_kafka_tool(one.dir(), k_quorum_command, with_bootstrap({"describe", "--status"}));
    std::string out;
    for (const auto& line : tool_lines(r))
      if (line.starts_with("CurrentVoters:") || line.starts_with("CurrentObservers:")) out += line + "\n";
    return out;
  }
  differential::kafka_server one, two;
  std::string controller, config, directory;
};

TEST_F(NativeQuorumVotersIT, AddsAndRemovesAControllerAsKafkasTool) {
  const std::string node2 = "{\"id\": 2, \"directoryId\": \"" + directory + "\"";
  ASSERT_TRUE(wait_until([&] { return voters_and_observers().find("CurrentObservers:       [" + node2) != std::string::npos; }, 60s))
      << voters_and_observers();
  expect_same({"--command-config", config, "add-controller", "--dry-run"});
  auto dry = run_native_tool(one.dir(), k_script, with_bootstrap({"--command-config", config, "add-controller", "--dry-run"}));
  ASSERT_EQ(lines_of(dry.out).size(), 1u) << dry.all();
  EXPECT_EQ(lines_of(dry.out)[0], "DRY RUN of adding controller 2 with directory id " + directory +
                                      " and endpoints: CONTROLLER://127.0.0.1:" + std::to_string(two.port() + 1));

  // Added by the native tool (once node 2 has caught up: Kafka answers
  // REQUEST_TIMED_OUT "lagging behind" before).
  tool_result added;
  ASSERT_TRUE(wait_until(
      [&] {
        added = run_native_tool(one.dir(), k_script, with_bootstrap({"--command-config", config, "add-controller"}));
        return added.exit_code == 0;
      },
      60s))
      << added.all();
  EXPECT_EQ(lines_of(added.out),
            std::vector<std::string>{"Added" + lines_of(dry.out)[0].substr(std::string("DRY RUN of adding").size())});
  EXPECT_NE(voters_and_observers().find("CurrentVoters:          [{\"id\": 1"), std::string::npos);
  EXPECT_NE(voters_and_observers().find(", " + node2), std::string::npos) << voters_and_observers();
  expect_same({"--command-config", config, "add-controller"});  // DuplicateVoterException

  const std::vector<std::string> remove{"remove-controller", "--controller-id", "2", "--controller-directory-id", directory};
  auto removed = run_native_tool(one.dir(), k_script, with_bootstrap(remove));
  ASSERT_EQ(removed.exit_code, 0) << removed.all();
  EXPECT_EQ(lines_of(removed.out),
            std::vector<std::string>{"Removed  KRaft controller 2 with directory id " + directory});
  EXPECT_EQ(voters_and_observers().find(", " + node2), std::string::npos) << voters_and_observers();
  expect_same(remove);  // VoterNotFoundException
  expect_same({"remove-controller", "--controller-id", "1", "--controller-directory-id", directory});

  // Refused before anything is sent.
  expect_same({"remove-controller", "--controller-id", "-1", "--controller-directory-id", directory});
  expect_same({"remove-controller", "--controller-id", "2", "--controller-directory-id", "bogus"});
  expect_same({"remove-controller", "--controller-id", "2", "--controller-directory-id", directory, "--dry-run"});
  expect_same({"add-controller"});
  const std::string no_id = two.dir() + "/no-node-id.properties";
  std::ofstream(no_id) << "process.roles=controller\ncontroller.listener.names=CONTROLLER\n";
  expect_same({"--command-config", no_id, "add-controller"});
  const std::string broker_only = two.dir() + "/broker.properties";
  std::ofstream(broker_only) << "process.roles=broker\nnode.id=7\n";
  expect_same({"--command-config", broker_only, "add-controller"});
}

}  // namespace
}  // namespace hw::testing
