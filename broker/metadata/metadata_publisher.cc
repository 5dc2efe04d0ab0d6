#include "broker/metadata/metadata_publisher.h"

#include <charconv>

#include <spdlog/spdlog.h>

#include "broker/metadata/scram_publishing.h"
#include "config/topic_configs_layers.h"
#include "config/topic_configs_values.h"
#include "controller/metadata/delta.h"
#include "storage/topic_log_config.h"

namespace hw::broker {

metadata_publisher::metadata_publisher(asio::any_io_executor executor, replica_manager& replicas,
                                       const config::broker_config& config, std::function<int64_t()> now_ms)
    : strand_(asio::make_strand(executor)),
      replicas_(replicas),
      config_(config),
      resolver_(std::make_shared<const config::broker_config>(config), replicas.self().value),
      now_ms_(std::move(now_ms)),
      image_(std::make_shared<const controller::metadata_image>()) {}

std::shared_ptr<const controller::metadata_image> metadata_publisher::image() const {
  std::lock_guard lock(mutex_);
  return image_;
}

int64_t metadata_publisher::applied_offset() const {
  std::lock_guard lock(mutex_);
  return applied_offset_;
}

void metadata_publisher::on_commit(const committed_batch& batch) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    queue_.push_back(batch);
    if (draining_) return;
    draining_ = true;
  }
  // Posted: co_spawn may start the coroutine inline, on the caller's thread.
  asio::post(strand_, [this] { asio::co_spawn(strand_, drain(), asio::detached); });
}

bool metadata_publisher::stop(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  stopped_ = true;
  return drained_.wait_for(lock, timeout, [this] { return !draining_; });
}

asio::awaitable<void> metadata_publisher::drain() {
  for (;;) {
    committed_batch batch;
    {
      std::lock_guard lock(mutex_);
      if (queue_.empty() || stopped_) {
        queue_.clear();
        draining_ = false;
        drained_.notify_all();
        co_return;
      }
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    co_await apply(batch);
  }
}

asio::awaitable<void> metadata_publisher::apply(const committed_batch& batch) {
  auto before = image();
  controller::metadata_delta delta(batch.snapshot ? std::make_shared<const controller::metadata_image>() : before);
  for (const auto& record : batch.records) {
    if (auto error = delta.replay(record)) {
      // The controller wrote it, so the broker must follow it: a record it
      // cannot apply means this broker's view is broken, not the record.
      spdlog::error("Cannot replay the metadata record at offset {} ({}): {}", batch.base_offset.value,
                    controller::record_name(record), *error);
    }
  }
  std::set<std::string> reconfigured;
  bool broker_configs_changed = false;
  for (const auto& r : delta.changed_configs()) {
    if (r.type == controller::config_resource_type::topic) reconfigured.insert(r.name);
    // The cluster-wide defaults or this broker's dynamic configs: every
    // topic's effective settings may follow them (min.insync.replicas,
    // retention, ...).
    if (r.type == controller::config_resource_type::broker &&
        (r.name.empty() || r.name == std::to_string(replicas_.self().value)))
      broker_configs_changed = true;
  }
  if (broker_configs_changed) {
    for (const auto& [name, id] : before->topics_by_name) reconfigured.insert(name);
    spdlog::info("Dynamic broker configs changed at offset {}: reconfiguring {} topic(s)", batch.last_offset().value,
                 before->topics_by_name.size());
  }
  if (batch.snapshot)
    for (const auto& [name, id] : before->topics_by_name) reconfigured.insert(name);
  auto after = delta.apply(batch.last_offset(), batch.epoch);
  // Quotas first: once a client can read a quota back, it is enforced.
  if (client_quotas_ && (delta.client_quotas_changed() || batch.snapshot)) client_quotas_->update(after->client_quotas);
  {
    std::lock_guard lock(mutex_);
    image_ = after;
  }
  if (!delta.changed_configs().empty() || batch.snapshot) update_replication_quotas(*after);
  publish_scram_credentials(delta, batch.snapshot, *after, scram_credentials_);
  if (tokens_ && (delta.delegation_tokens_changed() || batch.snapshot)) tokens_->update(after->delegation_tokens);
  if (authorizer_ && (delta.acls_changed() || batch.snapshot || !authorizer_->current()))
    authorizer_->update(after->acls);
  for (const auto& listener : image_listeners_) listener(*after);
  auto updates = partition_updates(*before, *after, reconfigured);
  if (!updates.empty()) {
    if (auto ec = co_await replicas_.apply(std::move(updates), now_ms_(), after))
      spdlog::error("Applying metadata at offset {} failed: {}", batch.last_offset().value, ec.message());
  }
  // Followers whose leader had not registered an endpoint yet.
  if (replicas_.has_unfollowed()) co_await replicas_.retry_follows(after);
  std::vector<std::shared_ptr<asio::steady_timer>> woken;
  {
    std::lock_guard lock(mutex_);
    applied_offset_ = batch.last_offset().value;
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->end <= applied_offset_ + 1) {
        woken.push_back(it->timer);
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& t : woken) t->cancel();
}

asio::awaitable<bool> metadata_publisher::wait_applied(storage::offset end, std::chrono::milliseconds timeout) {
  // The wait runs on the publisher's strand, where apply() wakes waiters:
  // registering and starting the wait cannot be split by a wake-up (which
  // was then lost, and the caller waited out its whole timeout).
  auto wait = [this, end, timeout]() -> asio::awaitable<bool> {
    auto timer = std::make_shared<asio::steady_timer>(strand_, timeout);
    {
      std::lock_guard lock(mutex_);
      if (end.value <= applied_offset_ + 1) co_return true;
      waiters_.push_back({end.value, timer});
    }
    error_code ec;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    std::lock_guard lock(mutex_);
    std::erase_if(waiters_, [&](const waiter& w) { return w.timer == timer; });
    co_return end.value <= applied_offset_ + 1;
  };
  co_return co_await asio::co_spawn(strand_, wait, asio::use_awaitable);
}

void metadata_publisher::update_replication_quotas(const controller::metadata_image& image) const {
  // The rates are per-broker dynamic configs only (kafka-configs
  // --entity-type brokers --entity-name <id>, as kafka-reassign-partitions
  // --throttle sets them; Kafka's DynamicConfig.Broker): unset, unbounded.
  const std::string self = std::to_string(replicas_.self().value);
  auto rate = [&](const char* key) -> std::optional<int64_t> {
    auto value = image.config(controller::config_resource_type::broker, self, key);
    if (!value) return std::nullopt;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), v);
    if (ec != std::errc() || end != value->data() + value->size() || v < 0) {
      spdlog::warn("Ignoring {}={} of broker {}: not a byte rate", key, *value, self);
      return std::nullopt;
    }
    if (v == INT64_MAX) return std::nullopt;
    return v;
  };
  auto throttled = [&](const char* key) {
    std::map<std::string, throttled_partitions> out;
    for (const auto& [resource, values] : image.configs) {
      if (resource.type != controller::config_resource_type::topic) continue;
      auto it = values.find(key);
      if (it != values.end()) out.emplace(resource.name, parse_throttled_replicas(it->second, replicas_.self().value));
    }
    return out;
  };
  if (leader_quota_) {
    leader_quota_->set_bound(rate("leader.replication.throttled.rate"));
    leader_quota_->set_throttled(throttled("leader.replication.throttled.replicas"));
  }
  if (follower_quota_) {
    follower_quota_->set_bound(rate("follower.replication.throttled.rate"));
    follower_quota_->set_throttled(throttled("follower.replication.throttled.replicas"));
  }
}

