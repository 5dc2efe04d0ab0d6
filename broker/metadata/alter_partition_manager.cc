#include "broker/metadata/alter_partition_manager.h"

#include <utility>

#include <spdlog/spdlog.h>

#include "broker/metadata/controller_call.h"
#include "broker/metrics/broker_metrics.h"
#include "broker/run_on.h"
#include "controller/quorum_controller.h"
#include "protocol/messages/alter_partition.h"

namespace hw::broker {

namespace {
constexpr int16_t alter_partition_key = 56;
constexpr int16_t alter_partition_version = 3;
}  // namespace

alter_partition_manager::alter_partition_manager(asio::any_io_executor executor, const broker_services& services,
                                                 std::function<int64_t()> broker_epoch,
                                                 std::chrono::milliseconds retry_backoff)
    : strand_(asio::make_strand(executor)),
      services_(services),
      broker_epoch_(std::move(broker_epoch)),
      retry_backoff_(retry_backoff) {}

void alter_partition_manager::submit(std::shared_ptr<partition> p, isr_change change) {
  asio::post(strand_, [this, p = std::move(p), change = std::move(change)]() mutable {
    if (stopped_) return;
    const storage::topic_partition tp = p->tp();
    queue_[tp] = queued{std::move(p), std::move(change)};
    if (!sending_) {
      sending_ = true;
      asio::co_spawn(strand_, send_all(), asio::detached);
    }
  });
}

void alter_partition_manager::stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    queue_.clear();
    if (expiration_timer_) expiration_timer_->cancel();
  });
}

void alter_partition_manager::start_isr_expiration(replica_manager& replicas, std::chrono::milliseconds interval) {
  asio::post(strand_, [this, &replicas, interval] {
    if (stopped_ || expiration_timer_) return;
    expiration_timer_ = std::make_unique<asio::steady_timer>(strand_);
    asio::co_spawn(strand_, expire_isr(replicas, interval), asio::detached);
  });
}

asio::awaitable<void> alter_partition_manager::expire_isr(replica_manager& replicas,
                                                          std::chrono::milliseconds interval) {
  while (!stopped_) {
    expiration_timer_->expires_after(interval);
    boost::system::error_code ec;
    co_await expiration_timer_->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopped_) break;
    for (auto& p : replicas.all()) {
      if (!p->is_leader()) continue;
      const int64_t now = services_.now_ms();
      auto change = co_await run_on(p->strand(), [&] { return p->maybe_shrink_isr(now); });
      if (change) submit(p, std::move(*change));
    }
  }
}

// As Kafka's leader marks them: a committed change as a shrink or an
// expansion, every refusal as a failed update.
void alter_partition_manager::count(isr_change::kind what, protocol::error_code error, alter_outcome outcome) const {
  if (!services_.metrics) return;
  using update = metrics::broker_metrics::isr_update;
  if (error != protocol::error_code::none) {
    services_.metrics->on_isr_update(update::failed);
  } else if (outcome == alter_outcome::committed || outcome == alter_outcome::published) {
    services_.metrics->on_isr_update(what == isr_change::kind::shrink ? update::shrunk : update::expanded);
  }
}

asio::awaitable<void> alter_partition_manager::send_all() {
  asio::steady_timer pause(strand_);
  while (!queue_.empty() && !stopped_) {
    std::map<storage::topic_partition, queued> batch;
    batch.swap(queue_);

    protocol::msg::alter_partition_request request;
    request.broker_id = services_.node_id;
    request.broker_epoch = broker_epoch_();
    std::map<protocol::uuid, size_t> topic_index;
    for (const auto& [tp, q] : batch) {
      auto [it, added] = topic_index.emplace(q.part->topic_id(), request.topics.size());
      if (added) request.topics.emplace_back().topic_id = q.part->topic_id();
      auto& pd = request.topics[it->second].partitions.emplace_back();
      pd.partition_index = tp.partition;
      pd.leader_epoch = q.change.leader_epoch.value;
      pd.partition_epoch = q.change.partition_epoch.value;
      for (size_t i = 0; i < q.change.isr.size(); ++i)
        pd.new_isr_with_epochs.push_back({q.change.isr[i].value, q.change.broker_epochs[i].value, {}});
    }
    auto response = co_await call_active_controller<protocol::msg::alter_partition_response>(
        services_, true, alter_partition_key, alter_partition_version, request,
        [&](controller::quorum_controller& qc, int64_t, storage::offset) {
          return qc.alter_partition(request, alter_partition_version);
        },
        nullptr, std::chrono::seconds(10));
    if (stopped_) co_return;

    std::map<storage::topic_partition, queued> retry;
    if (response.error_code != 0) {
      // The request as a whole (no controller, a stale broker epoch): all
      // of it again after a pause, unless newer changes replaced them.
      spdlog::warn("AlterPartition to the controller failed: {}; retrying",
                   protocol::error_name(static_cast<protocol::error_code>(response.error_code)));
      retry = std::move(batch);
    } else {
      std::map<std::pair<protocol::uuid, int32_t>, storage::topic_partition> by_id;
      for (const auto& [tp, q] : batch) by_id.emplace(std::make_pair(q.part->topic_id(), tp.partition), tp);
      for (const auto& topic : response.topics) {
        for (const auto& pr : topic.partitions) {
          auto named = by_id.find(std::make_pair(topic.topic_id, pr.partition_index));
          if (named == by_id.end()) continue;
          auto it = batch.find(named->second);
          if (it == batch.end()) continue;
          alter_partition_answer answer;
          answer.error = static_cast<protocol::error_code>(pr.error_code);
          answer.leader_epoch = storage::leader_epoch(pr.leader_epoch);
          answer.partition_epoch = partition_epoch(pr.partition_epoch);
          answer.isr = storage::named_list<node_id>(pr.isr);
          auto part = it->second.part;
          const uint64_t id = it->second.change.id;
          const int64_t now = services_.now_ms();
          const alter_outcome outcome =
              co_await run_on(part->strand(), [&] { return part->on_alter_partition_answer(id, answer, now); });
          count(it->second.change.what, answer.error, outcome);
          if (outcome == alter_outcome::retry) retry.emplace(it->first, it->second);
          batch.erase(it);
        }
      }
      // Partitions the answer left out are sent again.
      for (auto& e : batch) retry.emplace(e.first, std::move(e.second));
    }
    for (auto& [tp, q] : retry) queue_.try_emplace(tp, std::move(q));  // a newer change wins
    if (!retry.empty()) {
      pause.expires_after(retry_backoff_);
      boost::system::error_code ignored;
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
  }
  sending_ = false;
}

}  // namespace hw::broker
