// The native kafka-transactions.sh against Kafka 4.3.1's TransactionsCommand:
// the same arguments against the same highwater print the same stdout, exit
// the same way and print the same messages on stderr.
//
// The transactions are made with raw requests: ongoing ones through their
// coordinator (InitProducerId, then Produce v12, which adds the partition),
// hanging ones as a broker without verification lets them through
// (transaction.partition.verification.enable=false): a transactional batch
// whose producer never told a coordinator. Where a command changes the
// state (abort, forceTerminateTransaction) Kafka's tool and the native one
// each work on their own, equal, transaction and what they leave is
// compared.
//
// Normalised before comparing, because they depend on the moment a tool
// runs: describe's TransactionDurationMs, find-hanging's Duration(min) (the
// hanging batches are from 2023), and which of its two ways a call that
// timed out says so. On stderr, Kafka's log lines and stack traces are left out.

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

#include "broker_process.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "native_tool.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/init_producer_id.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_transactions = "org.apache.kafka.tools.TransactionsCommand";

// Kafka's messages on stderr: without log4j's lines (and the exception an
// ERROR line names), stack frames and the JVM's own lines.
std::vector<std::string> stderr_messages(const std::string& err) {
  static const std::regex log_line(R"(^\[\d{4}-\d\d-\d\d .*)");
  static const std::regex trace_line(R"(^(\s+at |\s*\.\.\. \d+ more|org\.apache\.kafka\.common\.errors\.\w+: ).*)");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!std::regex_match(line, log_line) && !std::regex_match(line, trace_line) && !jvm_log_line(line))
      out.push_back(line);
  return out;
}

// What depends on the moment a tool runs.
std::string normalised(std::string text) {
  static const std::vector<std::pair<std::regex, std::string>> moments{
      // describe: TransactionDurationMs, the 8th cell (padded)
      {std::regex(R"(^((?:[^\t\n]*\t){7})\d+ *\t)", std::regex::multiline), "$1D\t"},
      // find-hanging: Duration(min), the last cell
      {std::regex(R"(\t\d+ *\t$)", std::regex::multiline), "\tM\t"},
      // a call that timed out: whether the admin client says it timed out
      // after its attempts or waiting for a node depends on whether the
      // deadline fell while a request was in flight or during a back-off
      {std::regex(R"(Call\(callName=([^,]+), deadlineMs=\d+, tries=\d+, nextAllowedTryMs=\d+\) timed out at \d+ )"
                  R"(after \d+ attempt\(s\))"),
       "Timed out waiting for a node assignment. Call: $1"},
  };
  for (const auto& [re, replacement] : moments) text = std::regex_replace(text, re, replacement);
  return text;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += " " + a;
  return s;
}

void expect_same(const tool_result& java, const tool_result& native, const std::string& what) {
  const std::string both = what + "\njava:\n" + java.all() + "native:\n" + native.all();
  EXPECT_EQ(normalised(native.out), normalised(java.out)) << both;
  EXPECT_EQ(native.exit_code, java.exit_code) << both;
  EXPECT_EQ(stderr_messages(normalised(native.err)), stderr_messages(normalised(java.err))) << both;
}

// Runs both tools in `dir` with `prefix` (the bootstrap) before the args.
struct both_tools {
  std::string dir;
  std::vector<std::string> prefix;

  tool_result java(const std::vector<std::string>& args) const {
    std::vector<std::string> all = prefix;
    all.insert(all.end(), args.begin(), args.end());
    return run_kafka_tool(dir, k_transactions, all);
  }
  tool_result native(const std::vector<std::string>& args) const {
    std::vector<std::string> all = prefix;
    all.insert(all.end(), args.begin(), args.end());
    return run_native_tool(dir, "kafka-transactions.sh", all);
  }
  void same(const std::vector<std::string>& args) const { expect_same(java(args), native(args), joined(args)); }
  // A command that changes the state, each tool on its own target.
  void same_change(const std::vector<std::string>& java_args, const std::vector<std::string>& native_args) const {
    expect_same(java(java_args), native(native_args), joined(java_args) + " /" + joined(native_args));
  }
};

