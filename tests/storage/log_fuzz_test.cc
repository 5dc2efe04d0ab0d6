// An operation-sequence fuzzer for storage/log on the crash-modelling
// storage/io/faulty_file_system: random leader and follower appends, rolls,
// truncations, reads, timestamp lookups, flushes, log-start moves, segment
// deletes, injected write/fsync failures, crashes between operations
// (unsynced data lost) and inside them (at a random file-system call), with
// unclean reopen, and clean close/reopen, all checked against an in-memory
// model of the log's batches.
//
// After a crash the log must hold a prefix of the model (before or after the
// interrupted operation) that includes every record below the recovery
// point the log had published; after a clean close, everything. Each seed is
// deterministic (no clock, no threads): a failure prints the seed and the
// last operations, and
//   HW_LOG_FUZZ_SEED=<seed> [HW_LOG_FUZZ_OPS=<n>] [HW_LOG_FUZZ_DEBUG=1]
//     storage_log_tests --gtest_filter='LogFuzz*'
// replays it exactly (DEBUG streams each operation and the segments).
// HW_LOG_FUZZ_SEEDS=<n> runs seeds 1..n (default 200, 500 operations each).

#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <iostream>
#include <random>
#include <sstream>

#include "storage/io/faulty_file_system.h"
#include "storage/log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

const std::filesystem::path kDir = "/kafka-logs/fuzz-0";

struct model_batch {
  int64_t base = 0;
  int64_t last = 0;
  std::vector<read_record> records;
};

