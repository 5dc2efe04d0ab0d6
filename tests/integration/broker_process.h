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

class broker_process;

// Ports known before the processes start. Client listeners bind port 0 and
// report the port through --port-file, but the voters' controller
// listeners must be named in controller.quorum.voters beforehand. A
// loopback port free when chosen can be taken before the broker binds it
// (by another test's listener, or as the ephemeral port of any outgoing
// connection on the machine), and the broker then exits with "Address
// already in use". So tests never pick such ports themselves: they go
// through start_on_fresh_ports(), which picks n ports free right now, runs
// `attempt` with them (start every process, building the voter string from
// those ports), and when a process lost one of its ports that way the
// attempt reports port_taken (see started_or_port_taken()) and everything
// is tried again with n fresh ports, hence one new voter string that every
// node shares. Returns the ports of the attempt that started, nothing when
// an attempt failed otherwise or every try lost a race.
enum class start_outcome { started, port_taken, failed };
using start_attempt = std::function<start_outcome(const std::vector<uint16_t>& ports)>;
std::optional<std::vector<uint16_t>> start_on_fresh_ports(size_t n, const start_attempt& attempt, int tries = 5);
// What an attempt returns: started when `all_started`; else port_taken
// (after SIGKILLing every one of `nodes` still running, so that the next
// try starts clean) when one of them exited on a port taken meanwhile;
// else failed.
start_outcome started_or_port_taken(bool all_started, const std::vector<broker_process*>& nodes);
// Starts `b` as a one-node cluster whose controller listener is on a port
// of its own (CONTROLLER://127.0.0.1:P, the voter 1@127.0.0.1:P) beside its
// client listener, with these extra arguments; the controller listener's
// port, or nothing when it did not start.
std::optional<uint16_t> start_with_controller_listener(broker_process& b, const std::vector<std::string>& extra = {});
// A loopback port the kernel calls free right now (0 if none), for what
// start_on_fresh_ports cannot drive: a process of someone else's that
// binds it later (Apache Kafka in tests/differential), whose caller
// retries when the port was taken meanwhile.
uint16_t kernel_port();

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

  // Later starts run the process in this network namespace (a
  // network_lab host), reached at `host`; empty: the test's own namespace,
  // reached at 127.0.0.1.
  void set_netns(const std::string& netns, const std::string& host) {
    netns_ = netns;
    host_ = host;
  }
  const std::string& host() const { return host_; }
  uint16_t port(const std::string& listener = "PLAINTEXT") const;
  const std::map<std::string, uint16_t>& ports() const { return ports_; }
  pid_t pid() const { return pid_; }
  bool running();

  // Sends sig and waits for the exit; returns the exit code (or -signal).
  std::optional<int> stop(int sig, std::chrono::milliseconds timeout = 10s);
  std::string log() const;
  // True when the last run exited because a port it was to bind was taken.
  bool lost_port_race();
  const std::string& dir() const { return dir_; }
  // Virtual memory size of the process in KiB (VmSize), 0 if unknown.
  long vm_size_kib() const;

 private:
  void spawn(const std::vector<std::string>& args);
  std::optional<int> reap(std::chrono::milliseconds timeout);

  std::string dir_;
  std::string log_path_;
  std::string port_file_;
  size_t log_start_ = 0;  // where the last run's output begins
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::map<std::string, uint16_t> ports_;
  std::string netns_;
  std::string host_ = "127.0.0.1";
};

}  // namespace hw::testing
