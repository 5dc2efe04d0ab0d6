// The native kafka-console-producer.sh and kafka-console-consumer.sh
// against Kafka 4.3.1's ConsoleProducer and ConsoleConsumer on one
// highwater: the same lines produced by both producers become the same
// records (read back by Kafka's consumer), both consumers print the same
// lines for the same records in the same modes, and both fail the same way
// on a bad command line or an unreachable broker.
//
// Normalised, and only that: the order of lines across partitions, which
// Kafka's consumer does not define (lines are sorted where a run reads
// several partitions; a single partition's lines are compared in order),
// the timestamps of log lines, and Kafka's WARN lines about connections,
// whose number depends on timing.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/init_producer_id.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_producer = "org.apache.kafka.tools.ConsoleProducer";
const char* const k_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const char* const k_protocol_line =
    "The consumer rebalance protocol (KIP-848) is production-ready! Set group.protocol=consumer to try it out. "
    "See https://kafka.apache.org/documentation/#consumer_rebalance_protocol";

// stdout lines as printed (empty ones too), without the JVM's own log lines.
std::vector<std::string> out_lines(const tool_result& r) {
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (!jvm_log_line(line)) out.push_back(line);
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

// stderr without log timestamps, Kafka's WARN lines and stack frames.
std::vector<std::string> err_lines(const tool_result& r) {
  std::vector<std::string> out;
  std::istringstream in(r.err);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("\tat ") || line.starts_with("\t... ") || jvm_log_line(line)) continue;
    if (line.starts_with("[") && line.find("] ") != std::string::npos) line = line.substr(line.find("] ") + 2);
    if (line.starts_with("WARN ")) continue;
    out.push_back(line);
  }
  return out;
}

std::string both(const tool_result& java, const tool_result& native) {
  return "\njava (exit " + std::to_string(java.exit_code) + "):\n" + java.all() + "native (exit " +
         std::to_string(native.exit_code) + "):\n" + native.all();
}

class NativeConsoleIT : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(broker.start()) << broker.log(); }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  std::vector<std::string> with_bootstrap(std::vector<std::string> args, const std::string& servers = "") const {
    args.insert(args.begin(), {"--bootstrap-server", servers.empty() ? bootstrap() : servers});
    return args;
  }
  tool_result java_producer(const std::vector<std::string>& args, const std::string& in) {
    return run_kafka_tool(broker.dir(), k_producer, with_bootstrap(args), in);
  }
  tool_result native_producer(const std::vector<std::string>& args, const std::string& in) {
    return run_native_tool(broker.dir(), "kafka-console-producer.sh", with_bootstrap(args), in);
  }
  tool_result java_consumer(const std::vector<std::string>& args) {
    return run_kafka_tool(broker.dir(), k_consumer, with_bootstrap(args));
  }
  tool_result native_consumer(const std::vector<std::string>& args) {
    return run_native_tool(broker.dir(), "kafka-console-consumer.sh", with_bootstrap(args));
  }
  void create(const std::string& topic, int partitions) {
    raw_client c(broker.port());
    auto r = c.create_topic(topic, partitions);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics[0].error_code, 0);
  }
  // Both consumers with the same arguments: same exit code, same stderr
  // (normalised), same stdout lines (sorted when `any_order`).
  void expect_same_consumers(const std::vector<std::string>& args, bool any_order, const std::string& what,
                             std::vector<std::string>* printed = nullptr) {
    const tool_result java = java_consumer(args);
    const tool_result native = native_consumer(args);
    EXPECT_EQ(native.exit_code, java.exit_code) << what << both(java, native);
    if (any_order)
      EXPECT_EQ(sorted(out_lines(native)), sorted(out_lines(java))) << what << both(java, native);
    else
      EXPECT_EQ(out_lines(native), out_lines(java)) << what << both(java, native);
    EXPECT_EQ(err_lines(native), err_lines(java)) << what << both(java, native);
    if (printed) *printed = out_lines(java);
  }

  broker_process broker;
};

// Keys spread over the partitions by murmur2 in both clients, so each
// partition gets the same records in the same order; headers, an empty
// header value, a null value (the null marker) and an empty value.
std::string keyed_input() {
  std::string in;
  for (int i = 0; i < 12; ++i)
    in += "src:console,n:" + std::to_string(i) + "\tkey-" + std::to_string(i % 5) + "\tvalue-" + std::to_string(i) +
          "\n";
  in += "empty:\tkey-1\t<null>\n";
  in += "n:last\tkey-2\t\n";
  return in;
}
constexpr int k_keyed_records = 14;

