#include "controller/raft/raft_log.h"

#include <algorithm>
#include <cassert>

namespace hw::controller::raft {

raft_log::raft_log(snapshot_id snapshot, std::vector<log_entry> entries) : snapshot_(snapshot) {
  for (auto& e : entries) append(std::move(e));
}

size_t raft_log::index_of(offset o) const {
  // First batch whose end is past o.
  auto it = std::upper_bound(entries_.begin(), entries_.end(), o,
                             [](offset x, const log_entry& e) { return x < e.end_offset(); });
  return static_cast<size_t>(it - entries_.begin());
}

epoch_end_offset raft_log::end_offset_for_epoch(epoch e) const {
  if (e < snapshot_.leader_epoch) return {snapshot_.leader_epoch, snapshot_.end_offset};
  // The first batch with a larger epoch starts where epoch e (or the largest
  // smaller one present) ends.
  auto it = std::find_if(entries_.begin(), entries_.end(), [e](const log_entry& x) { return x.leader_epoch > e; });
  offset end = it == entries_.end() ? end_offset() : it->base_offset;
  epoch found = it == entries_.begin() ? snapshot_.leader_epoch : std::prev(it)->leader_epoch;
  return {found, end};
}

epoch raft_log::epoch_at(offset o) const {
  size_t i = index_of(o);
  assert(o >= start_offset() && i < entries_.size());
  return entries_[i].leader_epoch;
}

void raft_log::append(log_entry e) {
  assert(e.base_offset == end_offset());
  assert(!e.records.empty());
  assert(e.leader_epoch >= last_epoch());
  entries_.push_back(std::move(e));
}

offset raft_log::truncate_to(offset o) {
  if (o < start_offset()) o = start_offset();
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(index_of(o)), entries_.end());
  // A cut inside a batch drops the whole batch (index_of found it).
  return end_offset();
}

void raft_log::reset_to_snapshot(snapshot_id s) {
  snapshot_ = s;
  entries_.clear();
}

bool raft_log::is_batch_boundary(offset o) const {
  if (o == end_offset() || o == start_offset()) return true;
  size_t i = index_of(o);
  return i < entries_.size() && entries_[i].base_offset == o;
}

void raft_log::compact_to(snapshot_id s) {
  assert(s.end_offset >= start_offset() && s.end_offset <= end_offset() && is_batch_boundary(s.end_offset));
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(index_of(s.end_offset)));
  snapshot_ = s;
}

std::vector<log_entry> raft_log::read(offset from, size_t max_records) const {
  std::vector<log_entry> out;
  size_t records = 0;
  for (size_t i = index_of(from); i < entries_.size(); ++i) {
    if (!out.empty() && records + entries_[i].records.size() > max_records) break;
    records += entries_[i].records.size();
    out.push_back(entries_[i]);
  }
  return out;
}

}  // namespace hw::controller::raft
