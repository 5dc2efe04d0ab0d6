#pragma once
// Producer ids for idempotent producers (InitProducerId without a
// transactional id), handed out from blocks the controller allocates
// (AllocateProducerIds: 1000 ids per block, each block recorded in the
// metadata log, so no id is ever given twice across restarts).
//
// Ownership and threads: owned by main, shared by every connection. The
// pool of unused ids is a leaf structure under a mutex; fetching a block
// happens outside it. Two handlers that find the pool empty at once may
// both fetch a block: both blocks join the pool and no id is lost or
// repeated, which is simpler than making one wait for the other.

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

#include "broker/asio.h"
#include "protocol/error_code.h"

namespace hw::broker {

struct broker_services;

struct producer_id_block {
  int64_t first = 0;
  int32_t size = 0;
};

// Unused ids, from the blocks in the order they came. Pure; not
// thread-safe.
class producer_id_pool {
 public:
  void add(producer_id_block block);
  std::optional<int64_t> take();
  int64_t remaining() const;

 private:
  std::deque<producer_id_block> blocks_;
};

struct producer_id_result {
  protocol::error_code error = protocol::error_code::none;
  int64_t id = -1;
};

// A new block, or the error that kept the controller from giving one.
struct producer_id_fetch_result {
  protocol::error_code error = protocol::error_code::none;
  producer_id_block block;
};

class producer_id_manager {
 public:
  using fetch_fn = std::function<asio::awaitable<producer_id_fetch_result>()>;

  explicit producer_id_manager(fetch_fn fetch) : fetch_(std::move(fetch)) {}

  // The next unused id; fetches a block when none is left. On a failed
  // fetch answers COORDINATOR_LOAD_IN_PROGRESS, which producers retry (as
  // Kafka's RPCProducerIdManager does while a block is on its way).
  asio::awaitable<producer_id_result> next_id();

 private:
  std::optional<int64_t> take();

  fetch_fn fetch_;
  std::mutex mutex_;  // leaf: the pool
  producer_id_pool pool_;
};

// Fetches blocks from the controller in this process, as this broker at its
// registered epoch (from the metadata image).
producer_id_manager::fetch_fn controller_block_fetcher(const broker_services& services);

}  // namespace hw::broker
