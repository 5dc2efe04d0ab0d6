// Transactions driven by Apache Kafka 4.3.1's own Java tools against one
// highwater: TransactionalMessageCopier, the consume-transform-produce loop
// of Kafka's system tests, reads an input topic with a read_committed
// consumer, writes each record to the same partition of an output topic
// with a transactional producer, puts the consumer's positions in the same
// transaction (sendOffsetsToTransaction: TxnOffsetCommit) and aborts about
// one transaction in three (--enable-random-aborts), after which it seeks
// back to the group's committed offsets and copies those records again.
// The 4.3.1 client runs transactions v2 (KIP-890: partitions added
// implicitly by Produce v12 and TxnOffsetCommit v5, the producer epoch
// bumped by every EndTxn v5) because ApiVersions reports transaction.version
// 2 finalized, as Kafka's does; the epoch the copier's id ends at shows it.
//
// What Kafka guarantees and these tests check with the console consumer
// and kafka-consumer-groups: a read_committed reader of the output sees
// every input record exactly once and, partition by partition, in input
// order; a read_uncommitted reader also sees what the aborted transactions
// wrote; the group's committed offsets are the input's log end offsets.
// The same tool runs against Apache Kafka 4.3.1 (scripts/kafka-server.sh)
// give exactly these results.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "cluster_queries.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/records/record_batch_builder.h"
#include "raw_requests.h"

extern char** environ;

