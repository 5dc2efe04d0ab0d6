#pragma once
// Hosts on a private network for tests that cut links: each host is a
// network namespace with one veth into a bridge that this lab creates in the
// test's own namespace, on a /24 of 10.0.0.0/8 picked for this process. The
// test process itself sits on the bridge (address .1) and reaches every
// host at any time; cuts only ever separate hosts from each other.
//
// A cut is a pair of blackhole routes (a → b in a's namespace, b → a in
// b's): packets are dropped silently, as on a partitioned network, so open
// connections hang until their timeouts rather than being reset. Healing
// deletes the routes and the connections carry on.
//
// Only what the lab made is touched: namespaces named hwlab<pid>h<i>, the
// bridge hwlab<pid>b and its veths. The destructor removes them; a lab
// whose process died without cleaning up is removed by the next lab.
//
// Needs root (CAP_NET_ADMIN) and iproute2: available() says whether this
// machine can run it, so a test can skip with the reason.

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hw::testing {

class network_lab {
 public:
  // Why no lab can be made here, or nothing when one can.
  static std::optional<std::string> unavailable();

  // Creates `hosts` namespaces, all connected. Throws std::runtime_error
  // naming the failed command.
  explicit network_lab(int hosts);
  ~network_lab();
  network_lab(const network_lab&) = delete;
  network_lab& operator=(const network_lab&) = delete;

  int hosts() const { return hosts_; }
  // The address of host i (0-based), e.g. "10.201.17.11".
  std::string address(int host) const;
  // The namespace's name, for broker_process::set_netns and `ip netns exec`.
  std::string netns(int host) const;

  // Drops every packet between a and b, both ways.
  void cut(int a, int b);
  // Cuts host from every other host (the test still reaches it).
  void isolate(int host);
  // Restores the link between a and b.
  void heal(int a, int b);
  // Restores every link of host.
  void heal(int host);
  // Restores every link.
  void heal_all();
  bool is_cut(int a, int b) const { return cuts_.count(ordered(a, b)) > 0; }

 private:
  static std::pair<int, int> ordered(int a, int b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }
  std::string bridge() const;
  std::string veth(int host) const;
  void teardown() noexcept;

  int hosts_;
  int pid_;
  std::string prefix_;  // "10.x.y."
  std::set<std::pair<int, int>> cuts_;
  bool bridge_made_ = false;
  std::vector<bool> netns_made_;
};

}  // namespace hw::testing
