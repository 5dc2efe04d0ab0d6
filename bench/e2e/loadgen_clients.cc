// hw_loadgen's commands on librdkafka clients: probe, create-topic,
// produce, consume, e2e and txn (loadgen.cc lists their flags).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

#include "bench/e2e/loadgen.h"

namespace hw::loadgen {

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

// Every partition of the topic, from its first offset, without a group.
rd_kafka_topic_partition_list_t* all_partitions(rd_kafka_t* rk, const std::string& topic) {
  metadata_ptr md = topic_metadata(rk, topic);
  auto* list = rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
  for (int i = 0; i < md->topics[0].partition_cnt; ++i)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), md->topics[0].partitions[i].id)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  return list;
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

}  // namespace hw::loadgen
