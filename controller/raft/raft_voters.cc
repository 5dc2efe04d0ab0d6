#include "controller/raft/raft_voters.h"

#include <algorithm>
#include <cassert>

namespace hw::controller::raft {

const voter* voter_set::find(node_id id) const {
  auto it = std::lower_bound(voters.begin(), voters.end(), id, [](const voter& v, node_id n) { return v.id < n; });
  return it != voters.end() && it->id == id ? &*it : nullptr;
}

bool voter_set::contains(node_id id, const protocol::uuid& directory) const {
  const voter* v = find(id);
  return v && (v->directory_id.is_zero() || directory.is_zero() || v->directory_id == directory);
}

std::vector<node_id> voter_set::ids() const {
  std::vector<node_id> out;
  for (const auto& v : voters) out.push_back(v.id);
  return out;
}

voter_set voter_set::with(voter v) const {
  assert(!contains(v.id));
  voter_set out = *this;
  auto at = std::lower_bound(out.voters.begin(), out.voters.end(), v.id,
                             [](const voter& x, node_id n) { return x.id < n; });
  out.voters.insert(at, std::move(v));
  return out;
}

voter_set voter_set::without(node_id id) const {
  voter_set out = *this;
  std::erase_if(out.voters, [id](const voter& v) { return v.id == id; });
  return out;
}

voter_set voter_set::of_ids(const std::vector<node_id>& ids) {
  voter_set out;
  for (node_id id : ids) {
    voter v;
    v.id = id;
    v.max_kraft_version = 0;
    out.voters.push_back(v);
  }
  std::sort(out.voters.begin(), out.voters.end(), [](const voter& a, const voter& b) { return a.id < b.id; });
  return out;
}

voter_history voter_history::fixed(voter_set set) {
  voter_history h;
  h.start_ = std::move(set);
  return h;
}

voter_history voter_history::dynamic(std::optional<voter_set> at_start) {
  voter_history h;
  h.dynamic_ = true;
  if (at_start) h.start_ = std::move(*at_start);
  return h;
}

const voter_set& voter_history::latest() const { return changes_.empty() ? start_ : changes_.back().second; }

const voter_set& voter_history::at(offset o) const {
  for (auto it = changes_.rbegin(); it != changes_.rend(); ++it)
    if (it->first <= o) return it->second;
  return start_;
}

void voter_history::record(offset o, voter_set set) {
  assert(dynamic_);
  assert(changes_.empty() || changes_.back().first < o);
  changes_.emplace_back(o, std::move(set));
}

void voter_history::truncate_to(offset o) {
  std::erase_if(changes_, [o](const auto& c) { return c.first >= o; });
}

void voter_history::compact_to(offset o) {
  // Entries below o are now inside the snapshot; the one in force at o - 1 starts the log.
  if (!dynamic_) return;
  const offset written = latest_offset_at(o - 1);
  voter_set in_force = at(o - 1);
  std::erase_if(changes_, [o](const auto& c) { return c.first < o; });
  start_ = std::move(in_force);
  if (written >= offset{0}) start_offset_ = o - 1;
}

void voter_history::reset(offset o, std::optional<voter_set> at_start) {
  if (!dynamic_) return;  // a static quorum's set never changes
  changes_.clear();
  start_ = at_start ? std::move(*at_start) : voter_set{};
  start_offset_ = o - 1;
}

offset voter_history::latest_offset_at(offset o) const {
  for (auto it = changes_.rbegin(); it != changes_.rend(); ++it)
    if (it->first <= o) return it->first;
  return start_offset_;
}

}  // namespace hw::controller::raft
