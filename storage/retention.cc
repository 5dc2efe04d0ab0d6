#include "storage/retention.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace hw::storage {
namespace {

// Kafka's LogSegment.toString, without the file's mtime (not modelled).
std::string describe(const segment_info& s) {
  return "LogSegment(baseOffset=" + std::to_string(s.base_offset.value) + ", size=" + std::to_string(s.size_bytes) +
         ", largestRecordTimestamp=" + std::to_string(s.max_timestamp) + ")";
}

// One of Kafka's passes over what earlier passes left: segments [from, n).
class retention_pass {
 public:
  retention_pass(const retention_input& in, size_t from) : in_(in), from_(from) {}

  // Kafka's deletableSegments: the length of the oldest run of segments
  // that are below the HW, not an empty active segment, and accepted by
  // deletable(segment, next or null).
  template <typename Predicate>
  size_t deletable_prefix(Predicate&& deletable) const {
    size_t n = in_.segments.size();
    size_t i = from_;
    for (; i < n; ++i) {
      const segment_info& s = in_.segments[i];
      const segment_info* next = i + 1 < n ? &in_.segments[i + 1] : nullptr;
      offset upper = next ? next->base_offset : in_.log_end_offset;
      if (in_.high_watermark < upper || !deletable(s, next)) break;
      if (!next && s.size_bytes == 0) break;
    }
    return i - from_;
  }

 private:
  const retention_input& in_;
  size_t from_;
};

uint64_t size_from(const retention_input& in, size_t from) {
  uint64_t total = 0;
  for (size_t i = from; i < in.segments.size(); ++i) total += in.segments[i].size_bytes;
  return total;
}

}  // namespace

retention_plan plan_retention(const log_config& config, const retention_input& in) {
  retention_plan plan;
  size_t n = in.segments.size();
  size_t from = 0;
  auto take = [&](size_t count, retention_cause cause, auto&& reason) {
    for (size_t i = from; i < from + count; ++i)
      plan.deletions.push_back({in.segments[i].base_offset, cause, reason(in.segments[i])});
    from += count;
  };

  // The log start offset (DeleteRecords, an earlier retention) passed the
  // whole segment: its successor starts at or below it.
  {
    size_t count = retention_pass(in, from).deletable_prefix(
        [&](const segment_info&, const segment_info* next) { return next && next->base_offset <= in.log_start_offset; });
    take(count, retention_cause::log_start_offset_breach, [&](const segment_info& s) {
      return "Deleting segment " + describe(s) + " due to log start offset " +
             std::to_string(in.log_start_offset.value) + " breach";
    });
  }

  if (config.cleanup.delete_enabled && from < n && config.retention_bytes >= 0) {
    uint64_t log_size = size_from(in, from);
    auto retention = static_cast<uint64_t>(config.retention_bytes);
    if (log_size >= retention) {
      uint64_t excess = log_size - retention;
      size_t count = retention_pass(in, from).deletable_prefix([&](const segment_info& s, const segment_info*) {
        if (excess < s.size_bytes) return false;
        excess -= s.size_bytes;
        return true;
      });
      uint64_t after = log_size;
      take(count, retention_cause::retention_bytes_breach, [&](const segment_info& s) {
        after -= s.size_bytes;
        return "Deleting segment " + describe(s) + " due to log retention size " +
               std::to_string(config.retention_bytes) + " breach. Log size after deletion will be " +
               std::to_string(after) + ".";
      });
    }
  }

  if (config.cleanup.delete_enabled && from < n && config.retention_ms >= 0) {
    // Kafka falls back to the file's mtime for a segment without record
    // timestamps; the file layer has none, so such a segment is kept.
    size_t count = retention_pass(in, from).deletable_prefix([&](const segment_info& s, const segment_info*) {
      return s.max_timestamp != no_timestamp && in.now_ms - s.max_timestamp > config.retention_ms;
    });
    take(count, retention_cause::retention_ms_breach, [&](const segment_info& s) {
      return "Deleting segment " + describe(s) + " due to log retention time " + std::to_string(config.retention_ms) +
             "ms breach based on the largest record timestamp in the segment";
    });
  }

  plan.rolls_active_segment = n > 0 && from == n;
  plan.first_kept_base_offset = from < n ? in.segments[from].base_offset : in.log_end_offset;
  return plan;
}

// --- pending deletions -----------------------------------------------------------

std::error_code pending_deletions::add(std::shared_ptr<segment> s, int64_t due_ms) {
  assert(s);
  if (max_entries_ > 0 && queue_.size() >= max_entries_) {
    if (auto ec = remove_front()) return ec;
  }
  // Logs may have different delays: keep the queue ordered by due time.
  auto at = std::upper_bound(queue_.begin(), queue_.end(), due_ms,
                             [](int64_t due, const entry& e) { return due < e.due_ms; });
  queue_.insert(at, entry{std::move(s), due_ms});
  return {};
}

std::error_code pending_deletions::remove_front() {
  if (auto ec = queue_.front().seg->remove_files()) return ec;
  queue_.pop_front();
  return {};
}

std::error_code pending_deletions::delete_expired(int64_t now_ms, size_t* removed) {
  size_t count = 0;
  std::error_code result;
  while (!queue_.empty() && queue_.front().due_ms <= now_ms) {
    if ((result = remove_front())) break;
    ++count;
  }
  if (removed) *removed = count;
  return result;
}

std::error_code pending_deletions::delete_all(size_t* removed) {
  size_t count = 0;
  std::error_code result;
  while (!queue_.empty()) {
    if ((result = remove_front())) break;
    ++count;
  }
  if (removed) *removed = count;
  return result;
}

// --- applying --------------------------------------------------------------------

std::error_code apply_retention(log& l, offset high_watermark, int64_t now_ms, pending_deletions& pending,
                                retention_result* out) {
  *out = {};
  out->log_start_offset = l.log_start_offset();
  std::vector<segment_info> infos = l.segment_infos();
  retention_input in{infos, l.log_start_offset(), l.log_end_offset(), high_watermark, now_ms};
  retention_plan plan = plan_retention(l.config(), in);
  if (plan.deletions.empty()) return {};
  std::vector<std::shared_ptr<segment>> detached;
  if (auto ec = l.detach_segments_before(plan.first_kept_base_offset, now_ms, &detached)) return ec;
  assert(detached.size() == plan.deletions.size());
  out->segments_deleted = detached.size();
  out->log_start_offset = l.log_start_offset();
  for (auto& d : plan.deletions) out->reasons.push_back(std::move(d.reason));
  int64_t due_ms = now_ms + std::max<int64_t>(l.config().file_delete_delay_ms, 0);
  for (auto& s : detached) {
    if (auto ec = pending.add(std::move(s), due_ms)) return ec;
  }
  return {};
}

}  // namespace hw::storage
