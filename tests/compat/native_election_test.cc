// The native kafka-leader-election.sh against Kafka 4.3.1's
// LeaderElectionCommand: the same arguments against the same highwater
// cluster (three controllers, brokers 4-6, no automatic leader balancing)
// print the same stdout, exit the same way and print the same messages on
// stderr (stack frames aside, which the native tool does not print).
//
// An election changes the cluster, so where one does, the Java tool runs
// first and the cluster is put back into an equivalent state before the
// native tool runs: preferred leaders are moved by reordering replica lists
// (AlterPartitionReassignments with the same replicas), and a leaderless
// partition is made again by stopping and starting its brokers.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "native_tool.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/create_topics.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;

const char* const k_election_command = "org.apache.kafka.tools.LeaderElectionCommand";
const char* const k_script = "kafka-leader-election.sh";

// Kafka's stderr without log4j lines, stack frames and the JVM's own lines.
std::vector<std::string> stderr_messages(const std::string& err) {
  static const std::regex dropped(R"(^(\[\d{4}-\d\d-\d\d .*|\s+at .*|\s*\.\.\. \d+ more|\s*Caused by: .*|\s*Suppressed: .*))");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!std::regex_match(line, dropped) && !jvm_log_line(line)) out.push_back(line);
  return out;
}

std::vector<std::string> stdout_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!jvm_log_line(line)) lines.push_back(line);
  return lines;
}

class ElectionNativeIT : public ::testing::Test {
 protected:
  // One cluster for the suite: its topics are made once, each test leaves
  // every leader where it found it.
  static void SetUpTestSuite() {
    setenv("CLUSTER_ID", "ElectionNativeITclustrA", 1);
    std::string tmpl = (std::filesystem::temp_directory_path() / "hw-election-native-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    work_dir = new std::string(tmpl);
    cluster = new kraft_nodes;
    ASSERT_TRUE(cluster->start(true, {"auto.leader.rebalance.enable=false"})) << logs();
    // Preferred replica 4 everywhere but le (one partition led by each
    // broker); u has two replicas, solo one.
    ASSERT_TRUE(create("ord", 20, {4, 5, 6}) && create("alpha", 4, {4, 5, 6}) && create("b", 2, {4, 5, 6}) &&
                create("u", 1, {5, 6}) && create("solo", 1, {6}))
        << logs();
    ASSERT_TRUE(create_assigned("le", {{4, 5, 6}, {5, 6, 4}, {6, 4, 5}})) << logs();
    ASSERT_TRUE(wait_until([] { return in_sync("ord") && in_sync("le") && in_sync("u") && in_sync("solo"); }, 60s))
        << logs();
  }
  static void TearDownTestSuite() {
    delete cluster;
    unsetenv("CLUSTER_ID");
    std::error_code ec;
    if (work_dir) std::filesystem::remove_all(*work_dir, ec);
    delete work_dir;
  }

  static broker_process& node(int id) { return cluster->node(id); }
  static std::string bootstrap() {
    std::string out;
    for (int id = 4; id <= 6; ++id)
      if (node(id).running()) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(node(id).port());
    return out;
  }
  // A broker that is up, to send the test's own requests to.
  static int live_broker() {
    for (int id = 4; id <= 6; ++id)
      if (node(id).running()) return id;
    return 4;
  }
  static std::string logs() {
    std::string out;
    if (!cluster) return out;
    for (size_t i = 0; i < cluster->nodes.size(); ++i) {
      const std::string log = cluster->nodes[i]->log();
      out += "---- node " + std::to_string(i + 1) + " ----\n" +
             (log.size() > 8000 ? "[...]\n" + log.substr(log.size() - 8000) : log);
    }
    return out;
  }

  static bool create_assigned(const std::string& topic, const std::vector<std::vector<int32_t>>& replicas) {
    msg::create_topics_request req;
    msg::create_topics_request::creatable_topic t;
    t.name = topic;
    t.num_partitions = -1;
    t.replication_factor = -1;
    for (size_t p = 0; p < replicas.size(); ++p) {
      msg::create_topics_request::creatable_replica_assignment a;
      a.partition_index = static_cast<int32_t>(p);
      a.broker_ids = replicas[p];
      t.assignments.push_back(a);
    }
    req.topics.push_back(t);
    raw_client client(node(4).port());
    auto resp = client.call<msg::create_topics_response>(19, k_create_topics_version, req);
    return resp && resp->topics.size() == 1 && resp->topics[0].error_code == 0;
  }
  static bool create(const std::string& topic, int partitions, const std::vector<int32_t>& replicas) {
    return create_assigned(topic, std::vector<std::vector<int32_t>>(static_cast<size_t>(partitions), replicas));
  }

  struct partition_state {
    std::vector<int32_t> replicas;
    int32_t leader = -1;
    std::set<int32_t> isr;
  };
  static std::vector<partition_state> partitions(const std::string& topic) {
    raw_client client(node(live_broker()).port());
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
  static int32_t leader_of(const std::string& topic) {
    auto parts = partitions(topic);
    return parts.empty() ? -2 : parts[0].leader;
  }
  static bool in_sync(const std::string& topic) {
    auto parts = partitions(topic);
    return !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const partition_state& p) {
      return p.leader > 0 && p.isr == std::set<int32_t>(p.replicas.begin(), p.replicas.end());
    });
  }

