// TxnOffsetCommit's answers to requests the broker refuses itself (topics
// or partitions it does not know, an empty group id) and to a producer no
// transaction coordinator vouches for.

#include <optional>
#include <set>
#include <string>

#include "broker_process.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
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

// A request's body at version v.
template <class Q>
std::vector<uint8_t> encoded(const Q& req, int16_t v) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, v);
  return body;
}

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

// A transactional Produce (acks=all) of one batch per partition of topic;
// the batches must outlive the request.
msg::produce_request transactional_produce(const std::string& id, const std::string& topic,
                                           const std::vector<std::pair<int32_t, const std::vector<uint8_t>*>>& batches) {
  msg::produce_request req;
  req.transactional_id = id;
  req.acks = -1;
  req.timeout_ms = 5000;
  msg::produce_request::topic_produce_data td;
  td.name = topic;
  for (const auto& [index, batch] : batches) {
    msg::produce_request::partition_produce_data pd;
    pd.index = index;
    pd.records = protocol::records_view(protocol::bytes_view(*batch));
    td.partition_data.push_back(pd);
  }
  req.topic_data.push_back(td);
  return req;
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
    return transactional_produce(id, topic, {{0, &batches[static_cast<int>(s)]}});
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

// Transactional batches of two producers (here one id at two epochs) in
// one Produce: Kafka fails the whole request with
// INVALID_PRODUCER_ID_MAPPING before anything is verified or written.
TEST_F(DifferentialTest, TransactionalBatchesOfTwoProducersFailTheWholeProduce) {
  const std::string topic = fresh_name("txn-two");
  create_topic(t(), topic, 2);
  const std::string id = fresh_name("txn-two-id");
  const auto producers = init_transactional(t(), id);
  std::array<std::array<std::vector<uint8_t>, 2>, 2> batches;
  auto e = t().call_each("two producers", 0, 12, [&](side s) {
    const producer p = producers[static_cast<int>(s)];
    batches[static_cast<int>(s)][0] = transactional_batch(p, 0);
    batches[static_cast<int>(s)][1] = transactional_batch({p.id, static_cast<int16_t>(p.epoch + 1)}, 0);
    return transactional_produce(id, topic,
                                 {{0, &batches[static_cast<int>(s)][0]}, {1, &batches[static_cast<int>(s)][1]}});
  });
  // Kafka lists the partitions in its hash map's order: compared by index.
  for (side s : k_sides) {
    auto r = e.as<msg::produce_response>(s);
    ASSERT_EQ(r.responses.size(), 1u) << side_name(s);
    ASSERT_EQ(r.responses[0].partition_responses.size(), 2u) << side_name(s);
    std::set<int32_t> indexes;
    for (const auto& p : r.responses[0].partition_responses) {
      indexes.insert(p.index);
      EXPECT_EQ(p.error_code, static_cast<int16_t>(protocol::error_code::invalid_producer_id_mapping)) << side_name(s);
      EXPECT_EQ(p.error_message, std::optional<std::string>("Transactional records contained more than one producer ID"))
          << side_name(s);
      EXPECT_EQ(p.base_offset, -1) << side_name(s);
      EXPECT_EQ(p.log_start_offset, -1) << side_name(s);
    }
    EXPECT_EQ(indexes, (std::set<int32_t>{0, 1})) << side_name(s);
  }
}

// KAFKA-17754, closed by transactions v2: a write of a transaction that
// ended (committed here) arrives late, after the producer's next
// transaction has begun on the same partition. Every EndTxn v5 bumps the
// epoch, so the late write's epoch is stale and it is refused instead of
// joining the next transaction; the log holds the first write, its
// commit marker and the next transaction's write, nothing else.
TEST_F(DifferentialTest, ALateWriteOfAnEndedTransactionCannotJoinTheNextOne) {
  const std::string topic = fresh_name("txn-late");
  create_topic(t(), topic);
  const std::string id = fresh_name("txn-late-id");
  std::array<producer, 2> producers = init_transactional(t(), id);
  std::array<std::vector<uint8_t>, 2> batches;
  auto produce = [&](side s, const producer& p, int32_t sequence) {
    batches[static_cast<int>(s)] = transactional_batch(p, sequence);
    return encoded(transactional_produce(id, topic, {{0, &batches[static_cast<int>(s)]}}), 12);
  };
  auto produce_error = [](const answer& a) {
    if (!a.error.empty()) return -1;
    auto r = a.as<msg::produce_response>(12);
    return r.responses.empty() || r.responses[0].partition_responses.empty()
               ? -1
               : static_cast<int>(r.responses[0].partition_responses[0].error_code);
  };
  std::array<int, 2> late_error{};
  for (side s : k_sides) {
    const producer first = producers[static_cast<int>(s)];
    ASSERT_EQ(produce_error(t().send(s, 0, 12, produce(s, first, 0))), 0) << side_name(s);
    msg::end_txn_request end;
    end.transactional_id = id;
    end.producer_id = first.id;
    end.producer_epoch = first.epoch;
    end.committed = true;
    auto ended = t().send(s, 26, 5, encoded(end, 5)).as<msg::end_txn_response>(5);
    ASSERT_EQ(ended.error_code, 0) << side_name(s);
    EXPECT_EQ(ended.producer_id, first.id) << side_name(s);
    ASSERT_EQ(ended.producer_epoch, first.epoch + 1) << side_name(s) << ": EndTxn v5 bumps the epoch";
    const producer next{ended.producer_id, ended.producer_epoch};
    // The next transaction's first write, once the markers are in (until
    // then the leader passes on the coordinator's CONCURRENT_TRANSACTIONS).
    ASSERT_TRUE(wait_until([&] { return produce_error(t().send(s, 0, 12, produce(s, next, 0))) == 0; }, 30s))
        << side_name(s);
    late_error[static_cast<int>(s)] = produce_error(t().send(s, 0, 12, produce(s, first, 1)));
  }
  EXPECT_EQ(late_error[0], late_error[1]);
  EXPECT_EQ(late_error[1], static_cast<int>(protocol::error_code::invalid_producer_epoch))
      << "the late write was not refused for its stale epoch";

  for (side s : k_sides) {
    msg::list_offsets_request lo;
    lo.replica_id = -1;
    msg::list_offsets_request::list_offsets_topic lt;
    lt.name = topic;
    msg::list_offsets_request::list_offsets_partition lp;
    lp.partition_index = 0;
    lp.timestamp = -1;  // latest
    lt.partitions.push_back(lp);
    lo.topics.push_back(lt);
    auto r = t().send(s, 2, 7, encoded(lo, 7)).as<msg::list_offsets_response>(7);
    ASSERT_EQ(r.topics.size(), 1u);
    ASSERT_EQ(r.topics[0].partitions.size(), 1u);
    EXPECT_EQ(r.topics[0].partitions[0].offset, 3) << side_name(s) << ": write, marker, the next write";
  }
}

// A transactions v2 producer begins its next transaction right after a
// commit, while the commit's markers are still being written (the
// coordinator in PrepareCommit at the bumped epoch). Its first write is
// answered CONCURRENT_TRANSACTIONS as it is when the Produce version knows
// it (v12, the partition added by the leader) and NOT_ENOUGH_REPLICAS when
// it does not (v11, verify only); an abort of that next transaction is
// answered CONCURRENT_TRANSACTIONS (never PRODUCER_FENCED) until the
// markers are in, then goes through. Both brokers run with
// add.partitions.to.txn.retry.backoff.max.ms=0, so a leader passes the
// coordinator's answer on at once; how long the markers take is each
// broker's own, so each is tried until the race is seen (Kafka's markers
// take tens of milliseconds, Highwater's a few), and every answer must be
// one Kafka gives.
TEST_F(DifferentialTest, TheNextTransactionMeetsTheMarkersOfTheLast) {
  const std::string first_topic = fresh_name("txn-race-a");
  create_topic(t(), first_topic);
  const std::string next_topic = fresh_name("txn-race-b");
  create_topic(t(), next_topic);
  const std::string id = fresh_name("txn-race-id");
  const std::array<producer, 2> initial = init_transactional(t(), id);
  auto produce_error = [](const answer& a, int16_t v) {
    if (!a.error.empty()) return -1;
    auto r = a.as<msg::produce_response>(v);
    return r.responses.empty() || r.responses[0].partition_responses.empty()
               ? -1
               : static_cast<int>(r.responses[0].partition_responses[0].error_code);
  };
  auto end_txn = [&](side s, const producer& p, bool commit) {
    msg::end_txn_request r;
    r.transactional_id = id;
    r.producer_id = p.id;
    r.producer_epoch = p.epoch;
    r.committed = commit;
    return t().send(s, 26, 5, encoded(r, 5)).as<msg::end_txn_response>(5);
  };
  constexpr int concurrent = static_cast<int>(protocol::error_code::concurrent_transactions);
  constexpr int not_enough_replicas = static_cast<int>(protocol::error_code::not_enough_replicas);
  constexpr int abortable = static_cast<int>(protocol::error_code::transaction_abortable);
  // A round takes a few milliseconds here; on a loaded machine (the whole
  // test command at once) the window is met less often, so many rounds are
  // allowed before the race counts as never seen.
  constexpr int rounds = 400;
  for (side s : k_sides) {
    SCOPED_TRACE(side_name(s));
    producer p = initial[static_cast<int>(s)];
    std::vector<uint8_t> batch;
    // Opens a transaction at p's epoch on first_topic (waiting out the
    // last one's markers) and commits it: p moves to the bumped epoch.
    auto commit_one = [&] {
      batch = transactional_batch(p, 0);
      EXPECT_TRUE(wait_until(
          [&] {
            return produce_error(t().send(s, 0, 12, encoded(transactional_produce(id, first_topic, {{0, &batch}}), 12)),
                                 12) == 0;
          },
          30s));
      auto ended = end_txn(s, p, true);
      EXPECT_EQ(ended.error_code, 0);
      p = {ended.producer_id, ended.producer_epoch};
    };
    // The next transaction's first write, right after the commit.
    for (int16_t v : {int16_t{12}, int16_t{11}}) {
      const int refused_with = v == 12 ? concurrent : not_enough_replicas;
      std::set<int> answers;
      for (int attempt = 0; attempt < rounds && !answers.contains(refused_with); ++attempt) {
        commit_one();
        batch = transactional_batch(p, 0);
        const int e = produce_error(t().send(s, 0, v, encoded(transactional_produce(id, next_topic, {{0, &batch}}), v)), v);
        answers.insert(e);
        // Once the markers are in: v12 is added (0), v11 was never added.
        EXPECT_TRUE(e == refused_with || e == (v == 12 ? 0 : abortable)) << "v" << v << ": error " << e;
      }
      EXPECT_TRUE(answers.contains(refused_with)) << "v" << v << ": the write never met the markers";
    }
    // The next transaction's abort, right after the commit.
    std::set<int> answers;
    for (int attempt = 0; attempt < rounds && !answers.contains(concurrent); ++attempt) {
      commit_one();
      auto aborted = end_txn(s, p, false);
      answers.insert(aborted.error_code);
      EXPECT_TRUE(aborted.error_code == concurrent || aborted.error_code == 0) << "error " << aborted.error_code;
      if (aborted.error_code == 0) {
        p = {aborted.producer_id, aborted.producer_epoch};
        continue;
      }
      // Waited out, the same abort goes through at the bumped epoch.
      msg::end_txn_response later;
      EXPECT_TRUE(wait_until(
          [&] { return (later = end_txn(s, p, false)).error_code != concurrent; }, 30s));
      EXPECT_EQ(later.error_code, 0);
      EXPECT_EQ(later.producer_epoch, p.epoch + 1);
      p = {later.producer_id, later.producer_epoch};
    }
    EXPECT_TRUE(answers.contains(concurrent)) << "the abort never met the markers";
  }
}

}  // namespace
}  // namespace hw::testing::differential
