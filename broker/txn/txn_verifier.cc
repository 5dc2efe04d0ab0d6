#include "broker/txn/txn_verifier.h"

#include <spdlog/spdlog.h>

#include "broker/metadata/metadata_publisher.h"
#include "broker/network/kafka_client.h"
#include "broker/txn/txn_coordinator.h"
#include "broker/txn/txn_partition.h"
#include "protocol/messages/add_partitions_to_txn.h"

namespace hw::broker::txn {

using protocol::error_code;
namespace msg = protocol::msg;

namespace {

constexpr int16_t k_api_key = 24;
// The batched broker form with VerifyOnly per transaction.
constexpr int16_t k_api_version = 5;

verify_errors all_of(const txn_partitions& partitions, error_code e) {
  verify_errors out;
  for (const auto& tp : partitions) out[tp] = e;
  return out;
}

}  // namespace

txn_verifier::txn_verifier(asio::any_io_executor executor, metadata_publisher& metadata, verifier_options options)
    : strand_(asio::make_strand(executor)),
      metadata_(metadata),
      options_(std::move(options)),
      clients_(strand_, "broker-" + std::to_string(options_.self) + "-txn-verifier", options_.security) {}

txn_verifier::~txn_verifier() = default;

void txn_verifier::stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    clients_.close_all();
  });
}

asio::awaitable<verify_errors> txn_verifier::verify(verify_request request) {
  co_return co_await asio::co_spawn(strand_, run(std::move(request)), asio::use_awaitable);
}

asio::awaitable<bool> txn_verifier::wait_to_retry(const verify_request& request, const verify_errors& errors,
                                                  std::chrono::steady_clock::time_point started) const {
  if (request.operation != verify_operation::add_partition) co_return false;
  bool concurrent = false;
  for (const auto& [tp, e] : errors) concurrent = concurrent || e == error_code::concurrent_transactions;
  const auto next = std::chrono::steady_clock::now() - started + options_.add_retry_backoff;
  if (!concurrent || next > options_.add_retry_backoff_max || next > options_.request_timeout) co_return false;
  asio::steady_timer backoff(co_await asio::this_coro::executor, options_.add_retry_backoff);
  co_await backoff.async_wait(asio::use_awaitable);
  co_return true;
}

asio::awaitable<verify_errors> txn_verifier::run(verify_request request) {
  if (stopped_) co_return all_of(request.partitions, error_code::network_exception);
  // The coordinator is the leader of the id's __transaction_state partition.
  auto image = metadata_.image();
  const int32_t index = txn_partition(request.transactional_id, options_.num_txn_partitions);
  const auto* reg = image->partition(std::string(transaction_state_topic), index);
  const auto* broker = reg && reg->has_leader() ? image->broker(reg->leader) : nullptr;
  const auto* endpoint = broker ? broker->endpoint(options_.listener) : nullptr;
  if (!endpoint) co_return all_of(request.partitions, error_code::coordinator_not_available);

  msg::add_partitions_to_txn_request out;
  auto& txn = out.transactions.emplace_back();
  txn.transactional_id = request.transactional_id;
  txn.producer_id = request.producer_id;
  txn.producer_epoch = request.producer_epoch;
  txn.verify_only = request.operation != verify_operation::add_partition;
  for (const auto& [topic, partition] : request.partitions) {
    if (txn.topics.empty() || txn.topics.back().name != topic) {
      txn.topics.emplace_back();
      txn.topics.back().name = topic;
    }
    txn.topics.back().partitions.push_back(partition);
  }
  auto client = clients_.get(reg->leader.value, endpoint->host, endpoint->port);
  auto outcome =
      co_await client->call<msg::add_partitions_to_txn_response>(k_api_key, k_api_version, out, options_.request_timeout);
  if (outcome.error) {
    spdlog::debug("Verifying {}'s transaction with broker {}: {}", request.transactional_id, reg->leader.value,
                  outcome.error.message());
    co_return all_of(request.partitions, error_code::network_exception);
  }
  const auto& response = outcome.response;
  if (response.error_code != 0) {
    auto e = static_cast<error_code>(response.error_code);
    // The client must not see the inter-broker authorization failure.
    if (e == error_code::cluster_authorization_failed) e = error_code::invalid_txn_state;
    co_return all_of(request.partitions, e);
  }
  verify_errors errors;
  for (const auto& result : response.results_by_transaction) {
    if (result.transactional_id != request.transactional_id) continue;
    for (const auto& topic : result.topic_results) {
      for (const auto& p : topic.results_by_partition) {
        auto e = static_cast<error_code>(p.partition_error_code);
        if (e == error_code::none) continue;
        if (e == error_code::producer_fenced) e = error_code::invalid_producer_epoch;
        if (e == error_code::transaction_abortable && request.operation == verify_operation::verify_old_client)
          e = error_code::invalid_txn_state;
        errors[{topic.name, p.partition_index}] = e;
      }
    }
  }
  co_return errors;
}

}  // namespace hw::broker::txn
