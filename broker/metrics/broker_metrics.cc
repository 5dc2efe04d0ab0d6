#include "broker/metrics/broker_metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <atomic>
#include <cctype>
#include <map>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "protocol/messages/api_registry.h"

namespace hw::broker::metrics {
namespace {

constexpr size_t api_key_slots = 128;
constexpr int16_t fetch_key = 1;

// TotalTimeMs buckets, in milliseconds: sub-millisecond answers up to the
// longest a request may wait (a fetch's 60 s cap).
prometheus::Histogram::BucketBoundaries total_time_buckets() {
  return {0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000};
}

}  // namespace

struct broker_metrics::impl : prometheus::Collectable {
  struct request_slot {
    prometheus::Counter* requests = nullptr;
    prometheus::Histogram* total_time_ms = nullptr;
  };

  impl()
      : registry(std::make_shared<prometheus::Registry>()),
        requests(prometheus::BuildCounter()
                     .Name("kafka_network_requestmetrics_requests_total")
                     .Help("Requests answered, per API (Kafka's RequestsPerSec)")
                     .Register(*registry)),
        total_time(prometheus::BuildHistogram()
                       .Name("kafka_network_requestmetrics_totaltimems")
                       .Help("Time from a request's arrival to its answer, in milliseconds (Kafka's TotalTimeMs)")
                       .Register(*registry)),
        isr_shrinks(prometheus::BuildCounter()
                        .Name("kafka_server_replicamanager_isrshrinks_total")
                        .Help("ISR shrinks this broker made as leader (Kafka's IsrShrinksPerSec)")
                        .Register(*registry)
                        .Add({})),
        isr_expands(prometheus::BuildCounter()
                        .Name("kafka_server_replicamanager_isrexpands_total")
                        .Help("ISR expansions this broker made as leader (Kafka's IsrExpandsPerSec)")
                        .Register(*registry)
                        .Add({})),
        failed_isr_updates(prometheus::BuildCounter()
                               .Name("kafka_server_replicamanager_failedisrupdates_total")
                               .Help("ISR changes the controller refused (Kafka's FailedIsrUpdatesPerSec)")
                               .Register(*registry)
                               .Add({})),
        unclean_elections(prometheus::BuildCounter()
                              .Name("kafka_controller_controllerstats_uncleanleaderelections_total")
                              .Help("Unclean leader elections this node's controller made while active (Kafka's "
                                    "UncleanLeaderElectionsPerSec)")
                              .Register(*registry)
                              .Add({})),
        partitions(gauge("kafka_server_replicamanager_partitioncount", "Partitions hosted here")),
        leaders(gauge("kafka_server_replicamanager_leadercount", "Partitions led here")),
        under_replicated(gauge("kafka_server_replicamanager_underreplicatedpartitions",
                               "Partitions led here whose ISR is smaller than their replica set")),
        under_min_isr(gauge("kafka_server_replicamanager_underminisrpartitioncount",
                            "Partitions led here whose ISR is below min.insync.replicas")),
        offline_replicas(gauge("kafka_server_replicamanager_offlinereplicacount",
                               "Replicas hosted here whose log directory is offline")),
        fetcher_max_lag(prometheus::BuildGauge()
                            .Name("kafka_server_replicafetchermanager_maxlag")
                            .Help("The largest lag, in records, of a partition this broker follows")
                            .Register(*registry)
                            .Add({{"clientid", "Replica"}})),
        offline_partitions(gauge("kafka_controller_kafkacontroller_offlinepartitionscount",
                                 "Partitions without a leader, counted by the active controller")),
        producer_ids(gauge("kafka_server_replicamanager_produceridcount",
                           "Producer ids held by the producer state of the partitions hosted here")),
        late_transactions(gauge("kafka_server_replicamanager_partitionswithlatetransactionscount",
                                "Partitions led here whose oldest open transaction has been idle longer than "
                                "transaction.max.timeout.ms plus 5 minutes")),
        lso_lag_max(gauge("highwater_replicamanager_laststableoffsetlagmax",
                          "The largest high watermark minus last stable offset among the partitions led here "
                          "(records read_committed consumers wait for)")),
        open_transactions(gauge("highwater_transaction_coordinator_open_transactions",
                                "Transactions begun and not yet complete in the transaction coordinator's "
                                "partitions led here")),
        txn_load_max(gauge("kafka_server_transaction_coordinator_metrics_partition_load_time_max",
                           "The longest load of a __transaction_state partition in the last minute, in ms "
                           "(NaN: none)")),
        authentications_ok(prometheus::BuildCounter()
                               .Name("kafka_server_socket_server_metrics_successful_authentication_total")
                               .Help("Connections that authenticated, per listener and mechanism (Kafka's "
                                     "successful-authentication-total)")
                               .Register(*registry)),
        authentications_failed(prometheus::BuildCounter()
                                   .Name("kafka_server_socket_server_metrics_failed_authentication_total")
                                   .Help("Connections whose authentication failed, per listener and mechanism "
                                         "(Kafka's failed-authentication-total)")
                                   .Register(*registry)),
        reauthentications_ok(prometheus::BuildCounter()
                                 .Name("kafka_server_socket_server_metrics_successful_reauthentication_total")
                                 .Help("Re-authentications that succeeded, per listener and mechanism (Kafka's "
                                       "successful-reauthentication-total)")
                                 .Register(*registry)),
        reauthentications_failed(prometheus::BuildCounter()
                                     .Name("kafka_server_socket_server_metrics_failed_reauthentication_total")
                                     .Help("Re-authentications that failed, per listener and mechanism (Kafka's "
                                           "failed-reauthentication-total)")
                                     .Register(*registry)),
        expired_logins_closed(prometheus::BuildCounter()
                                  .Name("kafka_server_socket_server_metrics_expired_connections_killed_count")
                                  .Help("Connections closed because their SASL login expired without "
                                        "re-authentication, per listener (Kafka's expired-connections-killed-count)")
                                  .Register(*registry)),
        connections(prometheus::BuildGauge()
                        .Name("kafka_server_socket_server_metrics_connection_count")
                        .Help("Open connections, per listener and its security protocol (Kafka's connection-count)")
                        .Register(*registry)),
        txn_load_avg(gauge("kafka_server_transaction_coordinator_metrics_partition_load_time_avg",
                           "The mean load time of __transaction_state partitions in the last minute, in ms "
                           "(NaN: none)")),
        group_count(prometheus::BuildGauge()
                        .Name("kafka_server_group_coordinator_metrics_group_count")
                        .Help("Groups coordinated here, per rebalance protocol (Kafka's group-count)")
                        .Register(*registry)),
        classic_groups(group_count.Add({{"protocol", "classic"}})),
        consumer_groups(group_count.Add({{"protocol", "consumer"}})),
        streams_groups(group_count.Add({{"protocol", "streams"}})),
        consumer_group_count(prometheus::BuildGauge()
                                 .Name("kafka_server_group_coordinator_metrics_consumer_group_count")
                                 .Help("Consumer-protocol groups coordinated here, per state (Kafka's "
                                       "consumer-group-count)")
                                 .Register(*registry)),
        consumer_group_rebalances(gauge("kafka_server_group_coordinator_metrics_consumer_group_rebalance_count",
                                        "Consumer-protocol group rebalances (group epoch bumps) coordinated here "
                                        "since the broker started (Kafka's consumer-group-rebalance-count)")),
        streams_group_count(prometheus::BuildGauge()
                                .Name("kafka_server_group_coordinator_metrics_streams_group_count")
                                .Help("Streams groups coordinated here, per state (Kafka's streams-group-count)")
                                .Register(*registry)),
        streams_group_rebalances(gauge("kafka_server_group_coordinator_metrics_streams_group_rebalance_count",
                                       "Streams group rebalances (group epoch bumps) coordinated here since the "
                                       "broker started (Kafka's streams-group-rebalance-count)")) {
    for (const char* state : {"Empty", "Assigning", "Reconciling", "Stable", "Dead"})
      consumer_groups_by_state.push_back(&consumer_group_count.Add({{"state", state}}));
    for (const char* state : {"Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead"})
      streams_groups_by_state.push_back(&streams_group_count.Add({{"state", state}}));
  }

