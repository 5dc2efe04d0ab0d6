#include "storage/cleaner_driver.h"

#include <limits>

namespace hw::storage {
namespace {

bool wants_first_batch_timestamps(const log_config& config, int64_t now_ms) {
  // A timestamp at or below zero never forces compaction (Kafka filters them).
  return now_ms - std::max<int64_t>(config.max_compaction_lag_ms, 0) > 0;
}

}  // namespace

std::error_code log_cleaner::plan(const log_cleaner_host::candidate& c,
                                  const std::map<topic_partition, offset>& checkpoints, int64_t now_ms,
                                  cleanable_range* out) {
  const log& l = *c.log;
  auto segments = l.segments();
  bool first_batches = wants_first_batch_timestamps(c.config, now_ms);
  std::vector<cleaner_segment_info> infos;
  infos.reserve(segments.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    const auto& s = segments[i];
    cleaner_segment_info info{s->base_offset(), s->end().size, s->max_timestamp_so_far().timestamp, std::nullopt};
    if (first_batches && i + 1 < segments.size()) {
      if (auto ec = s->first_batch_timestamp(&info.first_batch_timestamp)) return ec;
    }
    infos.push_back(info);
  }
  std::optional<offset> checkpoint;
  if (auto it = checkpoints.find(c.tp); it != checkpoints.end()) checkpoint = it->second;
  cleanable_input in{infos, l.log_start_offset(), l.log_end_offset(), c.last_stable_offset, checkpoint, now_ms};
  *out = plan_cleanable_range(c.config, in);
  if (out->force_checkpoint_update) return host_.update_cleaner_checkpoint(c.tp, out->first_dirty_offset);
  return {};
}

std::vector<std::pair<topic_partition, cleanable_range>> log_cleaner::plans() {
  std::vector<std::pair<topic_partition, cleanable_range>> out;
  auto checkpoints = host_.cleaner_checkpoints();
  int64_t now = now_ms_();
  for (const auto& c : host_.compacted_logs()) {
    cleanable_range r;
    if (plan(c, checkpoints, now, &r)) continue;
    out.emplace_back(c.tp, r);
  }
  return out;
}

std::error_code log_cleaner::delete_expired_segments() { return deletions_.delete_expired(now_ms_()); }

std::error_code log_cleaner::clean_dirtiest(std::optional<cleaning_report>* out) {
  out->reset();
  if (auto ec = delete_expired_segments()) return ec;
  int64_t now = now_ms_();
  auto checkpoints = host_.cleaner_checkpoints();
  std::optional<log_cleaner_host::candidate> best;
  cleanable_range best_range;
  for (const auto& c : host_.compacted_logs()) {
    if (uncleanable_.contains(c.tp) || c.log->offline()) continue;
    cleanable_range r;
    if (auto ec = plan(c, checkpoints, now, &r)) return ec;
    if (!r.should_clean(c.config.min_cleanable_dirty_ratio)) continue;
    if (!best || r.cleanable_ratio() > best_range.cleanable_ratio()) {
      best = c;
      best_range = r;
    }
  }
  if (!best) return {};
  cleaning_report report;
  std::error_code ec = clean(*best, best_range, now, &report);
  // Data the cleaner cannot read makes the log uncleanable (Kafka's
  // LogCleaningException); an I/O error is the dir's, for the caller to act on.
  if (ec == log_errc::invalid_records) uncleanable_.insert(best->tp);
  *out = std::move(report);
  return ec;
}

std::error_code log_cleaner::clean(const log_cleaner_host::candidate& c, const cleanable_range& range, int64_t now_ms,
                                   cleaning_report* report) {
  report->tp = c.tp;
  report->range = range;
  report->end_offset = range.first_dirty_offset;
  cleaning_request request{c.config, range.first_dirty_offset, range.first_uncleanable_offset, {}, now_ms};
  if (auto ec = host_.run_on_writer(c.tp, [&](partition_log& p) {
        request.producers = last_records_of(p.producers());
        return std::error_code{};
      }))
    return ec;

  // What the cleaner is about to read: a segment truncated and rewritten
  // under it can look corrupt, which must not make the log uncleanable.
  auto read_before = c.log->segments();
  std::vector<segment_end> ends_before;
  for (const auto& s : read_before) ends_before.push_back(s->end());
  cleaning_result result;
  if (auto ec = clean_log(fs_, *c.log, config_, request, &result)) {
    auto now_segments = c.log->segments();
    bool changed = now_segments.size() < read_before.size();
    for (size_t i = 0; !changed && i + 1 < read_before.size(); ++i) {
      segment_end e = now_segments[i]->end();
      changed = now_segments[i] != read_before[i] || e.next_offset != ends_before[i].next_offset ||
                e.size != ends_before[i].size;
    }
    if (ec == log_errc::invalid_records && changed) {
      report->abandoned = true;
      return {};
    }
    return ec;
  }
  report->stats = result.stats;

  size_t installed = 0;
  std::error_code install_error;
  if (auto ec = host_.run_on_writer(c.tp, [&](partition_log& p) {
        log& l = p.mutable_log();
        int64_t due = now_ms + l.config().file_delete_delay_ms;
        for (; installed < result.swaps.size(); ++installed) {
          std::vector<std::shared_ptr<segment>> replaced;
          if (auto e = l.install_cleaned(result.swaps[installed], now_ms, &replaced)) {
            // Whatever was not installed is thrown away.
            for (size_t i = installed + 1; i < result.swaps.size(); ++i) (void)l.discard_cleaned(result.swaps[i].base_offset);
            return e;
          }
          report->segments_replaced += replaced.size();
          for (auto& s : replaced) {
            if (auto e = deletions_.add(std::move(s), due)) return e;
          }
        }
        return std::error_code{};
      })) {
    install_error = ec;
  }
  if (install_error == log_errc::segments_changed) {
    report->abandoned = true;
    return {};
  }
  if (install_error) return install_error;
  report->end_offset = result.end_offset;
  return host_.update_cleaner_checkpoint(c.tp, result.end_offset);
}

}  // namespace hw::storage
