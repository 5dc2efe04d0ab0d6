#include "storage/cleaner.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "protocol/records/big_endian.h"
#include "storage/cleaner_offset_map.h"
#include "storage/cleaner_txn.h"

namespace hw::storage {
namespace {

namespace layout = protocol::batch_layout;
using segment_ptr = std::shared_ptr<const segment>;

std::string_view as_chars(protocol::bytes_view b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// Walks the batches of a segment file between two positions, reading in
// chunks of at least io_bytes; a batch larger than the chunk is read whole
// (up to max_batch_bytes, beyond which the segment is refused, as Kafka's
// growBuffersOrFail refuses a batch past max.message.bytes).
class segment_batch_reader {
 public:
  segment_batch_reader(file& f, uint64_t position, uint64_t limit, size_t io_bytes, size_t max_batch_bytes)
      : file_(f), next_(position), limit_(limit), io_bytes_(io_bytes), max_batch_bytes_(max_batch_bytes) {}

  // *done at the end; an error for I/O or a batch that cannot be framed.
  std::error_code next(protocol::record_batch_view* out, bool* done) {
    *done = next_ >= limit_;
    if (*done) return {};
    if (auto ec = fill(layout::log_overhead)) return ec;
    int32_t length = protocol::load_big_endian<int32_t>(at(next_) + layout::batch_length);
    if (length < layout::min_batch_length) return log_errc::invalid_records;
    uint64_t size = layout::log_overhead + static_cast<uint64_t>(length);
    if (size > max_batch_bytes_ || next_ + size > limit_) return log_errc::invalid_records;
    if (auto ec = fill(size)) return ec;
    *out = protocol::record_batch_view({at(next_), size});
    if (out->magic() != layout::current_magic) return log_errc::invalid_records;
    next_ += size;
    return {};
  }
  uint64_t position() const { return next_; }

 private:
  const uint8_t* at(uint64_t pos) const { return buf_.data() + (pos - buf_start_); }

  std::error_code fill(uint64_t need) {
    if (next_ >= buf_start_ && next_ + need <= buf_start_ + buf_len_) return {};
    uint64_t want = std::min<uint64_t>(std::max<uint64_t>(need, io_bytes_), limit_ - next_);
    if (want < need) return log_errc::invalid_records;
    buf_.resize(want);
    size_t got = 0;
    if (auto ec = file_.read_at(next_, {buf_.data(), static_cast<size_t>(want)}, &got)) return ec;
    if (got < need) return log_errc::invalid_records;  // the file shrank: truncated under us
    buf_start_ = next_;
    buf_len_ = got;
    return {};
  }

  file& file_;
  uint64_t next_;
  uint64_t limit_;
  size_t io_bytes_;
  size_t max_batch_bytes_;
  std::vector<uint8_t> buf_;
  uint64_t buf_start_ = 0;
  uint64_t buf_len_ = 0;
};

size_t max_batch_bytes(const log_config& log_cfg, const cleaner_config& config) {
  return std::max<size_t>(static_cast<size_t>(std::max(log_cfg.max_message_bytes, 0)) + layout::log_overhead,
                          config.io_buffer_bytes);
}

// Segments overlapping [from, to) (Kafka's logSegments), as indices.
std::pair<size_t, size_t> overlapping(const std::vector<segment_ptr>& segs, offset from, offset to) {
  size_t first = segs.size(), last = 0;
  for (size_t i = 0; i < segs.size(); ++i) {
    bool before_to = segs[i]->base_offset() < to;
    bool after_from = i + 1 == segs.size() || segs[i + 1]->base_offset() > from;
    if (before_to && after_from) {
      first = std::min(first, i);
      last = i + 1;
    }
  }
  return {std::min(first, last), last};
}

class cleaner_pass {
 public:
  cleaner_pass(file_system& fs, const log& l, const cleaner_config& config, const cleaning_request& request,
               cleaning_result* out)
      : fs_(fs),
        log_(l),
        config_(config),
        request_(request),
        out_(out),
        map_(static_cast<uint64_t>(static_cast<double>(config.dedupe_buffer_bytes) * config.dedupe_buffer_load_factor)),
        segments_(l.segments()) {}

  std::error_code run() {
    *out_ = {};
    out_->end_offset = request_.first_dirty_offset;
    auto [first, last] = overlapping(segments_, request_.first_dirty_offset, request_.first_uncleanable_offset);
    if (first >= last) return {};
    if (auto ec = build_map(first, last)) return ec;
    if (map_.latest_offset() < offset(0)) return {};
    out_->end_offset = map_.latest_offset() + 1;
    out_->stats.map_entries = map_.size();
    out_->stats.map_utilization = map_.utilization();
    auto [_, below_end] = overlapping(segments_, offset(-1), out_->end_offset);
    for (const auto& group : group_segments(below_end)) {
      if (auto ec = clean_group(group)) {
        for (const auto& s : out_->swaps) (void)discard(s.base_offset);
        out_->swaps.clear();
        return ec;
      }
    }
    return {};
  }

 private:
  std::error_code discard(offset base) {
    for (auto suffix : {log_file_suffix, index_file_suffix, time_index_file_suffix, txn_index_file_suffix}) {
      auto p = log_.dir() / (segment_file_name(base, suffix) + std::string(cleaned_file_suffix));
      if (fs_.exists(p)) {
        if (auto ec = fs_.remove(p)) return ec;
      }
    }
    return {};
  }

  // --- the offset map (Kafka's buildOffsetMap) ---

  std::error_code build_map(size_t first, size_t last) {
    offset start = request_.first_dirty_offset, end = request_.first_uncleanable_offset;
    cleaner_txn_tracker txns;
    std::vector<aborted_txn> aborted;
    if (auto ec = log_.collect_aborted_transactions(start, end, &aborted)) return ec;
    txns.add_aborted_transactions(aborted);
    for (size_t i = first; i < last; ++i) {
      offset next_start = i + 1 < last ? segments_[i + 1]->base_offset() : end;
      bool full = false;
      if (auto ec = map_segment(*segments_[i], start, txns, &full)) return ec;
      if (full) break;
      map_.update_latest_offset(next_start - 1);
    }
    return {};
  }

  std::error_code map_segment(const segment& s, offset start, cleaner_txn_tracker& txns, bool* full) {
    uint32_t from = s.offsets().lookup(start).position;
    auto file = s.log_file();
    segment_batch_reader reader(*file, from, s.end().size, config_.io_buffer_bytes, max_batch_bytes(request_.config, config_));
    std::vector<uint8_t> scratch;
    std::vector<aborted_txn> ignored;
    for (;;) {
      protocol::record_batch_view b;
      bool done = false;
      if (auto ec = reader.next(&b, &done)) return ec;
      if (done) return {};
      out_->stats.map_bytes_read += b.size_bytes();
      if (b.is_control()) {
        txns.on_control_batch_read(b, &ignored);
      } else if (!txns.on_batch_read(b)) {
        if (b.validate_header() != protocol::batch_error::none) return log_errc::invalid_records;
        protocol::record_iterator it;
        if (b.open_records(scratch, 256 << 20, it) != protocol::batch_error::none) return log_errc::invalid_records;
        protocol::record_view r;
        while (it.next(r)) {
          ++out_->stats.map_records_read;
          if (!r.key || r.offset < start.value) continue;
          if (!map_.has_room_for(as_chars(*r.key))) {
            *full = true;
            return {};
          }
          map_.put(as_chars(*r.key), offset(r.offset));
        }
        if (it.error() != protocol::batch_error::none) return log_errc::invalid_records;
      }
      if (b.last_offset() >= start.value) map_.update_latest_offset(offset(b.last_offset()));
    }
  }

  // --- grouping (Kafka's groupSegmentsBySize) ---

  std::vector<std::vector<segment_ptr>> group_segments(size_t count) const {
    const auto& cfg = request_.config;
    std::vector<std::vector<segment_ptr>> groups;
    size_t i = 0;
    while (i < count) {
      std::vector<segment_ptr> group{segments_[i]};
      uint64_t log_size = segments_[i]->end().size;
      uint64_t index_size = segments_[i]->offsets().entries() * offset_index::entry_bytes;
      uint64_t time_size = segments_[i]->times().entries() * time_index::entry_bytes;
      ++i;
      while (i < count) {
        const auto& s = segments_[i];
        uint64_t size = s->end().size;
        uint64_t idx = s->offsets().entries() * offset_index::entry_bytes;
        uint64_t tim = s->times().entries() * time_index::entry_bytes;
        // The estimated last offset of s: the next base, or the end of the round.
        offset last_of_s = i + 1 < segments_.size() && i + 1 < count ? segments_[i + 1]->base_offset() - 1
                                                                   : request_.first_uncleanable_offset - 1;
        bool fits = log_size + size <= static_cast<uint64_t>(std::max(cfg.segment_bytes, 0)) &&
                    index_size + idx <= static_cast<uint64_t>(std::max(cfg.segment_index_bytes, 0)) &&
                    time_size + tim <= static_cast<uint64_t>(std::max(cfg.segment_index_bytes, 0)) &&
                    (size == 0 || last_of_s - group.front()->base_offset() <= std::numeric_limits<int32_t>::max());
        if (!fits) break;
        group.push_back(s);
        log_size += size;
        index_size += idx;
        time_size += tim;
        ++i;
      }
      groups.push_back(std::move(group));
    }
    return groups;
  }

  // --- rewriting one group (Kafka's cleanSegments / cleanInto) ---

  std::error_code clean_group(const std::vector<segment_ptr>& group) {
    offset base = group.front()->base_offset();
    if (auto ec = discard(base)) return ec;  // leftovers of an abandoned pass
    const auto& cfg = request_.config;
    segment_options options{cfg.index_interval_bytes, cfg.segment_index_bytes, 0, request_.now_ms};
    std::unique_ptr<segment> cleaned;
    if (auto ec = segment::create(fs_, log_.dir(), base, options, &cleaned, cleaned_file_suffix)) return ec;
    cleaned_segment_swap swap{base, {}, {}};
    out_->swaps.push_back(swap);  // listed first, so an error below removes its files
    const offset group_end = group.back()->end().next_offset;
    for (size_t i = 0; i < group.size(); ++i) {
      const auto& s = group[i];
      segment_end end = s->end();
      offset upper = i + 1 < group.size() ? group[i + 1]->base_offset() : end.next_offset;
      std::vector<aborted_txn> aborted;
      if (auto ec = log_.collect_aborted_transactions(s->base_offset(), upper, &aborted)) return ec;
      txns_.add_aborted_transactions(aborted);
      if (auto ec = clean_into(*s, end, group_end, *cleaned)) return ec;
      out_->swaps.back().replaced.push_back(s);
      out_->swaps.back().replaced_ends.push_back(end);
      ++out_->stats.segments_read;
    }
    if (auto ec = cleaned->on_become_inactive()) return ec;
    if (auto ec = cleaned->flush()) return ec;
    ++out_->stats.segments_written;
    return {};
  }

  std::error_code clean_into(const segment& source, segment_end end, offset group_end, segment& dest) {
    auto file = source.log_file();
    segment_batch_reader reader(*file, 0, end.size, config_.io_buffer_bytes, max_batch_bytes(request_.config, config_));
    cleaner_filter_context ctx{&map_, &txns_, &request_.producers, request_.now_ms, request_.config.delete_retention_ms,
                               request_.first_uncleanable_offset, group_end};
    std::vector<uint8_t> pending;
    std::vector<aborted_txn> index_entries;
    for (;;) {
      protocol::record_batch_view b;
      bool done = false;
      if (auto ec = reader.next(&b, &done)) return ec;
      if (done) break;
      index_entries.clear();
      if (filter_batch(b, ctx, pending, &index_entries, &out_->stats.filter) != protocol::batch_error::none)
        return log_errc::invalid_records;
      for (const auto& txn : index_entries) {
        if (auto ec = dest.append_aborted_txn(txn)) return ec;
      }
      if (pending.size() >= config_.io_buffer_bytes) {
        if (auto ec = dest.append(pending)) return ec;
        pending.clear();
      }
    }
    if (!pending.empty()) return dest.append(pending);
    return {};
  }

  file_system& fs_;
  const log& log_;
  const cleaner_config& config_;
  const cleaning_request& request_;
  cleaning_result* out_;
  cleaner_offset_map map_;
  cleaner_txn_tracker txns_;
  std::vector<segment_ptr> segments_;
};

}  // namespace

std::error_code clean_log(file_system& fs, const log& l, const cleaner_config& config, const cleaning_request& request,
                          cleaning_result* out) {
  cleaner_pass pass(fs, l, config, request, out);
  return pass.run();
}

}  // namespace hw::storage
