#include "workload.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tests/integration/broker_process.h"

namespace hw::chaos {

namespace {

void on_log(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  static const bool shown = [] {
    const char* v = std::getenv("HW_CHAOS_RDKAFKA_LOG");
    return v && std::string(v) == "1";
  }();
  if (shown) std::fprintf(stderr, "rdkafka %d %s: %s\n", level, fac, buf);
}

void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);

// Common settings; the opaque starts with a notes_ref, where on_error
// counts the client's errors. Settings the client refuses go to `problem`.
rd_kafka_conf_t* make_conf(const std::string& bootstrap, const std::map<std::string, std::string>& settings,
                           void* opaque, std::string& problem) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  std::map<std::string, std::string> all{{"bootstrap.servers", bootstrap},
                                         {"topic.metadata.refresh.interval.ms", "2000"},
                                         {"log.connection.close", "false"}};
  if (const char* debug = std::getenv("HW_CHAOS_RDKAFKA_DEBUG")) all["debug"] = debug;
  for (const auto& [k, v] : settings) all[k] = v;
  for (const auto& [k, v] : all)
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      problem += k + ": " + err + "; ";
  rd_kafka_conf_set_log_cb(conf, on_log);
  rd_kafka_conf_set_error_cb(conf, on_error);
  rd_kafka_conf_set_opaque(conf, opaque);
  return conf;
}

// Each handle's opaque starts with a pointer to the notes, so that the
// error callback finds them whatever the handle is.
struct notes_ref {
  client_notes* notes;
  const char* who;
};

void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* ref = static_cast<notes_ref*>(opaque);
  if (!ref) return;
  std::string what = std::string(ref->who) + " error " + rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err));
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    char fatal[512];
    rd_kafka_fatal_error(rk, fatal, sizeof fatal);
    what += " (" + std::string(fatal) + ")";
  }
  (void)reason;
  ref->notes->add(what);
}

std::string payload_of(const rd_kafka_message_t* m) {
  return m->payload ? std::string(static_cast<const char*>(m->payload), m->len) : std::string();
}

}  // namespace

void client_notes::add(const std::string& what) {
  std::lock_guard lock(mutex_);
  ++counts_[what];
}

std::string client_notes::summary() const {
  std::lock_guard lock(mutex_);
  if (counts_.empty()) return "no client errors\n";
  std::string out;
  for (const auto& [what, n] : counts_) out += "  " + std::to_string(n) + " × " + what + "\n";
  return out;
}

// ---- producer ----

namespace {
struct producer_opaque {
  notes_ref ref;
  producer* self;
};
}  // namespace

producer::producer(int id, const workload_settings& settings, history& h, client_notes& notes)
    : id_(id), settings_(settings), history_(h), notes_(notes) {
  std::string problem;
  auto* opaque = new producer_opaque{{&notes, "producer"}, this};
  rd_kafka_conf_t* conf = make_conf(settings.bootstrap,
                                    {{"enable.idempotence", "true"},
                                     {"acks", "all"},
                                     {"linger.ms", "5"},
                                     {"retry.backoff.ms", "100"},
                                     {"message.timeout.ms", std::to_string(settings.message_timeout.count())},
                                     {"client.id", "chaos-producer-" + std::to_string(id)}},
                                    opaque, problem);
  rd_kafka_conf_set_dr_msg_cb(conf, &producer::on_delivery);
  char err[512];
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk_) {
    notes.add("producer " + std::to_string(id) + " not created: " + err + " " + problem);
    delete opaque;
    return;
  }
  thread_ = std::thread([this] { run(); });
}

producer::~producer() {
  finish(std::chrono::milliseconds(0));
  if (!rk_) return;
  auto* opaque = static_cast<producer_opaque*>(rd_kafka_opaque(rk_));
  rd_kafka_destroy(rk_);
  delete opaque;
}

void producer::run() {
  auto next_send = std::chrono::steady_clock::now();
  for (int64_t seq = 0; !stopping_; ++seq) {
    const std::string value = make_value(id_, seq);
    const auto partition = static_cast<int32_t>((seq + id_) % settings_.partitions);
    history_.send(value, partition);
    rd_kafka_resp_err_t e;
    for (;;) {
      e = rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(settings_.topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                            RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL || stopping_) break;
      rd_kafka_poll(rk_, 10);
    }
    // Refused before it was queued: it can never be written.
    if (e) history_.fail(value, std::string("produce: ") + rd_kafka_err2name(e));
    // Serves delivery reports until the next send is due (a poll returns
    // early when it served one).
    next_send += settings_.send_interval;
    for (auto now = std::chrono::steady_clock::now(); now < next_send && !stopping_;
         now = std::chrono::steady_clock::now())
      rd_kafka_poll(rk_, static_cast<int>(
                             std::chrono::duration_cast<std::chrono::milliseconds>(next_send - now).count() + 1));
  }
}

void producer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* self = static_cast<producer_opaque*>(opaque)->self;
  const std::string value = payload_of(m);
  if (!m->err) {
    self->history_.ack(value, m->partition, m->offset);
    ++self->acked_;
    return;
  }
  const std::string error = rd_kafka_err2name(m->err);
  self->notes_.add("delivery failed: " + error);
  // The client knows whether the broker may have written it.
  if (rd_kafka_message_status(m) == RD_KAFKA_MSG_STATUS_NOT_PERSISTED) self->history_.fail(value, error);
  else self->history_.indeterminate(value, error);
}

int producer::finish(std::chrono::milliseconds timeout) {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  if (!rk_) return 0;
  rd_kafka_flush(rk_, static_cast<int>(timeout.count()));
  return rd_kafka_outq_len(rk_);
}

