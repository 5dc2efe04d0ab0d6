// Version sweeps of the transaction APIs a transactional producer and the
// coordinator use: AddPartitionsToTxn (the client form to v3, the batched
// form from v4), AddOffsetsToTxn, EndTxn (v5: a transactions-v2 client,
// answered with the bumped epoch) and WriteTxnMarkers. Each version runs
// its own transactional id through InitProducerId first.

#include <gtest/gtest.h>

#include <map>

#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/txn_offset_commit.h"
#include "protocol/messages/write_txn_markers.h"
#include "versions_support.h"

namespace hw::testing::versions {
namespace {

constexpr int16_t k_none = 0, k_unknown_topic = 3, k_coordinator_load = 14, k_coordinator_not_available = 15,
                  k_concurrent_transactions = 51;

std::string tname(const char* api, int16_t v) { return std::string(api) + "-txn-v" + std::to_string(v); }

struct producer {
  int64_t id = -1;
  int16_t epoch = -1;
};

// FindCoordinator for the transactional id until one answers, then
// InitProducerId for it (retried while the coordinator loads).
producer init_transactional(sweep_context& ctx, const std::string& transactional_id) {
  auto& c = ctx.client;
  producer out;
  const bool found = wait_until(
      [&] {
        msg::find_coordinator_request req;
        req.key = transactional_id;
        req.key_type = 1;
        auto r = c.call<msg::find_coordinator_response>(10, 3, req);
        return static_cast<bool>(r) && r->error_code == k_none;
      },
      30s);
  EXPECT_TRUE(found) << "no transaction coordinator for " << transactional_id;
  if (!found) return out;
  msg::init_producer_id_request req;
  req.transactional_id = transactional_id;
  req.transaction_timeout_ms = 60000;
  int16_t last = -1;
  wait_until(
      [&] {
        auto r = c.call<msg::init_producer_id_response>(22, 4, req);
        if (!r) return true;
        last = r->error_code;
        if (last == k_none) out = {r->producer_id, r->producer_epoch};
        return last != k_coordinator_load && last != k_coordinator_not_available &&
               last != k_concurrent_transactions;
      },
      30s);
  EXPECT_EQ(last, k_none) << transactional_id;
  return out;
}

// AddPartitionsToTxn at v3 (the client form): the error of the one partition.
int16_t add_partition_v3(version_client& c, const std::string& id, const producer& p, const std::string& topic) {
  msg::add_partitions_to_txn_request req;
  req.v3_and_below_transactional_id = id;
  req.v3_and_below_producer_id = p.id;
  req.v3_and_below_producer_epoch = p.epoch;
  msg::add_partitions_to_txn_request::add_partitions_to_txn_topic t;
  t.name = topic;
  t.partitions = {0};
  req.v3_and_below_topics.push_back(t);
  auto r = c.call<msg::add_partitions_to_txn_response>(24, 3, req);
  if (!r || r->results_by_topic_v3_and_below.size() != 1 ||
      r->results_by_topic_v3_and_below[0].results_by_partition.size() != 1)
    return -1;
  return r->results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code;
}

int16_t end_txn_v3(version_client& c, const std::string& id, const producer& p, bool commit) {
  msg::end_txn_request req;
  req.transactional_id = id;
  req.producer_id = p.id;
  req.producer_epoch = p.epoch;
  req.committed = commit;
  auto r = c.call<msg::end_txn_response>(26, 3, req);
  return r ? r->error_code : -1;
}

void add_partitions_to_txn_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("add-partitions", v), id = topic + "-id";
  create_topic(c, topic, 1);
  const producer p = init_transactional(ctx, id);
  ASSERT_GE(p.id, 0);
  msg::add_partitions_to_txn_request req;
  msg::add_partitions_to_txn_request::add_partitions_to_txn_topic t;
  t.name = topic;
  t.partitions = {0};
  if (v <= 3) {
    req.v3_and_below_transactional_id = id;
    req.v3_and_below_producer_id = p.id;
    req.v3_and_below_producer_epoch = p.epoch;
    req.v3_and_below_topics.push_back(t);
  } else {
    msg::add_partitions_to_txn_request::add_partitions_to_txn_transaction x;
    x.transactional_id = id;
    x.producer_id = p.id;
    x.producer_epoch = p.epoch;
    x.topics.push_back(t);
    req.transactions.push_back(x);
  }
  auto r = c.call<msg::add_partitions_to_txn_response>(24, v, req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->throttle_time_ms, 0);
  EXPECT_EQ(r->error_code, k_none);
  if (v >= 4) {
    ASSERT_EQ(r->results_by_transaction.size(), 1u);
    EXPECT_EQ(r->results_by_transaction[0].transactional_id, id);
  }
  const auto& topics = v <= 3 ? r->results_by_topic_v3_and_below : r->results_by_transaction[0].topic_results;
  ASSERT_EQ(topics.size(), 1u);
  EXPECT_EQ(topics[0].name, topic);
  ASSERT_EQ(topics[0].results_by_partition.size(), 1u);
  EXPECT_EQ(topics[0].results_by_partition[0].partition_index, 0);
  EXPECT_EQ(topics[0].results_by_partition[0].partition_error_code, k_none);
  EXPECT_EQ(end_txn_v3(c, id, p, false), k_none);
}

void add_offsets_to_txn_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string id = tname("add-offsets", v) + "-id";
  const producer p = init_transactional(ctx, id);
  ASSERT_GE(p.id, 0);
  msg::add_offsets_to_txn_request req;
  req.transactional_id = id;
  req.producer_id = p.id;
  req.producer_epoch = p.epoch;
  req.group_id = tname("add-offsets-group", v);
  auto r = c.call<msg::add_offsets_to_txn_response>(25, v, req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->throttle_time_ms, 0);
  EXPECT_EQ(r->error_code, k_none);
  EXPECT_EQ(end_txn_v3(c, id, p, false), k_none);
}

