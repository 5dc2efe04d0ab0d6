#include "workload.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <vector>

namespace hw::chaos {

namespace {

// Each handle's opaque starts with a pointer to the notes, so that the
// callbacks find them whatever the handle is.
struct notes_ref {
  client_notes* notes;
  const char* who;
  consumer* reader = nullptr;  // a consumer's handle: its log lines may be resets
  producer* writer = nullptr;  // an idempotent producer's handle: its log lines may be epoch bumps
};

void on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  static const bool shown = [] {
    const char* v = std::getenv("HW_CHAOS_RDKAFKA_LOG");
    return v && std::string(v) == "1";
  }();
  if (shown) std::fprintf(stderr, "rdkafka %d %s: %s\n", level, fac, buf);
  auto* ref = static_cast<notes_ref*>(rd_kafka_opaque(rk));
  if (!ref) return;
  ref->notes->log(wall_clock(std::chrono::system_clock::now()) + " " + rd_kafka_name(rk) + " " +
                  std::to_string(level) + " " + fac + " " + buf);
  if (ref->reader && std::string_view(fac) == "OFFSET") ref->reader->on_client_log(buf);
  if (ref->writer && std::string_view(fac) == "DRAIN") ref->writer->on_client_log(buf);
}

void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);

// Every client's librdkafka settings: common ones, how to reach the
// cluster, then the client's own (and HW_CHAOS_RDKAFKA_DEBUG's contexts).
std::map<std::string, std::string> client_settings(const workload_settings& common,
                                                   const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> all{{"bootstrap.servers", common.bootstrap},
                                         {"topic.metadata.refresh.interval.ms", "2000"},
                                         {"log.connection.close", "false"}};
  for (const auto& [k, v] : common.connection) all[k] = v;
  for (const auto& [k, v] : settings) all[k] = v;
  if (const char* debug = std::getenv("HW_CHAOS_RDKAFKA_DEBUG")) all["debug"] = debug;
  return all;
}

// client_settings in a librdkafka configuration; the opaque starts with a
// notes_ref, where on_error counts the client's errors. Settings the
// client refuses go to `problem`.
rd_kafka_conf_t* make_conf(const workload_settings& common, const std::map<std::string, std::string>& settings,
                           void* opaque, std::string& problem) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : client_settings(common, settings))
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      problem += k + ": " + err + "; ";
  rd_kafka_conf_set_log_cb(conf, on_log);
  rd_kafka_conf_set_error_cb(conf, on_error);
  rd_kafka_conf_set_opaque(conf, opaque);
  return conf;
}

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

// A delivery report into the history: acknowledged, failed (the client
// knows the broker did not write it) or indeterminate. True when
// acknowledged.
bool record_delivery(history& h, client_notes& notes, const rd_kafka_message_t* m, const char* who) {
  const std::string value = payload_of(m);
  if (!m->err) {
    h.ack(value, m->partition, m->offset);
    return true;
  }
  const std::string error = rd_kafka_err2name(m->err);
  notes.add(std::string(who) + " delivery failed: " + error);
  if (rd_kafka_message_status(m) == RD_KAFKA_MSG_STATUS_NOT_PERSISTED) h.fail(value, error);
  else h.indeterminate(value, error);
  return false;
}

}  // namespace

void client_notes::add(const std::string& what) {
  std::lock_guard lock(mutex_);
  ++counts_[what];
}

void client_notes::log(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (log_.size() < k_max_log_lines) log_.push_back(line);
  else ++log_dropped_;
}

void client_notes::write_log(std::ostream& out) const {
  std::lock_guard lock(mutex_);
  for (const auto& l : log_) out << l << "\n";
  if (log_dropped_ > 0) out << "... " << log_dropped_ << " more lines dropped\n";
}

std::string client_notes::summary() const {
  std::lock_guard lock(mutex_);
  if (counts_.empty()) return "no client errors\n";
  std::string out;
  for (const auto& [what, n] : counts_) out += "  " + std::to_string(n) + " × " + what + "\n";
  return out;
}

