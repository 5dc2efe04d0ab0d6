// Kafka 4.3.1's kafka-metadata-quorum.sh (MetadataQuorumCommand) against a
// three-voter highwater quorum with a broker-only observer, in each state:
// all up; the leader killed and a new one elected; the old leader back as a
// follower. Through the controllers (--bootstrap-controller, which finds
// the leader) and through the broker (--bootstrap-server, which asks the
// leader for it).

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "kafka_tool.h"

namespace hw::testing {
namespace {

const char* const k_quorum_command = "org.apache.kafka.tools.MetadataQuorumCommand";

struct field_values {
  int leader = -1;
  int epoch = -1;
  long high_watermark = -1;
};

// "LeaderId:               2" etc. from describe --status.
field_values status_fields(const tool_result& r) {
  field_values f;
  for (const auto& line : lines_of(r.out)) {
    auto value = [&](const char* key) -> std::optional<long> {
      const std::string k(key);
      if (line.rfind(k, 0) != 0) return std::nullopt;
      return std::stol(line.substr(k.size()));
    };
    if (auto v = value("LeaderId:")) f.leader = static_cast<int>(*v);
    if (auto v = value("LeaderEpoch:")) f.epoch = static_cast<int>(*v);
    if (auto v = value("HighWatermark:")) f.high_watermark = *v;
  }
  return f;
}

class ToolsQuorumThreeVotersIT : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "Quorum3ITclusterAAAAAA", 1);
    std::vector<broker_process*> all;
    for (int i = 0; i < 3; ++i) {
      controllers.push_back(std::make_unique<broker_process>());
      all.push_back(controllers.back().get());
    }
    // The voters' ports, chosen again should one be taken before it binds.
    auto chosen = start_on_fresh_ports(3, [&](const std::vector<uint16_t>& p) {
      ports = p;
      voters.clear();
      for (int i = 0; i < 3; ++i) voters += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
      bool ok = true;
      for (int i = 0; i < 3 && ok; ++i) ok = start_controller(i);
      return started_or_port_taken(ok, all);
    });
    ASSERT_TRUE(chosen) << controllers[0]->log() << controllers[1]->log() << controllers[2]->log();
    ASSERT_TRUE(observer.start({"--override", "process.roles=broker", "--override", "node.id=4", "--override",
                                "controller.listener.names=CONTROLLER", "--override", "controller.quorum.voters=" + voters}))
        << observer.log();
  }
  void TearDown() override { unsetenv("CLUSTER_ID"); }

  bool start_controller(int i) {
    return controllers[i]->start({"--override", "process.roles=controller", "--override",
                                  "node.id=" + std::to_string(i + 1), "--override",
                                  "listeners=CONTROLLER://127.0.0.1:" + std::to_string(ports[i]), "--override",
                                  "controller.listener.names=CONTROLLER", "--override",
                                  "controller.quorum.voters=" + voters});
  }
  std::string controller_addresses(int skip = -1) const {
    std::string out;
    for (int i = 0; i < 3; ++i)
      if (i != skip) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(ports[i]);
    return out;
  }
  tool_result describe(const std::string& how, const std::string& address, const std::string& what) {
    return run_kafka_tool(observer.dir(), k_quorum_command, {how, address, "describe", what});
  }
  // describe --replication rows: node id -> status column (Leader, Follower, Observer).
  std::map<int, std::string> replication_rows(const tool_result& r) {
    std::map<int, std::string> rows;
    auto lines = lines_of(r.out);
    for (size_t i = 1; i < lines.size(); ++i) {
      std::istringstream in(lines[i]);
      std::string id, dir, end, lag, fetch, caught, status;
      in >> id >> dir >> end >> lag >> fetch >> caught >> status;
      if (!id.empty()) rows[std::stoi(id)] = status;
    }
    return rows;
  }

  std::string survivors_logs(int skip) const {
    std::string out;
    for (int i = 0; i < 3; ++i)
      if (i != skip) out += "--- controller " + std::to_string(i + 1) + " ---\n" + controllers[i]->log();
    return out;
  }

  std::vector<uint16_t> ports;
  std::string voters;
  std::vector<std::unique_ptr<broker_process>> controllers;
  broker_process observer;
};

