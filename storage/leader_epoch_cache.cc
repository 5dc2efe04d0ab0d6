#include "storage/leader_epoch_cache.h"

#include <algorithm>
#include <cassert>

namespace hw::storage {

storage_error leader_epoch_cache::open(file_system& fs, const std::filesystem::path& partition_dir,
                                       std::unique_ptr<leader_epoch_cache>* out) {
  std::unique_ptr<leader_epoch_cache> cache(new leader_epoch_cache(fs, partition_dir / leader_epoch_checkpoint_name));
  std::vector<epoch_entry> loaded;
  if (auto err = read_epoch_checkpoint(fs, cache->path_, &loaded)) {
    if (err.code != std::errc::no_such_file_or_directory) return err;
  } else {
    cache->on_disk_ = loaded;
  }
  // Kafka replays the file through assign(), which repairs a non-monotonic
  // file; a repaired cache is dirty, so the next flush() writes the repair.
  for (const auto& e : loaded) cache->assign_in_memory(e);
  cache->check_invariants();
  cache->dirty_ = cache->entries_ != loaded;
  *out = std::move(cache);
  return {};
}

bool leader_epoch_cache::assign_in_memory(epoch_entry entry) {
  assert(entry.epoch.value >= 0 && entry.start_offset.value >= 0);
  if (!entries_.empty()) {
    const epoch_entry& latest = entries_.back();
    // Nothing to do for the epoch we are in, unless it now starts earlier.
    if (entry.epoch == latest.epoch && entry.start_offset >= latest.start_offset) return false;
  }
  while (!entries_.empty() &&
         (entries_.back().epoch >= entry.epoch || entries_.back().start_offset >= entry.start_offset))
    entries_.pop_back();
  entries_.push_back(entry);
  return true;
}

storage_error leader_epoch_cache::assign(leader_epoch epoch, offset start_offset, persist p, bool* was_changed) {
  bool taken = assign_in_memory({epoch, start_offset});
  if (was_changed) *was_changed = taken;
  if (!taken) return {};
  return changed(p);
}

storage_error leader_epoch_cache::assign(std::span<const epoch_entry> entries, persist p) {
  bool any = false;
  for (const auto& e : entries) any = assign_in_memory(e) || any;
  // Kafka rewrites the file for any non-empty list; an unchanged, clean
  // cache has nothing new to write.
  if (!any && !dirty_) return {};
  return changed(p);
}

storage_error leader_epoch_cache::truncate_from_end(offset end_offset, persist p) {
  if (end_offset.value < 0 || entries_.empty() || entries_.back().start_offset < end_offset) return {};
  while (!entries_.empty() && entries_.back().start_offset >= end_offset) entries_.pop_back();
  return changed(p);
}

storage_error leader_epoch_cache::truncate_from_start(offset start_offset, persist p) {
  auto first_kept = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const epoch_entry& e) { return e.start_offset > start_offset; });
  if (first_kept == entries_.begin()) return {};
  // The epoch that covers start_offset now starts there.
  epoch_entry moved{std::prev(first_kept)->epoch, start_offset};
  entries_.erase(entries_.begin(), first_kept);
  entries_.insert(entries_.begin(), moved);
  return changed(p);
}

storage_error leader_epoch_cache::clear(persist p) {
  entries_.clear();
  return changed(p);
}

storage_error leader_epoch_cache::flush() {
  if (!dirty_) return {};
  if (on_disk_ && *on_disk_ == entries_) {
    dirty_ = false;
    return {};
  }
  ++writes_;
  on_disk_.reset();
  if (auto err = write_epoch_checkpoint(fs_, path_, entries_)) return err;
  on_disk_ = entries_;
  dirty_ = false;
  return {};
}

std::optional<leader_epoch_cache::prepared_write> leader_epoch_cache::prepare_assign(leader_epoch epoch,
                                                                                    offset start_offset) const {
  leader_epoch_cache copy(fs_, path_);
  copy.entries_ = entries_;
  if (!copy.assign_in_memory({epoch, start_offset})) return std::nullopt;
  return prepared_write{&fs_, path_, std::move(copy.entries_), writes_};
}

storage_error leader_epoch_cache::write_prepared(const prepared_write& w) {
  return write_epoch_checkpoint(*w.fs, w.path, w.entries, ".prepared.tmp");
}

void leader_epoch_cache::note_written(const prepared_write& w) {
  // Only if no write of the cache's own raced it: then the file is ours.
  if (w.writes_before == writes_) on_disk_ = w.entries;
}

storage_error leader_epoch_cache::changed(persist p) {
  check_invariants();
  dirty_ = true;
  return p == persist::now ? flush() : storage_error{};
}

void leader_epoch_cache::check_invariants() const {
  for (size_t i = 1; i < entries_.size(); ++i) {
    assert(entries_[i - 1].epoch < entries_[i].epoch);
    assert(entries_[i - 1].start_offset < entries_[i].start_offset);
  }
}

std::optional<epoch_entry> leader_epoch_cache::latest_entry() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.back();
}

std::optional<epoch_entry> leader_epoch_cache::earliest_entry() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.front();
}

std::optional<leader_epoch> leader_epoch_cache::latest_epoch() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.back().epoch;
}

std::optional<leader_epoch> leader_epoch_cache::previous_epoch() const {
  if (entries_.size() < 2) return std::nullopt;
  return entries_[entries_.size() - 2].epoch;
}

std::optional<epoch_entry> leader_epoch_cache::entry_for(leader_epoch epoch) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), epoch,
                             [](const epoch_entry& e, leader_epoch x) { return e.epoch < x; });
  if (it == entries_.end() || it->epoch != epoch) return std::nullopt;
  return *it;
}

std::optional<leader_epoch> leader_epoch_cache::epoch_for_offset(offset o) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), o,
                                [](offset x, const epoch_entry& e) { return x < e.start_offset; });
  if (after == entries_.begin()) return std::nullopt;
  return std::prev(after)->epoch;
}

epoch_end_offset leader_epoch_cache::end_offset_for(leader_epoch requested, offset log_end_offset) const {
  const epoch_end_offset undefined{undefined_epoch, undefined_epoch_offset};
  if (requested == undefined_epoch) return undefined;  // a bootstrapping follower
  // The epoch still being written to ends at the log end.
  if (!entries_.empty() && entries_.back().epoch == requested) return {requested, log_end_offset};
  auto higher = std::upper_bound(entries_.begin(), entries_.end(), requested,
                                 [](leader_epoch x, const epoch_entry& e) { return x < e.epoch; });
  if (higher == entries_.end()) return undefined;  // newer than anything we know
  // Older than anything we still have: the data is gone, so the follower
  // should replicate from our first known epoch's start.
  if (higher == entries_.begin()) return {requested, higher->start_offset};
  return {std::prev(higher)->epoch, higher->start_offset};
}

}  // namespace hw::storage
