// What survives a broker's loss or restart on three combined nodes (RF 3,
// min.insync.replicas=2): committed consumer-group offsets when the group
// coordinator's broker is SIGKILLed (__consumer_offsets is replicated and
// its coordinator moves with leadership); an idempotent producer's retry
// to the new leader (the followers rebuilt its producer state from the
// replicated batches, so the retry gets its original offset); a leader
// stopped with SIGTERM hands its leadership over before it exits, so a
// producer writing acks=all throughout loses and duplicates nothing.
// And the internal topic's replication factor is Kafka's: FindCoordinator
// answers COORDINATOR_NOT_AVAILABLE while fewer brokers are registered.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/produce.h"
#include "protocol/records/record_batch_builder.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

using ReplicationFailoverIT = replication_cluster;

constexpr int16_t k_coordinator_not_available = 15;
constexpr int16_t k_not_leader_or_follower = 6;

// OffsetCommit v8 of one offset outside any generation (as an admin tool
// commits): the partition's error.
int16_t commit_offset(uint16_t port, const std::string& group, const std::string& topic, int64_t offset) {
  raw_client client(port);
  msg::offset_commit_request req;
  req.group_id = group;
  req.generation_id_or_member_epoch = -1;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  auto& p = t.partitions.emplace_back();
  p.partition_index = 0;
  p.committed_offset = offset;
  auto resp = client.call<msg::offset_commit_response>(8, 8, req);
  if (!resp || resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1) return -1;
  return resp->topics[0].partitions[0].error_code;
}

// OffsetFetch v7 of partition 0: the committed offset (-1: none), or the error as a negative number below -1.
int64_t committed_offset(uint16_t port, const std::string& group, const std::string& topic) {
  raw_client client(port);
  msg::offset_fetch_request req;
  req.group_id = group;
  auto& t = req.topics->emplace_back();
  t.name = topic;
  t.partition_indexes.push_back(0);
  auto resp = client.call<msg::offset_fetch_response>(9, 7, req);
  if (!resp) return -1000;
  if (resp->error_code != 0) return -1000 - resp->error_code;
  if (resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1) return -1000;
  const auto& p = resp->topics[0].partitions[0];
  return p.error_code != 0 ? -1000 - p.error_code : p.committed_offset;
}

TEST_F(ReplicationFailoverIT, CommittedOffsetsSurviveTheLossOfTheGroupCoordinatorsBroker) {
  create_replicated("tracked");
  // The first FindCoordinator creates __consumer_offsets with Kafka's
  // default replication factor, 3: every partition on every node.
  std::pair<int16_t, int32_t> found;
  ASSERT_TRUE(wait_until(
      [&] {
        found = raw_client(nodes[0]->port()).find_coordinator("survivors", 0);
        return found.first == 0;
      },
      60s))
      << "last error " << found.first << "\n" << logs();
  {
    raw_client client(nodes[0]->port());
    auto md = client.metadata(std::vector<std::string>{"__consumer_offsets"});
    ASSERT_TRUE(md && md->topics.size() == 1);
    ASSERT_EQ(md->topics[0].partitions.size(), 50u);
    for (const auto& p : md->topics[0].partitions) EXPECT_EQ(p.replica_nodes.size(), 3u) << p.partition_index;
  }
  const int coordinator = found.second;
  ASSERT_GE(coordinator, 1);
  int16_t error = -1;
  ASSERT_TRUE(wait_until(
      [&] {
        error = commit_offset(nodes[coordinator - 1]->port(), "survivors", "tracked", 17);
        return error == 0;
      },
      30s))
      << "last error " << error << "\n" << logs();
  ASSERT_EQ(committed_offset(nodes[coordinator - 1]->port(), "survivors", "tracked"), 17);

  ASSERT_EQ(nodes[coordinator - 1]->stop(SIGKILL), -SIGKILL);
  const int survivor = coordinator % 3 + 1;
  // Another broker becomes the coordinator once it leads the group's
  // offsets partition, and has the commit.
  int64_t offset = -1;
  ASSERT_TRUE(wait_until(
      [&] {
        found = raw_client(nodes[survivor - 1]->port()).find_coordinator("survivors", 0);
        if (found.first != 0 || found.second == coordinator) return false;
        offset = committed_offset(nodes[found.second - 1]->port(), "survivors", "tracked");
        return offset == 17;
      },
      60s))
      << "coordinator " << found.second << " error " << found.first << " offset " << offset << "\n" << logs();
  EXPECT_NE(nodes[found.second - 1]->log().find("__consumer_offsets"), std::string::npos);
}

