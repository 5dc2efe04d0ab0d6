// Kafka 4.3.1's console producer and consumer, producer perf test,
// DumpLogSegments and the verifiable producer/consumer against a real
// highwater. The Java producer is idempotent by default (InitProducerId);
// tests that need an API the broker does not serve yet skip and name it.

#include <signal.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <regex>

#include "broker_process.h"
#include "kafka_tool.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_console_producer = "org.apache.kafka.tools.ConsoleProducer";
const char* const k_console_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const char* const k_perf = "org.apache.kafka.tools.ProducerPerformance";
const char* const k_dump = "org.apache.kafka.tools.DumpLogSegments";
const char* const k_get_offsets = "org.apache.kafka.tools.GetOffsetShell";
const char* const k_verifiable_producer = "org.apache.kafka.tools.VerifiableProducer";
const char* const k_verifiable_consumer = "org.apache.kafka.tools.VerifiableConsumer";

class ToolsClientsIT : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(broker.start()) << broker.log(); }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  void create(const std::string& topic, int partitions) {
    raw_client c(broker.port());
    auto r = c.create_topic(topic, partitions);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics[0].error_code, 0);
  }
  int64_t end_offset(const std::string& topic, int32_t p) {
    raw_client c(broker.port());
    auto r = c.list_offset(topic, p, -1);
    return r ? r->offset : -1;
  }
  broker_process broker;
};

const std::string k_console_input =
    "trace:abc,source:unit\tkey-1\tfirst value\n"
    "trace:def\tkey-2\tsecond value\n"
    "source:x,empty:\tkey-3\tthird\n";

std::vector<std::string> console_producer_args(const std::string& bootstrap, bool idempotent) {
  std::vector<std::string> a{"--bootstrap-server", bootstrap, "--topic", "console", "--reader-property",
                             "parse.key=true", "--reader-property", "parse.headers=true"};
  if (!idempotent) a.insert(a.end(), {"--command-property", "enable.idempotence=false"});
  return a;
}

const std::vector<std::string> k_console_expected{
    "trace:abc,source:unit\tkey-1\tfirst value",
    "trace:def\tkey-2\tsecond value",
    "source:x,empty:\tkey-3\tthird",
};

std::vector<std::string> console_consumer_args(const std::string& bootstrap) {
  return {"--bootstrap-server", bootstrap,          "--topic", "console", "--max-messages", "3",
          "--formatter-property", "print.key=true", "--formatter-property", "print.headers=true",
          "--timeout-ms", "30000"};
}

TEST_F(ToolsClientsIT, ConsoleRoundTripWithKeysAndHeaders) {
  create("console", 1);
  auto produced = run_kafka_tool(broker.dir(), k_console_producer, console_producer_args(bootstrap(), false),
                                 k_console_input);
  ASSERT_EQ(produced.exit_code, 0) << produced.all();
  ASSERT_EQ(end_offset("console", 0), 3);
  // Without a group: an assigned partition from the earliest offset.
  auto args = console_consumer_args(bootstrap());
  args.insert(args.end(), {"--partition", "0", "--offset", "earliest"});
  auto consumed = run_kafka_tool(broker.dir(), k_console_consumer, args);
  ASSERT_EQ(consumed.exit_code, 0) << consumed.all();
  EXPECT_EQ(lines_of(consumed.out), k_console_expected) << consumed.all();
  EXPECT_NE(consumed.err.find("Processed a total of 3 messages"), std::string::npos) << consumed.all();
}

TEST_F(ToolsClientsIT, ConsoleProducerIdempotentByDefault) {
  create("console", 1);
  auto produced = run_kafka_tool(broker.dir(), k_console_producer, console_producer_args(bootstrap(), true),
                                 k_console_input);
  if (produced.unsupported("INIT_PRODUCER_ID")) GTEST_SKIP() << "InitProducerId (api key 22) is not served yet";
  ASSERT_EQ(produced.exit_code, 0) << produced.all();
  EXPECT_EQ(end_offset("console", 0), 3) << produced.all();
}

TEST_F(ToolsClientsIT, ConsoleConsumerFromBeginningInAGroup) {
  create("console", 1);
  ASSERT_EQ(run_kafka_tool(broker.dir(), k_console_producer, console_producer_args(bootstrap(), false), k_console_input)
                .exit_code,
            0);
  auto args = console_consumer_args(bootstrap());
  args.push_back("--from-beginning");
  auto consumed = run_kafka_tool(broker.dir(), k_console_consumer, args);
  if (consumed.unsupported("FIND_COORDINATOR")) GTEST_SKIP() << "FindCoordinator (api key 10) is not served yet";
  ASSERT_EQ(consumed.exit_code, 0) << consumed.all();
  EXPECT_EQ(lines_of(consumed.out), k_console_expected) << consumed.all();
}

// "20000 records sent, ..." and the broker's offsets add up to it.
void check_perf_run(const tool_result& perf, int64_t total, const std::string& broker_log) {
  ASSERT_EQ(perf.exit_code, 0) << perf.all() << "--- broker ---\n" << broker_log;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(perf.out, m, std::regex(R"((\d+) records sent, [0-9.]+ records/sec)"))) << perf.all();
  EXPECT_EQ(m[1], "20000");
  EXPECT_EQ(total, 20000);
}