const std::vector<std::string> k_reader_args = {"--reader-property", "parse.key=true", "--reader-property",
                                                "parse.headers=true", "--reader-property", "null.marker=<null>"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_F(NativeConsoleIT, BothProducersWriteTheSameRecords) {
  create("lines-java", 3);
  create("lines-native", 3);
  const auto java = java_producer(concat({"--topic", "lines-java"}, k_reader_args), keyed_input());
  const auto native = native_producer(concat({"--topic", "lines-native"}, k_reader_args), keyed_input());
  EXPECT_EQ(native.exit_code, 0) << both(java, native);
  EXPECT_EQ(java.exit_code, 0) << both(java, native);
  EXPECT_EQ(out_lines(native), out_lines(java)) << both(java, native);
  EXPECT_EQ(err_lines(native), err_lines(java)) << both(java, native);

  // Kafka's consumer reads both topics: partition, offset, headers, key and
  // value the same (the producers' timestamps differ, so they are not printed).
  const std::vector<std::string> print = {"--from-beginning", "--max-messages", std::to_string(k_keyed_records),
                                          "--formatter-property", "print.partition=true", "--formatter-property",
                                          "print.offset=true", "--formatter-property", "print.headers=true",
                                          "--formatter-property", "print.key=true"};
  const auto from_java = java_consumer(concat({"--topic", "lines-java"}, print));
  const auto from_native = java_consumer(concat({"--topic", "lines-native"}, print));
  ASSERT_EQ(from_java.exit_code, 0) << from_java.all();
  ASSERT_EQ(out_lines(from_java).size(), static_cast<size_t>(k_keyed_records)) << from_java.all();
  EXPECT_EQ(sorted(out_lines(from_native)), sorted(out_lines(from_java))) << both(from_java, from_native);
  EXPECT_TRUE(printed_line_starting(from_java, "Partition:")) << from_java.all();
  // The null marker made a null value, the empty header value and the empty value stayed empty.
  const auto lines = out_lines(from_java);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](auto& l) { return l.ends_with("\tempty:\tkey-1\tnull"); }))
      << from_java.all();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](auto& l) { return l.ends_with("\tn:last\tkey-2\t"); }))
      << from_java.all();

  // The native consumer prints what Kafka's prints for these records.
  const auto native_reads = native_consumer(concat({"--topic", "lines-java"}, print));
  EXPECT_EQ(native_reads.exit_code, 0) << native_reads.all();
  EXPECT_EQ(sorted(out_lines(native_reads)), sorted(out_lines(from_java))) << both(from_java, native_reads);
  EXPECT_EQ(err_lines(native_reads), err_lines(from_java)) << both(from_java, native_reads);
}

TEST_F(NativeConsoleIT, BothConsumersPrintTheSameLines) {
  create("data", 3);
  ASSERT_EQ(java_producer(concat({"--topic", "data"}, k_reader_args), keyed_input()).exit_code, 0);
  const std::string all = std::to_string(k_keyed_records);

  expect_same_consumers({"--topic", "data", "--from-beginning", "--max-messages", all}, true, "values");
  // The seed: deprecated --property (its warning on stdout) and keys.
  expect_same_consumers({"--topic", "data", "--from-beginning", "--max-messages", all, "--property", "print.key=true",
                         "--property", "print.timestamp=true", "--property", "print.partition=true", "--property",
                         "print.headers=true", "--property", "key.separator= | "},
                        true, "print.key and the rest");
  // One partition from an offset: a defined order; --timeout-ms ends the run.
  std::vector<std::string> one_partition;
  expect_same_consumers({"--topic", "data", "--partition", "1", "--offset", "1", "--timeout-ms", "10000",
                         "--formatter-property", "print.offset=true", "--formatter-property", "print.key=true"},
                        false, "--partition --offset", &one_partition);
  EXPECT_FALSE(one_partition.empty());
  expect_same_consumers({"--include", "da.a", "--from-beginning", "--max-messages", "3", "--formatter-property",
                         "print.value=false", "--formatter-property", "print.offset=true"},
                        true, "--include");
}

