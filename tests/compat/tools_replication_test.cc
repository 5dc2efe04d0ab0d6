// Seed 002 §20 (replication) with Apache Kafka 4.3.1's own tools against
// real highwater processes, as a user of a three-broker docker-compose
// cluster would run it: kafka-topics.sh creates reliable-events (3
// partitions, replication factor 3, min.insync.replicas=2) and describes
// it; kafka-verifiable-producer.sh writes acks=all throughout and prints
// every acknowledgement; kafka-console-consumer.sh reads in a group
// throughout. Brokers are stopped with SIGTERM (docker stop) and started
// again with the same arguments.
//
// §20.3: one follower down, the ISR of every partition loses it, writes go
// on. §20.4: a second broker down, the ISR below min.insync.replicas,
// acks=all does not succeed; both back, the ISR grows to 3 again. §20.5:
// the leader of partition 0 down, a new leader from its ISR, writes go on,
// and every acknowledged record is consumed.
//
// With three combined nodes the second stop also leaves the controller
// quorum without a majority once that node is gone, so what acks=all gets
// depends on whether its controlled shutdown still shrank the ISR (then
// NOT_ENOUGH_REPLICAS) or not (then the leader waits for replicas that
// never come: REQUEST_TIMED_OUT). The second test repeats §20.4 with three
// controller-only nodes beside three broker-only nodes, where the quorum
// survives: the ISR is the leader alone and acks=all is refused with
// NOT_ENOUGH_REPLICAS before the append, while acks=1 is taken.
//
// At the end of the first, kafka-replica-verification finds every
// partition's replicas identical. ToolsBounceIT is Kafka's ducktape
// replication_test: leaders hard- and clean-bounced in turn under an
// idempotent acks=-1 verifiable producer, nothing lost, doubled or
// reordered; and, with idempotence off, the active controller bounced,
// nothing lost. Two cases of two rounds in the test command,
// HW_BOUNCE_ALL_CODECS=1 and HW_BOUNCE_ROUNDS=n for the whole matrix.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "metrics_scrape.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "raw_requests.h"

extern char** environ;

namespace hw::testing {
namespace {

const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";
const char* const k_verifiable_producer = "org.apache.kafka.tools.VerifiableProducer";
const char* const k_console_producer = "org.apache.kafka.tools.ConsoleProducer";
const char* const k_console_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const std::string k_topic = "reliable-events";
constexpr int k_partitions = 3;
constexpr int16_t k_request_timed_out = 7;
constexpr int16_t k_not_enough_replicas = 19;

using id_set = std::set<int32_t>;

using position = std::pair<int, int64_t>;  // partition, offset

// What kafka-verifiable-producer.sh printed: one JSON object a line, a
// producer_send_success with the value, partition and offset of each
// acknowledged record, a producer_send_error for each failed one.
struct producer_report {
  std::map<position, std::string> acknowledged;
  std::vector<std::string> errors;
  bool shutdown_complete = false;

  void take(const std::vector<std::string>& lines) {
    static const std::regex value_re(R"re("value":"([^"]*)")re");
    static const std::regex partition_re(R"re("partition":(\d+))re");
    static const std::regex offset_re(R"re("offset":(\d+))re");
    for (const auto& line : lines) {
      if (line.find("\"name\":\"producer_send_success\"") != std::string::npos) {
        std::smatch v, p, o;
        if (std::regex_search(line, v, value_re) && std::regex_search(line, p, partition_re) &&
            std::regex_search(line, o, offset_re))
          acknowledged[{std::stoi(p[1]), std::stoll(o[1])}] = v[1];
        else
          errors.push_back("unparsed: " + line);
      } else if (line.find("\"name\":\"producer_send_error\"") != std::string::npos) {
        errors.push_back(line);
      } else if (line.find("\"name\":\"shutdown_complete\"") != std::string::npos) {
        shutdown_complete = true;
      }
    }
  }
};

// What kafka-console-consumer.sh printed with print.partition and
// print.offset: "Partition:0\tOffset:12\t<value>".
struct consumer_report {
  std::map<position, std::string> consumed;
  std::vector<std::string> other;

  void take(const std::vector<std::string>& lines) {
    static const std::regex line_re(R"(^Partition:(\d+)\tOffset:(\d+)\t(.*)$)");
    for (const auto& line : lines) {
      std::smatch m;
      if (std::regex_match(line, m, line_re)) consumed[{std::stoi(m[1]), std::stoll(m[2])}] = m[3];
      else if (!jvm_log_line(line)) other.push_back(line);
    }
  }
};

// One partition line of kafka-topics.sh --describe.
struct described_partition {
  int32_t leader = -1;  // -1: "Leader: none"
  std::vector<int32_t> replicas;
  id_set isr;
  id_set elr;             // eligible leader replicas (KIP-966)
  id_set last_known_elr;
  std::string line;
};

id_set id_set_of(const std::vector<int32_t>& ids) { return id_set(ids.begin(), ids.end()); }

std::vector<int32_t> ids_in(const std::string& list) {
  std::vector<int32_t> out;
  std::istringstream in(list);
  std::string id;
  while (std::getline(in, id, ','))
    if (!id.empty()) out.push_back(std::stoi(id));
  return out;
}

// The partition lines of a describe, by partition. Kafka 4.3 prints each
// as "\tTopic: T\tPartition: P\tLeader: L\tReplicas: a,b,c\tIsr: a,b\tElr: c\tLastKnownElr: "
// (lists empty when there is nobody in them). `unmatched` gets every other line.
std::map<int, described_partition> partition_lines(const tool_result& r, std::vector<std::string>* unmatched) {
  static const std::regex line_re("^\tTopic: " + k_topic +
                                  "\tPartition: (\\d+)\tLeader: (\\d+|none)\tReplicas: ([0-9,]+)\tIsr: ([0-9,]*)"
                                  "\tElr: ([0-9,]*)\tLastKnownElr: ([0-9,]*)$");
  std::map<int, described_partition> out;
  for (const auto& line : lines_of(r.out)) {
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) {
      if (!jvm_log_line(line)) unmatched->push_back(line);
      continue;
    }
    described_partition d;
    d.leader = m[2] == "none" ? -1 : std::stoi(m[2]);
    d.replicas = ids_in(m[3]);
    d.isr = id_set_of(ids_in(m[4]));
    d.elr = id_set_of(ids_in(m[5]));
    d.last_known_elr = id_set_of(ids_in(m[6]));
    d.line = line;
    out[std::stoi(m[1])] = d;
  }
  return out;
}

std::set<int> keys_of(const std::map<int, described_partition>& m) {
  std::set<int> out;
  for (const auto& [p, d] : m) out.insert(p);
  return out;
}

// The partitions as a broker's metadata has them, for the waits: cheaper
// than a JVM per poll. The tools then say the same (or the test fails).
struct partition_state {
  int32_t leader = -1;
  id_set isr;
};

class ToolsReplicationIT : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("CLUSTER_ID", "ToolsReplicationITclus", 1);
    std::string tmpl = (std::filesystem::temp_directory_path() / "hw-tools-repl-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    work_dir = tmpl;
  }
  void TearDown() override {
    // The tools first, while the brokers they talk to are still up.
    consumer.reset();
    producer.reset();
    unsetenv("CLUSTER_ID");
    std::error_code ec;
    std::filesystem::remove_all(work_dir, ec);
  }

