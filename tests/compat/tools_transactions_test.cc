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
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "kafka_tool.h"
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

// The last `n` characters of text, for failure messages.
std::string tail(const std::string& text, size_t n) {
  if (text.size() <= n) return text;
  return "[... " + std::to_string(text.size() - n) + " bytes ...]\n" + text.substr(text.size() - n);
}

// A tool's output in a failure message: exit code, the end of what it printed.
std::string report(const std::string& what, const tool_result& r) {
  return "--- " + what + " (exit " + std::to_string(r.exit_code) + ") stdout ---\n" + tail(r.out, 6000) +
         "--- " + what + " stderr ---\n" + tail(r.err, 12000);
}

// One of Kafka's tools started in the background, so that two copiers, or
// several consumers, run at once (as a real deployment runs one copier per
// input partition). Like run_kafka_tool it runs under `timeout -k 10`
// (which makes itself a process group leader and signals the JVM when the
// time is up); the destructor sends SIGTERM to that timeout process, the
// one this test started, if the test ended before waiting for it.
class background_tool {
 public:
  background_tool(const std::string& work_dir, const std::string& name, const std::string& main_class,
                  const std::vector<std::string>& args, int timeout_s)
      : base_(work_dir + "/" + name) {
    std::vector<std::string> argv{"timeout", "-k", "10", std::to_string(timeout_s),
                                  HW_SOURCE_DIR "/scripts/kafka-run-class.sh", main_class};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, (base_ + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, (base_ + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawnp(&pid_, "timeout", &fa, nullptr, cargv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  background_tool(const background_tool&) = delete;
  background_tool& operator=(const background_tool&) = delete;
  ~background_tool() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    reap();
  }

  // Waits for the tool to exit (at most its timeout plus 10 s).
  tool_result wait() {
    tool_result r;
    if (pid_ <= 0) {
      r.err = "could not start " + base_;
      return r;
    }
    const int status = reap();
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_whole(base_ + ".out");
    r.err = read_whole(base_ + ".err");
    return r;
  }

 private:
  int reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

  std::string base_;
  pid_t pid_ = -1;
};

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

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// kafka-consumer-groups --describe: one map column → value per row.
std::vector<std::map<std::string, std::string>> describe_rows(const std::string& text) {
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  for (auto& line : lines_of(text)) {
    auto words = words_of(line);
    if (!words.empty() && words[0] == "GROUP") {
      header = words;
      continue;
    }
    if (header.empty() || words.size() != header.size()) continue;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = words[i];
    rows.push_back(std::move(row));
  }
  return rows;
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

class ToolsTransactionsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    // The copier's consumer joins its group in --group-mode: no delay
    // before the first rebalance (Kafka's default waits 3 s).
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0"})) << broker.log();
  }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  std::string broker_log() const { return "--- broker log (end) ---\n" + tail(broker.log(), 30000); }

  void create(const std::string& topic, int partitions) {
    raw_client c(broker.port());
    auto r = c.create_topic(topic, partitions);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics[0].error_code, 0);
  }

  // Appends the values to partition p, 20 records a batch (not
  // transactional: the copier's read_committed consumer reads them all).
  void fill(const std::string& topic, int32_t p, const std::vector<std::string>& values) {
    raw_client c(broker.port());
    for (size_t i = 0; i < values.size(); i += 20) {
      protocol::record_batch_builder b(protocol::record_batch_options{});
      for (size_t j = i; j < std::min(values.size(), i + 20); ++j)
        b.append(1700000000000 + static_cast<int64_t>(j), std::nullopt,
                 protocol::bytes_view(reinterpret_cast<const uint8_t*>(values[j].data()), values[j].size()));
      auto r = c.produce(topic, p, b.finish());
      ASSERT_TRUE(r);
      ASSERT_EQ(r->error_code, 0);
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
    return std::make_unique<background_tool>(broker.dir(), "read-" + isolation + "-p" + std::to_string(p),
                                             k_console_consumer, args, k_consumer_timeout_s);
  }

  // The group's committed offsets per input partition, as kafka-consumer-
  // groups --describe prints them: CURRENT-OFFSET, LOG-END-OFFSET and LAG
  // must be the input's end offset, the same and 0.
  void expect_group_caught_up(const std::map<std::string, std::string>& end_offsets) {
    auto described = run_kafka_tool(broker.dir(), k_groups,
                                    {"--bootstrap-server", bootstrap(), "--describe", "--group", "copier-group"}, "",
                                    k_consumer_timeout_s);
    ASSERT_EQ(described.exit_code, 0) << report("describe", described) << broker_log();
    std::map<std::string, std::string> current, end, lag;
    for (auto& row : describe_rows(described.out)) {
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

  // read_committed: each output partition is its input partition, in
  // order, every record once, whichever transactions were aborted on the
  // way. Reading stops at the expected count: the copier's last
  // transaction commits, so an aborted copy shown, or a record committed
  // twice, would come before the last expected record (the next test
  // reads to the end).
  auto reader0 = start_reader(0, "read_committed", k_p0);
  auto reader1 = start_reader(1, "read_committed", k_p1);
  auto out0 = reader0->wait(), out1 = reader1->wait();
  ASSERT_EQ(out0.exit_code, 0) << report("read_committed p0", out0);
  ASSERT_EQ(out1.exit_code, 0) << report("read_committed p1", out1);
  EXPECT_TRUE(tool_lines(out0) == in0) << "partition 0: " << differences(in0, tool_lines(out0)) << "\n"
                                        << report("read_committed p0", out0) << report("copier", copier)
                                        << broker_log();
  EXPECT_TRUE(tool_lines(out1) == in1) << "partition 1: " << differences(in1, tool_lines(out1)) << "\n"
                                        << report("read_committed p1", out1) << report("copier", copier)
                                        << broker_log();

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
  auto hanging = run_kafka_tool(broker.dir(), k_transactions, {"--bootstrap-server", bootstrap(), "find-hanging", "--broker-id", "1"});
  ASSERT_EQ(hanging.exit_code, 0) << hanging.all();
  // The table's header and no row.
  EXPECT_NE(hanging.out.find("Topic\tPartition\tProducerId"), std::string::npos) << hanging.all();
  EXPECT_EQ(std::count(hanging.out.begin(), hanging.out.end(), '\n'), 1) << hanging.all();
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

}  // namespace
}  // namespace hw::testing