TEST_F(ToolsClientsIT, ProducerPerformance) {
  create("perf", 3);
  auto perf = run_kafka_tool(broker.dir(), k_perf,
                             {"--topic", "perf", "--num-records", "20000", "--record-size", "100", "--throughput", "-1",
                              "--bootstrap-server", bootstrap(), "--command-property", "acks=all",
                              "--command-property", "enable.idempotence=false"});
  check_perf_run(perf, end_offset("perf", 0) + end_offset("perf", 1) + end_offset("perf", 2), broker.log());
  auto latest = run_kafka_tool(broker.dir(), k_get_offsets, {"--bootstrap-server", bootstrap(), "--topic", "perf"});
  ASSERT_EQ(latest.exit_code, 0) << latest.all();
  EXPECT_EQ(lines_of(latest.out).size(), 3u) << latest.all();
}

TEST_F(ToolsClientsIT, ProducerPerformanceIdempotent) {
  create("perf", 3);
  auto perf = run_kafka_tool(broker.dir(), k_perf,
                             {"--topic", "perf", "--num-records", "20000", "--record-size", "100", "--throughput", "-1",
                              "--bootstrap-server", bootstrap()});
  if (perf.unsupported("INIT_PRODUCER_ID")) GTEST_SKIP() << "InitProducerId (api key 22) is not served yet";
  check_perf_run(perf, end_offset("perf", 0) + end_offset("perf", 1) + end_offset("perf", 2), broker.log());
}

TEST_F(ToolsClientsIT, DumpLogSegmentsReadsWhatTheBrokerWrote) {
  create("dump", 1);
  {
    raw_client c(broker.port());
    ASSERT_EQ(c.produce("dump", 0, simple_batch(40, 50))->error_code, 0);
    ASSERT_EQ(c.produce("dump", 0, simple_batch(25, 50, protocol::compression::gzip))->error_code, 0);
    // 50 KB since the last index entry: the next append writes one.
    ASSERT_EQ(c.produce("dump", 0, simple_batch(10, 5000))->error_code, 0);
    ASSERT_EQ(c.produce("dump", 0, simple_batch(25, 5000, protocol::compression::zstd))->error_code, 0);
  }
  ASSERT_EQ(broker.stop(SIGTERM), 0) << broker.log();
  const std::string dir = broker.dir() + "/data/dump-0/";
  ASSERT_TRUE(std::filesystem::exists(dir + "00000000000000000000.log")) << broker.log();

  auto log = run_kafka_tool(broker.dir(), k_dump, {"--deep-iteration", "--files", dir + "00000000000000000000.log"});
  ASSERT_EQ(log.exit_code, 0) << log.all();
  int records = 0, batches = 0;
  for (auto& line : lines_of(log.out)) {
    if (line.rfind("| offset: ", 0) == 0) ++records;
    if (line.rfind("baseOffset: ", 0) == 0) {
      ++batches;
      EXPECT_NE(line.find("isvalid: true"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(records, 100) << log.all();
  EXPECT_EQ(batches, 4) << log.all();
  EXPECT_NE(log.out.find("compresscodec: gzip"), std::string::npos) << log.all();
  EXPECT_NE(log.out.find("compresscodec: zstd"), std::string::npos) << log.all();
  EXPECT_EQ(log.all().find("Exception"), std::string::npos) << log.all();
  EXPECT_EQ(log.out.find("Found"), std::string::npos) << log.all();  // "Found N invalid bytes..."

  auto indexes = run_kafka_tool(broker.dir(), k_dump,
                                {"--index-sanity-check", "--files",
                                 dir + "00000000000000000000.index," + dir + "00000000000000000000.timeindex"});
  ASSERT_EQ(indexes.exit_code, 0) << indexes.all();
  EXPECT_NE(indexes.out.find("00000000000000000000.index passed sanity check."), std::string::npos) << indexes.all();
  EXPECT_NE(indexes.out.find("00000000000000000000.timeindex passed sanity check."), std::string::npos)
      << indexes.all();
}

TEST_F(ToolsClientsIT, VerifiableProducerAndConsumer) {
  create("verifiable", 2);
  auto produced = run_kafka_tool(broker.dir(), k_verifiable_producer,
                                 {"--bootstrap-server", bootstrap(), "--topic", "verifiable", "--max-messages", "500",
                                  "--acks", "-1"});
  if (produced.unsupported("INIT_PRODUCER_ID")) GTEST_SKIP() << "InitProducerId (api key 22) is not served yet";
  ASSERT_EQ(produced.exit_code, 0) << produced.all();
  EXPECT_NE(produced.out.find("\"name\":\"shutdown_complete\""), std::string::npos) << produced.all();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(produced.out, m, std::regex(R"("name":"tool_data","sent":(\d+),"acked":(\d+))")))
      << produced.all();
  EXPECT_EQ(m[1], "500");
  EXPECT_EQ(m[2], "500");

  auto consumed = run_kafka_tool(broker.dir(), k_verifiable_consumer,
                                 {"--bootstrap-server", bootstrap(), "--topic", "verifiable", "--group-id", "vgroup",
                                  "--max-messages", "500", "--reset-policy", "earliest"},
                                 "", 120);
  if (consumed.unsupported("FIND_COORDINATOR")) GTEST_SKIP() << "FindCoordinator (api key 10) is not served yet";
  ASSERT_EQ(consumed.exit_code, 0) << consumed.all();
  int total = 0;
  const std::regex batch_re(R"("name":"records_consumed","count":(\d+))");
  for (auto it = std::sregex_iterator(consumed.out.begin(), consumed.out.end(), batch_re);
       it != std::sregex_iterator(); ++it)
    total += std::stoi((*it)[1]);
  EXPECT_EQ(total, 500) << consumed.all();
  EXPECT_NE(consumed.out.find("\"name\":\"offsets_committed\""), std::string::npos) << consumed.all();
}

}  // namespace
}  // namespace hw::testing
