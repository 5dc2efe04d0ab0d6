// Consume-transform-produce chains on three nodes whose consumer groups
// rebalance while they commit, with the real clients' transactional
// producers: franz-go's own TestTxnEtl (its kgo suite, transactions v2),
// and a chain of librdkafka workers written here that join and leave their
// group mid-copy. (Kafka's Java TransactionalMessageCopier does the same in
// tools_transactions_test.cc.) The cluster is a new user's: automatic topic
// creation, 4 partitions, replication factor 3, min.insync.replicas=2 for
// every topic and the internal ones, no initial rebalance delay.
//
// What must hold: every input record comes out exactly once for a
// read_committed reader, in input order per partition, and no client is
// ever fenced or told its transaction state is invalid: a rebalance only
// aborts the transaction in flight (its offsets are for a generation that
// is gone), and the worker copies those records again.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "cluster_queries.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;

// The settings of the cluster (what a docker-compose file of three
// brokers sets).
const std::vector<std::string> k_cluster_settings{
    "auto.create.topics.enable=true",
    "num.partitions=4",
    "default.replication.factor=3",
    "min.insync.replicas=2",
    "offsets.topic.replication.factor=3",
    "transaction.state.log.replication.factor=3",
    "transaction.state.log.min.isr=2",
    "group.initial.rebalance.delay.ms=0",
};

class TxnEtlIT : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "TxnEtlOnThreeNodes0000", 1);
    ASSERT_TRUE(cluster.start(false, cluster_settings())) << logs();
    // Every broker registered and unfenced as the metadata says, so that a
    // topic of replication factor 3 can be placed at once.
    ASSERT_TRUE(wait_until(
        [&] {
          raw_client c(cluster.nodes[0]->port());
          auto md = c.connected() ? c.metadata(std::vector<std::string>{}) : std::nullopt;
          return md && md->brokers.size() == 3;
        },
        60s))
        << logs();
  }
  void TearDown() override { unsetenv("CLUSTER_ID"); }
  virtual std::vector<std::string> cluster_settings() const { return k_cluster_settings; }

  std::string bootstrap() const {
    std::string out;
    for (const auto& n : cluster.nodes) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(n->port());
    return out;
  }
  std::string logs() const {
    std::string out;
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
      out += "--- node " + std::to_string(i + 1) + " log (end) ---\n" + tail(cluster.nodes[i]->log(), 15000);
    return out;
  }

  kraft_nodes cluster;
};

// franz-go's TestTxnEtl (pkg/kgo/txn_test.go at the release
// scripts/fetch-franz-go.sh builds): one transactional producer writes
// KGO_TEST_RECORDS records, committing every 10,000, while three levels of
// transactional consume-transform-produce groups copy them on, members
// joining and quitting after a few transactions each, for each of the
// eager (range), cooperative-sticky and static-member balancers, and with
// the consumer protocol of KIP-848 (range/848, sticky/848 and a static
// sticky/848: franz-go runs them when the broker offers
// ConsumerGroupHeartbeat). The test checks every record arrives once at
// the last level, in order.
TEST_F(TxnEtlIT, FranzGoTxnEtlPasses) {
  auto fetched = run_captured(cluster.nodes[0]->dir(), "fetch-franz-go", HW_SOURCE_DIR "/scripts/fetch-franz-go.sh",
                              "", 900);
  ASSERT_EQ(fetched.exit_code, 0) << fetched.all();
  const std::string binary = lines_of(fetched.out).back();
  const char* records = std::getenv("HW_KGO_TEST_RECORDS");
  const std::string command = "env KGO_SEEDS=" + bootstrap() + " KGO_TEST_RF=3 KGO_TEST_RECORDS=" +
                              std::string(records ? records : "30000") + " " + shell_quote(binary) +
                              " -test.run '^TestTxnEtl$' -test.v -test.count 1 -test.timeout 270s";
  auto run = run_captured(cluster.nodes[0]->dir(), "kgo-txn-etl", command, "", 300);
  std::vector<std::string> verdicts;
  for (const auto& line : lines_of(run.out))
    if (line.find("--- ") != std::string::npos) verdicts.push_back(line);
  std::string summary;
  for (const auto& v : verdicts) summary += v + "\n";
  std::printf("%s", summary.c_str());
  EXPECT_EQ(run.exit_code, 0) << summary << "--- franz-go (end) ---\n"
                              << tail(run.out, 20000) << tail(run.err, 5000) << logs();
  EXPECT_NE(run.out.find("--- PASS: TestTxnEtl"), std::string::npos) << summary;
  // Every variant ran, none skipped: the classic protocol's three and the
  // consumer protocol's three.
  for (const char* variant : {"TestTxnEtl/range", "TestTxnEtl/cooperative-sticky", "TestTxnEtl/cooperative-sticky/static",
                              "TestTxnEtl/range/848", "TestTxnEtl/sticky/848", "TestTxnEtl/sticky/848/static"})
    EXPECT_NE(run.out.find(std::string("--- PASS: ") + variant + " "), std::string::npos) << variant << "\n" << summary;
}

