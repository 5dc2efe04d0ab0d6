#include "storage/segment.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <limits>
#include <vector>

#include "protocol/records/big_endian.h"

namespace hw::storage {
namespace {

namespace layout = protocol::batch_layout;
using protocol::load_big_endian;

// Header walks read this much at a time; whole-batch walks (recovery,
// timestamp searches) read at least a megabyte, or one batch if larger.
constexpr uint64_t header_chunk_bytes = 4 * 1024;
constexpr uint64_t batch_chunk_bytes = 1024 * 1024;
// Bound on a batch's decompressed records during a timestamp search.
constexpr size_t max_decompressed_records_bytes = 128 * 1024 * 1024;

// Walks the batches of a segment file between two positions, reading in
// chunks so that a walk over many small batches costs few syscalls. A
// header walk guarantees the 61 header bytes of each batch; a whole-batch
// walk the complete batch. Checks framing only (length, magic 2).
class batch_cursor {
 public:
  enum class step { batch, end, partial, malformed, io_error };

  batch_cursor(file& f, uint64_t position, uint64_t limit, bool whole_batches)
      : file_(f), next_(position), limit_(limit), whole_(whole_batches) {}

  step next() {
    if (next_ >= limit_) return step::end;
    uint64_t left = limit_ - next_;
    if (left < layout::header_bytes) return step::partial;
    if (!fill(next_, layout::header_bytes)) return error_ ? step::io_error : step::partial;
    const uint8_t* h = at(next_);
    int32_t length = load_big_endian<int32_t>(h + layout::batch_length);
    auto magic = static_cast<int8_t>(h[layout::magic]);
    if (length < layout::min_batch_length) {
      problem_ = "batch length " + std::to_string(length) + " below the v2 header size";
      return step::malformed;
    }
    if (magic != layout::current_magic) {
      problem_ = "magic " + std::to_string(magic) + " is not 2";
      return step::malformed;
    }
    uint64_t size = layout::log_overhead + static_cast<uint64_t>(length);
    if (size > left) return step::partial;
    if (whole_ && !fill(next_, size)) return error_ ? step::io_error : step::partial;
    batch_ = protocol::record_batch_view({at(next_), whole_ ? size : layout::header_bytes});
    position_ = next_;
    size_ = size;
    next_ += size;
    return step::batch;
  }

  const protocol::record_batch_view& batch() const { return batch_; }
  uint32_t position() const { return static_cast<uint32_t>(position_); }
  uint32_t size() const { return static_cast<uint32_t>(size_); }
  uint64_t next_position() const { return next_; }
  std::error_code error() const { return error_; }
  const std::string& problem() const { return problem_; }

 private:
  const uint8_t* at(uint64_t pos) const { return buf_.data() + (pos - buf_start_); }

  bool fill(uint64_t pos, uint64_t need) {
    if (pos >= buf_start_ && pos + need <= buf_start_ + buf_len_) return true;
    uint64_t want = std::min(std::max(need, whole_ ? batch_chunk_bytes : header_chunk_bytes), limit_ - pos);
    if (buf_.size() < want) buf_.resize(want);
    size_t got = 0;
    if (auto ec = file_.read_at(pos, {buf_.data(), static_cast<size_t>(want)}, &got)) {
      error_ = ec;
      return false;
    }
    buf_start_ = pos;
    buf_len_ = got;
    return got >= need;  // short: the file shrank under a reader
  }

