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

#include <malloc.h>

#include <spdlog/spdlog.h>

#include "broker/asio.h"
#include "broker/command_line.h"
#include "broker/crash_handler.h"
#include "broker/logging.h"
#include "broker/listener/server.h"
#include "broker/node.h"
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

// Requests and fetch answers are buffers of up to a few MiB that come and go
// at the rate of the traffic, on every I/O thread. glibc's defaults hand the
// free top of a thread's arena back to the kernel past 128 KiB, so each
// buffer was paid again in page faults and zeroed pages (with the zeroing of
// the buffers themselves, about 13% of a replicating broker's CPU). Keep up
// to 64 MiB free instead. Setting the trim threshold turns off glibc's
// adaptive mmap threshold, which would otherwise have risen past these
// buffers' sizes; without the second setting every buffer above 128 KiB
// would be mapped and unmapped afresh.
void tune_allocator() {
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

int run(int argc, char** argv) {
  tune_allocator();
  install_crash_handler();
  if (const char* crash = std::getenv("HW_TEST_CRASH")) crash_if_requested(crash);
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
  if (cl.format) {
    if (auto error = format_storage(cfg, *cl.cluster_id, cl.ignore_formatted)) {
      std::fprintf(stderr, "highwater: %s\n", error->c_str());
      return 1;
    }
    return 0;
  }

  std::string roles;
  for (const auto& r : cfg.process_roles) roles += (roles.empty() ? "" : ",") + r;
  spdlog::info("Starting Highwater: node.id={}, process.roles={}, num.io.threads={}", cfg.node_id, roles,
               cfg.num_io_threads);

  broker_node node(cfg);
  if (auto error = node.start()) {
    spdlog::error("{}", *error);
    std::fprintf(stderr, "highwater: %s\n", error->c_str());
    return 1;
  }
  if (cl.port_file && !write_port_file(*cl.port_file, node.bound())) {
    spdlog::error("Cannot write the port file {}", *cl.port_file);
    return 1;
  }
  spdlog::info("Highwater started (node.id={})", cfg.node_id);
  node.run_until_signal();
  return 0;
}

}  // namespace
}  // namespace hw::broker

int main(int argc, char** argv) { return hw::broker::run(argc, argv); }
