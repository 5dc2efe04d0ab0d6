#include "tools/commands/console_runtime.h"

#include <netdb.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <ostream>

namespace hw::tools::console {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void on_signal(int sig) { g_signal = sig; }

void drop_log(const rd_kafka_t*, int, const char*, const char*) {}

// The address as Java prints a resolved InetSocketAddress after a SASL
// login, which asked for the host's name: "name/ip:port", the name looked
// up from the address when the bootstrap entry was one.
std::string java_sasl_address(const std::string& host, const std::string& port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found) return host + "/" + host + ":" + port;
  char ip[NI_MAXHOST] = {}, name[NI_MAXHOST] = {};
  ::getnameinfo(found->ai_addr, found->ai_addrlen, ip, sizeof ip, nullptr, 0, NI_NUMERICHOST);
  const bool literal = host == ip;
  if (literal && ::getnameinfo(found->ai_addr, found->ai_addrlen, name, sizeof name, nullptr, 0, NI_NAMEREQD) != 0)
    std::snprintf(name, sizeof name, "%s", ip);
  ::freeaddrinfo(found);
  return (literal ? std::string(name) : host) + "/" + ip + ":" + port;
}

// A refused SASL login: "sasl_ssl://host:port/id: SASL authentication
// error: <the broker's message> (after 0ms in state AUTH_REQ)". Logged as
// Kafka's NetworkClient logs it, once, and kept for the tool's next call.
void on_authentication_error(client_context* ctx, std::string text) {
  if (!ctx->authentication_failure.empty()) return;
  if (const size_t scheme = text.find("://"); scheme != std::string::npos && scheme < text.find('/'))
    text.erase(0, scheme + 3);
  const std::string marker = "SASL authentication error: ";
  const size_t at = text.find(marker);
  const size_t slash = text.find('/'), colon = text.find(':');
  if (at == std::string::npos || slash == std::string::npos || colon == std::string::npos || colon > slash) return;
  std::string message = text.substr(at + marker.size());
  if (const size_t after = message.rfind(" (after "); after != std::string::npos) message.resize(after);
  const std::string host = text.substr(0, colon), port = text.substr(colon + 1, slash - colon - 1);
  std::string id = text.substr(slash + 1, text.find(':', slash) - slash - 1);
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) id = "-1";
  ctx->authentication_failure = "org.apache.kafka.common.errors.SaslAuthenticationException: " + message;
  *ctx->err << log_line("ERROR",
                        "[" + ctx->client + "] Connection to node " + id + " (" + java_sasl_address(host, port) +
                            ") failed authentication due to: " + message,
                        "org.apache.kafka.clients.NetworkClient")
            << '\n';
  ctx->err->flush();
}

// librdkafka names a broker "host:port/id" ("/bootstrap" before it knows
// the id) and a failed connection "... Connect to ipv4#1.2.3.4:9092 failed".
void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* ctx = static_cast<client_context*>(opaque);
  if (ctx && reason && err == RD_KAFKA_RESP_ERR__AUTHENTICATION) on_authentication_error(ctx, reason);
  if (!ctx || err != RD_KAFKA_RESP_ERR__TRANSPORT || !reason) return;
  const std::string text = reason;
  const size_t slash = text.find('/');
  const size_t colon = text.find(':');
  if (slash == std::string::npos || colon == std::string::npos || colon > slash) return;
  const std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1, slash - colon - 1);
  const size_t id_end = text.find(':', slash);
  std::string id = text.substr(slash + 1, id_end == std::string::npos ? std::string::npos : id_end - slash - 1);
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) id = "-1";
  std::string ip = host;
  if (const size_t hash = text.find('#'); hash != std::string::npos) {
    const size_t end = text.find(':', hash);
    if (end != std::string::npos) ip = text.substr(hash + 1, end - hash - 1);
  }
  const std::string address = (host == ip ? "" : host) + "/" + ip + ":" + port;
  *ctx->err << log_line("WARN",
                        "[" + ctx->client + "] Connection to node " + id + " (" + address +
                            ") could not be established. Node may not be available.",
                        "org.apache.kafka.clients.NetworkClient")
            << '\n';
  ctx->err->flush();
  (void)rk;
}

}  // namespace

void watch_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns
  struct sigaction old {};
  sigaction(SIGINT, nullptr, &old);
  if (old.sa_handler != SIG_IGN) sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int received_signal() { return g_signal; }

rd_kafka_ptr make_client(rd_kafka_type_t type, const client_settings& settings, client_context* ctx,
                         void (*delivery)(rd_kafka_t*, const rd_kafka_message_t*, void*), std::string* error) {
  char reason[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [key, value] : settings.rdkafka) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), reason, sizeof reason) != RD_KAFKA_CONF_OK) {
      *error = key + "=" + value + ": " + reason;
      rd_kafka_conf_destroy(conf);
      return nullptr;
    }
  }
  rd_kafka_conf_set_opaque(conf, ctx);
  rd_kafka_conf_set_log_cb(conf, drop_log);
  rd_kafka_conf_set_error_cb(conf, on_error);
  if (delivery) rd_kafka_conf_set_dr_msg_cb(conf, delivery);
  rd_kafka_t* rk = rd_kafka_new(type, conf, reason, sizeof reason);
  if (!rk) {
    *error = reason;
    rd_kafka_conf_destroy(conf);
    return nullptr;
  }
  return rd_kafka_ptr(rk);
}

}  // namespace hw::tools::console