  file& file_;
  uint64_t next_;
  uint64_t limit_;
  bool whole_;
  std::vector<uint8_t> buf_;
  uint64_t buf_start_ = 0;
  uint64_t buf_len_ = 0;
  protocol::record_batch_view batch_;
  uint64_t position_ = 0;
  uint64_t size_ = 0;
  std::error_code error_;
  std::string problem_;
};

std::optional<leader_epoch> epoch_of(const protocol::record_batch_view& b) {
  int32_t e = b.partition_leader_epoch();
  if (e < 0) return std::nullopt;
  return leader_epoch(e);
}

std::filesystem::path with_suffix(const std::filesystem::path& p, std::string_view suffix) {
  std::filesystem::path out = p;
  out += std::string(suffix);
  return out;
}

class log_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "hw.storage.log"; }
  std::string message(int v) const override {
    switch (static_cast<log_errc>(v)) {
      case log_errc::offset_out_of_range: return "offset out of range";
      case log_errc::log_offline: return "log is offline after a storage error, or closed";
      case log_errc::record_batch_too_large: return "append larger than segment.bytes";
      case log_errc::offset_overflow: return "offsets do not fit one segment";
      case log_errc::unexpected_append_offset: return "append starts below the log end offset";
      case log_errc::offsets_out_of_order: return "batch offsets do not increase";
      case log_errc::invalid_records: return "not a sequence of whole v2 record batches";
      case log_errc::segments_changed: return "the cleaned segments no longer match the log";
    }
    return "unknown log error";
  }
};

}  // namespace

const std::error_category& log_category() {
  static const log_error_category category;
  return category;
}

std::error_code make_error_code(log_errc e) { return {static_cast<int>(e), log_category()}; }

std::string segment_file_name(offset base, std::string_view suffix) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(base.value));
  return std::string(digits) + std::string(suffix);
}

