#pragma once
// Helpers for the raft core's unit tests: build a core with deterministic
// timeouts, and a tiny lossless "cluster" that persists every ready at once
// and delivers every message (tests drop or hold messages explicitly).

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "controller/raft/raft_core.h"

namespace hw::controller::raft::testing {

inline node_id n(int32_t id) { return node_id{id}; }
inline offset off(int64_t o) { return offset{o}; }
inline epoch ep(int32_t e) { return epoch{e}; }

inline raft_options options_for(int32_t self, std::vector<int32_t> voters) {
  raft_options o;
  o.self = node_id{self};
  for (int32_t v : voters) o.voters.push_back(node_id{v});
  o.election_timeout_ms = 1000;
  o.fetch_timeout_ms = 2000;
  o.request_timeout_ms = 500;
  // Deterministic and staggered by id (node 1 times out first), so that
  // elections in these tests do not split.
  o.random = [self](int64_t lo, int64_t hi) { return lo + (hi - lo) * ((self - 1) % 4) / 4; };
  return o;
}

// A node's metadata log directory in the dynamic-quorum tests: its id in the last byte.
inline protocol::uuid directory_of(int32_t id) {
  protocol::uuid u;
  u.bytes[0] = 0x40;
  u.bytes[15] = static_cast<uint8_t>(id);
  return u;
}

inline voter voter_of(int32_t id) {
  voter v;
  v.id = node_id{id};
  v.directory_id = directory_of(id);
  v.endpoints.push_back({"CONTROLLER", "127.0.0.1", static_cast<uint16_t>(9090 + id)});
  return v;
}

inline voter_set voters_of(const std::vector<int32_t>& ids) {
  voter_set s;
  for (int32_t id : ids) s = s.with(voter_of(id));
  return s;
}

inline log_entry entry(int64_t base, int32_t e, int records = 1) {
  log_entry x{offset{base}, epoch{e}, false, {}};
  for (int i = 0; i < records; ++i) x.records.push_back({static_cast<uint8_t>(base + i), static_cast<uint8_t>(e)});
  return x;
}

template <typename T>
std::vector<std::pair<node_id, T>> messages_of(const ready& r) {
  std::vector<std::pair<node_id, T>> out;
  for (const auto& m : r.messages) {
    if (const T* t = std::get_if<T>(&m.body)) out.emplace_back(m.to, *t);
  }
  return out;
}

// Cores by id; `step` drains every ready (persisting it at once) and
// delivers the messages, until quiet or `max_rounds`.
struct mini_cluster {
  std::map<node_id, std::unique_ptr<raft_core>> cores;
  int64_t now_ms = 0;
  std::vector<node_id> down;  // messages to or from these are dropped

  void add(int32_t self, std::vector<int32_t> voters, raft_disk_state disk = {}) {
    cores[node_id{self}] = std::make_unique<raft_core>(options_for(self, voters), std::move(disk), now_ms);
  }
  // A node of a dynamic quorum (KIP-853): its log starts with the set of
  // `initial` (a format with --initial-controllers), or with none (a format
  // with --no-initial-controllers), and it asks `bootstrap` who leads.
  void add_dynamic(int32_t self, std::optional<std::vector<int32_t>> initial, std::vector<int32_t> bootstrap = {}) {
    raft_options o = options_for(self, {});
    o.directory_id = directory_of(self);
    for (int32_t b : bootstrap) o.bootstrap.push_back(node_id{b});
    raft_disk_state disk;
    if (initial) disk.snapshot_voters = voters_of(*initial);
    cores[node_id{self}] = std::make_unique<raft_core>(std::move(o), std::move(disk), now_ms);
  }
  raft_core& operator[](int32_t id) { return *cores.at(node_id{id}); }
  bool is_down(node_id id) const { return std::find(down.begin(), down.end(), id) != down.end(); }

  void step(int max_rounds = 50) {
    for (int round = 0; round < max_rounds; ++round) {
      std::vector<std::pair<node_id, outbound>> mail;
      for (auto& [id, core] : cores) {
        if (!core->has_ready()) continue;
        ready r = core->take_ready();
        if (!r.entries.empty() || r.truncate_to) core->persisted(core->log().end_offset());
        for (auto& m : r.messages) mail.emplace_back(id, std::move(m));
      }
      if (mail.empty()) return;
      for (auto& [from, m] : mail) {
        if (is_down(from) || is_down(m.to) || !cores.count(m.to)) continue;
        cores[m.to]->receive(from, m.body);
      }
    }
  }
  void advance(int64_t ms, int64_t tick_ms = 10) {
    for (int64_t t = 0; t < ms; t += tick_ms) {
      now_ms += tick_ms;
      for (auto& [id, core] : cores) {
        if (!is_down(id)) core->tick(now_ms);
      }
      step();
    }
  }
  node_id leader() const {
    for (const auto& [id, core] : cores) {
      if (!is_down(id) && core->current_role() == role::leader) return id;
    }
    return no_node;
  }
};

}  // namespace hw::controller::raft::testing
