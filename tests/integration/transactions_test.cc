// Transactions as librdkafka (Debian 12's 2.0.2) uses them against one
// highwater: a transactional producer finds its coordinator, gets its
// producer id, adds partitions, commits and aborts; a read_committed
// consumer sees the committed records only and stops at the last stable
// offset while a transaction is open; a second producer with the same
// transactional id fences the first and aborts what it left open; a
// transaction past its timeout is aborted by the coordinator; the
// coordinator's state survives a restart (loaded from __transaction_state);
// offsets sent to a transaction (TxnOffsetCommit) become the group's only
// when it commits. On three nodes: a coordinator that dies after its
// PrepareCommit is durable but before its markers are written leaves the
// commit to the next coordinator, which loads the PrepareCommit and writes
// the markers; a transactions v2 producer's first write right after its
// commit waits at the leader for the markers instead of failing.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "broker_process.h"
#include "metrics_scrape.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/init_producer_id.h"
#include "rdkafka_support.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;
using rdk::rd_conf;
using rdk::rd_handle;

// An rd_kafka_error_t*, freed; empty when there was none.
std::string error_text(rd_kafka_error_t* e) {
  if (!e) return {};
  std::string text = std::string(rd_kafka_error_name(e)) + ": " + rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  return text;
}

// A transactional producer on partition 0 of one topic.
class txn_producer {
 public:
  txn_producer(const endpoint& broker, const std::string& transactional_id,
               std::map<std::string, std::string> extra = {}) {
    extra.emplace("transactional.id", transactional_id);
    extra.emplace("linger.ms", "5");
    char err[512];
    h_.rk = rd_kafka_new(RD_KAFKA_PRODUCER, rd_conf(broker, extra), err, sizeof err);
    EXPECT_NE(h_.rk, nullptr) << err;
  }
  std::string init(int timeout_ms = 30000) { return error_text(rd_kafka_init_transactions(h_.rk, timeout_ms)); }
  std::string begin() { return error_text(rd_kafka_begin_transaction(h_.rk)); }
  std::string commit(int timeout_ms = 30000) {
    return error_text(rd_kafka_commit_transaction(h_.rk, timeout_ms));
  }
  std::string abort(int timeout_ms = 30000) { return error_text(rd_kafka_abort_transaction(h_.rk, timeout_ms)); }
  // Queues the values for partition 0 of topic; false if the client refused one.
  bool send(const std::string& topic, const std::vector<std::string>& values) {
    for (const auto& v : values) {
      auto e = rd_kafka_producev(h_.rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                 RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e) {
        ADD_FAILURE() << "produce " << v << ": " << rd_kafka_err2str(e);
        return false;
      }
    }
    return true;
  }
  bool flush() { return rd_kafka_flush(h_.rk, 30000) == RD_KAFKA_RESP_ERR_NO_ERROR; }
  rd_kafka_t* rk() const { return h_.rk; }

 private:
  rd_handle h_;
};

// The values of partition 0 from the beginning, read with this isolation
// level, until `count` are read or the consumer has been at the end for a
// second; at most 20 s.
std::vector<std::string> read_values(const endpoint& broker, const std::string& topic, const std::string& isolation,
                                     size_t count) {
  std::vector<std::string> out;
  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_CONSUMER,
                      rd_conf(broker, {{"isolation.level", isolation}, {"enable.partition.eof", "true"}}), err,
                      sizeof err);
  EXPECT_NE(h.rk, nullptr) << err;
  if (!h.rk) return out;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(h.rk, topic.c_str(), nullptr);
  EXPECT_EQ(rd_kafka_consume_start(rkt, 0, RD_KAFKA_OFFSET_BEGINNING), 0);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  std::optional<std::chrono::steady_clock::time_point> at_end_since;
  while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consume(rkt, 0, 200);
    if (!m) {
      if (at_end_since && std::chrono::steady_clock::now() - *at_end_since > 1s) break;
      continue;
    }
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (!at_end_since) at_end_since = std::chrono::steady_clock::now();
    } else if (!m->err) {
      at_end_since.reset();
      out.emplace_back(static_cast<const char*>(m->payload), m->len);
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consume_stop(rkt, 0);
  rd_kafka_topic_destroy(rkt);
  return out;
}

