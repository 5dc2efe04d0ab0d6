#include "schedule.h"

#include <random>
#include <sstream>

namespace hw::chaos {

namespace {

using std::chrono::milliseconds;

// Bounds of the draws, in milliseconds. A fault's length is long enough to
// matter (a killed or cut-off node drops out of the ISR after
// replica.lag.time.max.ms, 3 s in the chaos cluster; a paused one is fenced
// after broker.session.timeout.ms, 4 s, when it lasts that long) and short
// enough for producers' messages to outlive it; the quiet spell after each
// lets the node catch up and rejoin the ISR before the next fault.
struct range {
  int64_t lo, hi;
};
constexpr range k_first_fault{3000, 6000};
constexpr range k_quiet{4000, 10000};
range length_of(fault_kind k) {
  switch (k) {
    case fault_kind::kill: return {2000, 12000};
    case fault_kind::pause: return {1000, 8000};
    case fault_kind::restart: return {0, 5000};
    case fault_kind::isolate: return {3000, 12000};
    case fault_kind::cut: return {3000, 12000};
  }
  return {0, 0};
}

// Draws from the seed without <random>'s distributions, whose output
// differs between standard libraries.
class draws {
 public:
  explicit draws(uint64_t seed) : rng_(seed) {}
  uint64_t below(uint64_t n) { return rng_() % n; }
  int64_t within(range r) { return r.lo + static_cast<int64_t>(below(static_cast<uint64_t>(r.hi - r.lo + 1))); }

 private:
  std::mt19937_64 rng_;
};

// Kinds come out of a shuffled bag, refilled when empty, so that every kind
// turns up in any stretch of a few faults.
class kind_bag {
 public:
  kind_bag(draws& d, bool network) : d_(d) {
    for (auto k : k_fault_kinds)
      if (network || !is_network_fault(k)) kinds_.push_back(k);
  }
  fault_kind next() {
    if (left_.empty()) {
      left_ = kinds_;
      for (size_t i = left_.size(); i > 1; --i) std::swap(left_[i - 1], left_[d_.below(i)]);
    }
    auto k = left_.back();
    left_.pop_back();
    return k;
  }

