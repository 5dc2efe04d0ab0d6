// Classic consumer groups against the real binary with librdkafka's
// high-level consumer: FindCoordinator, JoinGroup/SyncGroup/Heartbeat/
// LeaveGroup rebalances, OffsetCommit/OffsetFetch, offsets surviving a
// broker restart, static membership and DeleteGroups. Every wait has a
// deadline; consumers are polled round-robin from the test thread.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "broker_process.h"
#include "rdkafka_support.h"

namespace hw::testing {
namespace {

using rdk::rd_conf;
using rdk::rd_handle;

// A high-level consumer whose assignment is tracked through its
// rebalance callback (eager protocol: assign / revoke all).
class group_consumer {
 public:
  group_consumer(uint16_t port, const std::string& group, const std::string& topic,
                 std::map<std::string, std::string> extra = {}) {
    extra.emplace("group.id", group);
    extra.emplace("auto.offset.reset", "earliest");
    extra.emplace("enable.auto.commit", "false");
    extra.emplace("session.timeout.ms", "6000");
    extra.emplace("heartbeat.interval.ms", "500");
    extra.emplace("topic.metadata.refresh.interval.ms", "1000");
    rd_kafka_conf_t* conf = rd_conf(port, extra);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_rebalance_cb(conf, &group_consumer::on_rebalance);
    char err[512];
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    EXPECT_NE(rk_, nullptr) << err;
    rd_kafka_poll_set_consumer(rk_);
    rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
    EXPECT_EQ(rd_kafka_subscribe(rk_, topics), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(topics);
  }
  ~group_consumer() { close(); }

  // Polls once; a record goes to `records`.
  void poll(int timeout_ms) {
    if (!rk_) return;
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, timeout_ms);
    if (!m) return;
    if (!m->err) {
      records.push_back({m->partition, m->offset});
      next_offset[m->partition] = m->offset + 1;
    }
    rd_kafka_message_destroy(m);
  }

  // Synchronous commit of the positions consumed so far.
  rd_kafka_resp_err_t commit() {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(4);
    for (auto [p, o] : next_offset) rd_kafka_topic_partition_list_add(list, topic_name().c_str(), p)->offset = o;
    auto e = rd_kafka_commit(rk_, list, 0);
    rd_kafka_topic_partition_list_destroy(list);
    return e;
  }

  // The group's committed offset of a partition (-1001: none).
  int64_t committed(const std::string& topic, int32_t partition) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
    int64_t out = -2;
    if (rd_kafka_committed(rk_, list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR && !list->elems[0].err)
      out = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    return out;
  }

  void close() {
    if (!rk_) return;
    rd_kafka_consumer_close(rk_);
    rd_kafka_destroy(rk_);
    rk_ = nullptr;
  }
  // Gone without a LeaveGroup (a static member restarting).
  void destroy_without_leave() {
    if (!rk_) return;
    rd_kafka_destroy_flags(rk_, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    rk_ = nullptr;
  }

  std::set<int32_t> assignment;
  int assignments_received = 0;
  std::vector<std::pair<int32_t, int64_t>> records;
  std::map<int32_t, int64_t> next_offset;

 private:
  std::string topic_name() const { return topic_; }
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                           void* opaque) {
    auto* self = static_cast<group_consumer*>(opaque);
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      self->assignment.clear();
      for (int i = 0; i < parts->cnt; ++i) {
        self->assignment.insert(parts->elems[i].partition);
        self->topic_ = parts->elems[i].topic;
      }
      ++self->assignments_received;
      rd_kafka_assign(rk, parts);
    } else {
      self->assignment.clear();
      rd_kafka_assign(rk, nullptr);
    }
  }

