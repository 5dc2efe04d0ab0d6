// hw_loadgen: the end-to-end benchmark's own load generator on librdkafka,
// so that a broker is measured with a native client that is not the limit.
// Every command prints one JSON object on stdout; errors go to stderr and
// make the exit code non-zero.
//
//   hw_loadgen probe        --bootstrap B --topic T [--timeout-ms 120000] [--acks 1|all]
//                           [--message-timeout-ms 500]
//   hw_loadgen create-topic --bootstrap B --topic T --partitions N [--replication-factor R]
//   hw_loadgen produce      --bootstrap B --topic T [--producers 3] [--record-size 1024]
//                           [--seconds 10 | --records N] [--acks 1|all] [--compression none|lz4]
//                           [--linger-ms 5] [--batch-bytes 1000000] [--idempotence true|false]
//   hw_loadgen consume      --bootstrap B --topic T --records N [--consumers 1] [--timeout-ms 30000]
//   hw_loadgen fetch        --bootstrap B --topic T --records N [--readers 4] [--timeout-ms 30000]
//   hw_loadgen e2e          --bootstrap B --topic T [--rate 1000] [--seconds 10] [--record-size 1024]
//   hw_loadgen txn          --bootstrap B --topic T [--transactions 500] [--records-per-txn 100]
//                           [--record-size 1024] [--transactional-id hw-loadgen-txn]
//   hw_loadgen scram        --bootstrap B [--connections 16] [--seconds 10] [--cache-salted-password true|false]
//                           [--wait-ms 60000] -X security.protocol=sasl_plaintext|sasl_ssl
//                           -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=U -X sasl.password=P
//
// Every command also takes -X key=value (repeatable): librdkafka settings
// given to each of its clients after the command's own, e.g.
// -X security.protocol=ssl -X ssl.ca.location=ca.crt. The commands that
// speak the protocol themselves (fetch, scram) read the same keys:
// security.protocol, ssl.ca.location, ssl.endpoint.identification.algorithm
// (https, the default, or none) and, for scram, sasl.*.
//
// Single-threaded main; `produce` runs one producer instance per thread, each
// with its own latency histogram, merged at the end.

#include <arpa/inet.h>
#include <librdkafka/rdkafka.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/sasl/scram.h"
#include "protocol/sasl/scram_client.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The -X key=value settings (a later one for the same key wins). Set by
// main before any client or thread starts; read-only after.
std::map<std::string, std::string>& client_settings() {
  static std::map<std::string, std::string> settings;
  return settings;
}

// A -X setting, or the fallback.
std::string client_setting(const std::string& key, const std::string& fallback = "") {
  auto it = client_settings().find(key);
  return it == client_settings().end() ? fallback : it->second;
}

// Command-line flags as --name value pairs; -X key=value pairs go to
// client_settings().
class flags {
 public:
  flags(int argc, char** argv, int first) {
    for (int i = first; i < argc; i += 2) {
      std::string name = argv[i];
      if (i + 1 >= argc) throw std::runtime_error("bad argument: " + name);
      if (name == "-X") {
        const std::string setting = argv[i + 1];
        const auto eq = setting.find('=');
        if (eq == std::string::npos || eq == 0) throw std::runtime_error("-X wants key=value, not " + setting);
        client_settings()[setting.substr(0, eq)] = setting.substr(eq + 1);
        continue;
      }
      if (name.rfind("--", 0) != 0) throw std::runtime_error("bad argument: " + name);
      values_[name.substr(2)] = argv[i + 1];
    }
  }
  std::string str(const std::string& name, const std::string& fallback = "") const {
    auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    if (fallback.empty()) throw std::runtime_error("missing --" + name);
    return fallback;
  }
  int64_t num(const std::string& name, int64_t fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : std::stoll(it->second);
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

 private:
  std::map<std::string, std::string> values_;
};

// Log-linear latency histogram in microseconds: 64 sub-buckets per power of
// two, so a reported percentile is within ~1.6% of the true value.
class histogram {
 public:
  void record(int64_t us) {
    if (us < 0) us = 0;
    ++counts_[index(static_cast<uint64_t>(us))];
    ++total_;
    max_ = std::max(max_, us);
  }
  void merge(const histogram& o) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    max_ = std::max(max_, o.max_);
  }
  int64_t percentile(double p) const {
    if (total_ == 0) return 0;
    auto rank = static_cast<uint64_t>(p / 100.0 * static_cast<double>(total_ - 1)) + 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(upper(i), max_);
    }
    return max_;
  }
  uint64_t total() const { return total_; }
  int64_t max() const { return max_; }

 private:
  static constexpr int sub_bits = 6;
  static size_t index(uint64_t v) {
    if (v < (1u << sub_bits)) return v;
    int msb = 63 - __builtin_clzll(v);
    int shift = msb - sub_bits;
    return static_cast<size_t>((shift + 1) << sub_bits) + ((v >> shift) & ((1u << sub_bits) - 1));
  }
  static int64_t upper(size_t i) {
    if (i < (1u << sub_bits)) return static_cast<int64_t>(i);
    int shift = static_cast<int>(i >> sub_bits) - 1;
    uint64_t mantissa = (i & ((1u << sub_bits) - 1)) | (1u << sub_bits);
    return static_cast<int64_t>(((mantissa + 1) << shift) - 1);
  }
  std::array<uint64_t, 64 * 60> counts_{};
  uint64_t total_ = 0;
  int64_t max_ = 0;
};

rd_kafka_conf_t* make_conf(const std::string& bootstrap, const std::map<std::string, std::string>& extra) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> all{{"bootstrap.servers", bootstrap}, {"log_level", "3"}};
  for (const auto& [k, v] : extra) all[k] = v;
  for (const auto& [k, v] : client_settings()) all[k] = v;
  for (const auto& [k, v] : all) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(k + ": " + err);
    }
  }
  return conf;
}

rd_kafka_t* make_client(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("rd_kafka_new: ") + err);
  return rk;
}

int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Payload of printable letters, as Kafka's ProducerPerformance uses.
std::string make_payload(size_t size) {
  std::mt19937 rng(42);
  std::string s(size, 'A');
  for (auto& c : s) c = static_cast<char>('A' + rng() % 26);
  return s;
}

// --- probe: one record acknowledged, retried with short timeouts ---------

struct probe_state {
  std::atomic<int> outcome{0};  // 0 pending, 1 acked, -1 failed
};

void probe_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  static_cast<probe_state*>(opaque)->outcome = m->err ? -1 : 1;
}

// True once host:port accepts a TCP connection.
bool port_open(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(std::stoi(host_port.substr(colon + 1))));
  if (inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &addr.sin_addr) != 1) return true;  // not IPv4: skip
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const bool ok = fd >= 0 && connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

