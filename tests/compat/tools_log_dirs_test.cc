// A broker's disks with Apache Kafka 4.3.1's own tools, as an operator
// uses them: kafka-log-dirs.sh --describe lists each log dir with the
// partitions it holds; kafka-reassign-partitions.sh with "log_dirs" moves a
// replica to the broker's other disk (AlterReplicaLogDirs) and --verify
// follows it until it completes; the data is all there afterwards. The
// lines are those the tools print (their source: ReassignPartitionsCommand,
// LogDirsCommand).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "broker_process.h"
#include "kafka_tool.h"

namespace hw::testing {
namespace {

const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";
const char* const k_reassign_command = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";
const char* const k_log_dirs_command = "org.apache.kafka.tools.LogDirsCommand";
const char* const k_perf_producer = "org.apache.kafka.tools.ProducerPerformance";
const char* const k_get_offsets = "org.apache.kafka.tools.GetOffsetShell";

class ToolsLogDirsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hw-tools-log-dirs-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    work_dir = tmpl;
    ASSERT_TRUE(broker.start({"--override", "log.dirs=" + d1() + "," + d2()})) << broker.log();
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(work_dir, ec);
  }
  std::string d1() const { return broker.dir() + "/disk1"; }
  std::string d2() const { return broker.dir() + "/disk2"; }
  tool_result tool(const char* main_class, std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", "127.0.0.1:" + std::to_string(broker.port())});
    return run_kafka_tool(work_dir, main_class, args);
  }
  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = work_dir + "/" + name;
    std::ofstream(path) << text << "\n";
    return path;
  }
  // kafka-log-dirs.sh --describe: the JSON line it printed.
  std::string describe_dirs() {
    auto r = tool(k_log_dirs_command, {"--describe", "--broker-list", "1", "--topic-list", "orders"});
    EXPECT_EQ(r.exit_code, 0) << r.all();
    auto lines = tool_lines(r);
    EXPECT_EQ(lines.size(), 3u) << r.all();
    if (lines.size() != 3) return "";
    EXPECT_EQ(lines[0], "Querying brokers for log directories information");
    EXPECT_EQ(lines[1], "Received log directory information from brokers 1");
    return lines[2];
  }
  // The dir whose entry in the JSON lists orders-0 (as current or future).
  static std::string dir_holding(const std::string& json, bool future) {
    static const std::regex dir_entry(R"re(\{"partitions":\[([^\]]*)\],"error":(null|"[^"]*"),"logDir":"([^"]+)"\})re");
    const std::string wanted = std::string(R"("partition":"orders-0",)");
    for (auto it = std::sregex_iterator(json.begin(), json.end(), dir_entry); it != std::sregex_iterator(); ++it) {
      const std::string parts = (*it)[1];
      for (size_t at = parts.find(wanted); at != std::string::npos; at = parts.find(wanted, at + 1)) {
        const size_t end = parts.find('}', at);
        const bool is_future = parts.substr(at, end - at).find(R"("isFuture":true)") != std::string::npos;
        if (is_future == future) return (*it)[3];
      }
    }
    return "";
  }

  std::string work_dir;
  broker_process broker;
};

TEST_F(ToolsLogDirsIT, DescribeAndMoveAReplicaToTheOtherDisk) {
  auto created = tool(k_topic_command, {"--create", "--topic", "orders", "--partitions", "1", "--replication-factor", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.all() << broker.log();
  auto produced = tool(k_perf_producer, {"--topic", "orders", "--num-records", "20000", "--record-size", "500",
                                         "--throughput", "-1", "--producer-props", "acks=all",
                                         "bootstrap.servers=127.0.0.1:" + std::to_string(broker.port())});
  ASSERT_EQ(produced.exit_code, 0) << produced.all();

  // Both dirs listed, without errors; orders-0 in one of them.
  const std::string before = describe_dirs();
  static const std::regex shape(R"(\{"brokers":\[\{"broker":1,"logDirs":\[.*\]\}\],"version":1\})");
  EXPECT_TRUE(std::regex_match(before, shape)) << before;
  EXPECT_NE(before.find(R"("logDir":")" + d1() + "\"}"), std::string::npos) << before;
  EXPECT_NE(before.find(R"("logDir":")" + d2() + "\"}"), std::string::npos) << before;
  EXPECT_EQ(before.find(R"("error":")"), std::string::npos) << before;
  const std::string from = dir_holding(before, false);
  ASSERT_FALSE(from.empty()) << before;
  EXPECT_TRUE(std::regex_search(before, std::regex(R"("partition":"orders-0","size":[1-9][0-9]{6,},"offsetLag":0,"isFuture":false)")))
      << before;
  const std::string to = from == d1() ? d2() : d1();

  // The same replica, on the other disk.
  const std::string plan = write_file(
      "plan.json", R"({"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1],"log_dirs":[")" + to +
                       R"("]}]})");
  auto executed = tool(k_reassign_command, {"--execute", "--reassignment-json-file", plan});
  ASSERT_EQ(executed.exit_code, 0) << executed.all() << broker.log();
  auto e = tool_lines(executed);
  ASSERT_EQ(e.size(), 5u) << executed.all();
  EXPECT_EQ(e[0], "Current partition replica assignment");
  EXPECT_EQ(e[1], R"({"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1],"log_dirs":[")" + from +
                      R"("]}]})");
  EXPECT_EQ(e[2], "Save this to use as the --reassignment-json-file option during rollback");
  EXPECT_EQ(e[3], "Successfully started partition reassignment for orders-0");
  // Kafka's format ends this line with a space.
  EXPECT_EQ(e[4], "Successfully started moving log directory to " + to + " for replica orders-0 with broker 1 ");

  // --verify until the move is done (it may already be).
  tool_result verified;
  ASSERT_TRUE(wait_until(
      [&] {
        verified = tool(k_reassign_command, {"--verify", "--reassignment-json-file", plan});
        return printed_line(verified, "Reassignment of replica orders-0-1 completed successfully.");
      },
      60s))
      << verified.all() << broker.log();
  EXPECT_TRUE(printed_line(verified, "Status of partition reassignment:")) << verified.all();
  EXPECT_TRUE(printed_line(verified, "Reassignment of partition orders-0 is completed.")) << verified.all();
  EXPECT_TRUE(printed_line(verified, "Reassignment of replica orders-0-1 completed successfully.")) << verified.all();

  const std::string after = describe_dirs();
  EXPECT_EQ(dir_holding(after, false), to) << after;
  EXPECT_EQ(dir_holding(after, true), "") << "no future replica left: " << after;

  // Nothing lost: the log end is still 20000.
  auto offsets = tool(k_get_offsets, {"--topic", "orders", "--time", "-1"});
  ASSERT_EQ(offsets.exit_code, 0) << offsets.all();
  EXPECT_TRUE(printed_line(offsets, "orders:0:20000")) << offsets.all();
}

}  // namespace
}  // namespace hw::testing
