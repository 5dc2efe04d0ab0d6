// TxnOffsetCommit's answers to requests the broker refuses itself (topics
// or partitions it does not know, an empty group id) and to a producer no
// transaction coordinator vouches for.

#include "broker_process.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/txn_offset_commit.h"
#include "protocol/records/record_batch_builder.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using namespace std::chrono_literals;

msg::txn_offset_commit_request commit_request(const std::string& id, const std::string& group, const std::string& topic,
                                              std::vector<int32_t> partitions, int64_t producer_id = 4242,
                                              int16_t producer_epoch = 0, int32_t generation = -1) {
  msg::txn_offset_commit_request req;
  req.transactional_id = id;
  req.group_id = group;
  req.producer_id = producer_id;
  req.producer_epoch = producer_epoch;
  req.generation_id = generation;
  msg::txn_offset_commit_request::txn_offset_commit_request_topic t;
  t.name = topic;
  for (int32_t p : partitions) {
    msg::txn_offset_commit_request::txn_offset_commit_request_partition part;
    part.partition_index = p;
    part.committed_offset = 10;
    part.committed_metadata = "";
    t.partitions.push_back(part);
  }
  req.topics.push_back(t);
  return req;
}

// What the broker answers before the group coordinator (or the
// transaction coordinator's verification) is asked.
TEST_F(DifferentialTest, TxnOffsetCommitRefusedByTheBroker) {
  const std::string topic = fresh_name("txn-offsets");
  create_topic(t(), topic);
  const std::string group = fresh_name("txn-offsets-group");
  wait_for_coordinator(t(), group);
  for (int16_t v : {0, 3, 5}) {
    SCOPED_TRACE("v" + std::to_string(v));
    expect_same(t().call("unknown topic", 28, v, commit_request("nope", group, fresh_name("absent"), {0})));
    expect_same(t().call("unknown partition", 28, v, commit_request("nope", group, topic, {3, 4})));
    expect_same(t().call("empty group id", 28, v, commit_request("nope", "", topic, {0})));
  }
}

// Before the group coordinator writes a transaction's first offsets, the
// transaction coordinator must vouch for the group's partition (KIP-890);
// with no transactional producer yet there is no __transaction_state, so
// no coordinator to ask: COORDINATOR_NOT_AVAILABLE, before the group's own
// checks (a generation for a group that does not exist).
TEST_F(DifferentialTest, TxnOffsetCommitWithoutATransactionCoordinator) {
  const std::string topic = fresh_name("txn-unverified");
  create_topic(t(), topic);
  const std::string group = fresh_name("txn-unverified-group");
  wait_for_coordinator(t(), group);
  for (int16_t v : {0, 3, 5}) {
    SCOPED_TRACE("v" + std::to_string(v));
    expect_same(t().call("unknown producer", 28, v, commit_request(fresh_name("nope"), group, topic, {0, 3})));
    expect_same(t().call("generation of no group", 28, v,
                         commit_request(fresh_name("nope"), fresh_name("no-group"), topic, {0}, 4242, 0, 5)));
  }
}

struct producer {
  int64_t id = -1;
  int16_t epoch = -1;
};

// Setup, not compared: each broker's transaction coordinator for `id`
// found (creating __transaction_state) and a producer id from it.
std::array<producer, 2> init_transactional(twin& t, const std::string& id) {
  std::array<producer, 2> out;
  msg::find_coordinator_request find;
  find.key_type = 1;
  find.coordinator_keys = {id};
  msg::init_producer_id_request init;
  init.transactional_id = id;
  init.transaction_timeout_ms = 60000;
  for (side s : k_sides) {
    auto encoded = [](const auto& req, int16_t v) {
      std::vector<uint8_t> body;
      protocol::writer w(body);
      req.encode(w, v);
      return body;
    };
    EXPECT_TRUE(wait_until(
        [&] {
          auto a = t.send(s, 10, 4, encoded(find, 4));
          if (!a.error.empty()) return false;
          auto r = a.as<msg::find_coordinator_response>(4);
          return r.coordinators.size() == 1 && r.coordinators[0].error_code == 0;
        },
        60s))
        << side_name(s) << " has no transaction coordinator";
    EXPECT_TRUE(wait_until(
        [&] {
          auto a = t.send(s, 22, 5, encoded(init, 5));
          if (!a.error.empty()) return false;
          auto r = a.as<msg::init_producer_id_response>(5);
          out[static_cast<int>(s)] = {r.producer_id, r.producer_epoch};
          return r.error_code == 0;
        },
        60s))
        << side_name(s) << " gives no transactional producer id";
  }
  return out;
}

std::vector<uint8_t> transactional_batch(const producer& p, int32_t sequence) {
  protocol::record_batch_options o;
  o.transactional = true;
  o.producer_id = p.id;
  o.producer_epoch = p.epoch;
  o.base_sequence = sequence;
  protocol::record_batch_builder b(o);
  const std::string v = "txn-" + std::to_string(sequence);
  b.append(1700000000000, std::nullopt, protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  return b.finish();
}

// KIP-890: a transactional batch that would open a transaction in a
// partition is checked with the transaction coordinator first. A
// transactions v1 client (Produce v11 and below) must have added the
// partition itself (refused: INVALID_TXN_STATE, or TRANSACTION_ABORTABLE
// for a client that knows it); a v2 client's (Produce v12) is
// added by the partition leader on its behalf, and the write goes in.
TEST_F(DifferentialTest, TransactionalProduceIsVerifiedWithTheCoordinator) {
  const std::string topic = fresh_name("txn-verified");
  create_topic(t(), topic);
  const std::string id = fresh_name("txn-verified-id");
  const auto producers = init_transactional(t(), id);
  std::array<std::vector<uint8_t>, 2> batches;
  auto request = [&](side s, int32_t sequence) {
    batches[static_cast<int>(s)] = transactional_batch(producers[static_cast<int>(s)], sequence);
    msg::produce_request req;
    req.transactional_id = id;
    req.acks = -1;
    req.timeout_ms = 5000;
    msg::produce_request::topic_produce_data td;
    td.name = topic;
    msg::produce_request::partition_produce_data pd;
    pd.index = 0;
    pd.records = protocol::records_view(protocol::bytes_view(batches[static_cast<int>(s)]));
    td.partition_data.push_back(pd);
    req.topic_data.push_back(td);
    return req;
  };
  auto error_of = [](const exchange& e) {
    auto r = e.as<msg::produce_response>(side::kafka);
    return r.responses.empty() || r.responses[0].partition_responses.empty()
               ? -1
               : r.responses[0].partition_responses[0].error_code;
  };
  // v11 clients know TRANSACTION_ABORTABLE (KIP-1050); older ones get
  // INVALID_TXN_STATE.
  for (auto [v, expected] : {std::pair{int16_t{9}, protocol::error_code::invalid_txn_state},
                             std::pair{int16_t{11}, protocol::error_code::transaction_abortable}}) {
    auto e = t().call_each("not added, v" + std::to_string(v), 0, v, [&](side s) { return request(s, 0); });
    expect_same(e);
    EXPECT_EQ(error_of(e), static_cast<int16_t>(expected));
  }
  auto added = t().call_each("added by the leader, v12", 0, 12, [&](side s) { return request(s, 0); });
  expect_same(added);
  EXPECT_EQ(error_of(added), 0);
}

}  // namespace
}  // namespace hw::testing::differential
