#include "storage/log.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <map>
#include <utility>

#include "protocol/records/record_batch.h"

namespace hw::storage {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_index_file(std::string_view name) {
  return ends_with(name, index_file_suffix) || ends_with(name, time_index_file_suffix) ||
         ends_with(name, txn_index_file_suffix);
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Index of the segment with the largest base offset <= o, or -1.
ptrdiff_t floor_index(const std::vector<std::shared_ptr<segment>>& segments, offset o) {
  auto it = std::upper_bound(segments.begin(), segments.end(), o,
                             [](offset v, const std::shared_ptr<segment>& s) { return v < s->base_offset(); });
  return (it - segments.begin()) - 1;
}

}  // namespace

// Opening a partition directory, as Kafka's LogLoader does: leftovers of
// interrupted deletes, cleanings and swaps first; then every segment, with
// indexes rebuilt when missing or failing their checks; then, after an
// unclean shutdown, recovery of every segment from the one holding the
// recovery point, deleting what follows a corrupt one.
class log::loader {
 public:
  loader(log& l, const log_open_options& options, log_load_report& report)
      : log_(l), fs_(l.fs_), dir_(l.dir_), options_(options), report_(report) {}

  std::error_code run() {
    if (!fs_.is_directory(dir_)) {
      // A new partition: its directory entry must be durable too.
      if (auto ec = fs_.create_directories(dir_)) return ec;
      if (dir_.has_parent_path()) {
        if (auto ec = fs_.sync_directory(dir_.parent_path())) return ec;
      }
      changed_ = true;
    }
    std::vector<std::string> swaps;
    if (auto ec = remove_leftovers(&swaps)) return ec;
    if (auto ec = restore_swaps(swaps)) return ec;
    if (auto ec = load_segments()) return ec;
    if (auto ec = recover_unflushed()) return ec;
    if (auto ec = finish()) return ec;
    if (changed_ && !options_.defer_directory_sync) return fs_.sync_directory(dir_);
    return {};
  }

 private:
  std::error_code list(std::vector<std::string>* names) { return fs_.list(dir_, names); }

  std::error_code remove(const std::string& name, const std::string& why) {
    if (auto ec = fs_.remove(dir_ / name)) return ec;
    report_.events.push_back("removed " + name + ": " + why);
    changed_ = true;
    return {};
  }

  // Kafka's removeTempFilesAndCollectSwapFiles, plus stray `.tmp` files (a
  // temp file whose rename never happened; the original is intact).
  std::error_code remove_leftovers(std::vector<std::string>* swaps) {
    std::vector<std::string> names, cleaned;
    if (auto ec = list(&names)) return ec;
    offset min_cleaned{std::numeric_limits<int64_t>::max()};
    for (const auto& name : names) {
      if (fs_.is_directory(dir_ / name)) continue;
      if (ends_with(name, deleted_file_suffix)) {
        if (auto ec = remove(name, "marked for deletion")) return ec;
      } else if (ends_with(name, ".tmp")) {
        if (auto ec = remove(name, "temporary file of an interrupted write")) return ec;
      } else if (ends_with(name, cleaned_file_suffix)) {
        if (auto o = offset_from_file_name(name)) min_cleaned = std::min(min_cleaned, *o);
        cleaned.push_back(name);
      } else if (ends_with(name, swap_file_suffix)) {
        swaps->push_back(name);
      }
    }
    // A swap file at or above a cleaned file belongs to an unfinished split.
    std::vector<std::string> valid;
    for (const auto& name : *swaps) {
      auto o = offset_from_file_name(name);
      if (o && *o >= min_cleaned) {
        if (auto ec = remove(name, "swap file of an unfinished segment split")) return ec;
      } else {
        valid.push_back(name);
      }
    }
    *swaps = std::move(valid);
    for (const auto& name : cleaned) {
      if (auto ec = remove(name, "output of an unfinished cleaning")) return ec;
    }
    return {};
  }

