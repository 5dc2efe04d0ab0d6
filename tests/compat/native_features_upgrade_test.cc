// A cluster formatted at an older release is upgraded to the newest, under
// load, as an operator upgrades one: three combined nodes formatted with the
// native kafka-storage.sh at 3.9-IV0 (metadata.version 21, no KIP-848 groups,
// no ELR, transactions v0), producers writing with acks=all from before
// kafka-features.sh upgrades metadata.version and the features together
// until after. Every acknowledged record must be there afterwards, each node
// must report the new levels, what they switch on must work (a KIP-848
// consumer group, refused before), and a downgrade that would lose metadata
// must be refused with Kafka's words.

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "consumer_heartbeats.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "native_tool.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "raw_requests.h"
#include "rdkafka_support.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;

const std::string k_cluster_id = "UpgradeClusterIdAAAAAA";

// The node's --override arguments as a properties file, for the storage tool.
bool format_at(const std::string& release, broker_process& node, const std::vector<std::string>& args) {
  const std::string props = node.dir() + "/format.properties";
  {
    std::ofstream out(props);
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--override") out << args[i + 1] << '\n';
    out << "log.dirs=" << node.dir() << "/data\n";  // the node's own ./data: it runs in its directory
  }
  auto r = run_native_tool(node.dir(), "kafka-storage.sh",
                           {"format", "-c", props, "-t", k_cluster_id, "-r", release, "--ignore-formatted"});
  EXPECT_EQ(r.exit_code, 0) << r.all();
  return r.exit_code == 0;
}

// The tools' captured output goes to a node's directory (removed with it).
std::string describe(const std::string& dir, const std::string& server) {
  return run_native_tool(dir, "kafka-features.sh", {"--bootstrap-server", server, "describe"}).out;
}

bool finalized(const std::string& text, const std::string& feature, const std::string& level) {
  for (const auto& line : lines_of(text))
    if (line.rfind("Feature: " + feature + "\t", 0) == 0 || line.rfind("Feature: " + feature + " ", 0) == 0)
      return line.find("FinalizedVersionLevel: " + level + "\t") != std::string::npos ||
             line.find("FinalizedVersionLevel: " + level + " ") != std::string::npos;
  return false;
}

