#include "network_lab.h"

#include <signal.h>
#include <cerrno>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace hw::testing {
namespace {

struct command_result {
  int status = -1;
  std::string output;
};

// Runs `ip` with these arguments (all made by the lab; no user input).
command_result ip(const std::string& args) {
  command_result r;
  const std::string cmd = "ip " + args + " 2>&1";
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) r.output.append(buf, n);
  r.status = ::pclose(f);
  return r;
}

void must(const std::string& args) {
  auto r = ip(args);
  if (r.status != 0) throw std::runtime_error("network_lab: `ip " + args + "` failed: " + r.output);
}

bool process_alive(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// Namespaces and links of labs whose process is gone.
void remove_stale_labs() {
  const std::regex netns_name(R"(^hwlab(\d+)h\d+)");
  std::istringstream netns(ip("netns list").output);
  for (std::string line; std::getline(netns, line);) {
    std::smatch m;
    if (std::regex_search(line, m, netns_name) && !process_alive(std::stoi(m[1])))
      ip("netns del " + line.substr(0, line.find(' ')));
  }
  const std::regex link_name(R"(^\d+: (hwlab(\d+)[bv]\d*)[@:])");
  std::istringstream links(ip("-o link show").output);
  for (std::string line; std::getline(links, line);) {
    std::smatch m;
    if (std::regex_search(line, m, link_name) && !process_alive(std::stoi(m[2]))) ip("link del " + m[1].str());
  }
}

}  // namespace

std::optional<std::string> network_lab::unavailable() {
  if (::geteuid() != 0) return "network namespaces need root (CAP_NET_ADMIN)";
  if (ip("-V").status != 0) return "iproute2's `ip` is not installed";
  if (!std::filesystem::exists("/proc/self/ns/net")) return "this kernel has no network namespaces";
  return std::nullopt;
}

network_lab::network_lab(int hosts) : hosts_(hosts), pid_(static_cast<int>(::getpid())), netns_made_(hosts, false) {
  if (hosts < 1 || hosts > 200) throw std::invalid_argument("network_lab: 1 to 200 hosts");
  remove_stale_labs();
  // A /24 no interface of this namespace has yet.
  for (int attempt = 0; attempt < 256 && prefix_.empty(); ++attempt) {
    const int b = 200 + (pid_ / 256 + attempt) % 50;
    const int c = (pid_ + attempt) % 256;
    const std::string p = "10." + std::to_string(b) + "." + std::to_string(c) + ".";
    if (ip("-o addr show to " + p + "0/24").output.empty()) prefix_ = p;
  }
  if (prefix_.empty()) throw std::runtime_error("network_lab: no free /24 in 10.200.0.0/10");
  try {
    must("link add " + bridge() + " type bridge");
    bridge_made_ = true;
    must("addr add " + prefix_ + "1/24 dev " + bridge());
    must("link set " + bridge() + " up");
    for (int i = 0; i < hosts; ++i) {
      must("netns add " + netns(i));
      netns_made_[i] = true;
      must("link add " + veth(i) + " type veth peer name eth0 netns " + netns(i));
      must("link set " + veth(i) + " master " + bridge() + " up");
      must("-n " + netns(i) + " addr add " + address(i) + "/24 dev eth0");
      must("-n " + netns(i) + " link set eth0 up");
      must("-n " + netns(i) + " link set lo up");
    }
  } catch (...) {
    teardown();
    throw;
  }
}

network_lab::~network_lab() { teardown(); }

void network_lab::teardown() noexcept {
  for (int i = 0; i < hosts_; ++i) {
    if (!netns_made_[i]) continue;
    ip("netns del " + netns(i));  // takes its end of the veth, and so the pair
    netns_made_[i] = false;
  }
  if (bridge_made_) ip("link del " + bridge());
  bridge_made_ = false;
}

std::string network_lab::address(int host) const { return prefix_ + std::to_string(11 + host); }
std::string network_lab::netns(int host) const {
  return "hwlab" + std::to_string(pid_) + "h" + std::to_string(host);
}
std::string network_lab::bridge() const { return "hwlab" + std::to_string(pid_) + "b"; }
std::string network_lab::veth(int host) const { return "hwlab" + std::to_string(pid_) + "v" + std::to_string(host); }

void network_lab::cut(int a, int b) {
  if (a == b || is_cut(a, b)) return;
  must("-n " + netns(a) + " route add blackhole " + address(b) + "/32");
  must("-n " + netns(b) + " route add blackhole " + address(a) + "/32");
  cuts_.insert(ordered(a, b));
}

void network_lab::isolate(int host) {
  for (int other = 0; other < hosts_; ++other) cut(host, other);
}

void network_lab::heal(int a, int b) {
  if (!is_cut(a, b)) return;
  must("-n " + netns(a) + " route del blackhole " + address(b) + "/32");
  must("-n " + netns(b) + " route del blackhole " + address(a) + "/32");
  cuts_.erase(ordered(a, b));
}

void network_lab::heal(int host) {
  for (int other = 0; other < hosts_; ++other) heal(host, other);
}

void network_lab::heal_all() {
  for (int host = 0; host < hosts_; ++host) heal(host);
}

}  // namespace hw::testing
