#include "broker_process.h"

#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace hw::testing {

uint16_t kernel_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::optional<std::vector<uint16_t>> start_on_fresh_ports(size_t n, const start_attempt& attempt, int tries) {
  for (int t = 0; t < tries; ++t) {
    std::vector<uint16_t> ports;
    while (ports.size() < n) {
      uint16_t p = kernel_port();
      if (p == 0) return std::nullopt;
      if (std::find(ports.begin(), ports.end(), p) == ports.end()) ports.push_back(p);
    }
    switch (attempt(ports)) {
      case start_outcome::started: return ports;
      case start_outcome::failed: return std::nullopt;
      case start_outcome::port_taken: break;
    }
  }
  return std::nullopt;
}

start_outcome started_or_port_taken(bool all_started, const std::vector<broker_process*>& nodes) {
  if (all_started) return start_outcome::started;
  bool lost = false;
  for (auto* n : nodes) lost = n->lost_port_race() || lost;
  if (!lost) return start_outcome::failed;
  for (auto* n : nodes)
    if (n->running()) n->stop(SIGKILL);
  return start_outcome::port_taken;
}

std::optional<uint16_t> start_with_controller_listener(broker_process& b, const std::vector<std::string>& extra) {
  auto chosen = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
    const std::string controller = "127.0.0.1:" + std::to_string(ports[0]);
    std::vector<std::string> args{"--override", "listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://" + controller,
                                  "--override", "controller.listener.names=CONTROLLER",
                                  "--override", "controller.quorum.voters=1@" + controller};
    args.insert(args.end(), extra.begin(), extra.end());
    return started_or_port_taken(b.start(args), {&b});
  });
  if (!chosen) return std::nullopt;
  return chosen->at(0);
}

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
}

broker_process::broker_process() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hw-it-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  log_path_ = dir_ + "/highwater.log";
  port_file_ = dir_ + "/ports";
}

broker_process::~broker_process() {
  if (pid_ > 0 && !exit_code_) {
    kill(pid_, SIGKILL);
    reap(5s);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

namespace {
// HW_TEST_BINARY runs the tests against another highwater (e.g. a build of
// an older commit, to see a test fail before its fix).
std::string binary_path() {
  const char* other = std::getenv("HW_TEST_BINARY");
  return other && *other ? other : HW_BINARY;
}
}  // namespace

void broker_process::spawn(const std::vector<std::string>& args) {
  const std::string binary = binary_path();
  std::vector<std::string> argv_s{binary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::error_code size_error;
  const auto size = std::filesystem::file_size(log_path_, size_error);
  log_start_ = size_error ? 0 : static_cast<size_t>(size);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addchdir_np(&fa, dir_.c_str());
  int rc = 0;
  if (netns_.empty()) {
    rc = posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argv.data(), environ);
  } else {
    // A child starts in its parent thread's network namespace: a thread of
    // its own enters the lab host's namespace and spawns from there.
    std::thread in_netns([&] {
      const std::string path = "/var/run/netns/" + netns_;
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
        rc = errno;
        if (fd >= 0) ::close(fd);
        return;
      }
      ::close(fd);
      rc = posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argv.data(), environ);
    });
    in_netns.join();
  }
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot spawn " + binary + (netns_.empty() ? "" : " in " + netns_));
  exit_code_.reset();
}

bool broker_process::start(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  std::vector<std::string> all{"--override", "listeners=PLAINTEXT://127.0.0.1:0", "--port-file", port_file_};
  all.insert(all.end(), args.begin(), args.end());
  // A restart must not read the ports of the previous run.
  std::filesystem::remove(port_file_);
  ports_.clear();
  spawn(all);
  bool up = wait_until([&] { return std::filesystem::exists(port_file_) || !running(); }, timeout);
  if (!up || !running()) return false;
  std::ifstream in(port_file_);
  std::string line;
  while (std::getline(in, line)) {
    auto scheme = line.find("://");
    auto colon = line.rfind(':');
    if (scheme == std::string::npos || colon == std::string::npos) continue;
    ports_[line.substr(0, scheme)] = static_cast<uint16_t>(std::stoi(line.substr(colon + 1)));
  }
  return !ports_.empty();
}

std::optional<int> broker_process::run_to_exit(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  spawn(args);
  return reap(timeout);
}

uint16_t broker_process::port(const std::string& listener) const {
  auto it = ports_.find(listener);
  return it == ports_.end() ? 0 : it->second;
}

std::optional<int> broker_process::reap(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  if (pid_ <= 0) return std::nullopt;
  wait_until(
      [&] {
        int status = 0;
        pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        return exit_code_.has_value();
      },
      timeout);
  return exit_code_;
}

bool broker_process::running() {
  if (pid_ <= 0 || exit_code_) return false;
  return !reap(0ms).has_value();
}

std::optional<int> broker_process::stop(int sig, std::chrono::milliseconds timeout) {
  if (pid_ > 0 && !exit_code_) kill(pid_, sig);
  return reap(timeout);
}

std::string broker_process::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool broker_process::lost_port_race() {
  if (running()) return false;
  const std::string all = log();
  return all.find("Address already in use", std::min(log_start_, all.size())) != std::string::npos;
}

long broker_process::vm_size_kib() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmSize:") {
      long kib = 0;
      in >> kib;
      return kib;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return 0;
}

}  // namespace hw::testing