TEST_F(ToolsQuorumThreeVotersIT, StatusAndReplicationInEachState) {
  const std::string broker_address = "127.0.0.1:" + std::to_string(observer.port());
  const std::string voters_line =
      "CurrentVoters:          [{\"id\": 1, \"endpoints\": [\"CONTROLLER://127.0.0.1:" + std::to_string(ports[0]) +
      "\"]}, {\"id\": 2, \"endpoints\": [\"CONTROLLER://127.0.0.1:" + std::to_string(ports[1]) +
      "\"]}, {\"id\": 3, \"endpoints\": [\"CONTROLLER://127.0.0.1:" + std::to_string(ports[2]) + "\"]}]";

  // All up: one leader, two followers, the broker an observer.
  auto status = describe("--bootstrap-controller", controller_addresses(), "--status");
  ASSERT_EQ(status.exit_code, 0) << status.all();
  const field_values first = status_fields(status);
  ASSERT_GE(first.leader, 1) << status.all();
  ASSERT_LE(first.leader, 3) << status.all();
  EXPECT_GE(first.epoch, 1);
  EXPECT_GT(first.high_watermark, 0);
  EXPECT_TRUE(printed_line(status, voters_line)) << status.all();
  EXPECT_TRUE(printed_line(status, "CurrentObservers:       [{\"id\": 4}]")) << status.all();
  auto through_broker = describe("--bootstrap-server", broker_address, "--status");
  ASSERT_EQ(through_broker.exit_code, 0) << through_broker.all();
  EXPECT_EQ(status_fields(through_broker).leader, first.leader) << through_broker.all();

  auto replication = describe("--bootstrap-server", broker_address, "--replication");
  ASSERT_EQ(replication.exit_code, 0) << replication.all();
  auto rows = replication_rows(replication);
  ASSERT_EQ(rows.size(), 4u) << replication.all();
  for (int id = 1; id <= 3; ++id) EXPECT_EQ(rows[id], id == first.leader ? "Leader" : "Follower") << replication.all();
  EXPECT_EQ(rows[4], "Observer") << replication.all();

  // The leader killed: a new leader of a later epoch, seen by the tool
  // through the remaining controllers and through the broker.
  const int old = first.leader - 1;
  ASSERT_EQ(controllers[old]->stop(SIGKILL), -SIGKILL);
  field_values after;
  tool_result last;
  ASSERT_TRUE(wait_until(
      [&] {
        last = describe("--bootstrap-controller", controller_addresses(old), "--status");
        after = status_fields(last);
        return last.exit_code == 0 && after.leader >= 1 && after.leader != first.leader;
      },
      // Generous: each try starts a JVM, and a loaded 2-core machine under
      // the sanitizers has taken over a minute for the election and the
      // tool together. The survivors' logs say which of the two was slow.
      120s))
      << last.all() << survivors_logs(old);
  EXPECT_GT(after.epoch, first.epoch);
  ASSERT_TRUE(wait_until(
      [&] { return status_fields(describe("--bootstrap-server", broker_address, "--status")).leader == after.leader; },
      30s));

  // The old leader back: a follower of the new epoch.
  ASSERT_TRUE(start_controller(old)) << controllers[old]->log();
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = describe("--bootstrap-controller", controller_addresses(), "--replication");
        auto rows_now = replication_rows(r);
        return r.exit_code == 0 && rows_now[first.leader] == "Follower" && rows_now[after.leader] == "Leader";
      },
      60s));
  auto final_status = describe("--bootstrap-controller", controller_addresses(), "--status");
  EXPECT_EQ(status_fields(final_status).epoch, after.epoch) << final_status.all();
}

}  // namespace
}  // namespace hw::testing
