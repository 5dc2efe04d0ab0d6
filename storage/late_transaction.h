#pragma once
// When a partition's open transaction counts as late for the metric
// kafka.server:type=ReplicaManager,name=PartitionsWithLateTransactionsCount
// (KIP-664): the oldest open transaction's producer has written nothing for
// longer than the longest transaction timeout a coordinator allows plus a
// five minute buffer. Its input is producer_state's
// oldest_transaction_last_write_ms() (-1 when none is open).

#include <cstdint>

namespace hw::storage {

inline constexpr int64_t k_late_transaction_buffer_ms = 5 * 60 * 1000;

inline bool is_late_transaction(int64_t oldest_transaction_last_write_ms, int64_t now_ms,
                                int64_t max_transaction_timeout_ms) {
  return oldest_transaction_last_write_ms > 0 &&
         now_ms - oldest_transaction_last_write_ms > max_transaction_timeout_ms + k_late_transaction_buffer_ms;
}

}  // namespace hw::storage