  rd_kafka_t* rk_ = nullptr;
  std::string topic_;
};

void create_partitioned_topic(uint16_t port, const std::string& name, int partitions) {
  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_PRODUCER, rd_conf(port), err, sizeof err);
  ASSERT_NE(h.rk, nullptr) << err;
  rd_kafka_NewTopic_t* topic = rd_kafka_NewTopic_new(name.c_str(), partitions, 1, err, sizeof err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(h.rk);
  rd_kafka_CreateTopics(h.rk, &topic, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 20000);
  ASSERT_NE(ev, nullptr);
  size_t n = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(rd_kafka_topic_result_error(results[0]), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(topic);
}

// n records into each of `partitions` partitions.
void produce_to_partitions(uint16_t port, const std::string& topic, int partitions, int n) {
  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_PRODUCER, rd_conf(port, {{"linger.ms", "5"}}), err, sizeof err);
  ASSERT_NE(h.rk, nullptr) << err;
  for (int p = 0; p < partitions; ++p) {
    for (int i = 0; i < n; ++i) {
      std::string v = "v" + std::to_string(p) + "-" + std::to_string(i);
      ASSERT_EQ(rd_kafka_producev(h.rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(p),
                                  RD_KAFKA_V_VALUE(v.data(), v.size()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_END),
                RD_KAFKA_RESP_ERR_NO_ERROR);
    }
  }
  ASSERT_EQ(rd_kafka_flush(h.rk, 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
}

// Polls every consumer until pred holds or the deadline passes.
bool poll_until(const std::vector<group_consumer*>& consumers, const std::function<bool()>& pred,
                std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (auto* c : consumers) c->poll(20);
    if (pred()) return true;
  }
  return false;
}

// Every partition owned exactly once across the consumers.
bool owned_once(const std::vector<group_consumer*>& consumers, int partitions) {
  std::multiset<int32_t> all;
  for (auto* c : consumers) all.insert(c->assignment.begin(), c->assignment.end());
  if (static_cast<int>(all.size()) != partitions) return false;
  for (int p = 0; p < partitions; ++p)
    if (all.count(p) != 1) return false;
  return true;
}

class GroupsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0", "--override",
                              "offsets.topic.num.partitions=5"}))
        << broker.log();
  }
  void restart() {
    std::filesystem::remove(broker.dir() + "/ports");
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0", "--override",
                              "offsets.topic.num.partitions=5"}))
        << broker.log();
  }
  broker_process broker;
};

TEST_F(GroupsIT, ThreeConsumersSharePartitionsThroughJoinsAndLeaves) {
  create_partitioned_topic(broker.port(), "shared", 6);
  auto a = std::make_unique<group_consumer>(broker.port(), "g3", "shared");
  ASSERT_TRUE(poll_until({a.get()}, [&] { return owned_once({a.get()}, 6); }, 30s)) << broker.log();

  auto b = std::make_unique<group_consumer>(broker.port(), "g3", "shared");
  auto c = std::make_unique<group_consumer>(broker.port(), "g3", "shared");
  std::vector<group_consumer*> all{a.get(), b.get(), c.get()};
  ASSERT_TRUE(poll_until(
      all, [&] { return owned_once(all, 6) && a->assignment.size() == 2 && b->assignment.size() == 2; }, 60s))
      << broker.log();

  // One leaves: the other two take over its partitions, none twice.
  c->close();
  std::vector<group_consumer*> two{a.get(), b.get()};
  ASSERT_TRUE(poll_until(two, [&] { return owned_once(two, 6) && a->assignment.size() == 3; }, 60s))
      << broker.log();
}

TEST_F(GroupsIT, CommittedOffsetsResumeAfterConsumerRestartAndBrokerRestart) {
  create_partitioned_topic(broker.port(), "resume", 2);
  produce_to_partitions(broker.port(), "resume", 2, 10);
  {
    group_consumer c(broker.port(), "resumers", "resume");
    ASSERT_TRUE(poll_until({&c}, [&] { return c.records.size() >= 20; }, 60s)) << broker.log();
    // Commit halfway on partition 0, all of partition 1.
    c.next_offset[0] = 4;
    ASSERT_EQ(c.commit(), RD_KAFKA_RESP_ERR_NO_ERROR);
    EXPECT_EQ(c.committed("resume", 0), 4);
    EXPECT_EQ(c.committed("resume", 1), 10);
  }
  {
    group_consumer c(broker.port(), "resumers", "resume");
    ASSERT_TRUE(poll_until({&c}, [&] { return c.records.size() >= 6; }, 60s)) << broker.log();
    // Exactly from the committed offset: 4..9 of partition 0, nothing of 1.
    std::vector<std::pair<int32_t, int64_t>> want;
    for (int64_t o = 4; o < 10; ++o) want.emplace_back(0, o);
    poll_until({&c}, [] { return false; }, 1s);
    EXPECT_EQ(c.records, want);
    c.close();
  }

  ASSERT_EQ(broker.stop(SIGTERM), 0) << broker.log();
  restart();
  group_consumer c(broker.port(), "resumers", "resume");
  int64_t p0 = -2, p1 = -2;
  ASSERT_TRUE(wait_until(
      [&] {
        p0 = c.committed("resume", 0);
        p1 = c.committed("resume", 1);
        return p0 >= 0 && p1 >= 0;
      },
      30s))
      << broker.log();
  EXPECT_EQ(p0, 4);
  EXPECT_EQ(p1, 10);
}