int cmd_probe(const flags& f) {
  const auto topic = f.str("topic");
  const auto deadline = clock_type::now() + std::chrono::milliseconds(f.num("timeout-ms", 120000));
  // librdkafka backs off after refused connections; wait for the listener
  // first (1 ms polls) so that back-off is not counted as start-up time.
  const std::string bootstrap = f.str("bootstrap");
  const std::string first = bootstrap.substr(0, bootstrap.find(','));
  while (!port_open(first) && clock_type::now() < deadline) std::this_thread::sleep_for(1ms);
  probe_state state;
  // Short backoffs so the first moment the broker can take the record is seen.
  rd_kafka_conf_t* conf = make_conf(f.str("bootstrap"), {{"reconnect.backoff.ms", "5"},
                                                         {"reconnect.backoff.max.ms", "20"},
                                                         {"retry.backoff.ms", "10"},
                                                         {"topic.metadata.refresh.fast.interval.ms", "10"},
                                                         // One record given up after this and sent again
                                                         {"message.timeout.ms", f.str("message-timeout-ms", "500")},
                                                         {"socket.connection.setup.timeout.ms", "1000"},
                                                         {"linger.ms", "0"},
                                                         {"acks", f.str("acks", "1")}});
  rd_kafka_conf_set_dr_msg_cb(conf, probe_delivery);
  rd_kafka_conf_set_opaque(conf, &state);
  rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, conf);
  int attempts = 0;
  while (clock_type::now() < deadline) {
    ++attempts;
    state.outcome = 0;
    if (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_VALUE(const_cast<char*>("probe"), 5),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_poll(rk, 10);
      continue;
    }
    while (state.outcome == 0) rd_kafka_poll(rk, 1);
    if (state.outcome == 1) break;
  }
  const int64_t acked = epoch_ms();
  rd_kafka_destroy(rk);
  if (state.outcome != 1) {
    std::fprintf(stderr, "probe: no produce acknowledged before the deadline\n");
    return 1;
  }
  std::printf("{\"acked_epoch_ms\": %" PRId64 ", \"attempts\": %d}\n", acked, attempts);
  return 0;
}

// --- create-topic -------------------------------------------------------

int cmd_create_topic(const flags& f) {
  char err[512];
  rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, make_conf(f.str("bootstrap"), {}));
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(f.str("topic").c_str(), static_cast<int>(f.num("partitions", 1)),
                                                  static_cast<int>(f.num("replication-factor", 1)), err, sizeof err);
  if (!nt) throw std::runtime_error(err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  std::string error = "CreateTopics timed out";
  if (rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000)) {
    size_t n = 0;
    const rd_kafka_topic_result_t** res =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    if (rd_kafka_event_error(ev))
      error = rd_kafka_event_error_string(ev);
    else if (n == 1 && rd_kafka_topic_result_error(res[0]) != RD_KAFKA_RESP_ERR_NO_ERROR)
      error = rd_kafka_topic_result_error_string(res[0]);
    else
      error.clear();
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
  rd_kafka_destroy(rk);
  if (!error.empty()) {
    std::fprintf(stderr, "create-topic: %s\n", error.c_str());
    return 1;
  }
  std::printf("{\"created\": true}\n");
  return 0;
}

// --- produce ------------------------------------------------------------

// One producer instance and its thread's counters; touched only by that
// thread until it is joined.
struct producer_stats {
  histogram latency_us;
  uint64_t delivered = 0;
  uint64_t failed = 0;
  std::string first_error;
};

void produce_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* st = static_cast<producer_stats*>(opaque);
  if (m->err) {
    if (st->failed++ == 0) st->first_error = rd_kafka_err2str(m->err);
    return;
  }
  ++st->delivered;
  st->latency_us.record(rd_kafka_message_latency(m));
}

struct produce_plan {
  std::string bootstrap;
  std::string topic;
  std::map<std::string, std::string> conf;
  const std::string* payload = nullptr;
  std::optional<uint64_t> records;  // per producer; else until stop
  const std::atomic<bool>* stop = nullptr;
};

void run_producer(const produce_plan& plan, producer_stats& st) {
  rd_kafka_conf_t* conf = make_conf(plan.bootstrap, plan.conf);
  rd_kafka_conf_set_dr_msg_cb(conf, produce_delivery);
  rd_kafka_conf_set_opaque(conf, &st);
  rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, conf);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, plan.topic.c_str(), nullptr);
  uint64_t sent = 0;
  while (plan.records ? sent < *plan.records : !plan.stop->load(std::memory_order_relaxed)) {
    // No copy: the payload outlives the producer.
    const rd_kafka_resp_err_t err =
        rd_kafka_producev(rk, RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_PARTITION(RD_KAFKA_PARTITION_UA),
                          RD_KAFKA_V_VALUE(const_cast<char*>(plan.payload->data()), plan.payload->size()),
                          RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ++sent;
      if ((sent & 1023) == 0) rd_kafka_poll(rk, 0);
    } else if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk, 1);
    } else {
      if (st.failed++ == 0) st.first_error = rd_kafka_err2str(err);
      break;
    }
  }
  rd_kafka_flush(rk, 60000);
  if (rd_kafka_outq_len(rk) > 0 && st.failed++ == 0) st.first_error = "records still queued after 60 s flush";
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
}

int cmd_produce(const flags& f) {
  const auto producers = static_cast<int>(f.num("producers", 3));
  const auto record_size = static_cast<size_t>(f.num("record-size", 1024));
  const std::string acks = f.str("acks", "1");
  const std::string payload = make_payload(record_size);
  std::atomic<bool> stop{false};
  produce_plan plan{f.str("bootstrap"),
                    f.str("topic"),
                    {{"acks", acks},
                     {"enable.idempotence", f.str("idempotence", acks == "all" ? "true" : "false")},
                     {"compression.codec", f.str("compression", "none")},
                     {"linger.ms", std::to_string(f.num("linger-ms", 5))},
                     {"batch.size", std::to_string(f.num("batch-bytes", 1000000))},
                     // Enough queued per producer to fill batches for every
                     // partition, not so much that a flush at the end takes long.
                     {"queue.buffering.max.kbytes", "16384"},
                     {"queue.buffering.max.messages", "1000000"}},
                    &payload,
                    std::nullopt,
                    &stop};
  if (f.has("records")) plan.records = static_cast<uint64_t>(f.num("records", 0)) / producers;
  std::vector<producer_stats> stats(producers);
  const auto t0 = clock_type::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < producers; ++i) threads.emplace_back([&, i] { run_producer(plan, stats[i]); });
  if (!plan.records) {
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(f.num("seconds", 10) * 1000)));
    stop = true;
  }
  for (auto& t : threads) t.join();
  const double secs = seconds_since(t0);
  histogram all;
  uint64_t delivered = 0, failed = 0;
  std::string first_error;
  for (const auto& st : stats) {
    all.merge(st.latency_us);
    delivered += st.delivered;
    failed += st.failed;
    if (first_error.empty()) first_error = st.first_error;
  }
  const double bytes = static_cast<double>(delivered) * static_cast<double>(record_size);
  std::printf(
      "{\"records\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"bytes\": %.0f, \"seconds\": %.3f, "
      "\"records_per_s\": %.1f, \"mb_per_s\": %.2f, \"latency_ms\": {\"p50\": %.3f, \"p99\": %.3f, "
      "\"p999\": %.3f, \"max\": %.3f}, \"first_error\": \"%s\"}\n",
      delivered, failed, bytes, secs, static_cast<double>(delivered) / secs, bytes / secs / 1e6,
      static_cast<double>(all.percentile(50)) / 1e3, static_cast<double>(all.percentile(99)) / 1e3,
      static_cast<double>(all.percentile(99.9)) / 1e3, static_cast<double>(all.max()) / 1e3, first_error.c_str());
  return failed == 0 ? 0 : 1;
}