// --- librdkafka --------------------------------------------------------------

constexpr int k_partitions = 4;
constexpr int k_per_partition = 600;

rd_kafka_conf_t* conf_of(const std::map<std::string, std::string>& settings) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] : settings)
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      ADD_FAILURE() << k << ": " << err;
  return conf;
}

// What the workers share: how many records their committed transactions
// copied, and what went wrong that must not.
struct chain_state {
  std::atomic<int> committed{0};
  std::atomic<int> aborted{0};
  std::atomic<int> failed{0};
  std::mutex mu;
  std::vector<std::string> failures;  // fatal errors, errors a client must never see
  void fail(const std::string& what) {
    std::lock_guard lock(mu);
    failures.push_back(what);
    ++failed;
  }
};

// One member of the chain: a read_committed consumer of etl-in in
// etl-group and a transactional producer of its own id. It copies what it
// polls (up to 50 records) in one transaction to the same partition of
// etl-out, with the consumer's positions and group metadata (KIP-447), and
// commits. An abortable error (the group moved on: the offsets' generation
// is gone) aborts and rewinds to where the batch began; a rebalance while
// a batch is gathered drops the batch and rewinds likewise, since the
// records of a revoked partition belong to its next owner.
class etl_worker {
 public:
  etl_worker(std::string bootstrap, std::string id, std::string strategy, chain_state& state)
      : bootstrap_(std::move(bootstrap)), id_(std::move(id)), strategy_(std::move(strategy)), state_(state) {
    thread_ = std::thread([this] {
      run();
      done_ = true;
    });
  }
  ~etl_worker() { stop(false); }
  // Stops copying; with leave_group, leaves the group (closes the
  // consumer) once the member has had its first assignment: librdkafka
  // before 2.2.1 (Debian 12 ships 2.0.2) dereferences the
  // cooperative-sticky assignor's state, which only the first assignment
  // makes, when a consumer is closed before that (its issue 4312), and
  // crashes. A member that joins as the chain finishes can be asked to
  // stop that early. Without leave_group the client is destroyed without
  // closing its consumer: the chain's end, where what is checked is the
  // output, not the group, and where 2.0.2's cooperative close, racing
  // the rebalances the other members' departures start, is the one step
  // that can bring the client down.
  void stop(bool leave_group = true) {
    leave_group_ = leave_group;
    if (leave_group) wait_until([&] { return assigned_.load() || done_.load(); }, 60s);
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                           void* opaque) {
    auto* self = static_cast<etl_worker*>(opaque);
    self->rebalanced_ = true;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) self->assigned_ = true;
    const bool cooperative = std::string(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      if (cooperative) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, parts)) rd_kafka_error_destroy(e);
      } else {
        rd_kafka_assign(rk, parts);
      }
    } else if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, parts)) rd_kafka_error_destroy(e);
    } else {
      rd_kafka_assign(rk, nullptr);
    }
  }

  // Seeks each partition of the batch back to its first record (those
  // this member no longer owns refuse the seek, which is what we want).
  void rewind(rd_kafka_t* consumer, const std::map<int32_t, int64_t>& first) {
    if (first.empty()) return;
    rd_kafka_topic_partition_list_t* l = rd_kafka_topic_partition_list_new(static_cast<int>(first.size()));
    for (const auto& [p, o] : first) rd_kafka_topic_partition_list_add(l, "etl-in", p)->offset = o;
    if (rd_kafka_error_t* e = rd_kafka_seek_partitions(consumer, l, 10000)) rd_kafka_error_destroy(e);
    rd_kafka_topic_partition_list_destroy(l);
  }

  // An error of a transactional call: abortable ones abort (true: rewind);
  // anything else is a failure of the test.
  bool failed(rd_kafka_t* producer, rd_kafka_error_t* e, const char* call) {
    if (!e) return false;
    const std::string what = std::string(call) + ": " + rd_kafka_error_string(e);
    const bool abortable = rd_kafka_error_txn_requires_abort(e);
    rd_kafka_error_destroy(e);
    if (!abortable) {
      state_.fail(id_ + " " + what);
      broken_ = true;
      return true;
    }
    if (rd_kafka_error_t* a = rd_kafka_abort_transaction(producer, 60000)) {
      state_.fail(id_ + " abort after " + what + ": " + rd_kafka_error_string(a));
      rd_kafka_error_destroy(a);
      broken_ = true;
    }
    ++state_.aborted;
    return true;
  }

  void run() {
    char err[512];
    rd_kafka_t* producer =
        rd_kafka_new(RD_KAFKA_PRODUCER,
                     conf_of({{"bootstrap.servers", bootstrap_}, {"transactional.id", id_}, {"linger.ms", "5"}}), err,
                     sizeof err);
    rd_kafka_conf_t* cc = conf_of({{"bootstrap.servers", bootstrap_},
                                   {"group.id", "etl-group"},
                                   {"isolation.level", "read_committed"},
                                   {"enable.auto.commit", "false"},
                                   {"auto.offset.reset", "earliest"},
                                   {"partition.assignment.strategy", strategy_},
                                   {"session.timeout.ms", "10000"}});
    rd_kafka_conf_set_opaque(cc, this);
    rd_kafka_conf_set_rebalance_cb(cc, on_rebalance);
    rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cc, err, sizeof err);
    if (!producer || !consumer) {
      state_.fail(id_ + ": " + err);
      return;
    }
    rd_kafka_poll_set_consumer(consumer);
    if (rd_kafka_error_t* e = rd_kafka_init_transactions(producer, 60000)) {
      state_.fail(id_ + " init_transactions: " + rd_kafka_error_string(e));
      rd_kafka_error_destroy(e);
      broken_ = true;
    }
    rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, "etl-in", RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(consumer, topics);
    rd_kafka_topic_partition_list_destroy(topics);

    while (!stop_ && !broken_) {
      // Gather a batch.
      struct record {
        int32_t partition;
        int64_t offset;
        std::string value;
      };
      std::vector<record> batch;
      std::map<int32_t, int64_t> first, next;
      rebalanced_ = false;
      const auto until = std::chrono::steady_clock::now() + 200ms;
      while (batch.size() < 50 && std::chrono::steady_clock::now() < until && !rebalanced_) {
        rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 50);
        if (!m) continue;
        if (!m->err) {
          batch.push_back({m->partition, m->offset, std::string(static_cast<const char*>(m->payload), m->len)});
          first.emplace(m->partition, m->offset);
          next[m->partition] = m->offset + 1;
        }
        rd_kafka_message_destroy(m);
      }
      if (rebalanced_) {
        rewind(consumer, first);
        continue;
      }
      if (batch.empty()) continue;

      if (rd_kafka_error_t* e = rd_kafka_begin_transaction(producer)) {
        state_.fail(id_ + " begin_transaction: " + rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
        break;
      }
      for (const auto& r : batch) {
        for (;;) {
          auto e = rd_kafka_producev(producer, RD_KAFKA_V_TOPIC("etl-out"), RD_KAFKA_V_PARTITION(r.partition),
                                     RD_KAFKA_V_VALUE(const_cast<char*>(r.value.data()), r.value.size()),
                                     RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
          if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
          rd_kafka_poll(producer, 10);
        }
      }
      rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(static_cast<int>(next.size()));
      for (const auto& [p, o] : next) rd_kafka_topic_partition_list_add(offsets, "etl-in", p)->offset = o;
      rd_kafka_consumer_group_metadata_t* group = rd_kafka_consumer_group_metadata(consumer);
      bool rewound = failed(producer, rd_kafka_send_offsets_to_transaction(producer, offsets, group, 60000),
                            "send_offsets_to_transaction");
      rd_kafka_consumer_group_metadata_destroy(group);
      rd_kafka_topic_partition_list_destroy(offsets);
      if (!rewound) {
        rewound = failed(producer, rd_kafka_commit_transaction(producer, 60000), "commit_transaction");
        if (!rewound) state_.committed += static_cast<int>(batch.size());
      }
      if (rewound) rewind(consumer, first);
    }
    if (leave_group_) rd_kafka_consumer_close(consumer);
    rd_kafka_destroy_flags(consumer, leave_group_ ? 0 : RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    rd_kafka_destroy(producer);
  }

  std::string bootstrap_, id_, strategy_;
  chain_state& state_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leave_group_{true};
  std::atomic<bool> assigned_{false};  // a first assignment came
  std::atomic<bool> done_{false};      // run() returned
  bool broken_ = false;
  bool rebalanced_ = false;
  std::thread thread_;
};

