// Moving replicas and leaders with Apache Kafka 4.3.1's own tools, as an
// operator does: kafka-reassign-partitions.sh (--generate, --execute with
// --throttle, --list, --verify) moves partitions onto a fourth broker
// added to a running three-node cluster, and kafka-leader-election.sh
// (preferred and unclean, by partition, for all partitions, from a JSON
// file) moves leaders back. The expected lines are what the same commands
// printed against a Kafka 4.3.1 cluster (one controller, brokers 4-7)
// for the same cases: only names, ids and log dirs differ.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "kafka_tool.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";
const char* const k_reassign_command = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";
const char* const k_election_command = "org.apache.kafka.tools.LeaderElectionCommand";
const char* const k_perf_producer = "org.apache.kafka.tools.ProducerPerformance";

// Three combined nodes 1-3 and, when a test adds it, broker-only node 4,
// with short lag and session timeouts; no automatic leader balancing, so
// that only the tools move leaders.
class ToolsReassignIT : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "ToolsReassignITclusteA", 1);
    std::string tmpl = (std::filesystem::temp_directory_path() / "hw-tools-reassign-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    work_dir = tmpl;
    std::vector<broker_process*> all;
    for (int i = 0; i < 4; ++i) nodes.push_back(std::make_unique<broker_process>());
    for (int i = 0; i < 3; ++i) all.push_back(nodes[i].get());
    auto chosen = start_on_fresh_ports(3, [&](const std::vector<uint16_t>& ports) {
      controller_ports = ports;
      voters.clear();
      for (int i = 0; i < 3; ++i) voters += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
      std::vector<std::thread> starting;
      std::vector<int> started(3, 0);
      for (int i = 0; i < 3; ++i) starting.emplace_back([&, i] { started[i] = start_node(i + 1); });
      for (auto& t : starting) t.join();
      return started_or_port_taken(started[0] && started[1] && started[2], all);
    });
    ASSERT_TRUE(chosen) << logs();
  }
  void TearDown() override {
    unsetenv("CLUSTER_ID");
    std::error_code ec;
    std::filesystem::remove_all(work_dir, ec);
  }

  bool start_node(int id) {
    std::vector<std::string> overrides{"node.id=" + std::to_string(id), "controller.listener.names=CONTROLLER",
                                       "controller.quorum.voters=" + voters, "replica.lag.time.max.ms=3000",
                                       "broker.session.timeout.ms=4000", "broker.heartbeat.interval.ms=500",
                                       "auto.leader.rebalance.enable=false"};
    if (id <= 3) {
      overrides.push_back("process.roles=broker,controller");
      overrides.push_back("listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" +
                          std::to_string(controller_ports[id - 1]));
    } else {
      overrides.push_back("process.roles=broker");
    }
    std::vector<std::string> args;
    for (const auto& o : overrides) {
      args.push_back("--override");
      args.push_back(o);
    }
    return node(id).start(args, 60s);
  }
  broker_process& node(int id) { return *nodes[id - 1]; }

  std::string bootstrap() {
    std::string out;
    for (auto& n : nodes)
      if (n->running()) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(n->port());
    return out;
  }
  tool_result tool(const char* main_class, std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return run_kafka_tool(work_dir, main_class, args);
  }
  std::string logs() const {
    std::string out;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::string log = nodes[i]->log();
      out += "---- node " + std::to_string(i + 1) + " ----\n" +
             (log.size() > 20000 ? "[...]\n" + log.substr(log.size() - 20000) : log);
    }
    return out;
  }
  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = work_dir + "/" + name;
    std::ofstream(path) << text << "\n";
    return path;
  }

  // Replicas, leader and ISR of every partition of topic, as node via's
  // metadata has them (empty when it did not answer in full).
  struct partition_state {
    std::vector<int32_t> replicas;
    int32_t leader = -1;
    std::set<int32_t> isr;
  };
  std::vector<partition_state> partitions(int via, const std::string& topic) {
    raw_client client(node(via).port());
    auto md = client.metadata(std::vector<std::string>{topic});
    std::vector<partition_state> out;
    if (!md || md->topics.size() != 1 || md->topics[0].error_code != 0) return out;
    out.resize(md->topics[0].partitions.size());
    for (const auto& p : md->topics[0].partitions) {
      if (p.partition_index < 0 || static_cast<size_t>(p.partition_index) >= out.size()) return {};
      out[p.partition_index] = {p.replica_nodes, p.leader_id, {p.isr_nodes.begin(), p.isr_nodes.end()}};
    }
    return out;
  }
  // Whether every partition's ISR is its whole replica set.
  bool fully_in_sync(int via, const std::string& topic) {
    auto parts = partitions(via, topic);
    if (parts.empty()) return false;
    return std::all_of(parts.begin(), parts.end(), [](const partition_state& p) {
      return p.leader > 0 && p.isr == std::set<int32_t>(p.replicas.begin(), p.replicas.end());
    });
  }

  std::string work_dir;
  std::vector<uint16_t> controller_ports;
  std::string voters;
  std::vector<std::unique_ptr<broker_process>> nodes;
};