  // A `.swap` segment replaced the segments in its offset range before a
  // crash: delete what it replaces, then rename it into place.
  std::error_code restore_swaps(const std::vector<std::string>& swaps) {
    if (swaps.empty()) return {};
    offset min_swap{std::numeric_limits<int64_t>::max()}, max_swap{std::numeric_limits<int64_t>::min()};
    for (const auto& name : swaps) {
      std::string plain = name.substr(0, name.size() - swap_file_suffix.size());
      auto base = offset_from_file_name(plain);
      if (!base || !ends_with(plain, log_file_suffix)) continue;
      offset next;
      if (auto ec = segment::scan_next_offset(fs_, dir_ / name, *base, &next)) return ec;
      min_swap = std::min(min_swap, *base);
      max_swap = std::max(max_swap, next);
    }
    std::vector<std::string> names;
    if (auto ec = list(&names)) return ec;
    for (const auto& name : names) {
      auto o = offset_from_file_name(name);
      if (ends_with(name, swap_file_suffix) || !o || *o < min_swap || *o >= max_swap) continue;
      if (auto ec = remove(name, "replaced by a swap segment")) return ec;
    }
    for (const auto& name : names) {
      if (!ends_with(name, swap_file_suffix)) continue;
      std::string plain = name.substr(0, name.size() - swap_file_suffix.size());
      if (auto ec = fs_.rename(dir_ / name, dir_ / plain)) return ec;
      report_.events.push_back("renamed " + name + " to " + plain + " (interrupted swap)");
      changed_ = true;
    }
    return {};
  }

  std::error_code load_segments() {
    std::vector<std::string> names;
    if (auto ec = list(&names)) return ec;
    for (const auto& name : names) {
      auto base = offset_from_file_name(name);
      if (!base) continue;
      if (is_index_file(name)) {
        if (!fs_.exists(dir_ / segment_file_name(*base, log_file_suffix))) {
          if (auto ec = remove(name, "index without a log file")) return ec;
        }
      } else if (ends_with(name, log_file_suffix)) {
        std::unique_ptr<segment> s;
        std::optional<std::string> problem;
        if (auto ec = segment::open(fs_, dir_, *base, log_.options_for_new_segment(options_.now_ms), &s, &problem))
          return ec;
        if (problem) problems_[*base] = *problem;
        segments_.push_back(std::move(s));
      }
    }
    // Segments outside the recovery range get their bad indexes rebuilt now;
    // those inside are rebuilt by recover_unflushed anyway.
    first_unflushed_ = options_.had_clean_shutdown ? segments_.size() : unflushed_start();
    for (size_t i = 0; i < first_unflushed_; ++i) {
      auto it = problems_.find(segments_[i]->base_offset());
      if (it == problems_.end()) continue;
      recovery_result r;
      if (auto ec = segments_[i]->recover(options_.on_recovered_batch, &r)) return ec;
      report_.events.push_back(describe(*segments_[i], "rebuilt indexes (" + it->second + ")", r));
      report_.bytes_truncated += r.bytes_truncated;
      ++report_.segments_recovered;
    }
    return {};
  }

  size_t unflushed_start() const {
    auto i = floor_index(segments_, options_.recovery_point);
    return i < 0 ? 0 : static_cast<size_t>(i);
  }

  static std::string describe(const segment& s, const std::string& what, const recovery_result& r) {
    std::string line = s.log_path().filename().string() + ": " + what;
    if (r.bytes_truncated > 0) line += "; truncated " + std::to_string(r.bytes_truncated) + " bytes " + r.stop_reason;
    return line;
  }