// ---- producer ----

// notes_ref first: the log and error callbacks read it from any handle.
struct producer::opaque {
  notes_ref ref;
  producer* self;
};

producer::producer(int id, const workload_settings& settings, history& h, client_notes& notes)
    : id_(id),
      settings_(settings),
      history_(h),
      notes_(notes),
      opaque_(std::make_unique<opaque>(opaque{{&notes, "producer", nullptr, this}, this})) {
  rk_ = create();
  if (rk_) thread_ = std::thread([this] { run(); });
}

rd_kafka_t* producer::create() {
  std::string problem;
  rd_kafka_conf_t* conf = make_conf(settings_,
                                    {{"enable.idempotence", "true"},
                                     {"acks", "all"},
                                     // One request in flight: librdkafka takes NOT_LEADER_OR_FOLLOWER for "not
                                     // written" (its MsgNotPersisted), but a leader that loses its leadership
                                     // while an acks=all write waits answers just that, in Kafka as here, for
                                     // records the next leader may already have. With requests behind it,
                                     // the next leader then refuses their sequence gap and librdkafka bumps
                                     // its epoch and sends those records again as new writes: duplicates
                                     // that are the client's (confluentinc/librdkafka#4953). Alone in
                                     // flight, the write is retried with its own sequence, and the next
                                     // leader must recognise it.
                                     {"max.in.flight.requests.per.connection", "1"},
                                     {"linger.ms", "5"},
                                     {"retry.backoff.ms", "100"},
                                     {"message.timeout.ms", std::to_string(settings_.message_timeout.count())},
                                     // The idempotence state (producer id, epoch bumps, drains) into the
                                     // notes: what explains a duplicate written under two epochs.
                                     {"debug", "eos"},
                                     {"client.id", "chaos-producer-" + std::to_string(id_)}},
                                    opaque_.get(), problem);
  rd_kafka_conf_set_dr_msg_cb(conf, &producer::on_delivery);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) notes_.add("producer " + std::to_string(id_) + " not created: " + err + " " + problem);
  return rk;
}

producer::~producer() {
  finish(std::chrono::milliseconds(0));
  if (rk_) rd_kafka_destroy(rk_);
}

// librdkafka 2.0.2 trusts any broker's metadata, so after a leader change
// it can go back to the deposed leader, which (as Kafka's would) refuses
// the sequence the new leader has moved on to; an idempotent producer
// takes an OUT_OF_ORDER_SEQUENCE_NUMBER for its first request in flight as
// fatal and fails every message after. An application replaces the
// client: so does the workload, with a new producer id. The old client's
// messages get their delivery reports first (failed or indeterminate).
void producer::replace_after_fatal(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    restarts_.push_back(wall_clock(std::chrono::system_clock::now()) + ": " + reason);
  }
  rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_flush(rk_, 10000);
  rd_kafka_destroy(rk_);
  rk_ = create();
}

std::vector<std::string> producer::restarts() const {
  std::lock_guard lock(mutex_);
  return restarts_;
}