// A transactional id's producer, from its coordinator: its id and epoch.
struct producer {
  int64_t id = -1;
  int16_t epoch = -1;
};

// InitProducerId at the coordinator (retried while __transaction_state
// is created and loaded).
producer init_producer(const std::function<endpoint(int32_t)>& node_endpoint, raw_client& any,
                       const std::string& transactional_id) {
  producer p;
  wait_until(
      [&] {
        auto [error, node] = any.find_coordinator(transactional_id, 1);
        if (error != 0) return false;
        raw_client c(node_endpoint(node));
        msg::init_producer_id_request req;
        req.transactional_id = transactional_id;
        req.transaction_timeout_ms = 900000;
        auto r = c.call<msg::init_producer_id_response>(22, 5, req);
        if (!r || r->error_code != 0) return false;
        p = {r->producer_id, r->producer_epoch};
        return true;
      },
      30s);
  return p;
}

// A transactional batch of old records (2023) no coordinator knows of,
// written once the leader takes it (a new leader may not know it leads yet).
void write_hanging(const endpoint& leader, const std::string& topic, int32_t partition, int64_t producer_id,
                   int16_t epoch, const std::vector<std::string>& values) {
  int16_t error = -1;
  EXPECT_TRUE(wait_until(
      [&] {
        raw_client c(leader);
        auto r = c.produce(topic, partition, transactional_batch(producer_id, epoch, 0, values), -1, "never-added");
        error = r ? r->error_code : -1;
        return error == 0;
      },
      30s))
      << topic << "-" << partition << ": error " << error;
}

// The partition in the producer's transaction at its coordinator
// (AddPartitionsToTxn v3, as a producer before transactions v2 adds it).
void add_partition(const endpoint& coordinator, const std::string& transactional_id, const producer& p,
                   const std::string& topic, int32_t partition) {
  raw_client c(coordinator);
  msg::add_partitions_to_txn_request req;
  req.v3_and_below_transactional_id = transactional_id;
  req.v3_and_below_producer_id = p.id;
  req.v3_and_below_producer_epoch = p.epoch;
  req.v3_and_below_topics.push_back({topic, {partition}, {}});
  auto r = c.call<msg::add_partitions_to_txn_response>(24, 3, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->results_by_topic_v3_and_below.size(), 1u);
  ASSERT_EQ(r->results_by_topic_v3_and_below[0].results_by_partition.at(0).partition_error_code, 0);
}

// Command lines and settings Kafka's tool rejects before it sends anything.
TEST(NativeTransactionsCommandLine, FailsAsKafkasDoes) {
  char dir_template[] = "/tmp/hw-txn-cli-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const both_tools tools{dir_template, {"--bootstrap-server", "127.0.0.1:1"}};
  tools.same({"bogus"});
  tools.same({"describe-producers", "--topic", "x", "--partition", "a"});
  tools.same({"abort", "--topic", "x", "--partition", "0", "--producer-id", "5"});
  tools.same({"-v", "list"});
  const both_tools bad_address{dir_template, {"--bootstrap-server", "nowhere"}};
  bad_address.same({"list"});
  std::system(("rm -rf " + std::string(dir_template)).c_str());
}

class NativeTransactionsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "transaction.partition.verification.enable=false"})) << broker.log();
    tools = {broker.dir(), {"--bootstrap-server", "127.0.0.1:" + std::to_string(broker.port())}};
  }
  void create(const std::string& topic, int partitions) {
    raw_client c(broker.port());
    auto r = c.create_topic(topic, partitions);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics[0].error_code, 0);
  }

  broker_process broker;
  both_tools tools;
};