// A batch of `count` records of an idempotent producer.
std::vector<uint8_t> idempotent_batch(int64_t producer_id, int16_t epoch, int32_t sequence, int count,
                                      const std::string& tag) {
  protocol::record_batch_options o;
  o.producer_id = producer_id;
  o.producer_epoch = epoch;
  o.base_sequence = sequence;
  protocol::record_batch_builder b(o);
  for (int i = 0; i < count; ++i) {
    const std::string value = tag + std::to_string(i);
    b.append(1700000000000 + i, std::nullopt,
             protocol::bytes_view(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  return b.finish();
}

TEST_F(ReplicationFailoverIT, AnIdempotentRetryToTheNewLeaderGetsItsOriginalOffset) {
  create_replicated("idem");
  auto v = view(0, "idem");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int survivor = old_leader % 3 + 1;

  msg::init_producer_id_request init;
  init.transactional_id.reset();  // an idempotent producer, not a transactional one
  init.transaction_timeout_ms = -1;
  auto id = raw_client(nodes[survivor - 1]->port()).call<msg::init_producer_id_response>(22, 4, init);
  ASSERT_TRUE(id && id->error_code == 0 && id->producer_id >= 0) << logs();

  const auto first = idempotent_batch(id->producer_id, id->producer_epoch, 0, 4, "first");
  const auto second = idempotent_batch(id->producer_id, id->producer_epoch, 4, 3, "second");
  {
    raw_client leader(nodes[old_leader - 1]->port());
    // The leader's metadata may name it before its partition has taken the
    // role: retried as a client would (an idempotent batch may be resent).
    std::optional<msg::produce_response::partition_produce_response> r;
    ASSERT_TRUE(wait_until(
        [&] {
          r = leader.produce("idem", 0, first, -1);
          return r && r->error_code != 6;
        },
        10s))
        << logs();
    ASSERT_EQ(r->error_code, 0) << logs();
    ASSERT_EQ(r->base_offset, 0);
    r = leader.produce("idem", 0, second, -1);
    ASSERT_TRUE(r && r->error_code == 0) << logs();
    ASSERT_EQ(r->base_offset, 4);
  }
  // Acknowledged with acks=all: both batches are on the ISR. The leader dies
  // before the producer saw the second answer (as far as it knows).
  ASSERT_EQ(nodes[old_leader - 1]->stop(SIGKILL), -SIGKILL);
  auto after = new_leader_of(survivor - 1, "idem", *v, 30s);
  ASSERT_TRUE(after) << logs();

  raw_client leader(nodes[after->leader - 1]->port());
  std::optional<msg::produce_response::partition_produce_response> retried;
  // The new leader may still be settling (NOT_LEADER_OR_FOLLOWER until its
  // metadata says so); a retriable error is retried as a client would.
  ASSERT_TRUE(wait_until(
      [&] {
        retried = leader.produce("idem", 0, second, -1);
        return retried && retried->error_code != 6 && retried->error_code != 19;
      },
      20s))
      << logs();
  EXPECT_EQ(retried->error_code, 0) << logs();
  EXPECT_EQ(retried->base_offset, 4) << "a duplicate, not a new append";
  // The sequence goes on from the replicated state.
  auto next = leader.produce("idem", 0, idempotent_batch(id->producer_id, id->producer_epoch, 7, 2, "third"), -1);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->error_code, 0);
  EXPECT_EQ(next->base_offset, 7);
  // A gap is still a gap on the new leader.
  auto gap = leader.produce("idem", 0, idempotent_batch(id->producer_id, id->producer_epoch, 20, 1, "gap"), -1);
  ASSERT_TRUE(gap);
  EXPECT_EQ(gap->error_code, 45);  // OUT_OF_ORDER_SEQUENCE_NUMBER
  auto read = read_from_beginning(nodes[after->leader - 1]->port(), "idem", 9);
  ASSERT_EQ(read.size(), 9u) << logs();
  EXPECT_EQ(read[4].value, "second0");
  EXPECT_EQ(read[7].value, "third0");
}

// Whether every thread of pid is stopped (state T in /proc).
bool all_threads_stopped(pid_t pid) {
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto name_end = stat.rfind(") ");
    if (name_end == std::string::npos || name_end + 2 >= stat.size()) return false;
    const char state = stat[name_end + 2];
    if (state != 'T' && state != 't') return false;
  }
  return !ec;
}

// A Produce of one ten-record batch to partition 0, written into `to`
// without waiting (the broker may be stopped: it reads it when it runs).
bool send_produce(kafka_socket& to, const std::string& topic, int16_t acks, int32_t timeout_ms) {
  msg::produce_request req;
  req.acks = acks;
  req.timeout_ms = timeout_ms;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  auto& pd = t.partition_data.emplace_back();
  pd.index = 0;
  const auto batch = simple_batch(1, 10);
  pd.records = protocol::records_view(protocol::bytes_view(batch));
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, k_produce_version);
  return to.send_frame(request_frame(0, k_produce_version, 1, body));
}

