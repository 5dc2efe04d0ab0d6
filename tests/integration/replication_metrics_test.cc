// The Prometheus endpoint (highwater.metrics.port) of three combined
// nodes: a leader's replication gauges and ISR counters follow a
// follower's loss and return, and requests are counted per API with
// Kafka's names (Fetch split into FetchConsumer and FetchFollower).

#include <gtest/gtest.h>

#include <optional>

#include "metrics_scrape.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

class ReplicationMetricsIT : public replication_cluster {
 protected:
  std::vector<std::string> extra_overrides() const override {
    // A session longer than the lag limit: the leader, not the controller's
    // fencing, takes the stopped follower out of the ISR (only a change the
    // leader proposed counts as an ISR shrink, as in Kafka).
    return {"highwater.metrics.port=0", "highwater.metrics.host=127.0.0.1", "broker.session.timeout.ms=10000"};
  }

  std::string scrape(int i) const { return scrape_metrics(nodes[i]->port("METRICS")); }
  static std::optional<double> sample(const std::string& text, const std::string& name) {
    return metric_sample(text, name);
  }
  double value(int i, const std::string& name) const { return sample(scrape(i), name).value_or(-1); }
};

TEST_F(ReplicationMetricsIT, TheLeadersGaugesAndIsrCountersFollowAFollowersLossAndReturn) {
  create_replicated("watched");
  auto v = view(0, "watched");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  auto produced = produce_all(nodes[leader - 1]->port(), "watched", messages("m", 10), "all");
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << logs();

  const std::string text = scrape(leader - 1);
  ASSERT_FALSE(text.empty()) << logs();
  EXPECT_EQ(sample(text, "kafka_server_replicamanager_underreplicatedpartitions"), 0.0) << text;
  EXPECT_EQ(sample(text, "kafka_server_replicamanager_underminisrpartitioncount"), 0.0) << text;
  EXPECT_EQ(sample(text, "kafka_server_replicamanager_offlinereplicacount"), 0.0) << text;
  EXPECT_GE(sample(text, "kafka_server_replicamanager_leadercount").value_or(0), 1.0) << text;
  EXPECT_GE(sample(text, "kafka_server_replicamanager_partitioncount").value_or(0), 1.0) << text;
  EXPECT_GE(sample(text, "kafka_network_requestmetrics_requests_total{request=\"Produce\"}").value_or(0), 1.0)
      << text;
  // The followers fetch from the leader; nobody consumed yet.
  EXPECT_GE(sample(text, "kafka_network_requestmetrics_requests_total{request=\"FetchFollower\"}").value_or(0), 1.0)
      << text;
  EXPECT_TRUE(sample(text, "kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"}")) << text;
  EXPECT_TRUE(sample(text, "kafka_server_replicafetchermanager_maxlag{clientid=\"Replica\"}")) << text;
  const double shrinks = sample(text, "kafka_server_replicamanager_isrshrinks_total").value_or(-1);
  const double expands = sample(text, "kafka_server_replicamanager_isrexpands_total").value_or(-1);
  ASSERT_GE(shrinks, 0) << text;
  ASSERT_GE(expands, 0) << text;

  ASSERT_EQ(nodes[follower - 1]->stop(SIGKILL), -SIGKILL);
  // The leader's log moves on without it (acks=1: the ISR still counts it),
  // so it falls behind and out of the ISR after replica.lag.time.max.ms.
  auto more = produce_all(nodes[leader - 1]->port(), "watched", messages("n", 5), "1");
  for (const auto& r : more) ASSERT_GE(r.offset, 10) << logs();
  // Two left in the ISR: under-replicated, not under min ISR (2).
  EXPECT_TRUE(wait_until(
      [&] {
        return value(leader - 1, "kafka_server_replicamanager_underreplicatedpartitions") >= 1 &&
               value(leader - 1, "kafka_server_replicamanager_isrshrinks_total") >= shrinks + 1;
      },
      30s))
      << scrape(leader - 1) << logs();
  EXPECT_EQ(value(leader - 1, "kafka_server_replicamanager_underminisrpartitioncount"), 0.0);

  ASSERT_TRUE(start_node(follower - 1)) << logs();
  EXPECT_TRUE(wait_until(
      [&] {
        return value(leader - 1, "kafka_server_replicamanager_underreplicatedpartitions") == 0 &&
               value(leader - 1, "kafka_server_replicamanager_isrexpands_total") >= expands + 1;
      },
      30s))
      << scrape(leader - 1) << logs();
}

}  // namespace
}  // namespace hw::testing