std::optional<offset> offset_from_file_name(std::string_view name) {
  size_t dot = name.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot > 20) return std::nullopt;
  int64_t v = 0;
  for (char c : name.substr(0, dot)) {
    if (c < '0' || c > '9') return std::nullopt;
    if (v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return offset(v);
}

// --- opening ---------------------------------------------------------------

segment::segment(file_system& fs, std::filesystem::path dir, offset base, const segment_options& options,
                 std::string_view file_suffix)
    : fs_(fs),
      dir_(std::move(dir)),
      log_path_(dir_ / (segment_file_name(base, log_file_suffix) + std::string(file_suffix))),
      base_offset_(base),
      file_suffix_(file_suffix),
      options_(options),
      next_offset_(base),
      max_timestamp_{no_timestamp, base},
      created_ms_(options.now_ms) {}

segment::~segment() = default;

std::error_code segment::open_files(open_mode mode) {
  std::unique_ptr<file> f;
  if (auto ec = fs_.open(log_path_, mode, &f)) return ec;
  log_ = std::move(f);
  auto index_path = dir_ / (segment_file_name(base_offset_, index_file_suffix) + file_suffix_);
  if (auto ec = offset_index::open(fs_, index_path, base_offset_, options_.max_index_bytes, &offset_index_))
    return ec;
  auto time_path = dir_ / (segment_file_name(base_offset_, time_index_file_suffix) + file_suffix_);
  return time_index::open(fs_, time_path, base_offset_, options_.max_index_bytes, &time_index_);
}

// A `.txnindex` failing its checks is emptied and the segment recovered, as
// Kafka's loader does with a corrupt index; without a problem slot (a new
// segment) any failure is returned.
std::error_code segment::open_txn_index(std::optional<std::string>* problem) {
  auto path = dir_ / (segment_file_name(base_offset_, txn_index_file_suffix) + file_suffix_);
  auto err = transaction_index::open(fs_, path, base_offset_, &txn_index_);
  if (!err) return {};
  if (err.code.category() != storage_category() || !problem) return err.code;
  if (!*problem) *problem = err.message;
  std::unique_ptr<file> f;
  if (auto ec = fs_.open(path, open_mode::read_write, &f)) return ec;
  if (auto ec = f->truncate(0)) return ec;
  if (auto ec = f->sync()) return ec;
  return transaction_index::open(fs_, path, base_offset_, &txn_index_).code;
}

std::error_code segment::create(file_system& fs, const std::filesystem::path& dir, offset base,
                                const segment_options& options, std::unique_ptr<segment>* out,
                                std::string_view file_suffix) {
  auto s = std::unique_ptr<segment>(new segment(fs, dir, base, options, file_suffix));
  if (auto ec = s->open_files(open_mode::create_exclusive)) return ec;
  if (auto ec = s->open_txn_index(nullptr)) return ec;
  s->publish_end(base, 0);
  *out = std::move(s);
  return {};
}

std::error_code segment::open(file_system& fs, const std::filesystem::path& dir, offset base,
                              const segment_options& options, std::unique_ptr<segment>* out,
                              std::optional<std::string>* index_problem) {
  auto s = std::unique_ptr<segment>(new segment(fs, dir, base, options));
  index_problem->reset();
  if (!fs.exists(dir / segment_file_name(base, index_file_suffix)))
    *index_problem = "offset index file is missing";
  else if (!fs.exists(dir / segment_file_name(base, time_index_file_suffix)))
    *index_problem = "time index file is missing";
  if (auto ec = s->open_files(open_mode::read_write)) return ec;
  if (auto ec = s->open_txn_index(index_problem)) return ec;
  uint64_t size = 0;
  if (auto ec = s->log_->size(&size)) return ec;
  if (size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    // Positions are int32: recovery keeps what fits.
    if (!*index_problem) *index_problem = "log file larger than 2 GiB";
    size = std::numeric_limits<int32_t>::max();
  }
  s->size_ = static_cast<uint32_t>(size);
  if (!*index_problem) {
    if (auto ec = s->load_state(index_problem)) return ec;
  }
  *out = std::move(s);
  return {};
}

// Trusts the indexes if they pass the sanity checks, and takes the next
// offset from the batches after the last offset index entry. The max
// timestamp is the larger of the last time index entry and those batches':
// the time index holds the max up to the last offset index entry (it is
// synced before the offset index), but its final entry, written when the
// segment stopped being active, may not have reached the disk.
std::error_code segment::load_state(std::optional<std::string>* problem) {
  if ((*problem = offset_index_->sanity_check(size_))) return {};
  size_t entries = offset_index_->entries();
  offset_position last = entries ? offset_index_->entry(entries - 1) : offset_position{base_offset_, 0};
  batch_cursor c(*log_, last.position, size_, false);
  offset next = base_offset_;
  timestamp_offset tail_max{no_timestamp, base_offset_};
  for (bool first = true;; first = false) {
    auto st = c.next();
    if (st == batch_cursor::step::end) break;
    if (st == batch_cursor::step::io_error) return c.error();
    if (st != batch_cursor::step::batch) {
      *problem = "log does not end on a batch boundary (at position " + std::to_string(c.next_position()) + ")";
      return {};
    }
    const auto& b = c.batch();
    if (first && entries && b.last_offset() != last.offset.value) {
      *problem = "last offset index entry does not match the batch at position " + std::to_string(last.position);
      return {};
    }
    if (b.max_timestamp() > tail_max.timestamp) tail_max = {b.max_timestamp(), offset(b.last_offset())};
    next = offset(b.next_offset());
  }
  if ((*problem = time_index_->sanity_check(next))) return {};
  next_offset_ = next;
  timestamp_offset max = time_index_->last_entry();
  if (tail_max.timestamp > max.timestamp) {
    max = tail_max;
    if (time_index_->entries() < time_index_->max_entries()) time_index_->maybe_append(max.timestamp, max.offset, true);
  }
  set_max_timestamp(max.timestamp, max.offset);
  publish_end(next_offset_, size_);
  return {};
}

std::error_code segment::scan_next_offset(file_system& fs, const std::filesystem::path& log_path, offset base,
                                          offset* out) {
  std::unique_ptr<file> f;
  if (auto ec = fs.open(log_path, open_mode::read_only, &f)) return ec;
  uint64_t size = 0;
  if (auto ec = f->size(&size)) return ec;
  batch_cursor c(*f, 0, size, false);
  *out = base;
  for (;;) {
    auto st = c.next();
    if (st == batch_cursor::step::io_error) return c.error();
    if (st != batch_cursor::step::batch) return {};
    *out = offset(c.batch().next_offset());
  }
}

// --- published state -------------------------------------------------------

void segment::publish_end(offset next, uint32_t size) {
  int64_t relative = next - base_offset_;
  assert(relative >= 0 && relative <= (int64_t{1} << 32) - 1);
  end_.store((static_cast<uint64_t>(relative) << 32) | size, std::memory_order_release);
}

segment_end segment::end() const {
  uint64_t v = end_.load(std::memory_order_acquire);
  return {base_offset_ + static_cast<int64_t>(v >> 32), static_cast<uint32_t>(v)};
}

void segment::set_max_timestamp(int64_t timestamp, offset o) {
  std::lock_guard lock(max_timestamp_mutex_);
  max_timestamp_ = {timestamp, o};
}

timestamp_offset segment::max_timestamp_so_far() const {
  std::lock_guard lock(max_timestamp_mutex_);
  return max_timestamp_;
}

std::error_code segment::first_batch_timestamp(std::optional<int64_t>* out) const {
  out->reset();
  batch_cursor c(*log_, 0, end().size, false);
  auto st = c.next();
  if (st == batch_cursor::step::io_error) return c.error();
  if (st == batch_cursor::step::batch) *out = c.batch().max_timestamp();
  return {};
}

// --- reading ---------------------------------------------------------------

std::error_code segment::translate_offset(offset target, uint32_t start_position, uint32_t limit,
                                          std::optional<batch_position>* out) const {
  out->reset();
  uint32_t from = std::max(offset_index_->lookup(target).position, start_position);
  batch_cursor c(*log_, from, limit, false);
  for (;;) {
    auto st = c.next();
    if (st == batch_cursor::step::io_error) return c.error();
    if (st != batch_cursor::step::batch) return {};
    const auto& b = c.batch();
    if (b.last_offset() >= target.value) {
      *out = batch_position{offset(b.base_offset()), offset(b.last_offset()), c.position(), c.size()};
      return {};
    }
  }
}

std::error_code segment::read(offset start_offset, int32_t max_bytes, uint32_t max_position, bool min_one_batch,
                              segment_read_result* out) const {
  assert(max_bytes >= 0);
  *out = {};
  std::optional<batch_position> first;
  if (auto ec = translate_offset(start_offset, 0, end().size, &first)) return ec;
  if (!first) return {};
  out->found = true;
  out->log_file = log_;
  out->position = first->position;
  out->first_batch = *first;
  uint64_t adjusted = static_cast<uint64_t>(max_bytes);
  if (min_one_batch) adjusted = std::max<uint64_t>(adjusted, first->size);
  uint64_t room = max_position > first->position ? max_position - first->position : 0;
  out->length = std::min(room, adjusted);
  out->first_batch_incomplete = adjusted < first->size;
  return {};
}

std::error_code segment::scan_records(uint32_t from, uint32_t limit,
                                      const std::function<bool(const protocol::record_batch_view&)>& visit) const {
  batch_cursor c(*log_, from, limit, true);
  for (;;) {
    auto st = c.next();
    if (st == batch_cursor::step::io_error) return c.error();
    // Anything but a batch ends the walk: a reader may race a truncation.
    if (st != batch_cursor::step::batch) return {};
    if (visit(c.batch())) return {};
  }
}

std::error_code segment::find_offset_by_timestamp(int64_t target, offset starting_offset,
                                                  std::optional<timestamp_and_offset>* out) const {
  out->reset();
  timestamp_offset floor = time_index_->lookup(target);
  uint32_t from = offset_index_->lookup(std::max(floor.offset, starting_offset)).position;
  std::vector<uint8_t> scratch;
  return scan_records(from, end().size, [&](const protocol::record_batch_view& b) {
    if (b.max_timestamp() < target) return false;
    protocol::record_iterator it;
    if (b.validate_header() != protocol::batch_error::none ||
        b.open_records(scratch, max_decompressed_records_bytes, it) != protocol::batch_error::none)
      return false;
    protocol::record_view r;
    while (it.next(r)) {
      if (r.timestamp >= target && r.offset >= starting_offset.value) {
        *out = timestamp_and_offset{r.timestamp, offset(r.offset), epoch_of(b)};
        return true;
      }
    }
    return false;
  });
}

std::error_code segment::find_max_timestamp_record(std::optional<timestamp_and_offset>* out) const {
  out->reset();
  timestamp_offset max = max_timestamp_so_far();
  uint32_t from = offset_index_->lookup(max.offset).position;
  std::vector<uint8_t> scratch;
  return scan_records(from, end().size, [&](const protocol::record_batch_view& b) {
    if (b.max_timestamp() != max.timestamp) return false;
    protocol::record_iterator it;
    if (b.validate_header() != protocol::batch_error::none ||
        b.open_records(scratch, max_decompressed_records_bytes, it) != protocol::batch_error::none)
      return true;
    protocol::record_view r;
    while (it.next(r)) {
      if (r.timestamp == max.timestamp) {
        *out = timestamp_and_offset{b.max_timestamp(), offset(r.offset), epoch_of(b)};
        break;
      }
    }
    return true;  // Kafka looks in the first batch carrying the max only
  });
}

std::error_code segment::collect_aborted_txns(offset fetch_start, offset fetch_upper,
                                             aborted_txn_search* out) const {
  return txn_index_->collect_aborted(fetch_start, fetch_upper, out).code;
}

// --- writing ---------------------------------------------------------------

void segment::index_batch(offset last_offset, int64_t max_timestamp, uint32_t position, uint32_t size) {
  if (max_timestamp > max_timestamp_.timestamp) set_max_timestamp(max_timestamp, last_offset);
  if (bytes_since_last_index_entry_ > static_cast<uint32_t>(std::max(options_.index_interval_bytes, 0))) {
    // A multi-batch append may reach a full index before the next roll
    // check; the index then stays sparser, which lookups tolerate.
    if (!offset_index_->full()) offset_index_->append(last_offset, position);
    if (!time_index_->full()) time_index_->maybe_append(max_timestamp_.timestamp, max_timestamp_.offset);
    bytes_since_last_index_entry_ = 0;
  }
  bytes_since_last_index_entry_ += size;
}

std::error_code segment::append(std::span<const uint8_t> batches) {
  assert(!batches.empty());
  assert(batches.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()) - size_ &&
         "segment would pass 2 GiB; the log should have rolled");
  if (auto ec = log_->write_at(size_, batches)) return ec;
  protocol::record_batch_walker walker(batches);
  protocol::record_batch_view b;
  uint32_t position = size_;
  while (walker.next(b)) {
    assert(b.base_offset() >= next_offset_.value && "appended offsets must increase");
    assert(offset_index_->can_append_offset(offset(b.last_offset())) && "offset overflows the segment");
    if (position == 0 && !rolling_based_timestamp_) rolling_based_timestamp_ = b.max_timestamp();
    auto size = static_cast<uint32_t>(b.size_bytes());
    index_batch(offset(b.last_offset()), b.max_timestamp(), position, size);
    position += size;
    next_offset_ = offset(b.next_offset());
  }
  assert(walker.error() == protocol::batch_error::none && walker.partial_tail_bytes() == 0 &&
         "segment::append takes whole batches only");
  size_ = position;
  publish_end(next_offset_, size_);
  return {};
}