// --- consume ------------------------------------------------------------

// The topic's metadata as librdkafka has it (one topic, no error).
using metadata_ptr = std::unique_ptr<const rd_kafka_metadata_t, void (*)(const rd_kafka_metadata_t*)>;
metadata_ptr topic_metadata(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  rd_kafka_topic_destroy(rkt);
  metadata_ptr owned(md, rd_kafka_metadata_destroy);
  if (err || md->topic_cnt != 1 || md->topics[0].err)
    throw std::runtime_error("metadata for " + topic + ": " + rd_kafka_err2str(err ? err : md->topics[0].err));
  return owned;
}

// Every partition of the topic, from its first offset, without a group.
rd_kafka_topic_partition_list_t* all_partitions(rd_kafka_t* rk, const std::string& topic) {
  metadata_ptr md = topic_metadata(rk, topic);
  auto* list = rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
  for (int i = 0; i < md->topics[0].partition_cnt; ++i)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), md->topics[0].partitions[i].id)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  return list;
}

// What `consume` and `fetch` are asked: read `want` records of `topic`
// with `readers` clients, failing after `idle_limit` without a record.
struct read_plan {
  std::string topic;
  std::string bootstrap;
  uint64_t want;
  int readers;
  std::chrono::milliseconds idle_limit;

  read_plan(const flags& f, const char* readers_flag, int default_readers)
      : topic(f.str("topic")),
        bootstrap(f.str("bootstrap")),
        want(static_cast<uint64_t>(f.num("records", 0))),
        readers(static_cast<int>(f.num(readers_flag, default_readers))),
        idle_limit(f.num("timeout-ms", 30000)) {
    if (readers < 1) throw std::runtime_error(std::string("--") + readers_flag + " must be at least 1");
  }
};

// What one of several readers (`consume --consumers`, `fetch --readers`)
// read; touched only by its thread until joined.
struct reader_share {
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t fetches = 0;         // fetch only
  clock_type::time_point last;  // when its last record arrived
  std::string error;
};

// Runs read(i, share i) on n threads and prints the readers' totals as one
// JSON object; the exit code.
template <typename Read>
int run_readers(int n, const char* count_name, bool with_fetches, Read read) {
  std::vector<reader_share> shares(n);
  const auto t0 = clock_type::now();
  for (auto& s : shares) s.last = t0;
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) threads.emplace_back([&, i] { read(i, shares[i]); });
  for (auto& t : threads) t.join();
  reader_share all;
  all.last = t0;
  for (const auto& s : shares) {
    all.records += s.records;
    all.bytes += s.bytes;
    all.fetches += s.fetches;
    all.last = std::max(all.last, s.last);
    if (all.error.empty()) all.error = s.error;
  }
  // Up to the last record: an idle wait at the end is not throughput.
  const double secs = std::chrono::duration<double>(all.last - t0).count();
  const std::string fetches = with_fetches ? ", \"fetches\": " + std::to_string(all.fetches) : "";
  std::printf(
      "{\"records\": %" PRIu64 ", \"bytes\": %" PRIu64 "%s, \"%s\": %d, \"seconds\": %.3f, "
      "\"records_per_s\": %.1f, \"mb_per_s\": %.2f, \"error\": \"%s\"}\n",
      all.records, all.bytes, fetches.c_str(), count_name, n, secs, static_cast<double>(all.records) / secs,
      static_cast<double>(all.bytes) / secs / 1e6, all.error.c_str());
  return all.error.empty() ? 0 : 1;
}

// One consumer instance of `consume`, reading the partitions it was given
// until the consumers together have seen `want` records.
void run_consumer(const std::string& bootstrap, rd_kafka_topic_partition_list_t* parts, uint64_t want,
                  std::atomic<uint64_t>& seen, std::chrono::milliseconds idle_limit, reader_share& share) {
  rd_kafka_t* rk = make_client(RD_KAFKA_CONSUMER, make_conf(bootstrap, {{"group.id", "hw-loadgen"},
                                                                        {"enable.auto.commit", "false"},
                                                                        {"fetch.wait.max.ms", "100"}}));
  rd_kafka_assign(rk, parts);
  const auto t0 = share.last;
  // Idle when no consumer has seen a record for idle_limit: one that has
  // read all of its partitions waits for the others.
  uint64_t seen_before = 0;
  auto progress_at = t0;
  while (seen.load(std::memory_order_relaxed) < want) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
    if (!m) {
      const uint64_t now_seen = seen.load(std::memory_order_relaxed);
      if (now_seen != seen_before) {
        seen_before = now_seen;
        progress_at = clock_type::now();
      } else if (clock_type::now() - progress_at > idle_limit) {
        share.error = "no record for " + std::to_string(idle_limit.count()) + " ms";
        break;
      }
      continue;
    }
    if (m->err) {
      if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) share.error = rd_kafka_message_errstr(m);
    } else {
      ++share.records;
      share.bytes += m->len;
      share.last = clock_type::now();
      seen.fetch_add(1, std::memory_order_relaxed);
    }
    rd_kafka_message_destroy(m);
    if (!share.error.empty()) break;
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
}

// --consumers N: N consumer instances, each on its own thread with the
// partitions p where p % N is its index, so that several clients together
// can ask more of the broker than one.
int cmd_consume(const flags& f) {
  const read_plan plan(f, "consumers", 1);
  const int consumers = plan.readers;
  std::vector<rd_kafka_topic_partition_list_t*> shares(consumers);
  {
    rd_kafka_t* rk = make_client(RD_KAFKA_CONSUMER, make_conf(plan.bootstrap, {{"group.id", "hw-loadgen"}}));
    rd_kafka_topic_partition_list_t* all = all_partitions(rk, plan.topic);
    rd_kafka_destroy(rk);
    if (all->cnt < consumers) throw std::runtime_error("fewer partitions than --consumers");
    for (auto& s : shares) s = rd_kafka_topic_partition_list_new(all->cnt / consumers + 1);
    for (int i = 0; i < all->cnt; ++i)
      rd_kafka_topic_partition_list_add(shares[all->elems[i].partition % consumers], plan.topic.c_str(),
                                        all->elems[i].partition)
          ->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_topic_partition_list_destroy(all);
  }
  std::atomic<uint64_t> seen{0};
  const int code = run_readers(consumers, "consumers", false, [&](int i, reader_share& share) {
    run_consumer(plan.bootstrap, shares[i], plan.want, seen, plan.idle_limit, share);
  });
  for (auto* s : shares) rd_kafka_topic_partition_list_destroy(s);
  return code;
}