// Writes each input partition's values (not transactional).
void fill_input(const std::string& bootstrap, const std::vector<std::vector<std::string>>& in) {
  char err[512];
  rd_kafka_t* p = rd_kafka_new(RD_KAFKA_PRODUCER, conf_of({{"bootstrap.servers", bootstrap}, {"acks", "all"}}), err,
                               sizeof err);
  ASSERT_NE(p, nullptr) << err;
  for (int32_t part = 0; part < static_cast<int32_t>(in.size()); ++part)
    for (const auto& v : in[part])
      for (;;) {
        auto e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC("etl-in"), RD_KAFKA_V_PARTITION(part),
                                   RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                                   RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
          ASSERT_EQ(e, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(e);
          break;
        }
        rd_kafka_poll(p, 10);
      }
  EXPECT_EQ(rd_kafka_flush(p, 60000), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_destroy(p);
}

// etl-out's partitions as a read_committed reader (no group) sees them,
// read until `expected` records came or nothing new for 10 s.
std::vector<std::vector<std::string>> read_output(const std::string& bootstrap, size_t expected) {
  std::vector<std::vector<std::string>> out(k_partitions);
  char err[512];
  rd_kafka_t* c = rd_kafka_new(
      RD_KAFKA_CONSUMER,
      conf_of({{"bootstrap.servers", bootstrap}, {"group.id", "etl-reader"}, {"isolation.level", "read_committed"}}),
      err, sizeof err);
  if (!c) {
    ADD_FAILURE() << err;
    return out;
  }
  rd_kafka_poll_set_consumer(c);
  rd_kafka_topic_partition_list_t* l = rd_kafka_topic_partition_list_new(k_partitions);
  for (int32_t p = 0; p < k_partitions; ++p)
    rd_kafka_topic_partition_list_add(l, "etl-out", p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(c, l);
  rd_kafka_topic_partition_list_destroy(l);
  size_t got = 0;
  auto last_news = std::chrono::steady_clock::now();
  while (got < expected && std::chrono::steady_clock::now() - last_news < 10s) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 200);
    if (!m) continue;
    if (!m->err && m->partition >= 0 && m->partition < k_partitions) {
      out[m->partition].emplace_back(static_cast<const char*>(m->payload), m->len);
      ++got;
      last_news = std::chrono::steady_clock::now();
    }
    rd_kafka_message_destroy(m);
  }
  // Anything past the expected count would be a duplicate: look a little
  // longer for one.
  const auto extra_until = std::chrono::steady_clock::now() + 2s;
  while (std::chrono::steady_clock::now() < extra_until) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 200);
    if (!m) continue;
    if (!m->err && m->partition >= 0 && m->partition < k_partitions)
      out[m->partition].emplace_back(static_cast<const char*>(m->payload), m->len);
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  return out;
}