// A group commits what it printed: the next run of the same group goes on
// from there, in both tools.
TEST_F(NativeConsoleIT, AGroupGoesOnWhereItStopped) {
  create("ordered", 1);
  std::string in;
  for (int i = 0; i < 6; ++i) in += "line-" + std::to_string(i) + "\n";
  ASSERT_EQ(java_producer({"--topic", "ordered"}, in).exit_code, 0);
  auto run = [&](bool native, const std::string& group, const std::string& max) {
    std::vector<std::string> args = {"--topic", "ordered", "--from-beginning", "--group", group, "--max-messages", max};
    return native ? native_consumer(args) : java_consumer(args);
  };
  const auto java_first = run(false, "group-java", "2");
  const auto native_first = run(true, "group-native", "2");
  EXPECT_EQ(out_lines(native_first), out_lines(java_first)) << both(java_first, native_first);
  EXPECT_EQ(out_lines(native_first), (std::vector<std::string>{"line-0", "line-1"}));
  const auto java_rest = run(false, "group-java", "4");
  const auto native_rest = run(true, "group-native", "4");
  EXPECT_EQ(out_lines(native_rest), out_lines(java_rest)) << both(java_rest, native_rest);
  EXPECT_EQ(out_lines(native_rest), (std::vector<std::string>{"line-2", "line-3", "line-4", "line-5"}));
  EXPECT_EQ(err_lines(native_rest), err_lines(java_rest)) << both(java_rest, native_rest);
}

// One aborted and one committed transaction (transactions v2: InitProducerId,
// Produce v12 adding the partition, EndTxn v5), then both consumers at both
// isolation levels.
TEST_F(NativeConsoleIT, ReadCommittedSkipsTheAbortedTransaction) {
  create("txn", 1);
  raw_client c(broker.port());
  // FindCoordinator creates __transaction_state; InitProducerId waits for it.
  ASSERT_TRUE(wait_until([&] { return c.find_coordinator("console-txn", 1).first == 0; }, 30s));
  msg::init_producer_id_request init;
  init.transactional_id = "console-txn";
  init.transaction_timeout_ms = 60000;
  std::optional<msg::init_producer_id_response> producer;
  ASSERT_TRUE(wait_until(
      [&] {
        producer = c.call<msg::init_producer_id_response>(22, 5, init);
        return producer && producer->error_code == 0;
      },
      30s));
  int16_t epoch = producer->producer_epoch;
  auto transaction = [&](const std::vector<std::string>& values, bool commit) {
    auto written = c.produce("txn", 0, transactional_batch(producer->producer_id, epoch, 0, values), -1,
                             std::string("console-txn"), 12);
    ASSERT_TRUE(written);
    ASSERT_EQ(written->error_code, 0);
    msg::end_txn_request end;
    end.transactional_id = "console-txn";
    end.producer_id = producer->producer_id;
    end.producer_epoch = epoch;
    end.committed = commit;
    auto ended = c.call<msg::end_txn_response>(26, 5, end);
    ASSERT_TRUE(ended);
    ASSERT_EQ(ended->error_code, 0);
    epoch = ended->producer_epoch;
  };
  transaction({"aborted-1", "aborted-2"}, false);
  transaction({"committed-1", "committed-2"}, true);
  // Records 0-1, abort marker 2, records 3-4, commit marker 5: stable once the LSO is 6.
  ASSERT_TRUE(wait_until(
      [&] {
        msg::list_offsets_request req;
        req.replica_id = -1;
        req.isolation_level = 1;
        auto& t = req.topics.emplace_back();
        t.name = "txn";
        auto& p = t.partitions.emplace_back();
        p.partition_index = 0;
        p.timestamp = -1;
        auto r = c.call<msg::list_offsets_response>(2, k_list_offsets_version, req);
        return r && r->topics.size() == 1 && r->topics[0].partitions[0].offset == 6;
      },
      20s));

  std::vector<std::string> committed, uncommitted, by_option;
  // The seeds, exactly.
  expect_same_consumers({"--topic", "txn", "--from-beginning", "--max-messages", "2", "--consumer-property",
                         "isolation.level=read_committed", "--property", "print.key=true"},
                        false, "read_committed", &committed);
  expect_same_consumers({"--topic", "txn", "--from-beginning", "--max-messages", "4", "--consumer-property",
                         "isolation.level=read_uncommitted", "--property", "print.key=true"},
                        false, "read_uncommitted", &uncommitted);
  // --isolation-level, reading the partition to its end (--timeout-ms) to show nothing else comes.
  expect_same_consumers({"--topic", "txn", "--partition", "0", "--offset", "earliest", "--isolation-level",
                         "read_committed", "--timeout-ms", "8000", "--formatter-property", "print.offset=true"},
                        false, "--isolation-level read_committed", &by_option);
  const std::vector<std::string> warning = {
      "Option --consumer-property is deprecated and will be removed in a future version. Use --command-property "
      "instead.",
      "Option --property is deprecated and will be removed in a future version. Use --formatter-property instead."};
  EXPECT_EQ(committed, concat(warning, {"null\tcommitted-1", "null\tcommitted-2"}));
  EXPECT_EQ(uncommitted,
            concat(warning, {"null\taborted-1", "null\taborted-2", "null\tcommitted-1", "null\tcommitted-2"}));
  EXPECT_EQ(by_option, (std::vector<std::string>{"Offset:3\tcommitted-1", "Offset:4\tcommitted-2"}));
}