// One node: an ongoing transaction (known-tx, on hang-c-0), an id with no
// transaction (empty-tx), and hanging transactions: producer 4242 on three
// partitions, 4243 (epoch 2) on one, 2^32 + 1 (whose Long hash is 1) on
// one, and known-tx's producer on hang-c-1, which its coordinator does not
// count in the transaction.
TEST_F(NativeTransactionsIT, ListDescribeFindHangingAndAbort) {
  create("hang-a", 3);
  create("hang-b", 2);
  create("hang-c", 2);
  raw_client c(broker.port());
  auto here = [&](int32_t) { return endpoint(broker.port()); };
  const producer known = init_producer(here, c, "known-tx");
  ASSERT_GE(known.id, 0) << broker.log();
  ASSERT_GE(init_producer(here, c, "empty-tx").id, 0);
  ASSERT_GE(init_producer(here, c, "empty-tx-2").id, 0);
  const endpoint node = broker.port();
  add_partition(node, "known-tx", known, "hang-c", 0);
  write_hanging(node, "hang-c", 0, known.id, known.epoch, {"k"});  // in the transaction
  write_hanging(node, "hang-c", 1, known.id, known.epoch, {"z"});  // not in it
  write_hanging(node, "hang-a", 0, 4242, 0, {"h1", "h2", "h3"});
  write_hanging(node, "hang-a", 2, 4242, 0, {"h1"});
  write_hanging(node, "hang-b", 1, 4242, 0, {"h1"});
  write_hanging(node, "hang-a", 1, 4243, 2, {"x"});
  write_hanging(node, "hang-b", 0, 4294967297, 0, {"y", "y"});

  tools.same({"list"});
  tools.same({"list", "--transactional-id-pattern", "known.*"});
  tools.same({"describe", "--transactional-id", "known-tx"});
  tools.same({"describe", "--transactional-id", "nope"});
  tools.same({"describe-producers", "--topic", "hang-a", "--partition", "0"});
  tools.same({"find-hanging", "--broker-id", "1"});
  tools.same({"find-hanging", "--topic", "hang-c", "--max-transaction-timeout", "0"});
  {
    // The native tool's own view of the hanging ones, checked outright
    // (their order is Kafka's, compared above): all but hang-c-0, which
    // known-tx's coordinator counts in its transaction.
    auto found = tools.native({"find-hanging", "--broker-id", "1"});
    std::set<std::string> rows;
    for (const auto& line : lines_of(found.out)) {
      auto words = words_of(line);
      rows.insert(words[0] + "-" + words[1] + ":" + words[2]);
    }
    EXPECT_EQ(rows, (std::set<std::string>{"Topic-Partition:ProducerId", "hang-b-0:4294967297", "hang-a-0:4242",
                                           "hang-b-1:4242", "hang-a-2:4242", "hang-a-1:4243",
                                           "hang-c-1:" + std::to_string(known.id)}))
        << found.all();
  }

  // Aborts that fail, then ones that succeed: by start offset, and by
  // producer (coordinator epoch -1 taken as 0), each tool its own partition.
  tools.same({"abort", "--topic", "hang-a", "--partition", "0", "--start-offset", "7"});
  tools.same({"abort", "--topic", "hang-a", "--partition", "1", "--producer-id", "4243", "--producer-epoch", "1",
              "--coordinator-epoch", "-1"});
  tools.same_change({"abort", "--topic", "hang-a", "--partition", "0", "--start-offset", "0"},
                    {"abort", "--topic", "hang-a", "--partition", "2", "--start-offset", "0"});
  tools.same_change({"abort", "--topic", "hang-b", "--partition", "0", "--producer-id", "4294967297",
                     "--producer-epoch", "0", "--coordinator-epoch", "-1"},
                    {"abort", "--topic", "hang-a", "--partition", "1", "--producer-id", "4243", "--producer-epoch",
                     "2", "--coordinator-epoch", "-1"});
  tools.same({"find-hanging", "--broker-id", "1"});

  // Each tool ends one id's transaction by bumping its epoch; both ids
  // end up alike.
  tools.same_change({"forceTerminateTransaction", "--transactionalId", "empty-tx"},
                    {"forceTerminateTransaction", "--transactionalId", "empty-tx-2"});
  auto terminated = [&](const std::string& id) {
    auto r = tools.native({"describe", "--transactional-id", id});
    auto rows = lines_of(r.out);
    return rows.size() == 2 ? words_of(rows[1]) : std::vector<std::string>{r.all()};
  };
  auto by_java = terminated("empty-tx"), by_native = terminated("empty-tx-2");
  ASSERT_EQ(by_java.size(), 8u) << by_java[0];
  ASSERT_EQ(by_native.size(), 8u) << by_native[0];
  EXPECT_EQ(std::vector<std::string>(by_native.begin() + 3, by_native.end()),
            std::vector<std::string>(by_java.begin() + 3, by_java.end()));
  EXPECT_EQ(by_native[4], "Empty");
  EXPECT_EQ(by_native[5], "30000") << "the transaction timeout is the admin client's request.timeout.ms";

  // A partition no broker has, until the (shortened) deadline.
  const std::string config = broker.dir() + "/short.properties";
  std::system(("printf 'default.api.timeout.ms=3000\\nrequest.timeout.ms=2000\\n' > " + config).c_str());
  tools.same({"--command-config", config, "describe-producers", "--topic", "nosuch", "--partition", "0"});
}