  std::error_code recover_unflushed() {
    for (size_t i = first_unflushed_; i < segments_.size(); ++i) {
      auto& s = *segments_[i];
      recovery_result r;
      if (auto ec = s.recover(options_.on_recovered_batch, &r)) return ec;
      ++report_.segments_recovered;
      report_.bytes_truncated += r.bytes_truncated;
      auto problem = problems_.find(s.base_offset());
      if (problem != problems_.end() || r.bytes_truncated > 0)
        report_.events.push_back(describe(s, "recovered after an unclean shutdown", r));
      // Everything after a corrupt segment goes. So does everything after a
      // segment that ends short of the next one's base: its unsynced tail
      // was lost while a later segment's directory entry survived, and
      // keeping the later segment would leave a hole in the log (stricter
      // than Kafka; only unflushed data is given up).
      bool hole = i + 1 < segments_.size() && s.end().next_offset < segments_[i + 1]->base_offset();
      if (r.bytes_truncated == 0 && !hole) continue;
      std::vector<std::shared_ptr<segment>> rest(segments_.begin() + i + 1, segments_.end());
      segments_.resize(i + 1);
      if (auto ec = delete_all(rest, hole ? "after a segment that lost its tail" : "after a corrupt segment"))
        return ec;
      break;
    }
    return {};
  }

  std::error_code delete_all(const std::vector<std::shared_ptr<segment>>& doomed, const std::string& why) {
    for (const auto& s : doomed) {
      if (auto ec = s->rename_to_deleted()) return ec;
      if (auto ec = s->remove_files()) return ec;
      report_.events.push_back("deleted segment " + segment_file_name(s->base_offset(), log_file_suffix) + " " + why);
      changed_ = true;
    }
    return {};
  }

  std::error_code finish() {
    offset log_start = options_.log_start_offset;
    if (!segments_.empty() && segments_.back()->end().next_offset < log_start) {
      // Segment files were lost underneath the checkpoint: start over there.
      auto doomed = segments_;
      segments_.clear();
      if (auto ec = delete_all(doomed, "(log end below the log start offset checkpoint)")) return ec;
    }
    if (segments_.empty()) {
      std::unique_ptr<segment> s;
      if (auto ec = segment::create(fs_, dir_, log_start, log_.options_for_new_segment(options_.now_ms), &s))
        return ec;
      segments_.push_back(std::move(s));
      changed_ = true;
    }
    offset end = segments_.back()->end().next_offset;
    log_start = std::max(log_start, segments_.front()->base_offset());
    offset recovery_point = options_.had_clean_shutdown ? end : std::min(options_.recovery_point, end);
    log_.publish(std::move(segments_));
    log_.log_end_.store(end.value, std::memory_order_release);
    log_.log_start_.store(log_start.value, std::memory_order_release);
    log_.recovery_point_.store(recovery_point.value, std::memory_order_release);
    report_.log_start_offset = log_start;
    report_.log_end_offset = end;
    report_.recovery_point = recovery_point;
    return {};
  }