// ListOffsets latest of partition 0 with this isolation level: the high
// watermark (read_uncommitted) or the last stable offset (read_committed).
int64_t latest(const endpoint& broker, const std::string& topic, const std::string& isolation) {
  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_CONSUMER, rd_conf(broker, {{"isolation.level", isolation}}), err, sizeof err);
  if (!h.rk) return -2;
  int64_t low = -1, high = -1;
  if (rd_kafka_query_watermark_offsets(h.rk, topic.c_str(), 0, &low, &high, 10000)) return -2;
  return high;
}

std::vector<std::string> values(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class TransactionsIT : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& args = {}) { ASSERT_TRUE(broker.start(args)) << broker.log(); }
  endpoint at() const { return broker.port(); }
  void create(const std::string& topic) { ASSERT_EQ(rdk::create_topic(at(), topic, {}), "") << broker.log(); }
  broker_process broker;
};

TEST_F(TransactionsIT, ACommittedTransactionIsReadAndAnAbortedOneIsNot) {
  start();
  create("txn-basic");
  txn_producer p(at(), "writer-1");
  ASSERT_EQ(p.init(), "") << broker.log();

  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-basic", values("c", 5)));
  ASSERT_EQ(p.commit(), "") << broker.log();

  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-basic", values("a", 5)));
  ASSERT_TRUE(p.flush());  // written, then aborted
  ASSERT_EQ(p.abort(), "") << broker.log();

  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-basic", values("d", 3)));
  ASSERT_EQ(p.commit(), "") << broker.log();

  // 13 records and a marker after each transaction: offsets 0-15. Both ends
  // are 16 once the last marker is written and replicated.
  ASSERT_TRUE(wait_until([&] { return latest(at(), "txn-basic", "read_committed") == 16; }, 10s))
      << latest(at(), "txn-basic", "read_committed");
  EXPECT_EQ(latest(at(), "txn-basic", "read_uncommitted"), 16);
  EXPECT_EQ(read_values(at(), "txn-basic", "read_committed", 8), concat(values("c", 5), values("d", 3)));
  EXPECT_EQ(read_values(at(), "txn-basic", "read_uncommitted", 13),
            concat(concat(values("c", 5), values("a", 5)), values("d", 3)));
}

TEST_F(TransactionsIT, AReadCommittedConsumerStopsAtTheFirstOpenTransaction) {
  start();
  create("txn-open");
  txn_producer p(at(), "writer-open");
  ASSERT_EQ(p.init(), "") << broker.log();
  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-open", values("c", 2)));
  ASSERT_EQ(p.commit(), "") << broker.log();
  // Offsets 0, 1 and the marker at 2; the open transaction starts at 3.
  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-open", values("o", 4)));
  ASSERT_TRUE(p.flush());
  EXPECT_EQ(latest(at(), "txn-open", "read_uncommitted"), 7);
  EXPECT_EQ(latest(at(), "txn-open", "read_committed"), 3);
  EXPECT_EQ(read_values(at(), "txn-open", "read_committed", 6), values("c", 2));
  ASSERT_EQ(p.commit(), "") << broker.log();
  ASSERT_TRUE(wait_until([&] { return latest(at(), "txn-open", "read_committed") == 8; }, 10s));
  EXPECT_EQ(read_values(at(), "txn-open", "read_committed", 6), concat(values("c", 2), values("o", 4)));
}