// The partition's error in the answer to send_produce (nullopt: none came).
std::optional<int16_t> produce_error(kafka_socket& from) {
  auto frame = from.read_frame(30s);
  if (!frame) return std::nullopt;
  protocol::reader r(*frame);
  msg::response_header h;
  h.decode(r, protocol::response_header_version(0, k_produce_version));
  msg::produce_response resp;
  resp.decode(r, k_produce_version);
  if (!r.ok() || resp.responses.size() != 1 || resp.responses[0].partition_responses.size() != 1)
    return std::nullopt;
  return resp.responses[0].partition_responses[0].error_code;
}

// An isolated leader (SIGSTOP) is replaced; a write that reached it while
// it was frozen (waiting in its socket) is never acknowledged, since no
// follower fetches from it any more and it cannot shrink the ISR without the
// controller; once it learns of the new leader it truncates that write away
// and ends identical with the others.
TEST_F(ReplicationFailoverIT, AnIsolatedLeaderAcknowledgesNothingAfterTheCutAndTruncatesWhenBack) {
  create_replicated("isolated");
  auto v = view(0, "isolated");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int survivor = old_leader % 3 + 1;
  auto first = produce_all(nodes[survivor - 1]->port(), "isolated", messages("before", 10), "all");
  for (const auto& r : first) ASSERT_GE(r.offset, 0) << logs();

  kafka_socket late(nodes[old_leader - 1]->port());
  ASSERT_TRUE(late.connected());
  ::kill(nodes[old_leader - 1]->pid(), SIGSTOP);
  // SIGSTOP takes each thread when it is next scheduled: until all are
  // stopped, a running thread could still take (and replicate) the write.
  ASSERT_TRUE(wait_until([&] { return all_threads_stopped(nodes[old_leader - 1]->pid()); }, 10s));
  ASSERT_TRUE(send_produce(late, "isolated", -1, 20000));

  auto after = new_leader_of(survivor - 1, "isolated", *v, 30s);
  ASSERT_TRUE(after) << logs();
  // Idempotent, so that the client keeps its own order even when it retries
  // a batch across the leader change (a plain producer may reorder then,
  // with one request in flight per connection; seen once in CI).
  auto second = produce_all(nodes[survivor - 1]->port(), "isolated", messages("after", 10), "all", nullptr,
                            {{"enable.idempotence", "true"}});
  for (const auto& r : second) ASSERT_GE(r.offset, 10) << logs();
  ::kill(nodes[old_leader - 1]->pid(), SIGCONT);

  auto error = produce_error(late);
  ASSERT_TRUE(error) << logs();
  EXPECT_NE(*error, 0) << "a write to the isolated leader was acknowledged";

  ASSERT_TRUE(wait_until([&] { return isr_is(survivor - 1, "isolated", {1, 2, 3}); }, 40s)) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("isolated"); }, 20s)) << logs();
  auto read = read_from_beginning(nodes[survivor - 1]->port(), "isolated", 20);
  ASSERT_EQ(read.size(), 20u) << logs();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(read[i].key, "before" + std::to_string(i));
    EXPECT_EQ(read[10 + i].key, "after" + std::to_string(i));
  }
}

