#pragma once
// A highwater process for a test: started with its own temporary directory,
// listening on 127.0.0.1 port 0 unless told otherwise, its bound ports read
// from --port-file, its output captured in a log file. Every wait has a
// deadline; nothing sleeps for a fixed time.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hw::testing {

using namespace std::chrono_literals;

// Polls pred every few milliseconds until it holds or the timeout passes.
bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout);
// A loopback TCP port free right now, for a listener whose port must be
// known before the process starts (controller.quorum.voters); 0 if none.
uint16_t free_port();

class broker_process {
 public:
  broker_process();
  ~broker_process();  // SIGKILLs the process if still running, removes the directory

  // Starts highwater with these extra arguments (after the default
  // listeners override and --port-file). Returns false if it exited or did
  // not write its port file in time.
  bool start(const std::vector<std::string>& args = {}, std::chrono::milliseconds timeout = 20s);
  // Starts highwater with exactly these arguments and waits for it to exit.
  // Returns its exit code (or -signal), nullopt on timeout.
  std::optional<int> run_to_exit(const std::vector<std::string>& args, std::chrono::milliseconds timeout = 20s);

  uint16_t port(const std::string& listener = "PLAINTEXT") const;
  const std::map<std::string, uint16_t>& ports() const { return ports_; }
  pid_t pid() const { return pid_; }
  bool running();

  // Sends sig and waits for the exit; returns the exit code (or -signal).
  std::optional<int> stop(int sig, std::chrono::milliseconds timeout = 10s);
  std::string log() const;
  const std::string& dir() const { return dir_; }
  // Virtual memory size of the process in KiB (VmSize), 0 if unknown.
  long vm_size_kib() const;

 private:
  void spawn(const std::vector<std::string>& args);
  std::optional<int> reap(std::chrono::milliseconds timeout);

  std::string dir_;
  std::string log_path_;
  std::string port_file_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::map<std::string, uint16_t> ports_;
};

}  // namespace hw::testing