  // Three combined nodes 1-3, or (dedicated) controllers 1-3 and brokers
  // 4-6. Every process gets short lag and session timeouts so that a
  // stopped broker is noticed within seconds (and unclean elections, where
  // a test allows them, are tried every second); min.insync.replicas is left
  // at its default (1): the topic's own config is what counts.
  void start_cluster(bool dedicated) {
    brokers.clear();
    for (int id = dedicated ? 4 : 1; id <= (dedicated ? 6 : 3); ++id) brokers.push_back(id);
    ASSERT_TRUE(cluster.start(dedicated, {"unclean.leader.election.interval.ms=1000", "highwater.metrics.port=0",
                                          "highwater.metrics.host=127.0.0.1"}))
        << logs();
  }

  // The ELR cases: dedicated controllers, reliable-events created with
  // min.insync.replicas=2 and every replica in sync; partition 0's leader
  // and the two other brokers, in the order they will be stopped.
  void start_elr_case(int* leader, int* a, int* b) {
    start_cluster(true);
    auto created = topics({"--create", "--topic", k_topic, "--partitions", "3", "--replication-factor", "3",
                           "--config", "min.insync.replicas=2"});
    ASSERT_EQ(created.exit_code, 0) << created.all() << logs();
    ASSERT_TRUE(wait_until([&] { return isr_everywhere(4, {4, 5, 6}); }, 30s)) << logs();
    *leader = metadata_via(4)[0].leader;
    std::vector<int> others;
    for (int id : brokers)
      if (id != *leader) others.push_back(id);
    *a = others[0];
    *b = others[1];
  }

  // count acks=all records to every partition, each sent to its leader as
  // broker `via` names it; each must be acknowledged (counted per partition).
  void write_acks_all(int via, int count, std::vector<int64_t>* acknowledged) {
    auto parts = metadata_via(via);
    ASSERT_EQ(parts.size(), static_cast<size_t>(k_partitions)) << logs();
    for (int p = 0; p < k_partitions; ++p)
      for (int i = 0; i < count; ++i) {
        auto r = produce_one(node(parts[p].leader).port(), p, -1, 10000);
        ASSERT_TRUE(r) << logs();
        ASSERT_EQ(r->error_code, 0) << "partition " << p << "\n" << logs();
        ++(*acknowledged)[p];
      }
  }
  // Every partition led by broker id, as broker `via` sees it.
  bool led_everywhere_by(int via, int id) {
    auto parts = metadata_via(via);
    if (parts.empty()) return false;
    for (const auto& [p, st] : parts)
      if (st.leader != id) return false;
    return true;
  }
  // Each partition's high watermark (via `via`) reaches exactly what was
  // acknowledged: nothing acknowledged lost, nothing unacknowledged kept.
  void expect_high_watermarks(int via, const std::vector<int64_t>& acknowledged) {
    for (int p = 0; p < k_partitions; ++p) {
      int64_t hw = -1;
      EXPECT_TRUE(wait_until([&] { return (hw = high_watermark(via, p)) == acknowledged[p]; }, 20s))
          << "partition " << p << ": high watermark " << hw << ", " << acknowledged[p] << " acknowledged\n"
          << logs();
    }
  }

  broker_process& node(int id) { return cluster.node(id); }
  // Started again with the arguments of its first start.
  bool restart(int id) { return cluster.restart(id); }
  // SIGTERM, as docker stop sends: a controlled shutdown, exit code 0.
  bool stop(int id) {
    const auto code = node(id).stop(SIGTERM, 60s);
    EXPECT_EQ(code, 0) << "node " << id << "\n"
                       << logs() << "\n(node " << id << " stopped with SIGTERM: "
                       << (code ? "exit code " + std::to_string(*code) : std::string("still running after 60 s"))
                       << ")";
    return code == 0;
  }

  // Every running broker, as a user lists them in --bootstrap-server.
  // A metric summed over the controllers 1-3 (only the active one counts
  // elections and offline partitions); -1 when one of them did not answer.
  double controllers_metric(const std::string& name) {
    double sum = 0;
    for (int id = 1; id <= 3; ++id) {
      auto v = metric_sample(scrape_metrics(node(id).port("METRICS")), name);
      if (!v) return -1;
      sum += *v;
    }
    return sum;
  }
  std::string bootstrap() {
    std::string out;
    for (int id : brokers)
      if (node(id).running()) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(node(id).port());
    return out;
  }

  // The tools' output first (its end: the consumer prints every record),
  // then the nodes' logs, so that a report cut to its last lines (as CI
  // shows it) still has the nodes' ends and any sanitizer report.
  std::string logs() const {
    auto tail = [](const std::string& text) {
      constexpr size_t k_tool_tail = 6000;
      return text.size() > k_tool_tail ? "[...]\n" + text.substr(text.size() - k_tool_tail) : text;
    };
    std::string out;
    if (producer) out += "---- verifiable producer ----\n" + tail(producer->all());
    if (consumer) out += "---- console consumer ----\n" + tail(consumer->all());
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
      out += "---- node " + std::to_string(i + 1) + " ----\n" + excerpt(cluster.nodes[i]->log());
    return out;
  }

