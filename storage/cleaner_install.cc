// log::install_cleaned and log::discard_cleaned: the writer's half of
// compaction (Kafka's LocalLog.replaceSegments), kept beside the cleaner
// rather than in log.cc. See log.h for the order of the steps and
// storage/README.md for what a crash at each step leaves.

#include <algorithm>
#include <array>
#include <cassert>

#include "storage/log.h"

namespace hw::storage {
namespace {

constexpr std::array<std::string_view, 4> segment_suffixes = {log_file_suffix, index_file_suffix,
                                                              time_index_file_suffix, txn_index_file_suffix};

std::filesystem::path with(const std::filesystem::path& dir, offset base, std::string_view suffix,
                           std::string_view extra) {
  return dir / (segment_file_name(base, suffix) + std::string(extra));
}

}  // namespace

std::vector<std::shared_ptr<const segment>> log::segments() const {
  auto list = snapshot();
  return {list->segments.begin(), list->segments.end()};
}

std::error_code log::discard_cleaned(offset base) {
  for (auto suffix : segment_suffixes) {
    auto p = with(dir_, base, suffix, cleaned_file_suffix);
    if (!fs_.exists(p)) continue;
    if (auto ec = fs_.remove(p)) return ec;
  }
  return {};
}

std::error_code log::install_cleaned(const cleaned_segment_swap& swap, int64_t now_ms,
                                     std::vector<std::shared_ptr<segment>>* replaced) {
  replaced->clear();
  if (auto ec = writable()) return ec;
  assert(!swap.replaced.empty() && swap.replaced.size() == swap.replaced_ends.size());
  assert(swap.replaced.front()->base_offset() == swap.base_offset);

  // The replaced segments must still be a run of non-active segments of
  // this log, unchanged since the cleaner read them.
  auto segments = current_->segments;
  auto first = std::find_if(segments.begin(), segments.end(),
                            [&](const std::shared_ptr<segment>& s) { return s.get() == swap.replaced.front().get(); });
  bool intact = first != segments.end() &&
                static_cast<size_t>(segments.end() - first) > swap.replaced.size();  // the active one stays after
  for (size_t i = 0; intact && i < swap.replaced.size(); ++i) {
    const auto& s = *(first + static_cast<ptrdiff_t>(i));
    segment_end e = s->end();
    intact = s.get() == swap.replaced[i].get() && e.next_offset == swap.replaced_ends[i].next_offset &&
             e.size == swap.replaced_ends[i].size;
  }
  if (!intact) {
    if (auto ec = discard_cleaned(swap.base_offset)) return fail(ec);
    return log_errc::segments_changed;
  }

  // 1. `.cleaned` → `.swap` (a missing `.txnindex` was never written).
  std::vector<std::string_view> present;
  for (auto suffix : segment_suffixes) {
    auto from = with(dir_, swap.base_offset, suffix, cleaned_file_suffix);
    if (!fs_.exists(from)) continue;
    if (auto ec = fs_.rename(from, with(dir_, swap.base_offset, suffix, swap_file_suffix))) return fail(ec);
    present.push_back(suffix);
  }
  // 2. The old segments leave their names, newest first (Kafka's order).
  auto last = first + static_cast<ptrdiff_t>(swap.replaced.size());
  for (auto it = last; it != first;) {
    --it;
    if (auto ec = (*it)->rename_to_deleted()) return fail(ec);
  }
  // 3. Commit: from here a reload completes the swap.
  if (auto ec = fs_.sync_directory(dir_)) return fail(ec);
  // 4. `.swap` → final names, durably.
  for (auto suffix : present) {
    if (auto ec = fs_.rename(with(dir_, swap.base_offset, suffix, swap_file_suffix),
                             with(dir_, swap.base_offset, suffix, {})))
      return fail(ec);
  }
  if (auto ec = fs_.sync_directory(dir_)) return fail(ec);

  // 5. Open the cleaned segment under its final name and publish it.
  std::unique_ptr<segment> cleaned;
  std::optional<std::string> problem;
  if (auto ec = segment::open(fs_, dir_, swap.base_offset, options_for_new_segment(now_ms), &cleaned, &problem))
    return fail(ec);
  if (problem) {
    // Written and synced by the cleaner, so this is unexpected; recovery
    // rebuilds the indexes from the (synced) log file.
    recovery_result r;
    if (auto ec = cleaned->recover({}, &r)) return fail(ec);
  }
  replaced->assign(first, last);
  auto at = segments.erase(first, last);
  segments.insert(at, std::shared_ptr<segment>(std::move(cleaned)));
  publish(std::move(segments));
  return {};
}

}  // namespace hw::storage