// ---- consumer ----

namespace {
struct consumer_opaque {
  notes_ref ref;
  consumer* self;
};
}  // namespace

consumer::consumer(int id, const workload_settings& settings, history& h, client_notes& notes)
    : id_(id), history_(h), notes_(notes) {
  std::string problem;
  auto* opaque = new consumer_opaque{{&notes, "consumer"}, this};
  rd_kafka_conf_t* conf = make_conf(settings.bootstrap,
                                    {{"group.id", settings.group},
                                     {"client.id", "chaos-consumer-" + std::to_string(id)},
                                     {"auto.offset.reset", "earliest"},
                                     {"enable.auto.commit", "true"},
                                     {"auto.commit.interval.ms", "1000"},
                                     {"session.timeout.ms", "10000"},
                                     {"heartbeat.interval.ms", "1000"},
                                     {"isolation.level", "read_uncommitted"}},
                                    opaque, problem);
  rd_kafka_conf_set_rebalance_cb(conf, &consumer::on_rebalance);
  char err[512];
  rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk_) {
    notes.add("consumer " + std::to_string(id) + " not created: " + err + " " + problem);
    delete opaque;
    return;
  }
  rd_kafka_poll_set_consumer(rk_);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, settings.topic.c_str(), RD_KAFKA_PARTITION_UA);
  if (auto e = rd_kafka_subscribe(rk_, topics)) notes.add(std::string("subscribe: ") + rd_kafka_err2name(e));
  rd_kafka_topic_partition_list_destroy(topics);
  thread_ = std::thread([this] { run(); });
}

consumer::~consumer() {
  finish();
  if (!rk_) return;
  auto* opaque = static_cast<consumer_opaque*>(rd_kafka_opaque(rk_));
  rd_kafka_destroy(rk_);
  delete opaque;
}

void consumer::run() {
  while (!stopping_) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, 100);
    if (!m) continue;
    if (!m->err) {
      history_.read(id_, generation_, m->partition, m->offset, payload_of(m));
      ++reads_;
    } else {
      notes_.add(std::string("consumer poll: ") + rd_kafka_err2name(m->err));
    }
    rd_kafka_message_destroy(m);
  }
  // On this thread: closing revokes the assignment through the callback.
  rd_kafka_consumer_close(rk_);
}

void consumer::on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                            void* opaque) {
  auto* self = static_cast<consumer_opaque*>(opaque)->self;
  // Any change of assignment starts a generation: the position of a
  // partition assigned again comes from the committed offset, which may be
  // behind what was read.
  ++self->generation_;
  std::vector<int32_t> assigned;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    for (int i = 0; i < parts->cnt; ++i) assigned.push_back(parts->elems[i].partition);
    rd_kafka_assign(rk, parts);
    self->assigned_ = true;
  } else {
    if (err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS)
      self->notes_.add(std::string("rebalance error: ") + rd_kafka_err2name(err));
    rd_kafka_assign(rk, nullptr);
  }
  self->history_.rebalance(self->id_, self->generation_, std::move(assigned));
}

void consumer::finish() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

// ---- the final read ----

final_read_result read_everything(const workload_settings& settings, history& h, client_notes& notes,
                                  std::chrono::milliseconds timeout) {
  final_read_result out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string problem;
  notes_ref ref{&notes, "final reader"};
  rd_kafka_conf_t* conf = make_conf(settings.bootstrap,
                                    {{"group.id", settings.group + "-final"},  // never joined: partitions are assigned
                                     {"client.id", "chaos-final-reader"},
                                     {"enable.auto.commit", "false"},
                                     {"enable.auto.offset.store", "false"},
                                     {"auto.offset.reset", "earliest"},
                                     {"isolation.level", "read_uncommitted"}},
                                    &ref, problem);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) {
    out.detail = std::string("final reader not created: ") + err + " " + problem;
    return out;
  }
  rd_kafka_poll_set_consumer(rk);
  // Where each partition ends now that the producers are done.
  std::vector<int64_t> low(settings.partitions, -1), high(settings.partitions, -1), next(settings.partitions, -1);
  for (int p = 0; p < settings.partitions; ++p) {
    testing::wait_until(
        [&] {
          return rd_kafka_query_watermark_offsets(rk, settings.topic.c_str(), p, &low[p], &high[p], 5000) ==
                 RD_KAFKA_RESP_ERR_NO_ERROR;
        },
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
    next[p] = low[p];
  }
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(settings.partitions);
  for (int p = 0; p < settings.partitions; ++p)
    rd_kafka_topic_partition_list_add(parts, settings.topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  auto done = [&] {
    for (int p = 0; p < settings.partitions; ++p)
      if (high[p] < 0 || next[p] < high[p]) return false;
    return true;
  };
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 500);
    if (!m) continue;
    if (!m->err && m->partition >= 0 && m->partition < settings.partitions) {
      h.final_read(m->partition, m->offset, payload_of(m));
      next[m->partition] = m->offset + 1;
      ++out.records;
    } else if (m->err) {
      notes.add(std::string("final read: ") + rd_kafka_err2name(m->err));
    }
    rd_kafka_message_destroy(m);
  }
  out.complete = done();
  for (int p = 0; p < settings.partitions; ++p)
    out.detail += "partition " + std::to_string(p) + ": watermarks " + std::to_string(low[p]) + ".." +
                  std::to_string(high[p]) + ", read up to " + std::to_string(next[p]) + "\n";
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return out;
}

}  // namespace hw::chaos