namespace hw::testing {
namespace {

const char* const k_copier = "org.apache.kafka.tools.TransactionalMessageCopier";
const char* const k_console_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const char* const k_groups = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
const char* const k_transactions = "org.apache.kafka.tools.TransactionsCommand";

// Bounds: a copier copies 500 records in ~6 s against Kafka, a consumer
// reads a partition in ~3 s; these only stop a run that hangs.
constexpr int k_copier_timeout_s = 90;
constexpr int k_consumer_timeout_s = 60;

// A tool's output in a failure message: exit code, the end of what it printed.
std::string report(const std::string& what, const tool_result& r) {
  return "--- " + what + " (exit " + std::to_string(r.exit_code) + ") stdout ---\n" + tail(r.out, 6000) +
         "--- " + what + " stderr ---\n" + tail(r.err, 12000);
}

// The distinct values of input partition p: "in-p<p>-0000", ...
std::vector<std::string> input_values(int32_t p, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::string n = std::to_string(i);
    out.push_back("in-p" + std::to_string(p) + "-" + std::string(4 - std::min<size_t>(4, n.size()), '0') + n);
  }
  return out;
}

// How `got` differs from `expected`, both read in log order: sizes, the
// first difference, values read twice, values missing, values not expected.
std::string differences(const std::vector<std::string>& expected, const std::vector<std::string>& got) {
  std::ostringstream s;
  s << "expected " << expected.size() << " values, read " << got.size();
  auto mismatch = std::mismatch(expected.begin(), expected.end(), got.begin(), got.end());
  if (mismatch.first != expected.end() || mismatch.second != got.end())
    s << "; first difference at index " << (mismatch.first - expected.begin()) << ": expected "
      << (mismatch.first != expected.end() ? *mismatch.first : "<end>") << ", read "
      << (mismatch.second != got.end() ? *mismatch.second : "<end>");
  std::map<std::string, int> seen;
  for (auto& v : got) ++seen[v];
  const std::set<std::string> wanted(expected.begin(), expected.end());
  int twice = 0, missing = 0, unexpected = 0;
  std::string examples;
  for (auto& [v, n] : seen) {
    if (n > 1 && ++twice <= 5) examples += " twice:" + v;
    if (!wanted.count(v) && ++unexpected <= 5) examples += " unexpected:" + v;
  }
  for (auto& v : wanted)
    if (!seen.count(v) && ++missing <= 5) examples += " missing:" + v;
  s << "; " << twice << " read more than once, " << missing << " missing, " << unexpected << " not in the input;"
    << examples;
  return s.str();
}

// Whether `inner` is `outer` with some values left out (order kept).
bool subsequence(const std::vector<std::string>& inner, const std::vector<std::string>& outer) {
  size_t i = 0;
  for (size_t o = 0; o < outer.size() && i < inner.size(); ++o)
    if (outer[o] == inner[i]) ++i;
  return i == inner.size();
}

// The copier's last status line (JSON, one per loop), e.g.
// {"transactionalId":"t","stage":"ShutdownComplete","time":"...","totalProcessed":500,"consumed":500,"remaining":0}
// as a map of its integer and string fields.
std::map<std::string, std::string> last_status(const tool_result& r) {
  std::map<std::string, std::string> fields;
  auto lines = tool_lines(r);
  if (lines.empty()) return fields;
  static const std::regex field_re(R"re("(\w+)":("([^"]*)"|-?\d+))re");
  const std::string& line = lines.back();
  for (auto it = std::sregex_iterator(line.begin(), line.end(), field_re); it != std::sregex_iterator(); ++it)
    fields[(*it)[1]] = (*it)[3].matched ? (*it)[3].str() : (*it)[2].str();
  return fields;
}

// The copier's committed records so far, from its last status line.
int processed_so_far(const background_tool& copier) {
  static const std::regex total(R"re("totalProcessed":(\d+))re");
  auto lines = lines_of(copier.out_so_far());
  std::smatch m;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (std::regex_search(*it, m, total)) return std::stoi(m[1].str());
  return 0;
}

// What the copier tests share, on one node or three: the topics, the
// input, the copier's arguments, readers of the output, the group's
// offsets.
// kafka-transactions find-hanging on one broker, with no minimum age
// (--max-transaction-timeout 0): every open transaction its coordinator
// does not know of, however young.
tool_result find_hanging(const std::string& dir, const std::string& bootstrap, int broker_id) {
  return run_kafka_tool(dir, k_transactions,
                        {"--bootstrap-server", bootstrap, "find-hanging", "--broker-id", std::to_string(broker_id),
                         "--max-transaction-timeout", "0"});
}

class copier_test : public ::testing::Test {
 protected:
  virtual std::string bootstrap() const = 0;
  // Where tools write their output.
  virtual std::string dir() const = 0;
  virtual std::string broker_log() const = 0;
  // A client of a running node.
  virtual endpoint any_node() const = 0;
  // Nodes a partition's writes may be led by.
  virtual std::vector<endpoint> all_nodes() const = 0;

  void create(const std::string& topic, int partitions, int16_t replication_factor = 1,
              const std::vector<std::pair<std::string, std::string>>& configs = {}) {
    raw_client c(any_node());
    auto r = c.create_topic(topic, partitions, replication_factor, configs);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics[0].error_code, 0);
  }

  // Appends the values to partition p, 20 records a batch (not
  // transactional: the copier's read_committed consumer reads them all),
  // each batch to whichever node takes it (the leader).
  void fill(const std::string& topic, int32_t p, const std::vector<std::string>& values) {
    for (size_t i = 0; i < values.size(); i += 20) {
      protocol::record_batch_builder b(protocol::record_batch_options{});
      for (size_t j = i; j < std::min(values.size(), i + 20); ++j)
        b.append(1700000000000 + static_cast<int64_t>(j), std::nullopt,
                 protocol::bytes_view(reinterpret_cast<const uint8_t*>(values[j].data()), values[j].size()));
      const std::vector<uint8_t> batch = b.finish();
      ASSERT_TRUE(wait_until(
          [&] {
            for (const auto& node : all_nodes()) {
              raw_client c(node);
              if (!c.connected()) continue;
              auto r = c.produce(topic, p, batch);
              if (r && r->error_code == 0) return true;
            }
            return false;
          },
          30s))
          << "no node took a batch of " << topic << "-" << p << "\n" << broker_log();
    }
  }

  std::vector<std::string> copier_args(const std::string& transactional_id, int32_t input_partition, int max_messages,
                                       int transaction_size) const {
    return {"--broker-list", bootstrap(),
            "--input-topic", "copier-in",
            "--input-partition", std::to_string(input_partition),
            "--output-topic", "copier-out",
            "--consumer-group", "copier-group",
            "--transactional-id", transactional_id,
            "--max-messages", std::to_string(max_messages),
            "--transaction-size", std::to_string(transaction_size),
            "--enable-random-aborts"};
  }

  // A console consumer of one output partition from its earliest offset,
  // assigned (no group), at this isolation level. With max_messages it
  // stops once it has read that many (or after 30 s without a record);
  // without, it reads until it has seen nothing for idle_ms.
  std::unique_ptr<background_tool> start_reader(int32_t p, const std::string& isolation, int max_messages,
                                                int idle_ms = 5000) {
    std::vector<std::string> args{"--bootstrap-server", bootstrap(), "--topic", "copier-out", "--partition",
                                  std::to_string(p), "--offset", "earliest", "--isolation-level", isolation};
    if (max_messages > 0) {
      args.insert(args.end(), {"--max-messages", std::to_string(max_messages), "--timeout-ms", "30000"});
    } else {
      args.insert(args.end(), {"--timeout-ms", std::to_string(idle_ms)});
    }
    return std::make_unique<background_tool>(dir(), "read-" + isolation + "-p" + std::to_string(p),
                                             k_console_consumer, args, k_consumer_timeout_s);
  }

  // read_committed: each output partition is its input partition, in
  // order, every record once. Reading stops at the expected count: the
  // copier's last transaction commits, so an aborted copy shown, or a
  // record committed twice, would come before the last expected record.
  void expect_output_is(const std::vector<std::vector<std::string>>& in, const std::string& context) {
    std::vector<std::unique_ptr<background_tool>> readers;
    for (int32_t p = 0; p < static_cast<int32_t>(in.size()); ++p)
      readers.push_back(start_reader(p, "read_committed", static_cast<int>(in[p].size())));
    for (int32_t p = 0; p < static_cast<int32_t>(in.size()); ++p) {
      const std::string name = "read_committed p" + std::to_string(p);
      auto out = readers[p]->wait();
      ASSERT_EQ(out.exit_code, 0) << report(name, out);
      EXPECT_TRUE(tool_lines(out) == in[p]) << "partition " << p << ": " << differences(in[p], tool_lines(out))
                                            << "\n" << report(name, out) << context << broker_log();
    }
  }

  // find-hanging on each broker: once the copier has ended, no partition
  // holds an open transaction at all, so only the table's header prints.
  void expect_nothing_hanging(const std::vector<int>& broker_ids) {
    for (int id : broker_ids) {
      auto hanging = find_hanging(dir(), bootstrap(), id);
      ASSERT_EQ(hanging.exit_code, 0) << hanging.all();
      EXPECT_NE(hanging.out.find("Topic\tPartition\tProducerId"), std::string::npos) << hanging.all();
      EXPECT_EQ(std::count(hanging.out.begin(), hanging.out.end(), '\n'), 1) << "broker " << id << "\n"
                                                                             << hanging.all();
    }
  }

  // The group's committed offsets per input partition, as kafka-consumer-
  // groups --describe prints them: CURRENT-OFFSET, LOG-END-OFFSET and LAG
  // must be the input's end offset, the same and 0.
  void expect_group_caught_up(const std::map<std::string, std::string>& end_offsets) {
    auto described = run_kafka_tool(dir(), k_groups,
                                    {"--bootstrap-server", bootstrap(), "--describe", "--group", "copier-group"}, "",
                                    k_consumer_timeout_s);
    ASSERT_EQ(described.exit_code, 0) << report("describe", described) << broker_log();
    std::map<std::string, std::string> current, end, lag;
    for (auto& row : table_rows(described.out, "GROUP")) {
      EXPECT_EQ(row["GROUP"], "copier-group") << described.all();
      EXPECT_EQ(row["TOPIC"], "copier-in") << described.all();
      current[row["PARTITION"]] = row["CURRENT-OFFSET"];
      end[row["PARTITION"]] = row["LOG-END-OFFSET"];
      lag[row["PARTITION"]] = row["LAG"];
    }
    EXPECT_EQ(current, end_offsets) << described.all();
    EXPECT_EQ(end, end_offsets) << described.all();
    EXPECT_EQ(lag, (std::map<std::string, std::string>{{"0", "0"}, {"1", "0"}})) << described.all();
  }
};

class ToolsTransactionsIT : public copier_test {
 protected:
  void SetUp() override {
    // The copier's consumer joins its group in --group-mode: no delay
    // before the first rebalance (Kafka's default waits 3 s).
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0"})) << broker.log();
  }
  std::string bootstrap() const override { return "127.0.0.1:" + std::to_string(broker.port()); }
  std::string dir() const override { return broker.dir(); }
  std::string broker_log() const override { return "--- broker log (end) ---\n" + tail(broker.log(), 30000); }
  endpoint any_node() const override { return broker.port(); }
  std::vector<endpoint> all_nodes() const override { return {broker.port()}; }