// A leader stopped long enough to be fenced and replaced still believes it
// leads when it runs again, until its metadata catches up. Asked in that
// window by clients that send no leader epoch (librdkafka before 2.1), it
// would answer a fetch past its shorter log OFFSET_OUT_OF_RANGE (the
// consumer resets its position) and take an acks=1 write the new leader's
// log truncates away. It sends both to refresh their metadata instead
// (stall_guard.h). The requests wait in its sockets while it is stopped, so
// they are the first it reads when it resumes.
TEST_F(ReplicationFailoverIT, AResumedLeaderSendsClientsToTheNewOneUntilItsMetadataCatchesUp) {
  create_replicated("resumed");
  auto v = view(0, "resumed");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int survivor = old_leader % 3 + 1;
  for (const auto& r : produce_all(nodes[survivor - 1]->port(), "resumed", messages("before", 10), "all"))
    ASSERT_GE(r.offset, 0) << logs();

  kafka_socket fetching(nodes[old_leader - 1]->port());
  kafka_socket producing(nodes[old_leader - 1]->port());
  ASSERT_TRUE(fetching.connected() && producing.connected());
  ::kill(nodes[old_leader - 1]->pid(), SIGSTOP);
  ASSERT_TRUE(wait_until([&] { return all_threads_stopped(nodes[old_leader - 1]->pid()); }, 10s));
  auto after = new_leader_of(survivor - 1, "resumed", *v, 30s);
  ASSERT_TRUE(after) << logs();
  for (const auto& r : produce_all(nodes[survivor - 1]->port(), "resumed", messages("after", 10), "all", nullptr,
                                   {{"enable.idempotence", "true"}}))
    ASSERT_GE(r.offset, 10) << logs();

  // A consumer at the new log end (20; the stopped leader's ends at 10),
  // with no current leader epoch; and a write with acks=1.
  std::vector<uint8_t> body;
  protocol::writer fw(body);
  fetch_request_of("resumed", 0, 20, -1, 0).encode(fw, k_fetch_version);
  ASSERT_TRUE(fetching.send_frame(request_frame(1, k_fetch_version, 1, body)));
  ASSERT_TRUE(send_produce(producing, "resumed", 1, 5000));
  ::kill(nodes[old_leader - 1]->pid(), SIGCONT);

  auto fetched = fetching.read_frame(30s);
  ASSERT_TRUE(fetched) << logs();
  protocol::reader fr(*fetched);
  msg::response_header fh;
  fh.decode(fr, protocol::response_header_version(1, k_fetch_version));
  msg::fetch_response fetch_answer;
  fetch_answer.decode(fr, k_fetch_version);
  ASSERT_TRUE(fr.ok() && fetch_answer.responses.size() == 1 && fetch_answer.responses[0].partitions.size() == 1);
  EXPECT_EQ(fetch_answer.responses[0].partitions[0].error_code, k_not_leader_or_follower) << logs();

  auto produced = produce_error(producing);
  ASSERT_TRUE(produced) << logs();
  EXPECT_EQ(*produced, k_not_leader_or_follower) << logs();

  // It comes back as a follower holding the new leader's log.
  ASSERT_TRUE(wait_until([&] { return isr_is(survivor - 1, "resumed", {1, 2, 3}); }, 40s)) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("resumed"); }, 20s)) << logs();
  EXPECT_EQ(read_from_beginning(nodes[survivor - 1]->port(), "resumed", 20).size(), 20u) << logs();
  // The doubt ended when its metadata caught up, not when it expired.
  const std::string resumed_log = nodes[old_leader - 1]->log();
  EXPECT_NE(resumed_log.find("has caught up with the quorum"), std::string::npos) << resumed_log;
  EXPECT_EQ(resumed_log.find("has not caught up"), std::string::npos) << resumed_log;
}