// --- connections of the commands that speak the protocol themselves ------

// "SSL" for "ssl", as librdkafka takes security.protocol in either case.
std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// TLS as the -X settings ask for it (security.protocol SSL or SASL_SSL,
// ssl.ca.location, ssl.endpoint.identification.algorithm): one client
// context shared by every connection (OpenSSL allows SSL_new from several
// threads); none for PLAINTEXT and SASL_PLAINTEXT.
struct tls_settings {
  std::shared_ptr<SSL_CTX> context;
  bool verify_host = true;

  static tls_settings from_client_settings() {
    tls_settings t;
    const std::string protocol = upper(client_setting("security.protocol", "plaintext"));
    if (protocol != "SSL" && protocol != "SASL_SSL") return t;
    t.context.reset(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    if (!t.context) throw std::runtime_error("SSL_CTX_new failed");
    const std::string ca = client_setting("ssl.ca.location");
    if (ca.empty()) throw std::runtime_error("security.protocol " + protocol + " wants -X ssl.ca.location=FILE");
    if (SSL_CTX_load_verify_locations(t.context.get(), ca.c_str(), nullptr) != 1)
      throw std::runtime_error("cannot load the CA certificates of " + ca);
    SSL_CTX_set_verify(t.context.get(), SSL_VERIFY_PEER, nullptr);
    // Every connection a full handshake: what a new client costs the broker.
    SSL_CTX_set_session_cache_mode(t.context.get(), SSL_SESS_CACHE_OFF);
    t.verify_host = client_setting("ssl.endpoint.identification.algorithm", "https") == "https";
    return t;
  }
};

// A blocking connection to one listener that sends requests one at a time
// and reads whole answers (the protocol library's codecs, no librdkafka),
// over TLS when `tls` has a context.
class wire_connection {
 public:
  wire_connection(const std::string& host_port, const tls_settings& tls, const char* client_id)
      : client_id_(client_id) {
    const auto colon = host_port.rfind(':');
    const std::string host = host_port.substr(0, colon);
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), host_port.substr(colon + 1).c_str(), &hints, &found) != 0)
      throw std::runtime_error("cannot resolve " + host_port);
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const bool ok = fd_ >= 0 && connect(fd_, found->ai_addr, found->ai_addrlen) == 0;
    const int error = errno;
    freeaddrinfo(found);
    if (!ok) {
      release();
      throw std::runtime_error("cannot connect to " + host_port + ": " + std::strerror(error));
    }
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    try {
      if (tls.context) start_tls(host, tls);
    } catch (...) {
      release();  // no destructor for a constructor that throws
      throw;
    }
  }
  ~wire_connection() {
    // close_notify, as a client closing cleanly sends (not after a TLS error: OpenSSL forbids it)
    if (ssl_ && !tls_broken_) SSL_shutdown(ssl_);
    release();
  }
  wire_connection(const wire_connection&) = delete;
  wire_connection& operator=(const wire_connection&) = delete;

  // Sends the request and returns the answer's frame (after its size); the
  // frame is this connection's buffer, valid until the next call.
  template <typename Request>
  std::vector<uint8_t>& call(const Request& request, int16_t version) {
    const int16_t api_key = Request::schema.api_key;
    out_.assign(4, 0);
    hw::protocol::writer w(out_);
    hw::protocol::msg::request_header h;
    h.request_api_key = api_key;
    h.request_api_version = version;
    h.correlation_id = ++correlation_id_;
    h.client_id = client_id_;
    h.encode(w, hw::protocol::request_header_version(api_key, version));
    request.encode(w, version);
    const uint32_t size = htonl(static_cast<uint32_t>(out_.size() - 4));
    std::memcpy(out_.data(), &size, 4);
    send_all(out_.data(), out_.size());
    uint32_t answer_size = 0;
    read_all(reinterpret_cast<uint8_t*>(&answer_size), 4);
    in_.resize(ntohl(answer_size));
    read_all(in_.data(), in_.size());
    return in_;
  }

  // call() and the answer decoded, its header checked.
  template <typename Response, typename Request>
  Response round_trip(const Request& request, int16_t version) {
    hw::protocol::reader r(call(request, version));
    hw::protocol::msg::response_header h;
    h.decode(r, hw::protocol::response_header_version(Request::schema.api_key, version));
    Response answer;
    answer.decode(r, version);
    if (!r.ok() || h.correlation_id != correlation_id_)
      throw std::runtime_error(std::string("an answer to ") + Request::schema.name + " that does not decode");
    return answer;
  }

 private:
  void release() {
    if (ssl_) SSL_free(ssl_);
    ssl_ = nullptr;
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  [[noreturn]] void tls_failed(const std::string& what) {
    tls_broken_ = true;
    char reason[256] = "";
    ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
    ERR_clear_error();
    throw std::runtime_error(what + ": " + reason);
  }

  void start_tls(const std::string& host, const tls_settings& tls) {
    ssl_ = SSL_new(tls.context.get());
    if (!ssl_ || SSL_set_fd(ssl_, fd_) != 1) tls_failed("cannot start TLS");
    unsigned char address[16];
    const bool is_ip = inet_pton(AF_INET, host.c_str(), address) == 1;
    if (!is_ip) SSL_set_tlsext_host_name(ssl_, host.c_str());
    if (tls.verify_host) {
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
      if (is_ip)
        X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
      else
        X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    }
    if (SSL_connect(ssl_) != 1) tls_failed("TLS handshake with " + host);
  }

  void send_all(const uint8_t* p, size_t n) {
    while (n > 0) {
      size_t k = 0;
      if (ssl_) {
        if (SSL_write_ex(ssl_, p, n, &k) != 1) tls_failed("TLS write failed");
      } else {
        const ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) throw std::runtime_error("send failed");
        k = static_cast<size_t>(sent);
      }
      p += k;
      n -= k;
    }
  }
  void read_all(uint8_t* p, size_t n) {
    while (n > 0) {
      size_t k = 0;
      if (ssl_) {
        if (SSL_read_ex(ssl_, p, n, &k) != 1) tls_failed("connection closed by the broker (TLS)");
      } else {
        const ssize_t got = ::recv(fd_, p, n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) throw std::runtime_error("connection closed by the broker");
        k = static_cast<size_t>(got);
      }
      p += k;
      n -= k;
    }
  }
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool tls_broken_ = false;
  const char* client_id_;
  int32_t correlation_id_ = 0;
  std::vector<uint8_t> out_;
  std::vector<uint8_t> in_;
};

// --- fetch: readers that ask the broker for records and do not decode them --

uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
uint64_t be64(const uint8_t* p) { return (uint64_t(be32(p)) << 32) | be32(p + 4); }