void end_txn_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("end", v), id = topic + "-id";
  create_topic(c, topic, 1);
  const producer p = init_transactional(ctx, id);
  ASSERT_GE(p.id, 0);
  // Before v5 the client adds its partitions; a transactions-v2 client
  // (v5) may end a transaction with none, and its epoch goes up at the end.
  if (v < 5) ASSERT_EQ(add_partition_v3(c, id, p, topic), k_none);
  msg::end_txn_request req;
  req.transactional_id = id;
  req.producer_id = p.id;
  req.producer_epoch = p.epoch;
  req.committed = v < 5;
  auto r = c.call<msg::end_txn_response>(26, v, req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->throttle_time_ms, 0);
  EXPECT_EQ(r->error_code, k_none);
  if (v >= 5) {
    EXPECT_EQ(r->producer_id, p.id);
    EXPECT_EQ(r->producer_epoch, p.epoch + 1);
  }
}

void txn_offset_commit_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("txn-offsets", v), id = topic + "-id", group = topic + "-group";
  create_topic(c, topic, 1);
  ASSERT_TRUE(wait_for_coordinator(c, group));
  const producer p = init_transactional(ctx, id);
  ASSERT_GE(p.id, 0);
  msg::add_offsets_to_txn_request add;
  add.transactional_id = id;
  add.producer_id = p.id;
  add.producer_epoch = p.epoch;
  add.group_id = group;
  auto added = c.call<msg::add_offsets_to_txn_response>(25, 3, add);
  ASSERT_TRUE(added);
  ASSERT_EQ(added->error_code, k_none);
  msg::txn_offset_commit_request req;
  req.transactional_id = id;
  req.group_id = group;
  req.producer_id = p.id;
  req.producer_epoch = p.epoch;
  msg::txn_offset_commit_request::txn_offset_commit_request_topic t;
  t.name = topic;
  msg::txn_offset_commit_request::txn_offset_commit_request_partition part;
  part.partition_index = 0;
  part.committed_offset = 42;
  part.committed_leader_epoch = v >= 2 ? 0 : -1;
  part.committed_metadata = "m";
  t.partitions.push_back(part);
  // A partition the topic does not have is answered by the broker itself.
  part.partition_index = 7;
  t.partitions.push_back(part);
  req.topics.push_back(t);
  auto r = c.call<msg::txn_offset_commit_response>(28, v, req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->throttle_time_ms, 0);
  ASSERT_EQ(r->topics.size(), 1u);
  EXPECT_EQ(r->topics[0].name, topic);
  std::map<int32_t, int16_t> errors;
  for (const auto& rp : r->topics[0].partitions) errors[rp.partition_index] = rp.error_code;
  EXPECT_EQ(errors, (std::map<int32_t, int16_t>{{0, k_none}, {7, k_unknown_topic}}));
  EXPECT_EQ(end_txn_v3(c, id, p, true), k_none);
}

// A transaction open on partition 0 of a new topic, for the tools' APIs.
producer open_transaction(sweep_context& ctx, const std::string& id, const std::string& topic) {
  create_topic(ctx.client, topic, 1);
  const producer p = init_transactional(ctx, id);
  EXPECT_GE(p.id, 0);
  EXPECT_EQ(add_partition_v3(ctx.client, id, p, topic), k_none);
  return p;
}

