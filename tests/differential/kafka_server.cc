#include "kafka_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "broker_process.h"

namespace hw::testing::differential {
namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string tail_of(const std::string& path, size_t bytes) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

// Runs a shell command; its exit code (-1 if it did not exit normally).
int run(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether a listener could bind port now. With SO_REUSEADDR, as Java's
// server sockets bind: a port that only closed connections (TIME_WAIT)
// still hold is free for a listener.
bool bindable(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

// A port p with p and p + 1 (Kafka's PLAINTEXT and CONTROLLER listeners)
// and p + 3 ... p + 2 + extra free right now; Kafka's script binds them
// itself, and a start that loses one to another process is retried on new
// ports. 0 if none.
uint16_t free_ports(size_t extra) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    uint16_t p = kernel_port();
    if (p == 0 || p > 65535 - 3 - extra) continue;
    // Only p was chosen by the kernel: probe the others by binding them.
    bool ok = bindable(static_cast<uint16_t>(p + 1));
    for (size_t i = 0; ok && i < extra; ++i) ok = bindable(static_cast<uint16_t>(p + 3 + i));
    if (ok) return p;
  }
  return 0;
}

}  // namespace

kafka_server::kafka_server() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hw-diff-kafka-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
}

kafka_server::~kafka_server() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

bool kafka_server::start(const std::string& extra_props, const std::vector<std::string>& extra_listeners) {
  std::string listeners;
  for (const auto& l : extra_listeners) listeners += (listeners.empty() ? "" : ",") + l;
  if (run("java -version >/dev/null 2>&1") != 0) {
    error_ = "java is not installed: the differential tests need Java 17+ to run Apache Kafka";
    return false;
  }
  error_.clear();
  for (int attempt = 0; attempt < 4; ++attempt) {
    uint16_t p = free_ports(extra_listeners.size());
    if (p == 0) {
      error_ += "no run of free ports for Kafka's listeners\n";
      continue;
    }
    if (start_once(extra_props, listeners, p)) return true;
  }
  return false;
}

bool kafka_server::start_once(const std::string& extra_props, const std::string& extra_listeners, uint16_t port) {
  const std::string script = HW_SOURCE_DIR "/scripts/kafka-server.sh";
  const std::string log = dir_ + "/start.log";
  // A previous attempt may have left formatted storage with other ports in
  // its properties: start from an empty directory each time.
  std::error_code ec;
  std::filesystem::remove_all(dir_ + "/data", ec);
  std::string cmd = "HW_KAFKA_EXTRA_PROPS=" + quote(extra_props) + " HW_KAFKA_EXTRA_LISTENERS=" +
                    quote(extra_listeners) + " HW_KAFKA_START_TIMEOUT=150 timeout -k 10 200 " +
                    quote(script) + " start " + quote(dir_) + " " + std::to_string(port) + " >" + quote(log) + " 2>&1";
  if (run(cmd) == 0) {
    port_ = port;
    running_ = true;
    return true;
  }
  error_ += "kafka-server.sh start on port " + std::to_string(port) + " failed:\n" + tail_of(log, 3000) +
            "\n--- kafka.log ---\n" + tail_of(dir_ + "/kafka.log", 3000) + "\n";
  run(quote(script) + " stop " + quote(dir_) + " >/dev/null 2>&1");
  return false;
}

void kafka_server::stop() {
  if (!running_) return;
  running_ = false;
  run("HW_KAFKA_STOP_TIMEOUT=20 " + quote(HW_SOURCE_DIR "/scripts/kafka-server.sh") + " stop " + quote(dir_) +
      " >/dev/null 2>&1");
}

}  // namespace hw::testing::differential