// librdkafka's transactional producers (transactions v1: the client adds
// partitions itself) in a chain of members that join and leave etl-group
// while it copies: one member, then two, three, the first leaving, a
// fourth joining, each step once the chain has moved on. Every membership
// change is a rebalance that meets transactions in flight. Run with the
// eager and the cooperative protocol.
class LibrdkafkaEtlIT : public TxnEtlIT, public ::testing::WithParamInterface<const char*> {};

TEST_P(LibrdkafkaEtlIT, MembersJoiningAndLeavingCopyEachRecordOnce) {
  std::vector<std::vector<std::string>> in(k_partitions);
  for (int32_t p = 0; p < k_partitions; ++p)
    for (int i = 0; i < k_per_partition; ++i) in[p].push_back("p" + std::to_string(p) + "-" + std::to_string(i));
  const int total = k_partitions * k_per_partition;
  fill_input(bootstrap(), in);  // etl-in created by the first write (auto-creation: 4 partitions, RF 3)

  chain_state state;
  std::vector<std::unique_ptr<etl_worker>> workers;
  int started = 0;
  auto start_one = [&] {
    workers.push_back(std::make_unique<etl_worker>(bootstrap(), "etl-" + std::string(GetParam()) + "-" +
                                                                     std::to_string(++started),
                                                   GetParam(), state));
  };
  auto moved_past = [&](int n) {
    return wait_until([&] { return state.committed >= n || state.failed > 0; }, 90s);
  };
  start_one();
  ASSERT_TRUE(moved_past(total / 6)) << "no progress with one member\n" << logs();
  start_one();
  ASSERT_TRUE(moved_past(2 * total / 6)) << "no progress with two members\n" << logs();
  start_one();
  ASSERT_TRUE(moved_past(3 * total / 6)) << "no progress with three members\n" << logs();
  workers.front()->stop();  // leaves the group
  ASSERT_TRUE(moved_past(4 * total / 6)) << "no progress after the first left\n" << logs();
  start_one();
  ASSERT_TRUE(moved_past(total)) << state.committed << " of " << total << " copied\n" << logs();
  for (auto& w : workers) w->stop(/*leave_group=*/false);

  for (const auto& f : state.failures) ADD_FAILURE() << f;
  EXPECT_EQ(state.committed.load(), total) << "records committed more than once";
  std::printf("%s: %d records copied, %d transactions aborted on the way\n", GetParam(), state.committed.load(),
              state.aborted.load());
  const auto out = read_output(bootstrap(), static_cast<size_t>(total));
  for (int32_t p = 0; p < k_partitions; ++p) {
    EXPECT_EQ(out[p].size(), in[p].size()) << "partition " << p;
    EXPECT_TRUE(out[p] == in[p]) << "partition " << p << " is not its input, once and in order";
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, LibrdkafkaEtlIT, ::testing::Values("range", "cooperative-sticky"),
                         [](const auto& info) { return std::string(info.param) == "range" ? "Eager" : "Cooperative"; });

// --- confluent-kafka with group.protocol=consumer, under bounces ------------

// The same chain with KIP-848 members (tests/compat/python/etl_member.py:
// confluent-kafka, librdkafka 2.16, group.protocol=consumer, transactions
// with the consumer's group metadata, so each TxnOffsetCommit carries the
// member epoch), each in a process of its own, paced so that the faults
// meet the copy mid-way, as Kafka's transactions system test bounces its
// copiers' cluster: the group's coordinator killed (SIGKILL) and started
// again, which moves the group to another node that must carry it on from
// its records in __consumer_offsets without a new assignment; a member
// leaving and another joining; the transaction coordinator of a member
// killed; the leader of an output partition stopped cleanly (SIGTERM).
// Every input record still comes out once, in order, for read_committed,
// and no member is ever told anything but an abortable error.
class ConsumerProtocolEtlIT : public TxnEtlIT {
 protected:
  static constexpr int k_records_per_partition = 600;

  // Sessions of 10 s rather than 45: a member that librdkafka left stuck
  // (see spawn) gives its partitions up sooner.
  std::vector<std::string> cluster_settings() const override {
    auto settings = k_cluster_settings;
    settings.insert(settings.end(),
                    {"group.consumer.min.session.timeout.ms=10000", "group.consumer.session.timeout.ms=10000"});
    return settings;
  }

  // One member process and what it printed so far.
  struct member {
    std::string id;
    std::unique_ptr<background_tool> process;
    int runs = 0;         // processes started under this id
    bool stopping = false;  // asked to leave
    int committed = 0;    // records of its committed transactions
    int changes = 0;      // rebalance callbacks that gave or took partitions
    std::set<int32_t> held;  // its partitions, as its callbacks said
    std::vector<std::string> failures;
  };

  // The member's process, started again under the same transactional.id
  // after librdkafka got stuck (etl_member.py's "stuck", exit code 4).
  void spawn(member& m) {
    // HW_ETL_MEMBER_DIR keeps the members' output (<id>[-<run>].out, .err) there.
    const char* kept = std::getenv("HW_ETL_MEMBER_DIR");
    const std::string name = m.id + (m.runs ? "-" + std::to_string(m.runs + 1) : "");
    ++m.runs;
    m.held.clear();
    m.process = std::make_unique<background_tool>(
        kept && *kept ? std::string(kept) : cluster.nodes[0]->dir(), name,
        background_tool::program{{HW_PY_PYTHON, HW_SOURCE_DIR "/tests/compat/python/etl_member.py", "--bootstrap",
                                  bootstrap(), "--id", m.id, "--protocol", "consumer", "--batch", "10",
                                  "--pause-ms", "150"}},
        300);
  }
  void start_member() {
    auto m = std::make_unique<member>();
    m->id = "etl-848-" + std::to_string(members_.size() + 1);
    spawn(*m);
    ASSERT_TRUE(m->process->started()) << m->id;
    members_.push_back(std::move(m));
  }
  void stop_member(member& m) {
    m.stopping = true;
    drain();
    EXPECT_EQ(m.process->stop(SIGTERM, 60s), 0) << m.id << "\n" << member_outputs();
    drain();
  }

  // Reads what the members printed since the last call; a member that
  // exited stuck is started again, one that exited otherwise unasked is
  // a failure.
  void drain() {
    for (auto& m : members_) {
      for (const auto& line : m->process->new_lines()) {
        if (auto n = number_after(line, "\"committed\": ")) m->committed += *n;
        const bool assigned = line.find("\"assigned\": [") != std::string::npos;
        if (assigned || line.find("\"revoked\": [") != std::string::npos) {
          const auto parts = partitions_in(line);
          if (!parts.empty()) ++m->changes;
          for (int32_t p : parts) assigned ? (void)m->held.insert(p) : (void)m->held.erase(p);
        }
        if (line.find("\"failed\"") != std::string::npos) m->failures.push_back(m->id + ": " + line);
        if (line.find("\"stuck\"") != std::string::npos) stuck_.push_back(m->id + ": " + line);
      }
      if (m->stopping || m->process->running()) continue;
      const int code = m->process->wait().exit_code;
      if (code == 4 && m->runs < 3) {
        std::printf("%s stuck in librdkafka: started again\n", m->id.c_str());
        spawn(*m);
      } else if (m->failures.empty()) {
        m->failures.push_back(m->id + " exited with " + std::to_string(code));
      }
    }
  }
  // A count summed over the members, after reading what they printed.
  int total(int member::*count) {
    drain();
    int n = 0;
    for (const auto& m : members_) n += (*m).*count;
    return n;
  }
  int committed() { return total(&member::committed); }
  int changes() { return total(&member::changes); }
  int runs() { return total(&member::runs); }
  bool failed() {
    drain();
    for (const auto& m : members_)
      if (!m->failures.empty()) return true;
    return false;
  }
  std::string member_outputs() const {
    std::string out;
    for (const auto& m : members_) out += "--- member " + m->id + " ---\n" + tail(m->process->all(), 6000);
    return out;
  }

  // Every member of the chain holds partitions, and they hold all of
  // etl-in's between them.
  bool stable() {
    drain();
    size_t held = 0;
    for (const auto& m : members_) {
      if (m->stopping) continue;
      if (m->held.empty()) return false;
      held += m->held.size();
    }
    return held == static_cast<size_t>(k_partitions);
  }

  // The numbers of a line's JSON list ("[0, 3]").
  static std::vector<int32_t> partitions_in(const std::string& line) {
    std::vector<int32_t> out;
    const auto open = line.find('['), close = line.find(']');
    if (open == std::string::npos || close == std::string::npos) return out;
    std::istringstream list(line.substr(open + 1, close - open - 1));
    for (std::string item; std::getline(list, item, ',');)
      if (item.find_first_of("0123456789") != std::string::npos) out.push_back(std::atoi(item.c_str()));
    return out;
  }

  static std::optional<int> number_after(const std::string& line, const std::string& key) {
    const auto at = line.find(key);
    if (at == std::string::npos) return std::nullopt;
    return std::atoi(line.c_str() + at + key.size());
  }

  std::vector<std::unique_ptr<member>> members_;
  std::vector<std::string> stuck_;  // the stuck lines, reported
};

TEST_F(ConsumerProtocolEtlIT, BouncedCoordinatorsLeadersAndMembersCopyEachRecordOnce) {
  std::vector<std::vector<std::string>> in(k_partitions);
  for (int32_t p = 0; p < k_partitions; ++p)
    for (int i = 0; i < k_records_per_partition; ++i) in[p].push_back("p" + std::to_string(p) + "-" + std::to_string(i));
  const int total = k_partitions * k_records_per_partition;
  ASSERT_NO_FATAL_FAILURE(fill_input(bootstrap(), in));
  const std::vector<std::string> topics{"etl-in", "etl-out", "__consumer_offsets", "__transaction_state"};
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(start_member());

  int progress = 0;
  auto moved_on = [&](const std::string& before) {
    ASSERT_TRUE(wait_until([&] { return committed() >= progress + 200 || failed(); }, 90s))
        << "no progress (" << committed() << " copied) before " << before << "\n"
        << member_outputs() << logs();
    ASSERT_FALSE(failed()) << member_outputs();
    progress = committed();
    ASSERT_LT(progress, total) << "the chain had finished before " << before;
  };
  auto bounce = [&](const std::string& what, int target, int sig) {
    ASSERT_GT(target, 0) << "no node for " << what << "\n" << logs();
    if (sig == SIGKILL) {
      ASSERT_EQ(cluster.node(target).stop(SIGKILL), -SIGKILL) << what;
    } else {
      ASSERT_EQ(cluster.node(target).stop(SIGTERM, 60s), 0) << what << "\n" << logs();
    }
    std::printf("bounced %s (node %d) with %d records copied\n", what.c_str(), target, committed());
    ASSERT_TRUE(cluster.restart(target, /*same_client_port=*/true))
        << what << " (node " << target << ") did not start again\n" << logs();
    std::string how;
    ASSERT_TRUE(wait_until([&] { return (how = unwhole(cluster.running_ports(), topics, -1)).empty(); }, 90s))
        << "ISR not whole after bouncing " << what << ": " << how << "\n" << logs();
  };

  // The group's coordinator dies: the next one loads the group from its
  // records and the members go on with the partitions they had.
  ASSERT_NO_FATAL_FAILURE(moved_on("killing the group coordinator"));
  ASSERT_TRUE(wait_until([&] { return stable() || failed(); }, 60s))
      << "the members never held every partition between them\n" << member_outputs();
  const int changes_before = changes();
  const int runs_before = runs();
  int group_coordinator = -1;
  ASSERT_TRUE(wait_until([&] { return (group_coordinator = coordinator_of(cluster.running_ports(), 0, "etl-group")) > 0; },
                         30s));
  ASSERT_NO_FATAL_FAILURE(bounce("the group coordinator", group_coordinator, SIGKILL));
  ASSERT_NO_FATAL_FAILURE(moved_on("a member leaves"));
  // (Unless librdkafka got a member stuck and it had to start again.)
  if (runs() == runs_before)
    EXPECT_EQ(changes(), changes_before) << "the members' assignment changed when the group's coordinator moved\n"
                                         << member_outputs();

  // One member leaves, another joins.
  stop_member(*members_.front());
  ASSERT_NO_FATAL_FAILURE(start_member());
  ASSERT_NO_FATAL_FAILURE(moved_on("killing a transaction coordinator"));

  // The transaction coordinator of a member dies, then an output
  // partition's leader stops cleanly.
  ASSERT_NO_FATAL_FAILURE(
      bounce("the transaction coordinator of etl-848-2", coordinator_of(cluster.running_ports(), 1, "etl-848-2"), SIGKILL));
  ASSERT_NO_FATAL_FAILURE(moved_on("stopping the leader of etl-out-0"));
  ASSERT_NO_FATAL_FAILURE(
      bounce("the leader of etl-out-0", leader_of(cluster.running_ports(), "etl-out", 0), SIGTERM));

  ASSERT_TRUE(wait_until([&] { return committed() >= total || failed(); }, 180s))
      << committed() << " of " << total << " copied\n" << member_outputs() << logs();
  for (size_t i = 1; i < members_.size(); ++i) stop_member(*members_[i]);
  for (const auto& m : members_)
    for (const auto& f : m->failures) ADD_FAILURE() << f;
  for (const auto& s : stuck_) std::printf("started again after librdkafka's hang: %s\n", s.c_str());
  EXPECT_EQ(committed(), total) << "records committed more than once\n" << member_outputs();
  const auto out = read_output(bootstrap(), static_cast<size_t>(total));
  for (int32_t p = 0; p < k_partitions; ++p) {
    EXPECT_EQ(out[p].size(), in[p].size()) << "partition " << p;
    EXPECT_TRUE(out[p] == in[p]) << "partition " << p << " is not its input, once and in order";
  }
}

}  // namespace
}  // namespace hw::testing
