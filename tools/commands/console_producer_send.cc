// kafka-console-producer.sh's run: stdin's lines become records
// (LineMessageReader's rules, console_reader.cc) sent through librdkafka
// with the Java producer's settings mapped to librdkafka's
// (console_config.cc). What Kafka's producer does that librdkafka does not
// (waiting max.block.ms for the topic's metadata, checking
// max.request.size, reporting a failed record as ErrorLoggingCallback does)
// is done here.

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <ostream>

#include "tools/commands/console.h"
#include "tools/commands/console_producer.h"
#include "tools/commands/console_runtime.h"

namespace hw::tools {
namespace {

using namespace console;
using steady = std::chrono::steady_clock;

constexpr const char* k_callback_logger = "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback";

// One record handed to librdkafka, until its delivery report.
struct in_flight {
  std::string topic;
  std::optional<size_t> key_size;
  std::optional<size_t> value_size;
  bool sync = false;
  bool done = false;
  std::string failure;  // the Java exception line, empty on success
};

// Kafka's ErrorLoggingCallback: the record's sizes, then the exception.
void log_send_error(std::ostream& err, const std::string& topic, std::optional<size_t> key,
                    std::optional<size_t> value, const std::string& exception) {
  auto size = [](std::optional<size_t> n) { return n ? std::to_string(*n) + " bytes" : std::string("null"); };
  err << log_line("ERROR",
                  "Error when sending message to topic " + topic + " with key: " + size(key) + ", value: " +
                      size(value) + " with error:",
                  k_callback_logger)
      << '\n'
      << exception << '\n';
  err.flush();
}

// The exception Kafka's producer completes a failed record with.
std::string delivery_exception(const rd_kafka_message_t* m, int64_t delivery_timeout_ms) {
  const rd_kafka_resp_err_t e = m->err;
  const std::string topic = rd_kafka_topic_name(m->rkt);
  // Timed out, or still unacknowledged when the tool gave up on it (purged): Kafka expires the batch.
  if (e == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT || e == RD_KAFKA_RESP_ERR__PURGE_QUEUE ||
      e == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT)
    return "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for " + topic + "-" +
           std::to_string(m->partition) + ":" + std::to_string(delivery_timeout_ms) +
           " ms has passed since batch creation. The request has not been sent, or no server response has been "
           "received yet.";
  if (e == RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION && topic.rfind("__", 0) == 0)
    return "org.apache.kafka.common.errors.InvalidTopicException: Cannot append to internal topic " + topic;
  if (e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
    return "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [" + topic +
           "]";
  if (e >= RD_KAFKA_RESP_ERR_UNKNOWN) return java_exception_for(static_cast<int16_t>(e));  // a broker's error code
  return "org.apache.kafka.common.KafkaException: " + std::string(rd_kafka_err2str(e));
}

void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void*) {
  auto* ctx = static_cast<client_context*>(rd_kafka_opaque(rk));
  const auto* settings = static_cast<const client_settings*>(ctx->user);
  auto* rec = static_cast<in_flight*>(m->_private);
  if (!rec) return;
  if (m->err) {
    rec->failure = delivery_exception(m, settings->delivery_timeout_ms);
    if (!rec->sync) log_send_error(*ctx->err, rec->topic, rec->key_size, rec->value_size, rec->failure);
  }
  rec->done = true;
  if (!rec->sync) delete rec;  // a sync record is the sender's, which waits for it
}

class console_producer {
 public:
  console_producer(rd_kafka_t* rk, const client_settings& s, tool_io io) : rk_(rk), settings_(s), io_(io) {}

  // Sends one record: waits for the topic's metadata (max.block.ms) as
  // Kafka's send() does, then hands it to librdkafka. With --sync, waits
  // for the outcome too. False when the tool must stop (exit 1).
  bool send(const produced_record& r, bool sync);
  // Waits for every record sent to be acknowledged or to fail.
  void flush();

 private:
  bool fail(const produced_record& r, bool sync, const std::string& exception);
  bool wait_for_metadata(const std::string& topic, std::string* exception);
  bool enqueue(const produced_record& r, in_flight* rec, std::string* exception);