  broker_process broker;
};

// Input partition sizes: uneven, so that a record copied to the wrong
// partition, or a partition's offsets committed for the other, shows.
constexpr int k_p0 = 260;
constexpr int k_p1 = 240;

// One copier with --group-mode subscribes to the input topic (its consumer
// joins copier-group and is assigned both partitions; --input-partition
// is then ignored) and sends its offsets with the consumer's group
// metadata (--use-group-metadata: generation and member id, KIP-447), so
// the group coordinator checks them against the live generation. It runs
// until it has committed as many records as the input partitions held
// when they were assigned, --max-messages being only the first bound.
TEST_F(ToolsTransactionsIT, CopierInGroupModeCopiesEachRecordExactlyOnce) {
  create("copier-in", 2);
  create("copier-out", 2);
  const auto in0 = input_values(0, k_p0), in1 = input_values(1, k_p1);
  fill("copier-in", 0, in0);
  fill("copier-in", 1, in1);

  auto args = copier_args("copier-group-mode", 0, k_p0 + k_p1, 25);
  args.insert(args.end(), {"--group-mode", "--use-group-metadata"});
  auto copier = run_kafka_tool(broker.dir(), k_copier, args, "", k_copier_timeout_s);
  ASSERT_EQ(copier.exit_code, 0) << report("copier", copier) << broker_log();
  // The last line, printed as it shuts down: every record committed.
  auto status = last_status(copier);
  EXPECT_EQ(status["stage"], "ShutdownComplete") << report("copier", copier);
  EXPECT_EQ(status["totalProcessed"], std::to_string(k_p0 + k_p1)) << report("copier", copier);
  EXPECT_EQ(status["remaining"], "0") << report("copier", copier);

  // Whichever transactions were aborted on the way (the next test reads
  // to the end).
  expect_output_is({in0, in1}, report("copier", copier));

  // The offsets committed with the last transaction are the input's ends.
  expect_group_caught_up({{"0", std::to_string(k_p0)}, {"1", std::to_string(k_p1)}});

  // kafka-transactions.sh: the copier's id is listed and described as
  // ended (its last EndTxn committed), and nothing hangs on the broker.
  auto listed = run_kafka_tool(broker.dir(), k_transactions, {"--bootstrap-server", bootstrap(), "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.all();
  EXPECT_TRUE(std::regex_search(listed.out, std::regex("copier-group-mode\\s+1\\s+[0-9]+\\s+CompleteCommit")))
      << listed.all();
  auto described = run_kafka_tool(broker.dir(), k_transactions,
                                  {"--bootstrap-server", bootstrap(), "describe", "--transactional-id", "copier-group-mode"});
  ASSERT_EQ(described.exit_code, 0) << described.all();
  std::smatch described_row;
  ASSERT_TRUE(std::regex_search(described.out, described_row,
                                std::regex("\\b1\\s+copier-group-mode\\s+[0-9]+\\s+([0-9]+)\\s+CompleteCommit")))
      << described.all();
  // Transactions v2: each of the copier's 20 or more EndTxn bumped the
  // epoch (under v1 it would still be 0).
  EXPECT_GE(std::stoi(described_row[1].str()), 20) << described.all();
  expect_nothing_hanging({1});
}

// Two copiers at once, one per input partition (assigned, not
// subscribed), each with its own transactional id, both sending offsets
// for copier-group without group metadata (the 4.x tool then passes
// ConsumerGroupMetadata(groupId): generation -1, no member id, as Kafka
// allows for a group without members). Small transactions (10 records)
// make aborts frequent: with 1 in 3 aborted and about 25 committed per
// partition, no abort at all has a chance of (2/3)^50. What an aborted
// transaction had sent stays in the log between its records and its ABORT
// marker: read_uncommitted returns it, read_committed never does.
TEST_F(ToolsTransactionsIT, AbortedCopiesAreSeenOnlyByReadUncommitted) {
  create("copier-in", 2);
  create("copier-out", 2);
  const std::vector<std::vector<std::string>> in{input_values(0, k_p0), input_values(1, k_p1)};
  fill("copier-in", 0, in[0]);
  fill("copier-in", 1, in[1]);

  // --max-messages: the copier of an assigned partition stops after
  // min(this, records up to the end offset at start).
  {
    background_tool copier0(broker.dir(), "copier-p0", k_copier, copier_args("copier-p0", 0, k_p0, 10),
                            k_copier_timeout_s);
    background_tool copier1(broker.dir(), "copier-p1", k_copier, copier_args("copier-p1", 1, k_p1, 10),
                            k_copier_timeout_s);
    auto done0 = copier0.wait(), done1 = copier1.wait();
    ASSERT_EQ(done0.exit_code, 0) << report("copier p0", done0) << report("copier p1", done1) << broker_log();
    ASSERT_EQ(done1.exit_code, 0) << report("copier p0", done0) << report("copier p1", done1) << broker_log();
    EXPECT_EQ(last_status(done0)["totalProcessed"], std::to_string(k_p0)) << report("copier p0", done0);
    EXPECT_EQ(last_status(done1)["totalProcessed"], std::to_string(k_p1)) << report("copier p1", done1);
  }

  // Each partition read to its end (5 s without a record) at both levels.
  std::vector<std::unique_ptr<background_tool>> readers;
  for (int32_t p : {0, 1})
    for (const char* isolation : {"read_committed", "read_uncommitted"})
      readers.push_back(start_reader(p, isolation, 0));
  std::vector<tool_result> read;
  for (auto& r : readers) read.push_back(r->wait());
  size_t committed_total = 0, uncommitted_total = 0;
  for (int32_t p : {0, 1}) {
    const tool_result& committed_run = read[p * 2];
    const tool_result& uncommitted_run = read[p * 2 + 1];
    const std::string name = "partition " + std::to_string(p);
    ASSERT_EQ(committed_run.exit_code, 0) << report(name + " read_committed", committed_run);
    ASSERT_EQ(uncommitted_run.exit_code, 0) << report(name + " read_uncommitted", uncommitted_run);
    const auto committed = tool_lines(committed_run);
    const auto uncommitted = tool_lines(uncommitted_run);
    committed_total += committed.size();
    uncommitted_total += uncommitted.size();

    // Exactly once, in input order, and nothing after it.
    EXPECT_TRUE(committed == in[p]) << name << " read_committed: " << differences(in[p], committed) << "\n"
                                    << report("read_committed", committed_run) << broker_log();
    // Everything committed is there for read_uncommitted too, in the same
    // order, with the aborted copies (of input records, each eventually
    // committed) in between.
    EXPECT_GE(uncommitted.size(), committed.size()) << name;
    EXPECT_TRUE(subsequence(committed, uncommitted))
        << name << ": read_committed is not read_uncommitted with the aborted records left out\n"
        << report("read_uncommitted", uncommitted_run) << report("read_committed", committed_run);
    const std::set<std::string> input_set(in[p].begin(), in[p].end());
    const std::set<std::string> uncommitted_set(uncommitted.begin(), uncommitted.end());
    EXPECT_TRUE(uncommitted_set == input_set) << name << " read_uncommitted: " << differences(in[p], uncommitted);
  }
  EXPECT_GT(uncommitted_total, committed_total)
      << "no aborted record seen by read_uncommitted (the copiers abort about 1 transaction in 3)";

  expect_group_caught_up({{"0", std::to_string(k_p0)}, {"1", std::to_string(k_p1)}});
}

// Three combined nodes, the internal topics at Kafka's replication factor
// 3 (min ISR 2) and the copier's topics likewise.
class ToolsTransactionsBounceIT : public copier_test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "ToolsTransactionsBounce", 1);
    ASSERT_TRUE(cluster.start(false, {"group.initial.rebalance.delay.ms=0", "min.insync.replicas=2"})) << broker_log();
  }
  void TearDown() override { unsetenv("CLUSTER_ID"); }