  prometheus::Gauge& gauge(const char* name, const char* help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(*registry).Add({});
  }
  // The series of one request name, made when it is first answered (so a
  // scrape lists the APIs in use, not every one there is). Lock-free once
  // made.
  const request_slot* slot(int16_t api_key, bool from_follower) {
    std::atomic<const request_slot*>& cell = api_key == fetch_key && from_follower
                                                 ? follower_fetch
                                                 : slots[static_cast<size_t>(api_key)];
    if (const request_slot* made = cell.load(std::memory_order_acquire)) return made;
    const protocol::api_info* api = protocol::find_api(api_key);
    if (!api) return nullptr;
    const std::string name =
        api_key == fetch_key ? (from_follower ? "FetchFollower" : "FetchConsumer") : std::string(api->name);
    std::lock_guard lock(slots_mutex);
    if (const request_slot* made = cell.load(std::memory_order_acquire)) return made;
    made_slots.push_back(std::make_unique<request_slot>(
        request_slot{&requests.Add({{"request", name}}), &total_time.Add({{"request", name}}, total_time_buckets())}));
    cell.store(made_slots.back().get(), std::memory_order_release);
    return made_slots.back().get();
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    std::function<replica_gauges()> read;
    {
      std::lock_guard lock(source_mutex);
      read = source;
    }
    if (read) {
      const replica_gauges g = read();
      partitions.Set(static_cast<double>(g.partitions));
      leaders.Set(static_cast<double>(g.leaders));
      under_replicated.Set(static_cast<double>(g.under_replicated));
      under_min_isr.Set(static_cast<double>(g.under_min_isr));
      offline_replicas.Set(static_cast<double>(g.offline_replicas));
      fetcher_max_lag.Set(static_cast<double>(g.fetcher_max_lag));
      offline_partitions.Set(static_cast<double>(g.offline_partitions));
      producer_ids.Set(static_cast<double>(g.producer_ids));
      late_transactions.Set(static_cast<double>(g.late_transaction_partitions));
      lso_lag_max.Set(static_cast<double>(g.lso_lag_max));
      open_transactions.Set(static_cast<double>(g.open_transactions));
      const double none = std::numeric_limits<double>::quiet_NaN();
      txn_load_max.Set(g.txn_load_time_max_ms.value_or(none));
      txn_load_avg.Set(g.txn_load_time_avg_ms.value_or(none));
      classic_groups.Set(static_cast<double>(g.classic_groups));
      consumer_groups.Set(static_cast<double>(g.consumer_groups));
      for (size_t i = 0; i < consumer_groups_by_state.size(); ++i)
        consumer_groups_by_state[i]->Set(static_cast<double>(g.consumer_groups_by_state[i]));
      consumer_group_rebalances.Set(static_cast<double>(g.consumer_group_rebalances));
      streams_groups.Set(static_cast<double>(g.streams_groups));
      for (size_t i = 0; i < streams_groups_by_state.size(); ++i)
        streams_groups_by_state[i]->Set(static_cast<double>(g.streams_groups_by_state[i]));
      streams_group_rebalances.Set(static_cast<double>(g.streams_group_rebalances));
    }
    std::vector<prometheus::MetricFamily> families = registry->Collect();
    add_quota_families(families);
    return families;
  }