 private:
  draws& d_;
  std::vector<fault_kind> kinds_;
  std::vector<fault_kind> left_;
};

// The active controller one time in three, else any node.
target draw_target(draws& d, int nodes) {
  if (d.below(3) == 0) return target{};
  return target{static_cast<int>(d.below(static_cast<uint64_t>(nodes)))};
}

// The other end of a cut: another node than `first` when that one is
// named; any node after the controller (the run takes another one if it
// turns out to be the controller itself).
target draw_other_end(draws& d, int nodes, const target& first) {
  if (first.controller()) return target{static_cast<int>(d.below(static_cast<uint64_t>(nodes)))};
  const int step = 1 + static_cast<int>(d.below(static_cast<uint64_t>(nodes - 1)));
  return target{(first.node + step) % nodes};
}

std::string name_of(const target& t) { return t.controller() ? "controller" : "n" + std::to_string(t.node + 1); }

std::optional<target> parse_target(const std::string& word, int nodes) {
  if (word == "controller") return target{};
  if (word.size() < 2 || word[0] != 'n') return std::nullopt;
  try {
    size_t used = 0;
    const int id = std::stoi(word.substr(1), &used);
    if (used != word.size() - 1 || id < 1 || id > nodes) return std::nullopt;
    return target{id - 1};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "1234ms" → 1234.
std::optional<milliseconds> parse_ms(const std::string& word) {
  if (word.size() < 3 || word.compare(word.size() - 2, 2, "ms") != 0) return std::nullopt;
  try {
    size_t used = 0;
    const long long v = std::stoll(word.substr(0, word.size() - 2), &used);
    if (used != word.size() - 2 || v < 0) return std::nullopt;
    return milliseconds(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<fault_kind> parse_kind(const std::string& word) {
  for (auto k : k_fault_kinds)
    if (word == to_string(k)) return k;
  return std::nullopt;
}

std::optional<fault> parse_fault(const std::string& line, int nodes) {
  std::istringstream in(line);
  std::string at_word, at_value, kind_word, first_word, second_word, for_word, length_value, rest;
  if (!(in >> at_word >> at_value >> kind_word >> first_word) || at_word != "at") return std::nullopt;
  auto kind = parse_kind(kind_word);
  if (!kind) return std::nullopt;
  if (*kind == fault_kind::cut && !(in >> second_word)) return std::nullopt;
  if (!(in >> for_word >> length_value) || for_word != "for" || (in >> rest)) return std::nullopt;
  fault f;
  f.kind = *kind;
  auto at = parse_ms(at_value);
  auto length = parse_ms(length_value);
  auto first = parse_target(first_word, nodes);
  if (!at || !length || !first) return std::nullopt;
  f.at = *at;
  f.length = *length;
  f.first = *first;
  if (*kind == fault_kind::cut) {
    auto second = parse_target(second_word, nodes);
    if (!second || *second == *first) return std::nullopt;
    f.second = *second;
  }
  return f;
}

}  // namespace

const char* to_string(fault_kind k) {
  switch (k) {
    case fault_kind::kill: return "kill";
    case fault_kind::pause: return "pause";
    case fault_kind::restart: return "restart";
    case fault_kind::isolate: return "isolate";
    case fault_kind::cut: return "cut";
  }
  return "?";
}

bool is_network_fault(fault_kind k) { return k == fault_kind::isolate || k == fault_kind::cut; }

schedule make_schedule(uint64_t seed, milliseconds duration, bool network, int nodes) {
  schedule s;
  s.seed = seed;
  s.duration = duration;
  s.nodes = nodes;
  s.network = network;
  draws d(seed);
  kind_bag kinds(d, network);
  milliseconds t(d.within(k_first_fault));
  for (;;) {
    fault f;
    f.at = t;
    f.kind = kinds.next();
    f.length = milliseconds(d.within(length_of(f.kind)));
    f.first = draw_target(d, nodes);
    if (f.kind == fault_kind::cut) f.second = draw_other_end(d, nodes, f.first);
    // Every fault is undone within the duration.
    if (f.at + f.length > duration) break;
    s.faults.push_back(f);
    t = f.at + f.length + milliseconds(d.within(k_quiet));
  }
  return s;
}

std::string to_text(const schedule& s) {
  std::ostringstream o;
  o << "chaos-schedule seed " << s.seed << " duration " << s.duration.count() << "ms nodes " << s.nodes
    << " network " << (s.network ? "on" : "off") << "\n";
  for (const auto& f : s.faults) {
    o << "at " << f.at.count() << "ms " << to_string(f.kind) << " " << name_of(f.first);
    if (f.kind == fault_kind::cut) o << " " << name_of(f.second);
    o << " for " << f.length.count() << "ms\n";
  }
  return o.str();
}

std::optional<schedule> parse_schedule(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string header;
  if (!std::getline(in, header)) return std::nullopt;
  std::istringstream h(header);
  std::string magic, seed_word, duration_word, duration_value, nodes_word, network_word, network_value, rest;
  schedule s;
  if (!(h >> magic >> seed_word >> s.seed >> duration_word >> duration_value >> nodes_word >> s.nodes >>
        network_word >> network_value) ||
      (h >> rest) || magic != "chaos-schedule" || seed_word != "seed" || duration_word != "duration" ||
      nodes_word != "nodes" || network_word != "network" || (network_value != "on" && network_value != "off") ||
      s.nodes < 2)
    return std::nullopt;
  auto duration = parse_ms(duration_value);
  if (!duration) return std::nullopt;
  s.duration = *duration;
  s.network = network_value == "on";
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto f = parse_fault(line, s.nodes);
    if (!f || (!s.network && is_network_fault(f->kind))) return std::nullopt;
    s.faults.push_back(*f);
  }
  return s;
}

}  // namespace hw::chaos