class log_fuzzer {
 public:
  explicit log_fuzzer(uint64_t seed) : seed_(seed), rng_(seed) {
    config_.segment_bytes = pick(600, 8000);
    config_.index_interval_bytes = pick(0, 1024);
    config_.segment_index_bytes = std::vector<int32_t>{24, 64, 4096}[pick(0, 2)];
    config_.segment_ms = pick(200, 20'000);
    config_.segment_jitter_ms = pick(0, 1) ? pick(1, 150) : 0;
    EXPECT_FALSE(fs_.create_directories(kDir));
    EXPECT_FALSE(fs_.sync_directory(kDir.parent_path()));
    EXPECT_FALSE(fs_.sync_directory("/"));
    reopen(false, offset(0));
  }

  void run(int ops) {
    for (op_ = 0; op_ < ops && !::testing::Test::HasFailure(); ++op_) {
      step();
      if (!::testing::Test::HasFailure()) check_offsets();
      if (!::testing::Test::HasFailure() && op_ % 25 == 0) check_content("periodic");
    }
    if (::testing::Test::HasFailure()) ADD_FAILURE() << describe_failure();
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  void note(const std::string& what) {
    trace_.push_back("#" + std::to_string(op_) + " " + what);
    // HW_LOG_FUZZ_DEBUG=1 streams every operation (for a seed that aborts).
    if (getenv("HW_LOG_FUZZ_DEBUG")) std::cerr << trace_.back() << "\n";
    if (trace_.size() > 40) trace_.pop_front();
  }
  // With HW_LOG_FUZZ_DEBUG: the segments and load events after a change.
  void debug_segments() const {
    if (!getenv("HW_LOG_FUZZ_DEBUG")) return;
    for (const auto& e : report_.events) std::cerr << "    event: " << e << "\n";
    for (const auto& i : log_->segment_infos())
      std::cerr << "    segment " << i.base_offset << ".." << i.next_offset << " (" << i.size_bytes << " bytes)\n";
    std::cerr << "    log start " << log_->log_start_offset() << ", end " << log_->log_end_offset() << "\n";
  }

  std::string describe_failure() const {
    std::ostringstream out;
    out << "log fuzzer failed: seed " << seed_ << " at op " << op_ << " (replay: HW_LOG_FUZZ_SEED=" << seed_
        << " HW_LOG_FUZZ_OPS=" << op_ + 1 << ")\nconfig: segment_bytes=" << config_.segment_bytes
        << " index_interval_bytes=" << config_.index_interval_bytes
        << " segment_index_bytes=" << config_.segment_index_bytes << " segment_ms=" << config_.segment_ms
        << " jitter=" << config_.segment_jitter_ms << "\nlast operations:\n";
    for (const auto& t : trace_) out << "  " << t << "\n";
    return out.str();
  }

  void step() {
    int dice = pick(1, 100);
    if (dice <= 40) return leader_append();
    if (dice <= 47) return follower_append();
    if (dice <= 50) return roll();
    if (dice <= 56) return truncate();
    if (dice <= 70) return read_check();
    if (dice <= 76) return time_check();
    if (dice <= 83) return flush();
    if (dice <= 87) return crash();
    if (dice <= 89) return close_and_reopen();
    if (dice <= 92) return advance_start();
    if (dice <= 94) return delete_below();
    if (dice <= 97) return crash_inside_operation();
    return failing_write();
  }

  // --- operations ------------------------------------------------------------

  // batches_in_append: how many batches share the append (all must fit one segment).
  bytes next_batch(int64_t base, int records, int32_t epoch, int batches_in_append = 1) {
    auto codec = static_cast<protocol::compression>(chance(20) ? pick(1, 4) : 0);
    bytes b = make_batch({.base_offset = base, .records = records, .first_timestamp = next_ts_,
                          .value_bytes = static_cast<size_t>(pick(1, std::min(300, config_.segment_bytes / (4 * records * batches_in_append)))),
                          .codec = codec, .leader_epoch = epoch,
                          .tag = "s" + std::to_string(seed_) + "o" + std::to_string(op_) + "r"});
    return b;
  }
  void add_to_model(const bytes& batch) {
    model_batch m;
    std::vector<read_record> records;
    decode_records(batch, 0, &records);
    m.base = records.front().offset;
    m.last = records.back().offset;
    m.records = std::move(records);
    next_ts_ = m.records.back().timestamp + 1;
    end_ = m.last + 1;
    model_.push_back(std::move(m));
  }

  // A storage error fails the test, except while a crash is injected into
  // the operation (tolerate_): the operation then stops, and the model still
  // moves as if it had completed, giving the post-operation candidate.
  bool ok(std::error_code ec, const char* what) {
    if (!ec) return true;
    if (!tolerate_) ADD_FAILURE() << what << ": " << ec.message();
    op_error_ = ec;
    return false;
  }

  void leader_append() {
    if (chance(5)) ++epoch_;
    int records = pick(1, 12);
    bytes batch = next_batch(0, records, -1);
    note("leader append " + std::to_string(records) + " records at " + std::to_string(end_));
    append_result r;
    if (ok(log_->append(batch, {append_origin::leader, leader_epoch(epoch_), 0}, &r), "leader append")) {
      ASSERT_EQ(r.first_offset, offset(end_));
    }
    add_to_model(batch);  // the log rewrote base offset and epoch in place
  }

  void follower_append() {
    int64_t base = end_ + (chance(30) ? pick(1, 5) : 0);
    int batches = pick(1, 3);
    bytes all;
    int64_t next = base;
    for (int i = 0; i < batches; ++i) {
      int records = pick(1, 6);
      bytes b = next_batch(next, records, epoch_, batches);
      next += records;
      next_ts_ += records;
      append_to(all, b);
    }
    note("follower append at " + std::to_string(base) + " .. " + std::to_string(next - 1));
    append_result r;
    ok(log_->append(all, {append_origin::replication, leader_epoch(0), 0}, &r), "follower append");
    protocol::record_batch_walker walker(all);
    protocol::record_batch_view v;
    while (walker.next(v)) add_to_model(bytes(v.bytes().begin(), v.bytes().end()));
  }

  void roll() {
    note("roll");
    ok(log_->roll(0), "roll");
  }

  void truncate() {
    if (end_ == log_start_) return;
    int64_t target = pick_offset();
    // Mostly at batch boundaries, as a follower's truncation is.
    if (chance(80)) {
      for (const auto& b : model_) {
        if (b.base >= target) {
          target = b.base;
          break;
        }
      }
    }
    bool fully = log_->segment_infos().front().base_offset > offset(target);
    note("truncate to " + std::to_string(target) + (fully ? " (fully)" : ""));
    ok(log_->truncate_to(offset(target), 0), "truncate");
    if (target >= end_) return;
    std::erase_if(model_, [&](const model_batch& b) { return b.last >= target || fully; });
    end_ = target;
    log_start_ = std::min(log_start_, target);
  }

  int64_t pick_offset() { return log_start_ + pick(0, static_cast<int>(std::min<int64_t>(end_ - log_start_, 1 << 30))); }

  void advance_start() {
    int64_t target = pick_offset();
    note("advance log start to " + std::to_string(target));
    ok(log_->advance_log_start_offset(offset(target), 0), "advance log start");
    log_start_ = std::max(log_start_, target);
  }

  void delete_below() {
    int64_t target = pick_offset();
    auto infos = log_->segment_infos();
    size_t count = 0;
    while (count < infos.size() && infos[count].next_offset <= offset(target) &&
           !(count + 1 == infos.size() && infos[count].size_bytes == 0))
      ++count;
    note("delete segments below " + std::to_string(target) + " (" + std::to_string(count) + " of " +
         std::to_string(infos.size()) + ")");
    size_t deleted = 0;
    if (ok(log_->delete_segments_below(offset(target), 0, &deleted), "delete segments")) {
      ASSERT_EQ(deleted, count);
    }
    if (count == 0) return;
    int64_t first = count == infos.size() ? end_ : infos[count].base_offset.value;
    log_start_ = std::max(log_start_, first);
  }

  void flush() {
    int64_t up_to = chance(50) ? end_ : pick_offset();
    int64_t before = log_->recovery_point().value;
    note("flush up to " + std::to_string(up_to));
    if (ok(log_->flush(offset(up_to)), "flush")) {
      ASSERT_EQ(log_->recovery_point().value, std::max(before, std::min(up_to, end_)));
    }
  }

  void crash() {
    int64_t recovery_point = log_->recovery_point().value;
    note("crash (recovery point " + std::to_string(recovery_point) + ")");
    fs_.crash();
    reopen(false, offset(recovery_point));
    if (::testing::Test::HasFailure()) return;
    int64_t end = log_->log_end_offset().value;
    ASSERT_LE(end, end_);
    ASSERT_EQ(log_->log_start_offset().value, log_start_);
    // Everything below the recovery point survived; the rest may not have.
    for (const auto& b : model_) {
      if (b.last < recovery_point && b.last >= log_start_) {
        ASSERT_LT(b.last, end) << "lost flushed batch " << b.base;
      }
    }
    std::erase_if(model_, [&](const model_batch& b) { return b.last >= end; });
    end_ = end;
    check_content("after crash");
  }

  void close_and_reopen() {
    note("close, crash, clean reopen");
    int64_t restart_end = end_after_restart();
    ASSERT_FALSE(log_->close());
    fs_.crash();  // a clean close leaves nothing unsynced
    clean_reopen(restart_end);
  }

  // After a truncation inside a batch the log end is the target until a
  // restart makes it the end of the data again (Kafka's readNextOffset).
  int64_t end_after_restart() const {
    auto last = log_->segment_infos().back();
    return last.size_bytes == 0 ? last.base_offset.value : model_.back().last + 1;
  }

  void clean_reopen(int64_t restart_end) {
    reopen(true, offset(0));
    if (::testing::Test::HasFailure()) return;
    int64_t end = log_->log_end_offset().value;
    if (restart_end < log_start_) {
      // Below the log start, the log starts over there.
      ASSERT_EQ(end, log_start_);
      model_.clear();
    } else {
      ASSERT_TRUE(report_.events.empty()) << report_.events.front();
      ASSERT_TRUE(end == end_ || (end < end_ && end == restart_end)) << "log end " << end << ", model " << end_;
    }
    end_ = end;
    check_content("after clean reopen");
  }

  struct model_state {
    std::vector<model_batch> batches;
    int64_t end = 0;
    int64_t log_start = 0;
  };
  model_state state() const { return {model_, end_, log_start_}; }

  // A crash injected at a random file-system call inside one mutating
  // operation. The recovered log must be a prefix of the model before or
  // after the operation, holding every record of it below the recovery
  // point the log had published.
  void crash_inside_operation() {
    static constexpr fs_op kPoints[] = {fs_op::open,     fs_op::write,  fs_op::sync,          fs_op::truncate,
                                        fs_op::rename,   fs_op::remove, fs_op::sync_directory};
    fs_op point = kPoints[pick(0, 6)];
    auto action = chance(50) ? fault_action::crash_before : fault_action::crash_after;
    fs_.inject({.op = point, .action = action, .path_contains = "", .skip = pick(0, 4)});
    note("arm a crash " + fault_point_name(point, action));
    model_state before = state();
    tolerate_ = true;
    op_error_ = {};
    int which = pick(0, 7);
    int64_t restart_end = end_after_restart();
    if (which == 7) {
      note("close");
      ok(log_->close(), "close");
    } else {
      // A switch, not an array of member pointers: GCC 12's bounds check
      // misreads an index into one (a false report under UBSan).
      switch (which) {
        case 0:
        case 1: leader_append(); break;
        case 2: follower_append(); break;
        case 3: roll(); break;
        case 4: truncate(); break;
        case 5: flush(); break;
        case 6: advance_start(); break;
        default: delete_below(); break;
      }
    }
    tolerate_ = false;
    fs_.clear_faults();
    if (::testing::Test::HasFailure()) return;
    if (!fs_.halted()) {
      ASSERT_FALSE(op_error_) << op_error_.message();
      if (which == 7) clean_reopen(restart_end);  // closed without a crash
      return;
    }
    note("  crashed: " + fs_.fired_faults().back());
    model_state after = state();
    int64_t recovery_point = log_->recovery_point().value;
    offset log_start = log_->log_start_offset();
    fs_.restart();
    log_start_ = log_start.value;
    reopen(false, offset(recovery_point));
    if (::testing::Test::HasFailure()) return;
    check_against_candidates(before, after, recovery_point);
  }

  std::vector<read_record> visible_in(const model_state& m) const {
    std::vector<read_record> out;
    for (const auto& b : m.batches)
      for (const auto& r : b.records)
        if (r.offset >= log_start_) out.push_back(r);
    return out;
  }

  // The records of the post-operation state below the recovery point are
  // durable whatever happened (for a truncation that is less than before it:
  // the rest was being discarded); beyond them the log may hold a prefix of
  // either state.
  void check_against_candidates(const model_state& before, const model_state& after, int64_t recovery_point) {
    log_start_ = log_->log_start_offset().value;
    int64_t end = log_->log_end_offset().value;
    auto got = read_all(*log_, log_start_);
    auto after_records = visible_in(after);
    size_t durable = 0;
    while (durable < after_records.size() && after_records[durable].offset < std::min(recovery_point, after.end))
      ++durable;
    bool has_durable = got.size() >= durable && std::equal(after_records.begin(), after_records.begin() + durable,
                                                            got.begin());
    for (const model_state* candidate : {&after, &before}) {
      auto want = visible_in(*candidate);
      if (!has_durable || got.size() > want.size() || !std::equal(got.begin(), got.end(), want.begin())) continue;
      model_ = candidate->batches;
      std::erase_if(model_, [&](const model_batch& b) { return b.last >= end; });
      end_ = end;
      return;
    }
    FAIL() << "after a crash inside an operation the log (" << got.size() << " records, end " << end
           << ") is not a prefix of the model before (end " << before.end << ") or after (end " << after.end
           << ") it holding the " << durable << " records below the recovery point " << recovery_point;
  }

  // A write or fsync fails once: the operation reports it and the log goes
  // offline; the log manager would restart it, which is a crash here.
  void failing_write() {
    bool sync = chance(50);
    fs_.inject({.op = sync ? fs_op::sync : fs_op::write, .action = fault_action::fail_before, .path_contains = "",
                .skip = pick(0, 2)});
    note(std::string("inject a failing ") + (sync ? "fsync" : "write"));
    std::error_code ec;
    for (int i = 0; i < 4 && !ec; ++i) {
      int records = pick(1, 8);
      bytes batch = next_batch(0, records, -1);
      append_result r;
      ec = log_->append(batch, {append_origin::leader, leader_epoch(epoch_), 0}, &r);
      if (!ec) add_to_model(batch);
      if (!ec && sync) ec = log_->flush();
    }
    fs_.clear_faults();
    if (!ec) return;
    note("  failed: " + ec.message());
    ASSERT_TRUE(log_->offline());
    append_result r;
    bytes batch = next_batch(0, 1, -1);
    ASSERT_EQ(log_->append(batch, {}, &r), make_error_code(log_errc::log_offline));
    ASSERT_EQ(log_->log_end_offset().value, end_) << "a failed append publishes nothing";
    crash();
  }

  // --- checks ----------------------------------------------------------------

  void reopen(bool clean, offset recovery_point) {
    log_.reset();
    log_open_options o;
    o.had_clean_shutdown = clean;
    o.recovery_point = recovery_point;
    o.log_start_offset = offset(log_start_);
    o.jitter_seed = seed_;
    std::error_code ec = log::open(fs_, kDir, config_, o, &log_, &report_);
    ASSERT_FALSE(ec) << "reopen: " << ec.message();
  }

  std::vector<read_record> visible() const {
    std::vector<read_record> out;
    for (const auto& b : model_)
      for (const auto& r : b.records)
        if (r.offset >= log_start_) out.push_back(r);
    return out;
  }

  void check_offsets() {
    ASSERT_EQ(log_->log_end_offset().value, end_);
    ASSERT_EQ(log_->log_start_offset().value, log_start_);
  }

  void check_content(const char* when) {
    auto got = read_all(*log_, log_start_);
    auto want = visible();
    ASSERT_EQ(got.size(), want.size()) << when;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << when << ", record " << i;
  }

  const model_batch* batch_holding_or_after(int64_t o) const {
    for (const auto& b : model_)
      if (b.last >= o) return &b;
    return nullptr;
  }

  void read_check() {
    int64_t start = end_ > log_start_ ? pick_offset() : log_start_;
    if (chance(5)) start = chance(50) ? end_ + 1 : log_start_ - 1;
    int64_t bound = chance(50) ? end_ : start + pick(0, 40);
    int32_t max_bytes = pick(0, 3000);
    bool min_one = chance(70);
    note("read " + std::to_string(start) + " max " + std::to_string(max_bytes) + " bound " + std::to_string(bound));
    log_read_result r;
    std::error_code ec = log_->read(offset(start), max_bytes, offset(bound), min_one, &r);
    if (start < log_start_ || start > end_) {
      ASSERT_EQ(ec, make_error_code(log_errc::offset_out_of_range));
      return;
    }
    ASSERT_FALSE(ec) << ec.message();
    const model_batch* first = batch_holding_or_after(start);
    bool visible_batch = first && first->last < std::min(bound, end_);
    if (!visible_batch || (!min_one && max_bytes == 0)) {
      ASSERT_EQ(r.length, 0u);
      return;
    }
    bytes data = read_range(r);
    ASSERT_EQ(data.size(), r.length);
    std::vector<read_record> got;
    decode_records(data, 0, &got);
    if (min_one) {
      ASSERT_FALSE(got.empty()) << "min_one_batch returns the first batch whole";
    }
    if (got.empty()) return;
    // A run of whole model batches from the one holding start, below the bound.
    ASSERT_EQ(got.front().offset, first->base);
    size_t i = 0;
    for (auto b = model_.begin() + (first - model_.data()); b != model_.end() && i < got.size(); ++b) {
      ASSERT_LT(b->last, bound);
      for (const auto& rec : b->records) {
        ASSERT_LT(i, got.size()) << "a batch came back partially";
        ASSERT_EQ(got[i++], rec);
      }
    }
    ASSERT_EQ(i, got.size());
  }

  void time_check() {
    auto want_records = visible();
    if (want_records.empty()) return;
    int64_t target = want_records.front().timestamp + pick(-3, static_cast<int>(next_ts_ - want_records.front().timestamp) + 3);
    note("offset for timestamp " + std::to_string(target));
    std::optional<timestamp_and_offset> found;
    ASSERT_FALSE(log_->offset_for_timestamp(target, &found));
    const read_record* want = nullptr;
    for (const auto& r : want_records) {
      if (r.timestamp >= target) {
        want = &r;
        break;
      }
    }
    if (!want) {
      ASSERT_FALSE(found) << "found offset " << found->offset;
    } else {
      ASSERT_TRUE(found) << "nothing for timestamp " << target;
      ASSERT_EQ(found->offset.value, want->offset);
      ASSERT_EQ(found->timestamp, want->timestamp);
    }
    ASSERT_FALSE(log_->offset_for_timestamp(max_timestamp, &found));
    if (!model_.empty() && model_.back().records.back().offset >= log_->segment_infos().front().base_offset.value) {
      ASSERT_TRUE(found);
      ASSERT_EQ(found->offset.value, model_.back().records.back().offset);
    }
  }

  uint64_t seed_;
  std::mt19937_64 rng_;
  int op_ = 0;
  std::deque<std::string> trace_;
  faulty_file_system fs_;
  log_config config_;
  std::unique_ptr<log> log_;
  log_load_report report_;
  std::vector<model_batch> model_;
  int64_t end_ = 0;
  int64_t log_start_ = 0;
  int64_t next_ts_ = 1'000'000;
  int32_t epoch_ = 0;
  bool tolerate_ = false;
  std::error_code op_error_;
};

int env_int(const char* name, int fallback) {
  const char* v = getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

TEST(LogFuzz, RandomOperationSequencesMatchTheModel) {
  int ops = env_int("HW_LOG_FUZZ_OPS", 500);
  if (const char* one = getenv("HW_LOG_FUZZ_SEED"); one && *one) {
    log_fuzzer(std::strtoull(one, nullptr, 10)).run(ops);
    return;
  }
  int seeds = env_int("HW_LOG_FUZZ_SEEDS", 200);
  for (int seed = 1; seed <= seeds && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    log_fuzzer(static_cast<uint64_t>(seed)).run(ops);
  }
}

}  // namespace
}  // namespace hw::storage
