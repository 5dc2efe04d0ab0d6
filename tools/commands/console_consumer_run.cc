// kafka-console-consumer.sh's run on librdkafka: subscribe (or assign
// --partition at --offset), print each record with Kafka's
// DefaultMessageFormatter until --max-messages, --timeout-ms or a signal,
// then close (committing, when the group commits) and print the count.
//
// The group's committed offsets follow Kafka's console consumer: the
// offset after each record printed, and a partition's end once the
// consumer has read everything in it (librdkafka's end-of-partition
// event), as Kafka commits its consumer's position there.

#include <strings.h>

#include <chrono>
#include <map>
#include <ostream>
#include <utility>

#include "tools/commands/console.h"
#include "tools/commands/console_consumer.h"
#include "tools/commands/console_runtime.h"

namespace hw::tools {
namespace {

using namespace console;
using steady = std::chrono::steady_clock;

constexpr const char* k_logger = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const std::string k_construct_failed =
    "org.apache.kafka.common.KafkaException: Failed to construct kafka consumer\nCaused by: ";
constexpr const char* k_protocol_message =
    "The consumer rebalance protocol (KIP-848) is production-ready! Set group.protocol=consumer to try it out. "
    "See https://kafka.apache.org/documentation/#consumer_rebalance_protocol";

// Kafka's main() catching an exception: logged, exit status 1.
int unknown_error(const std::string& exception, tool_io io) {
  io.err << log_line("ERROR", "Unknown error when running consumer: ", k_logger) << '\n' << exception << '\n';
  return 1;
}

consumed_record to_record(const rd_kafka_message_t* m) {
  consumed_record r;
  r.topic = rd_kafka_topic_name(m->rkt);
  r.partition = m->partition;
  r.offset = m->offset;
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  r.timestamp = rd_kafka_message_timestamp(m, &type);
  r.ts_type = type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? timestamp_type::create_time
              : type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? timestamp_type::log_append_time
                                                           : timestamp_type::none;
  if (m->key) r.key = std::string(static_cast<const char*>(m->key), m->key_len);
  if (m->payload) r.value = std::string(static_cast<const char*>(m->payload), m->len);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR && headers) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      header h{name, std::nullopt};
      if (value) h.value = std::string(static_cast<const char*>(value), size);
      r.headers.push_back(std::move(h));
    }
  }
  return r;
}

// An error librdkafka hands the consumer: the Java exception that ends
// Kafka's console consumer, or empty when Kafka's consumer goes on polling
// (brokers unreachable, a topic not there yet).
std::string fatal_exception(rd_kafka_t* rk, const rd_kafka_message_t* m) {
  const rd_kafka_resp_err_t e = m->err;
  const std::string where =
      m->rkt ? std::string(rd_kafka_topic_name(m->rkt)) + "-" + std::to_string(m->partition) : std::string();
  switch (e) {
    case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
      return "org.apache.kafka.clients.consumer.NoOffsetForPartitionException: Undefined offset with no reset "
             "policy for partitions: [" + where + "]";
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
      return "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [" +
             (m->rkt ? std::string(rd_kafka_topic_name(m->rkt)) : std::string()) + "]";
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_INVALID_GROUP_ID:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION:
      return java_exception_for(static_cast<int16_t>(e));
    case RD_KAFKA_RESP_ERR__FATAL: {
      char reason[512];
      const rd_kafka_resp_err_t cause = rd_kafka_fatal_error(rk, reason, sizeof reason);
      return cause > 0 ? java_exception_for(static_cast<int16_t>(cause))
                       : "org.apache.kafka.common.KafkaException: " + std::string(reason);
    }
    default:
      return "";
  }
}

class console_consumer {
 public:
  console_consumer(rd_kafka_t* rk, const consumer_plan& plan, tool_io io) : rk_(rk), plan_(plan), io_(io) {}

  bool start(std::string* error);
  // Kafka's process(): records until the limit, a timeout, an error or a signal.
  void process(int64_t max_messages);
  int64_t count() const { return count_; }
  // Before closing: the position of each assigned partition nothing was
  // read from, which Kafka's consumer commits too.
  void store_positions();

 private:
  enum class outcome { record, timeout, wakeup, failed };
  outcome receive(rd_kafka_message_t** out, std::string* exception);
  void store(const std::string& topic, int32_t partition, int64_t next);

  rd_kafka_t* rk_;
  const consumer_plan& plan_;
  tool_io io_;
  int64_t count_ = 0;
  std::map<std::pair<std::string, int32_t>, int64_t> stored_;  // the offset to commit per partition
};