// Walks the whole batches of a partition's records (a batch cut at the
// end comes whole in the next fetch) by their headers alone: adds their
// bytes to `bytes`, moves `next` past the last, returns their records.
uint64_t count_whole_batches(const hw::protocol::records_view& records, uint64_t& bytes, int64_t& next) {
  constexpr size_t header = 61;  // base offset .. record count
  const uint8_t* b = records.data;
  size_t left = records.size;
  uint64_t count = 0;
  while (left >= header) {
    const size_t length = 12 + be32(b + 8);
    if (length > left) break;
    count += be32(b + 57);
    bytes += length;
    next = static_cast<int64_t>(be64(b) + be32(b + 23) + 1);  // base offset + last offset delta + 1
    b += length;
    left -= length;
  }
  return count;
}

// One reader: its partitions, by the broker that leads them, fetched from
// offset 0 one Fetch at a time per broker (v12, no session: every request
// names every partition), as a consumer's fetch loop does, until the
// readers together have seen `want` records. Only the batch headers are
// read: the offsets to go on from and the record counts; the bytes counted
// are whole batches, headers included.
void run_fetch_reader(const std::string& topic, const std::map<std::string, std::vector<int32_t>>& by_leader,
                      const tls_settings& tls, uint64_t want, std::atomic<uint64_t>& seen,
                      std::chrono::milliseconds idle_limit, reader_share& share) {
  constexpr int16_t version = 12;
  struct source {
    std::unique_ptr<wire_connection> conn;
    std::map<int32_t, int64_t> next;  // partition -> offset to fetch
  };
  try {
    std::vector<source> sources;
    for (const auto& [leader, partitions] : by_leader) {
      source& src = sources.emplace_back();
      src.conn = std::make_unique<wire_connection>(leader, tls, "hw-loadgen-fetch");
      for (int32_t p : partitions) src.next[p] = 0;
    }
    hw::protocol::msg::fetch_request request;
    request.max_wait_ms = 100;
    request.min_bytes = 1;
    request.max_bytes = 50 << 20;
    auto& t = request.topics.emplace_back();
    t.topic = topic;
    auto progress_at = clock_type::now();
    while (!sources.empty() && seen.load(std::memory_order_relaxed) < want) {
      uint64_t got = 0;
      for (source& src : sources) {
        t.partitions.clear();
        for (const auto& [p, offset] : src.next) {
          auto& fp = t.partitions.emplace_back();
          fp.partition = p;
          fp.fetch_offset = offset;
          fp.partition_max_bytes = 1 << 20;
        }
        // The records are views into the connection's buffer, read before the next call.
        const auto answer = src.conn->round_trip<hw::protocol::msg::fetch_response>(request, version);
        ++share.fetches;
        if (answer.error_code != 0) throw std::runtime_error("Fetch error " + std::to_string(answer.error_code));
        for (const auto& tr : answer.responses) {
          for (const auto& pr : tr.partitions) {
            if (pr.error_code != 0)
              throw std::runtime_error("Fetch error " + std::to_string(pr.error_code) + " for partition " +
                                       std::to_string(pr.partition_index));
            got += count_whole_batches(pr.records, share.bytes, src.next[pr.partition_index]);
          }
        }
      }
      const auto now = clock_type::now();
      if (got > 0) {
        share.records += got;
        share.last = progress_at = now;
        seen.fetch_add(got, std::memory_order_relaxed);
      } else if (now - progress_at > idle_limit) {
        share.error = "no record for " + std::to_string(idle_limit.count()) + " ms";
        return;
      }
    }
  } catch (const std::exception& e) {
    share.error = e.what();
  }
}

// --readers N threads, each with its own connection to every leader it
// needs and the partitions p where p % N is its index.
int cmd_fetch(const flags& f) {
  const read_plan plan(f, "readers", 4);
  const int readers = plan.readers;
  std::vector<std::map<std::string, std::vector<int32_t>>> shares(readers);  // leader -> partitions
  {
    rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, make_conf(plan.bootstrap, {}));
    metadata_ptr md = topic_metadata(rk, plan.topic);
    std::map<int32_t, std::string> brokers;
    for (int i = 0; i < md->broker_cnt; ++i)
      brokers[md->brokers[i].id] = std::string(md->brokers[i].host) + ":" + std::to_string(md->brokers[i].port);
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      const auto& p = md->topics[0].partitions[i];
      if (!brokers.count(p.leader)) throw std::runtime_error("fetch: a partition without a known leader");
      shares[p.id % readers][brokers[p.leader]].push_back(p.id);
    }
    md.reset();
    rd_kafka_destroy(rk);
  }
  const tls_settings tls = tls_settings::from_client_settings();
  std::atomic<uint64_t> seen{0};
  return run_readers(readers, "readers", true, [&](int i, reader_share& share) {
    run_fetch_reader(plan.topic, shares[i], tls, plan.want, seen, plan.idle_limit, share);
  });
}

// --- e2e: produce-to-consume latency at a fixed rate ---------------------

// Shared between the producing main thread and the consuming thread.
struct e2e_state {
  std::atomic<uint64_t> warmups{0};
  std::atomic<uint64_t> warm_partitions{0};  // bit p: a warm-up record of partition p came back
  std::atomic<uint64_t> received{0};
  std::atomic<bool> producer_done{false};
  std::atomic<uint64_t> sent{0};
  histogram latency_us;  // consumer thread only, read after join
  std::string error;     // consumer thread only, read after join
};

// Each record carries its send time (steady clock, ns) in its first 8
// bytes; 0 marks a warm-up record, not measured.
void e2e_consume(rd_kafka_t* rk, e2e_state& st, std::chrono::milliseconds idle_limit) {
  auto last = clock_type::now();
  while (!st.producer_done || st.received < st.sent) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 50);
    const auto now = clock_type::now();
    if (!m) {
      if (st.producer_done && now - last > idle_limit) {
        st.error = "no record for " + std::to_string(idle_limit.count()) + " ms";
        return;
      }
      continue;
    }
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR && m->len >= sizeof(int64_t)) {
      int64_t sent_ns = 0;
      std::memcpy(&sent_ns, m->payload, sizeof sent_ns);
      if (sent_ns == 0) {
        ++st.warmups;
        if (m->partition >= 0 && m->partition < 64) st.warm_partitions |= uint64_t{1} << m->partition;
      } else {
        st.latency_us.record((now.time_since_epoch().count() - sent_ns) / 1000);
        ++st.received;
      }
      last = now;
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      st.error = rd_kafka_message_errstr(m);
      rd_kafka_message_destroy(m);
      return;
    }
    rd_kafka_message_destroy(m);
  }
}