  std::string bootstrap() const override {
    std::string out;
    for (const auto& n : cluster.nodes) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(n->port());
    return out;
  }
  std::string dir() const override { return cluster.nodes[0]->dir(); }
  std::string broker_log() const override {
    std::string out;
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
      out += "--- node " + std::to_string(i + 1) + " log (end) ---\n" + tail(cluster.nodes[i]->log(), 12000);
    return out;
  }
  endpoint any_node() const override {
    for (const auto& n : cluster.nodes)
      if (n->running()) return n->port();
    return cluster.nodes[0]->port();
  }
  std::vector<endpoint> all_nodes() const override {
    std::vector<endpoint> out;
    for (const auto& n : cluster.nodes)
      if (n->running()) out.push_back(n->port());
    return out;
  }

  // The coordinator of a transactional id (key type 1) or group (0) as a
  // running node names it; -1 when none answers.
  int coordinator(int8_t key_type, const std::string& key) {
    return coordinator_of(cluster.running_ports(), key_type, key);
  }
  // Partition p's leader of the topic, as a running node's metadata has it.
  int leader(const std::string& topic, int32_t p) { return leader_of(cluster.running_ports(), topic, p); }
  // Every partition of the topics with all three replicas in sync.
  bool whole(const std::vector<std::string>& topics) {
    return unwhole(cluster.running_ports(), topics, -1).empty();
  }

