#pragma once
// The slot table of a coordinator_runtime (coordinator_runtime.h): which
// partitions of its internal topic have a shard here, each with the
// runtime's slot for it. Owned by the runtime; used from any thread (the
// publisher strand, handler coroutines, the partitions' strands, the
// metrics) under its own mutex, a leaf: nothing else is locked or called
// while it is held. Once closed (the runtime stopping) it takes no new
// slot.
//
// Slot is the runtime's slot; all_loaded() and in_progress_total() read its
// atomics `loaded` and `in_progress`, so they are used only where the slot
// is complete (coordinator_runtime_impl.h).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace hw::broker {

template <typename Slot>
class shard_table {
 public:
  std::shared_ptr<Slot> find(int32_t partition) const {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(partition);
    return it == slots_.end() ? nullptr : it->second;
  }

  // Sets the slot of `partition`; false (and nothing set) once closed.
  bool put(int32_t partition, std::shared_ptr<Slot> slot) {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    slots_[partition] = std::move(slot);
    return true;
  }

  // Removes the slot of `partition` and returns it (null: none).
  std::shared_ptr<Slot> take(int32_t partition) {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(partition);
    if (it == slots_.end()) return nullptr;
    auto slot = std::move(it->second);
    slots_.erase(it);
    return slot;
  }

  // Takes no slot from now on; returns the partitions that have one.
  std::vector<int32_t> close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    return partitions_locked();
  }

  std::vector<int32_t> partitions() const {
    std::lock_guard lock(mutex_);
    return partitions_locked();
  }

  std::vector<std::shared_ptr<Slot>> all() const {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<Slot>> out;
    for (const auto& [p, s] : slots_) out.push_back(s);
    return out;
  }

  // True when each of `partitions` has a slot that has finished loading.
  bool all_loaded(const std::vector<int32_t>& partitions) const {
    std::lock_guard lock(mutex_);
    for (int32_t p : partitions) {
      auto it = slots_.find(p);
      if (it == slots_.end() || !it->second->loaded.load(std::memory_order_acquire)) return false;
    }
    return true;
  }

  // The sum of the slots' published in_progress counts.
  int64_t in_progress_total() const {
    std::lock_guard lock(mutex_);
    int64_t total = 0;
    for (const auto& [p, s] : slots_) total += s->in_progress.load(std::memory_order_relaxed);
    return total;
  }

 private:
  std::vector<int32_t> partitions_locked() const {
    std::vector<int32_t> out;
    for (const auto& [p, s] : slots_) out.push_back(p);
    return out;
  }

  mutable std::mutex mutex_;
  std::map<int32_t, std::shared_ptr<Slot>> slots_;
  bool closed_ = false;
};

}  // namespace hw::broker
