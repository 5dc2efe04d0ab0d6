// The native kafka-topics.sh against Kafka 4.3.1's TopicCommand: the same
// arguments against the same cluster print the same stdout, line by line,
// and exit the same way. Where a command changes the cluster, the Java tool
// runs first, the change is undone, and the native tool runs on the same
// state. Nothing is normalised: the TopicIds are those of the very topics
// both tools describe.

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "broker_process.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";

// stdout as printed, empty lines too (--list of nothing prints one), without
// the JVM's own log lines.
std::vector<std::string> stdout_lines(const tool_result& r) {
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (!jvm_log_line(line)) out.push_back(line);
  return out;
}

// The value of "Name: value" in a tab-separated describe line.
std::string field(const std::string& line, const std::string& name) {
  const auto at = line.find("\t" + name + ": ");
  if (at == std::string::npos) return "";
  const auto start = at + name.size() + 3;
  return line.substr(start, line.find('\t', start) - start);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The message of Kafka's log line on stderr, without its timestamp.
std::string without_timestamp(const std::string& line) {
  return line.starts_with("[") && line.find("] ") != std::string::npos ? line.substr(line.find("] ") + 2) : line;
}

class TopicTools {
 public:
  explicit TopicTools(std::string work_dir) : dir_(std::move(work_dir)) {}
  void set_bootstrap(std::string b) { bootstrap_ = std::move(b); }
  const std::string& bootstrap() const { return bootstrap_; }
  tool_result java(std::vector<std::string> args) const {
    return run_kafka_tool(dir_, k_topic_command, with_bootstrap(std::move(args)));
  }
  tool_result native(std::vector<std::string> args) const {
    return run_native_tool(dir_, "kafka-topics.sh", with_bootstrap(std::move(args)));
  }
  std::vector<std::string> with_bootstrap(std::vector<std::string> args) const {
    if (!bootstrap_.empty()) args.insert(args.begin(), {"--bootstrap-server", bootstrap_});
    return args;
  }

 private:
  std::string dir_;
  std::string bootstrap_;
};

// Same stdout lines, same exit code, same first stderr line (a usage
// message, or Kafka's log line of the error printed on stdout).
void expect_same(const tool_result& java, const tool_result& native, const std::string& what) {
  EXPECT_EQ(stdout_lines(native), stdout_lines(java)) << what << "\njava:\n" << java.all() << "native:\n" << native.all();
  EXPECT_EQ(native.exit_code, java.exit_code) << what << "\njava:\n" << java.all() << "native:\n" << native.all();
  EXPECT_EQ(without_timestamp(first_line(native.err)), without_timestamp(first_line(java.err)))
      << what << "\njava:\n" << java.all() << "native:\n" << native.all();
}

class NativeTopicsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start()) << broker.log();
    tools.set_bootstrap("127.0.0.1:" + std::to_string(broker.port()));
  }
  // Both tools, the same arguments, the same cluster state.
  void same(const std::vector<std::string>& args) {
    std::string what;
    for (const auto& a : args) what += a + " ";
    expect_same(tools.java(args), tools.native(args), what);
  }
  // A command that changes the cluster: Java's, then `undo` (native), then
  // the native one on the state Java saw.
  void same_change(const std::vector<std::string>& args, const std::vector<std::string>& undo) {
    auto java = tools.java(args);
    auto undone = tools.native(undo);
    ASSERT_EQ(undone.exit_code, 0) << undone.all();
    std::string what;
    for (const auto& a : args) what += a + " ";
    expect_same(java, tools.native(args), what);
  }
  // A change both tools make, each to its own one of two identical topics
  // (what they print on success names no topic).
  void same_twins(const std::vector<std::string>& java_args, const std::vector<std::string>& native_args) {
    std::string what;
    for (const auto& a : native_args) what += a + " ";
    auto java = tools.java(java_args);
    expect_same(java, tools.native(native_args), what);
  }
  void create(const std::vector<std::string>& args) {
    std::vector<std::string> all{"--create"};
    all.insert(all.end(), args.begin(), args.end());
    auto r = tools.native(all);
    ASSERT_EQ(r.exit_code, 0) << r.all();
  }
  broker_process broker;
  TopicTools tools{broker.dir()};
};