  // A node's log, cut for the failure message: a sanitizer report or a
  // fatal error in full (it says what went wrong), else the end of the log
  // (the start of a long one only repeats the startup).
  static std::string excerpt(const std::string& log) {
    constexpr size_t k_tail = 40000;
    size_t report = std::string::npos;
    for (const char* marker : {"ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer", "FATAL"})
      report = std::min(report, log.find(marker));
    if (report != std::string::npos) {
      const size_t from = report > 5000 ? report - 5000 : 0;
      return (from ? "[...]\n" : "") + log.substr(from, 60000) + "\n[...]\n" +
             log.substr(log.size() > 5000 ? log.size() - 5000 : 0);
    }
    return log.size() > k_tail ? "[...]\n" + log.substr(log.size() - k_tail) : log;
  }

  tool_result topics(std::vector<std::string> tool_args) {
    tool_args.insert(tool_args.begin(), {"--bootstrap-server", bootstrap()});
    return run_kafka_tool(work_dir, k_topic_command, tool_args);
  }

  // kafka-topics.sh --describe --topic reliable-events: the topic line and
  // one line per partition, all in Kafka's format.
  std::map<int, described_partition> describe() {
    auto r = topics({"--describe", "--topic", k_topic});
    EXPECT_EQ(r.exit_code, 0) << r.all();
    std::vector<std::string> other;
    auto parts = partition_lines(r, &other);
    static const std::regex topic_re("^Topic: " + k_topic +
                                     "\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 3\tReplicationFactor: 3"
                                     "\tConfigs: min.insync.replicas=2$");
    EXPECT_EQ(other.size(), 1u) << r.all();
    if (!other.empty()) {
      EXPECT_TRUE(std::regex_match(other[0], topic_re)) << r.all();
    }
    EXPECT_EQ(keys_of(parts), (std::set<int>{0, 1, 2})) << r.all();
    for (const auto& [p, d] : parts) {
      // The replica assignment never changes: three brokers, each once.
      EXPECT_EQ(id_set(d.replicas.begin(), d.replicas.end()), id_set(brokers.begin(), brokers.end())) << d.line;
      EXPECT_EQ(d.replicas.size(), 3u) << d.line;
      EXPECT_TRUE(d.isr.count(d.leader)) << "the leader is in the ISR: " << d.line;
    }
    last_describe = r.all();
    return parts;
  }
  // describe with one of the filters: only the partitions it picks, each
  // line as the full describe prints it.
  std::map<int, described_partition> describe_only(const std::string& filter) {
    auto r = topics({"--describe", "--topic", k_topic, filter});
    EXPECT_EQ(r.exit_code, 0) << r.all();
    std::vector<std::string> other;
    auto parts = partition_lines(r, &other);
    EXPECT_TRUE(other.empty()) << filter << " printed more than partition lines:\n" << r.all();
    last_describe = r.all();
    return parts;
  }

  // The partitions through broker `via`'s metadata (empty if it did not answer in full).
  std::map<int, partition_state> metadata_via(int via) {
    raw_client client(node(via).port());
    auto md = client.metadata(std::vector<std::string>{k_topic});
    std::map<int, partition_state> out;
    if (!md || md->topics.size() != 1 || md->topics[0].error_code != 0) return out;
    for (const auto& p : md->topics[0].partitions)
      out[p.partition_index] = {p.leader_id, id_set(p.isr_nodes.begin(), p.isr_nodes.end())};
    if (out.size() != k_partitions) out.clear();
    return out;
  }
  // The partitions as broker `via`'s DescribeTopicPartitions gives them
  // (leader, replicas, ISR, ELR), kept in last_describe for messages; empty
  // if it did not answer in full.
  std::map<int, described_partition> described_via(int via) {
    raw_client client(node(via).port());
    msg::describe_topic_partitions_request req;
    auto& t = req.topics.emplace_back();
    t.name = k_topic;
    auto r = client.call<msg::describe_topic_partitions_response>(75, 0, req);
    std::map<int, described_partition> out;
    if (!r || r->topics.size() != 1 || r->topics[0].error_code != 0) return out;
    std::ostringstream text;
    for (const auto& p : r->topics[0].partitions) {
      described_partition d;
      d.leader = p.leader_id;
      d.replicas = p.replica_nodes;
      d.isr = id_set_of(p.isr_nodes);
      if (p.eligible_leader_replicas) d.elr = id_set_of(*p.eligible_leader_replicas);
      if (p.last_known_elr) d.last_known_elr = id_set_of(*p.last_known_elr);
      text << "partition " << p.partition_index << " leader " << d.leader << " isr " << ::testing::PrintToString(d.isr)
           << " elr " << ::testing::PrintToString(d.elr) << "\n";
      out[p.partition_index] = std::move(d);
    }
    last_describe = "DescribeTopicPartitions via node " + std::to_string(via) + ":\n" + text.str();
    if (out.size() != k_partitions) out.clear();
    return out;
  }
  // Whether every partition has this ISR (and a leader in it) as `via` sees it.
  bool isr_everywhere(int via, const id_set& isr) {
    auto parts = metadata_via(via);
    if (parts.empty()) return false;
    for (const auto& [p, s] : parts)
      if (s.isr != isr || !isr.count(s.leader)) return false;
    return true;
  }

