#pragma once
// A seeded, single-threaded simulation of a KRaft quorum built from
// raft_core: voters and observers, a network that drops, delays, duplicates,
// reorders and partitions messages, crashes and restarts (a restarted node
// keeps exactly its durable quorum-state and its log up to the last fsync),
// a simulated clock, and random proposals at leaders. With `dynamic`, the
// quorum keeps its voters in the log (KIP-853) and leaders add and remove
// voters at random, racing elections, crashes and partitions. Everything
// random comes from one seed, so a failing seed replays exactly.
//
// The checker runs after every step:
//   - at most one leader per epoch, ever;
//   - a committed entry never changes: every node's log below its high
//     watermark matches one global committed log (so every node's committed
//     log is a prefix of every other's), no node truncates below its high
//     watermark, and every new leader holds the whole committed log;
//   - a node's high watermark never decreases while it is up and never
//     exceeds its log end;
//   - after the network heals and every node is back, a leader commits an
//     entry of its own epoch within 10 election timeouts.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "controller/raft/raft_core.h"
#include "tests/support/sim_rng.h"

namespace hw::controller::raft::sim {

using rng = hw::testing::sim_rng;  // seeded: a failing seed replays exactly

struct config {
  int voters = 3;
  int observers = 1;
  uint64_t seed = 0;
  int64_t step_ms = 5;
  int64_t chaos_ms = 6000;  // faults happen during this time, then everything heals
  int64_t election_timeout_ms = 200;
  int64_t fetch_timeout_ms = 400;
  int64_t request_timeout_ms = 100;
  int64_t max_delay_ms = 20;
  double p_drop = 0.1;
  double p_duplicate = 0.05;
  double p_propose = 0.2;        // per step, at the leader
  double p_crash = 0.008;        // per step
  double p_partition = 0.005;    // per step, when healed
  double p_heal = 0.008;         // per step, when partitioned
  double p_resign = 0.002;       // per step, at the leader
  double p_flush = 0.3;          // per node per step
  double p_snapshot = 0.005;     // per node per step: compact up to its high watermark
  bool dynamic = false;          // voters in the log (KIP-853), changed by leaders
  double p_membership = 0.01;    // per step, at the leader of a dynamic quorum
  unsafe_test_switches unsafe;   // applied to every node
  bool trace = false;
};

struct outcome {
  bool ok = true;
  std::string failure;  // what, when
  int64_t elections = 0;
  int64_t commits = 0;  // committed offset at the end
  int64_t snapshot_installs = 0;  // followers that copied a leader's snapshot
  int64_t voter_changes = 0;      // voter changes accepted by leaders (dynamic)
};

class simulation {
 public:
  explicit simulation(config c) : cfg_(c), rng_(c.seed) {
    for (int i = 1; i <= cfg_.voters; ++i) voters_.push_back(node_id{i});
    for (node_id v : voters_) initial_voters_ = initial_voters_.with(voter_of(v));
    for (int i = 0; i < cfg_.voters + cfg_.observers; ++i) {
      nodes_.push_back(node{});
      nodes_.back().id = node_id{i + 1};
      start(nodes_.back());
    }
  }

  outcome run() {
    int64_t heal_at = cfg_.chaos_ms;
    int64_t live_by = heal_at + 10 * cfg_.election_timeout_ms;
    offset committed_at_heal{-1};
    while (out_.ok) {
      now_ += cfg_.step_ms;
      ++step_;
      bool chaos = now_ < heal_at;
      if (!chaos && !healed_) {
        heal();
        committed_at_heal = committed_end_;
      }
      deliver_due();
      for (auto& n : nodes_) {
        if (!n.core) continue;
        n.core->tick(now_);
        process(n);
      }
      if (chaos) faults();
      clients();
      flushes();
      snapshots();
      if (!out_.ok) break;
      if (!chaos && leader_committed_own_epoch(committed_at_heal)) break;
      if (now_ >= live_by) {
        fail("no leader committed an entry of its epoch within 10 election timeouts after healing" + describe());
      }
    }
    out_.commits = committed_end_.value;
    return out_;
  }