TEST_F(NativeTopicsIT, CreateListDescribeAlterDelete) {
  same_change({"--create", "--topic", "orders", "--partitions", "3", "--replication-factor", "1"},
              {"--delete", "--topic", "orders"});
  // The collision warning comes first.
  same_change({"--create", "--topic", "pay_ments.eu", "--config", "retention.ms=86400000", "--config",
               "cleanup.policy=compact", "--config", "max.message.bytes=2000000"},
              {"--delete", "--topic", "pay_ments.eu"});
  same_change({"--create", "--topic", "manual", "--replica-assignment", "1,1,1"}, {"--delete", "--topic", "manual"});
  same({"--create", "--topic", "orders", "--partitions", "3", "--if-not-exists"});

  same({"--list"});
  same({"--list", "--exclude-internal"});
  same({"--list", "--topic", "or.*,manual"});
  same({"--list", "--topic", "nothing-matches"});
  same({"--describe"});
  same({"--describe", "--topic", "pay_ments.eu"});  // a topic with config overrides
  same({"--describe", "--topic", "orders|manual", "--partition-size-limit-per-response", "1"});
  same({"--describe", "--topics-with-overrides"});
  same({"--describe", "--exclude-internal"});

  create({"--topic", "orders2", "--partitions", "3"});
  create({"--topic", "manual2", "--replica-assignment", "1,1,1"});
  same_twins({"--alter", "--topic", "orders", "--partitions", "5"}, {"--alter", "--topic", "orders2", "--partitions", "5"});
  // The assignment's entries past the current partitions are the added ones.
  same_twins({"--alter", "--topic", "manual", "--partitions", "5", "--replica-assignment", "1,1,1,1,1"},
             {"--alter", "--topic", "manual2", "--partitions", "5", "--replica-assignment", "1,1,1,1,1"});
  same({"--describe", "--topic", "orders.?|manual.?"});
  same({"--alter", "--topic", "orders", "--partitions", "2"});  // fewer partitions: refused
  same({"--alter", "--topic", "orders", "--partitions", "5"});  // as many: refused
  same({"--alter", "--topic", "orders", "--partitions", "7", "--replica-assignment", "1,1,1,1,1,1,9"});

  same_change({"--delete", "--topic", "orders.?|manual.?"}, {"--create", "--topic", "orders"});
  same({"--list"});
}

TEST_F(NativeTopicsIT, DescribeReportFlags) {
  create({"--topic", "strict", "--partitions", "2", "--config", "min.insync.replicas=2"});
  create({"--topic", "relaxed", "--partitions", "2"});
  for (const char* flag : {"--under-replicated-partitions", "--under-min-isr-partitions", "--at-min-isr-partitions",
                           "--unavailable-partitions", "--topics-with-overrides"}) {
    same({"--describe", flag});
    same({"--describe", "--topic", "strict", flag});
  }
  same({"--describe", "--under-min-isr-partitions", "--at-min-isr-partitions"});
  auto described = tools.native({"--describe", "--topic", "strict"});
  ASSERT_EQ(described.exit_code, 0) << described.all();
  const std::string line = lines_of(described.out).at(0);
  const auto at = line.find("TopicId: ");
  ASSERT_NE(at, std::string::npos) << line;
  const std::string id = line.substr(at + 9, 22);
  // By id Kafka's client reads Metadata, which has no ELR: "Elr: N/A". Java's
  // request names the topic "" beside its id; the broker goes by the id, as
  // Kafka's does (before it did not, and Java's tool failed here).
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--describe", "--topic-id", id},
                                               {"--describe", "--topic-id", id, "--topic", "relaxed", "--if-exists"}}) {
    auto java = tools.java(args);
    ASSERT_EQ(java.exit_code, 0) << java.all();
    expect_same(java, tools.native(args), "describe by id");
  }
}

