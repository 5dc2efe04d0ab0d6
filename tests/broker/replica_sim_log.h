#pragma once
// A replica's log in memory: batches of unique payload ids, the
// leader-epoch cache and how much a flush made durable. Mirrors the rules
// of storage/partition_log (append, assign_epoch, truncate_to, recovery in
// open) and storage/leader_epoch_cache.h (assign, truncate_from_end,
// end_offset_for) without files.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "storage/leader_epoch_cache.h"

namespace hw::broker::replica_sim {

using storage::epoch_end_offset;
using storage::epoch_entry;

// One batch of records, each a unique payload id so records can be told apart.
struct batch {
  storage::offset base{0};
  storage::leader_epoch epoch{0};
  std::vector<uint64_t> payloads;
  storage::offset next() const { return base + static_cast<int64_t>(payloads.size()); }
  bool operator==(const batch&) const = default;
};

// The leader-epoch cache in memory, with leader_epoch_cache.h's rules.
struct epoch_cache {
  std::vector<epoch_entry> entries;

  // Kafka's assign: nothing for the current epoch unless it now starts
  // earlier; else drop every entry at or above the epoch or the offset.
  void assign(storage::leader_epoch e, storage::offset start) {
    if (!entries.empty() && entries.back().epoch == e && start >= entries.back().start_offset) return;
    while (!entries.empty() && (entries.back().epoch >= e || entries.back().start_offset >= start)) entries.pop_back();
    entries.push_back({e, start});
  }
  void truncate_from_end(storage::offset end) {
    if (end.value < 0 || entries.empty() || entries.back().start_offset < end) return;
    while (!entries.empty() && entries.back().start_offset >= end) entries.pop_back();
  }
  std::optional<storage::leader_epoch> latest_epoch() const {
    if (entries.empty()) return std::nullopt;
    return entries.back().epoch;
  }
  std::optional<storage::leader_epoch> epoch_for_offset(storage::offset o) const {
    std::optional<storage::leader_epoch> out;
    for (const auto& e : entries)
      if (e.start_offset <= o) out = e.epoch;
    return out;
  }
  epoch_end_offset end_offset_for(storage::leader_epoch requested, storage::offset log_end) const {
    const epoch_end_offset undefined{storage::undefined_epoch, storage::undefined_epoch_offset};
    if (requested == storage::undefined_epoch) return undefined;
    if (!entries.empty() && entries.back().epoch == requested) return {requested, log_end};
    auto higher = std::upper_bound(entries.begin(), entries.end(), requested,
                                   [](storage::leader_epoch x, const epoch_entry& e) { return x < e.epoch; });
    if (higher == entries.end()) return undefined;
    if (higher == entries.begin()) return {requested, higher->start_offset};
    return {std::prev(higher)->epoch, higher->start_offset};
  }
};

// A replica's log (log start is always 0): batches, a payload per offset,
// the epoch cache, and how much of it a flush made durable.
struct replica_log {
  std::vector<batch> batches;
  std::vector<uint64_t> payload_at;
  epoch_cache cache;
  storage::offset synced{0};

  storage::offset end() const { return storage::offset(static_cast<int64_t>(payload_at.size())); }

  // partition_log::assign_epoch: only an epoch newer than the latest is taken.
  void assign_epoch(storage::leader_epoch e, storage::offset start) {
    if (e.value < 0) return;
    auto latest = cache.latest_epoch();
    if (latest && e <= *latest) return;
    cache.assign(e, start);
  }
  // partition_log::append: the epoch cache learns new epochs before the
  // records land.
  void append(const std::vector<batch>& in) {
    std::vector<epoch_entry> fresh;
    for (const auto& b : in)
      if (b.epoch.value >= 0 && (fresh.empty() || fresh.back().epoch < b.epoch)) fresh.push_back({b.epoch, b.base});
    for (const auto& e : fresh) assign_epoch(e.epoch, e.start_offset);
    for (const auto& b : in) {
      batches.push_back(b);
      payload_at.insert(payload_at.end(), b.payloads.begin(), b.payloads.end());
    }
  }
  // partition_log::truncate_to below the log end. At or past it the real
  // one also drops epochs that start at the log end; the simulation does
  // that where a DivergingEpoch cuts nothing (simulation::on_diverging_epoch),
  // so that unsafe_switches::noop_truncation_keeps_epoch_cache can skip it.
  void truncate_to(storage::offset o) {
    if (o >= end()) return;
    cache.truncate_from_end(o);
    while (!batches.empty() && batches.back().base >= o) batches.pop_back();
    // Cuts come from epoch boundaries and log ends, so whole batches; a cut
    // inside one (only a broken rule makes one) keeps the records below it.
    if (!batches.empty() && batches.back().next() > o)
      batches.back().payloads.resize(static_cast<size_t>(o - batches.back().base));
    payload_at.resize(static_cast<size_t>(o.value));
    synced = std::min(synced, end());
  }
  // A crash: what was not flushed is gone (whole batches); the cache (its
  // changes are written synchronously) is cut to the log end and learns the
  // epochs of the recovered batches, as partition_log::open does.
  bool crash() {
    bool lost = synced < end();
    while (!batches.empty() && batches.back().next() > synced) batches.pop_back();
    payload_at.resize(batches.empty() ? 0 : static_cast<size_t>(batches.back().next().value));
    synced = end();
    cache.truncate_from_end(end());
    for (const auto& b : batches) {
      auto latest = cache.latest_epoch();
      if (!latest || b.epoch > *latest) cache.assign(b.epoch, b.base);
    }
    return lost;
  }
};

}  // namespace hw::broker::replica_sim
