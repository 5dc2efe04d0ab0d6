// kafka-transactions.sh's tables, their rows, and the orders of the Java
// collections the rows come out of.

#include <algorithm>
#include <chrono>
#include <set>

#include "tools/commands/java.h"
#include "tools/commands/transactions.h"

namespace hw::tools::txn {

const table_row k_list_headers{"TransactionalId", "Coordinator", "ProducerId", "TransactionState"};
const table_row k_describe_headers{"CoordinatorId",        "TransactionalId",
                                   "ProducerId",           "ProducerEpoch",
                                   "TransactionState",     "TransactionTimeoutMs",
                                   "CurrentTransactionStartTimeMs", "TransactionDurationMs",
                                   "TopicPartitions"};
const table_row k_producer_headers{"ProducerId",   "ProducerEpoch", "LatestCoordinatorEpoch",
                                   "LastSequence", "LastTimestamp", "CurrentTransactionStartOffset"};
const table_row k_hanging_headers{"Topic",            "Partition",   "ProducerId",    "ProducerEpoch",
                                  "CoordinatorEpoch", "StartOffset", "LastTimestamp", "Duration(min)"};

std::string to_string(const topic_partition& tp) { return tp.topic + "-" + std::to_string(tp.partition); }

std::string to_string(const abort_spec& spec) {
  return "AbortTransactionSpec(topicPartition=" + to_string(spec.partition) +
         ", producerId=" + std::to_string(spec.producer_id) + ", producerEpoch=" + std::to_string(spec.producer_epoch) +
         ", coordinatorEpoch=" + std::to_string(spec.coordinator_epoch) + ")";
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string pretty_table(const table_row& headers, const std::vector<table_row>& rows) {
  std::vector<size_t> widths;
  for (const auto& h : headers) widths.push_back(java::length(h));
  for (const auto& row : rows)
    for (size_t i = 0; i < headers.size() && i < row.size(); ++i) widths[i] = std::max(widths[i], java::length(row[i]));
  std::string out;
  auto print = [&](const table_row& row) {
    for (size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      const size_t width = java::length(row[i]);
      if (i < widths.size() && width < widths[i]) out.append(widths[i] - width, ' ');
      out += '\t';
    }
    out += '\n';
  };
  print(headers);
  for (const auto& row : rows) print(row);
  return out;
}

std::string state_name(const std::string& broker_state) {
  static const std::set<std::string> known{"Ongoing",       "PrepareAbort", "PrepareCommit",     "CompleteAbort",
                                           "CompleteCommit", "Empty",        "PrepareEpochFence"};
  return known.count(broker_state) ? broker_state : "Unknown";
}

table_row producer_row(const producer_state& p) {
  return {std::to_string(p.producer_id),
          std::to_string(p.producer_epoch),
          std::to_string(p.coordinator_epoch.value_or(-1)),
          std::to_string(p.last_sequence),
          std::to_string(p.last_timestamp),
          p.txn_start_offset ? std::to_string(*p.txn_start_offset) : "None"};
}

table_row description_row(const std::string& transactional_id, const transaction_description& d, int64_t now) {
  std::string partitions;
  for (const auto& tp : hash_set_order(d.partitions)) partitions += (partitions.empty() ? "" : ",") + to_string(tp);
  return {std::to_string(d.coordinator_id),
          transactional_id,
          std::to_string(d.producer_id),
          std::to_string(d.producer_epoch),
          d.state,
          std::to_string(d.timeout_ms),
          d.start_time_ms ? std::to_string(*d.start_time_ms) : "None",
          d.start_time_ms ? std::to_string(now - *d.start_time_ms) : "None",
          partitions};
}

table_row hanging_row(const topic_partition& tp, const producer_state& p, int64_t now) {
  // TimeUnit.MILLISECONDS.toMinutes: truncated towards zero.
  const int64_t minutes = (now - p.last_timestamp) / 60000;
  return {tp.topic,
          std::to_string(tp.partition),
          std::to_string(p.producer_id),
          std::to_string(p.producer_epoch),
          std::to_string(p.coordinator_epoch.value_or(-1)),
          std::to_string(p.txn_start_offset.value_or(-1)),
          std::to_string(p.last_timestamp),
          std::to_string(minutes)};
}

std::vector<table_row> listing_rows(const std::map<int32_t, std::vector<transaction_listing>>& by_broker) {
  // allByBrokerId's HashMap<Integer, ...>: Integer.hashCode is the value.
  std::vector<const std::pair<const int32_t, std::vector<transaction_listing>>*> brokers;
  java::hash_order order;
  for (const auto& entry : by_broker) {
    order.put(entry.first, brokers.size());
    brokers.push_back(&entry);
  }
  std::vector<table_row> rows;
  for (size_t i : order.order())
    for (const auto& l : brokers[i]->second)
      rows.push_back({l.transactional_id, std::to_string(brokers[i]->first), std::to_string(l.producer_id), l.state});
  return rows;
}

namespace {

std::vector<topic_partition> reorder(const std::vector<topic_partition>& items, const java::hash_order& order) {
  std::vector<topic_partition> out;
  for (size_t i : order.order()) out.push_back(items[i]);
  return out;
}

java::hash_order filled(const std::vector<topic_partition>& items, std::optional<int32_t> capacity) {
  java::hash_order order(capacity);
  for (size_t i = 0; i < items.size(); ++i) order.put(java::topic_partition_hash(items[i].topic, items[i].partition), i);
  return order;
}

// new HashSet<>(collection): a HashMap sized for the collection.
int32_t hash_set_capacity(size_t n) {
  return std::max(static_cast<int32_t>(static_cast<float>(n) / 0.75f) + 1, 16);
}

}  // namespace

std::vector<topic_partition> hash_set_order(const std::vector<topic_partition>& inserted) {
  // The admin client builds the set with new HashSet<>() and adds each.
  std::vector<topic_partition> distinct;
  std::set<topic_partition> seen;
  for (const auto& tp : inserted)
    if (seen.insert(tp).second) distinct.push_back(tp);
  return reorder(distinct, filled(distinct, std::nullopt));
}

std::vector<topic_partition> producers_result_order(const std::vector<topic_partition>& asked) {
  std::vector<topic_partition> distinct;
  std::set<topic_partition> seen;
  for (const auto& tp : asked)
    if (seen.insert(tp).second) distinct.push_back(tp);
  // The futures are an unmodifiable map (Collectors.toUnmodifiableMap),
  // whose order the JVM randomises: Kafka's own order is random among
  // partitions that share a bucket of the result. They come here in the
  // order of the HashSet the admin client makes of them.
  const auto futures = reorder(distinct, filled(distinct, hash_set_capacity(distinct.size())));
  return reorder(futures, filled(futures, static_cast<int32_t>(futures.size())));
}

std::vector<std::string> described_topics_order(const std::vector<std::string>& asked) {
  // describeTopics: a HashMap sized for the names, copied (new
  // HashMap<>(map)), and the result a HashMap sized for them again.
  const auto size = static_cast<int32_t>(asked.size());
  java::hash_order futures(size);
  for (size_t i = 0; i < asked.size(); ++i) futures.put(java::string_hash(asked[i]), i);
  const auto copy = java::hash_order::copy_of(futures);
  java::hash_order result(size);
  for (size_t i : copy.order()) result.put(java::string_hash(asked[i]), i);
  std::vector<std::string> out;
  for (size_t i : result.order()) out.push_back(asked[i]);
  return out;
}

std::vector<int64_t> long_key_order(const std::vector<int64_t>& inserted) {
  java::hash_order order;
  for (size_t i = 0; i < inserted.size(); ++i) {
    const auto v = static_cast<uint64_t>(inserted[i]);
    order.put_first(static_cast<int32_t>(static_cast<uint32_t>(v ^ (v >> 32))), i);  // Long.hashCode
  }
  std::vector<int64_t> out;
  for (size_t i : order.order()) out.push_back(inserted[i]);
  return out;
}

}  // namespace hw::tools::txn