TEST_F(NativeTopicsIT, ErrorsAsKafkaPrintsThem) {
  create({"--topic", "orders"});
  same({"--create", "--topic", "orders"});                                          // exists
  same({"--create", "--topic", "rf3", "--replication-factor", "3"});                // more than the brokers
  same({"--create", "--topic", "rf0", "--replication-factor", "0"});
  same({"--create", "--topic", "p0", "--partitions", "0"});
  same({"--create", "--topic", "bad name!"});
  same({"--create", "--topic", "x", "--config", "retention.ms=abc"});
  same({"--create", "--topic", "x", "--config", "nosuch=1"});
  same({"--create", "--topic", "x", "--config", "novalue"});
  same({"--create", "--topic", "x", "--replica-assignment", "1:1"});
  same({"--create", "--topic", "x", "--replica-assignment", "1,1:2"});
  same({"--create", "--topic", "x", "--replica-assignment", "7"});
  same({"--create", "--topic", "x", "--partitions", "abc"});                        // a bad argument
  same({"--describe", "--topic", "missing"});
  same({"--describe", "--topic", "missing", "--if-exists"});
  same({"--describe", "--topic-id", "garbage"});
  same({"--describe", "--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ"});
  same({"--alter", "--topic", "missing", "--partitions", "3"});
  same({"--delete", "--topic", "missing"});
  same({"--delete", "--topic", "missing", "--if-exists"});
  same({"--list", "--topic", "["});
}

TEST_F(NativeTopicsIT, OptionChecksAsKafkaPrintsThem) {
  same({"--foo"});  // not one of Kafka's options
  same({"--list", "--topic"});
  same({"--list", "--create"});
  same({"--create"});
  same({"--alter", "--topic", "t"});
  same({"--create", "--topic", "t", "--replica-assignment", "1", "--partitions", "2"});
  same({"--list", "--partitions", "3"});
  same({"--describe", "--topics-with-overrides", "--under-replicated-partitions"});
  same({"--describe", "--if-exists"});
  same({"--create", "--topic", "t", "--if-exists"});
  same({"--list", "--if-not-exists"});
  same({"--delete", "--topic", "t", "--exclude-internal"});
  same({"--version"});
  TopicTools bare(broker.dir());
  auto java_bare = bare.java({"--list"});
  expect_same(java_bare, bare.native({"--list"}), "no --bootstrap-server");
  java_bare = bare.java({});
  expect_same(java_bare, bare.native({}), "no arguments");
  // Kafka names the two options as a Set prints them, in an order that changes from run to run.
  auto java = tools.java({"--alter", "--topic", "t", "--partitions", "3", "--config", "a=b"});
  auto native = tools.native({"--alter", "--topic", "t", "--partitions", "3", "--config", "a=b"});
  EXPECT_EQ(native.exit_code, java.exit_code);
  const std::string tail = "can't be used with option \"[alter]\" (To alter topic configurations, the kafka-configs tool can be used.)";
  for (const auto* r : {&java, &native}) {
    const std::string l = first_line(r->err);
    EXPECT_TRUE(l == "Option combination \"[[bootstrap-server], [config]]\" " + tail ||
                l == "Option combination \"[[config], [bootstrap-server]]\" " + tail)
        << r->all();
  }
}