TEST_F(NativeConsoleIT, BadCommandLinesFailAsKafkasDo) {
  auto same_failure = [&](bool producer, const std::vector<std::string>& args) {
    const auto java = producer ? java_producer(args, "") : java_consumer(args);
    const auto native = producer ? native_producer(args, "") : native_consumer(args);
    EXPECT_EQ(native.exit_code, java.exit_code) << both(java, native);
    EXPECT_EQ(out_lines(native), out_lines(java)) << both(java, native);
    // The message; Kafka's usage table after it is joptsimple's layout.
    ASSERT_FALSE(err_lines(java).empty()) << both(java, native);
    ASSERT_FALSE(err_lines(native).empty()) << both(java, native);
    EXPECT_EQ(err_lines(native).front(), err_lines(java).front()) << both(java, native);
  };
  same_failure(false, {"--topic", "t", "--no-such-flag"});
  same_failure(false, {"--topic", "t", "--offset", "3"});
  same_failure(false, {"--topic", "t", "--partition", "0", "--offset", "-5"});
  same_failure(false, {"--topic", "t", "--partition", "zero"});
  same_failure(false, {"--include", "x", "--topic", "t"});
  same_failure(true, {"--sync"});
  same_failure(true, {"--topic", "t", "--request-timeout-ms", "abc"});
  same_failure(true, {"--topic", "t", "--request-required-acks", "2"});
  same_failure(true, {"--topic", "t", "--command-property", "linger.ms=abc"});
  // What the native tools do not do fails naming it.
  const auto systest = native_consumer({"--topic", "t", "--enable-systest-events"});
  EXPECT_EQ(systest.exit_code, 1);
  EXPECT_NE(systest.err.find("--enable-systest-events"), std::string::npos) << systest.all();
  const auto formatter = native_consumer({"--topic", "t", "--formatter", "kafka.tools.NoOpMessageFormatter"});
  EXPECT_EQ(formatter.exit_code, 1);
  EXPECT_NE(formatter.err.find("kafka.tools.NoOpMessageFormatter"), std::string::npos) << formatter.all();
}

TEST_F(NativeConsoleIT, UnreachableBrokerFailsWithinKafkasTimeouts) {
  const std::string nowhere = "127.0.0.1:" + std::to_string(kernel_port());
  const std::vector<std::string> producer_args = {"--bootstrap-server", nowhere, "--topic", "t", "--max-block-ms",
                                                  "3000"};
  // Each record waits max.block.ms for metadata and is reported; the tool exits 0 as Kafka's does.
  const auto java = run_kafka_tool(broker.dir(), k_producer, producer_args, "one\ntwo\n");
  const auto start = std::chrono::steady_clock::now();
  const auto native = run_native_tool(broker.dir(), "kafka-console-producer.sh", producer_args, "one\ntwo\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  EXPECT_EQ(native.exit_code, java.exit_code) << both(java, native);
  EXPECT_EQ(err_lines(native), err_lines(java)) << both(java, native);
  EXPECT_EQ(err_lines(native).size(), 4u) << native.all();  // an ERROR line and its exception per record

  auto sync_args = producer_args;
  sync_args.push_back("--sync");
  const auto java_sync = run_kafka_tool(broker.dir(), k_producer, sync_args, "one\n");
  const auto native_sync = run_native_tool(broker.dir(), "kafka-console-producer.sh", sync_args, "one\n");
  EXPECT_EQ(native_sync.exit_code, 1) << native_sync.all();
  EXPECT_EQ(native_sync.exit_code, java_sync.exit_code) << both(java_sync, native_sync);
  EXPECT_EQ(err_lines(native_sync), err_lines(java_sync)) << both(java_sync, native_sync);

  const std::vector<std::string> consumer_args = {"--bootstrap-server", nowhere, "--topic", "t", "--timeout-ms",
                                                  "3000"};
  const auto java_consumer_run = run_kafka_tool(broker.dir(), k_consumer, consumer_args);
  const auto native_consumer_run = run_native_tool(broker.dir(), "kafka-console-consumer.sh", consumer_args);
  EXPECT_EQ(native_consumer_run.exit_code, java_consumer_run.exit_code) << both(java_consumer_run, native_consumer_run);
  EXPECT_EQ(err_lines(native_consumer_run), err_lines(java_consumer_run))
      << both(java_consumer_run, native_consumer_run);
  EXPECT_EQ(err_lines(native_consumer_run).back(), "Processed a total of 0 messages");
  EXPECT_EQ(err_lines(native_consumer_run).front(), k_protocol_line);
}

}  // namespace
}  // namespace hw::testing
