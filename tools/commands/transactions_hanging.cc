// find-hanging: the open transactions of a broker's (or a topic's)
// partitions that no coordinator will end. The partitions' producers with
// a transaction open longer than --max-transaction-timeout are looked up
// by producer id (ListTransactions) and their transactional ids described
// (DescribeTransactions); a transaction is hanging when its producer has
// no transactional id, its id is unknown, or its coordinator does not
// count the partition in the id's transaction. Kafka's tool walks the
// partitions, producers and ids in the orders of its HashMaps, and so the
// rows come in that order here too.

#include <algorithm>
#include <ostream>
#include <set>

#include "tools/commands/java.h"
#include "tools/commands/transactions.h"

namespace hw::tools::txn {
namespace {

// Kafka's tool asks for at most this many topics or partitions at a time.
constexpr size_t k_batch = 500;

struct open_transaction {
  topic_partition partition;
  producer_state producer;
};

std::string optional_string(std::optional<int32_t> v) {
  return v ? "Optional[" + std::to_string(*v) + "]" : "Optional.empty";
}

// The partitions to search: the one named, the topic's, or every topic's,
// with a replica on the broker when one is named.
bool partitions_to_search(txn_client& client, const hanging_search& s, std::vector<topic_partition>* out,
                          tool_io io, int* status) {
  if (s.topic && s.partition) {
    *out = {{*s.topic, *s.partition}};
    return true;
  }
  std::vector<std::string> topics;
  call_error error;
  if (s.topic) {
    topics = {*s.topic};
  } else if (client.list_topics(&topics, &error)) {
    topics = java::hash_map_order(topics);  // the names of a HashMap, in a list
  } else {
    *status = fail(io, "Failed to list topics", error);
    return false;
  }
  for (size_t start = 0; start < topics.size(); start += k_batch) {
    const std::vector<std::string> batch(topics.begin() + static_cast<std::ptrdiff_t>(start),
                                         topics.begin() + static_cast<std::ptrdiff_t>(std::min(topics.size(), start + k_batch)));
    std::map<std::string, txn_client::topic_partitions> described;
    const bool empty_name = std::find(batch.begin(), batch.end(), std::string()) != batch.end();
    if (empty_name) error = {"The given topic name '' cannot be represented in a request.", 17};
    if (empty_name || !client.describe_topics(batch, &described, &error)) {
      *status = fail(io, "Failed to describe " + std::to_string(batch.size()) + " topics", error);
      return false;
    }
    for (const auto& name : described_topics_order(batch))
      for (const auto& [partition, replicas] : described[name])
        if (!s.broker_id || std::count(replicas.begin(), replicas.end(), *s.broker_id) > 0)
          out->push_back({name, partition});
  }
  return true;
}

// The producers with a transaction open for longer than the timeout.
bool open_transactions(txn_client& client, const hanging_search& s, const std::vector<topic_partition>& partitions,
                       std::vector<open_transaction>* out, tool_io io, int* status) {
  const int64_t max_ms = static_cast<int64_t>(s.max_transaction_timeout_min) * 60000;
  for (size_t start = 0; start < partitions.size(); start += k_batch) {
    const std::vector<topic_partition> batch(
        partitions.begin() + static_cast<std::ptrdiff_t>(start),
        partitions.begin() + static_cast<std::ptrdiff_t>(std::min(partitions.size(), start + k_batch)));
    txn_client::producers_result result;
    client.describe_producers(batch, s.broker_id, &result);
    const auto order = producers_result_order(batch);
    for (const auto& tp : order)
      if (result[tp].second) {
        *status = fail(io,
                       "Failed to describe producers for " + std::to_string(batch.size()) + " partitions on broker " +
                           optional_string(s.broker_id),
                       *result[tp].second);
        return false;
      }
    const int64_t now = now_ms();
    for (const auto& tp : order)
      for (const auto& p : result[tp].first)
        if (p.txn_start_offset && now - p.last_timestamp > max_ms) out->push_back({tp, p});
  }
  return true;
}

}  // namespace

int find_hanging(txn_client& client, const hanging_search& s, tool_io io) {
  if (!s.topic && !s.broker_id)
    return fail(io, "The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search");
  if (s.partition && !s.topic) return fail(io, "The --partition argument requires --topic to be provided");
  int status = 1;
  std::vector<topic_partition> partitions;
  std::vector<open_transaction> candidates;
  if (!partitions_to_search(client, s, &partitions, io, &status) ||
      !open_transactions(client, s, partitions, &candidates, io, &status))
    return status;

  // By producer id, in a HashMap<Long, List<...>> (computeIfAbsent).
  std::vector<int64_t> producer_ids;
  std::map<int64_t, std::vector<const open_transaction*>> by_producer;
  for (const auto& c : candidates) {
    auto& list = by_producer[c.producer.producer_id];
    if (list.empty()) producer_ids.push_back(c.producer.producer_id);
    list.push_back(&c);
  }
  producer_ids = long_key_order(producer_ids);

  std::map<int64_t, std::string> transactional_ids;
  std::map<std::string, std::optional<transaction_description>> descriptions;
  if (!candidates.empty()) {
    list_filters filters;
    filters.producer_ids = producer_ids;
    std::map<int32_t, std::vector<transaction_listing>> listings;
    call_error error;
    if (!client.list_transactions(filters, &listings, &error))
      return fail(io, "Failed to list transactions for " + std::to_string(producer_ids.size()) + " producers", error);
    for (const auto& [broker, list] : listings)
      for (const auto& l : list)
        if (by_producer.count(l.producer_id)) transactional_ids[l.producer_id] = l.transactional_id;
    for (int64_t pid : producer_ids) {
      if (!transactional_ids.count(pid) || descriptions.count(transactional_ids[pid])) continue;
      const std::string& id = transactional_ids[pid];
      transaction_description d;
      if (client.describe_transaction(id, &d, &error)) {
        descriptions[id] = d;
      } else if (error.code == 105) {  // TRANSACTIONAL_ID_NOT_FOUND: no description
        descriptions[id] = std::nullopt;
      } else {
        return fail(io, "Failed to describe " + std::to_string(transactional_ids.size()) + " transactions", error);
      }
    }
  }

  const int64_t now = now_ms();
  std::vector<table_row> rows;
  for (int64_t pid : producer_ids) {
    const std::optional<transaction_description>* d = nullptr;
    if (transactional_ids.count(pid)) d = &descriptions[transactional_ids[pid]];
    for (const auto* t : by_producer[pid]) {
      const bool known = d && d->has_value() &&
                         std::count((*d)->partitions.begin(), (*d)->partitions.end(), t->partition) > 0;
      if (!known) rows.push_back(hanging_row(t->partition, t->producer, now));
    }
  }
  io.out << pretty_table(k_hanging_headers, rows);
  return 0;
}

}  // namespace hw::tools::txn