void producer::run() {
  auto next_send = std::chrono::steady_clock::now();
  for (int64_t seq = 0; !stopping_ && rk_; ++seq) {
    char fatal[512];
    if (rd_kafka_fatal_error(rk_, fatal, sizeof fatal) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      replace_after_fatal(fatal);
      if (!rk_) return;
    }
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
  auto* self = static_cast<producer::opaque*>(opaque)->self;
  if (record_delivery(self->history_, self->notes_, m, "producer")) ++self->acked_;
}

int producer::finish(std::chrono::milliseconds timeout) {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  if (!rk_) return 0;
  rd_kafka_flush(rk_, static_cast<int>(timeout.count()));
  return rd_kafka_outq_len(rk_);
}

// ---- transactional producer ----

struct txn_producer::opaque {
  notes_ref ref;
  txn_producer* self;
};

namespace {
// The error's name and text, and the error freed.
std::string take_error(rd_kafka_error_t* e) {
  std::string text = std::string(rd_kafka_error_name(e)) + " (" + rd_kafka_error_string(e) + ")";
  rd_kafka_error_destroy(e);
  return text;
}
}  // namespace

txn_producer::txn_producer(int id, const workload_settings& settings, history& h, client_notes& notes)
    : id_(id),
      settings_(settings),
      history_(h),
      notes_(notes),
      opaque_(std::make_unique<opaque>(opaque{{&notes, "txn-producer"}, this})) {
  rk_ = create();
  ok_ = rk_ != nullptr;
  if (rk_) thread_ = std::thread([this] { run(); });
}

txn_producer::~txn_producer() {
  finish();
  if (rk_) rd_kafka_destroy(rk_);
}

rd_kafka_t* txn_producer::create() {
  std::string problem;
  const std::string timeout = std::to_string(settings_.transaction_timeout.count());
  rd_kafka_conf_t* conf = make_conf(settings_,
                                    {{"transactional.id", "chaos-txn-" + std::to_string(id_)},
                                     {"acks", "all"},
                                     // As the idempotent producers, for the same reason.
                                     {"max.in.flight.requests.per.connection", "1"},
                                     {"linger.ms", "5"},
                                     {"retry.backoff.ms", "100"},
                                     {"transaction.timeout.ms", timeout},
                                     {"message.timeout.ms", timeout},
                                     {"debug", "eos"},
                                     {"client.id", "chaos-txn-producer-" + std::to_string(id_)}},
                                    opaque_.get(), problem);
  rd_kafka_conf_set_dr_msg_cb(conf, &txn_producer::on_delivery);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) notes_.add("txn producer " + std::to_string(id_) + " not created: " + err + " " + problem);
  return rk;
}

// Gets the producer id, retrying what the client calls retriable; a fatal
// error replaces the client.
bool txn_producer::init() {
  while (!stopping_ && rk_) {
    rd_kafka_error_t* e = rd_kafka_init_transactions(rk_, 30000);
    if (!e) return true;
    const bool fatal = rd_kafka_error_is_fatal(e);
    const std::string what = take_error(e);
    notes_.add("txn producer init: " + what.substr(0, what.find(' ')));
    if (fatal) {
      replace("init: " + what);
    } else {
      rd_kafka_poll(rk_, 500);
    }
  }
  return false;
}

void txn_producer::replace(const std::string& why) {
  notes_.log(wall_clock(std::chrono::system_clock::now()) + " txn producer " + std::to_string(id_) +
             " replaced: " + why);
  ++replaced_;
  // Undelivered messages get their reports (failed or indeterminate) first.
  rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_flush(rk_, 10000);
  rd_kafka_destroy(rk_);
  rk_ = create();
}

txn_outcome txn_producer::end(bool commit, std::string* detail) {
  for (int attempt = 0; attempt < 5 && rk_; ++attempt) {
    rd_kafka_error_t* e = commit ? rd_kafka_commit_transaction(rk_, 30000) : rd_kafka_abort_transaction(rk_, 30000);
    if (!e) return commit ? txn_outcome::committed : txn_outcome::aborted;
    const bool retriable = rd_kafka_error_is_retriable(e);
    const bool requires_abort = rd_kafka_error_txn_requires_abort(e);
    const std::string what = std::string(commit ? "commit: " : "abort: ") + take_error(e);
    notes_.add("txn producer " + what.substr(0, what.find(' ', what.find(": ") + 2)));
    *detail += (detail->empty() ? "" : "; ") + what;
    // The client says the transaction cannot commit: abort it instead.
    if (commit && requires_abort) {
      commit = false;
      continue;
    }
    // A timeout leaves the outcome open; the same call again settles it.
    if (!retriable) return txn_outcome::unknown;
  }
  return txn_outcome::unknown;
}

