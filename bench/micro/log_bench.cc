// The partition log on a real file system (a temporary directory, so the
// page cache): leader appends of 16 KiB batches of 1 KiB records, sequential
// reads (the range lookup alone, and with the bytes copied out), index and
// offset lookups, and recovery's scan (framing + CRC32C + index rebuild).
// Targets: append >= 1 GB/s and recovery >= 500 MB/s on one core.

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "protocol/records/record_batch_builder.h"
#include "storage/log.h"
#include "storage/offset_index.h"

namespace {

using hw::storage::append_options;
using hw::storage::append_origin;
using hw::storage::append_result;
using hw::storage::file_system;
using hw::storage::leader_epoch;
using hw::storage::log;
using hw::storage::log_config;
using hw::storage::log_load_report;
using hw::storage::log_read_result;
using hw::storage::offset;

constexpr int kRecordsPerBatch = 16;
constexpr size_t kRecordBytes = 1024;

std::vector<uint8_t> make_batch() {
  hw::protocol::record_batch_builder b({});
  std::vector<uint8_t> value(kRecordBytes - 24, 'x');  // ~1 KiB per encoded record
  for (int i = 0; i < kRecordsPerBatch; ++i) b.append(1'700'000'000'000 + i, std::nullopt, value);
  return b.finish();
}

class bench_dir {
 public:
  bench_dir() {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/hw-log-bench-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data());
  }
  ~bench_dir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::unique_ptr<log> open_log(file_system& fs, const std::filesystem::path& dir, const log_config& config) {
  std::unique_ptr<log> l;
  log_load_report report;
  if (log::open(fs, dir, config, {}, &l, &report)) std::abort();
  return l;
}

// Appends of 16 KiB batches; old segments are deleted (outside the timing)
// so the run stays within the page cache.
void BM_LogAppend16KiBBatches(benchmark::State& state) {
  bench_dir dir;
  auto fs = hw::storage::make_posix_file_system();
  auto l = open_log(*fs, dir.path() / "bench-0", {.segment_bytes = 256 << 20});
  auto batch = make_batch();
  append_options options{append_origin::leader, leader_epoch(1), 0};
  append_result r;
  int64_t n = 0;
  for (auto _ : state) {
    if (l->append(batch, options, &r)) state.SkipWithError("append failed");
    if (++n % 32768 == 0) {  // 512 MiB
      state.PauseTiming();
      size_t deleted = 0;
      if (l->delete_segments_below(l->log_end_offset(), 0, &deleted)) state.SkipWithError("delete failed");
      state.ResumeTiming();
    }
  }
  state.SetBytesProcessed(n * static_cast<int64_t>(batch.size()));
  state.counters["batch_bytes"] = static_cast<double>(batch.size());
}
BENCHMARK(BM_LogAppend16KiBBatches)->MinTime(2.0);

struct filled_log {
  bench_dir dir;
  std::unique_ptr<file_system> fs = hw::storage::make_posix_file_system();
  std::unique_ptr<log> l;
  uint64_t bytes = 0;
  uint64_t batch_bytes = 0;

  explicit filled_log(uint64_t target_bytes, int32_t segment_bytes = 128 << 20) {
    l = open_log(*fs, dir.path() / "bench-0", {.segment_bytes = segment_bytes});
    auto batch = make_batch();
    batch_bytes = batch.size();
    append_result r;
    while (bytes < target_bytes) {
      if (l->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r)) std::abort();
      bytes += batch.size();
    }
  }
};

// Sequential fetches of up to 1 MiB from the start to the end: the range
// lookup only (what a sendfile path costs the broker).
void BM_LogReadRanges1MiB(benchmark::State& state) {
  filled_log f(512ull << 20);
  int64_t end = f.l->log_end_offset().value;
  int64_t next = 0;
  uint64_t bytes = 0;
  for (auto _ : state) {
    log_read_result r;
    if (f.l->read(offset(next), 1 << 20, offset(end), true, &r)) state.SkipWithError("read failed");
    bytes += r.length;
    // Whole batches come back (min one): continue after them.
    next = r.length ? next + static_cast<int64_t>(r.length / f.batch_bytes) * kRecordsPerBatch : end;
    if (next >= end) next = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_LogReadRanges1MiB);

// The same, with the bytes read out of the page cache (a pread path).
void BM_LogReadSequentialCopy1MiB(benchmark::State& state) {
  filled_log f(512ull << 20);
  int64_t end = f.l->log_end_offset().value;
  int64_t next = 0;
  uint64_t bytes = 0;
  std::vector<uint8_t> buf(1 << 20);
  for (auto _ : state) {
    log_read_result r;
    if (f.l->read(offset(next), 1 << 20, offset(end), true, &r)) state.SkipWithError("read failed");
    size_t got = 0;
    if (r.length && r.log_file->read_at(r.position, {buf.data(), r.length}, &got)) state.SkipWithError("pread");
    bytes += got;
    // Whole batches come back: continue after the last complete one.
    hw::protocol::record_batch_walker walker({buf.data(), got});
    hw::protocol::record_batch_view b;
    while (walker.next(b)) next = b.next_offset();
    if (next >= end || got == 0) next = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_LogReadSequentialCopy1MiB);

// Random offset -> position lookups in a full-size offset index (1.3 M entries).
void BM_OffsetIndexLookup(benchmark::State& state) {
  bench_dir dir;
  auto fs = hw::storage::make_posix_file_system();
  std::unique_ptr<hw::storage::offset_index> index;
  int32_t max_bytes = 10 << 20;
  if (hw::storage::offset_index::open(*fs, dir.path() / "0.index", offset(0), max_bytes, &index)) std::abort();
  auto entries = static_cast<int64_t>(index->max_entries());
  for (int64_t i = 0; i < entries; ++i) index->append(offset(4 * i + 3), static_cast<uint32_t>(i * 100));
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    auto p = index->lookup(offset(static_cast<int64_t>(rng() % static_cast<uint64_t>(4 * entries))));
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OffsetIndexLookup);

// Random offset -> file range resolution through the log (segment search,
// index lookup, header scan), as a fetch at a random offset costs.
void BM_LogRandomOffsetRead(benchmark::State& state) {
  filled_log f(256ull << 20, 32 << 20);
  int64_t end = f.l->log_end_offset().value;
  std::mt19937_64 rng(2);
  for (auto _ : state) {
    log_read_result r;
    auto at = static_cast<int64_t>(rng() % static_cast<uint64_t>(end));
    if (f.l->read(offset(at), 64 * 1024, offset(end), true, &r)) state.SkipWithError("read failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LogRandomOffsetRead);

// Recovery of 256 MiB after an unclean shutdown: every batch framed and
// CRC-checked, both indexes rebuilt (from the page cache).
void BM_LogRecovery(benchmark::State& state) {
  filled_log f(256ull << 20, 1 << 30);
  if (f.l->close()) std::abort();
  f.l.reset();
  for (auto _ : state) {
    std::unique_ptr<log> l;
    log_load_report report;
    hw::storage::log_open_options o;  // unclean, recovery point 0: scan everything
    if (log::open(*f.fs, f.dir.path() / "bench-0", {.segment_bytes = 1 << 30}, o, &l, &report))
      state.SkipWithError("open failed");
    if (report.bytes_truncated != 0) state.SkipWithError("recovery truncated");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.bytes));
}
BENCHMARK(BM_LogRecovery)->Unit(benchmark::kMillisecond);

}  // namespace