TEST(FeatureUpgradeIT, ThreeNodesFormattedAt39UpgradeTo43UnderLoad) {
  kraft_nodes cluster;
  cluster.prepare = [](int, broker_process& node, const std::vector<std::string>& args) {
    return format_at("3.9-IV0", node, args);
  };
  ASSERT_TRUE(cluster.start(false));
  const std::string tools = cluster.node(1).dir();
  const std::string server = "127.0.0.1:" + std::to_string(cluster.node(2).port());
  ASSERT_TRUE(wait_until([&] { return finalized(describe(tools, server), "metadata.version", "3.9-IV0"); }, 30s))
      << describe(tools, server) << cluster.node(1).log();
  EXPECT_FALSE(finalized(describe(tools, server), "group.version", "1"));
  {
    // No KIP-848 groups at 3.9-IV0 (group.version 0).
    raw_client c({"127.0.0.1", cluster.node(1).port()});
    auto refused = c.call<msg::consumer_group_heartbeat_response>(
        68, 1, consumer_join("before-upgrade", "member-before-upgrade-01", {"upgraded"}));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->error_code, 35);  // UNSUPPORTED_VERSION
  }

  const endpoint first{"127.0.0.1", cluster.node(1).port()};
  ASSERT_EQ(rdk::create_topic(first, "upgraded", {{"min.insync.replicas", "2"}}, 3), "");
  // Every controller has registered its supported ranges once a dry run
  // passes (the controller refuses while one has not).
  const std::vector<std::string> upgrade{"--bootstrap-server", server, "upgrade", "--feature", "metadata.version=30",
                                         "--feature", "group.version=1", "--feature", "transaction.version=2",
                                         "--feature", "eligible.leader.replicas.version=1", "--feature",
                                         "streams.version=1"};
  std::vector<std::string> dry_run = upgrade;
  dry_run.push_back("--dry-run");
  tool_result dry;
  ASSERT_TRUE(wait_until([&] { return (dry = run_native_tool(tools, "kafka-features.sh", dry_run)).exit_code == 0; }, 30s))
      << dry.all();

  // The producer writes chunks of 500 records, each by a new idempotent
  // producer with acks=all, from before the upgrade starts until after it
  // is done.
  std::vector<std::pair<std::string, std::string>> messages;
  std::vector<rdk::rd_record> produced;
  std::atomic<int> chunks{0};
  std::atomic<bool> upgrade_done{false};
  std::thread producer([&] {
    while (!upgrade_done.load() || chunks.load() < 4) {
      std::vector<std::pair<std::string, std::string>> chunk;
      for (size_t i = messages.size(); i < messages.size() + 500; ++i)
        chunk.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
      auto out = rdk::produce_all(first, "upgraded", chunk, "all", nullptr, {{"enable.idempotence", "true"}});
      messages.insert(messages.end(), chunk.begin(), chunk.end());
      produced.insert(produced.end(), out.begin(), out.end());
      ++chunks;
    }
  });
  if (!wait_until([&] { return chunks.load() >= 1; }, 30s)) {
    upgrade_done = true;
    producer.join();
    FAIL() << "no records written before the upgrade";
  }

  // While the producer runs: every level the 4.3 release turns on that
  // Highwater supports (share.version is not among them; kraft.version
  // follows the quorum's kind).
  const int chunks_before = chunks.load();
  auto up = run_native_tool(tools, "kafka-features.sh", upgrade);
  upgrade_done = true;
  producer.join();
  ASSERT_EQ(up.exit_code, 0) << up.all() << cluster.node(1).log();
  EXPECT_EQ(lines_of(up.out),
            (std::vector<std::string>{"eligible.leader.replicas.version was upgraded to 1.",
                                      "group.version was upgraded to 1.", "metadata.version was upgraded to 30.",
                                      "streams.version was upgraded to 1.", "transaction.version was upgraded to 2."}));
  EXPECT_GT(chunks.load(), chunks_before);  // records were written after the upgrade began

  // Nothing acknowledged is lost: every record delivered, in order, and read back.
  ASSERT_EQ(produced.size(), messages.size());
  for (size_t i = 0; i < produced.size(); ++i) ASSERT_EQ(produced[i].offset, static_cast<int64_t>(i)) << i;
  auto read = rdk::read_from_beginning(first, "upgraded", static_cast<int64_t>(messages.size()));
  ASSERT_EQ(read.size(), messages.size());
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i].value, messages[i].second) << i;

  // Every node reports the new levels.
  for (int id = 1; id <= 3; ++id) {
    const std::string node = "127.0.0.1:" + std::to_string(cluster.node(id).port());
    EXPECT_TRUE(wait_until(
        [&] {
          const std::string d = describe(tools, node);
          return finalized(d, "metadata.version", "4.3-IV0") && finalized(d, "group.version", "1") &&
                 finalized(d, "eligible.leader.replicas.version", "1");
        },
        30s))
        << "node " << id << ":\n"
        << describe(tools, node);
  }

  // group.version 1 turned KIP-848 groups on: a member joins and is given the partition.
  std::optional<msg::consumer_group_heartbeat_response> joined;
  EXPECT_TRUE(wait_until(
      [&] {
        raw_client c({"127.0.0.1", cluster.node(1).port()});
        auto [error, coordinator] = c.find_coordinator("after-upgrade", 0);
        if (error != 0 || coordinator < 1 || coordinator > 3) return false;
        raw_client at({"127.0.0.1", cluster.node(coordinator).port()});
        joined = at.call<msg::consumer_group_heartbeat_response>(
            68, 1, consumer_join("after-upgrade", "member-after-upgrade-0001", {"upgraded"}));
        return joined && joined->error_code == 0 && joined->assignment &&
               !joined->assignment->topic_partitions.empty();
      },
      30s))
      << (joined ? joined->error_message.value_or("") : "no answer");
  if (joined && joined->assignment && !joined->assignment->topic_partitions.empty())
    EXPECT_EQ(joined->assignment->topic_partitions[0].partitions, std::vector<int32_t>{0});

  // Back down past 4.0-IV1 (which added ELR) would lose metadata: refused, nothing changed.
  auto down = run_native_tool(tools, "kafka-features.sh",
                              {"--bootstrap-server", server, "downgrade", "--feature", "metadata.version=21"});
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_EQ(lines_of(down.out),
            std::vector<std::string>{
                "Could not downgrade metadata.version to 21. The update failed for all features since the following "
                "feature had an error: Unsupported metadata.version downgrade from 30 to 21. Refusing to perform the "
                "requested downgrade because it might delete metadata information."})
      << down.all();
  EXPECT_TRUE(finalized(describe(tools, server), "metadata.version", "4.3-IV0"));
}

}  // namespace
}  // namespace hw::testing
