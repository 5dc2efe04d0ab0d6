// highwater: a Kafka-compatible broker.
//   highwater [server.properties] [--config PATH] [--override key=value]... [--port-file PATH]
// Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT), 1 for an invalid
// configuration or a listener that cannot start.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "broker/asio.h"
#include "broker/command_line.h"
#include "broker/dispatcher.h"
#include "broker/features.h"
#include "broker/handler_registry.h"
#include "broker/handlers/handlers.h"
#include "broker/logging.h"
#include "broker/network/server.h"
#include "broker/services.h"
#include "config/broker_config.h"

extern char** environ;

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

bool write_port_file(const std::string& path, const std::vector<bound_listener>& bound) {
  // Written whole and renamed into place, so a reader never sees half of it.
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& b : bound) out << b.to_string() << '\n';
    if (!out.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

server_options make_server_options(const config::broker_config& c) {
  server_options o;
  o.listeners = c.listeners;
  o.connection.max_frame_bytes = c.socket_request_max_bytes;
  o.connection.max_inflight = static_cast<size_t>(c.connection_max_inflight_requests);
  // Beyond ten years "idle" means never (and keeps clock arithmetic in range).
  constexpr int64_t kTenYearsMs = 10LL * 365 * 24 * 3600 * 1000;
  o.connection.idle_timeout_ms = c.connections_max_idle_ms > kTenYearsMs ? -1 : c.connections_max_idle_ms;
  o.max_connections = c.max_connections;
  o.listen_backlog = c.socket_listen_backlog_size;
  o.send_buffer_bytes = c.socket_send_buffer_bytes;
  o.receive_buffer_bytes = c.socket_receive_buffer_bytes;
  o.queued_max_requests = c.queued_max_requests;
  return o;
}

int run(int argc, char** argv) {
  const char* log_level = std::getenv("KAFKA_LOG4J_ROOT_LOGLEVEL");
  setup_logging(log_level ? std::optional<std::string_view>(log_level) : std::nullopt);

  command_line cl = parse_command_line(std::span<const char* const>(argv + 1, argc > 0 ? argc - 1 : 0));
  if (cl.help) {
    std::fputs(usage(), stdout);
    return 0;
  }
  if (!cl.errors.empty()) {
    for (const auto& e : cl.errors) std::fprintf(stderr, "highwater: %s\n", e.c_str());
    std::fputs(usage(), stderr);
    return 1;
  }

  config::config_sources sources;
  sources.properties_path = cl.config_path;
  sources.environment = environment();
  sources.overrides = cl.overrides;
  config::load_result loaded = config::load_broker_config(sources);
  for (const auto& w : loaded.warnings) spdlog::warn("{}", w);
  if (!loaded.config) {
    for (const auto& e : loaded.errors) {
      spdlog::error("Invalid configuration: {}", e);
      std::fprintf(stderr, "highwater: invalid configuration: %s\n", e.c_str());
    }
    return 1;
  }
  const config::broker_config& cfg = *loaded.config;
  std::string roles;
  for (const auto& r : cfg.process_roles) roles += (roles.empty() ? "" : ",") + r;
  spdlog::info("Starting Highwater: node.id={}, process.roles={}, num.io.threads={}", cfg.node_id, roles,
               cfg.num_io_threads);

  asio::io_context io(cfg.num_io_threads);
  handler_registry handlers(all_handlers());
  broker_services services{&handlers, bootstrap_finalized_features()};
  dispatcher dispatch(services);
  server srv(io, make_server_options(cfg), dispatch);

  // Signals are caught from here on: the port file (what tests and scripts
  // wait for) is written only once SIGTERM leads to a clean shutdown.
  std::promise<void> stopped;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const error_code& ec, int signo) {
    if (ec) return;
    spdlog::info("Received {}; shutting down", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    srv.shutdown(5s, [&] { stopped.set_value(); });
  });

  if (auto error = srv.start()) {
    spdlog::error("{}", *error);
    std::fprintf(stderr, "highwater: %s\n", error->c_str());
    return 1;
  }
  if (cl.port_file && !write_port_file(*cl.port_file, srv.bound())) {
    spdlog::error("Cannot write the port file {}", *cl.port_file);
    return 1;
  }
  spdlog::info("Highwater started (node.id={})", cfg.node_id);

  std::vector<std::thread> threads;
  std::atomic<int> running{cfg.num_io_threads};
  std::promise<void> all_returned;
  for (int i = 0; i < cfg.num_io_threads; ++i)
    threads.emplace_back([&] {
      io.run();
      if (--running == 0) all_returned.set_value();
    });

  stopped.get_future().wait();
  // The connections are closed; what is left should end promptly.
  if (all_returned.get_future().wait_for(3s) != std::future_status::ready) {
    spdlog::warn("Event loop still busy after shutdown; stopping it");
    io.stop();
  }
  for (auto& t : threads) t.join();
  spdlog::info("Highwater shut down");
  return 0;
}

}  // namespace
}  // namespace hw::broker

int main(int argc, char** argv) { return hw::broker::run(argc, argv); }