int cmd_e2e(const flags& f) {
  static_assert(std::is_same_v<clock_type::duration, std::chrono::nanoseconds>);
  const std::string topic = f.str("topic");
  const auto rate = f.num("rate", 1000);
  const auto total = static_cast<uint64_t>(rate * f.num("seconds", 10));
  std::string payload = make_payload(static_cast<size_t>(std::max<int64_t>(f.num("record-size", 1024), 8)));
  rd_kafka_t* consumer = make_client(
      RD_KAFKA_CONSUMER, make_conf(f.str("bootstrap"), {{"group.id", "hw-loadgen-e2e"}, {"enable.auto.commit", "false"}}));
  rd_kafka_topic_partition_list_t* parts = all_partitions(consumer, topic);
  const int partitions = std::min(parts->cnt, 64);
  rd_kafka_assign(consumer, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  producer_stats acked;  // produce-to-acknowledgement, for telling the two halves apart
  rd_kafka_conf_t* pconf =
      make_conf(f.str("bootstrap"), {{"acks", "1"},
                                     {"enable.idempotence", "false"},
                                     {"linger.ms", "0"},
                                     // as the Java producer: a backlog is batched, not sent record by record
                                     {"max.in.flight.requests.per.connection", "5"}});
  rd_kafka_conf_set_dr_msg_cb(pconf, produce_delivery);
  rd_kafka_conf_set_opaque(pconf, &acked);
  rd_kafka_t* producer = make_client(RD_KAFKA_PRODUCER, pconf);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(producer, topic.c_str(), nullptr);
  e2e_state st;
  std::thread reader([&] { e2e_consume(consumer, st, std::chrono::milliseconds(f.num("timeout-ms", 10000))); });
  auto send = [&](int64_t stamp, int32_t partition = RD_KAFKA_PARTITION_UA) {
    std::memcpy(payload.data(), &stamp, sizeof stamp);
    while (rd_kafka_produce(rkt, partition, RD_KAFKA_MSG_F_COPY, payload.data(), payload.size(), nullptr, 0,
                            nullptr) != 0)
      rd_kafka_poll(producer, 1);
    rd_kafka_poll(producer, 0);
  };
  // Warm up until the consumer has read a record of every partition, so
  // its start (the committed-offset lookup, the first fetch of each
  // leader) is not measured: a partition the consumer is not fetching yet
  // holds its records back for as long as that takes.
  const uint64_t every_partition = partitions >= 64 ? ~uint64_t{0} : (uint64_t{1} << partitions) - 1;
  const auto warm_deadline = clock_type::now() + 30s;
  while (st.warm_partitions != every_partition && clock_type::now() < warm_deadline) {
    for (int32_t p = 0; p < partitions; ++p) send(0, p);
    std::this_thread::sleep_for(20ms);
  }
  const auto t0 = clock_type::now();
  for (uint64_t i = 0; i < total && st.warm_partitions == every_partition; ++i) {
    // Serve delivery reports while waiting, so acks are seen when they come.
    const auto due = t0 + std::chrono::nanoseconds(static_cast<int64_t>(i * 1'000'000'000ull / rate));
    while (clock_type::now() + 1ms < due) rd_kafka_poll(producer, 1);
    std::this_thread::sleep_until(due);
    send(clock_type::now().time_since_epoch().count());
    ++st.sent;
  }
  rd_kafka_flush(producer, 30000);
  st.producer_done = true;
  reader.join();
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(producer);
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  if (st.warm_partitions != every_partition) st.error = "no warm-up record of every partition came back within 30 s";
  const auto& h = st.latency_us;
  std::printf(
      "{\"sent\": %" PRIu64 ", \"received\": %" PRIu64 ", \"latency_ms\": {\"p50\": %.3f, \"p99\": %.3f, "
      "\"p999\": %.3f, \"max\": %.3f}, \"ack_latency_ms\": {\"p50\": %.3f, \"p99\": %.3f}, \"error\": \"%s\"}\n",
      st.sent.load(), st.received.load(), static_cast<double>(h.percentile(50)) / 1e3,
      static_cast<double>(h.percentile(99)) / 1e3, static_cast<double>(h.percentile(99.9)) / 1e3,
      static_cast<double>(h.max()) / 1e3, static_cast<double>(acked.latency_us.percentile(50)) / 1e3,
      static_cast<double>(acked.latency_us.percentile(99)) / 1e3, st.error.c_str());
  return st.error.empty() ? 0 : 1;
}

// --- txn: one transactional producer, transaction after transaction -------

struct txn_stats {
  uint64_t delivered = 0;
  uint64_t failed = 0;
  std::string first_error;
};

void txn_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* st = static_cast<txn_stats*>(opaque);
  if (!m->err) {
    ++st->delivered;
  } else if (st->failed++ == 0) {
    st->first_error = rd_kafka_err2str(m->err);
  }
}

// The error's text, and the error freed; empty for none.
std::string take_error(rd_kafka_error_t* e) {
  if (!e) return {};
  std::string text = rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  return text;
}

// Each transaction: begin, its records (partitions chosen by the client),
// commit; the commit call is timed (it flushes what is still queued, then
// waits for EndTxn: the markers are written before the next begin can add
// a partition again). Prints throughput over the whole run and the commit
// and whole-transaction latencies.
int cmd_txn(const flags& f) {
  const auto transactions = static_cast<uint64_t>(f.num("transactions", 500));
  const auto per_txn = static_cast<uint64_t>(f.num("records-per-txn", 100));
  const auto record_size = static_cast<size_t>(f.num("record-size", 1024));
  const std::string payload = make_payload(record_size);
  txn_stats st;
  rd_kafka_conf_t* conf = make_conf(f.str("bootstrap"), {{"transactional.id", f.str("transactional-id", "hw-loadgen-txn")},
                                                         {"linger.ms", "5"},
                                                         {"batch.size", "1000000"}});
  rd_kafka_conf_set_dr_msg_cb(conf, txn_delivery);
  rd_kafka_conf_set_opaque(conf, &st);
  rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, conf);
  std::string error = take_error(rd_kafka_init_transactions(rk, 60000));
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, f.str("topic").c_str(), nullptr);
  histogram commit_us, txn_us;
  const auto t0 = clock_type::now();
  uint64_t committed = 0;
  for (uint64_t t = 0; t < transactions && error.empty(); ++t) {
    const auto begun = clock_type::now();
    error = take_error(rd_kafka_begin_transaction(rk));
    for (uint64_t i = 0; i < per_txn && error.empty();) {
      const rd_kafka_resp_err_t err =
          rd_kafka_producev(rk, RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_PARTITION(RD_KAFKA_PARTITION_UA),
                            RD_KAFKA_V_VALUE(const_cast<char*>(payload.data()), payload.size()), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++i;
      } else if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 1);
      } else {
        error = rd_kafka_err2str(err);
      }
    }
    if (!error.empty()) break;
    const auto committing = clock_type::now();
    error = take_error(rd_kafka_commit_transaction(rk, 60000));
    const auto done = clock_type::now();
    if (!error.empty()) break;
    ++committed;
    commit_us.record(std::chrono::duration_cast<std::chrono::microseconds>(done - committing).count());
    txn_us.record(std::chrono::duration_cast<std::chrono::microseconds>(done - begun).count());
  }
  const double secs = seconds_since(t0);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  if (error.empty() && st.failed) error = st.first_error;
  const uint64_t records = committed * per_txn;
  auto ms = [](const histogram& h, double p) { return static_cast<double>(h.percentile(p)) / 1e3; };
  std::printf("{\"transactions\": %" PRIu64 ", \"records\": %" PRIu64 ", \"bytes\": %" PRIu64
              ", \"seconds\": %.3f, \"records_per_s\": %.1f, \"mb_per_s\": %.3f, \"transactions_per_s\": %.1f, "
              "\"commit_ms\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, \"transaction_ms\": {\"p50\": %.3f, "
              "\"p99\": %.3f}, \"error\": \"%s\"}\n",
              committed, records, records * record_size, secs, static_cast<double>(records) / secs,
              static_cast<double>(records * record_size) / secs / 1e6, static_cast<double>(committed) / secs,
              ms(commit_us, 50), ms(commit_us, 99), static_cast<double>(commit_us.max()) / 1e3, ms(txn_us, 50),
              ms(txn_us, 99), error.c_str());
  return error.empty() ? 0 : 1;
}