  // One record produced straight to `port` (the partition's leader) with
  // these acks, the broker told to wait up to timeout_ms for the ISR.
  std::optional<msg::produce_response::partition_produce_response> produce_one(uint16_t port, int partition,
                                                                              int16_t acks, int32_t timeout_ms) {
    raw_client client(port);
    const auto batch = simple_batch(1);
    msg::produce_request req;
    req.acks = acks;
    req.timeout_ms = timeout_ms;
    auto& t = req.topic_data.emplace_back();
    t.name = k_topic;
    auto& p = t.partition_data.emplace_back();
    p.index = partition;
    p.records = protocol::records_view(protocol::bytes_view(batch));
    auto resp = client.call<msg::produce_response>(0, k_produce_version, req, std::chrono::milliseconds(timeout_ms) + 20s);
    if (!resp || resp->responses.size() != 1 || resp->responses[0].partition_responses.size() != 1) return std::nullopt;
    return resp->responses[0].partition_responses[0];
  }
  // The partition's high watermark (what a consumer can read) at its
  // leader, as the running broker `via` names it; -1 if unknown.
  int64_t high_watermark(int via, int partition) {
    auto parts = metadata_via(via);
    if (parts.empty() || parts[partition].leader <= 0 || !node(parts[partition].leader).running()) return -1;
    raw_client client(node(parts[partition].leader).port());
    auto r = client.list_offset(k_topic, partition, -1);
    return r && r->error_code == 0 ? r->offset : -1;
  }

  // kafka-verifiable-producer.sh --acks -1 at a steady pace, with the Java
  // producer's own retries (the tool sets retries=0 unless its config file
  // says otherwise) so that a leader change is retried, not reported.
  void start_producer(const std::string& compression = "none", bool idempotent = true) {
    const std::string config = work_dir + "/producer.properties";
    std::ofstream(config) << "retries=2147483647\nenable.idempotence=" << (idempotent ? "true" : "false")
                          << "\nrequest.timeout.ms=10000\ndelivery.timeout.ms=120000\ncompression.type=" << compression
                          << "\n";
    producer = std::make_unique<background_tool>(
        work_dir, "producer", k_verifiable_producer,
        std::vector<std::string>{"--bootstrap-server", bootstrap(), "--topic", k_topic, "--acks", "-1",
                                 "--throughput", "50", "--command-config", config});
    ASSERT_TRUE(producer->started());
  }
  // kafka-console-consumer.sh --from-beginning in a group, for the whole test.
  void start_consumer() {
    consumer = std::make_unique<background_tool>(
        work_dir, "consumer", k_console_consumer,
        std::vector<std::string>{"--bootstrap-server", bootstrap(), "--topic", k_topic, "--from-beginning", "--group",
                                 "reliable-readers", "--formatter-property", "print.partition=true",
                                 "--formatter-property", "print.offset=true"});
    ASSERT_TRUE(consumer->started());
  }
  size_t acknowledged() {
    acks.take(producer->new_lines());
    return acks.acknowledged.size();
  }
  // Waits for `more` acknowledgements after the ones so far: writes go on.
  void expect_writes_go_on(size_t more, const std::string& when) {
    const size_t before = acknowledged();
    EXPECT_TRUE(wait_until([&] { return acknowledged() >= before + more; }, 60s))
        << when << ": " << acknowledged() - before << " more acknowledged\n"
        << logs();
  }

  // The producer stopped (its shutdown hook waits for what is in flight):
  // every acknowledged record is read by the consumer, at the partition and
  // offset it was acknowledged with. What the consumer read, for more checks.
  consumer_report expect_every_acknowledged_record_consumed() {
    consumer_report read;
    if (!producer->stop(SIGTERM, 60s).has_value()) {
      ADD_FAILURE() << "the producer did not stop\n" << logs();
      return read;
    }
    acknowledged();
    EXPECT_TRUE(acks.shutdown_complete) << producer->all();
    const auto& acknowledged_records = acks.acknowledged;
    auto missing = [&] {
      read.take(consumer->new_lines());
      size_t n = 0;
      for (const auto& [pos, value] : acknowledged_records) n += read.consumed.count(pos) ? 0 : 1;
      return n;
    };
    EXPECT_TRUE(wait_until([&] { return missing() == 0; }, 90s))
        << missing() << " of " << acknowledged_records.size() << " acknowledged records not consumed\n"
        << logs();
    for (const auto& [pos, value] : acknowledged_records) {
      auto it = read.consumed.find(pos);
      if (it != read.consumed.end()) {
        EXPECT_EQ(it->second, value) << "partition " << pos.first << " offset " << pos.second;
        if (it->second != value) break;
      }
    }
    EXPECT_TRUE(read.other.empty()) << read.other.front();
    // Errors are records the producer gave up on (not acknowledged, so not
    // owed); listed for whoever reads a failure.
    ::testing::Test::RecordProperty("acknowledged", static_cast<int>(acknowledged_records.size()));
    ::testing::Test::RecordProperty("producer_errors", static_cast<int>(acks.errors.size()));
    return read;
  }