void describe_transactions_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("describe", v), id = topic + "-id";
  const producer p = open_transaction(ctx, id, topic);
  msg::describe_transactions_request req;
  req.transactional_ids = {id, id + "-unknown", ""};
  auto r = c.call<msg::describe_transactions_response>(65, v, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->transaction_states.size(), 3u);
  const auto& open = r->transaction_states[0];
  EXPECT_EQ(open.error_code, k_none);
  EXPECT_EQ(open.transactional_id, id);
  EXPECT_EQ(open.transaction_state, "Ongoing");
  EXPECT_EQ(open.producer_id, p.id);
  EXPECT_EQ(open.producer_epoch, p.epoch);
  EXPECT_EQ(open.transaction_timeout_ms, 60000);
  EXPECT_GT(open.transaction_start_time_ms, 0);
  ASSERT_EQ(open.topics.size(), 1u);
  EXPECT_EQ(open.topics[0].topic, topic);
  EXPECT_EQ(open.topics[0].partitions, std::vector<int32_t>{0});
  EXPECT_EQ(r->transaction_states[1].error_code, 105);  // TRANSACTIONAL_ID_NOT_FOUND
  EXPECT_EQ(r->transaction_states[2].error_code, 42);   // INVALID_REQUEST
  EXPECT_EQ(end_txn_v3(c, id, p, false), k_none);
}

void list_transactions_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("list", v), id = topic + "-id";
  const producer p = open_transaction(ctx, id, topic);
  msg::list_transactions_request req;
  req.state_filters = {"Ongoing", "NoSuchState"};
  req.producer_id_filters = {p.id};
  if (v >= 2) req.transactional_id_pattern = "list-txn-v" + std::to_string(v) + "-i.";
  auto r = c.call<msg::list_transactions_response>(66, v, req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, k_none);
  EXPECT_EQ(r->unknown_state_filters, std::vector<std::string>{"NoSuchState"});
  ASSERT_EQ(r->transaction_states.size(), 1u);
  EXPECT_EQ(r->transaction_states[0].transactional_id, id);
  EXPECT_EQ(r->transaction_states[0].producer_id, p.id);
  EXPECT_EQ(r->transaction_states[0].transaction_state, "Ongoing");
  if (v >= 1) {
    // Open for more than a day: not this one.
    req.duration_filter = 86'400'000;
    auto none = c.call<msg::list_transactions_response>(66, v, req);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->transaction_states.empty());
  }
  if (v >= 2) {
    req.duration_filter = -1;
    req.transactional_id_pattern = "(unclosed";
    auto bad = c.call<msg::list_transactions_response>(66, v, req);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->error_code, 128);  // INVALID_REGULAR_EXPRESSION
  }
  EXPECT_EQ(end_txn_v3(c, id, p, false), k_none);
}

void write_txn_markers_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  msg::write_txn_markers_request req;
  msg::write_txn_markers_request::writable_txn_marker m;
  m.producer_id = 4242;
  m.producer_epoch = 0;
  m.transaction_result = false;
  m.coordinator_epoch = 0;
  msg::write_txn_markers_request::writable_txn_marker_topic t;
  t.name = tname("markers-absent", v);
  t.partition_indexes = {0};
  m.topics.push_back(t);
  req.markers.push_back(m);
  auto r = c.call<msg::write_txn_markers_response>(27, v, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->markers.size(), 1u);
  EXPECT_EQ(r->markers[0].producer_id, 4242);
  ASSERT_EQ(r->markers[0].topics.size(), 1u);
  EXPECT_EQ(r->markers[0].topics[0].name, t.name);
  ASSERT_EQ(r->markers[0].topics[0].partitions.size(), 1u);
  EXPECT_EQ(r->markers[0].topics[0].partitions[0].partition_index, 0);
  EXPECT_EQ(r->markers[0].topics[0].partitions[0].error_code, k_unknown_topic);
}

}  // namespace

std::vector<api_sweep> txn_sweeps() {
  return {{24, "AddPartitionsToTxn", &add_partitions_to_txn_sweep},
          {25, "AddOffsetsToTxn", &add_offsets_to_txn_sweep},
          {26, "EndTxn", &end_txn_sweep},
          {27, "WriteTxnMarkers", &write_txn_markers_sweep},
          {28, "TxnOffsetCommit", &txn_offset_commit_sweep},
          {65, "DescribeTransactions", &describe_transactions_sweep},
          {66, "ListTransactions", &list_transactions_sweep}};
}

}  // namespace hw::testing::versions
