#include "broker/txn/txn_marker_sender.h"

#include <set>

#include <spdlog/spdlog.h>

#include "broker/metadata/metadata_publisher.h"
#include "broker/network/kafka_client.h"
#include "protocol/messages/write_txn_markers.h"

namespace hw::broker::txn {

using protocol::error_code;
namespace msg = protocol::msg;

namespace {

constexpr int16_t k_api_key = 27;
constexpr int16_t k_api_version = 2;

// Answers after which the marker is as good as written, or the partition
// no longer needs one.
bool settles(error_code e) { return e == error_code::none; }

// Answers that mean a newer coordinator or producer epoch owns the
// partition's transaction: this job is over.
bool fenced(error_code e) {
  return e == error_code::transaction_coordinator_fenced || e == error_code::invalid_producer_epoch ||
         e == error_code::producer_fenced;
}

}  // namespace

txn_marker_sender::txn_marker_sender(asio::any_io_executor executor, metadata_publisher& metadata,
                                     marker_sender_options options, wanted_fn wanted)
    : strand_(asio::make_strand(executor)), metadata_(metadata), options_(std::move(options)),
      wanted_(std::move(wanted)),
      clients_(strand_, "broker-" + std::to_string(options_.self) + "-txn-marker-sender", options_.security) {}

txn_marker_sender::~txn_marker_sender() = default;

void txn_marker_sender::write(marker_job job, std::function<void()> done) {
  asio::co_spawn(strand_, run(std::move(job), std::move(done)), asio::detached);
}

void txn_marker_sender::stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    clients_.close_all();
  });
}

asio::awaitable<void> txn_marker_sender::run(marker_job job, std::function<void()> done) {
  txn_partitions left = job.partitions;
  asio::steady_timer backoff(strand_);
  for (;;) {
    if (stopped_ || !wanted_(job)) co_return;
    auto image = metadata_.image();
    // Partitions by their leader's endpoint; gone topics are done.
    std::map<storage::node_id, std::vector<txn_topic_partition>> by_leader;
    for (auto it = left.begin(); it != left.end();) {
      const auto* reg = image->partition(it->first, it->second);
      if (!image->topic(it->first) || !reg) {
        spdlog::info("Transaction {}: {}-{} is gone; no marker needed there", job.transactional_id, it->first,
                     it->second);
        it = left.erase(it);
        continue;
      }
      if (reg->has_leader()) by_leader[reg->leader].push_back(*it);
      ++it;
    }
    if (left.empty()) break;
    for (auto& [leader, partitions] : by_leader) {
      const auto* broker = image->broker(leader);
      const auto* endpoint = broker ? broker->endpoint(options_.listener) : nullptr;
      if (!endpoint) continue;
      msg::write_txn_markers_request request;
      auto& marker = request.markers.emplace_back();
      marker.producer_id = job.producer_id;
      marker.producer_epoch = job.producer_epoch;
      marker.transaction_result = job.commit;
      marker.coordinator_epoch = job.coordinator_epoch;
      marker.transaction_version = static_cast<int8_t>(job.transaction_version);
      std::map<std::string, std::vector<int32_t>> by_topic;
      for (const auto& [topic, p] : partitions) by_topic[topic].push_back(p);
      for (auto& [topic, ids] : by_topic) {
        auto& t = marker.topics.emplace_back();
        t.name = topic;
        t.partition_indexes = std::move(ids);
      }
      auto client = clients_.get(leader.value, endpoint->host, endpoint->port);
      auto outcome = co_await client->call<msg::write_txn_markers_response>(k_api_key, k_api_version, request,
                                                                            options_.request_timeout);
      if (stopped_) co_return;
      if (outcome.error) {
        spdlog::debug("Transaction {}: markers to broker {} failed: {}", job.transactional_id, leader.value,
                      outcome.error.message());
        continue;
      }
      for (const auto& m : outcome.response.markers) {
        for (const auto& t : m.topics) {
          for (const auto& p : t.partitions) {
            const auto e = static_cast<error_code>(p.error_code);
            if (settles(e)) {
              left.erase({t.name, p.partition_index});
            } else if (fenced(e)) {
              spdlog::warn("Transaction {}: the marker for {}-{} was refused ({}); a newer coordinator or producer "
                           "epoch owns it, so this coordinator stops writing its markers",
                           job.transactional_id, t.name, p.partition_index, protocol::error_name(e));
              co_return;
            } else {
              spdlog::debug("Transaction {}: the marker for {}-{} failed ({}); retrying", job.transactional_id,
                            t.name, p.partition_index, protocol::error_name(e));
            }
          }
        }
      }
    }
    if (left.empty()) break;
    backoff.expires_after(options_.retry_backoff);
    co_await backoff.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  done();
}

}  // namespace hw::broker::txn