  // copier-in and copier-out at replication factor 3, whole, and copier-in
  // filled with these values per partition.
  void replicated_input(const std::vector<std::vector<std::string>>& in) {
    create("copier-in", 2, 3);
    create("copier-out", 2, 3);
    ASSERT_TRUE(wait_until([&] { return whole({"copier-in", "copier-out"}); }, 60s)) << broker_log();
    for (int32_t p = 0; p < static_cast<int32_t>(in.size()); ++p) fill("copier-in", p, in[p]);
  }

  kraft_nodes cluster;
};

// Kafka's transactions system test (transactions_test.py) on three nodes:
// while a copier in group mode (KIP-447 offsets, transactions v2, random
// aborts) copies the input, the transaction coordinator of its id is
// killed (SIGKILL), the leader of an output partition stopped cleanly
// (SIGTERM) and the copier's group coordinator killed, each started again
// and the ISR whole before the next. The copier rides through (the client
// finds the new coordinators; a transaction that cannot commit is aborted
// and its input read again), and read_committed still sees every input
// record exactly once, in order, with the group's offsets at the input's
// end.
TEST_F(ToolsTransactionsBounceIT, BouncedCoordinatorsAndLeadersLoseAndDuplicateNothing) {
  constexpr int k_in0 = 700, k_in1 = 640;
  const std::vector<std::vector<std::string>> in{input_values(0, k_in0), input_values(1, k_in1)};
  ASSERT_NO_FATAL_FAILURE(replicated_input(in));

  const std::string id = "copier-bounced";
  auto args = copier_args(id, 0, k_in0 + k_in1, 20);
  args.insert(args.end(), {"--group-mode", "--use-group-metadata"});
  background_tool copier(dir(), "copier-bounced", k_copier, args, 240);
  auto processed = [&] { return processed_so_far(copier); };

  struct bounce {
    std::string what;
    std::function<int()> target;
    bool hard;
  };
  const std::vector<bounce> bounces{
      {"the transaction coordinator", [&] { return coordinator(1, id); }, true},
      {"the leader of copier-out-0", [&] { return leader("copier-out", 0); }, false},
      {"the group coordinator", [&] { return coordinator(0, "copier-group"); }, true},
  };
  int progress = 0;
  for (const auto& b : bounces) {
    // Copying has moved on since the last bounce.
    ASSERT_TRUE(wait_until([&] { return processed() > progress; }, 90s))
        << "the copier made no progress before bouncing " << b.what << "\n" << copier.out_so_far() << broker_log();
    int target = -1;
    ASSERT_TRUE(wait_until([&] { return (target = b.target()) > 0; }, 30s)) << b.what << "\n" << broker_log();
    if (b.hard) {
      ASSERT_EQ(cluster.node(target).stop(SIGKILL), -SIGKILL) << b.what;
    } else {
      ASSERT_EQ(cluster.node(target).stop(SIGTERM, 60s), 0) << b.what << "\n" << broker_log();
    }
    progress = processed();
    // Bounced mid-copy, not after it.
    ASSERT_LT(progress, k_in0 + k_in1) << "the copier had finished before " << b.what << " was bounced";
    std::printf("bounced %s (node %d) with %d records copied\n", b.what.c_str(), target, progress);
    ASSERT_TRUE(cluster.restart(target)) << b.what << " (node " << target << ") did not start again\n"
                                          << broker_log();
    ASSERT_TRUE(wait_until([&] { return whole({"copier-in", "copier-out", "__transaction_state", "__consumer_offsets"}); },
                           90s))
        << "ISR not whole after bouncing " << b.what << "\n" << broker_log();
  }

  auto done = copier.wait();
  ASSERT_EQ(done.exit_code, 0) << report("copier", done) << broker_log();
  auto status = last_status(done);
  EXPECT_EQ(status["stage"], "ShutdownComplete") << report("copier", done);
  EXPECT_EQ(status["totalProcessed"], std::to_string(k_in0 + k_in1)) << report("copier", done);
  expect_output_is(in, report("copier", done));
  expect_group_caught_up({{"0", std::to_string(k_in0)}, {"1", std::to_string(k_in1)}});
  expect_nothing_hanging({1, 2, 3});
}

