#pragma once
// What the console producer and consumer share at run time: their
// librdkafka handle's configuration, the warnings Kafka's client logs
// about unreachable brokers, and the signals that end them (SIGTERM, and
// SIGINT unless it was ignored when the tool started, as for the JVM).

#include <librdkafka/rdkafka.h>

#include <iosfwd>
#include <memory>
#include <string>

#include "tools/commands/console.h"

namespace hw::tools::console {

// Starts watching SIGINT and SIGTERM: they no longer kill the process, and
// blocking reads return EINTR so that the tool can close its client.
void watch_signals();
// The signal received since watch_signals(), 0 if none.
int received_signal();

struct rd_kafka_deleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using rd_kafka_ptr = std::unique_ptr<rd_kafka_t, rd_kafka_deleter>;

// What a client's callbacks reach through librdkafka's opaque: where to
// print, the prefix Kafka's client logs with ("Producer
// clientId=console-producer"), and the tool's own state.
struct client_context {
  std::ostream* err = nullptr;
  std::string client;
  void* user = nullptr;
  // Kafka's exception once a broker refused the login (TLS or SASL):
  // Kafka's client fails the tool's next call with it rather than retrying.
  std::string authentication_failure;
};

// The librdkafka handle of a console tool: `settings` applied in order,
// librdkafka's own logging silenced and its connection errors printed as
// Kafka's NetworkClient logs them (a refused login also noted in
// ctx->authentication_failure); `ctx` must outlive the handle.
// nullptr with librdkafka's reason.
rd_kafka_ptr make_client(rd_kafka_type_t type, const client_settings& settings, client_context* ctx,
                         void (*delivery)(rd_kafka_t*, const rd_kafka_message_t*, void*), std::string* error);

}  // namespace hw::tools::console