// The transaction metrics on the Prometheus endpoint follow an open
// transaction: the coordinator counts it, the partition's read_committed
// readers lag by its records, its producer is held; a commit clears both.
TEST_F(TransactionsIT, TheMetricsFollowAnOpenTransactionUntilItCommits) {
  start({"--override", "highwater.metrics.port=0", "--override", "highwater.metrics.host=127.0.0.1"});
  create("txn-metrics");
  auto value = [&](const std::string& name) {
    return metric_sample(scrape_metrics(broker.port("METRICS")), name).value_or(-1);
  };
  txn_producer p(at(), "writer-metrics");
  ASSERT_EQ(p.init(), "") << broker.log();
  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-metrics", values("o", 4)));
  ASSERT_TRUE(p.flush());
  ASSERT_TRUE(wait_until([&] { return value("highwater_transaction_coordinator_open_transactions") == 1; }, 10s))
      << scrape_metrics(broker.port("METRICS"));
  // Offsets 0-3 above the last stable offset 0.
  EXPECT_EQ(value("highwater_replicamanager_laststableoffsetlagmax"), 4);
  EXPECT_GE(value("kafka_server_replicamanager_produceridcount"), 1);
  EXPECT_EQ(value("kafka_server_replicamanager_partitionswithlatetransactionscount"), 0);
  // __transaction_state's partitions were loaded moments ago.
  const std::string text = scrape_metrics(broker.port("METRICS"));
  const auto load_max = metric_sample(text, "kafka_server_transaction_coordinator_metrics_partition_load_time_max");
  ASSERT_TRUE(load_max) << text;
  EXPECT_FALSE(std::isnan(*load_max)) << text;
  EXPECT_GE(*load_max, 0) << text;

  ASSERT_EQ(p.commit(), "") << broker.log();
  ASSERT_TRUE(wait_until(
      [&] {
        return value("highwater_transaction_coordinator_open_transactions") == 0 &&
               value("highwater_replicamanager_laststableoffsetlagmax") == 0;
      },
      10s))
      << scrape_metrics(broker.port("METRICS"));
}

TEST_F(TransactionsIT, ASecondProducerWithTheIdFencesTheFirstAndAbortsWhatItLeftOpen) {
  start();
  create("txn-fence");
  txn_producer first(at(), "writer-fenced");
  ASSERT_EQ(first.init(), "") << broker.log();
  ASSERT_EQ(first.begin(), "");
  ASSERT_TRUE(first.send("txn-fence", values("old", 3)));
  ASSERT_TRUE(first.flush());

  // The coordinator aborts the open transaction at a bumped epoch, then
  // gives the new producer the next one.
  txn_producer second(at(), "writer-fenced");
  ASSERT_EQ(second.init(), "") << broker.log();
  ASSERT_EQ(second.begin(), "");
  ASSERT_TRUE(second.send("txn-fence", values("new", 2)));
  ASSERT_EQ(second.commit(), "") << broker.log();

  // The first producer is fenced: its commit fails for good.
  const std::string refused = first.commit(10000);
  EXPECT_NE(refused, "");
  EXPECT_NE(refused.find("FENCED"), std::string::npos) << refused;

  EXPECT_EQ(read_values(at(), "txn-fence", "read_committed", 2), values("new", 2));
  EXPECT_EQ(read_values(at(), "txn-fence", "read_uncommitted", 5), concat(values("old", 3), values("new", 2)));
}

TEST_F(TransactionsIT, TheCoordinatorAbortsATransactionPastItsTimeout) {
  start({"--override", "transaction.abort.timed.out.transaction.cleanup.interval.ms=200"});
  create("txn-timeout");
  txn_producer p(at(), "writer-slow", {{"transaction.timeout.ms", "1500"}});
  ASSERT_EQ(p.init(), "") << broker.log();
  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-timeout", values("late", 3)));
  ASSERT_TRUE(p.flush());
  // Records at 0-2, the abort marker at 3: the last stable offset moves on
  // without the producer.
  ASSERT_TRUE(wait_until([&] { return latest(at(), "txn-timeout", "read_committed") == 4; }, 15s))
      << latest(at(), "txn-timeout", "read_committed") << "\n" << broker.log();
  EXPECT_TRUE(read_values(at(), "txn-timeout", "read_committed", 1).empty());
  EXPECT_NE(p.commit(10000), "");
}