 private:
  struct node {
    node_id id = no_node;
    std::unique_ptr<raft_core> core;  // null while crashed
    persistent_state durable_state;
    std::vector<log_entry> disk;  // written; durable up to synced_end
    offset synced_end{0};
    snapshot_id snapshot;  // durable
    snapshot_payload snapshot_bytes;
    int64_t restart_at = -1;
    offset last_hw{0};
    role last_role = role::unattached;  // for the trace
    epoch last_epoch{0};
  };
  struct in_flight {
    node_id from;
    node_id to;
    message body;
  };

  void trace(const std::string& s) {
    if (cfg_.trace) std::fprintf(stderr, "t=%lld %s\n", static_cast<long long>(now_), s.c_str());
  }
  void fail(const std::string& what) {
    if (!out_.ok) return;
    out_.ok = false;
    std::ostringstream o;
    o << "seed " << cfg_.seed << " step " << step_ << " t=" << now_ << "ms: " << what;
    out_.failure = o.str();
  }

  std::string describe() const {
    std::ostringstream o;
    for (const auto& n : nodes_) {
      o << "\n  node " << n.id << ": ";
      if (!n.core) {
        o << "down";
        continue;
      }
      const raft_core& c = *n.core;
      o << role_name(c.current_role()) << " epoch " << c.current_epoch() << " leader " << c.leader_id() << " voted "
        << c.voted_id() << " log [" << c.log().start_offset() << ", " << c.log().end_offset() << ") last epoch "
        << c.log().last_epoch() << " durable " << c.durable_end() << " hw " << c.high_watermark() << "; disk end "
        << (n.disk.empty() ? n.snapshot.end_offset : n.disk.back().end_offset()) << " synced " << n.synced_end;
      if (cfg_.dynamic) {
        o << "; voters";
        for (node_id v : c.voters().ids()) o << ' ' << v;
      }
    }
    return o.str();
  }

  static protocol::uuid directory(node_id id) {
    protocol::uuid u;
    u.bytes[0] = 0x40;
    u.bytes[15] = static_cast<uint8_t>(id.value);
    return u;
  }
  static voter voter_of(node_id id) {
    voter v;
    v.id = id;
    v.directory_id = directory(id);
    return v;
  }
  // A VotersRecord here: the voter ids, a byte each.
  static std::vector<uint8_t> encode_voters(const voter_set& s) {
    std::vector<uint8_t> out;
    for (const auto& v : s.voters) out.push_back(static_cast<uint8_t>(v.id.value));
    return out;
  }
  static voter_set decode_voters(const std::vector<uint8_t>& bytes) {
    voter_set s;
    for (uint8_t id : bytes) s = s.with(voter_of(node_id{id}));
    return s;
  }
  // The voter set a snapshot (serialized entries) ends with: its last
  // KRaftVoters entry's, or the initial one.
  std::optional<voter_set> snapshot_voters(const std::vector<uint8_t>& bytes) const {
    voter_set out = initial_voters_;
    size_t at = 0;
    auto get = [&](int n) {
      int64_t v = 0;
      for (int i = 0; i < n; ++i) v |= static_cast<int64_t>(bytes[at++]) << (8 * i);
      return v;
    };
    while (at < bytes.size()) {
      at += 12;
      const int64_t kind = get(1), count = get(4);
      std::vector<uint8_t> last;
      for (int64_t i = 0; i < count; ++i) {
        const int64_t size = get(4);
        last.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(at + size));
        at += static_cast<size_t>(size);
      }
      if (kind == 2) out = decode_voters(last);
    }
    return out;
  }

  void start(node& n) {
    raft_options o;
    o.self = n.id;
    if (!cfg_.dynamic) o.voters = voters_;
    o.directory_id = directory(n.id);
    o.bootstrap = voters_;
    o.voters_record = encode_voters;
    o.snapshot_voters = [this](const std::vector<uint8_t>& b) { return snapshot_voters(b); };
    o.election_timeout_ms = cfg_.election_timeout_ms;
    o.fetch_timeout_ms = cfg_.fetch_timeout_ms;
    o.request_timeout_ms = cfg_.request_timeout_ms;
    o.fetch_max_records = 32;
    o.fetch_snapshot_max_bytes = 1024;  // several chunks per snapshot
    o.random = [this](int64_t lo, int64_t hi) { return rng_.uniform(lo, hi); };
    o.unsafe = cfg_.unsafe;
    raft_disk_state d{n.durable_state, n.snapshot, n.snapshot_bytes, n.disk};
    if (cfg_.dynamic) d.snapshot_voters = n.snapshot_bytes ? snapshot_voters(*n.snapshot_bytes) : initial_voters_;
    n.core = std::make_unique<raft_core>(std::move(o), std::move(d), now_);
    n.last_hw = n.core->high_watermark();
    process(n);
  }

