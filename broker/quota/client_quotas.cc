#include "broker/quota/client_quotas.h"

#include <algorithm>
#include <cmath>

namespace hw::broker::quota {

namespace {

// Kafka's QuotaTypes: which levels of entity have had quotas.
constexpr unsigned client_id_level = 1;
constexpr unsigned user_level = 2;
constexpr unsigned user_client_id_level = 4;

// Measures unused this long are dropped (Kafka's inactive sensor expiry).
constexpr int64_t measure_expiry_ms = 3'600'000;

// The throttle-time average's windows: Kafka's default metric config
// (metrics.num.samples, metrics.sample.window.ms).
constexpr window_config throttle_windows{2, 30'000};

entity named_user(std::string_view user) { return {entity::part::named, std::string(user), entity::part::none, {}}; }

}  // namespace

std::string_view config_key(kind k) {
  switch (k) {
    case kind::produce: return "producer_byte_rate";
    case kind::fetch: return "consumer_byte_rate";
    case kind::request: return "request_percentage";
    case kind::controller_mutation: return "controller_mutation_rate";
  }
  return "";
}

std::string_view metric_group(kind k) {
  switch (k) {
    case kind::produce: return "Produce";
    case kind::fetch: return "Fetch";
    case kind::request: return "Request";
    case kind::controller_mutation: return "ControllerMutation";
  }
  return "";
}

client_quota_manager::client_quota_manager(kind k, window_config config) : kind_(k), config_(config) {}

void client_quota_manager::set_quotas(std::map<entity, double> quotas) {
  std::lock_guard lock(mutex_);
  for (const auto& [e, value] : quotas) {
    if (e.user != entity::part::none)
      levels_ |= e.client != entity::part::none ? user_client_id_level : user_level;
    else if (e.client != entity::part::none)
      levels_ |= client_id_level;
  }
  quotas_ = std::move(quotas);
  if (levels_ != 0) enabled_.store(true, std::memory_order_relaxed);
}

std::optional<double> client_quota_manager::find(const entity& e) const {
  auto it = quotas_.find(e);
  if (it == quotas_.end()) return std::nullopt;
  return it->second;
}

metric_tags client_quota_manager::tags_for(std::string_view user, std::string_view client_id) const {
  switch (levels_) {
    case 0:
    case client_id_level: return {"", std::string(client_id)};
    case user_level: return {std::string(user), ""};
    case user_client_id_level: return {std::string(user), std::string(client_id)};
    default: break;
  }
  using p = entity::part;
  const std::string u(user), c(client_id);
  // The first entity of Kafka's order that has a quota decides the tags.
  if (find({p::named, u, p::named, c}) || find({p::named, u, p::fallback, {}})) return {u, c};
  if (find({p::named, u, p::none, {}})) return {u, ""};
  if (find({p::fallback, {}, p::named, c}) || find({p::fallback, {}, p::fallback, {}})) return {u, c};
  if (find({p::fallback, {}, p::none, {}})) return {u, ""};
  return {"", c};
}

std::optional<double> client_quota_manager::limit_for(const metric_tags& tags) const {
  using p = entity::part;
  const std::string& u = tags.user;
  const std::string& c = tags.client_id;
  std::optional<double> found;
  if (!u.empty() && !c.empty()) {
    for (const entity& e : {entity{p::named, u, p::named, c}, entity{p::named, u, p::fallback, {}},
                            entity{p::fallback, {}, p::named, c}, entity{p::fallback, {}, p::fallback, {}}})
      if ((found = find(e))) return found;
  } else if (!u.empty()) {
    if ((found = find(named_user(u)))) return found;
    return find({p::fallback, {}, p::none, {}});
  } else if (!c.empty()) {
    if ((found = find({p::none, {}, p::named, c}))) return found;
    return find({p::none, {}, p::fallback, {}});
  }
  return std::nullopt;
}

client_quota_manager::measure& client_quota_manager::measure_for(const metric_tags& tags, int64_t now_ms) {
  if (now_ms - last_expiry_ms_ >= 60'000) {
    last_expiry_ms_ = now_ms;
    std::erase_if(measures_, [&](const auto& m) { return now_ms - m.second.last_used_ms >= measure_expiry_ms; });
  }
  measure& m = measures_[tags];
  m.last_used_ms = now_ms;
  return m;
}

int32_t client_quota_manager::record(std::string_view user, std::string_view client_id, double value,
                                     int64_t now_ms) {
  if (!enabled()) return 0;
  std::lock_guard lock(mutex_);
  const metric_tags tags = tags_for(user, client_id);
  measure& m = measure_for(tags, now_ms);
  m.rate.record(config_, value, now_ms);
  const std::optional<double> bound = limit_for(tags);
  if (!bound) return 0;
  const double rate = m.rate.rate(config_, now_ms);
  if (rate <= *bound) return 0;
  // Kafka's QuotaUtils.throttleTime: over the span the rate was measured on.
  const double span = static_cast<double>(m.rate.window_size(config_, now_ms));
  double throttle = std::round((rate - *bound) / *bound * span);
  if (kind_ == kind::request) throttle = std::min(throttle, static_cast<double>(config_.window_ms));
  return static_cast<int32_t>(std::clamp(throttle, 0.0, static_cast<double>(INT32_MAX)));
}

void client_quota_manager::unrecord(std::string_view user, std::string_view client_id, double value,
                                    int64_t now_ms) {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  measure_for(tags_for(user, client_id), now_ms).rate.record(config_, -value, now_ms);
}

void client_quota_manager::record_throttle(std::string_view user, std::string_view client_id, int32_t throttle_ms,
                                           int64_t now_ms) {
  if (!enabled() || throttle_ms <= 0) return;
  std::lock_guard lock(mutex_);
  measure_for(tags_for(user, client_id), now_ms).throttle.record(throttle_windows, throttle_ms, now_ms);
}

std::optional<double> client_quota_manager::max_value_in_window(std::string_view user, std::string_view client_id) {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mutex_);
  const std::optional<double> bound = limit_for(tags_for(user, client_id));
  if (!bound) return std::nullopt;
  return *bound * static_cast<double>(config_.samples - 1) * static_cast<double>(config_.window_ms) / 1000.0;
}

client_quota_manager::mutation_outcome client_quota_manager::record_mutation(std::string_view user,
                                                                             std::string_view client_id,
                                                                             double permits, bool strict,
                                                                             int64_t now_ms) {
  if (!enabled()) return {};
  std::lock_guard lock(mutex_);
  const metric_tags tags = tags_for(user, client_id);
  measure& m = measure_for(tags, now_ms);
  const std::optional<double> bound = limit_for(tags);
  auto throttle = [&](double tokens) {
    // Kafka's ControllerMutationQuotaManager.throttleTimeMs: the time the
    // bucket needs to pay its debt back.
    return static_cast<int32_t>(std::clamp(std::round(-tokens / *bound * 1000.0), 0.0, double(INT32_MAX)));
  };
  if (bound && *bound > 0 && strict) {
    const double tokens = m.tokens.tokens(config_, *bound, now_ms);
    if (tokens < 0) return {true, throttle(tokens)};
  }
  m.rate.record(config_, permits, now_ms);
  if (!bound || *bound <= 0) return {};
  m.tokens.record(config_, *bound, permits, now_ms);
  if (strict) return {};
  const double tokens = m.tokens.tokens(config_, *bound, now_ms);
  return {false, tokens < 0 ? throttle(tokens) : 0};
}

std::vector<client_quota_manager::measure_metrics> client_quota_manager::metrics(int64_t now_ms) {
  std::vector<measure_metrics> out;
  if (!enabled()) return out;
  std::lock_guard lock(mutex_);
  out.reserve(measures_.size());
  for (auto& [tags, m] : measures_) {
    measure_metrics row;
    row.tags = tags;
    row.throttle_time = m.throttle.average(throttle_windows, now_ms);
    if (kind_ == kind::controller_mutation) {
      const std::optional<double> bound = limit_for(tags);
      row.value = bound ? m.tokens.tokens(config_, *bound, now_ms) : static_cast<double>(INT64_MAX);
      row.mutation_rate = m.rate.rate(config_, now_ms);
    } else {
      row.value = m.rate.rate(config_, now_ms);
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::string ip_text(const boost::asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()).to_string();
  return address.to_string();
}

std::string ip_text(std::string_view name) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(name), ec);
  return ec ? std::string(name) : ip_text(address);
}

void connection_rate_quotas::set_quotas(std::map<std::optional<std::string>, double> rates) {
  std::lock_guard lock(mutex_);
  per_ip_.clear();
  default_.reset();
  for (auto& [ip, rate] : rates) {
    if (ip) per_ip_[ip_text(*ip)] = rate;
    else default_ = rate;
  }
  enabled_.store(default_.has_value() || !per_ip_.empty(), std::memory_order_relaxed);
}

int32_t connection_rate_quotas::on_connection(std::string_view ip, int64_t now_ms) {
  if (!enabled()) return 0;
  std::lock_guard lock(mutex_);
  std::optional<double> bound = default_;
  if (auto it = per_ip_.find(ip); it != per_ip_.end()) bound = it->second;
  // Kafka keeps the rate as an int; its default (Int.MaxValue) is no quota.
  if (!bound || *bound >= static_cast<double>(INT32_MAX)) return 0;
  const double limit = std::floor(*bound);
  auto it = measures_.find(ip);
  if (it == measures_.end()) it = measures_.emplace(std::string(ip), sampled_stat{}).first;
  sampled_stat& rate = it->second;
  rate.record(config_, 1.0, now_ms);
  const double measured = rate.rate(config_, now_ms);
  if (measured <= limit) return 0;
  const double span = static_cast<double>(rate.window_size(config_, now_ms));
  const double throttle =
      limit <= 0 ? static_cast<double>(config_.window_ms)
                 : std::min(std::round((measured - limit) / limit * span), static_cast<double>(config_.window_ms));
  // A refused connection is not counted.
  rate.record(config_, -1.0, now_ms);
  return static_cast<int32_t>(std::max(throttle, 1.0));
}

client_quotas::client_quotas(window_config config)
    : config_(config),
      managers_{client_quota_manager(kind::produce, config), client_quota_manager(kind::fetch, config),
                client_quota_manager(kind::request, config), client_quota_manager(kind::controller_mutation, config)},
      connections_(config) {}

void client_quotas::update(const controller::client_quota_table& table) {
  std::map<entity, double> by_kind[4];
  std::map<std::optional<std::string>, double> ip_rates;
  for (const auto& [e, values] : table) {
    if (auto ip = e.find(std::string(controller::quota_ip)); ip != e.end()) {
      if (auto v = values.find("connection_creation_rate"); v != values.end()) ip_rates[ip->second] = v->second;
      continue;
    }
    entity key;
    if (auto u = e.find(std::string(controller::quota_user)); u != e.end()) {
      key.user = u->second ? entity::part::named : entity::part::fallback;
      key.user_name = u->second.value_or("");
    }
    if (auto c = e.find(std::string(controller::quota_client_id)); c != e.end()) {
      key.client = c->second ? entity::part::named : entity::part::fallback;
      key.client_name = c->second.value_or("");
    }
    if (key.user == entity::part::none && key.client == entity::part::none) continue;
    for (size_t k = 0; k < 4; ++k)
      if (auto v = values.find(std::string(config_key(static_cast<kind>(k)))); v != values.end())
        by_kind[k][key] = v->second;
  }
  for (size_t k = 0; k < 4; ++k) managers_[k].set_quotas(std::move(by_kind[k]));
  connections_.set_quotas(std::move(ip_rates));
}

}  // namespace hw::broker::quota