TEST_F(TransactionsIT, TheCoordinatorKeepsItsStateAcrossARestart) {
  start();
  create("txn-restart");
  {
    txn_producer p(at(), "writer-restart");
    ASSERT_EQ(p.init(), "") << broker.log();
    ASSERT_EQ(p.begin(), "");
    ASSERT_TRUE(p.send("txn-restart", values("before", 2)));
    ASSERT_EQ(p.commit(), "") << broker.log();
    // Left open across the restart: the next producer's init aborts it.
    ASSERT_EQ(p.begin(), "");
    ASSERT_TRUE(p.send("txn-restart", values("open", 2)));
    ASSERT_TRUE(p.flush());
  }
  ASSERT_EQ(broker.stop(SIGTERM), 0) << broker.log();
  start();
  txn_producer p(at(), "writer-restart");
  ASSERT_EQ(p.init(), "") << broker.log();
  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-restart", values("after", 2)));
  ASSERT_EQ(p.commit(), "") << broker.log();
  EXPECT_EQ(read_values(at(), "txn-restart", "read_committed", 4), concat(values("before", 2), values("after", 2)));
}

// The group's committed offset of partition 0 of topic, as a consumer of
// the group reads it (OffsetFetch); -1001 (librdkafka's INVALID) when none.
int64_t committed(const endpoint& broker, const std::string& group, const std::string& topic) {
  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_CONSUMER, rd_conf(broker, {{"group.id", group}}), err, sizeof err);
  if (!h.rk) return -2;
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic.c_str(), 0);
  int64_t out = -2;
  if (rd_kafka_committed(h.rk, parts, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR && !parts->elems[0].err)
    out = parts->elems[0].offset;
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_consumer_close(h.rk);
  return out;
}

// sendOffsetsToTransaction for partition 0 of topic, as a producer outside
// the group's membership (generation -1) sends it.
std::string send_offsets(txn_producer& p, const std::string& group, const std::string& topic, int64_t offset) {
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offsets, topic.c_str(), 0)->offset = offset;
  rd_kafka_consumer_group_metadata_t* meta = rd_kafka_consumer_group_metadata_new(group.c_str());
  std::string e = error_text(rd_kafka_send_offsets_to_transaction(p.rk(), offsets, meta, 30000));
  rd_kafka_consumer_group_metadata_destroy(meta);
  rd_kafka_topic_partition_list_destroy(offsets);
  return e;
}

TEST_F(TransactionsIT, OffsetsSentInATransactionAreTheGroupsOnlyIfItCommits) {
  start();
  create("txn-in");
  create("txn-out");
  txn_producer p(at(), "copier");
  ASSERT_EQ(p.init(), "") << broker.log();

  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-out", values("x", 3)));
  ASSERT_EQ(send_offsets(p, "copiers", "txn-in", 7), "") << broker.log();
  ASSERT_EQ(p.commit(), "") << broker.log();
  EXPECT_EQ(committed(at(), "copiers", "txn-in"), 7) << broker.log();

  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-out", values("y", 3)));
  ASSERT_EQ(send_offsets(p, "copiers", "txn-in", 12), "") << broker.log();
  ASSERT_EQ(p.abort(), "") << broker.log();
  EXPECT_EQ(committed(at(), "copiers", "txn-in"), 7) << "an aborted transaction's offsets are not the group's";

  // Both survive a restart: the committed offset as the group's, the
  // aborted one dropped again when __consumer_offsets is replayed.
  ASSERT_EQ(broker.stop(SIGTERM), 0) << broker.log();
  start();
  EXPECT_EQ(committed(at(), "copiers", "txn-in"), 7) << broker.log();
  EXPECT_EQ(read_values(at(), "txn-out", "read_committed", 3), values("x", 3));
}

// DescribeTransactions v0 of one id, through node at: its state, or
// "error N" when the node answers an error for it.
std::string transaction_state(const endpoint& at, const std::string& transactional_id) {
  raw_client client(at);
  msg::describe_transactions_request req;
  req.transactional_ids = {transactional_id};
  auto resp = client.call<msg::describe_transactions_response>(65, 0, req);
  if (!resp || resp->transaction_states.size() != 1) return "no answer";
  const auto& s = resp->transaction_states[0];
  return s.error_code ? "error " + std::to_string(s.error_code) : s.transaction_state;
}

