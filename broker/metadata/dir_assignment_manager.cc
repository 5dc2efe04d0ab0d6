#include "broker/metadata/dir_assignment_manager.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "broker/metadata/controller_call.h"
#include "controller/quorum_controller.h"
#include "protocol/messages/assign_replicas_to_dirs.h"

namespace hw::broker {

namespace {
constexpr int16_t assign_key = 73;
constexpr int16_t assign_version = 0;
constexpr size_t max_per_request = 2250;  // Kafka's MAX_ASSIGNMENTS_PER_REQUEST
constexpr auto first_backoff = std::chrono::milliseconds(100);
constexpr auto max_backoff = std::chrono::seconds(10);
}  // namespace

dir_assignment_manager::dir_assignment_manager(asio::any_io_executor executor, const broker_services& services,
                                               std::function<int64_t()> broker_epoch)
    : strand_(asio::make_strand(executor)),
      services_(services),
      broker_epoch_(std::move(broker_epoch)),
      pause_(strand_) {}

void dir_assignment_manager::submit(const protocol::uuid& topic_id, int32_t partition, const protocol::uuid& dir) {
  asio::post(strand_, [this, k = key{topic_id, partition}, dir] {
    if (stopped_) return;
    queue_[k] = dir;
    if (!sending_) {
      sending_ = true;
      asio::co_spawn(strand_, send_all(), asio::detached);
    }
  });
}

void dir_assignment_manager::stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    queue_.clear();
    pause_.cancel();
  });
}

bool dir_assignment_manager::still_needed(const key& k, const protocol::uuid& dir) const {
  if (!services_.metadata) return true;
  const auto image = services_.metadata->image();
  const controller::partition_registration* p = image->partition(controller::topic_id(k.first), k.second);
  if (!p) return false;  // the topic or partition is gone
  const node_id self(services_.node_id);
  for (size_t i = 0; i < p->replicas.size(); ++i) {
    if (p->replicas[i] != self) continue;
    return i >= p->directories.size() || p->directories[i] != dir;
  }
  return false;  // no longer a replica here
}

asio::awaitable<void> dir_assignment_manager::send_all() {
  auto backoff = std::chrono::milliseconds(first_backoff);
  while (!queue_.empty() && !stopped_) {
    std::map<key, protocol::uuid> batch;
    for (auto it = queue_.begin(); it != queue_.end() && batch.size() < max_per_request;) {
      if (still_needed(it->first, it->second)) batch.insert(*it);
      it = queue_.erase(it);
    }
    if (batch.empty()) continue;

    protocol::msg::assign_replicas_to_dirs_request request;
    request.broker_id = services_.node_id;
    request.broker_epoch = broker_epoch_();
    std::map<protocol::uuid, std::map<protocol::uuid, std::vector<int32_t>>> by_dir;
    for (const auto& [k, dir] : batch) by_dir[dir][k.first].push_back(k.second);
    for (const auto& [dir, topics] : by_dir) {
      auto& d = request.directories.emplace_back();
      d.id = dir;
      for (const auto& [topic, partitions] : topics) {
        auto& t = d.topics.emplace_back();
        t.topic_id = topic;
        for (int32_t p : partitions) t.partitions.push_back({p, {}});
      }
    }
    auto response = co_await call_active_controller<protocol::msg::assign_replicas_to_dirs_response>(
        services_, true, assign_key, assign_version, request,
        [&](controller::quorum_controller& qc, int64_t, storage::offset) { return qc.assign_replicas_to_dirs(request); },
        nullptr, std::chrono::seconds(10));
    if (stopped_) co_return;

    std::map<key, protocol::uuid> retry;
    const size_t sent = batch.size();
    if (response.error_code != 0) {
      spdlog::warn("AssignReplicasToDirs for {} replicas failed: {}; retrying", batch.size(),
                   protocol::error_name(static_cast<protocol::error_code>(response.error_code)));
      retry = std::move(batch);
    } else {
      for (const auto& d : response.directories) {
        for (const auto& t : d.topics) {
          for (const auto& p : t.partitions) {
            auto it = batch.find(key{t.topic_id, p.partition_index});
            if (it == batch.end() || it->second != d.id) continue;
            if (p.error_code != 0) {
              spdlog::warn("Assigning partition {} of topic id {} to log dir {} failed: {}", p.partition_index,
                           t.topic_id.to_string(), d.id.to_string(),
                           protocol::error_name(static_cast<protocol::error_code>(p.error_code)));
              retry.insert(*it);
            }
            batch.erase(it);
          }
        }
      }
      retry.insert(batch.begin(), batch.end());  // left out of the answer
      if (retry.size() < sent)
        spdlog::info("The controller recorded the log dirs of {} replicas", sent - retry.size());
    }
    for (auto& [k, dir] : retry) queue_.try_emplace(k, dir);  // a newer assignment wins
    if (retry.empty()) {
      backoff = first_backoff;
      continue;
    }
    pause_.expires_after(backoff);
    boost::system::error_code ignored;
    co_await pause_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, max_backoff);
  }
  sending_ = false;
}

}  // namespace hw::broker