  // The quota measures of the moment: families built at each scrape, so
  // entities that went away leave no stale series.
  void add_quota_families(std::vector<prometheus::MetricFamily>& families) const {
    std::function<std::vector<quota_gauge>()> read;
    {
      std::lock_guard lock(source_mutex);
      read = quota_source;
    }
    if (!read) return;
    std::map<std::string, size_t> index;
    for (const quota_gauge& g : read()) {
      std::string name = "kafka_server_" + g.group + "_" + g.name;
      for (char& c : name) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto [it, added] = index.emplace(name, families.size());
      if (added) {
        prometheus::MetricFamily f;
        f.name = name;
        f.help = "kafka.server:type=" + g.group + ",user=,client-id= " + g.name;
        f.type = prometheus::MetricType::Gauge;
        families.push_back(std::move(f));
      }
      prometheus::ClientMetric m;
      m.label = {{"client_id", g.client_id}, {"user", g.user}};
      m.gauge.value = g.value;
      families[it->second].metric.push_back(std::move(m));
    }
  }

  std::shared_ptr<prometheus::Registry> registry;
  prometheus::Family<prometheus::Counter>& requests;
  prometheus::Family<prometheus::Histogram>& total_time;
  prometheus::Counter& isr_shrinks;
  prometheus::Counter& isr_expands;
  prometheus::Counter& failed_isr_updates;
  prometheus::Counter& unclean_elections;
  prometheus::Gauge& partitions;
  prometheus::Gauge& leaders;
  prometheus::Gauge& under_replicated;
  prometheus::Gauge& under_min_isr;
  prometheus::Gauge& offline_replicas;
  prometheus::Gauge& fetcher_max_lag;
  prometheus::Gauge& offline_partitions;
  prometheus::Gauge& producer_ids;
  prometheus::Gauge& late_transactions;
  prometheus::Gauge& lso_lag_max;
  prometheus::Gauge& open_transactions;
  prometheus::Gauge& txn_load_max;
  prometheus::Family<prometheus::Counter>& authentications_ok;
  prometheus::Family<prometheus::Counter>& authentications_failed;
  prometheus::Family<prometheus::Counter>& reauthentications_ok;
  prometheus::Family<prometheus::Counter>& reauthentications_failed;
  prometheus::Family<prometheus::Counter>& expired_logins_closed;
  prometheus::Family<prometheus::Gauge>& connections;
  prometheus::Gauge& txn_load_avg;
  prometheus::Family<prometheus::Gauge>& group_count;
  prometheus::Gauge& classic_groups;
  prometheus::Gauge& consumer_groups;
  prometheus::Gauge& streams_groups;
  prometheus::Family<prometheus::Gauge>& consumer_group_count;
  std::vector<prometheus::Gauge*> consumer_groups_by_state;
  prometheus::Gauge& consumer_group_rebalances;
  prometheus::Family<prometheus::Gauge>& streams_group_count;
  std::vector<prometheus::Gauge*> streams_groups_by_state;
  prometheus::Gauge& streams_group_rebalances;
  std::array<std::atomic<const request_slot*>, api_key_slots> slots{};
  std::atomic<const request_slot*> follower_fetch{nullptr};
  std::mutex slots_mutex;  // leaf: making a request name's series, once
  std::vector<std::unique_ptr<request_slot>> made_slots;