  std::string work_dir;
  std::vector<int> brokers;
  kraft_nodes cluster;
  std::unique_ptr<background_tool> producer;
  std::unique_ptr<background_tool> consumer;
  producer_report acks;
  std::string last_describe;
};

TEST_F(ToolsReplicationIT, FollowerDownIsrBelowMinAndLeaderDownOnThreeCombinedNodes) {
  start_cluster(false);
  auto created = topics({"--create", "--topic", k_topic, "--partitions", "3", "--replication-factor", "3", "--config",
                         "min.insync.replicas=2"});
  ASSERT_EQ(created.exit_code, 0) << created.all() << logs();
  EXPECT_EQ(tool_lines(created), std::vector<std::string>{"Created topic reliable-events."}) << created.all();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(1, {1, 2, 3}); }, 30s)) << logs();
  auto d = describe();
  for (const auto& [p, part] : d) EXPECT_EQ(part.isr, (id_set{1, 2, 3})) << last_describe;
  ASSERT_FALSE(HasFailure()) << last_describe;

  start_consumer();
  start_producer();
  ASSERT_TRUE(wait_until([&] { return acknowledged() >= 50; }, 90s)) << logs();

  // §20.3: a broker down (one leading no partition if there is one, else
  // one not leading partition 0); every partition's ISR loses it and
  // acks=all writes go on with two in sync, min.insync.replicas=2.
  int follower = 0;
  for (int id : brokers) {
    bool leads = false;
    for (const auto& [p, part] : d) leads = leads || part.leader == id;
    if (!leads && !follower) follower = id;
  }
  if (!follower) follower = d[0].leader % 3 + 1;
  id_set others{1, 2, 3};
  others.erase(follower);
  const int kept = *others.begin();
  ASSERT_TRUE(stop(follower));
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(kept, others); }, 30s)) << logs();
  d = describe();
  for (const auto& [p, part] : d) {
    EXPECT_EQ(part.isr, others) << last_describe;
    EXPECT_NE(part.leader, follower) << last_describe;
    // Two still in sync, min.insync.replicas=2: nobody needs to be kept eligible.
    EXPECT_TRUE(part.elr.empty()) << last_describe;
  }
  // Every partition has fewer in sync than replicas, and exactly two: at
  // min.insync.replicas, not under it.
  auto under_replicated = describe_only("--under-replicated-partitions");
  EXPECT_EQ(keys_of(under_replicated), (std::set<int>{0, 1, 2})) << last_describe;
  for (const auto& [p, part] : under_replicated) EXPECT_EQ(part.line, d[p].line);
  EXPECT_EQ(keys_of(describe_only("--at-min-isr-partitions")), (std::set<int>{0, 1, 2})) << last_describe;
  EXPECT_TRUE(describe_only("--under-min-isr-partitions").empty()) << last_describe;
  expect_writes_go_on(50, "one follower down");

  // §20.4: a second broker down; the one left leads every partition (the
  // stopped one handed its leaderships over in its controlled shutdown).
  const int survivor = d[0].leader;
  const int second = *others.begin() == survivor ? *others.rbegin() : *others.begin();
  ASSERT_TRUE(stop(second));
  std::map<int, partition_state> seen;
  ASSERT_TRUE(wait_until(
      [&] {
        seen = metadata_via(survivor);
        if (seen.empty()) return false;
        for (const auto& [p, s] : seen)
          if (s.leader != survivor) return false;
        return true;
      },
      30s))
      << logs();
  // Without a controller quorum kafka-topics --describe fails here as it
  // does against Kafka: it asks for the ongoing reassignments, which only the
  // active controller knows, and the forwarded request times out. The
  // survivor's own metadata (DescribeTopicPartitions) says what it leads.
  d = described_via(survivor);
  ASSERT_EQ(keys_of(d), (std::set<int>{0, 1, 2})) << last_describe;
  for (const auto& [p, part] : d) {
    EXPECT_EQ(part.leader, survivor) << last_describe;
    EXPECT_FALSE(part.isr.count(follower)) << last_describe;
  }
  // acks=all does not succeed on any partition. Refused when the
  // controlled shutdown took the second broker out of the ISR (it then
  // stays an eligible leader replica, KIP-966: it left cleanly and took the
  // ISR below min.insync.replicas); otherwise (the ISR still names it) the
  // leader waits for it until the request's timeout.
  for (const auto& [p, part] : d) {
    const int64_t before = high_watermark(survivor, p);
    auto r = produce_one(node(survivor).port(), p, -1, 3000);
    ASSERT_TRUE(r) << logs();
    RecordProperty("acks_all_error_partition_" + std::to_string(p), r->error_code);
    if (part.isr == id_set{survivor}) {
      EXPECT_EQ(r->error_code, k_not_enough_replicas) << last_describe;
      EXPECT_EQ(part.elr, id_set{second}) << last_describe;
    } else {
      EXPECT_EQ(r->error_code, k_request_timed_out) << last_describe;
      EXPECT_TRUE(part.isr.count(second)) << last_describe;
    }
    // Nothing became readable: the high watermark stays where it was.
    EXPECT_EQ(high_watermark(survivor, p), before) << "partition " << p;
  }
  // (kafka-topics --under-min-isr-partitions naming such partitions is
  // checked with dedicated controllers, where the quorum survives.)

  // Both back: every partition's ISR grows to three again, nothing is
  // under-replicated, and the producer's writes go on.
  ASSERT_TRUE(restart(follower)) << logs();
  ASSERT_TRUE(restart(second)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(survivor, {1, 2, 3}); }, 60s)) << logs();
  d = describe();
  for (const auto& [p, part] : d) {
    EXPECT_EQ(part.isr, (id_set{1, 2, 3})) << last_describe;
    EXPECT_TRUE(part.elr.empty()) << last_describe;
  }
  EXPECT_TRUE(describe_only("--under-replicated-partitions").empty()) << last_describe;
  expect_writes_go_on(50, "both back");

  // §20.5: the leader of partition 0 down; a new leader from its ISR, and
  // acks=all writes go on.
  const int old_leader = d[0].leader;
  const id_set isr_before = d[0].isr;
  ASSERT_TRUE(stop(old_leader));
  const int watcher = old_leader % 3 + 1;
  ASSERT_TRUE(wait_until(
      [&] {
        auto parts = metadata_via(watcher);
        return !parts.empty() && parts[0].leader > 0 && parts[0].leader != old_leader;
      },
      30s))
      << logs();
  d = describe();
  id_set isr_after = isr_before;
  isr_after.erase(old_leader);
  EXPECT_NE(d[0].leader, old_leader) << last_describe;
  EXPECT_TRUE(isr_before.count(d[0].leader)) << "a new leader from the ISR: " << last_describe;
  EXPECT_EQ(d[0].isr, isr_after) << last_describe;
  expect_writes_go_on(50, "the leader of partition 0 down");

  expect_every_acknowledged_record_consumed();

  // Back whole, kafka-replica-verification finds the three replicas of
  // every partition holding the same records (it fetches each from every
  // replica and compares; it runs until stopped, reporting the largest lag
  // every interval, and names any offset where replicas differ).
  ASSERT_TRUE(restart(old_leader)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(watcher, {1, 2, 3}); }, 60s)) << logs();
  auto verified = run_kafka_tool(work_dir, "org.apache.kafka.tools.ReplicaVerificationTool",
                                 {"--broker-list", bootstrap(), "--topics-include", k_topic, "--report-interval-ms",
                                  "3000"},
                                 "", 20);
  EXPECT_NE(verified.out.find("max lag is 0 for partition"), std::string::npos) << verified.all();
  EXPECT_EQ(verified.out.find("has unmatched"), std::string::npos) << verified.all();
}