  log& log_;
  file_system& fs_;
  const std::filesystem::path& dir_;
  const log_open_options& options_;
  log_load_report& report_;
  std::vector<std::shared_ptr<segment>> segments_;
  std::map<offset, std::string> problems_;
  size_t first_unflushed_ = 0;
  bool changed_ = false;
};

// --- lifecycle -----------------------------------------------------------------

log::log(file_system& fs, std::filesystem::path dir, const log_config& config, uint64_t jitter_seed)
    : fs_(fs), dir_(std::move(dir)), config_(config), jitter_state_(jitter_seed) {}

log::~log() = default;

std::error_code log::open(file_system& fs, const std::filesystem::path& dir, const log_config& config,
                          const log_open_options& options, std::unique_ptr<log>* out, log_load_report* report) {
  *report = {};
  auto l = std::unique_ptr<log>(new log(fs, dir, config, options.jitter_seed));
  loader load(*l, options, *report);
  if (auto ec = load.run()) return ec;
  *out = std::move(l);
  return {};
}

segment_options log::options_for_new_segment(int64_t now_ms) {
  int64_t jitter = 0;
  int64_t bound = std::min(config_.segment_jitter_ms, config_.segment_ms);
  if (bound > 0) jitter = static_cast<int64_t>(splitmix64(jitter_state_) % static_cast<uint64_t>(bound));
  return {config_.index_interval_bytes, config_.segment_index_bytes, jitter, now_ms};
}

void log::publish(std::vector<std::shared_ptr<segment>> segments) {
  assert(!segments.empty());
  auto list = std::make_shared<segment_list>();
  list->segments = std::move(segments);
  current_ = list;
  std::shared_ptr<const segment_list> old;
  {
    std::lock_guard lock(snapshot_mutex_);
    old = std::exchange(published_, std::move(list));
  }
  // The old list (and any segment only it held) is released outside the lock.
}

std::error_code log::fail(std::error_code ec) {
  offline_.store(true, std::memory_order_release);
  return ec;
}

std::error_code log::writable() const {
  if (offline() || closed_) return log_errc::log_offline;
  return {};
}

std::error_code log::close() {
  if (closed_) return {};
  if (auto ec = writable()) return ec;
  if (auto ec = active()->close()) return fail(ec);
  if (auto ec = flush()) return ec;
  closed_ = true;
  return {};
}

// --- readers -------------------------------------------------------------------

size_t log::segment_count() const { return snapshot()->segments.size(); }

uint64_t log::size_bytes() const {
  uint64_t total = 0;
  for (const auto& s : snapshot()->segments) total += s->end().size;
  return total;
}

std::vector<segment_info> log::segment_infos() const {
  std::vector<segment_info> out;
  for (const auto& s : snapshot()->segments) {
    segment_end e = s->end();
    out.push_back({s->base_offset(), e.next_offset, e.size, s->max_timestamp_so_far().timestamp});
  }
  return out;
}

std::error_code log::offset_metadata(offset o, log_offset_metadata* out) const {
  offset end = log_end_offset();
  auto list = snapshot();
  if (o < log_start_offset() || o > end) return log_errc::offset_out_of_range;
  ptrdiff_t i = floor_index(list->segments, o);
  if (i < 0) return log_errc::offset_out_of_range;
  const auto& s = list->segments[static_cast<size_t>(i)];
  segment_end e = s->end();
  std::optional<batch_position> b;
  if (o < e.next_offset) {
    if (auto ec = s->translate_offset(o, 0, e.size, &b)) return ec;
  }
  *out = {o, s->base_offset(), b ? b->position : e.size};
  return {};
}

std::error_code log::read(offset start, int32_t max_bytes, offset max_offset_exclusive, bool min_one_batch,
                          log_read_result* out) const {
  *out = {};
  offset end = log_end_offset();
  auto list = snapshot();
  const auto& segments = list->segments;
  ptrdiff_t first = floor_index(segments, start);
  if (start < log_start_offset() || start > end || first < 0) return log_errc::offset_out_of_range;
  offset bound = std::min(max_offset_exclusive, end);
  max_bytes = std::max(max_bytes, 0);  // a client's value; Kafka refuses negative ones earlier
  if (start >= bound) return offset_metadata(start, &out->fetch_offset);
  for (size_t i = static_cast<size_t>(first); i < segments.size(); ++i) {
    const auto& s = segments[i];
    if (i > static_cast<size_t>(first) && s->base_offset() >= bound) break;
    segment_end e = s->end();
    uint32_t max_position = e.size;
    if (bound < e.next_offset) {
      // The batch holding the bound and everything after it stay hidden.
      std::optional<batch_position> b;
      if (auto ec = s->translate_offset(bound, 0, e.size, &b)) return ec;
      if (b) max_position = b->position;
    }
    segment_read_result r;
    if (auto ec = s->read(start, max_bytes, max_position, min_one_batch, &r)) return ec;
    if (!r.found) continue;
    out->fetch_offset = {start, s->base_offset(), r.first_batch.position};
    out->position = r.position;
    out->length = r.length;
    out->first_batch_incomplete = r.first_batch_incomplete;
    if (r.length > 0) out->log_file = std::move(r.log_file);
    return {};
  }
  // Start is in range but no batch follows it (the bound or a gap).
  const auto& last = segments.back();
  out->fetch_offset = {end, last->base_offset(), last->end().size};
  return {};
}

std::error_code log::timestamp_search(int64_t timestamp, const segment_list& list,
                                      std::optional<timestamp_and_offset>* out) const {
  offset start = log_start_offset();
  for (const auto& s : list.segments) {
    if (s->end().next_offset <= start || s->max_timestamp_so_far().timestamp < timestamp) continue;
    if (auto ec = s->find_offset_by_timestamp(timestamp, start, out)) return ec;
    if (*out) return {};
  }
  return {};
}

std::error_code log::max_timestamp_search(const segment_list& list, std::optional<timestamp_and_offset>* out) const {
  const segment* best = nullptr;
  int64_t best_timestamp = 0;
  for (const auto& s : list.segments) {
    int64_t ts = s->max_timestamp_so_far().timestamp;
    if (!best || ts > best_timestamp) {
      best = s.get();
      best_timestamp = ts;
    }
  }
  return best->find_max_timestamp_record(out);
}

std::error_code log::offset_for_timestamp(int64_t timestamp, std::optional<timestamp_and_offset>* out) const {
  out->reset();
  switch (timestamp) {
    case earliest_timestamp:
    case earliest_local_timestamp:
      *out = timestamp_and_offset{no_timestamp, log_start_offset(), std::nullopt};
      return {};
    case latest_timestamp:
      *out = timestamp_and_offset{no_timestamp, log_end_offset(), std::nullopt};
      return {};
    case max_timestamp:
      return max_timestamp_search(*snapshot(), out);
    default:
      if (timestamp < 0) return {};
      return timestamp_search(timestamp, *snapshot(), out);
  }
}

std::error_code log::collect_aborted_transactions(offset start_offset, offset upper_offset,
                                                  std::vector<aborted_txn>* out) const {
  out->clear();
  auto list = snapshot();
  const auto& segments = list->segments;
  auto first = static_cast<size_t>(std::max<ptrdiff_t>(floor_index(segments, start_offset), 0));
  for (size_t i = first; i < segments.size(); ++i) {
    aborted_txn_search found;
    if (auto ec = segments[i]->collect_aborted_txns(start_offset, upper_offset, &found)) return ec;
    out->insert(out->end(), found.aborted.begin(), found.aborted.end());
    if (found.complete) break;
  }
  return {};
}

// --- append --------------------------------------------------------------------

std::error_code log::assign_or_check_offsets(std::span<uint8_t> batches, const append_options& options,
                                             append_result* out) {
  const bool leader = options.origin == append_origin::leader;
  const bool stamp = leader && config_.timestamp_type == message_timestamp_type::log_append_time;
  offset next = log_end_offset();
  std::optional<offset> previous_next;
  protocol::record_batch_walker walker(batches);
  protocol::record_batch_view view;
  while (walker.next(view)) {
    auto batch = protocol::mutable_record_batch_view::within(batches, view);
    if (leader) {
      batch.set_base_offset(next.value);
      batch.set_partition_leader_epoch(options.epoch.value);
      if (stamp) batch.set_log_append_time(options.now_ms);
    } else if (previous_next && view.base_offset() < previous_next->value) {
      return log_errc::offsets_out_of_order;
    }
    view = batch.view();
    if (out->batches++ == 0) out->first_offset = offset(view.base_offset());
    if (view.max_timestamp() > out->max_timestamp) {
      out->max_timestamp = view.max_timestamp();
      out->offset_of_max_timestamp = offset(view.last_offset());
    }
    next = offset(view.next_offset());
    previous_next = next;
  }
  if (walker.error() != protocol::batch_error::none || walker.partial_tail_bytes() != 0)
    return log_errc::invalid_records;
  if (!leader && out->first_offset < log_end_offset()) return log_errc::unexpected_append_offset;
  out->last_offset = next - 1;
  out->bytes = batches.size();
  if (stamp) out->log_append_time_ms = options.now_ms;
  if (out->last_offset - out->first_offset > std::numeric_limits<int32_t>::max()) return log_errc::offset_overflow;
  return {};
}

std::error_code log::maybe_roll(const append_result& info, int64_t now_ms) {
  roll_params p{config_.segment_ms,   config_.segment_bytes,         info.max_timestamp,
                info.last_offset,     static_cast<int32_t>(info.bytes), now_ms};
  if (!active()->should_roll(p)) return {};
  // A replicated append may start past the log end (the leader's log is
  // compacted). The new segment still starts at the log end when the
  // append's offsets fit it, so that segments stay contiguous: recovery
  // reads a segment ending short of the next one's base as a lost tail and
  // drops what follows.
  offset end = log_end_offset();
  bool fits = info.last_offset - end <= std::numeric_limits<int32_t>::max();
  return roll_at(fits ? end : info.first_offset, now_ms);
}

std::error_code log::append(std::span<uint8_t> batches, const append_options& options, append_result* out) {
  *out = {};
  if (auto ec = writable()) return ec;
  if (batches.empty()) return {};
  if (batches.size() > static_cast<size_t>(std::max(config_.segment_bytes, 0))) return log_errc::record_batch_too_large;
  if (auto ec = assign_or_check_offsets(batches, options, out)) return ec;
  if (auto ec = maybe_roll(*out, options.now_ms)) return ec;
  const auto& s = active();
  out->first_position = {out->first_offset, s->base_offset(), s->end().size};
  if (auto ec = s->append(batches)) return fail(ec);
  log_end_.store(out->last_offset.value + 1, std::memory_order_release);
  return {};
}

std::error_code log::append_aborted_txn(const aborted_txn& txn) {
  if (auto ec = writable()) return ec;
  if (txn.last_offset < log_start_offset() || txn.last_offset >= log_end_offset()) return log_errc::offset_out_of_range;
  ptrdiff_t i = floor_index(current_->segments, txn.last_offset);
  if (i < 0) return log_errc::offset_out_of_range;
  segment& s = *current_->segments[static_cast<size_t>(i)];
  bool creates_file = s.txn_index().empty();
  if (auto ec = s.append_aborted_txn(txn)) return fail(ec);
  // A new `.txnindex` is durable once its directory entry is (next flush).
  if (creates_file) directory_dirty_.store(true, std::memory_order_release);
  // The next flush syncs the entry unless the recovery point already covers
  // its marker (a re-append after recovery, or a flush that synced the
  // segment just before the entry landed): then it is synced here. The
  // mutex keeps a flush from moving the recovery point between the two.
  std::lock_guard lock(flush_mutex_);
  if (txn.last_offset < recovery_point()) {
    if (auto ec = s.flush()) return fail(ec);
  }
  return {};
}

// --- roll, truncation, deletion --------------------------------------------------

std::error_code log::roll(int64_t now_ms) {
  if (auto ec = writable()) return ec;
  return roll_at(log_end_offset(), now_ms);
}

std::error_code log::roll_at(offset expected, int64_t now_ms) {
  const auto started = std::chrono::steady_clock::now();
  offset base = std::max(expected, log_end_offset());
  const auto& current = active();
  // Kafka replaces an empty active segment at the same offset; keeping it is
  // the same log.
  if (current->base_offset() == base && current->end().size == 0) return {};
  assert(base > current->base_offset() && "a new segment must start after the active one");
  for (auto suffix : {log_file_suffix, index_file_suffix, time_index_file_suffix, txn_index_file_suffix}) {
    auto stale = dir_ / segment_file_name(base, suffix);
    if (!fs_.exists(stale)) continue;
    if (auto ec = fs_.remove(stale)) return fail(ec);
  }
  if (auto ec = current->on_become_inactive()) return fail(ec);
  std::unique_ptr<segment> fresh;
  if (auto ec = segment::create(fs_, dir_, base, options_for_new_segment(now_ms), &fresh)) return fail(ec);
  auto segments = current_->segments;
  segments.push_back(std::move(fresh));
  publish(std::move(segments));
  directory_dirty_.store(true, std::memory_order_release);
  if (event_sink_) {
    const auto took_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    event_sink_("LocalLog", "Rolled new log segment at offset " + std::to_string(base.value) + " in " + std::to_string(took_ms) +
                " ms.");
  }
  if (roll_listener_) roll_listener_(base);
  return {};
}

std::error_code log::delete_segment_files(const std::vector<std::shared_ptr<segment>>& doomed) {
  if (doomed.empty()) return {};
  for (const auto& s : doomed) {
    if (auto ec = s->rename_to_deleted()) return fail(ec);
  }
  for (const auto& s : doomed) {
    if (auto ec = s->remove_files()) return fail(ec);
  }
  // Deletions must be durable before the log moves on, or a crash could
  // bring removed history back.
  if (auto ec = fs_.sync_directory(dir_)) return fail(ec);
  return {};
}

std::error_code log::truncate_to(offset o, int64_t now_ms) {
  if (auto ec = writable()) return ec;
  assert(o >= offset(0));
  if (o >= log_end_offset()) return {};
  if (event_sink_) event_sink_("UnifiedLog", "Truncating to offset " + std::to_string(o.value));
  std::lock_guard lock(flush_mutex_);
  if (current_->segments.front()->base_offset() > o) return truncate_fully_locked(o, now_ms, std::nullopt);
  // Readers are held below o before anything is cut.
  log_end_.store(o.value, std::memory_order_release);
  auto segments = current_->segments;
  auto first_doomed = std::upper_bound(segments.begin(), segments.end(), o,
                                       [](offset v, const std::shared_ptr<segment>& s) { return v < s->base_offset(); });
  std::vector<std::shared_ptr<segment>> doomed(first_doomed, segments.end());
  segments.erase(first_doomed, segments.end());
  publish(std::move(segments));
  // Later segments go (durably) before the cut: a crash in between leaves a
  // prefix of the old history, never a hole before a surviving segment.
  if (auto ec = delete_segment_files(doomed)) return ec;
  uint64_t bytes = 0;
  if (auto ec = active()->truncate_to(o, now_ms, &bytes)) return fail(ec);
  log_start_.store(std::min(log_start_offset(), o).value, std::memory_order_release);
  recovery_point_.store(std::min(recovery_point(), o).value, std::memory_order_release);
  return {};
}

std::error_code log::truncate_fully_and_start_at(offset o, int64_t now_ms, std::optional<offset> log_start) {
  if (auto ec = writable()) return ec;
  assert(o >= offset(0));
  if (event_sink_)
    event_sink_("UnifiedLog", "Truncate and start at offset " + std::to_string(o.value) +
                ", logStartOffset: " + std::to_string(log_start.value_or(o).value));
  std::lock_guard lock(flush_mutex_);
  return truncate_fully_locked(o, now_ms, log_start);
}

std::error_code log::truncate_fully_locked(offset o, int64_t now_ms, std::optional<offset> log_start) {
  auto doomed = current_->segments;
  // The old files leave the segment names first: the new segment may reuse one.
  for (const auto& s : doomed) {
    if (auto ec = s->rename_to_deleted()) return fail(ec);
  }
  std::unique_ptr<segment> fresh;
  if (auto ec = segment::create(fs_, dir_, o, options_for_new_segment(now_ms), &fresh)) return fail(ec);
  log_start_.store(log_start.value_or(o).value, std::memory_order_release);
  std::vector<std::shared_ptr<segment>> segments;
  segments.push_back(std::move(fresh));
  publish(std::move(segments));
  log_end_.store(o.value, std::memory_order_release);
  recovery_point_.store(o.value, std::memory_order_release);
  for (const auto& s : doomed) {
    if (auto ec = s->remove_files()) return fail(ec);
  }
  if (auto ec = fs_.sync_directory(dir_)) return fail(ec);
  directory_dirty_.store(false, std::memory_order_release);
  return {};
}

std::error_code log::delete_prefix(size_t count) {
  if (count == 0) return {};
  auto segments = current_->segments;
  assert(count < segments.size());
  std::vector<std::shared_ptr<segment>> doomed(segments.begin(), segments.begin() + static_cast<ptrdiff_t>(count));
  segments.erase(segments.begin(), segments.begin() + static_cast<ptrdiff_t>(count));
  publish(std::move(segments));
  return delete_segment_files(doomed);
}

std::error_code log::advance_log_start_offset(offset o, int64_t now_ms) {
  if (auto ec = writable()) return ec;
  if (o <= log_start_offset()) return {};
  if (o > log_end_offset()) return log_errc::offset_out_of_range;
  log_start_.store(o.value, std::memory_order_release);
  // Kafka's log-start breach: a segment goes when the next one starts at or
  // below the new log start. The active segment stays.
  const auto& segments = current_->segments;
  size_t count = 0;
  while (count + 1 < segments.size() && segments[count + 1]->base_offset() <= o) ++count;
  return delete_prefix(count);
}

std::error_code log::delete_segments_below(offset o, int64_t now_ms, size_t* deleted) {
  *deleted = 0;
  if (auto ec = writable()) return ec;
  size_t n = current_->segments.size();
  size_t count = 0;
  while (count < n) {
    segment_end e = current_->segments[count]->end();
    if (e.next_offset > o || (count + 1 == n && e.size == 0)) break;
    ++count;
  }
  if (count == 0) return {};
  if (count == n) {
    // Every segment goes: the active one is rolled first so one remains.
    if (auto ec = roll_at(log_end_offset(), now_ms)) return ec;
  }
  if (auto ec = delete_prefix(count)) return ec;
  *deleted = count;
  offset first = current_->segments.front()->base_offset();
  if (first > log_start_offset()) log_start_.store(first.value, std::memory_order_release);
  return {};
}

std::error_code log::detach_segments_before(offset base, int64_t now_ms,
                                            std::vector<std::shared_ptr<segment>>* detached) {
  detached->clear();
  if (auto ec = writable()) return ec;
  if (base > log_end_offset()) return log_errc::offset_out_of_range;
  if (active()->base_offset() < base) {
    if (base != log_end_offset()) return log_errc::offset_out_of_range;
    // Every segment goes: one must remain, so the active one is rolled first.
    if (auto ec = roll_at(base, now_ms)) return ec;
  }
  auto segments = current_->segments;
  auto keep = std::lower_bound(segments.begin(), segments.end(), base,
                               [](const std::shared_ptr<segment>& s, offset v) { return s->base_offset() < v; });
  if (keep == segments.end() || (*keep)->base_offset() != base) return log_errc::offset_out_of_range;
  if (keep == segments.begin()) return {};
  detached->assign(segments.begin(), keep);
  segments.erase(segments.begin(), keep);
  // Lookups stop at the new start before the segments leave (Kafka raises
  // the log start offset first); nothing below it needs recovery any more.
  if (base > log_start_offset()) log_start_.store(base.value, std::memory_order_release);
  {
    std::lock_guard lock(flush_mutex_);
    if (base > recovery_point()) recovery_point_.store(base.value, std::memory_order_release);
  }
  publish(std::move(segments));
  for (const auto& s : *detached) {
    if (auto ec = s->rename_to_deleted()) return fail(ec);
  }
  // The renames are durable before the caller records the new log start.
  if (auto ec = fs_.sync_directory(dir_)) return fail(ec);
  return {};
}

// --- flush ---------------------------------------------------------------------

std::error_code log::flush(offset up_to) {
  std::lock_guard lock(flush_mutex_);
  if (offline()) return log_errc::log_offline;
  offset from = recovery_point();
  up_to = std::min(up_to, log_end_offset());
  if (up_to > from) {
    auto list = snapshot();
    const auto& segments = list->segments;
    ptrdiff_t first = std::max<ptrdiff_t>(floor_index(segments, from), 0);
    for (size_t i = static_cast<size_t>(first); i < segments.size() && segments[i]->base_offset() < up_to; ++i) {
      if (auto ec = segments[i]->flush()) return fail(ec);
    }
  }
  // New segment files are durable only once their directory entry is, even
  // when no record needs syncing (a roll at the recovery point).
  if (directory_dirty_.exchange(false, std::memory_order_acq_rel)) {
    if (auto ec = fs_.sync_directory(dir_)) {
      directory_dirty_.store(true, std::memory_order_release);
      return fail(ec);
    }
  }
  if (up_to > from) recovery_point_.store(up_to.value, std::memory_order_release);
  return {};
}

}  // namespace hw::storage
