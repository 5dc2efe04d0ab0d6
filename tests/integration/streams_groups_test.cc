// Streams groups (KIP-1071) against the real binary, over raw
// StreamsGroupHeartbeat requests: the broker creates the internal topic a
// member's topology lacks (the member is told MISSING_INTERNAL_TOPICS, then
// gets its tasks once the topic is there, with the partition count and
// configs the topology asked for); the group survives its coordinator's
// crash and restart without a rebalance; the group coordinator's metrics
// count it by protocol and state.
#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

#include "broker_process.h"
#include "metrics_scrape.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/streams_group_describe.h"
#include "protocol/messages/streams_group_heartbeat.h"
#include "raw_requests.h"
#include "streams_heartbeats.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;

const std::string k_group = "kip1071-group";
const std::string k_member = "kip1071-member-0123456789";
const std::string k_source = "kip1071-words";
const std::string k_changelog = "kip1071-group-store-changelog";

// Finds the coordinator and heartbeats until it answers without a
// coordinator error (loading, moving) or the deadline passes.
std::optional<msg::streams_group_heartbeat_response> heartbeat(uint16_t port,
                                                               const msg::streams_group_heartbeat_request& req) {
  std::optional<msg::streams_group_heartbeat_response> out;
  wait_until(
      [&] {
        raw_client c({"127.0.0.1", port});
        if (!c.connected()) return false;
        if (c.find_coordinator(req.group_id, 0).first != 0) return false;
        out = c.call<msg::streams_group_heartbeat_response>(88, 0, req);
        return out && out->error_code != 14 && out->error_code != 15 && out->error_code != 16;
      },
      30s);
  return out;
}

double sample(const std::string& text, const std::string& name) { return metric_sample(text, name).value_or(-1); }

bool has_status(const msg::streams_group_heartbeat_response& r, int8_t code) {
  if (!r.status) return false;
  for (const auto& s : *r.status)
    if (s.status_code == code) return true;
  return false;
}

TEST(StreamsGroupsIT, TheBrokerCreatesInternalTopicsAndTheGroupSurvivesItsCoordinatorsCrash) {
  broker_process b;
  const std::vector<std::string> args{"--override", "offsets.topic.num.partitions=3",
                                      "--override", "group.streams.initial.rebalance.delay.ms=0",
                                      "--override", "highwater.metrics.port=0",
                                      "--override", "highwater.metrics.host=127.0.0.1"};
  ASSERT_TRUE(b.start(args)) << b.log();
  {
    raw_client c({"127.0.0.1", b.port()});
    auto created = c.create_topic(k_source, 3);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics.at(0).error_code, 0);
  }
  // The topology keeps a store: its changelog is an internal topic the
  // broker must create (3 partitions, like its source; compacted).
  auto join = streams_join(k_group, k_member, "process-1", k_source);
  auto& changelog = join.topology->subtopologies[0].state_changelog_topics.emplace_back();
  changelog.name = k_changelog;
  changelog.topic_configs.push_back({"cleanup.policy", "compact", {}});
  auto joined = heartbeat(b.port(), join);
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, 0) << joined->error_message.value_or("") << b.log();
  EXPECT_TRUE(has_status(*joined, 3)) << "MISSING_INTERNAL_TOPICS";
  EXPECT_TRUE(!joined->active_tasks || joined->active_tasks->empty());

  // Heartbeats until the topic is there and the tasks come.
  std::optional<msg::streams_group_heartbeat_response> assigned;
  int32_t epoch = joined->member_epoch;
  ASSERT_TRUE(wait_until(
      [&] {
        assigned = heartbeat(b.port(), streams_beat(k_group, k_member, epoch, {}));
        if (!assigned || assigned->error_code != 0) return true;
        epoch = assigned->member_epoch;
        return assigned->active_tasks && !assigned->active_tasks->empty();
      },
      20s));
  ASSERT_TRUE(assigned);
  ASSERT_EQ(assigned->error_code, 0) << assigned->error_message.value_or("");
  EXPECT_FALSE(has_status(*assigned, 3));
  ASSERT_EQ(assigned->active_tasks->size(), 1u);
  EXPECT_EQ(assigned->active_tasks->at(0).partitions, (std::vector<int32_t>{0, 1, 2}));
  {
    raw_client c({"127.0.0.1", b.port()});
    auto md = c.metadata(std::vector<std::string>{k_changelog}, false);
    ASSERT_TRUE(md);
    ASSERT_EQ(md->topics.size(), 1u);
    EXPECT_EQ(md->topics[0].error_code, 0);
    EXPECT_EQ(md->topics[0].partitions.size(), 3u);
    msg::describe_configs_request dc;
    auto& r = dc.resources.emplace_back();
    r.resource_type = 2;  // TOPIC
    r.resource_name = k_changelog;
    r.configuration_keys = std::vector<std::string>{"cleanup.policy"};
    auto configs = c.call<msg::describe_configs_response>(32, 4, dc);
    ASSERT_TRUE(configs);
    ASSERT_EQ(configs->results.size(), 1u);
    ASSERT_EQ(configs->results[0].configs.size(), 1u);
    EXPECT_EQ(configs->results[0].configs[0].value, std::optional<std::string>("compact"));
  }
  const streams_tasks held = *assigned->active_tasks;
  auto acked = heartbeat(b.port(), streams_beat(k_group, k_member, epoch, held));
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->error_code, 0);

  // Counted: one streams group, Stable, its rebalances.
  const std::string groups = "kafka_server_group_coordinator_metrics_group_count{protocol=\"streams\"}";
  const std::string stable = "kafka_server_group_coordinator_metrics_streams_group_count{state=\"Stable\"}";
  const std::string rebalances = "kafka_server_group_coordinator_metrics_streams_group_rebalance_count";
  EXPECT_TRUE(wait_until(
      [&] {
        heartbeat(b.port(), streams_beat(k_group, k_member, epoch, held));  // answers publish the shard's counts
        const std::string text = scrape_metrics(b.port("METRICS"));
        return sample(text, groups) == 1 && sample(text, stable) == 1 && sample(text, rebalances) >= 1;
      },
      10s))
      << scrape_metrics(b.port("METRICS"));

  // The coordinator crashes and comes back on its log.
  const uint16_t port = b.port();
  ASSERT_TRUE(b.stop(SIGKILL, 30s).has_value()) << b.log();
  std::vector<std::string> again = args;
  again.insert(again.end(), {"--override", "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(b.start(again, 60s)) << b.log();

  // The member goes on at its epoch with its tasks: no rebalance.
  auto after = heartbeat(b.port(), streams_beat(k_group, k_member, epoch, held));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->error_code, 0) << after->error_message.value_or("") << b.log();
  EXPECT_EQ(after->member_epoch, epoch);
  EXPECT_FALSE(after->active_tasks.has_value());
  raw_client c({"127.0.0.1", b.port()});
  msg::streams_group_describe_request describe;
  describe.group_ids = {k_group};
  auto described = c.call<msg::streams_group_describe_response>(89, 0, describe);
  ASSERT_TRUE(described);
  ASSERT_EQ(described->groups.size(), 1u);
  const auto& g = described->groups[0];
  EXPECT_EQ(g.error_code, 0);
  EXPECT_EQ(g.group_epoch, epoch);
  EXPECT_EQ(g.assignment_epoch, epoch);
  EXPECT_EQ(g.group_state, "Stable");
  ASSERT_EQ(g.members.size(), 1u);
  EXPECT_EQ(g.members[0].member_id, k_member);
  EXPECT_EQ(g.members[0].process_id, "process-1");
}

}  // namespace
}  // namespace hw::testing