TEST_F(ToolsReplicationIT, WithDedicatedControllersTheIsrShrinksToTheLeaderAndAcksAllIsRefused) {
  start_cluster(true);
  auto created = topics({"--create", "--topic", k_topic, "--partitions", "3", "--replication-factor", "3", "--config",
                         "min.insync.replicas=2"});
  ASSERT_EQ(created.exit_code, 0) << created.all() << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(4, {4, 5, 6}); }, 30s)) << logs();
  auto d = describe();
  ASSERT_FALSE(HasFailure()) << last_describe;

  // Two brokers down, the leader of partition 0 kept. The quorum of three
  // controllers is whole, so each stop's controlled shutdown takes the
  // broker out of every ISR, down to the leader alone.
  const int survivor = d[0].leader;
  std::vector<int> stopped;
  for (int id : brokers)
    if (id != survivor) stopped.push_back(id);
  for (int id : stopped) ASSERT_TRUE(stop(id));
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(survivor, {survivor}); }, 30s)) << logs();
  d = describe();
  for (const auto& [p, part] : d) {
    EXPECT_EQ(part.leader, survivor) << last_describe;
    EXPECT_EQ(part.isr, id_set{survivor}) << last_describe;
    // KIP-966: the broker whose clean exit took the ISR below
    // min.insync.replicas stays eligible to lead; the first one left
    // while two were still in sync, and is not.
    EXPECT_EQ(part.elr, id_set{stopped.back()}) << last_describe;
    EXPECT_TRUE(part.last_known_elr.empty()) << last_describe;
  }
  EXPECT_EQ(keys_of(describe_only("--under-min-isr-partitions")), (std::set<int>{0, 1, 2})) << last_describe;
  // Every partition still has its leader: none unavailable.
  EXPECT_TRUE(describe_only("--unavailable-partitions").empty()) << last_describe;

  // acks=all refused with NOT_ENOUGH_REPLICAS before the append: the
  // acks=1 record after it lands where the refused one would have. Below
  // min.insync.replicas the high watermark stays put (KIP-966), so the
  // acks=1 record becomes readable only once the ISR is back.
  std::vector<int64_t> before(k_partitions);
  for (int p = 0; p < k_partitions; ++p) {
    before[p] = high_watermark(survivor, p);
    auto refused = produce_one(node(survivor).port(), p, -1, 3000);
    ASSERT_TRUE(refused) << logs();
    EXPECT_EQ(refused->error_code, k_not_enough_replicas) << "partition " << p;
    auto taken = produce_one(node(survivor).port(), p, 1, 3000);
    ASSERT_TRUE(taken) << logs();
    EXPECT_EQ(taken->error_code, 0) << "partition " << p;
    EXPECT_EQ(taken->base_offset, before[p]) << "partition " << p;
    EXPECT_EQ(high_watermark(survivor, p), before[p]) << "partition " << p;
  }
  // What kafka-console-producer.sh shows a user: acks=all (no retries, so
  // the broker's answer is the error reported) fails with
  // NotEnoughReplicasException; acks=1 goes through.
  auto refused = run_kafka_tool(work_dir, k_console_producer,
                                {"--bootstrap-server", bootstrap(), "--topic", k_topic, "--command-property", "acks=all",
                                 "--command-property", "enable.idempotence=false", "--command-property", "retries=0"},
                                "refused\n");
  EXPECT_NE(refused.all().find("org.apache.kafka.common.errors.NotEnoughReplicasException"), std::string::npos)
      << refused.all();
  auto taken = run_kafka_tool(work_dir, k_console_producer,
                              {"--bootstrap-server", bootstrap(), "--topic", k_topic, "--command-property", "acks=1",
                               "--command-property", "enable.idempotence=false", "--command-property", "retries=0"},
                              "taken\n");
  EXPECT_EQ(taken.exit_code, 0) << taken.all();
  EXPECT_EQ(taken.all().find("Exception"), std::string::npos) << taken.all();

  // Both back: the ISR grows to three again, nobody is left in the ELR,
  // and the acks=1 records (one a partition raw, one from the tool; not
  // the refused ones) are readable.
  for (int id : stopped) ASSERT_TRUE(restart(id)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(survivor, {4, 5, 6}); }, 60s)) << logs();
  d = describe();
  for (const auto& [p, part] : d) {
    EXPECT_EQ(part.isr, (id_set{4, 5, 6})) << last_describe;
    EXPECT_TRUE(part.elr.empty()) << last_describe;
  }
  EXPECT_TRUE(describe_only("--under-replicated-partitions").empty()) << last_describe;
  int64_t total = 0;
  EXPECT_TRUE(wait_until(
      [&] {
        total = 0;
        for (int p = 0; p < k_partitions; ++p) total += high_watermark(survivor, p) - before[p];
        return total == k_partitions + 1;
      },
      20s))
      << total << " records readable\n" << logs();
}