std::error_code segment::append_aborted_txn(const aborted_txn& txn) {
  assert(txn.last_offset >= base_offset_ && "an abort belongs to the segment holding its marker");
  // The lock orders the index's file creation with a flush on the pool.
  std::lock_guard lock(file_mutex_);
  return txn_index_->append(txn).code;
}

bool segment::should_roll(const roll_params& p) const {
  // Kafka's timeWaitedForRoll: from the first batch's timestamp when it has
  // one, else from the segment's creation (wall clock).
  auto* self = const_cast<segment*>(this);
  if (!rolling_based_timestamp_ && size_ > 0) {
    batch_cursor c(*log_, 0, size_, false);
    if (c.next() == batch_cursor::step::batch) self->rolling_based_timestamp_ = c.batch().max_timestamp();
  }
  int64_t waited = rolling_based_timestamp_ && *rolling_based_timestamp_ >= 0
                       ? p.max_timestamp_in_messages - *rolling_based_timestamp_
                       : p.now_ms - created_ms_;
  bool reached_roll_ms = waited > p.max_segment_ms - options_.roll_jitter_ms;
  return static_cast<int64_t>(size_) > static_cast<int64_t>(p.max_segment_bytes) - p.messages_bytes ||
         (size_ > 0 && reached_roll_ms) || offset_index_->full() || time_index_->full() ||
         !offset_index_->can_append_offset(p.max_offset_in_messages);
}