  // ord, alpha and b get this replica order (the same replicas): the
  // preferred leader changes, the leaders stay.
  static bool reorder(const std::vector<int32_t>& replicas) {
    msg::alter_partition_reassignments_request req;
    for (auto [topic, count] : {std::pair<const char*, int>{"ord", 20}, {"alpha", 4}, {"b", 2}}) {
      msg::alter_partition_reassignments_request::reassignable_topic t;
      t.name = topic;
      for (int p = 0; p < count; ++p) {
        msg::alter_partition_reassignments_request::reassignable_partition rp;
        rp.partition_index = p;
        rp.replicas = replicas;
        t.partitions.push_back(rp);
      }
      req.topics.push_back(t);
    }
    raw_client client(node(4).port());
    auto resp = client.call<msg::alter_partition_reassignments_response>(45, 0, req);
    if (!resp || resp->error_code != 0) return false;
    return wait_until([&] {
      for (const char* topic : {"ord", "alpha", "b"})
        for (const auto& p : partitions(topic))
          if (p.replicas != replicas) return false;
      return true;
    }, 30s);
  }

  tool_result java(std::vector<std::string> args) { return run_kafka_tool(*work_dir, k_election_command, args); }
  tool_result native(std::vector<std::string> args) { return run_native_tool(*work_dir, k_script, args); }
  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = *work_dir + "/" + name;
    std::ofstream(path) << text << "\n";
    return path;
  }

  static void expect_same(const tool_result& j, const tool_result& n, const std::string& what) {
    const std::string both = "\njava:\n" + j.all() + "native:\n" + n.all();
    EXPECT_EQ(stdout_lines(n.out), stdout_lines(j.out)) << what << both;
    EXPECT_EQ(n.exit_code, j.exit_code) << what << both;
    EXPECT_EQ(stderr_messages(n.err), stderr_messages(j.err)) << what << both;
  }
  // Both tools, the same arguments, on a cluster neither changes.
  void compare(const std::vector<std::string>& args, const std::string& what) {
    expect_same(java(args), native(args), what);
  }

  static kraft_nodes* cluster;
  static std::string* work_dir;
};

kraft_nodes* ElectionNativeIT::cluster = nullptr;
std::string* ElectionNativeIT::work_dir = nullptr;

TEST_F(ElectionNativeIT, CommandLineErrorsAsKafkasTool) {
  const std::string bs = bootstrap();
  compare({"--topic", "t"}, "missing options");
  compare({"--bootstrap-server", bs, "--election-type", "sideways", "--all-topic-partitions"}, "an unknown type");
  const std::string bad = write_file("bad.json", R"({"partitions":[{"topic":"ord","partition":"0"}]})");
  compare({"--bootstrap-server", bs, "--election-type", "preferred", "--path-to-json-file", bad}, "a JSON mapping error");
}

