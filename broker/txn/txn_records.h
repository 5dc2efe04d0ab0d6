#pragma once
// __transaction_state records: the key is TransactionLogKey v0 (the
// transactional id), the value TransactionLogValue, v0 while the cluster's
// transaction.version is 0 and v1 (flexible, with the previous and next
// producer ids and the client's transaction version in tagged fields) from
// level 1 on, as Kafka 4.3 writes them; a null value is a tombstone (an
// expired id). Decoding accepts both value versions. Pure; any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/txn/txn_metadata.h"

namespace hw::broker::txn {

struct txn_record {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;  // nullopt: tombstone
  bool operator==(const txn_record&) const = default;
};

// The value version Kafka writes at this finalized transaction.version.
int16_t log_value_version(int16_t transaction_version_level);

// The record of a transition. Empty and Dead carry no partitions (null).
txn_record transit_record(std::string_view transactional_id, const txn_transit& transit,
                          int16_t transaction_version_level);
txn_record tombstone_record(std::string_view transactional_id);

struct decoded_txn_record {
  std::string transactional_id;
  std::optional<txn_transit> value;  // nullopt: tombstone
};

// nullopt when the key or value is not a valid record of a known version,
// or names an unknown state; `error` then says what was wrong.
std::optional<decoded_txn_record> decode_txn_record(std::span<const uint8_t> key,
                                                    std::optional<std::span<const uint8_t>> value,
                                                    std::string* error = nullptr);

}  // namespace hw::broker::txn