  mutable std::mutex source_mutex;  // leaf: the source is set once, read per scrape
  std::function<replica_gauges()> source;
  std::function<std::vector<quota_gauge>()> quota_source;
  std::unique_ptr<prometheus::Exposer> exposer;
};

broker_metrics::broker_metrics() : impl_(std::make_shared<impl>()) {}

broker_metrics::~broker_metrics() { stop(); }

void broker_metrics::on_request(int16_t api_key, bool from_follower, double total_time_ms) {
  if (api_key < 0 || static_cast<size_t>(api_key) >= api_key_slots) return;
  const impl::request_slot* s = impl_->slot(api_key, from_follower);
  if (!s) return;
  s->requests->Increment();
  s->total_time_ms->Observe(total_time_ms);
}

void broker_metrics::on_isr_update(isr_update what) {
  switch (what) {
    case isr_update::shrunk: impl_->isr_shrinks.Increment(); break;
    case isr_update::expanded: impl_->isr_expands.Increment(); break;
    case isr_update::failed: impl_->failed_isr_updates.Increment(); break;
  }
}

void broker_metrics::on_unclean_leader_elections(int64_t count) {
  impl_->unclean_elections.Increment(static_cast<double>(count));
}

void broker_metrics::on_authentication(const std::string& listener, const std::string& mechanism, bool succeeded) {
  auto& family = succeeded ? impl_->authentications_ok : impl_->authentications_failed;
  family.Add({{"listener", listener}, {"mechanism", mechanism}}).Increment();
}

void broker_metrics::on_reauthentication(const std::string& listener, const std::string& mechanism, bool succeeded) {
  auto& family = succeeded ? impl_->reauthentications_ok : impl_->reauthentications_failed;
  family.Add({{"listener", listener}, {"mechanism", mechanism}}).Increment();
}

void broker_metrics::on_expired_login_closed(const std::string& listener) {
  impl_->expired_logins_closed.Add({{"listener", listener}}).Increment();
}

void broker_metrics::on_connection(const std::string& listener, const std::string& security_protocol, int delta) {
  impl_->connections.Add({{"listener", listener}, {"security_protocol", security_protocol}})
      .Increment(static_cast<double>(delta));
}

void broker_metrics::set_quota_source(std::function<std::vector<quota_gauge>()> source) {
  std::lock_guard lock(impl_->source_mutex);
  impl_->quota_source = std::move(source);
}

void broker_metrics::set_gauge_source(std::function<replica_gauges()> source) {
  std::lock_guard lock(impl_->source_mutex);
  impl_->source = std::move(source);
}

std::variant<uint16_t, std::string> broker_metrics::serve(const std::string& host, uint16_t port) {
  const std::string address = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                              std::to_string(port);
  try {
    auto exposer = std::make_unique<prometheus::Exposer>(address, 2);
    exposer->RegisterCollectable(impl_);
    const std::vector<int> ports = exposer->GetListeningPorts();
    if (ports.empty()) return "the metrics endpoint " + address + " listens on no port";
    impl_->exposer = std::move(exposer);
    return static_cast<uint16_t>(ports.front());
  } catch (const std::exception& e) {
    return "Cannot serve metrics on " + address + ": " + e.what();
  }
}

void broker_metrics::stop() {
  impl_->exposer.reset();
  set_gauge_source({});
  set_quota_source({});
}

}  // namespace hw::broker::metrics
