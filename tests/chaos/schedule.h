#pragma once
// A chaos run's faults, drawn from a seed: when each begins (from the start
// of the faults), how long it lasts before it is undone, what it does and
// to which node. One fault at a time, each undone (node restarted or
// resumed, links healed) and followed by a quiet spell before the next, so
// that two of the three nodes can always make progress and the cluster
// recovers between faults. The same seed, duration and network setting
// give the same schedule anywhere (std::mt19937_64's output is fixed by the
// standard; the ranges are drawn without <random>'s distributions, which
// are not); a schedule prints as text and parses back, so a failing run's
// schedule can be replayed, or edited and replayed.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hw::chaos {

enum class fault_kind {
  kill,     // SIGKILL; started again when the fault ends
  pause,    // SIGSTOP; SIGCONT when the fault ends
  restart,  // SIGTERM (a controlled shutdown); started again when the fault ends
  isolate,  // every link between the node and the others cut; healed when the fault ends
  cut,      // the link between two nodes cut; healed when the fault ends
};
inline constexpr fault_kind k_fault_kinds[] = {fault_kind::kill, fault_kind::pause, fault_kind::restart,
                                                fault_kind::isolate, fault_kind::cut};
const char* to_string(fault_kind k);
bool is_network_fault(fault_kind k);

// A node (0-based index) or the active controller, which the run resolves
// when the fault begins.
struct target {
  static constexpr int k_controller = -1;
  int node = k_controller;
  bool controller() const { return node == k_controller; }
  bool operator==(const target&) const = default;
};

struct fault {
  std::chrono::milliseconds at{0};      // when it begins, from the start of the faults (at the earliest)
  std::chrono::milliseconds length{0};  // how long it lasts, from when it began
  fault_kind kind = fault_kind::kill;
  target first;
  target second;  // the other end of a cut; unused otherwise
  bool operator==(const fault&) const = default;
};

struct schedule {
  uint64_t seed = 0;
  std::chrono::milliseconds duration{0};
  int nodes = 3;
  bool network = true;  // false: process faults only (no network lab on this machine)
  std::vector<fault> faults;
  bool operator==(const schedule&) const = default;
};

schedule make_schedule(uint64_t seed, std::chrono::milliseconds duration, bool network, int nodes = 3);

// One header line, then one line per fault:
//   chaos-schedule seed 7 duration 60000ms nodes 3 network on
//   at 4210ms kill n2 for 6120ms
//   at 17003ms cut controller n3 for 4000ms
// Nodes are named by node.id (index + 1).
std::string to_text(const schedule& s);
// Nothing when the text is not a schedule as to_text writes it.
std::optional<schedule> parse_schedule(std::string_view text);

}  // namespace hw::chaos