  void crash(node& n) {
    trace("crash " + std::to_string(n.id.value));
    n.core.reset();
    // What was written but not fsynced is gone (whole batches).
    std::erase_if(n.disk, [&](const log_entry& e) { return e.end_offset() > n.synced_end; });
    n.restart_at = now_ + rng_.uniform(50, 1500);
  }

  // The driver: state first, then the log, then the messages.
  void process(node& n) {
    while (n.core && n.core->has_ready()) {
      ready r = n.core->take_ready();
      if (r.state) n.durable_state = *r.state;
      if (r.install_snapshot) {
        const auto& [id, bytes] = *r.install_snapshot;
        if (id.end_offset > committed_end_ || *bytes != serialize_committed(id.end_offset)) {
          fail("node " + std::to_string(n.id.value) + " installs a snapshot that is not the committed log up to " +
               std::to_string(id.end_offset.value));
        }
        trace("node " + std::to_string(n.id.value) + " installs snapshot at " + std::to_string(id.end_offset.value));
        ++out_.snapshot_installs;
        n.snapshot = id;
        n.snapshot_bytes = bytes;
        n.disk.clear();
        n.synced_end = id.end_offset;
      }
      if (r.truncate_to) {
        if (*r.truncate_to < n.core->high_watermark()) {
          fail("node " + std::to_string(n.id.value) + " truncates to " + std::to_string(r.truncate_to->value) +
               " below its high watermark " + std::to_string(n.core->high_watermark().value));
        }
        trace("node " + std::to_string(n.id.value) + " truncates to " + std::to_string(r.truncate_to->value));
        std::erase_if(n.disk, [&](const log_entry& e) { return e.base_offset >= *r.truncate_to; });
        n.synced_end = std::min(n.synced_end, *r.truncate_to);
      }
      for (auto& e : r.entries) n.disk.push_back(std::move(e));
      for (auto& m : r.messages) send(n.id, std::move(m));
    }
    if (n.core) check(n);
  }

  bool connected(node_id a, node_id b) const { return !partitioned_ || side_.at(a) == side_.at(b); }

  void send(node_id from, outbound m) {
    if (!connected(from, m.to) || rng_.chance(cfg_.p_drop)) return;
    int copies = rng_.chance(cfg_.p_duplicate) ? 2 : 1;
    for (int i = 0; i < copies; ++i) {
      int64_t at = now_ + rng_.uniform(1, cfg_.max_delay_ms + 1);
      net_.emplace(std::pair{at, seq_++}, in_flight{from, m.to, m.body});
    }
  }

  void deliver_due() {
    while (!net_.empty() && net_.begin()->first.first <= now_) {
      in_flight m = std::move(net_.begin()->second);
      net_.erase(net_.begin());
      node& to = nodes_[static_cast<size_t>(m.to.value - 1)];
      if (!to.core || !connected(m.from, m.to)) continue;
      to.core->receive(m.from, m.body);
      process(to);
    }
  }

  void faults() {
    if (rng_.chance(cfg_.p_crash)) {
      node& n = nodes_[static_cast<size_t>(rng_.uniform(0, static_cast<int64_t>(nodes_.size())))];
      if (n.core) crash(n);
    }
    for (auto& n : nodes_) {
      if (!n.core && n.restart_at <= now_) {
        trace("restart " + std::to_string(n.id.value));
        start(n);
      }
    }
    if (!partitioned_ && rng_.chance(cfg_.p_partition)) {
      partitioned_ = true;
      for (auto& n : nodes_) side_[n.id] = static_cast<int>(rng_.uniform(0, 2));
      trace("partition");
    } else if (partitioned_ && rng_.chance(cfg_.p_heal)) {
      partitioned_ = false;
      trace("heal partition");
    }
  }

  void heal() {
    healed_ = true;
    partitioned_ = false;
    cfg_.p_drop = 0;
    cfg_.p_duplicate = 0;
    cfg_.max_delay_ms = std::min<int64_t>(cfg_.max_delay_ms, 20);
    cfg_.p_flush = std::max(cfg_.p_flush, 0.3);  // disks are healthy again too
    for (auto& n : nodes_) {
      if (!n.core) start(n);
    }
    trace("heal all");
  }