// KIP-966 with dedicated controllers (the quorum survives every broker
// loss): the ISR of every partition shrinks to its leader L through two
// controlled shutdowns, the second of which (b) enters the ELR; then L is
// killed, so nobody in sync is left. b, back after its clean shutdown, is
// elected from the ELR and has every acknowledged record.
TEST_F(ToolsReplicationIT, WithTheIsrLostTheCleanlyStoppedElrMemberLeadsAndLosesNothing) {
  int leader = 0, a = 0, b = 0;
  ASSERT_NO_FATAL_FAILURE(start_elr_case(&leader, &a, &b));

  std::vector<int64_t> acknowledged(k_partitions, 0);
  ASSERT_NO_FATAL_FAILURE(write_acks_all(leader, 3, &acknowledged));
  ASSERT_TRUE(stop(a));
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(leader, {leader, b}); }, 30s)) << logs();
  ASSERT_NO_FATAL_FAILURE(write_acks_all(leader, 3, &acknowledged));
  ASSERT_TRUE(stop(b));
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(leader, {leader}); }, 30s)) << logs();
  for (const auto& [p, part] : describe_only("--under-min-isr-partitions"))
    EXPECT_EQ(part.elr, id_set{b}) << last_describe;

  // The last in-sync replica dies; once it is fenced nobody can lead until
  // b (in the ELR, cleanly stopped) is back.
  node(leader).stop(SIGKILL);
  ASSERT_TRUE(restart(b)) << logs();
  ASSERT_TRUE(wait_until([&] { return led_everywhere_by(b, b) && isr_everywhere(b, {b}); }, 60s)) << logs();
  for (const auto& [p, part] : describe_only("--under-min-isr-partitions")) {
    EXPECT_EQ(part.leader, b) << last_describe;
    // The killed leader left the ISR below min.insync.replicas: eligible.
    EXPECT_EQ(part.elr, id_set{leader}) << last_describe;
  }

  // With a back the ISR reaches min.insync.replicas again and the high
  // watermark covers every acknowledged record, none lost.
  ASSERT_TRUE(restart(a)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(b, {a, b}); }, 60s)) << logs();
  expect_high_watermarks(b, acknowledged);
  ASSERT_TRUE(restart(leader)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(b, {4, 5, 6}); }, 60s)) << logs();
  for (const auto& [p, part] : describe()) {
    EXPECT_TRUE(part.elr.empty()) << last_describe;
  }
}

// The same loss, but b was killed (not stopped) while in the ISR: it still
// enters the ELR when it is fenced, but its unclean shutdown, seen when it
// registers again, takes it out of the ELR, so it is not elected and the
// partitions stay offline (unclean.leader.election.enable is off).
TEST_F(ToolsReplicationIT, AnElrMemberBackFromAnUncleanShutdownIsNotElected) {
  int leader = 0, a = 0, b = 0;
  ASSERT_NO_FATAL_FAILURE(start_elr_case(&leader, &a, &b));

  // Three records a partition acknowledged by all three.
  std::vector<int64_t> acknowledged(k_partitions, 0);
  ASSERT_NO_FATAL_FAILURE(write_acks_all(leader, 3, &acknowledged));
  ASSERT_TRUE(stop(a));
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(leader, {leader, b}); }, 30s)) << logs();
  node(b).stop(SIGKILL);
  // Fenced after broker.session.timeout.ms; the ISR falls below min ISR.
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(leader, {leader}); }, 30s)) << logs();
  for (const auto& [p, part] : describe_only("--under-min-isr-partitions"))
    EXPECT_EQ(part.elr, id_set{b}) << last_describe;
  // acks=1 records only the leader has: an unclean election loses them.
  for (int p = 0; p < k_partitions; ++p) {
    auto r = produce_one(node(leader).port(), p, 1, 10000);
    ASSERT_TRUE(r && r->error_code == 0) << "partition " << p << "\n" << logs();
  }
  node(leader).stop(SIGKILL);

  ASSERT_TRUE(restart(b)) << logs();
  // b is registered and unfenced (it answers with itself among the
  // brokers), yet leads nothing: the partitions stay unavailable, with the
  // killed leader the only eligible replica left.
  ASSERT_TRUE(wait_until(
      [&] {
        raw_client client(node(b).port());
        auto md = client.metadata(std::vector<std::string>{k_topic});
        if (!md) return false;
        bool listed = false;
        for (const auto& broker : md->brokers) listed = listed || broker.node_id == b;
        return listed;
      },
      60s))
      << logs();
  std::map<int, described_partition> offline;
  ASSERT_TRUE(wait_until(
      [&] {
        offline = describe_only("--unavailable-partitions");
        if (offline.size() != static_cast<size_t>(k_partitions)) return false;
        for (const auto& [p, part] : offline)
          if (part.elr != id_set{leader}) return false;
        return true;
      },
      30s))
      << last_describe << logs();
  for (const auto& [p, part] : offline) {
    EXPECT_EQ(part.leader, -1) << last_describe;
    EXPECT_TRUE(part.isr.empty()) << last_describe;
  }
  for (const auto& [p, st] : metadata_via(b)) EXPECT_EQ(st.leader, -1) << "partition " << p;
  // The active controller counts them offline (Kafka's OfflinePartitionsCount).
  EXPECT_TRUE(wait_until([&] { return controllers_metric("kafka_controller_kafkacontroller_offlinepartitionscount") ==
                                      k_partitions; }, 30s))
      << "offline partitions: " << controllers_metric("kafka_controller_kafkacontroller_offlinepartitionscount");

  // unclean.leader.election.enable on the topic, dynamically: b, the only
  // live replica, leads; what only the dead leader had is gone, as Kafka
  // documents for an unclean election.
  auto enabled = run_kafka_tool(work_dir, "kafka.admin.ConfigCommand",
                                {"--bootstrap-server", bootstrap(), "--alter", "--entity-type", "topics",
                                 "--entity-name", k_topic, "--add-config", "unclean.leader.election.enable=true"});
  ASSERT_EQ(enabled.exit_code, 0) << enabled.all();
  ASSERT_TRUE(wait_until([&] { return led_everywhere_by(b, b); }, 30s)) << logs();
  // The active controller says so, at ERROR.
  bool logged = false;
  for (int id = 1; id <= 3; ++id)
    logged = logged || node(id).log().find("Unclean leader election for offline partition " + k_topic + "-") !=
                           std::string::npos;
  EXPECT_TRUE(logged) << logs();
  // And counts them (Kafka's UncleanLeaderElectionsPerSec), one a partition.
  EXPECT_EQ(controllers_metric("kafka_controller_controllerstats_uncleanleaderelections_total"), k_partitions);
  EXPECT_TRUE(wait_until([&] { return controllers_metric("kafka_controller_kafkacontroller_offlinepartitionscount") ==
                                      0; }, 30s));
  ASSERT_TRUE(restart(a)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(b, {a, b}); }, 60s)) << logs();
  expect_high_watermarks(b, acknowledged);
}

}  // namespace
}  // namespace hw::testing