void txn_producer::run() {
  if (!init()) return;
  int64_t seq = 0;
  for (int64_t n = 0; !stopping_ && rk_; ++n) {
    if (rd_kafka_error_t* e = rd_kafka_begin_transaction(rk_)) {
      replace("begin: " + take_error(e));
      if (!init()) return;
      continue;
    }
    const std::string txn = "t" + std::to_string(id_) + "-" + std::to_string(n);
    const int count = 1 + static_cast<int>(n % 5);
    bool sent_all = true;
    for (int i = 0; i < count; ++i, ++seq) {
      const std::string value = make_value(id_, seq);
      const auto partition = static_cast<int32_t>(seq % settings_.partitions);
      history_.send(value, partition, txn);
      rd_kafka_resp_err_t e;
      for (;;) {
        e = rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(settings_.topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                              RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
        rd_kafka_poll(rk_, 10);
      }
      if (e) {
        history_.fail(value, std::string("produce: ") + rd_kafka_err2name(e));
        sent_all = false;
      }
    }
    // Delivered before the end, so that an aborted transaction's values are
    // in the log too (an abort would otherwise drop them still queued).
    rd_kafka_flush(rk_, static_cast<int>(settings_.transaction_timeout.count()));
    std::string detail;
    const txn_outcome outcome = end(sent_all && n % 4 != 3, &detail);
    history_.txn_end(txn, outcome, detail);
    if (outcome == txn_outcome::committed) ++committed_;
    if (outcome == txn_outcome::unknown) {
      replace("transaction " + txn + ": " + detail);
      if (!init()) return;
    }
    rd_kafka_poll(rk_, static_cast<int>(settings_.transaction_interval.count()));
  }
}

void txn_producer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* self = static_cast<txn_producer::opaque*>(opaque)->self;
  record_delivery(self->history_, self->notes_, m, "txn producer");
}

void txn_producer::finish() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

// ---- consumer ----

namespace {
struct consumer_opaque {
  notes_ref ref;
  consumer* self;
};
}  // namespace

consumer::consumer(int id, const workload_settings& settings, history& h, client_notes& notes,
                   bool read_committed)
    : id_(id), history_(h), notes_(notes), read_committed_(read_committed) {
  std::string problem;
  h.member(id, read_committed ? settings.group + "-committed" : settings.group, read_committed);
  auto* opaque = new consumer_opaque{{&notes, "consumer", this}, this};
  rd_kafka_conf_t* conf = make_conf(settings,
                                    {{"group.id", read_committed ? settings.group + "-committed" : settings.group},
                                     {"client.id", "chaos-consumer-" + std::to_string(id)},
                                     {"auto.offset.reset", "earliest"},
                                     {"enable.auto.commit", "true"},
                                     {"auto.commit.interval.ms", "1000"},
                                     {"session.timeout.ms", "10000"},
                                     {"heartbeat.interval.ms", "1000"},
                                     {"isolation.level", read_committed ? "read_committed" : "read_uncommitted"}},
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
      history_.read(id_, generation_, m->partition, m->offset, payload_of(m), read_committed_);
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

void producer::on_client_log(const char* line) {
  std::lock_guard lock(mutex_);
  if (auto reason = parse_epoch_bump_reason(line)) {
    bump_reason_ = *reason;
  } else if (auto bumped = parse_epoch_bumped(line)) {
    history_.epoch_bump(bumped->producer_id, bumped->epoch, bump_reason_);
    bump_reason_.clear();
  }
}

void consumer::on_client_log(const char* line) {
  if (auto reset = parse_offset_reset(line))
    history_.client_reset(id_, reset->partition, reset->offset,
                          "broker " + std::to_string(reset->broker) + " answered OFFSET_OUT_OF_RANGE");
}

void consumer::finish() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

// ---- protocol_consumer ----

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(c));
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

protocol_consumer::protocol_consumer(int id, const workload_settings& settings, history& h, client_notes& notes)
    : id_(id), history_(h), notes_(notes) {
  const std::string group = settings.group + "-848";
  h.member(id, group, false);
  std::string config = "{\"topic\": " + json_string(settings.topic) + ", \"settings\": {";
  for (const auto& [k, v] : client_settings(settings, {{"group.id", group},
                                                       {"group.protocol", "consumer"},
                                                       {"client.id", "chaos-consumer-" + std::to_string(id)},
                                                       {"auto.offset.reset", "earliest"},
                                                       {"enable.auto.commit", "true"},
                                                       {"auto.commit.interval.ms", "1000"},
                                                       {"isolation.level", "read_uncommitted"}}))
    config += (config.back() == '{' ? "" : ", ") + json_string(k) + ": " + json_string(v);
  config += "}}\n";

  // Everything the child needs, made before the fork.
  std::vector<std::string> args{settings.python, HW_SOURCE_DIR "/tests/chaos/group_member.py"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    notes.add("protocol consumer " + std::to_string(id) + " not started: pipe: " + std::strerror(errno));
    return;
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    notes.add("protocol consumer " + std::to_string(id) + " not started: pipe: " + std::strerror(errno));
    ::close(in[0]);
    ::close(in[1]);
    return;
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (pid_ < 0) {
    notes.add("protocol consumer " + std::to_string(id) + " not started: fork: " + std::strerror(errno));
    ::close(in[1]);
    ::close(out[0]);
    return;
  }
  // The settings are a few hundred bytes: the pipe takes them whole.
  if (::write(in[1], config.data(), config.size()) != static_cast<ssize_t>(config.size()))
    notes.add("protocol consumer " + std::to_string(id) + ": its settings were not written");
  ::close(in[1]);
  thread_ = std::thread([this, fd = out[0]] { run(fd); });
}

protocol_consumer::~protocol_consumer() { finish(); }

void protocol_consumer::finish() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!exited_ && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!exited_) {
      notes_.add("protocol consumer " + std::to_string(id_) + " did not close within 30 s: killed");
      ::kill(pid_, SIGKILL);
    }
  }
  if (thread_.joinable()) thread_.join();
}