storage::log_config metadata_publisher::log_config_for(const controller::metadata_image& image,
                                                       const std::string& topic, leader_settings* leader,
                                                       produce_limits* limits) const {
  const config::topic_config_values values = resolver_.topic(image, topic);
  if (leader) {
    leader->min_insync_replicas = static_cast<int32_t>(values.get_int("min.insync.replicas"));
    leader->replica_lag_time_max_ms = config_.get_int("replica.lag.time.max.ms");  // read-only in Kafka
  }
  storage::log_config log = storage::make_log_config(values);
  if (limits) {
    limits->max_message_bytes = static_cast<int32_t>(values.get_int("max.message.bytes"));
    limits->timestamp_before_max_ms = values.get_int("message.timestamp.before.max.ms");
    limits->timestamp_after_max_ms = values.get_int("message.timestamp.after.max.ms");
    limits->log_append_time = log.timestamp_type == storage::message_timestamp_type::log_append_time;
    limits->compacted = log.cleanup.compact;
  }
  return log;
}

std::vector<partition_update> metadata_publisher::partition_updates(const controller::metadata_image& before,
                                                                    const controller::metadata_image& after,
                                                                    const std::set<std::string>& reconfigured) const {
  // Topics are shared between images unless a record touched them, so a
  // pointer comparison finds what changed.
  std::vector<partition_update> out;
  auto role_of = [](const controller::partition_registration& r) {
    return partition_role{r.leader, r.leader_epoch, r.partition_epoch, r.replicas, r.isr};
  };
  for (const auto& [id, topic] : after.topics_by_id) {
    auto old = before.topics_by_id.find(id);
    const controller::topic_image* previous =
        old == before.topics_by_id.end() ? nullptr : old->second.get();
    const bool reconfigure = reconfigured.count(topic->name) != 0;
    if (previous == topic.get() && !reconfigure) continue;
    leader_settings settings;
    produce_limits limits;
    const storage::log_config log_config = log_config_for(after, topic->name, &settings, &limits);
    for (const auto& [index, reg] : topic->partitions) {
      const controller::partition_registration* was = nullptr;
      if (previous) {
        auto p = previous->partitions.find(index);
        if (p != previous->partitions.end()) was = &p->second;
      }
      if (was && *was == reg && !reconfigure) continue;
      const bool here = reg.is_replica(replicas_.self()) || (was && was->is_replica(replicas_.self()));
      if (!here) continue;
      partition_update u{{topic->name, index}, id.value, role_of(reg), log_config, settings, limits, {}};
      if (after.version().directory_assignment_supported()) {
        u.directory = protocol::uuid{};  // MIGRATING, when the partition holds no dirs
        for (size_t i = 0; i < reg.replicas.size() && i < reg.directories.size(); ++i)
          if (reg.replicas[i] == replicas_.self()) u.directory = reg.directories[i];
      }
      out.push_back(std::move(u));
    }
  }
  for (const auto& [id, topic] : before.topics_by_id) {
    if (after.topics_by_id.count(id)) continue;
    for (const auto& [index, reg] : topic->partitions)
      if (reg.is_replica(replicas_.self())) out.push_back({{topic->name, index}, id.value, std::nullopt, {}});
  }
  return out;
}

}  // namespace hw::broker