TEST_F(ElectionNativeIT, PreferredElectionsMoveLeadersBack) {
  const std::vector<std::string> all = {"--bootstrap-server", bootstrap(), "--election-type", "preferred",
                                        "--all-topic-partitions"};
  // Every partition of ord, alpha and b led by 4 with 5 preferred: Java's
  // election moves the 26 to 5; with 4 preferred again the native one moves
  // them back. Both name them in the same order.
  ASSERT_TRUE(reorder({5, 4, 6})) << logs();
  auto j = java(all);
  ASSERT_TRUE(reorder({4, 5, 6})) << logs();
  auto n = native(all);
  expect_same(j, n, "--all-topic-partitions");
  ASSERT_EQ(stdout_lines(n.out).size(), 1u) << n.all();
  EXPECT_TRUE(stdout_lines(n.out)[0].starts_with("Successfully completed leader election (PREFERRED) for partitions "));
  for (const auto& p : partitions("ord")) EXPECT_EQ(p.leader, 4);

  // A file mixing elections, partitions whose leader is already the
  // preferred one, a topic and partitions that do not exist.
  const std::string file = write_file(
      "mixed.json",
      R"({"partitions":[{"topic":"ord","partition":3},{"topic":"le","partition":0},{"topic":"nope","partition":0},)"
      R"({"topic":"alpha","partition":1},{"topic":"le","partition":7},{"topic":"b","partition":0},)"
      R"({"topic":"ord","partition":17},{"topic":"le","partition":1},{"topic":"ord","partition":-1}]})");
  const std::vector<std::string> from_file = {"--bootstrap-server", bootstrap(), "--election-type", "PREFERRED",
                                              "--path-to-json-file", file, "--admin.config",
                                              write_file("admin.properties", "client.id=election-test")};
  ASSERT_TRUE(reorder({5, 4, 6})) << logs();
  j = java(from_file);
  ASSERT_TRUE(reorder({4, 5, 6})) << logs();
  n = native(from_file);
  expect_same(j, n, "--path-to-json-file");
  EXPECT_EQ(n.exit_code, 1);
  EXPECT_EQ(stdout_lines(n.out).size(), 6u) << n.all();
  EXPECT_EQ(stderr_messages(n.err).front(), "3 replica(s) could not be elected") << n.all();
  EXPECT_TRUE(wait_until([] { return in_sync("ord") && in_sync("alpha"); }, 30s));

  // Nothing to do, a live leader for UNCLEAN, an unknown topic.
  compare({"--bootstrap-server", bootstrap(), "--election-type", "unclean", "--topic", "le", "--partition", "1"},
          "UNCLEAN with a live leader");
  compare({"--bootstrap-server", bootstrap(), "--election-type", "preferred", "--topic", "nope", "--partition", "0"},
          "an unknown topic");
}

// u (replicas 5, 6) without a leader while 6, out of its ISR, is up: an
// UNCLEAN election makes 6 the leader; once 5 is back in sync a PREFERRED
// election gives the leadership back to 5.
TEST_F(ElectionNativeIT, UncleanThenPreferredAfterBrokersComeBack) {
  auto leaderless = [&] {
    ASSERT_TRUE(node(6).stop(SIGTERM, 60s).has_value()) << logs();
    ASSERT_TRUE(wait_until([] { return leader_of("u") == 5; }, 30s)) << logs();
    ASSERT_TRUE(node(5).stop(SIGTERM, 60s).has_value()) << logs();
    ASSERT_TRUE(wait_until([] { return leader_of("u") == -1; }, 30s)) << logs();
    ASSERT_TRUE(cluster->restart(6)) << logs();
    // 6 is back when it leads solo again (its only replica).
    ASSERT_TRUE(wait_until([] { return leader_of("solo") == 6; }, 30s)) << logs();
  };
  auto five_back_in_sync = [&] {
    ASSERT_TRUE(cluster->restart(5)) << logs();
    ASSERT_TRUE(wait_until([] { return in_sync("u"); }, 30s)) << logs();
  };
  const std::vector<std::string> unclean = {"--election-type", "unclean", "--topic", "u", "--partition", "0"};
  const std::vector<std::string> preferred = {"--election-type", "preferred", "--topic", "u", "--partition", "0"};
  auto with_bootstrap = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return args;
  };

  leaderless();
  auto j_unclean = java(with_bootstrap(unclean));
  EXPECT_EQ(leader_of("u"), 6);
  five_back_in_sync();
  auto j_preferred = java(with_bootstrap(preferred));
  EXPECT_EQ(leader_of("u"), 5);

  leaderless();
  auto n_unclean = native(with_bootstrap(unclean));
  EXPECT_EQ(leader_of("u"), 6);
  five_back_in_sync();
  auto n_preferred = native(with_bootstrap(preferred));
  EXPECT_EQ(leader_of("u"), 5);

  expect_same(j_unclean, n_unclean, "UNCLEAN on a leaderless partition");
  EXPECT_EQ(stdout_lines(n_unclean.out),
            std::vector<std::string>{"Successfully completed leader election (UNCLEAN) for partitions u-0"});
  expect_same(j_preferred, n_preferred, "PREFERRED after the preferred replica came back");
  EXPECT_EQ(stdout_lines(n_preferred.out),
            std::vector<std::string>{"Successfully completed leader election (PREFERRED) for partitions u-0"});

  // With 6 down, solo has no replica to elect.
  ASSERT_TRUE(node(6).stop(SIGTERM, 60s).has_value()) << logs();
  ASSERT_TRUE(wait_until([] { return leader_of("solo") == -1; }, 30s)) << logs();
  compare({"--bootstrap-server", bootstrap(), "--election-type", "unclean", "--topic", "solo", "--partition", "0"},
          "UNCLEAN without a live replica");
  ASSERT_TRUE(cluster->restart(6)) << logs();
  EXPECT_TRUE(wait_until([] { return in_sync("solo") && in_sync("u"); }, 30s)) << logs();
}

}  // namespace
}  // namespace hw::testing