// KIP-951: a follower asked to take a write or serve a consumer's fetch
// answers NOT_LEADER_OR_FOLLOWER with the current leader, its epoch and its
// endpoint, so the client goes there without a metadata refresh.
TEST_F(ReplicationFailoverIT, AFollowerNamesTheLeaderAndItsEndpoint) {
  create_replicated("hint");
  auto v = view(0, "hint");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  // A new topic's ISR is its whole replica set at once: wait until the
  // follower's own metadata has the topic.
  ASSERT_TRUE(wait_until(
      [&] {
        auto seen = view(follower - 1, "hint");
        return seen && seen->leader == leader;
      },
      20s))
      << logs();
  raw_client client(nodes[follower - 1]->port());

  msg::produce_request produce;
  produce.acks = -1;
  produce.timeout_ms = 5000;
  auto& t = produce.topic_data.emplace_back();
  t.name = "hint";
  auto& pd = t.partition_data.emplace_back();
  pd.index = 0;
  const auto batch = simple_batch(1);
  pd.records = protocol::records_view(protocol::bytes_view(batch));
  auto produced = client.call<msg::produce_response>(0, 11, produce);
  ASSERT_TRUE(produced && produced->responses.size() == 1 && produced->responses[0].partition_responses.size() == 1);
  const auto& pr = produced->responses[0].partition_responses[0];
  EXPECT_EQ(pr.error_code, k_not_leader_or_follower);
  EXPECT_EQ(pr.current_leader.leader_id, leader);
  EXPECT_EQ(pr.current_leader.leader_epoch, v->leader_epoch);
  ASSERT_EQ(produced->node_endpoints.size(), 1u);
  EXPECT_EQ(produced->node_endpoints[0].node_id, leader);
  EXPECT_EQ(produced->node_endpoints[0].host, "127.0.0.1");
  EXPECT_EQ(produced->node_endpoints[0].port, nodes[leader - 1]->port());

  // A follower serves a consumer's Fetch from v11 on (KIP-392), up to its
  // high watermark; a broker holding no replica of the partition answers
  // NOT_LEADER_OR_FOLLOWER naming the leader and its endpoint.
  auto md = client.metadata(std::vector<std::string>{"hint"});
  ASSERT_TRUE(md && md->topics.size() == 1);
  msg::fetch_request fetch = fetch_request_of("", 0, 0, v->leader_epoch);
  fetch.topics[0].topic_id = md->topics[0].topic_id;
  auto served = client.call<msg::fetch_response>(1, 16, fetch);
  ASSERT_TRUE(served && served->responses.size() == 1 && served->responses[0].partitions.size() == 1);
  EXPECT_EQ(served->responses[0].partitions[0].error_code, 0);

  ASSERT_EQ(create_topic(at(0), "hint-rf2", {}, 2), "") << logs();
  std::optional<partition_view> pair;
  ASSERT_TRUE(wait_until(
      [&] {
        pair = view(0, "hint-rf2");
        if (!pair || pair->leader <= 0) return false;
        for (int i = 1; i < 3; ++i) {
          auto seen = view(i, "hint-rf2");
          if (!seen || seen->leader != pair->leader) return false;
        }
        return true;
      },
      20s))
      << logs();
  int outsider = 1;
  while (std::find(pair->replicas.begin(), pair->replicas.end(), outsider) != pair->replicas.end()) ++outsider;
  raw_client other(nodes[outsider - 1]->port());
  auto md2 = other.metadata(std::vector<std::string>{"hint-rf2"});
  ASSERT_TRUE(md2 && md2->topics.size() == 1);
  msg::fetch_request away = fetch_request_of("", 0, 0, pair->leader_epoch);
  away.topics[0].topic_id = md2->topics[0].topic_id;
  auto fetched = other.call<msg::fetch_response>(1, 16, away);
  ASSERT_TRUE(fetched && fetched->responses.size() == 1 && fetched->responses[0].partitions.size() == 1);
  const auto& fp = fetched->responses[0].partitions[0];
  EXPECT_EQ(fp.error_code, k_not_leader_or_follower);
  EXPECT_EQ(fp.current_leader.leader_id, pair->leader);
  EXPECT_EQ(fp.current_leader.leader_epoch, pair->leader_epoch);
  ASSERT_EQ(fetched->node_endpoints.size(), 1u);
  EXPECT_EQ(fetched->node_endpoints[0].node_id, pair->leader);
  EXPECT_EQ(fetched->node_endpoints[0].port, nodes[pair->leader - 1]->port());
}