// --- scram: new SCRAM-authenticated connections, as fast as they go -------

// What every login of `scram` needs; read-only once the threads start.
struct scram_plan {
  std::vector<std::string> addresses;  // the SASL listeners; each thread goes round them
  tls_settings tls;                    // SASL_SSL
  hw::protocol::scram_mechanism mechanism = hw::protocol::scram_mechanism::sha512;
  std::string user, password;
};

// The keys a salted password gives (RFC 5802): ClientKey, its hash
// StoredKey, and ServerKey.
struct scram_keys {
  hw::protocol::scram::bytes client_key, stored_key, server_key;
};

// Salted passwords by salt and iteration count, shared by the threads. RFC
// 5802 (5.1) lets a client cache them: a server gives a user the same salt
// at every login, so PBKDF2's rounds (about 3 ms of this client's CPU at
// 4096 iterations, where the broker spends a few HMACs per login) are paid
// once per run and the broker, not the client, bounds the rate.
class salted_password_cache {
 public:
  const scram_keys& keys(const scram_plan& plan, std::string_view salt_text, int32_t iterations) {
    namespace scram = hw::protocol::scram;
    const std::string key = std::string(salt_text) + "," + std::to_string(iterations);
    std::lock_guard lock(mu_);
    auto it = keys_.find(key);
    if (it != keys_.end()) return it->second;  // map nodes stay put: the reference outlives the lock
    const auto salt = scram::unbase64(salt_text);
    if (!salt || salt->empty()) throw std::runtime_error("SCRAM: a server-first message with a malformed salt");
    const scram::bytes salted = scram::salted_password(plan.mechanism, plan.password, *salt, iterations);
    scram_keys k;
    k.client_key = scram::hmac(plan.mechanism, salted, "Client Key");
    k.stored_key = scram::hash(plan.mechanism, k.client_key);
    k.server_key = scram::hmac(plan.mechanism, salted, "Server Key");
    return keys_.emplace(key, std::move(k)).first->second;
  }

 private:
  std::mutex mu_;
  std::map<std::string, scram_keys> keys_;
};

// The client side of one exchange with the keys from the cache: the
// messages protocol::scram_client writes, the proof and the expected
// server signature two HMACs over the AuthMessage.
class cached_scram_exchange {
 public:
  cached_scram_exchange(const scram_plan& plan, salted_password_cache& cache)
      : plan_(plan), cache_(cache), nonce_(hw::protocol::scram::random_nonce()) {}

  std::string client_first() {
    first_bare_ = "n=" + hw::protocol::scram::escape_user(plan_.user) + ",r=" + nonce_;
    return "n,," + first_bare_;
  }

  std::string client_final(std::string_view server_first) {
    namespace scram = hw::protocol::scram;
    // "r=<nonce>,s=<salt>,i=<iterations>[,...]"
    std::string_view fields[3];
    size_t start = 0;
    for (auto& field : fields) {
      const size_t comma = server_first.find(',', start);
      field = server_first.substr(start, comma == std::string_view::npos ? comma : comma - start);
      start = comma == std::string_view::npos ? server_first.size() : comma + 1;
    }
    if (fields[0].substr(0, 2) != "r=" || fields[1].substr(0, 2) != "s=" || fields[2].substr(0, 2) != "i=")
      throw std::runtime_error("SCRAM: a malformed server-first message");
    const std::string_view nonce = fields[0].substr(2);
    if (nonce.size() <= nonce_.size() || nonce.substr(0, nonce_.size()) != nonce_)
      throw std::runtime_error("SCRAM: the server nonce does not extend the client nonce");
    const int32_t iterations = static_cast<int32_t>(std::stol(std::string(fields[2].substr(2))));
    if (iterations < hw::protocol::scram_min_iterations) throw std::runtime_error("SCRAM: too few iterations");
    const scram_keys& keys = cache_.keys(plan_, fields[1].substr(2), iterations);
    const std::string without_proof = "c=biws,r=" + std::string(nonce);
    const std::string auth_message = first_bare_ + "," + std::string(server_first) + "," + without_proof;
    const scram::bytes signature = scram::hmac(plan_.mechanism, keys.stored_key, auth_message);
    scram::bytes proof(keys.client_key.size());
    for (size_t i = 0; i < proof.size(); ++i) proof[i] = keys.client_key[i] ^ signature[i];
    expected_server_signature_ = scram::hmac(plan_.mechanism, keys.server_key, auth_message);
    return without_proof + ",p=" + scram::base64(proof);
  }

  void verify_server_final(std::string_view server_final) {
    const std::string_view text = server_final.substr(0, server_final.find(','));
    const auto signature = text.substr(0, 2) == "v=" ? hw::protocol::scram::unbase64(text.substr(2)) : std::nullopt;
    if (!signature || !hw::protocol::scram::equal_constant_time(*signature, expected_server_signature_))
      throw std::runtime_error("SCRAM: the server signature does not verify (" + std::string(server_final) + ")");
  }

 private:
  const scram_plan& plan_;
  salted_password_cache& cache_;
  std::string nonce_;
  std::string first_bare_;
  hw::protocol::scram::bytes expected_server_signature_;
};

// The project's SCRAM client as it is: the salted password derived at
// every login, as a client without a cache does (--cache-salted-password
// false; the client's PBKDF2 then bounds the rate).
class fresh_scram_exchange {
 public:
  explicit fresh_scram_exchange(const scram_plan& plan) : client_(plan.mechanism, plan.user, plan.password) {}
  std::string client_first() { return client_.client_first(); }
  std::string client_final(std::string_view server_first) {
    std::string error;
    auto final_message = client_.client_final(server_first, &error);
    if (!final_message) throw std::runtime_error("SCRAM: " + error);
    return *final_message;
  }
  void verify_server_final(std::string_view server_final) {
    std::string error;
    if (!client_.verify_server_final(server_final, &error)) throw std::runtime_error("SCRAM: " + error);
  }

 private:
  hw::protocol::scram_client client_;
};

