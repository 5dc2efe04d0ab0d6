#include "broker/txn/txn_records.h"

#include <map>

#include "protocol/messages/transaction_records.h"
#include "protocol/wire/version_prefixed.h"

namespace hw::broker::txn {

namespace msg = protocol::msg;

namespace {

constexpr int16_t k_key_version = 0;

std::vector<uint8_t> key_bytes(std::string_view transactional_id) {
  msg::transaction_log_key key;
  key.transactional_id = std::string(transactional_id);
  return protocol::encode_version_prefixed(key, k_key_version);
}

}  // namespace

int16_t log_value_version(int16_t transaction_version_level) { return transaction_version_level >= 1 ? 1 : 0; }

txn_record transit_record(std::string_view transactional_id, const txn_transit& t,
                          int16_t transaction_version_level) {
  msg::transaction_log_value v;
  v.producer_id = t.producer_id;
  v.previous_producer_id = t.prev_producer_id;
  v.next_producer_id = t.next_producer_id;
  v.producer_epoch = t.producer_epoch;
  v.transaction_timeout_ms = t.timeout_ms;
  v.transaction_status = static_cast<int8_t>(t.state);
  if (t.state == txn_state::empty || t.state == txn_state::dead) {
    v.transaction_partitions.reset();
  } else {
    // One entry per topic, its partitions in order.
    std::map<std::string, std::vector<int32_t>> by_topic;
    for (const auto& [topic, partition] : t.partitions) by_topic[topic].push_back(partition);
    auto& list = v.transaction_partitions.emplace();
    for (auto& [topic, ids] : by_topic) {
      auto& entry = list.emplace_back();
      entry.topic = topic;
      entry.partition_ids = std::move(ids);
    }
  }
  v.transaction_last_update_timestamp_ms = t.last_update_ms;
  v.transaction_start_timestamp_ms = t.start_ms;
  v.client_transaction_version = t.client_version;
  return {key_bytes(transactional_id),
          protocol::encode_version_prefixed(v, log_value_version(transaction_version_level))};
}

txn_record tombstone_record(std::string_view transactional_id) { return {key_bytes(transactional_id), std::nullopt}; }

std::optional<decoded_txn_record> decode_txn_record(std::span<const uint8_t> key,
                                                    std::optional<std::span<const uint8_t>> value,
                                                    std::string* error) {
  auto fail = [&](std::string why) -> std::optional<decoded_txn_record> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  auto k = protocol::decode_version_prefixed<msg::transaction_log_key>(key, 0, 0);
  if (!k) return fail("not a TransactionLogKey v0");
  decoded_txn_record out;
  out.transactional_id = std::move(k->transactional_id);
  if (!value) return out;
  auto v = protocol::decode_version_prefixed<msg::transaction_log_value>(*value, 0, 1);
  if (!v) return fail("transactional id " + out.transactional_id + ": not a TransactionLogValue v0 or v1");
  auto state = state_from_id(v->transaction_status);
  if (!state) return fail("transactional id " + out.transactional_id + ": unknown transaction status " +
                          std::to_string(v->transaction_status));
  txn_transit t;
  t.producer_id = v->producer_id;
  t.prev_producer_id = v->previous_producer_id;
  t.next_producer_id = v->next_producer_id;
  t.producer_epoch = v->producer_epoch;
  // Not stored: a retry of an epoch bump across a coordinator move fails
  // as it does in Kafka.
  t.last_producer_epoch = k_no_producer_epoch;
  t.timeout_ms = v->transaction_timeout_ms;
  t.state = *state;
  if (t.state != txn_state::empty && v->transaction_partitions)
    for (const auto& entry : *v->transaction_partitions)
      for (int32_t p : entry.partition_ids) t.partitions.emplace(entry.topic, p);
  t.last_update_ms = v->transaction_last_update_timestamp_ms;
  t.start_ms = v->transaction_start_timestamp_ms;
  t.client_version = v->client_transaction_version;
  out.value = std::move(t);
  return out;
}

}  // namespace hw::broker::txn
