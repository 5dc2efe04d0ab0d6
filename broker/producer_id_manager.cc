#include "broker/producer_id_manager.h"

#include <cassert>

#include "broker/metadata/controller_call.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "protocol/messages/allocate_producer_ids.h"

namespace hw::broker {

using perr = protocol::error_code;

void producer_id_pool::add(producer_id_block block) {
  assert(block.size >= 0 && block.first >= 0);
  if (block.size > 0) blocks_.push_back(block);
}

std::optional<int64_t> producer_id_pool::take() {
  if (blocks_.empty()) return std::nullopt;
  producer_id_block& b = blocks_.front();
  const int64_t id = b.first;
  ++b.first;
  if (--b.size == 0) blocks_.pop_front();
  return id;
}

int64_t producer_id_pool::remaining() const {
  int64_t n = 0;
  for (const auto& b : blocks_) n += b.size;
  return n;
}

std::optional<int64_t> producer_id_manager::take() {
  std::lock_guard lock(mutex_);
  return pool_.take();
}

asio::awaitable<producer_id_result> producer_id_manager::next_id() {
  if (auto id = take()) co_return producer_id_result{perr::none, *id};
  producer_id_fetch_result fetched = co_await fetch_();
  if (fetched.error != perr::none || fetched.block.size <= 0)
    co_return producer_id_result{perr::coordinator_load_in_progress, -1};
  {
    std::lock_guard lock(mutex_);
    pool_.add(fetched.block);
  }
  // Another caller may have drained the new block already: then the next
  // request fetches again rather than this one looping.
  if (auto id = take()) co_return producer_id_result{perr::none, *id};
  co_return producer_id_result{perr::coordinator_load_in_progress, -1};
}

producer_id_manager::fetch_fn controller_block_fetcher(const broker_services& services) {
  return [&services]() -> asio::awaitable<producer_id_fetch_result> {
    if (!services.controller && !services.raft) co_return producer_id_fetch_result{perr::coordinator_not_available, {}};
    protocol::msg::allocate_producer_ids_request request;
    request.broker_id = services.node_id;
    const auto image = services.metadata->image();  // held while its registration is read
    const auto* self = image->broker(storage::node_id(services.node_id));
    request.broker_epoch = self ? self->epoch.value : -1;
    auto response = co_await call_active_controller<protocol::msg::allocate_producer_ids_response>(
        services, true, 67, 0, request,
        [&](controller::quorum_controller& qc, int64_t, storage::offset) { return qc.allocate_producer_ids(request); });
    if (response.error_code != 0) co_return producer_id_fetch_result{static_cast<perr>(response.error_code), {}};
    co_return producer_id_fetch_result{perr::none, {response.producer_id_start, response.producer_id_len}};
  };
}

}  // namespace hw::broker
