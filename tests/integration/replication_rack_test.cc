// Fetch from the closest replica (KIP-392): three combined nodes in racks
// rack-1..rack-3 with replica.selector.class set to Kafka's
// RackAwareReplicaSelector. A consumer names its rack (client.rack); the
// leader sends one in another replica's rack there (the preferred read
// replica in its Fetch answer, no records), and that follower serves it up
// to its high watermark. Without client metadata (Fetch below v11) only the
// leader answers.

#include <gtest/gtest.h>

#include "metrics_scrape.h"
#include "protocol/error_code.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

using protocol::error_code;
constexpr int16_t code(error_code e) { return static_cast<int16_t>(e); }

class ReplicationRackIT : public replication_cluster {
 protected:
  std::vector<std::string> extra_overrides() const override {
    return {"replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector",
            "highwater.metrics.port=0", "highwater.metrics.host=127.0.0.1"};
  }
  std::vector<std::string> node_overrides(int i) const override {
    return {"broker.rack=" + rack(i + 1)};
  }
  static std::string rack(int id) { return "rack-" + std::to_string(id); }
  // Consumer fetches node `id` answered (Kafka's FetchConsumer requests).
  double consumer_fetches(int id) const {
    return metric_sample(scrape_metrics(nodes[id - 1]->port("METRICS")),
                         "kafka_network_requestmetrics_requests_total{request=\"FetchConsumer\"}")
        .value_or(0);
  }
};

TEST_F(ReplicationRackIT, AConsumerReadsFromTheReplicaInItsRack) {
  create_replicated("racked");
  auto produced = produce_all(nodes[0]->port(), "racked", messages("r", 20), "all");
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_is(0, "racked", {1, 2, 3}); }, 20s)) << logs();
  auto v = view(0, "racked");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  // Every replica has every record and knows the HW.
  ASSERT_TRUE(wait_until([&] {
    raw_client c(at(follower - 1));
    auto f = c.fetch("racked", 0, 0, -1, 0, "", 11);
    return f && f->partition.error_code == 0 && f->partition.high_watermark == 20;
  }, 20s)) << logs();

  // The leader sends a consumer in the follower's rack to the follower.
  raw_client to_leader(at(leader - 1));
  auto redirected = to_leader.fetch("racked", 0, 0, -1, 0, rack(follower));
  ASSERT_TRUE(redirected);
  EXPECT_EQ(redirected->partition.error_code, 0);
  EXPECT_EQ(redirected->partition.preferred_read_replica, follower);
  EXPECT_TRUE(redirected->records.empty()) << "no records with a preferred read replica";
  EXPECT_EQ(redirected->partition.high_watermark, 20);
  // One in the leader's own rack, or in none, reads from the leader.
  for (const std::string& r : {rack(leader), std::string("elsewhere"), std::string()}) {
    auto direct = to_leader.fetch("racked", 0, 0, -1, 0, r);
    ASSERT_TRUE(direct);
    EXPECT_EQ(direct->partition.preferred_read_replica, -1) << r;
    EXPECT_FALSE(direct->records.empty()) << r;
  }

  // The follower serves consumers' fetches from v11 on, up to its HW; an
  // older consumer fetch is for leaders only.
  raw_client to_follower(at(follower - 1));
  auto served = to_follower.fetch("racked", 0, 0, -1, 0, rack(follower));
  ASSERT_TRUE(served);
  EXPECT_EQ(served->partition.error_code, 0);
  EXPECT_EQ(served->partition.preferred_read_replica, -1);
  EXPECT_FALSE(served->records.empty());
  auto old = to_follower.fetch("racked", 0, 0, -1, 0, "", 10);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->partition.error_code, code(error_code::not_leader_or_follower));

  // A real consumer in the follower's rack reads everything, from it.
  const double before = consumer_fetches(follower);
  auto read = read_from_beginning(at(leader - 1), "racked", 20, {{"client.rack", rack(follower)}});
  ASSERT_EQ(read.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(read[i].key, "r" + std::to_string(i));
  EXPECT_GT(consumer_fetches(follower), before) << "the consumer fetched from the follower in its rack";
}

}  // namespace
}  // namespace hw::testing