// An idempotent acks=all producer sending one record every few
// milliseconds on its own thread until stopped; each record's key is its
// sequence number, and the delivery reports say which were acknowledged.
class paced_producer {
 public:
  paced_producer(uint16_t port, std::string topic) : topic_(std::move(topic)) {
    char err[512];
    std::map<std::string, std::string> settings{{"acks", "all"},
                                                {"enable.idempotence", "true"},
                                                {"linger.ms", "2"},
                                                {"message.timeout.ms", "60000"},
                                                {"topic.metadata.refresh.interval.ms", "1000"}};
    // HW_TEST_RDKAFKA_DEBUG=eos,msg,protocol (librdkafka's debug contexts) to see what the client did.
    if (const char* debug = std::getenv("HW_TEST_RDKAFKA_DEBUG")) settings["debug"] = debug;
    rd_kafka_conf_t* conf = rd_conf(port, settings);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
      auto* self = static_cast<paced_producer*>(opaque);
      std::lock_guard lock(self->mutex_);
      const std::string key(static_cast<const char*>(m->key), m->key_len);
      if (m->err) self->errors_.push_back(key + ": " + rd_kafka_err2str(m->err));
      else self->acknowledged_.push_back(key);
    });
    handle_.rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    EXPECT_NE(handle_.rk, nullptr) << err;
    thread_ = std::thread([this] { run(); });
  }
  ~paced_producer() { stop(); }

  // Stops sending and waits for every report.
  void stop() {
    if (!thread_.joinable()) return;
    stopping_ = true;
    thread_.join();
    if (handle_.rk) EXPECT_EQ(rd_kafka_flush(handle_.rk, 60000), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  size_t acknowledged_count() {
    std::lock_guard lock(mutex_);
    return acknowledged_.size();
  }
  std::vector<std::string> acknowledged() {
    std::lock_guard lock(mutex_);
    return acknowledged_;
  }
  std::vector<std::string> errors() {
    std::lock_guard lock(mutex_);
    return errors_;
  }
  int sent() const { return sent_; }
  // For a failure message: what was sent, acknowledged and refused.
  std::string report() {
    std::lock_guard lock(mutex_);
    std::string out = "sent " + std::to_string(sent_.load()) + ", acknowledged " +
                      std::to_string(acknowledged_.size()) + ", errors " + std::to_string(errors_.size()) + "\n";
    for (size_t i = 0; i < errors_.size() && i < 5; ++i) out += "  " + errors_[i] + "\n";
    return out;
  }

 private:
  void run() {
    while (!stopping_ && handle_.rk) {
      std::string key = std::to_string(sent_.load());
      auto e = rd_kafka_producev(handle_.rk, RD_KAFKA_V_TOPIC(topic_.c_str()), RD_KAFKA_V_PARTITION(0),
                                 RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(key.data(), key.size()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) ++sent_;
      rd_kafka_poll(handle_.rk, 3);
    }
  }

  std::string topic_;
  rd_handle handle_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> sent_{0};
  std::mutex mutex_;
  std::vector<std::string> acknowledged_;
  std::vector<std::string> errors_;
};

TEST_F(ReplicationFailoverIT, ALeaderStoppedWithSigtermHandsOverFirstAndNoAcknowledgedWriteIsLost) {
  create_replicated("bounce");
  auto v = view(0, "bounce");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int survivor = old_leader % 3 + 1;
  paced_producer producer(nodes[survivor - 1]->port(), "bounce");
  ASSERT_TRUE(wait_until([&] { return producer.acknowledged_count() >= 100; }, 30s)) << logs();

  // A clean stop: the leadership moves to another replica of the ISR
  // before the process exits.
  ASSERT_EQ(nodes[old_leader - 1]->stop(SIGTERM, 30s), 0) << logs();
  EXPECT_NE(nodes[old_leader - 1]->log().find("Controlled shutdown of broker " + std::to_string(old_leader) +
                                              " complete"),
            std::string::npos)
      << logs();
  auto after = view(survivor - 1, "bounce");
  ASSERT_TRUE(after);
  EXPECT_NE(after->leader, old_leader);
  EXPECT_GT(after->leader_epoch, v->leader_epoch);
  const size_t at_stop = producer.acknowledged_count();
  ASSERT_TRUE(wait_until([&] { return producer.acknowledged_count() >= at_stop + 100; }, 30s)) << logs();

  // Back as a follower; writes go on throughout.
  ASSERT_TRUE(start_node(old_leader - 1)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_is(survivor - 1, "bounce", {1, 2, 3}); }, 30s)) << logs();
  const size_t at_return = producer.acknowledged_count();
  ASSERT_TRUE(wait_until([&] { return producer.acknowledged_count() >= at_return + 100; }, 30s))
      << producer.report() << logs();
  producer.stop();

  EXPECT_TRUE(producer.errors().empty()) << producer.errors().front();
  const auto acknowledged = producer.acknowledged();
  ASSERT_EQ(acknowledged.size(), static_cast<size_t>(producer.sent()));
  // Every record once, in the order sent: nothing lost, nothing doubled.
  auto read = read_from_beginning(nodes[survivor - 1]->port(), "bounce", static_cast<int64_t>(acknowledged.size()));
  ASSERT_EQ(read.size(), acknowledged.size()) << logs();
  for (size_t i = 0; i < read.size(); ++i) ASSERT_EQ(read[i].key, std::to_string(i)) << "offset " << i;
  EXPECT_TRUE(wait_until([&] { return segments_identical("bounce"); }, 20s)) << logs();
}

// Kafka's replication factor for __consumer_offsets is taken as given: a
// cluster with fewer registered brokers has no coordinator (and no offsets
// topic) rather than a topic with fewer replicas than asked for.
class ReplicationShortOfBrokersIT : public replication_cluster {
 protected:
  std::vector<std::string> extra_overrides() const override { return {"offsets.topic.replication.factor=4"}; }
};

TEST_F(ReplicationShortOfBrokersIT, FindCoordinatorIsUnavailableWhileTooFewBrokersAreRegistered) {
  create_replicated("waiting");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(raw_client(nodes[i]->port()).find_coordinator("early", 0).first, k_coordinator_not_available) << logs();
  }
  raw_client client(nodes[0]->port());
  auto md = client.metadata(std::vector<std::string>{"__consumer_offsets"});
  ASSERT_TRUE(md && md->topics.size() == 1);
  EXPECT_EQ(md->topics[0].error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION: never created
}

}  // namespace
}  // namespace hw::testing