// Three combined nodes; a leader asks the coordinator again, for up to
// 10 s, to add a partition it refused with CONCURRENT_TRANSACTIONS (Kafka's
// default is 100 ms: long enough on a quiet machine, not under sanitizers
// on a loaded one).
class TransactionsOnThreeNodesIT : public replication_cluster {
 protected:
  std::vector<std::string> extra_overrides() const override {
    return {"add.partitions.to.txn.retry.backoff.max.ms=10000"};
  }
  // The coordinator of a transactional id, once one answers.
  int coordinator_of(const std::string& transactional_id) {
    std::pair<int16_t, int32_t> found;
    const bool ok = wait_until(
        [&] {
          found = raw_client(at(0)).find_coordinator(transactional_id, 1);
          return found.first == 0;
        },
        30s);
    EXPECT_TRUE(ok) << found.first << "\n" << logs();
    return ok ? found.second : -1;
  }
};

// The coordinator writes PrepareCommit (durable on the __transaction_state
// replicas) and answers the producer, but cannot write the commit marker:
// the data partition's only replica is down. The coordinator dies then.
// When the data partition comes back, the partition's next leader has
// become the coordinator: it loaded the PrepareCommit and writes the
// markers, so the transaction commits whole and the id is usable again.
TEST_F(TransactionsOnThreeNodesIT, ACoordinatorDeadBetweenPrepareAndCompleteLeavesTheMarkersToTheNext) {
  const std::string id = "failover-txn";
  const int coordinator = coordinator_of(id);
  ASSERT_GT(coordinator, 0);
  const int data_leader = coordinator % 3 + 1;
  const int next = 6 - coordinator - data_leader;
  // The data partition on one node, which will be down for the commit.
  create_placed("txn-data", {data_leader}, "1");

  txn_producer p(at(coordinator - 1), id);
  ASSERT_EQ(p.init(), "") << logs();
  ASSERT_EQ(p.begin(), "");
  ASSERT_TRUE(p.send("txn-data", values("t", 5)));
  ASSERT_TRUE(p.flush());
  ASSERT_EQ(nodes[data_leader - 1]->stop(SIGKILL), -SIGKILL);
  // Durable PrepareCommit: EndTxn is answered once the record is on the ISR.
  ASSERT_EQ(p.commit(), "") << logs();
  EXPECT_EQ(transaction_state(at(coordinator - 1), id), "PrepareCommit") << logs();
  ASSERT_EQ(nodes[coordinator - 1]->stop(SIGKILL), -SIGKILL);

  // Two nodes of three again: the quorum elects, the coordinator's broker
  // is fenced, and its __transaction_state partition moves to `next`.
  ASSERT_TRUE(start_node(data_leader - 1)) << logs();
  ASSERT_TRUE(wait_until([&] { return raw_client(at(next - 1)).find_coordinator(id, 1) == std::pair<int16_t, int32_t>{0, next}; },
                         60s))
      << logs();
  ASSERT_TRUE(wait_until([&] { return transaction_state(at(next - 1), id) == "CompleteCommit"; }, 60s))
      << transaction_state(at(next - 1), id) << "\n"
      << logs();
  // Five records and the commit marker: the last stable offset is the end.
  EXPECT_EQ(latest(at(next - 1), "txn-data", "read_committed"), 6);
  EXPECT_EQ(read_values(at(next - 1), "txn-data", "read_committed", 5), values("t", 5));

  // The id goes on with its next transaction.
  ASSERT_TRUE(start_node(coordinator - 1)) << logs();
  txn_producer again(at(next - 1), id);
  ASSERT_EQ(again.init(), "") << logs();
  ASSERT_EQ(again.begin(), "");
  ASSERT_TRUE(again.send("txn-data", values("u", 2)));
  ASSERT_EQ(again.commit(), "") << logs();
  EXPECT_EQ(read_values(at(next - 1), "txn-data", "read_committed", 7), concat(values("t", 5), values("u", 2)));
}