TEST_F(GroupsIT, StaticMemberRejoinsWithoutRebalance) {
  create_partitioned_topic(broker.port(), "static", 4);
  const std::map<std::string, std::string> a_conf{{"group.instance.id", "instance-a"}, {"session.timeout.ms", "30000"}};
  auto a = std::make_unique<group_consumer>(broker.port(), "statics", "static", a_conf);
  auto b = std::make_unique<group_consumer>(broker.port(), "statics", "static",
                                            std::map<std::string, std::string>{{"group.instance.id", "instance-b"},
                                                                               {"session.timeout.ms", "30000"}});
  std::vector<group_consumer*> both{a.get(), b.get()};
  ASSERT_TRUE(poll_until(both, [&] { return owned_once(both, 4) && a->assignment.size() == 2; }, 60s))
      << broker.log();
  const std::set<int32_t> before = a->assignment;
  const int b_assignments = b->assignments_received;

  // a goes without leaving and comes back under the same instance id.
  a->destroy_without_leave();
  a = std::make_unique<group_consumer>(broker.port(), "statics", "static", a_conf);
  both = {a.get(), b.get()};
  ASSERT_TRUE(poll_until(both, [&] { return a->assignment.size() == 2; }, 60s)) << broker.log();
  EXPECT_EQ(a->assignment, before);
  // b saw no rebalance: keep polling a while and check it kept its assignment.
  poll_until(both, [] { return false; }, 3s);
  EXPECT_EQ(b->assignments_received, b_assignments);
  EXPECT_TRUE(owned_once(both, 4));
}

TEST_F(GroupsIT, DeleteGroupsRemovesAnEmptyGroup) {
  create_partitioned_topic(broker.port(), "deleting", 1);
  produce_to_partitions(broker.port(), "deleting", 1, 3);
  {
    group_consumer c(broker.port(), "doomed", "deleting");
    ASSERT_TRUE(poll_until({&c}, [&] { return c.records.size() >= 3; }, 60s)) << broker.log();
    ASSERT_EQ(c.commit(), RD_KAFKA_RESP_ERR_NO_ERROR);
    c.close();
  }
  char err[512];
  rd_handle admin;
  admin.rk = rd_kafka_new(RD_KAFKA_PRODUCER, rd_conf(broker.port()), err, sizeof err);
  ASSERT_NE(admin.rk, nullptr) << err;
  auto delete_group = [&]() -> rd_kafka_resp_err_t {
    rd_kafka_DeleteGroup_t* g = rd_kafka_DeleteGroup_new("doomed");
    rd_kafka_queue_t* q = rd_kafka_queue_new(admin.rk);
    rd_kafka_DeleteGroups(admin.rk, &g, 1, nullptr, q);
    rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 20000);
    rd_kafka_resp_err_t out = RD_KAFKA_RESP_ERR__TIMED_OUT;
    if (ev) {
      size_t n = 0;
      const rd_kafka_group_result_t** results =
          rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev), &n);
      if (rd_kafka_event_error(ev)) out = rd_kafka_event_error(ev);
      else if (n == 1) out = rd_kafka_error_code(rd_kafka_group_result_error(results[0]));
      rd_kafka_event_destroy(ev);
    }
    rd_kafka_queue_destroy(q);
    rd_kafka_DeleteGroup_destroy(g);
    return out;
  };
  EXPECT_EQ(delete_group(), RD_KAFKA_RESP_ERR_NO_ERROR);
  // Gone: a second delete finds no such group, and its offsets went with it.
  EXPECT_EQ(delete_group(), RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
  group_consumer probe(broker.port(), "doomed", "deleting");
  EXPECT_EQ(probe.committed("deleting", 0), RD_KAFKA_OFFSET_INVALID);
}

}  // namespace
}  // namespace hw::testing