  void clients() {
    for (auto& n : nodes_) {
      if (!n.core || n.core->current_role() != role::leader) continue;
      if (rng_.chance(cfg_.p_propose)) {
        std::vector<std::vector<uint8_t>> records;
        int count = static_cast<int>(rng_.uniform(1, 4));
        for (int i = 0; i < count; ++i) {
          uint64_t v = next_value_++;
          records.push_back(std::vector<uint8_t>{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                                                 static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(n.id.value)});
        }
        n.core->propose(std::move(records));
      }
      if (cfg_.dynamic && now_ < cfg_.chaos_ms && rng_.chance(cfg_.p_membership)) change_voters(n);
      if (now_ < cfg_.chaos_ms && rng_.chance(cfg_.p_resign)) {
        trace("resign " + std::to_string(n.id.value));
        n.core->resign();
      }
      process(n);
    }
  }

  // A random node joins or leaves the voters, or a voter's entry is updated
  // (its add is checked at once: the driver's ApiVersions step always
  // answers here).
  void change_voters(node& leader) {
    const node_id id{static_cast<int32_t>(rng_.uniform(1, static_cast<int64_t>(nodes_.size()) + 1))};
    raft_core& c = *leader.core;
    voter_change r;
    if (c.voters().contains(id) && rng_.chance(0.3)) {
      // A voter that moved: its entry rewritten with a new endpoint.
      voter moved = voter_of(id);
      moved.endpoints = {{"CONTROLLER", "127.0.0.1", static_cast<uint16_t>(rng_.uniform(1, 60000))}};
      r = c.update_voter(moved, "CONTROLLER");
    } else if (c.voters().contains(id)) {
      r = c.remove_voter(id, directory(id));
    } else {
      r = c.begin_add_voter(voter_of(id));
      if (r.error == protocol::error_code::none) r = c.finish_add_voter(voter_of(id));
    }
    if (r.error == protocol::error_code::none) {
      ++out_.voter_changes;
      trace("node " + std::to_string(leader.id.value) + " changes voter " + std::to_string(id.value) + " at " +
            std::to_string(r.entry.value));
    }
  }

  static void serialize(const log_entry& e, std::vector<uint8_t>& out) {
    auto put = [&out](int64_t v, int bytes) {
      for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    };
    put(e.base_offset.value, 8);
    put(e.leader_epoch.value, 4);
    put(e.voters ? 2 : e.control ? 1 : 0, 1);
    put(static_cast<int64_t>(e.records.size()), 4);
    for (const auto& r : e.records) {
      put(static_cast<int64_t>(r.size()), 4);
      out.insert(out.end(), r.begin(), r.end());
    }
  }
  std::vector<uint8_t> serialize_committed(offset end) const {
    std::vector<uint8_t> out;
    for (const auto& [base, e] : committed_) {
      if (e.end_offset() > end) break;
      serialize(e, out);
    }
    return out;
  }

  // A node snapshots its committed state (here: its committed entries) and
  // lets the core drop the log behind it.
  void snapshots() {
    for (auto& n : nodes_) {
      if (!n.core || !rng_.chance(cfg_.p_snapshot)) continue;
      const raft_core& c = *n.core;
      offset hw = std::min(c.high_watermark(), c.durable_end());
      if (hw <= c.log().start_offset()) continue;
      std::vector<uint8_t> bytes = n.snapshot_bytes ? *n.snapshot_bytes : std::vector<uint8_t>{};
      for (const log_entry& e : c.log().entries()) {
        if (e.end_offset() > hw) break;
        serialize(e, bytes);
      }
      // The last batch wholly below hw ends the snapshot.
      offset end = c.log().start_offset();
      for (const log_entry& e : c.log().entries()) {
        if (e.end_offset() > hw) break;
        end = e.end_offset();
      }
      if (end == c.log().start_offset()) continue;
      snapshot_id id{end, c.log().epoch_at(end - 1)};
      auto payload = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
      if (!n.core->compact(id, payload)) {
        fail("node " + std::to_string(n.id.value) + " refused a snapshot at " + std::to_string(end.value));
        return;
      }
      n.snapshot = id;
      n.snapshot_bytes = payload;
      std::erase_if(n.disk, [&](const log_entry& e) { return e.end_offset() <= end; });
      trace("node " + std::to_string(n.id.value) + " snapshots at " + std::to_string(end.value));
      process(n);
    }
  }