bool console_consumer::start(std::string* error) {
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_resp_err_t e;
  if (plan_.partition) {
    auto* tp = rd_kafka_topic_partition_list_add(list, plan_.topic->c_str(), *plan_.partition);
    tp->offset = plan_.offset == -2 ? RD_KAFKA_OFFSET_BEGINNING
                 : plan_.offset == -1 ? RD_KAFKA_OFFSET_END
                                      : plan_.offset;
    e = rd_kafka_assign(rk_, list);
  } else {
    // librdkafka takes a leading '^' as a regular expression; Kafka matches the whole name.
    const std::string name = plan_.topic ? *plan_.topic : "^(" + *plan_.include + ")$";
    rd_kafka_topic_partition_list_add(list, name.c_str(), RD_KAFKA_PARTITION_UA);
    e = rd_kafka_subscribe(rk_, list);
  }
  rd_kafka_topic_partition_list_destroy(list);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    *error = "org.apache.kafka.common.KafkaException: " + std::string(rd_kafka_err2str(e));
    return false;
  }
  return true;
}

void console_consumer::store(const std::string& topic, int32_t partition, int64_t next) {
  auto [it, added] = stored_.try_emplace({topic, partition}, next);
  if (!added && next <= it->second) return;
  it->second = next;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset = next;
  rd_kafka_offsets_store(rk_, list);  // fails harmlessly for a partition no longer assigned
  rd_kafka_topic_partition_list_destroy(list);
}

// Kafka's receive(): polls until a record comes, failing once timeout_ms
// has passed without one.
console_consumer::outcome console_consumer::receive(rd_kafka_message_t** out, std::string* exception) {
  const auto start = steady::now();
  while (true) {
    if (received_signal() != 0) return outcome::wakeup;
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - start).count();
    if (plan_.timeout_ms != INT64_MAX && waited > plan_.timeout_ms) return outcome::timeout;
    int wait = 100;
    if (plan_.timeout_ms != INT64_MAX)
      wait = static_cast<int>(std::clamp<int64_t>(plan_.timeout_ms - waited + 1, 1, 100));
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, wait);
    if (const auto* ctx = static_cast<const client_context*>(rd_kafka_opaque(rk_));
        !ctx->authentication_failure.empty()) {
      // Kafka's poll throws the login's error.
      *exception = ctx->authentication_failure;
      if (m) rd_kafka_message_destroy(m);
      return outcome::failed;
    }
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      *out = m;
      return outcome::record;
    }
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF && m->rkt) {
      store(rd_kafka_topic_name(m->rkt), m->partition, m->offset);
    } else if (std::string fatal = fatal_exception(rk_, m); !fatal.empty()) {
      *exception = fatal;
      rd_kafka_message_destroy(m);
      return outcome::failed;
    }
    rd_kafka_message_destroy(m);
  }
}

void console_consumer::process(int64_t max_messages) {
  while (max_messages == -1 || count_ < max_messages) {  // Kafka: -1 (no --max-messages) is no limit
    rd_kafka_message_t* m = nullptr;
    std::string exception;
    const outcome o = receive(&m, &exception);
    if (o == outcome::wakeup) return;
    if (o != outcome::record) {
      io_.err << log_line("ERROR", "Error processing message, terminating consumer process: ", k_logger) << '\n'
              << (o == outcome::timeout ? "org.apache.kafka.common.errors.TimeoutException" : exception) << '\n';
      return;
    }
    ++count_;
    io_.out << format_record(plan_.formatter, to_record(m));
    io_.out.flush();
    store(rd_kafka_topic_name(m->rkt), m->partition, m->offset + 1);
    rd_kafka_message_destroy(m);
    if (!io_.out) {
      io_.err << "Unable to write to standard out, closing consumer.\n";
      return;
    }
  }
}