  rd_kafka_t* rk_;
  const client_settings& settings_;
  tool_io io_;
  std::optional<std::string> known_topic_;
  bool reported_invalid_ = false;
};

// A record Kafka's send() refuses: reported through the callback (async)
// or thrown from the future (sync, which ends the tool).
bool console_producer::fail(const produced_record& r, bool sync, const std::string& exception) {
  if (sync) {
    io_.err << "java.util.concurrent.ExecutionException: " << exception << "\nCaused by: " << exception << '\n';
    return false;
  }
  std::optional<size_t> key, value;
  if (r.key) key = r.key->size();
  if (r.value) value = r.value->size();
  log_send_error(io_.err, r.topic, key, value, exception);
  return true;
}

bool console_producer::wait_for_metadata(const std::string& topic, std::string* exception) {
  if (known_topic_ == topic) return true;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_, topic.c_str(), nullptr);
  const auto deadline = steady::now() + std::chrono::milliseconds(settings_.max_block_ms);
  const auto* ctx = static_cast<const client_context*>(rd_kafka_opaque(rk_));
  bool found = false;
  while (!found && received_signal() == 0) {
    if (!ctx->authentication_failure.empty()) {
      // Kafka's metadata wait ends with the login's error.
      *exception = ctx->authentication_failure;
      rd_kafka_topic_destroy(rkt);
      return false;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now()).count();
    if (left <= 0) break;
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk_, 0, rkt, &md, static_cast<int>(std::min<int64_t>(left, 1000))) ==
            RD_KAFKA_RESP_ERR_NO_ERROR &&
        md) {
      for (int i = 0; i < md->topic_cnt; ++i) {
        const auto& t = md->topics[i];
        if (topic != t.topic) continue;
        if (t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt > 0) found = true;
        if (t.err == RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION) {
          // Kafka names the topic once with the list, then alone.
          if (!reported_invalid_)
            io_.err << log_line("ERROR",
                                "[Producer clientId=" + settings_.client_id +
                                    "] Metadata response reported invalid topics [" + topic + "]",
                                "org.apache.kafka.clients.Metadata")
                    << '\n';
          *exception = "org.apache.kafka.common.errors.InvalidTopicException: " +
                       (reported_invalid_ ? topic : "Invalid topics: [" + topic + "]");
          reported_invalid_ = true;
          rd_kafka_metadata_destroy(md);
          rd_kafka_topic_destroy(rkt);
          return false;
        }
      }
      rd_kafka_metadata_destroy(md);
    }
    rd_kafka_poll(rk_, 0);
    if (!found) rd_kafka_poll(rk_, 100);  // retry.backoff.ms-like pause, serving callbacks
  }
  rd_kafka_topic_destroy(rkt);
  if (!found && received_signal() != 0) {
    exception->clear();  // stopping: nothing to report
    return false;
  }
  if (!found) {
    *exception = "org.apache.kafka.common.errors.TimeoutException: Topic " + topic + " not present in metadata after " +
                 std::to_string(settings_.max_block_ms) + " ms.";
    return false;
  }
  known_topic_ = topic;
  return true;
}

bool console_producer::enqueue(const produced_record& r, in_flight* rec, std::string* exception) {
  rd_kafka_headers_t* headers = rd_kafka_headers_new(r.headers.size());
  for (const auto& h : r.headers)
    rd_kafka_header_add(headers, h.key.data(), static_cast<ssize_t>(h.key.size()), h.value ? h.value->data() : nullptr,
                        h.value ? static_cast<ssize_t>(h.value->size()) : 0);
  // A non-null pointer keeps an empty value or key empty rather than null.
  static char empty = 0;
  const void* value = r.value ? (r.value->empty() ? &empty : r.value->data()) : nullptr;
  const void* key = r.key ? (r.key->empty() ? &empty : r.key->data()) : nullptr;
  const auto deadline = steady::now() + std::chrono::milliseconds(settings_.max_block_ms);
  while (true) {
    const rd_kafka_resp_err_t e = rd_kafka_producev(
        rk_, RD_KAFKA_V_TOPIC(r.topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_VALUE(const_cast<void*>(value), (r.value ? r.value->size() : 0)),
        RD_KAFKA_V_KEY(key, (r.key ? r.key->size() : 0)), RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(rec),
        RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) return true;  // librdkafka owns the headers now
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL || steady::now() >= deadline || received_signal() != 0) {
      rd_kafka_headers_destroy(headers);
      *exception = e == RD_KAFKA_RESP_ERR__QUEUE_FULL
                       ? "org.apache.kafka.clients.producer.BufferExhaustedException: Failed to allocate memory within "
                         "the configured max blocking time " +
                             std::to_string(settings_.max_block_ms) + " ms."
                       : "org.apache.kafka.common.KafkaException: " + std::string(rd_kafka_err2str(e));
      return false;
    }
    rd_kafka_poll(rk_, 10);  // Kafka's send() blocks while the buffer is full
  }
}

