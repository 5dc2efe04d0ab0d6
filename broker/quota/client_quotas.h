#pragma once
// Client quotas as Kafka's broker enforces them (ClientQuotaManager and
// its request, controller-mutation and connection cousins): what one user
// and client id may use of a broker, measured per quota entity.
//
// An entity is a user, a client id, a user and client id, or the defaults
// of either; the quota that applies to a (user, client id) pair is the
// first set of Kafka's order: user+client-id, user+default client-id,
// user, default user+client-id, default user+default client-id, default
// user, client-id, default client-id. Clients whose quota comes from the
// same entity share one measure (Kafka's metric tags: user and client-id,
// either empty where the entity has no such part), so two client ids of a
// user with a user quota share its bound.
//
// A kind of quota is enabled from the moment any quota of its kind is set
// (and stays so, as Kafka's); until then nothing is measured and every
// call answers at once. Once enabled each call takes the kind's mutex.
//
// Thread-safe: handlers on any strand record; the metadata publisher sets
// the quotas; the metrics scrape reads.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "broker/quota/sampled_rate.h"
#include "controller/metadata/quotas.h"

namespace hw::broker::quota {

enum class kind { produce, fetch, request, controller_mutation };

// The quota key a kind reads (producer_byte_rate, consumer_byte_rate,
// request_percentage, controller_mutation_rate) and Kafka's metric group
// (Produce, Fetch, Request, ControllerMutation).
std::string_view config_key(kind k);
std::string_view metric_group(kind k);

// One quota entity of users and client ids.
struct entity {
  enum class part { none, named, fallback };  // fallback: the default entity
  part user = part::none;
  std::string user_name;
  part client = part::none;
  std::string client_name;
  auto operator<=>(const entity&) const = default;
};

// The measure a (user, client id) pair is counted under.
struct metric_tags {
  std::string user;
  std::string client_id;
  auto operator<=>(const metric_tags&) const = default;
};

class client_quota_manager {
 public:
  client_quota_manager(kind k, window_config config);

  kind quota_kind() const { return kind_; }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // Replaces the quotas of this kind (values by entity).
  void set_quotas(std::map<entity, double> quotas);

  // Records value for the pair and answers the throttle, in ms, when its
  // quota is now exceeded (Kafka's recordAndGetThrottleTimeMs: the excess
  // over the bound as a share of the bound, times the measured span;
  // request-time throttles are capped at one window). 0 when disabled.
  int32_t record(std::string_view user, std::string_view client_id, double value, int64_t now_ms);
  // Takes back a recorded value (a throttled fetch answers nothing).
  void unrecord(std::string_view user, std::string_view client_id, double value, int64_t now_ms);
  // The throttle the connection serves, for the throttle-time average.
  void record_throttle(std::string_view user, std::string_view client_id, int32_t throttle_ms, int64_t now_ms);
  // What the pair may take in one measured span without being throttled
  // (bound × (samples - 1) windows); nullopt without a quota.
  std::optional<double> max_value_in_window(std::string_view user, std::string_view client_id);

  // Controller mutations (a token bucket of partitions): takes `permits`.
  // Strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+):
  // refused, nothing taken, when the bucket is already in debt; the answer
  // is then the throttle. Permissive: always taken; the throttle when the
  // bucket is now in debt. Returns 0 when allowed without throttle.
  struct mutation_outcome {
    bool refused = false;
    int32_t throttle_ms = 0;
  };
  mutation_outcome record_mutation(std::string_view user, std::string_view client_id, double permits, bool strict,
                                   int64_t now_ms);

  // One measure's metrics: the rate (byte-rate, request-time) or, for
  // controller mutations, the tokens left and the mutation rate; the
  // average throttle time (NaN when none was served lately).
  struct measure_metrics {
    metric_tags tags;
    double value = 0;
    double mutation_rate = 0;
    double throttle_time = 0;
  };
  std::vector<measure_metrics> metrics(int64_t now_ms);

 private:
  struct measure {
    sampled_stat rate;
    token_bucket tokens;
    sampled_stat throttle;  // Kafka's default metric window: 2 × 30 s
    int64_t last_used_ms = 0;
  };
  metric_tags tags_for(std::string_view user, std::string_view client_id) const;
  std::optional<double> limit_for(const metric_tags& tags) const;
  std::optional<double> find(const entity& e) const;
  measure& measure_for(const metric_tags& tags, int64_t now_ms);

  const kind kind_;
  const window_config config_;
  std::atomic<bool> enabled_{false};
  mutable std::mutex mutex_;
  unsigned levels_ = 0;  // which entity levels have had quotas (Kafka's QuotaTypes)
  std::map<entity, double> quotas_;
  std::map<metric_tags, measure> measures_;
  int64_t last_expiry_ms_ = 0;
};

// An IP address as the connection quotas key it (an IPv4-mapped IPv6
// address as its IPv4 form); an entity name that is no IP address stays
// as it is.
std::string ip_text(const boost::asio::ip::address& address);
std::string ip_text(std::string_view name);

// connection_creation_rate per client IP (Kafka's ConnectionQuotas): a
// connection from an IP over its rate is not served and is closed after
// the throttle (at most one window); it is not counted.
class connection_rate_quotas {
 public:
  explicit connection_rate_quotas(window_config config) : config_(config) {}
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // Rates by IP text; nullopt key: the default for every IP.
  void set_quotas(std::map<std::optional<std::string>, double> rates);
  // 0: accepted and counted; else the ms to hold the socket before closing it.
  int32_t on_connection(std::string_view ip, int64_t now_ms);

 private:
  const window_config config_;
  std::atomic<bool> enabled_{false};
  std::mutex mutex_;
  std::map<std::string, double, std::less<>> per_ip_;
  std::optional<double> default_;
  std::map<std::string, sampled_stat, std::less<>> measures_;
};

// The broker's quotas of every kind, set from the metadata image.
class client_quotas {
 public:
  explicit client_quotas(window_config config);
  client_quota_manager& of(kind k) { return managers_[static_cast<size_t>(k)]; }
  connection_rate_quotas& connections() { return connections_; }
  // From the image's table (entities of user and client-id, and ip).
  void update(const controller::client_quota_table& table);
  window_config config() const { return config_; }

 private:
  const window_config config_;
  client_quota_manager managers_[4];
  connection_rate_quotas connections_;
};

}  // namespace hw::broker::quota