// One login, as Kafka's client makes it: connect (and the TLS handshake on
// SASL_SSL), ApiVersions v3, SaslHandshake v1 naming the mechanism,
// SaslAuthenticate v2 with the client-first then the client-final, the
// server-final checked; then close. Throws what went wrong.
template <typename Exchange>
void scram_login(const std::string& address, const scram_plan& plan, Exchange exchange) {
  namespace msg = hw::protocol::msg;
  wire_connection c(address, plan.tls, "hw-loadgen-scram");
  msg::api_versions_request versions;
  versions.client_software_name = "hw-loadgen";
  versions.client_software_version = "1.0";
  if (const auto a = c.round_trip<msg::api_versions_response>(versions, 3); a.error_code != 0)
    throw std::runtime_error("ApiVersions error " + std::to_string(a.error_code));
  msg::sasl_handshake_request handshake;
  handshake.mechanism = hw::protocol::scram_mechanism_name(plan.mechanism);
  if (const auto a = c.round_trip<msg::sasl_handshake_response>(handshake, 1); a.error_code != 0)
    throw std::runtime_error("SaslHandshake error " + std::to_string(a.error_code));
  auto authenticate = [&](const std::string& token) {
    msg::sasl_authenticate_request request;
    request.auth_bytes.assign(token.begin(), token.end());
    const auto a = c.round_trip<msg::sasl_authenticate_response>(request, 2);
    if (a.error_code != 0)
      throw std::runtime_error("SaslAuthenticate error " + std::to_string(a.error_code) + ": " +
                               a.error_message.value_or(""));
    return std::string(a.auth_bytes.begin(), a.auth_bytes.end());
  };
  const std::string server_first = authenticate(exchange.client_first());
  exchange.verify_server_final(authenticate(exchange.client_final(server_first)));
}

// One thread's logins; touched only by it until joined.
struct login_stats {
  histogram latency_us;
  uint64_t logins = 0;
  uint64_t failures = 0;
  std::string first_error;
};

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// JSON string contents without the characters that would end or escape it.
std::string json_safe(std::string s) {
  for (auto& c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '\'';
  return s;
}

// --connections threads, each logging in again and again (one connection
// open at a time, a new one per login) over the listeners of --bootstrap
// in turn, for --seconds. Before that, every listener must take one login
// within --wait-ms: a user's credential reaches each node from the
// metadata log a moment after kafka-configs returns.
int cmd_scram(const flags& f) {
  scram_plan plan;
  const std::string bootstrap = f.str("bootstrap");
  for (size_t start = 0; start <= bootstrap.size();) {
    const size_t comma = std::min(bootstrap.find(',', start), bootstrap.size());
    if (comma > start) plan.addresses.push_back(bootstrap.substr(start, comma - start));
    start = comma + 1;
  }
  const std::string protocol = upper(client_setting("security.protocol", "plaintext"));
  if (protocol != "SASL_PLAINTEXT" && protocol != "SASL_SSL")
    throw std::runtime_error("scram wants -X security.protocol=sasl_plaintext or sasl_ssl");
  const auto mechanism = hw::protocol::parse_scram_mechanism(client_setting("sasl.mechanism", "SCRAM-SHA-512"));
  if (!mechanism) throw std::runtime_error("scram wants -X sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512");
  plan.mechanism = *mechanism;
  plan.user = client_setting("sasl.username");
  plan.password = client_setting("sasl.password");
  if (plan.user.empty() || plan.password.empty()) throw std::runtime_error("scram wants -X sasl.username and sasl.password");
  plan.tls = tls_settings::from_client_settings();
  const bool cached = f.str("cache-salted-password", "true") == "true";
  const int connections = static_cast<int>(f.num("connections", 16));
  salted_password_cache cache;
  auto login = [&](const std::string& address) {
    if (cached)
      scram_login(address, plan, cached_scram_exchange(plan, cache));
    else
      scram_login(address, plan, fresh_scram_exchange(plan));
  };

  const auto wait_started = clock_type::now();
  const auto wait_deadline = wait_started + std::chrono::milliseconds(f.num("wait-ms", 60000));
  for (const auto& address : plan.addresses) {
    for (;;) {
      try {
        login(address);
        break;
      } catch (const std::exception& e) {
        if (clock_type::now() > wait_deadline)
          throw std::runtime_error("no login on " + address + " within --wait-ms: " + e.what());
        std::this_thread::sleep_for(50ms);
      }
    }
  }
  const double wait_s = seconds_since(wait_started);

  std::vector<login_stats> stats(connections);
  std::atomic<bool> stop{false};
  const double cpu0 = process_cpu_seconds();
  const auto t0 = clock_type::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < connections; ++i) {
    threads.emplace_back([&, i] {
      login_stats& st = stats[i];
      for (size_t n = static_cast<size_t>(i); !stop.load(std::memory_order_relaxed); ++n) {
        const auto started = clock_type::now();
        try {
          login(plan.addresses[n % plan.addresses.size()]);
          ++st.logins;
          st.latency_us.record(
              std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - started).count());
        } catch (const std::exception& e) {
          if (st.failures++ == 0) st.first_error = e.what();
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(f.num("seconds", 10) * 1000));
  stop = true;
  for (auto& t : threads) t.join();
  const double secs = seconds_since(t0);
  const double cpu = process_cpu_seconds() - cpu0;
  histogram all;
  uint64_t logins = 0, failures = 0;
  std::string first_error;
  for (const auto& st : stats) {
    all.merge(st.latency_us);
    logins += st.logins;
    failures += st.failures;
    if (first_error.empty()) first_error = st.first_error;
  }
  std::printf("{\"logins\": %" PRIu64 ", \"failures\": %" PRIu64 ", \"connections\": %d, \"listeners\": %zu, "
              "\"seconds\": %.3f, \"logins_per_s\": %.1f, \"latency_ms\": {\"p50\": %.3f, \"p99\": %.3f, "
              "\"max\": %.3f}, \"client_cpu_s\": %.3f, \"wait_s\": %.3f, \"salted_password_cached\": %s, "
              "\"first_error\": \"%s\"}\n",
              logins, failures, connections, plan.addresses.size(), secs, static_cast<double>(logins) / secs,
              static_cast<double>(all.percentile(50)) / 1e3, static_cast<double>(all.percentile(99)) / 1e3,
              static_cast<double>(all.max()) / 1e3, cpu, wait_s, cached ? "true" : "false",
              json_safe(first_error).c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: hw_loadgen probe|create-topic|produce|consume|fetch|e2e|txn|scram --bootstrap HOST:PORT "
                 "[-X key=value ...] ...\n");
    return 2;
  }
  // A write to a connection the broker closed fails with EPIPE rather than
  // killing the process (OpenSSL writes with write(), not MSG_NOSIGNAL).
  std::signal(SIGPIPE, SIG_IGN);
  try {
    const std::string cmd = argv[1];
    const flags f(argc, argv, 2);
    if (cmd == "probe") return cmd_probe(f);
    if (cmd == "create-topic") return cmd_create_topic(f);
    if (cmd == "produce") return cmd_produce(f);
    if (cmd == "consume") return cmd_consume(f);
    if (cmd == "fetch") return cmd_fetch(f);
    if (cmd == "e2e") return cmd_e2e(f);
    if (cmd == "txn") return cmd_txn(f);
    if (cmd == "scram") return cmd_scram(f);
    std::fprintf(stderr, "unknown command %s\n", cmd.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hw_loadgen: %s\n", e.what());
    return 1;
  }
}