bool console_producer::send(const produced_record& r, bool sync) {
  std::string exception;
  if (!wait_for_metadata(r.topic, &exception)) return !exception.empty() && fail(r, sync, exception);
  if (settings_.transactional_id) {
    // Kafka's console producer never calls initTransactions, so its first send throws.
    io_.err << "java.lang.IllegalStateException: Cannot add partition " << r.topic
            << "-0 to transaction before completing a call to initTransactions\n";
    return false;
  }
  const int64_t size = estimated_record_size(r);
  if (size > settings_.max_request_size)
    return fail(r, sync,
                "org.apache.kafka.common.errors.RecordTooLargeException: The message is " + std::to_string(size) +
                    " bytes when serialized which is larger than " + std::to_string(settings_.max_request_size) +
                    ", which is the value of the max.request.size configuration.");
  if (size > settings_.buffer_memory)
    return fail(r, sync,
                "org.apache.kafka.common.errors.RecordTooLargeException: The message is " + std::to_string(size) +
                    " bytes when serialized which is larger than the total memory buffer you have configured with "
                    "the buffer.memory configuration.");
  auto* rec = new in_flight{r.topic, std::nullopt, std::nullopt, sync, false, {}};
  if (r.key) rec->key_size = r.key->size();
  if (r.value) rec->value_size = r.value->size();
  if (!enqueue(r, rec, &exception)) {
    delete rec;
    return fail(r, sync, exception);
  }
  if (!sync) {
    rd_kafka_poll(rk_, 0);
    return true;
  }
  std::unique_ptr<in_flight> owned(rec);
  const auto deadline = steady::now() + std::chrono::milliseconds(settings_.delivery_timeout_ms + 30000);
  while (!owned->done && steady::now() < deadline) rd_kafka_poll(rk_, 100);
  if (!owned->done) {
    // The report never came: the record is left to librdkafka's callback, which frees it.
    owned.release()->sync = false;
    io_.err << "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException\n";
    return false;
  }
  return owned->failure.empty() || fail(r, true, owned->failure);
}

void console_producer::flush() {
  // Kafka's close() waits for every record; delivery.timeout.ms bounds each one.
  const auto deadline = steady::now() + std::chrono::milliseconds(settings_.delivery_timeout_ms + 30000);
  while (rd_kafka_outq_len(rk_) > 0 && steady::now() < deadline) rd_kafka_flush(rk_, 100);
  if (rd_kafka_outq_len(rk_) > 0) {
    // Past every record's deadline: what librdkafka still holds fails now, reported like the others.
    rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(rk_, 1000);
  }
  rd_kafka_poll(rk_, 0);
}

// Reads stdin line by line, serving librdkafka's callbacks while it waits.
class stdin_lines {
 public:
  explicit stdin_lines(bool prompt) : prompt_(prompt) {}
  // The next line; nullopt at end of input or on a signal.
  std::optional<std::string> next(rd_kafka_t* rk, std::ostream& out);

 private:
  line_splitter splitter_;
  std::vector<std::string> ready_;
  size_t next_ = 0;
  bool eof_ = false;
  bool prompt_;
};

std::optional<std::string> stdin_lines::next(rd_kafka_t* rk, std::ostream& out) {
  if (prompt_) out << '>' << std::flush;  // LineMessageReader prompts on a console
  while (next_ >= ready_.size()) {
    ready_.clear();
    next_ = 0;
    if (eof_ || received_signal() != 0) return std::nullopt;
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int n = ::poll(&p, 1, 100);
    rd_kafka_poll(rk, 0);
    if (n <= 0) continue;
    char buf[65536];
    const ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      eof_ = true;
      if (auto last = splitter_.finish()) ready_.push_back(std::move(*last));
      continue;
    }
    splitter_.feed(std::string_view(buf, static_cast<size_t>(got)), &ready_);
  }
  return java_utf8(ready_[next_++]);
}

}  // namespace

int run_console_producer(const producer_plan& plan, tool_io io) {
  watch_signals();
  client_settings settings;
  std::string error;
  if (!map_client_properties(client_kind::producer, plan.java, &settings, &error)) {
    io.err << error << '\n';
    return 1;
  }
  std::vector<std::string> warnings;
  const bool resolvable = validate_bootstrap(plan.bootstrap, &warnings, &error);
  for (const auto& w : warnings) io.err << log_line("WARN", w, "org.apache.kafka.clients.ClientUtils") << '\n';
  if (!resolvable) {
    io.err << "org.apache.kafka.common.KafkaException: Failed to construct kafka producer\nCaused by: " << error
           << '\n';
    return 1;
  }
  settings.rdkafka.insert(settings.rdkafka.begin(), {"bootstrap.servers", librdkafka_bootstrap(plan.bootstrap)});
  client_context ctx{&io.err, "Producer clientId=" + settings.client_id, &settings};
  rd_kafka_ptr rk = make_client(RD_KAFKA_PRODUCER, settings, &ctx, on_delivery, &error);
  if (!rk) {
    io.err << "org.apache.kafka.common.KafkaException: Failed to construct kafka producer\nCaused by: " << error
           << '\n';
    return 1;
  }
  console_producer producer(rk.get(), settings, io);
  stdin_lines input(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
  int status = 0;
  for (int line_number = 1;; ++line_number) {
    auto line = input.next(rk.get(), io.out);
    if (!line) break;
    produced_record record;
    if (!parse_line(plan.reader, *line, line_number, &record, &error)) {
      io.err << "org.apache.kafka.common.KafkaException: " << error << '\n';
      status = 1;
      break;
    }
    if (!producer.send(record, plan.sync)) {
      status = 1;
      break;
    }
  }
  producer.flush();
  io.err.flush();
  if (const int sig = received_signal(); sig != 0) return 128 + sig;
  return status;
}

}  // namespace hw::tools