void protocol_consumer::run(int out_fd) {
  std::string pending;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(out_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
      on_line(pending.substr(start, end - start));
    pending.erase(0, start);
  }
  if (!pending.empty()) on_line(pending);
  ::close(out_fd);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    notes_.add("protocol consumer " + std::to_string(id_) + " exited with status " + std::to_string(status));
  exited_ = true;
}

void protocol_consumer::on_line(const std::string& line) {
  std::istringstream words(line);
  std::string kind;
  words >> kind;
  if (kind == "read") {
    int32_t partition = -1;
    int64_t offset = -1;
    std::string value;
    if (words >> partition >> offset >> value) {
      history_.read(id_, generation_, partition, offset, value);
      ++reads_;
      return;
    }
  } else if (kind == "rebalance") {
    std::vector<int32_t> assignment;
    for (int32_t p; words >> p;) assignment.push_back(p);
    ++generation_;
    if (!assignment.empty()) assigned_ = true;
    history_.rebalance(id_, generation_, std::move(assignment));
    return;
  } else if (kind == "error") {
    std::string name;
    words >> name;
    notes_.add("protocol consumer error " + name);
    return;
  } else if (kind == "subscribed" || kind == "closed") {
    return;
  }
  // librdkafka's log (stderr), or anything else the process said.
  static const bool shown = [] {
    const char* v = std::getenv("HW_CHAOS_RDKAFKA_LOG");
    return v && std::string(v) == "1";
  }();
  if (shown) std::fprintf(stderr, "chaos-consumer-%d: %s\n", id_, line.c_str());
  notes_.log(wall_clock(std::chrono::system_clock::now()) + " chaos-consumer-" + std::to_string(id_) + " " + line);
  if (auto reset = parse_offset_reset(line))
    history_.client_reset(id_, reset->partition, reset->offset,
                          "broker " + std::to_string(reset->broker) + " answered OFFSET_OUT_OF_RANGE");
}

}  // namespace hw::chaos
