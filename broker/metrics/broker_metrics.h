#pragma once
// The broker's metrics registry and its Prometheus endpoint (README.md
// beside this file lists the metrics and Kafka's names for them).
//
// Ownership and threads: owned by the node. on_request and on_isr_change
// may be called from any thread; the gauge source runs on the endpoint's
// threads at each scrape.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hw::broker::metrics {

// What the broker's partitions and fetchers look like now, for the gauges.
struct replica_gauges {
  int64_t partitions = 0;
  int64_t leaders = 0;
  int64_t under_replicated = 0;
  int64_t under_min_isr = 0;
  int64_t offline_replicas = 0;
  int64_t fetcher_max_lag = 0;
  // Partitions without a leader, as the active controller counts them (0
  // on the other nodes, as Kafka's OfflinePartitionsCount).
  int64_t offline_partitions = 0;
  // Transactions: producer ids held by the partitions' producer state; led
  // partitions whose oldest open transaction has been idle past
  // transaction.max.timeout.ms plus 5 minutes (Kafka's KIP-664 count); the
  // largest high watermark minus last stable offset among led partitions.
  int64_t producer_ids = 0;
  int64_t late_transaction_partitions = 0;
  int64_t lso_lag_max = 0;
  // The transaction coordinator here: open transactions in the partitions
  // it leads, and how long its recent partition loads took (none: no load
  // in the window).
  int64_t open_transactions = 0;
  std::optional<double> txn_load_time_max_ms;
  std::optional<double> txn_load_time_avg_ms;
  // The group coordinator here: groups by protocol, consumer groups by
  // state (Empty, Assigning, Reconciling, Stable, Dead), and the consumer
  // groups' rebalances (group epoch bumps) since this process started.
  int64_t classic_groups = 0;
  int64_t consumer_groups = 0;
  std::array<int64_t, 5> consumer_groups_by_state{};
  int64_t consumer_group_rebalances = 0;
  // And streams groups: by state (Empty, NotReady, Assigning, Reconciling,
  // Stable, Dead), and their rebalances.
  int64_t streams_groups = 0;
  std::array<int64_t, 6> streams_groups_by_state{};
  int64_t streams_group_rebalances = 0;
};

// One client quota measure's metric (Kafka's kafka.server:type=<group>,
// user=<user>,client-id=<client-id> attribute <name>), e.g. Produce
// byte-rate or throttle-time.
struct quota_gauge {
  std::string group;  // Produce, Fetch, Request, ControllerMutation
  std::string name;   // byte-rate, request-time, throttle-time, tokens, mutation-rate
  std::string user;
  std::string client_id;
  double value = 0;
};

class broker_metrics {
 public:
  broker_metrics();
  ~broker_metrics();
  broker_metrics(const broker_metrics&) = delete;
  broker_metrics& operator=(const broker_metrics&) = delete;

  // One request answered after total_time_ms (from its frame being read to
  // its answer being ready). A Fetch counts as FetchFollower when a replica
  // sent it, else FetchConsumer.
  void on_request(int16_t api_key, bool from_follower, double total_time_ms);
  // The controller's answer to an ISR change this broker proposed as leader.
  enum class isr_update { shrunk, expanded, failed };
  void on_isr_update(isr_update what);
  // Unclean leader elections this node's active controller wrote.
  void on_unclean_leader_elections(int64_t count);
  // A connection's authentication ended (SASL: its mechanism; SSL: the
  // handshake, "SSL"; PLAINTEXT: accepted, "PLAINTEXT", as Kafka counts
  // every channel that becomes ready). Any thread.
  void on_authentication(const std::string& listener, const std::string& mechanism, bool succeeded);
  // A connection's re-authentication (KIP-368) ended. Any thread.
  void on_reauthentication(const std::string& listener, const std::string& mechanism, bool succeeded);
  // A connection closed because its SASL login expired and it sent
  // something other than a re-authentication. Any thread.
  void on_expired_login_closed(const std::string& listener);
  // A connection opened (+1) or closed (-1) on a listener. Any thread.
  void on_connection(const std::string& listener, const std::string& security_protocol, int delta);

  // Read at each scrape; set before serving.
  void set_gauge_source(std::function<replica_gauges()> source);
  void set_quota_source(std::function<std::vector<quota_gauge>()> source);

  // Serves /metrics on host:port (port 0: any free one). The bound port, or
  // why it could not listen.
  std::variant<uint16_t, std::string> serve(const std::string& host, uint16_t port);
  // Closes the endpoint and forgets the gauge source (before what the
  // source reads goes away). Also done by the destructor.
  void stop();

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace hw::broker::metrics
