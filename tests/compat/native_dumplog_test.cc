// The native kafka-dump-log.sh against Kafka 4.3.1's DumpLogSegments on the
// same files: one highwater run writes them (plain, keyed and headed
// records, every codec, log-append time, a transactional copy with aborts,
// group offsets, the metadata log), the broker stops, then both tools read
// every file kind with the options that change the output. stdout and the
// exit status must be identical, and stderr's lines too once Java's stack
// trace lines are dropped.

#include <gtest/gtest.h>

#include <filesystem>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

namespace fs = std::filesystem;
const char* const k_dump = "org.apache.kafka.tools.DumpLogSegments";

// Java's stderr without the stack trace and JVM noise.
std::vector<std::string> java_err_lines(const std::string& err) {
  std::vector<std::string> out;
  for (const auto& line : lines_of(err)) {
    if (line.rfind("\tat ", 0) == 0 || line.rfind("Caused by", 0) == 0 || line.rfind("\t...", 0) == 0) continue;
    if (line.find("WARN") != std::string::npos) continue;
    out.push_back(line);
  }
  return out;
}

class DumpLogIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker = new broker_process();
    data = broker->dir() + "/data";
    ASSERT_TRUE(broker->start({"--override", "log.dirs=" + data, "--override", "log.index.interval.bytes=300",
                               "--override", "num.partitions=1", "--override", "offsets.topic.num.partitions=1",
                               "--override", "group.initial.rebalance.delay.ms=0", "--override",
                               "offsets.topic.replication.factor=1", "--override",
                               "transaction.state.log.replication.factor=1", "--override",
                               "transaction.state.log.min.isr=1", "--override",
                               "transaction.state.log.num.partitions=1"}))
        << broker->log();
    const std::string bootstrap = "127.0.0.1:" + std::to_string(broker->port());
    auto native = [&](const std::string& tool, std::vector<std::string> args, const std::string& in = "") {
      args.insert(args.begin(), {"--bootstrap-server", bootstrap});
      auto r = run_native_tool(broker->dir(), tool, args, in);
      EXPECT_EQ(r.exit_code, 0) << tool << "\n" << r.all();
    };
    for (const char* t : {"plain", "gz", "sn", "lz", "zs", "copied"}) native("kafka-topics.sh", {"--create", "--topic", t});
    native("kafka-topics.sh", {"--create", "--topic", "appended", "--config", "message.timestamp.type=LogAppendTime"});
    native("kafka-console-producer.sh",
           {"--topic", "plain", "--property", "parse.key=true", "--property", "parse.headers=true"},
           "h1:a,h2:b\tk1\tv1\nh3:c\tk2\t\xc3\xbc" "ber\nh4:d\t\tempty-key\n");
    std::string lines;
    for (int i = 0; i < 60; ++i) lines += "record number " + std::to_string(i) + " of the compressed batches\n";
    for (auto [topic, codec] : {std::pair{"gz", "gzip"}, {"sn", "snappy"}, {"lz", "lz4"}, {"zs", "zstd"}})
      native("kafka-console-producer.sh", {"--topic", topic, "--compression-codec", codec}, lines);
    native("kafka-console-producer.sh", {"--topic", "plain"}, lines);
    native("kafka-console-producer.sh", {"--topic", "appended"}, "a\nb\n");
    native("kafka-console-consumer.sh", {"--topic", "plain", "--group", "readers", "--from-beginning",
                                         "--max-messages", "5"});
    // A transactional copy with random aborts: markers, a .txnindex, the
    // transaction log and transactional offset commits.
    auto copier = run_kafka_tool(broker->dir(), "org.apache.kafka.tools.TransactionalMessageCopier",
                                 {"--broker-list", bootstrap, "--input-topic", "gz", "--input-partition", "0",
                                  "--output-topic", "copied", "--consumer-group", "copier", "--transactional-id",
                                  "copier-1", "--max-messages", "60", "--transaction-size", "7",
                                  "--enable-random-aborts"});
    EXPECT_EQ(copier.exit_code, 0) << copier.all();
    ASSERT_EQ(broker->stop(SIGTERM), 0) << broker->log();
  }
  static void TearDownTestSuite() {
    delete broker;
    broker = nullptr;
  }

  static std::string file(const std::string& partition, const std::string& suffix) {
    for (const auto& e : fs::directory_iterator(data + "/" + partition))
      if (e.path().extension() == suffix) return e.path().string();
    return data + "/" + partition + "/00000000000000000000" + suffix;
  }

  // Both tools on the same files; everything they print must agree.
  static void same(const std::vector<std::string>& args) {
    auto java = run_kafka_tool(data, k_dump, args);
    auto native = run_native_tool(data, "kafka-dump-log.sh", args);
    const std::string what = ::testing::PrintToString(args);
    EXPECT_EQ(native.exit_code, java.exit_code) << what << "\n" << java.all() << native.all();
    EXPECT_EQ(native.out, java.out) << what;
    EXPECT_EQ(lines_of(native.err), java_err_lines(java.err)) << what << "\n" << java.err;
  }

  static broker_process* broker;
  static std::string data;
};

broker_process* DumpLogIT::broker = nullptr;
std::string DumpLogIT::data;

TEST_F(DumpLogIT, SegmentsPrintAsKafkaPrintsThem) {
  const std::string logs = file("plain-0", ".log") + "," + file("gz-0", ".log") + "," + file("sn-0", ".log") + "," +
                           file("lz-0", ".log") + "," + file("zs-0", ".log") + "," + file("appended-0", ".log") +
                           "," + file("copied-0", ".log");
  same({"--files", logs});
  same({"--files", logs, "--print-data-log"});
  same({"--files", logs, "--deep-iteration", "--skip-record-metadata", "--print-data-log"});
  same({"--files", logs, "--max-bytes", "600", "--deep-iteration"});
}

TEST_F(DumpLogIT, IndexesSnapshotsAndTransactionIndexes) {
  const std::string files = file("plain-0", ".index") + "," + file("plain-0", ".timeindex") + "," +
                            file("gz-0", ".index") + "," + file("gz-0", ".timeindex") + "," +
                            file("copied-0", ".txnindex") + "," + file("copied-0", ".snapshot") + "," +
                            data + "/plain-0/leader-epoch-checkpoint";
  same({"--files", files});
  same({"--files", files, "--verify-index-only"});
  same({"--files", files, "--index-sanity-check"});
}

TEST_F(DumpLogIT, DecodersOfTheInternalTopics) {
  same({"--files", file("__cluster_metadata-0", ".log"), "--cluster-metadata-decoder"});
  same({"--files", file("__consumer_offsets-0", ".log"), "--offsets-decoder"});
  same({"--files", file("__transaction_state-0", ".log") + "," + file("__consumer_offsets-0", ".log"),
        "--transaction-log-decoder", "--skip-record-metadata"});
}

TEST_F(DumpLogIT, TornAndMissingFiles) {
  // A copy of a segment cut inside its last batch, and a file that is not there.
  const std::string cut = data + "/00000000000000000007.log";
  fs::copy_file(file("plain-0", ".log"), cut, fs::copy_options::overwrite_existing);
  fs::resize_file(cut, fs::file_size(cut) - 9);
  same({"--files", cut + "," + data + "/00000000000000000009.log", "--deep-iteration"});
}

}  // namespace
}  // namespace hw::testing