// "t-1, t-0" (a Java set's order) as a set of names.
std::set<std::string> partition_set(const std::string& list) {
  std::set<std::string> out;
  std::regex item("[^, ]+");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), item); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

TEST_F(ToolsReassignIT, AFourthBrokerTakesPartitionsThroughAThrottledReassignment) {
  auto created = tool(k_topic_command, {"--create", "--topic", "moving", "--replica-assignment", "1:2,2:3,3:1"});
  ASSERT_EQ(created.exit_code, 0) << created.all() << logs();
  ASSERT_TRUE(wait_until([&] { return fully_in_sync(1, "moving"); }, 30s)) << logs();
  // 6 MB over the three partitions, acknowledged by both replicas: about
  // 2 MB each, so no partition fits in the new replica's first fetch
  // (replica.fetch.max.bytes, 1 MiB) and every one waits for the throttle.
  auto produced = tool(k_perf_producer, {"--topic", "moving", "--num-records", "6000", "--record-size", "1000",
                                         "--throughput", "-1", "--producer-props", "acks=all",
                                         "bootstrap.servers=" + bootstrap()});
  ASSERT_EQ(produced.exit_code, 0) << produced.all();
  ASSERT_TRUE(printed_line_starting(produced, "6000 records sent")) << produced.all();

  ASSERT_TRUE(start_node(4)) << logs();

  // --generate proposes a plan over brokers 2-4 and shows where the
  // replicas are now, with their log dirs.
  const std::string topics_json = write_file("topics.json", R"({"topics":[{"topic":"moving"}],"version":1})");
  auto generated = tool(k_reassign_command, {"--generate", "--topics-to-move-json-file", topics_json, "--broker-list",
                                             "2,3,4"});
  ASSERT_EQ(generated.exit_code, 0) << generated.all();
  auto g = tool_lines(generated);
  ASSERT_EQ(g.size(), 4u) << generated.all();
  EXPECT_EQ(g[0], "Current partition replica assignment");
  const std::string dir1 = node(1).dir(), dir3 = node(3).dir();
  EXPECT_NE(g[1].find(R"({"topic":"moving","partition":0,"replicas":[1,2],"log_dirs":[")"), std::string::npos) << g[1];
  EXPECT_EQ(g[2], "Proposed partition reassignment configuration");
  static const std::regex proposed(
      R"(\{"version":1,"partitions":\[(\{"topic":"moving","partition":[0-2],"replicas":\[[2-4],[2-4]\],"log_dirs":\["any","any"\]\},?){3}\]\})");
  EXPECT_TRUE(std::regex_match(g[3], proposed)) << g[3];

  // --execute with a throttle: every partition gets a replica on 4.
  const std::string plan = write_file(
      "plan.json",
      R"({"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[4,2],"log_dirs":["any","any"]},)"
      R"({"topic":"moving","partition":1,"replicas":[2,4],"log_dirs":["any","any"]},)"
      R"({"topic":"moving","partition":2,"replicas":[3,4],"log_dirs":["any","any"]}]})");
  const auto began = std::chrono::steady_clock::now();
  auto executed = tool(k_reassign_command, {"--execute", "--reassignment-json-file", plan, "--throttle", "300000"});
  ASSERT_EQ(executed.exit_code, 0) << executed.all() << logs();
  auto e = tool_lines(executed);
  ASSERT_EQ(e.size(), 6u) << executed.all();
  EXPECT_EQ(e[0], "Current partition replica assignment");
  EXPECT_EQ(e[1], g[1]) << "the same current assignment as --generate showed";
  EXPECT_EQ(e[2], "Save this to use as the --reassignment-json-file option during rollback");
  EXPECT_EQ(e[3], "Warning: You must run --verify periodically, until the reassignment completes, to ensure the "
                  "throttle is removed.");
  EXPECT_EQ(e[4], "The inter-broker throttle limit was set to 300000 B/s");
  EXPECT_EQ(e[5], "Successfully started partition reassignments for moving-0,moving-1,moving-2");

  // 6 MB into broker 4 at 300 kB/s: still under way.
  auto listed = tool(k_reassign_command, {"--list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.all();
  auto l = tool_lines(listed);
  ASSERT_FALSE(l.empty()) << listed.all();
  EXPECT_EQ(l[0], "Current partition reassignments:") << listed.all();
  EXPECT_TRUE(printed_line(listed, "moving-0: replicas: 4,2,1. adding: 4. removing: 1.") ||
              printed_line(listed, "moving-2: replicas: 3,4,1. adding: 4. removing: 1."))
      << listed.all();
  auto in_progress = tool(k_reassign_command, {"--verify", "--reassignment-json-file", plan});
  EXPECT_EQ(in_progress.exit_code, 0) << in_progress.all();
  EXPECT_EQ(tool_lines(in_progress).front(), "Status of partition reassignment:");
  EXPECT_TRUE(printed_line(in_progress, "Reassignment of partition moving-0 is still in progress.") ||
              printed_line(in_progress, "Reassignment of partition moving-2 is still in progress."))
      << in_progress.all();

  // Done once every partition's ISR holds its new replicas only; the
  // throttle made it take its time.
  ASSERT_TRUE(wait_until([&] { return tool_lines(tool(k_reassign_command, {"--list"})) ==
                                      std::vector<std::string>{"No partition reassignments found."}; },
                         120s))
      << logs();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
  EXPECT_GE(took.count(), 5000) << "6 MB at 300 kB/s cannot move faster than the throttle lets it";
  auto done = tool(k_reassign_command, {"--verify", "--reassignment-json-file", plan});
  ASSERT_EQ(done.exit_code, 0) << done.all();
  EXPECT_EQ(tool_lines(done),
            (std::vector<std::string>{"Status of partition reassignment:",
                                      "Reassignment of partition moving-0 is completed.",
                                      "Reassignment of partition moving-1 is completed.",
                                      "Reassignment of partition moving-2 is completed.",
                                      "Clearing broker-level throttles on brokers 1,2,3,4",
                                      "Clearing topic-level throttles on topic moving"}))
      << done.all();

  auto after = partitions(4, "moving");
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].replicas, (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(after[1].replicas, (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(after[2].replicas, (std::vector<int32_t>{3, 4}));
  ASSERT_TRUE(wait_until([&] { return fully_in_sync(4, "moving"); }, 30s)) << logs();
  // Broker 4 holds every record, and the replicas that left are gone.
  auto offsets = tool("org.apache.kafka.tools.GetOffsetShell", {"--topic", "moving"});
  int64_t total = 0;
  for (const auto& line : tool_lines(offsets)) total += std::stoll(line.substr(line.rfind(':') + 1));
  EXPECT_EQ(total, 6000) << offsets.all();
  EXPECT_TRUE(wait_until([&] { return !std::filesystem::exists(dir1 + "/data/moving-0") &&
                                      !std::filesystem::exists(dir1 + "/data/moving-2") &&
                                      !std::filesystem::exists(dir3 + "/data/moving-1"); },
                         30s));
  EXPECT_TRUE(std::filesystem::exists(node(4).dir() + "/data/moving-0"));
}

TEST_F(ToolsReassignIT, LeaderElectionsPrintWhatKafkasPrint) {
  auto created = tool(k_topic_command, {"--create", "--topic", "le", "--replica-assignment", "1:2:3,1:3:2,2:1:3"});
  ASSERT_EQ(created.exit_code, 0) << created.all() << logs();
  ASSERT_TRUE(wait_until([&] { return fully_in_sync(2, "le"); }, 30s)) << logs();

  auto not_needed = tool(k_election_command, {"--election-type", "preferred", "--topic", "le", "--partition", "0"});
  EXPECT_EQ(not_needed.exit_code, 0) << not_needed.all();
  EXPECT_EQ(tool_lines(not_needed), std::vector<std::string>{"Valid replica already elected for partitions le-0"});

  // The preferred leader of le-0 and le-1 down: their leadership moves and
  // a preferred election cannot bring it back.
  ASSERT_TRUE(node(1).stop(SIGTERM, 30s).has_value());
  ASSERT_TRUE(wait_until([&] {
    auto p = partitions(2, "le");
    return p.size() == 3 && p[0].leader > 1 && p[1].leader > 1 && !p[0].isr.count(1);
  }, 30s)) << logs();
  auto unavailable = tool(k_election_command, {"--election-type", "preferred", "--topic", "le", "--partition", "0"});
  EXPECT_EQ(unavailable.exit_code, 1) << unavailable.all();
  auto u = tool_lines(unavailable);
  ASSERT_EQ(u.size(), 1u) << unavailable.all();
  EXPECT_EQ(u[0], "Error completing leader election (PREFERRED) for partition: le-0: "
                  "org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: The preferred leader was not "
                  "available.");
  // The summary goes to stderr, with the exception's stack.
  EXPECT_EQ(lines_of(unavailable.err).front(), "1 replica(s) could not be elected") << unavailable.all();

  // Back and in sync: one election for every partition moves both back.
  ASSERT_TRUE(start_node(1)) << logs();
  ASSERT_TRUE(wait_until([&] { return fully_in_sync(2, "le"); }, 30s)) << logs();
  auto all = tool(k_election_command, {"--election-type", "preferred", "--all-topic-partitions"});
  EXPECT_EQ(all.exit_code, 0) << all.all();
  auto a = tool_lines(all);
  ASSERT_EQ(a.size(), 1u) << all.all();
  const std::string done = "Successfully completed leader election (PREFERRED) for partitions ";
  ASSERT_EQ(a[0].rfind(done, 0), 0u) << a[0];
  EXPECT_EQ(partition_set(a[0].substr(done.size())), (std::set<std::string>{"le-0", "le-1"})) << a[0];
  auto back = partitions(2, "le");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].leader, 1);
  EXPECT_EQ(back[1].leader, 1);

  // An unclean election where the leader is alive is not needed either.
  auto unclean = tool(k_election_command, {"--election-type", "unclean", "--topic", "le", "--partition", "1"});
  EXPECT_EQ(unclean.exit_code, 0) << unclean.all();
  EXPECT_EQ(tool_lines(unclean), std::vector<std::string>{"Valid replica already elected for partitions le-1"});

  // From a JSON file, with a topic that does not exist.
  const std::string file = write_file(
      "elect.json",
      R"({"partitions":[{"topic":"le","partition":0},{"topic":"le","partition":2},{"topic":"nope","partition":0}]})");
  auto from_file = tool(k_election_command, {"--election-type", "preferred", "--path-to-json-file", file});
  EXPECT_EQ(from_file.exit_code, 1) << from_file.all();
  auto f = tool_lines(from_file);
  ASSERT_EQ(f.size(), 2u) << from_file.all();
  const std::string valid = "Valid replica already elected for partitions ";
  ASSERT_EQ(f[0].rfind(valid, 0), 0u) << f[0];
  EXPECT_EQ(partition_set(f[0].substr(valid.size())), (std::set<std::string>{"le-0", "le-2"})) << f[0];
  EXPECT_EQ(f[1], "Error completing leader election (PREFERRED) for partition: nope-0: "
                  "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: No such topic as nope");
  EXPECT_EQ(lines_of(from_file.err).front(), "1 replica(s) could not be elected") << from_file.all();
}

}  // namespace
}  // namespace hw::testing