// Kafka's readLargestTimestamp: the last time index entry, or a larger batch
// timestamp found after it.
std::error_code segment::recompute_max_timestamp() {
  timestamp_offset best = time_index_->last_entry();
  uint32_t from = offset_index_->lookup(best.offset).position;
  batch_cursor c(*log_, from, size_, false);
  for (;;) {
    auto st = c.next();
    if (st == batch_cursor::step::io_error) return c.error();
    if (st != batch_cursor::step::batch) break;
    if (c.batch().max_timestamp() > best.timestamp)
      best = {c.batch().max_timestamp(), offset(c.batch().last_offset())};
  }
  set_max_timestamp(best.timestamp, best.offset);
  return {};
}

std::error_code segment::truncate_to(offset o, int64_t now_ms, uint64_t* bytes_truncated) {
  std::lock_guard lock(file_mutex_);
  *bytes_truncated = 0;
  std::optional<batch_position> cut;
  if (auto ec = translate_offset(o, 0, size_, &cut)) return ec;
  offset_index_->truncate_to(o);
  time_index_->truncate_to(o);
  bytes_since_last_index_entry_ = 0;
  // The next offset drops to o even when no batch is cut (o may lie past
  // the data after an earlier truncation inside a batch), as Kafka's log end.
  offset next = std::min(next_offset_, std::max(o, base_offset_));
  if (cut) {
    *bytes_truncated = size_ - cut->position;
    size_ = cut->position;
  }
  if (cut || next != next_offset_) {
    next_offset_ = next;
    publish_end(next_offset_, size_);  // readers stop short before the bytes go
  }
  if (cut) {
    if (auto ec = log_->truncate(size_)) return ec;
  }
  // Aborts whose marker was cut go too (Kafka's txnIndex.truncateTo).
  if (auto err = txn_index_->truncate_to(o)) return err.code;
  if (size_ == 0) {
    rolling_based_timestamp_.reset();
    created_ms_ = now_ms;
  }
  if (auto ec = recompute_max_timestamp()) return ec;
  // The cut must be durable before new data lands at the same offsets, or a
  // crash could bring back the truncated history. The time index is synced
  // before the offset index: on disk it is never the older of the two.
  if (auto ec = log_->sync()) return ec;
  if (auto err = txn_index_->flush()) return err.code;
  if (auto ec = time_index_->flush()) return ec;
  return offset_index_->flush();
}