// EndTxn v5 (transactions v2): the error, and the epoch the producer goes on with.
std::pair<int16_t, int16_t> end_txn_v5(raw_client& client, const std::string& transactional_id, int64_t producer_id,
                                       int16_t epoch, bool commit) {
  msg::end_txn_request req;
  req.transactional_id = transactional_id;
  req.producer_id = producer_id;
  req.producer_epoch = epoch;
  req.committed = commit;
  auto resp = client.call<msg::end_txn_response>(26, 5, req);
  if (!resp) return {-1, -1};
  return {resp->error_code, resp->producer_epoch};
}

// A transactions v2 producer writes to a partition right after EndTxn
// answered: the coordinator is still writing the last transaction's
// markers (to another broker, acks=all, then its complete record), so it
// refuses the leader's implicit add with CONCURRENT_TRANSACTIONS; the
// leader asks again until the markers are out, and the write succeeds in
// the new transaction instead of failing with a retriable error.
TEST_F(TransactionsOnThreeNodesIT, AWriteRightAfterACommitWaitsAtTheLeaderForTheMarkers) {
  const std::string id = "v2-right-after";
  const int coordinator = coordinator_of(id);
  ASSERT_GT(coordinator, 0);
  const int leader = coordinator % 3 + 1;
  const int other = 6 - coordinator - leader;
  create_placed("txn-after", {leader, other, coordinator}, "2");

  raw_client to_coordinator(at(coordinator - 1));
  msg::init_producer_id_request init;
  init.transactional_id = id;
  init.transaction_timeout_ms = 60000;
  std::optional<msg::init_producer_id_response> producer;
  ASSERT_TRUE(wait_until(
      [&] {
        producer = to_coordinator.call<msg::init_producer_id_response>(22, 5, init);
        return producer && producer->error_code == 0;
      },
      30s))
      << logs();
  const int64_t pid = producer->producer_id;
  int16_t epoch = producer->producer_epoch;

  raw_client to_leader(at(leader - 1));
  for (int round = 0; round < 5; ++round) {
    auto written = to_leader.produce("txn-after", 0, transactional_batch(pid, epoch, 0, values("r", 3)), -1, id, 12);
    ASSERT_TRUE(written);
    ASSERT_EQ(written->error_code, 0) << "round " << round << "\n" << logs();
    auto [error, next_epoch] = end_txn_v5(to_coordinator, id, pid, epoch, true);
    ASSERT_EQ(error, 0) << "round " << round;
    ASSERT_EQ(next_epoch, epoch + 1);
    epoch = next_epoch;
  }
  // Five transactions of three records and a marker each, all committed.
  ASSERT_TRUE(wait_until([&] { return latest(at(leader - 1), "txn-after", "read_committed") == 20; }, 20s))
      << latest(at(leader - 1), "txn-after", "read_committed") << "\n"
      << logs();
  EXPECT_EQ(read_values(at(leader - 1), "txn-after", "read_committed", 15).size(), 15u);

  // Each replica rebuilt the producer's state from what it replicated, and
  // answers DescribeProducers itself, followers too (as Kafka's do:
  // kafka-transactions find-hanging asks one broker about all it hosts).
  for (int node : {leader, other, coordinator}) {
    msg::describe_producers_request req;
    auto& t = req.topics.emplace_back();
    t.name = "txn-after";
    t.partition_indexes = {0};
    std::string seen;
    EXPECT_TRUE(wait_until(
        [&] {
          raw_client c(at(node - 1));
          auto r = c.call<msg::describe_producers_response>(61, 0, req);
          if (!r || r->topics.size() != 1 || r->topics[0].partitions.size() != 1) return false;
          const auto& part = r->topics[0].partitions[0];
          seen = "error " + std::to_string(part.error_code);
          for (const auto& ps : part.active_producers)
            seen += ", producer " + std::to_string(ps.producer_id) + " epoch " + std::to_string(ps.producer_epoch) +
                    " open at " + std::to_string(ps.current_txn_start_offset);
          return part.error_code == 0 && part.active_producers.size() == 1 &&
                 part.active_producers[0].producer_id == pid && part.active_producers[0].producer_epoch == epoch &&
                 part.active_producers[0].current_txn_start_offset == -1;
        },
        10s))
        << "node " << node << ": " << seen;
  }
}

}  // namespace
}  // namespace hw::testing
