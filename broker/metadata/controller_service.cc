#include "broker/metadata/controller_service.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "broker/run_on.h"

namespace hw::broker {

controller_service::controller_service(raft_driver& driver, controller_service_options options, clock_fn now_ms)
    : driver_(driver),
      options_(std::move(options)),
      now_ms_(std::move(now_ms)),
      controller_(std::make_unique<controller::quorum_controller>(options_.controller)),
      tick_timer_(driver.strand()) {
  driver_.add_commit_listener([this](const committed_batch& b) { on_commit(b); });
  driver_.add_leader_listener([this](const controller::raft::leader_and_epoch& le) { on_leader_change(le); });
}

controller_service::~controller_service() = default;

asio::awaitable<storage::storage_error> controller_service::start() {
  if (driver_.voter_count() == 1) {
    // A quorum of one commits as soon as its log is flushed: wait for that,
    // so that the broker registers with an active controller.
    const int64_t deadline = now_ms_() + 30'000;
    asio::steady_timer pause(driver_.strand());
    for (;;) {
      bool active = co_await run_on(driver_.strand(), [this] { return active_; });
      if (active) break;
      if (now_ms_() > deadline)
        co_return storage::storage_error{std::make_error_code(std::errc::timed_out),
                                         "The controller did not become active within 30 seconds"};
      pause.expires_after(std::chrono::milliseconds(5));
      co_await pause.async_wait(asio::use_awaitable);
    }
  }
  co_await run_on(driver_.strand(), [this] { asio::co_spawn(driver_.strand(), tick_loop(), asio::detached); });
  co_return storage::storage_error{};
}

asio::awaitable<void> controller_service::stop() {
  co_await run_on(driver_.strand(), [this] {
    stopping_ = true;
    tick_timer_.cancel();
    finish_waiters(true, commit_status::not_controller);
  });
}

// An election outside the ISR and ELR (the new leader starts RECOVERING,
// KIP-704) is logged at ERROR, as Kafka's controller logs it: records the
// partition had may be lost.
void controller_service::log_unclean_elections(const std::vector<controller::metadata_record>& records) {
  const auto& image = controller_->image();
  int64_t unclean = 0;
  for (const auto& r : records) {
    const auto* change = std::get_if<protocol::msg::partition_change_record>(&r);
    if (!change || change->leader_recovery_state != static_cast<int8_t>(controller::leader_recovery_state::recovering))
      continue;
    auto topic = image.topics_by_id.find(controller::topic_id(change->topic_id));
    spdlog::error("Unclean leader election for offline partition {}-{}: broker {} leads, records only its previous "
                  "leaders had may be lost",
                  topic == image.topics_by_id.end() ? "?" : topic->second->name, change->partition_id, change->leader);
    ++unclean;
  }
  if (unclean > 0 && options_.on_unclean_elections) options_.on_unclean_elections(unclean);
}

commit_status controller_service::start_commit(std::vector<controller::metadata_record> records,
                                               std::shared_ptr<commit_waiter>* waiter, storage::offset* end) {
  if (!active_ || stopping_) return commit_status::not_controller;
  if (records.empty()) {
    if (end) *end = driver_.high_watermark();
    return commit_status::committed;
  }
  const auto mv = controller_->image().version();
  std::vector<std::vector<uint8_t>> values;
  values.reserve(records.size());
  for (const auto& r : records) values.push_back(controller::encode_record_value(r, controller::record_version_for(r, mv)));
  const size_t count = values.size();
  auto proposed = driver_.propose(std::move(values));
  if (proposed.error != controller::raft::propose_error::none) {
    spdlog::warn("The metadata quorum refused {} records (not the leader or too many uncommitted)", count);
    return proposed.error == controller::raft::propose_error::not_leader ? commit_status::not_controller
                                                                         : commit_status::failed;
  }
  // The next operation is validated against these records already.
  const storage::offset last = proposed.base_offset + static_cast<int64_t>(count - 1);
  if (auto error = controller_->replay(records, last, storage::leader_epoch(driver_.epoch())))
    spdlog::error("The controller cannot replay its own record: {}", *error);
  log_unclean_elections(records);
  const storage::offset commit_end = last + 1;
  if (end) *end = commit_end;
  if (driver_.high_watermark() >= commit_end) return commit_status::committed;  // a quorum of one
  if (!active_) return commit_status::not_controller;  // lost while proposing
  auto w = std::make_shared<commit_waiter>(driver_.strand());
  w->end = commit_end;
  w->timer.expires_after(options_.commit_timeout);
  waiters_.push_back(w);
  *waiter = std::move(w);
  return commit_status::failed;  // the waiter decides
}

void controller_service::finish_waiters(bool all, commit_status status) {
  const storage::offset hw = driver_.high_watermark();
  std::erase_if(waiters_, [&](const std::shared_ptr<commit_waiter>& w) {
    if (!all && w->end > hw) return false;
    w->status = status;
    w->timer.cancel();
    return true;
  });
}

// The driver has replayed the batch into its committed image already: a
// standby takes that image rather than replaying the records again.
void controller_service::on_commit(const committed_batch& batch) {
  // A snapshot replaces the whole committed state (start-up, or a standby
  // that fell behind the leader's log start).
  if (batch.snapshot && active_) deactivate();
  if (active_) {
    finish_waiters(false, commit_status::committed);
  } else {
    controller_->revert_to(driver_.committed_image());
  }
  maybe_activate();
}

void controller_service::on_leader_change(const controller::raft::leader_and_epoch& le) {
  if (le.leader_id.value != options_.node_id) {
    if (active_) deactivate();
    return;
  }
  maybe_activate();
}

void controller_service::maybe_activate() {
  if (active_ || stopping_ || !driver_.leading()) return;
  // Everything before this epoch's LeaderChange is committed and replayed.
  if (driver_.high_watermark() <= driver_.epoch_start_offset()) return;
  active_ = true;
  active_published_.store(true, std::memory_order_relaxed);
  controller_->revert_to(driver_.committed_image());  // without stale heartbeat sessions
  spdlog::info("Controller {} is active at epoch {} (metadata log committed up to offset {})", options_.node_id,
               driver_.epoch(), driver_.high_watermark().value);
  if (controller_->image().features.empty()) {
    // A new cluster: its first records set the feature levels.
    std::shared_ptr<commit_waiter> ignored;
    const auto& static_config = options_.controller.configuration.static_config;
    const auto& features = options_.bootstrap_features;
    const auto mv = features.count("metadata.version")
                        ? controller::metadata_version{features.at("metadata.version")}
                        : controller::latest_production_metadata_version;
    auto records = controller::feature_control::bootstrap_records(
        mv, static_config ? static_config->min_insync_replicas : 1, options_.bootstrap_scram,
        features.empty() ? nullptr : &features);
    if (start_commit(std::move(records), &ignored, nullptr) != commit_status::not_controller)
      spdlog::info("Wrote the bootstrap metadata records of a new cluster ({} SCRAM credentials) at metadata.version {}",
                   options_.bootstrap_scram.size(), mv.name());
    if (ignored) std::erase(waiters_, ignored);
  }
}

void controller_service::deactivate() {
  active_ = false;
  active_published_.store(false, std::memory_order_relaxed);
  controller_->revert_to(driver_.committed_image());
  finish_waiters(true, commit_status::not_controller);
  spdlog::info("Controller {} is no longer active; reverted to the committed metadata at offset {}",
               options_.node_id, driver_.committed_image()->provenance.offset.value);
}

asio::awaitable<void> controller_service::tick_loop() {
  while (!stopping_) {
    // Every tick_interval, and at the moment a broker's session runs out,
    // as Kafka schedules its fencing: the failover of a killed broker's
    // partitions starts at its session timeout, not up to a tick later.
    auto wait = options_.tick_interval;
    if (active_) {
      if (auto expiry = controller_->next_session_expiry_ms()) {
        wait = std::clamp(std::chrono::milliseconds(*expiry - now_ms_()), std::chrono::milliseconds(1), wait);
      }
    }
    tick_timer_.expires_after(wait);
    boost::system::error_code ec;
    co_await tick_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_) break;
    if (!active_) continue;
    auto records = controller_->tick(now_ms_());
    if (records.empty()) continue;
    std::shared_ptr<commit_waiter> ignored;
    start_commit(std::move(records), &ignored, nullptr);
    if (ignored) std::erase(waiters_, ignored);
  }
}

}  // namespace hw::broker
