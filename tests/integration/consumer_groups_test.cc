// Consumer groups (KIP-848) against the real binary, over raw
// ConsumerGroupHeartbeat requests: a member's group survives its
// coordinator's crash and restart without a rebalance (the next coordinator
// replays the group's records: same member, same epoch, same partitions),
// and the group coordinator's metrics count it by protocol and state.
#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "consumer_heartbeats.h"
#include "metrics_scrape.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;

constexpr int16_t k_heartbeat_v = 1, k_describe_v = 1;
const std::string k_group = "kip848-group";
const std::string k_member = "kip848-member-0123456789";

// Finds the coordinator and heartbeats until it answers without a
// coordinator error (loading, moving) or the deadline passes.
std::optional<msg::consumer_group_heartbeat_response> heartbeat(uint16_t port,
                                                                const msg::consumer_group_heartbeat_request& req) {
  std::optional<msg::consumer_group_heartbeat_response> out;
  wait_until(
      [&] {
        raw_client c({"127.0.0.1", port});
        if (!c.connected()) return false;
        // As a client does: find the coordinator first (which makes
        // __consumer_offsets on a new cluster).
        if (c.find_coordinator(req.group_id, 0).first != 0) return false;
        out = c.call<msg::consumer_group_heartbeat_response>(68, k_heartbeat_v, req);
        return out && out->error_code != 14 && out->error_code != 15 && out->error_code != 16;
      },
      30s);
  return out;
}

double sample(const std::string& text, const std::string& name) { return metric_sample(text, name).value_or(-1); }

TEST(ConsumerGroupsIT, AGroupSurvivesItsCoordinatorsCrashWithoutARebalanceAndIsCounted) {
  broker_process b;
  const std::vector<std::string> args{"--override", "offsets.topic.num.partitions=3", "--override",
                                      "highwater.metrics.port=0", "--override", "highwater.metrics.host=127.0.0.1"};
  ASSERT_TRUE(b.start(args)) << b.log();
  {
    raw_client c({"127.0.0.1", b.port()});
    auto created = c.create_topic("kip848-topic", 4);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics.at(0).error_code, 0);
  }
  auto joined = heartbeat(b.port(), consumer_join(k_group, k_member, {"kip848-topic"}));
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, 0) << joined->error_message.value_or("") << b.log();
  ASSERT_EQ(joined->member_epoch, 2);
  ASSERT_TRUE(joined->assignment);
  ASSERT_EQ(joined->assignment->topic_partitions.at(0).partitions, (std::vector<int32_t>{0, 1, 2, 3}));
  const auto held = *joined->assignment;
  auto acked = heartbeat(b.port(), consumer_beat(k_group, k_member, 2, held));
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->error_code, 0);

  // Counted: one consumer group, Stable, one rebalance (its first epoch).
  const std::string consumer_groups = "kafka_server_group_coordinator_metrics_group_count{protocol=\"consumer\"}";
  const std::string stable = "kafka_server_group_coordinator_metrics_consumer_group_count{state=\"Stable\"}";
  const std::string rebalances = "kafka_server_group_coordinator_metrics_consumer_group_rebalance_count";
  EXPECT_TRUE(wait_until(
      [&] {
        heartbeat(b.port(), consumer_beat(k_group, k_member, 2, held));  // each answer publishes the shard's counts (at most once a second)
        const std::string text = scrape_metrics(b.port("METRICS"));
        return sample(text, consumer_groups) == 1 && sample(text, stable) == 1 && sample(text, rebalances) == 1;
      },
      10s))
      << scrape_metrics(b.port("METRICS"));
  EXPECT_EQ(sample(scrape_metrics(b.port("METRICS")), "kafka_server_group_coordinator_metrics_group_count{protocol=\"classic\"}"), 0);

  // The coordinator crashes and comes back on its log.
  const uint16_t port = b.port();
  ASSERT_TRUE(b.stop(SIGKILL, 30s).has_value()) << b.log();
  std::vector<std::string> again = args;
  again.insert(again.end(), {"--override", "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(b.start(again, 60s)) << b.log();

  // The member goes on at its epoch with its partitions: no rebalance.
  auto after = heartbeat(b.port(), consumer_beat(k_group, k_member, 2, held));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->error_code, 0) << after->error_message.value_or("") << b.log();
  EXPECT_EQ(after->member_epoch, 2);
  raw_client c({"127.0.0.1", b.port()});
  msg::consumer_group_describe_request describe;
  describe.group_ids = {k_group};
  auto described = c.call<msg::consumer_group_describe_response>(69, k_describe_v, describe);
  ASSERT_TRUE(described);
  ASSERT_EQ(described->groups.size(), 1u);
  const auto& g = described->groups[0];
  EXPECT_EQ(g.error_code, 0);
  EXPECT_EQ(g.group_epoch, 2);
  EXPECT_EQ(g.assignment_epoch, 2);
  EXPECT_EQ(g.group_state, "Stable");
  ASSERT_EQ(g.members.size(), 1u);
  EXPECT_EQ(g.members[0].member_id, k_member);
  EXPECT_EQ(g.members[0].assignment.topic_partitions.at(0).partitions, (std::vector<int32_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace hw::testing
