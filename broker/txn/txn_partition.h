#pragma once
// Which __transaction_state partition coordinates a transactional id:
// Utils.abs(String.hashCode) mod transaction.state.log.num.partitions, as
// Kafka's TransactionStateManager.partitionFor. Pure; any thread.

#include <cstdint>
#include <string_view>

#include "broker/group/group_partition.h"

namespace hw::broker::txn {

inline int32_t txn_partition(std::string_view transactional_id, int32_t num_partitions) {
  return group::kafka_abs(group::java_string_hash(transactional_id)) % num_partitions;
}

}  // namespace hw::broker::txn