// Three nodes, partitions with two replicas: find-hanging on each broker
// asks that broker about its replicas, leaders and followers alike, and
// the transactional ids have coordinators on every node.
TEST(NativeTransactions3IT, FindHangingOnEachBroker) {
  setenv("CLUSTER_ID", "NativeTransactions3IT", 1);
  kraft_nodes cluster;
  ASSERT_TRUE(cluster.start(false, {"transaction.partition.verification.enable=false"}));
  unsetenv("CLUSTER_ID");
  auto port_of = [&](int32_t id) { return endpoint(cluster.node(id).port()); };
  raw_client c(port_of(1));
  auto created = c.create_topic("t3", 3, 2);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->topics[0].error_code, 0);
  std::map<int32_t, int32_t> leaders;
  int32_t follower_of_0 = -1;
  ASSERT_TRUE(wait_until(
      [&] {
        auto md = c.metadata(std::vector<std::string>{"t3"});
        if (!md || md->topics.size() != 1 || md->topics[0].partitions.size() != 3) return false;
        for (const auto& p : md->topics[0].partitions) {
          if (p.error_code != 0 || p.leader_id < 0 || p.isr_nodes.size() != 2) return false;
          leaders[p.partition_index] = p.leader_id;
          if (p.partition_index == 0)
            for (int32_t r : p.replica_nodes)
              if (r != p.leader_id) follower_of_0 = r;
        }
        return true;
      },
      60s));
  for (int32_t p = 0; p < 3; ++p) write_hanging(port_of(leaders[p]), "t3", p, 7001 + p % 2, 0, {"a", "b"});
  for (const char* id : {"tx-one", "tx-two", "tx-three", "tx-four", "tx-five"})
    ASSERT_GE(init_producer(port_of, c, id).id, 0) << id;

  const both_tools tools{cluster.nodes[0]->dir(),
                         {"--bootstrap-server", "127.0.0.1:" + std::to_string(cluster.node(1).port())}};
  tools.same({"list"});
  for (const char* broker : {"1", "2", "3"}) tools.same({"find-hanging", "--broker-id", broker});
  // A follower's view of a partition.
  tools.same({"describe-producers", "--topic", "t3", "--partition", "0", "--broker-id", std::to_string(follower_of_0)});
}

}  // namespace
}  // namespace hw::testing