std::error_code segment::recover(const batch_visitor& visit, recovery_result* out) {
  std::lock_guard lock(file_mutex_);
  *out = {};
  offset_index_->reset();
  time_index_->reset();
  if (auto err = txn_index_->reset()) return err.code;
  timestamp_offset max{no_timestamp, base_offset_};
  uint64_t file_size = 0;
  if (auto ec = log_->size(&file_size)) return ec;
  uint64_t limit = std::min<uint64_t>(file_size, std::numeric_limits<int32_t>::max());
  batch_cursor c(*log_, 0, limit, true);
  uint32_t valid = 0, last_index_entry = 0;
  offset expected = base_offset_;
  for (;;) {
    auto st = c.next();
    if (st == batch_cursor::step::io_error) return c.error();
    if (st == batch_cursor::step::end) break;
    std::string at = "at position " + std::to_string(valid) + ": ";
    if (st == batch_cursor::step::partial) {
      out->stop_reason = at + "a batch cut short by the end of the file";
      break;
    }
    if (st == batch_cursor::step::malformed) {
      out->stop_reason = at + c.problem();
      break;
    }
    const auto& b = c.batch();
    if (auto e = b.validate(); e != protocol::batch_error::none) {
      out->stop_reason = at + std::string(protocol::batch_error_name(e));
      break;
    }
    if (b.base_offset() < expected.value) {
      out->stop_reason = at + "base offset " + std::to_string(b.base_offset()) + " below " + std::to_string(expected.value);
      break;
    }
    if (!offset_index_->can_append_offset(offset(b.last_offset()))) {
      out->stop_reason = at + "last offset " + std::to_string(b.last_offset()) + " overflows the segment";
      break;
    }
    if (b.max_timestamp() > max.timestamp) max = {b.max_timestamp(), offset(b.last_offset())};
    if (valid - last_index_entry > static_cast<uint32_t>(std::max(options_.index_interval_bytes, 0))) {
      if (!offset_index_->full()) offset_index_->append(offset(b.last_offset()), valid);
      if (!time_index_->full()) time_index_->maybe_append(max.timestamp, max.offset);
      last_index_entry = valid;
    }
    valid += c.size();
    expected = offset(b.next_offset());
    if (visit) visit(b);
  }
  set_max_timestamp(max.timestamp, max.offset);
  out->bytes_truncated = file_size - valid;
  if (out->bytes_truncated > 0) {
    if (auto ec = log_->truncate(valid)) return ec;
  }
  time_index_->maybe_append(max.timestamp, max.offset, true);
  size_ = valid;
  next_offset_ = expected;
  bytes_since_last_index_entry_ = 0;
  rolling_based_timestamp_.reset();
  publish_end(next_offset_, size_);
  // Durable now: the recovery point may already cover this segment, so no
  // later flush would sync what recovery rewrote.
  if (auto ec = log_->sync()) return ec;
  if (auto err = txn_index_->flush()) return err.code;
  if (auto ec = time_index_->flush()) return ec;
  return offset_index_->flush();
}