// Kafka's transactions system test with copiers sharing one group: three
// copiers in group mode (KIP-447 offsets with the group's generation,
// transactions v2, random aborts, small transactions) join copier-group
// one after the other while the others copy, and each leaves once its
// partitions are drained. Every join and leave rebalances the group while
// transactions commit: a transaction whose offsets name a generation that
// is gone is aborted and its input copied again by the partition's next
// owner. No copier may be fenced (each has its own transactional id), and
// read_committed sees every input record once, in order.
TEST_F(ToolsTransactionsBounceIT, CopiersJoiningOneGroupRebalanceWhileTheyCommit) {
  constexpr int k_in0 = 700, k_in1 = 640;
  const std::vector<std::vector<std::string>> in{input_values(0, k_in0), input_values(1, k_in1)};
  ASSERT_NO_FATAL_FAILURE(replicated_input(in));

  std::vector<std::unique_ptr<background_tool>> copiers;
  auto start = [&](const std::string& id) {
    auto args = copier_args(id, 0, k_in0 + k_in1, 10);
    args.insert(args.end(), {"--group-mode", "--use-group-metadata"});
    copiers.push_back(std::make_unique<background_tool>(dir(), id, k_copier, args, 240));
  };
  auto copied = [&] {
    int n = 0;
    for (const auto& c : copiers) n += processed_so_far(*c);
    return n;
  };
  start("copier-joined-1");
  ASSERT_TRUE(wait_until([&] { return copied() >= 150; }, 90s)) << copiers[0]->out_so_far() << broker_log();
  start("copier-joined-2");
  ASSERT_TRUE(wait_until([&] { return copied() >= 450; }, 90s)) << broker_log();
  start("copier-joined-3");
  ASSERT_LT(copied(), k_in0 + k_in1) << "the copy ended before the third copier joined";

  int total = 0;
  std::string reports;
  std::vector<tool_result> done;
  for (size_t i = 0; i < copiers.size(); ++i) {
    done.push_back(copiers[i]->wait());
    reports += report("copier " + std::to_string(i + 1), done.back());
  }
  for (size_t i = 0; i < done.size(); ++i) {
    ASSERT_EQ(done[i].exit_code, 0) << "copier " << i + 1 << "\n" << reports << broker_log();
    auto status = last_status(done[i]);
    EXPECT_EQ(status["stage"], "ShutdownComplete") << reports;
    total += std::stoi(status["totalProcessed"].empty() ? "0" : status["totalProcessed"]);
  }
  EXPECT_EQ(total, k_in0 + k_in1) << "the copiers' committed records add up to more or less than the input\n"
                                  << reports;
  expect_output_is(in, reports);
  expect_group_caught_up({{"0", std::to_string(k_in0)}, {"1", std::to_string(k_in1)}});
  expect_nothing_hanging({1, 2, 3});
}