namespace hw::testing {
namespace {

// One run of the bounce test: the producer's codec, whether it is
// idempotent, and whom the rounds bounce (partition 0's leader, or the
// active controller, which in combined mode is also a broker that leads
// some partitions), as Kafka's ducktape replication_test varies them.
struct bounce_case {
  std::string codec;
  bool idempotent = true;
  bool controller = false;
};
std::string bounce_case_label(const bounce_case& c) {
  return c.codec + (c.idempotent ? "_idempotent" : "_plain") + (c.controller ? "_controller" : "_leader");
}
std::string bounce_case_name(const ::testing::TestParamInfo<bounce_case>& info) {
  return bounce_case_label(info.param);
}
void PrintTo(const bounce_case& c, std::ostream* os) { *os << bounce_case_label(c); }
// Two cases in the test command; HW_BOUNCE_ALL_CODECS=1 runs every codec
// with idempotence on and off, bouncing leaders and controllers
// (HW_BOUNCE_ROUNDS rounds each, default 2).
std::vector<bounce_case> bounce_cases() {
  if (const char* all = std::getenv("HW_BOUNCE_ALL_CODECS"); all && std::string(all) == "1") {
    std::vector<bounce_case> out;
    for (const char* codec : {"none", "gzip", "snappy", "lz4", "zstd"})
      for (bool idempotent : {true, false})
        for (bool controller : {false, true}) out.push_back({codec, idempotent, controller});
    return out;
  }
  return {{"lz4", true, false}, {"none", false, true}};
}
int bounce_rounds() {
  const char* rounds = std::getenv("HW_BOUNCE_ROUNDS");
  return rounds ? std::max(1, std::atoi(rounds)) : 2;
}

class ToolsBounceIT : public ToolsReplicationIT, public ::testing::WithParamInterface<bounce_case> {
 protected:
  // The quorum's leader as node `via` reports it (DescribeQuorum); -1 if
  // it does not know one.
  int active_controller(int via) {
    raw_client client(node(via).port());
    if (!client.connected()) return -1;
    msg::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back().partition_index = 0;
    auto resp = client.call<msg::describe_quorum_response>(55, 2, req, 5s);
    if (!resp || resp->topics.empty() || resp->topics[0].partitions.empty()) return -1;
    const auto& p = resp->topics[0].partitions[0];
    return p.error_code == 0 ? p.leader_id : -1;
  }
};

// Kafka's ducktape replication_test on three combined nodes: while
// kafka-verifiable-producer writes (acks=-1, with the case's codec and
// idempotence) and a console consumer reads in a group, the leader of
// partition 0 (or the active controller) is bounced in turn hard
// (SIGKILL, restart) and clean (SIGTERM, restart), the ISR whole again
// before the next round. Every acknowledged record is consumed at its
// offset. With idempotence, no value is in the log twice (the producer's
// values are its sequence numbers, so a retried batch written again would
// show) and each partition holds its values in the order they were sent;
// without it, a retried batch may be written twice and overtake another
// (as in Kafka), so only loss is checked.
TEST_P(ToolsBounceIT, BouncedNodesLoseNothingAcknowledged) {
  const bounce_case c = GetParam();
  start_cluster(false);
  auto created = topics({"--create", "--topic", k_topic, "--partitions", "3", "--replication-factor", "3", "--config",
                         "min.insync.replicas=2"});
  ASSERT_EQ(created.exit_code, 0) << created.all() << logs();
  ASSERT_TRUE(wait_until([&] { return isr_everywhere(1, {1, 2, 3}); }, 30s)) << logs();
  start_consumer();
  start_producer(c.codec, c.idempotent);
  ASSERT_TRUE(wait_until([&] { return acknowledged() >= 50; }, 90s)) << logs();

  for (int round = 0; round < bounce_rounds(); ++round) {
    const bool hard = round % 2 == 0;
    const std::string what = std::string(hard ? "hard" : "clean") + " bounce " + std::to_string(round + 1) + " of the " +
                             (c.controller ? "active controller" : "leader");
    int target = -1;
    ASSERT_TRUE(wait_until(
        [&] {
          const int via = 1 + round % 3;
          if (c.controller) {
            target = active_controller(via);
          } else {
            auto parts = metadata_via(via);
            target = parts.empty() ? -1 : parts[0].leader;
          }
          return target > 0;
        },
        30s))
        << what << "\n" << logs();
    if (hard) {
      ASSERT_EQ(node(target).stop(SIGKILL), -SIGKILL) << what;
    } else {
      ASSERT_TRUE(stop(target)) << what;
    }
    const int watcher = target % 3 + 1;
    ASSERT_TRUE(wait_until(
        [&] {
          if (c.controller) {
            const int now = active_controller(watcher);
            return now > 0 && now != target;
          }
          auto parts = metadata_via(watcher);
          return !parts.empty() && parts[0].leader > 0 && parts[0].leader != target;
        },
        30s))
        << what << ": no new one\n" << logs();
    expect_writes_go_on(30, what + ", it down");
    ASSERT_TRUE(restart(target)) << what << "\n" << logs();
    ASSERT_TRUE(wait_until([&] { return isr_everywhere(watcher, {1, 2, 3}); }, 60s)) << what << "\n" << logs();
    expect_writes_go_on(30, what + ", all back");
  }

  const consumer_report read = expect_every_acknowledged_record_consumed();
  if (!c.idempotent) return;
  std::map<std::string, position> seen;
  std::map<int, long long> last_value;
  for (const auto& [pos, value] : read.consumed) {
    auto [it, fresh] = seen.emplace(value, pos);
    EXPECT_TRUE(fresh) << "value " << value << " at partition " << pos.first << " offsets " << it->second.second
                       << " and " << pos.second;
    const long long v = std::stoll(value);
    auto last = last_value.find(pos.first);
    if (last != last_value.end()) {
      EXPECT_LT(last->second, v) << "partition " << pos.first << " offset " << pos.second << " out of order";
    }
    last_value[pos.first] = v;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ToolsBounceIT, ::testing::ValuesIn(bounce_cases()), bounce_case_name);

}  // namespace
}  // namespace hw::testing
