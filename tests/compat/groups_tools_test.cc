// Kafka 4.3.1's console consumer with --group and kafka-consumer-groups
// (ConsumerGroupCommand) against a real highwater: the group consumes and
// commits, then --list, --describe (partition, current offset, log end
// offset, lag), --reset-offsets --to-earliest --execute and --delete, each
// checked by what the tool printed.

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_console_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const char* const k_groups = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

struct run_result {
  int exit_code = -1;
  std::string out;
  std::string err;
  std::string all() const { return "--- stdout ---\n" + out + "--- stderr ---\n" + err; }
};

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a Kafka tool through scripts/kafka-run-class.sh, bounded by timeout_s.
run_result run_tool(const std::string& dir, const std::string& main_class, const std::vector<std::string>& args,
                    int timeout_s = 180) {
  static int n = 0;
  const std::string base = dir + "/groups-tool-" + std::to_string(++n);
  std::string cmd = "timeout -k 10 " + std::to_string(timeout_s) + " " +
                    quoted(HW_SOURCE_DIR "/scripts/kafka-run-class.sh") + " " + quoted(main_class);
  for (const auto& a : args) cmd += " " + quoted(a);
  cmd += " </dev/null >" + quoted(base + ".out") + " 2>" + quoted(base + ".err");
  run_result r;
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// The rows of a whitespace table whose header line starts with first_column:
// one map column → value per row.
std::vector<std::map<std::string, std::string>> table(const std::string& text, const std::string& first_column) {
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    auto words = words_of(line);
    if (words.empty()) continue;
    if (words[0] == first_column) {
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

class GroupsToolsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0"})) << broker.log();
  }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  run_result groups(std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return run_tool(broker.dir(), k_groups, args);
  }
  broker_process broker;
};

TEST_F(GroupsToolsIT, ConsoleConsumerGroupThenListDescribeResetDelete) {
  const std::string topic = "tool-groups";
  {
    raw_client c(broker.port());
    auto created = c.create_topic(topic, 2);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics[0].error_code, 0);
    // 3 records in partition 0, 5 in partition 1.
    ASSERT_EQ(c.produce(topic, 0, simple_batch(3))->error_code, 0);
    ASSERT_EQ(c.produce(topic, 1, simple_batch(5))->error_code, 0);
  }

  // The console consumer reads all 8 through the group and commits on close.
  auto consumed = run_tool(broker.dir(), k_console_consumer,
                           {"--bootstrap-server", bootstrap(), "--topic", topic, "--group", "tools-group",
                            "--from-beginning", "--max-messages", "8", "--timeout-ms", "60000"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.all() << broker.log();
  int lines = 0;
  for (char ch : consumed.out) lines += ch == '\n';
  EXPECT_EQ(lines, 8) << consumed.all();
  EXPECT_NE(consumed.err.find("Processed a total of 8 messages"), std::string::npos) << consumed.all();

  auto listed = groups({"--list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.all();
  EXPECT_EQ(words_of(listed.out), std::vector<std::string>{"tools-group"}) << listed.all();

  auto described = groups({"--describe", "--group", "tools-group"});
  ASSERT_EQ(described.exit_code, 0) << described.all();
  auto rows = table(described.out, "GROUP");
  ASSERT_EQ(rows.size(), 2u) << described.all();
  std::map<std::string, std::string> current, end, lag;
  for (auto& r : rows) {
    EXPECT_EQ(r["GROUP"], "tools-group");
    EXPECT_EQ(r["TOPIC"], topic);
    current[r["PARTITION"]] = r["CURRENT-OFFSET"];
    end[r["PARTITION"]] = r["LOG-END-OFFSET"];
    lag[r["PARTITION"]] = r["LAG"];
  }
  EXPECT_EQ(current, (std::map<std::string, std::string>{{"0", "3"}, {"1", "5"}})) << described.all();
  EXPECT_EQ(end, (std::map<std::string, std::string>{{"0", "3"}, {"1", "5"}})) << described.all();
  EXPECT_EQ(lag, (std::map<std::string, std::string>{{"0", "0"}, {"1", "0"}})) << described.all();

  auto reset = groups({"--reset-offsets", "--group", "tools-group", "--topic", topic, "--to-earliest", "--execute"});
  ASSERT_EQ(reset.exit_code, 0) << reset.all();
  auto reset_rows = table(reset.out, "GROUP");
  ASSERT_EQ(reset_rows.size(), 2u) << reset.all();
  for (auto& r : reset_rows) EXPECT_EQ(r["NEW-OFFSET"], "0") << reset.all();

  auto after_reset = groups({"--describe", "--group", "tools-group"});
  ASSERT_EQ(after_reset.exit_code, 0) << after_reset.all();
  std::map<std::string, std::string> lag_after;
  for (auto& r : table(after_reset.out, "GROUP")) {
    EXPECT_EQ(r["CURRENT-OFFSET"], "0") << after_reset.all();
    lag_after[r["PARTITION"]] = r["LAG"];
  }
  EXPECT_EQ(lag_after, (std::map<std::string, std::string>{{"0", "3"}, {"1", "5"}})) << after_reset.all();

  auto deleted = groups({"--delete", "--group", "tools-group"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.all();
  EXPECT_NE(deleted.out.find("Deletion of requested consumer groups ('tools-group') was successful."),
            std::string::npos)
      << deleted.all();
  auto listed_after = groups({"--list"});
  ASSERT_EQ(listed_after.exit_code, 0) << listed_after.all();
  EXPECT_TRUE(words_of(listed_after.out).empty()) << listed_after.all();
}

}  // namespace
}  // namespace hw::testing