// Three combined nodes: replication factor 3, then one node stopped.
TEST(NativeTopicsThreeNodesIT, ReplicatedDescribeAndReports) {
  setenv("CLUSTER_ID", "NativeTopics3clusterAA", 1);  // one cluster id for the three nodes
  kraft_nodes cluster;
  const bool started = cluster.start(false);
  unsetenv("CLUSTER_ID");
  ASSERT_TRUE(started) << cluster.node(1).log();
  TopicTools tools(cluster.node(1).dir());
  tools.set_bootstrap("127.0.0.1:" + std::to_string(cluster.node(1).port()) + ",127.0.0.1:" +
                      std::to_string(cluster.node(2).port()));
  auto created = tools.native({"--create", "--topic", "replicated", "--partitions", "3", "--replication-factor", "3",
                               "--config", "min.insync.replicas=2"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  // Every partition with its full ISR before comparing.
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = tools.native({"--describe", "--under-replicated-partitions"});
        return r.exit_code == 0 && lines_of(r.out).empty();
      },
      60s));
  auto same = [&](const std::vector<std::string>& args) {
    std::string what;
    for (const auto& a : args) what += a + " ";
    auto java = tools.java(args);
    expect_same(java, tools.native(args), what);
  };
  same({"--describe"});
  same({"--describe", "--topic", "replicated", "--at-min-isr-partitions"});

  // --alter's assignment goes through a HashMap<Integer, ...> in Kafka's
  // tool: past the table's 16 buckets, partitions 14-17 get the entries for
  // 16, 17, 14, 15. The native tool hands them over in the same order.
  std::string fourteen;
  for (int i = 0; i < 14; ++i) fourteen += i ? ",1" : "1";
  for (const char* topic : {"wrap-java", "wrap-native"})
    ASSERT_EQ(tools.native({"--create", "--topic", topic, "--replica-assignment", fourteen}).exit_code, 0);
  const std::vector<std::string> grow{"--partitions", "18", "--replica-assignment", fourteen + ",1,1,2,2"};
  std::vector<std::string> java_alter{"--alter", "--topic", "wrap-java"}, native_alter{"--alter", "--topic", "wrap-native"};
  java_alter.insert(java_alter.end(), grow.begin(), grow.end());
  native_alter.insert(native_alter.end(), grow.begin(), grow.end());
  auto java_altered = tools.java(java_alter);
  expect_same(java_altered, tools.native(native_alter), "alter with an assignment");
  auto replicas_of = [&](const std::string& topic) {
    std::vector<std::string> out;
    for (const auto& line : lines_of(tools.native({"--describe", "--topic", topic}).out))
      if (line.starts_with("\t")) out.push_back(field(line, "Partition") + ":" + field(line, "Replicas"));
    return out;
  };
  const auto java_replicas = replicas_of("wrap-java");
  ASSERT_EQ(java_replicas.size(), 18u);
  EXPECT_EQ(java_replicas[14], "14:2");  // Kafka's own result, shuffled as described
  EXPECT_EQ(replicas_of("wrap-native"), java_replicas);

  // A reassignment onto node 3, throttled to 1 B/s, then node 3 stops: the
  // partition stays with a replica being added (shown, and left out of its
  // replication factor) for the rest of the test.
  ASSERT_EQ(tools.native({"--create", "--topic", "moving", "--replica-assignment", "1"}).exit_code, 0);
  auto produced = run_kafka_tool(cluster.node(1).dir(), "org.apache.kafka.tools.ProducerPerformance",
                                 {"--topic", "moving", "--num-records", "20000", "--record-size", "1000",
                                  "--throughput", "-1", "--producer-props", "acks=1",
                                  "bootstrap.servers=" + tools.bootstrap()});
  ASSERT_EQ(produced.exit_code, 0) << produced.all();
  const std::string plan = cluster.node(1).dir() + "/plan.json";
  std::ofstream(plan) << R"({"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[1,3]}]})";
  auto moving = run_kafka_tool(cluster.node(1).dir(), "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                               tools.with_bootstrap({"--execute", "--reassignment-json-file", plan, "--throttle", "1"}));
  ASSERT_EQ(moving.exit_code, 0) << moving.all();

  // Node 3 stops: once the others see it gone (session timeout) and its
  // replicas leave the ISRs (replica lag), the partitions are under-replicated.
  cluster.node(3).stop(SIGTERM);
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = tools.native({"--describe", "--topic", "replicated", "--under-replicated-partitions"});
        const auto lines = lines_of(r.out);
        return lines.size() == 3 && std::all_of(lines.begin(), lines.end(), [](const std::string& l) {
                 const std::string isr = field(l, "Isr"), leader = field(l, "Leader");
                 return ("," + isr + ",").find(",3,") == std::string::npos && leader != "3" && leader != "none";
               });
      },
      60s));
  for (const char* flag : {"--under-replicated-partitions", "--at-min-isr-partitions", "--under-min-isr-partitions",
                           "--unavailable-partitions"})
    same({"--describe", "--topic", "replicated", flag});
  auto reassigning = tools.native({"--describe", "--topic", "moving"});
  ASSERT_NE(reassigning.out.find("\tAdding Replicas: 3\tRemoving Replicas: \t"), std::string::npos)
      << reassigning.all();
  same({"--describe", "--topic", "moving"});
  same({"--describe", "--topic", "moving", "--under-replicated-partitions"});
  same({"--describe", "--topic", "replicated"});
  same({"--describe"});
}

}  // namespace
}  // namespace hw::testing