  void flushes() {
    for (auto& n : nodes_) {
      if (!n.core || !rng_.chance(cfg_.p_flush)) continue;
      offset end = n.disk.empty() ? n.snapshot.end_offset : n.disk.back().end_offset();
      if (end == n.synced_end) continue;
      n.synced_end = end;
      if (cfg_.trace) trace("node " + std::to_string(n.id.value) + " fsyncs to " + std::to_string(end.value));
      n.core->persisted(end);
      process(n);
    }
  }

  const log_entry* committed_at(offset base) const {
    auto it = committed_.find(base);
    return it == committed_.end() ? nullptr : &it->second;
  }

  // Checks node n's log entries in [from, to) against the global committed
  // log, extending it past its end.
  void check_committed(const node& n, offset from, offset to) {
    for (const log_entry& e : n.core->log().entries()) {
      if (e.end_offset() <= from || e.base_offset >= to) continue;
      if (e.base_offset < committed_end_) {
        const log_entry* c = committed_at(e.base_offset);
        if (c == nullptr || !(*c == e)) {
          fail("node " + std::to_string(n.id.value) + " commits a different entry at offset " +
               std::to_string(e.base_offset.value));
          return;
        }
      } else if (e.base_offset == committed_end_) {
        committed_[e.base_offset] = e;
        committed_end_ = e.end_offset();
      } else {
        fail("gap in the committed log at " + std::to_string(committed_end_.value));
        return;
      }
    }
  }

  // After every event at node n.
  void check(node& n) {
    const raft_core& c = *n.core;
    std::string who = "node " + std::to_string(n.id.value);
    if (cfg_.trace && (c.current_role() != n.last_role || c.current_epoch() != n.last_epoch)) {
      trace(who + " is " + role_name(c.current_role()) + " in epoch " + std::to_string(c.current_epoch().value));
      n.last_role = c.current_role();
      n.last_epoch = c.current_epoch();
    }
    if (c.current_role() == role::leader) {
      auto [it, fresh] = leaders_.emplace(c.current_epoch(), n.id);
      if (it->second != n.id) {
        fail("two leaders in epoch " + std::to_string(c.current_epoch().value) + ": " +
             std::to_string(it->second.value) + " and " + std::to_string(n.id.value));
        return;
      }
      if (fresh) {
        ++out_.elections;
        trace(who + " leads epoch " + std::to_string(c.current_epoch().value));
        // Leader completeness: it holds everything committed so far.
        if (c.log().end_offset() < committed_end_) {
          fail(who + " leads epoch " + std::to_string(c.current_epoch().value) + " without the committed log");
          return;
        }
        check_committed(n, offset{0}, committed_end_);
      }
    }
    if (c.high_watermark() > c.log().end_offset()) fail(who + " high watermark past its log end");
    if (c.high_watermark() < n.last_hw) fail(who + " high watermark went backwards");
    if (c.high_watermark() > n.last_hw) check_committed(n, n.last_hw, c.high_watermark());
    n.last_hw = c.high_watermark();
  }

  // A leader committed an entry of its own epoch past `after`.
  bool leader_committed_own_epoch(offset after) const {
    for (const auto& n : nodes_) {
      if (!n.core || n.core->current_role() != role::leader) continue;
      const raft_core& c = *n.core;
      if (c.high_watermark() > after && c.high_watermark() > c.log().start_offset() &&
          c.log().epoch_at(c.high_watermark() - 1) == c.current_epoch()) {
        return true;
      }
    }
    return false;
  }

  config cfg_;
  rng rng_;
  std::vector<node_id> voters_;
  voter_set initial_voters_;  // a dynamic quorum's, as formatted
  std::vector<node> nodes_;
  std::map<std::pair<int64_t, uint64_t>, in_flight> net_;
  uint64_t seq_ = 0;
  bool partitioned_ = false;
  bool healed_ = false;
  std::map<node_id, int> side_;
  int64_t now_ = 0;
  int64_t step_ = 0;
  uint64_t next_value_ = 1;
  std::map<epoch, node_id> leaders_;
  std::map<offset, log_entry> committed_;
  offset committed_end_{0};
  outcome out_;
};

}  // namespace hw::controller::raft::sim