// ListOffsets latest of partition 0 as a read_committed consumer asks it: the last stable offset.
int64_t last_stable_offset(raw_client& c, const std::string& topic) {
  msg::list_offsets_request req;
  req.replica_id = -1;
  req.isolation_level = 1;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  auto& p = t.partitions.emplace_back();
  p.partition_index = 0;
  p.timestamp = -1;
  auto r = c.call<msg::list_offsets_response>(2, 7, req);
  if (!r || r->topics.size() != 1 || r->topics[0].partitions.size() != 1) return -2;
  return r->topics[0].partitions[0].error_code ? -2 : r->topics[0].partitions[0].offset;
}

// The rows of a table kafka-transactions prints (header first; cells
// padded and tab-separated, none with a blank in it).
std::vector<std::vector<std::string>> tab_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : lines_of(text))
    if (!jvm_log_line(line)) rows.push_back(words_of(line));
  return rows;
}

// A hanging transaction, as a broker without verification (Kafka before
// KIP-890, or transaction.partition.verification.enable=false) lets one
// through: a transactional batch whose producer never told a coordinator,
// so nothing will ever end it and the last stable offset stays behind it.
// kafka-transactions.sh finds it (find-hanging), shows its producer
// (describe-producers) and aborts it (abort: the tool looks the producer
// up with DescribeProducers and sends WriteTxnMarkers itself); then the
// last stable offset moves to the end, read_committed reads the records
// written after it, and nothing hangs any more.
TEST(ToolsHangingTransactionIT, FindHangingDescribeProducersAndAbort) {
  broker_process broker;
  ASSERT_TRUE(broker.start({"--override", "transaction.partition.verification.enable=false"})) << broker.log();
  const std::string bootstrap = "127.0.0.1:" + std::to_string(broker.port());
  raw_client c(broker.port());
  auto created = c.create_topic("hanging", 1);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->topics[0].error_code, 0);
  constexpr int64_t k_pid = 4242;
  auto open = c.produce("hanging", 0, transactional_batch(k_pid, 0, 0, {"open-0", "open-1", "open-2"}), -1,
                        "never-added");
  ASSERT_TRUE(open);
  ASSERT_EQ(open->error_code, 0) << broker.log();
  auto written = c.produce("hanging", 0, batch_of({"after-0", "after-1"}));
  ASSERT_TRUE(written);
  ASSERT_EQ(written->error_code, 0) << broker.log();
  EXPECT_EQ(last_stable_offset(c, "hanging"), 0);

  auto found = find_hanging(broker.dir(), bootstrap, 1);
  ASSERT_EQ(found.exit_code, 0) << found.all();
  auto rows = tab_rows(found.out);
  ASSERT_EQ(rows.size(), 2u) << found.all();
  EXPECT_EQ(rows[0], (std::vector<std::string>{"Topic", "Partition", "ProducerId", "ProducerEpoch",
                                                "CoordinatorEpoch", "StartOffset", "LastTimestamp", "Duration(min)"}))
      << found.all();
  ASSERT_EQ(rows[1].size(), 8u) << found.all();
  EXPECT_EQ(rows[1][0], "hanging");
  EXPECT_EQ(rows[1][1], "0");
  EXPECT_EQ(rows[1][2], std::to_string(k_pid));
  EXPECT_EQ(rows[1][3], "0");
  EXPECT_EQ(rows[1][4], "-1") << "no marker yet: no coordinator epoch";
  EXPECT_EQ(rows[1][5], "0");
  EXPECT_EQ(rows[1][6], "1700000000002") << "the batch's last timestamp";

  auto producers = run_kafka_tool(broker.dir(), k_transactions,
                                  {"--bootstrap-server", bootstrap, "describe-producers", "--topic", "hanging",
                                   "--partition", "0"});
  ASSERT_EQ(producers.exit_code, 0) << producers.all();
  rows = tab_rows(producers.out);
  ASSERT_EQ(rows.size(), 2u) << producers.all();
  EXPECT_EQ(rows[0], (std::vector<std::string>{"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch",
                                                "LastSequence", "LastTimestamp", "CurrentTransactionStartOffset"}))
      << producers.all();
  EXPECT_EQ(rows[1], (std::vector<std::string>{std::to_string(k_pid), "0", "-1", "2", "1700000000002", "0"}))
      << producers.all();

  auto aborted = run_kafka_tool(broker.dir(), k_transactions,
                                {"--bootstrap-server", bootstrap, "abort", "--topic", "hanging", "--partition", "0",
                                 "--start-offset", "0"});
  ASSERT_EQ(aborted.exit_code, 0) << aborted.all() << broker.log();
  // Three open records, two plain ones, the abort marker.
  ASSERT_TRUE(wait_until([&] { return last_stable_offset(c, "hanging") == 6; }, 10s))
      << last_stable_offset(c, "hanging") << "\n" << broker.log();
  auto read = run_kafka_tool(broker.dir(), k_console_consumer,
                             {"--bootstrap-server", bootstrap, "--topic", "hanging", "--partition", "0", "--offset",
                              "earliest", "--isolation-level", "read_committed", "--max-messages", "2",
                              "--timeout-ms", "30000"});
  ASSERT_EQ(read.exit_code, 0) << read.all();
  EXPECT_EQ(tool_lines(read), (std::vector<std::string>{"after-0", "after-1"})) << read.all();

  auto after = find_hanging(broker.dir(), bootstrap, 1);
  ASSERT_EQ(after.exit_code, 0) << after.all();
  EXPECT_EQ(tab_rows(after.out).size(), 1u) << after.all();
}

}  // namespace
}  // namespace hw::testing