void console_consumer::store_positions() {
  auto setting = [&](const char* key) {
    auto it = plan_.java.find(key);
    std::string v = it == plan_.java.end() ? "" : it->second;
    for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  if (plan_.partition || setting("enable.auto.commit").find("false") != std::string::npos) return;
  const std::string reset = setting("auto.offset.reset");
  rd_kafka_topic_partition_list_t* assigned = nullptr;
  if (rd_kafka_assignment(rk_, &assigned) != RD_KAFKA_RESP_ERR_NO_ERROR || !assigned) return;
  rd_kafka_topic_partition_list_t* unread = rd_kafka_topic_partition_list_new(assigned->cnt);
  for (int i = 0; i < assigned->cnt; ++i) {
    const auto& tp = assigned->elems[i];
    if (!stored_.count({tp.topic, tp.partition})) rd_kafka_topic_partition_list_add(unread, tp.topic, tp.partition);
  }
  // A partition the group has an offset for stays there; the others are where the reset put them.
  if (unread->cnt > 0 && rd_kafka_committed(rk_, unread, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (int i = 0; i < unread->cnt; ++i) {
      const auto& tp = unread->elems[i];
      int64_t low = -1, high = -1;
      if (tp.offset >= 0 || (reset != "earliest" && reset != "latest")) continue;
      const auto e = rd_kafka_query_watermark_offsets(rk_, tp.topic, tp.partition, &low, &high, 5000);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
      store(tp.topic, tp.partition, reset == "earliest" ? low : high);
    }
  }
  rd_kafka_topic_partition_list_destroy(unread);
  rd_kafka_topic_partition_list_destroy(assigned);
}

// Kafka converts --max-messages only once the consumer runs; the JVM's causes follow.
std::string max_messages_error(const std::string& value) {
  const std::string cause = "java.lang.NumberFormatException: For input string: \"" + value + "\"";
  return "joptsimple.OptionArgumentConversionException: Cannot parse argument '" + value +
         "' of option max-messages\nCaused by: joptsimple.internal.ReflectionException: " + cause +
         "\nCaused by: " + cause;
}

// Kafka's close(): leave the group (committing first when the group
// commits), within Kafka's default close timeout of 30 s.
void close_consumer(rd_kafka_t* rk) {
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  if (rd_kafka_error_t* e = rd_kafka_consumer_close_queue(rk, q)) {
    rd_kafka_error_destroy(e);
  } else {
    const auto deadline = steady::now() + std::chrono::seconds(30);
    while (!rd_kafka_consumer_closed(rk) && steady::now() < deadline)
      if (rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 100)) rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
}

}  // namespace

int run_console_consumer(const consumer_plan& plan, tool_io io) {
  watch_signals();
  client_settings settings;
  std::string error;
  if (!map_client_properties(client_kind::consumer, plan.java, &settings, &error)) {
    if (error.rfind("org.apache.kafka", 0) == 0) return unknown_error(error, io);
    io.err << error << '\n';
    return 1;
  }
  std::vector<std::string> warnings;
  const bool resolvable = validate_bootstrap(plan.bootstrap, &warnings, &error);
  for (const auto& w : warnings) io.err << log_line("WARN", w, "org.apache.kafka.clients.ClientUtils") << '\n';
  if (!resolvable)
    return unknown_error(k_construct_failed + error, io);
  auto& rd = settings.rdkafka;
  rd.insert(rd.begin(), {"bootstrap.servers", librdkafka_bootstrap(plan.bootstrap)});
  rd.emplace_back("enable.auto.offset.store", "false");  // offsets stored as records are printed
  rd.emplace_back("enable.partition.eof", "true");
  if (plan.include && settings.exclude_internal_topics)
    rd.emplace_back("topic.blacklist", "^__consumer_offsets$,^__transaction_state$,^__share_group_state$");
  client_context ctx{&io.err, "Consumer clientId=" + settings.client_id + ", groupId=" + settings.group_id, nullptr};
  rd_kafka_ptr owned = make_client(RD_KAFKA_CONSUMER, settings, &ctx, nullptr, &error);
  if (!owned)
    return unknown_error(k_construct_failed + error, io);
  rd_kafka_t* rk = owned.release();  // closed and destroyed below, without the blocking close of rd_kafka_destroy
  rd_kafka_poll_set_consumer(rk);
  // Kafka suggests the new protocol to a classic group member (librdkafka 2.0.2 speaks only that one).
  auto protocol = plan.java.find("group.protocol");
  const bool classic = protocol == plan.java.end() || strcasecmp(protocol->second.c_str(), "classic") == 0;
  if (!plan.partition && classic) io.err << k_protocol_message << '\n';
  console_consumer consumer(rk, plan, io);
  int status = 0;
  std::optional<int64_t> max_messages = -1;
  if (plan.max_messages) max_messages = parse_java_integer(*plan.max_messages, false);
  if (!consumer.start(&error)) {
    status = unknown_error(error, io);
  } else if (max_messages) {
    consumer.process(*max_messages);
  }
  consumer.store_positions();
  close_consumer(rk);
  rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  io.out.flush();
  io.err << "Processed a total of " << consumer.count() << " messages\n";
  if (!max_messages)
    status = unknown_error(max_messages_error(*plan.max_messages), io);
  if (const int sig = received_signal(); sig != 0) return 128 + sig;
  return status;
}

}  // namespace hw::tools