std::error_code segment::on_become_inactive() {
  std::lock_guard lock(file_mutex_);
  time_index_->maybe_append(max_timestamp_.timestamp, max_timestamp_.offset, true);
  if (auto ec = offset_index_->write_out()) return ec;
  return time_index_->write_out();
}

// Log, then time index, then offset index (see load_state); then `.txnindex`.
std::error_code segment::flush() {
  std::lock_guard lock(file_mutex_);
  if (auto ec = log_->sync()) return ec;
  if (auto ec = time_index_->flush()) return ec;
  if (auto ec = offset_index_->flush()) return ec;
  return txn_index_->flush().code;
}

std::error_code segment::rename_to_deleted() {
  auto txn_path = dir_ / segment_file_name(base_offset_, txn_index_file_suffix);
  if (fs_.exists(txn_path)) {
    if (auto ec = fs_.rename(txn_path, with_suffix(txn_path, deleted_file_suffix))) return ec;
  }
  auto log_deleted = with_suffix(log_path_, deleted_file_suffix);
  if (auto ec = fs_.rename(log_path_, log_deleted)) return ec;
  log_path_ = log_deleted;
  auto index_deleted = with_suffix(offset_index_->path(), deleted_file_suffix);
  if (auto ec = fs_.rename(offset_index_->path(), index_deleted)) return ec;
  offset_index_->set_path(index_deleted);
  auto time_deleted = with_suffix(time_index_->path(), deleted_file_suffix);
  if (auto ec = fs_.rename(time_index_->path(), time_deleted)) return ec;
  time_index_->set_path(time_deleted);
  return {};
}

std::error_code segment::remove_files() {
  auto txn_deleted = with_suffix(dir_ / segment_file_name(base_offset_, txn_index_file_suffix), deleted_file_suffix);
  for (const auto& p : {log_path_, offset_index_->path(), time_index_->path(), txn_deleted}) {
    if (!fs_.exists(p)) continue;
    if (auto ec = fs_.remove(p)) return ec;
  }
  return {};
}

}  // namespace hw::storage
