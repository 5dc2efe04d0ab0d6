// The heavy rewrite runs on another thread while the writer appends (it
// reads only non-active segments); the writer then installs the result.
// Also a manual measurement (disabled by default): cleaning ~100 MB on the
// real file system, printed for the storage report.

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

TEST(CleanerConcurrency, RewriteRunsWhileTheWriterAppends) {
  cleaner_harness h;
  for (int i = 0; i < 400; ++i) h.put("k" + std::to_string(i % 13), "v" + std::to_string(i));
  h.roll();
  offset boundary = h.plog->log().segments().back()->base_offset();
  cleaning_request request{h.plog->log().config(), offset(0), boundary, last_records_of(h.plog->producers()), h.now};
  cleaning_result result;
  std::error_code clean_error;
  std::thread cleaner([&] { clean_error = clean_log(h.fs, h.plog->log(), h.cleaner_cfg, request, &result); });
  // The writer keeps appending (and rolling) meanwhile.
  for (int i = 0; i < 400; ++i) {
    h.put("k" + std::to_string(i % 13), "late" + std::to_string(i));
    if (i % 100 == 99) h.roll();
  }
  cleaner.join();
  ASSERT_FALSE(clean_error) << clean_error.message();
  ASSERT_FALSE(result.swaps.empty());
  EXPECT_EQ(result.end_offset, boundary);
  for (const auto& swap : result.swaps) {
    std::vector<std::shared_ptr<segment>> replaced;
    ASSERT_FALSE(h.plog->mutable_log().install_cleaned(swap, h.now, &replaced));
    EXPECT_EQ(replaced.size(), swap.replaced.size());
  }
  auto recs = h.records();
  // Below the boundary: one record per key; above it: all 400 late ones.
  size_t below = 0, above = 0;
  for (const auto& r : recs) (r.offset < boundary.value ? below : above)++;
  EXPECT_EQ(below, 13u);
  EXPECT_EQ(above, 400u);
  EXPECT_EQ(h.plog->log().log_end_offset(), offset(800));
}

// Run with --gtest_also_run_disabled_tests --gtest_filter='*100MB*'.
TEST(CleanerScale, DISABLED_Clean100MB) {
  temp_dir tmp;
  auto fs = make_posix_file_system();
  log_config config = cleaner_harness::default_config();
  config.segment_bytes = 64 * 1024 * 1024;
  config.index_interval_bytes = 4096;
  partition_log_options o;
  o.config = config;
  o.now_ms = cleaner_t0;
  std::unique_ptr<partition_log> plog;
  ASSERT_FALSE(partition_log::open(*fs, tmp.path() / "big-0", o, &plog));
  // 100 records of ~1 KiB per batch, keys from 10k: every key written ~10 times.
  std::string value(1000, 'x');
  uint64_t written = 0;
  int64_t n = 0;
  while (written < 100ull * 1024 * 1024) {
    std::vector<kv> batch;
    for (int i = 0; i < 100; ++i, ++n) batch.push_back({"key-" + std::to_string((n * 7919) % 10000), value});
    bytes b = keyed_batch(batch, cleaner_t0);
    written += b.size();
    partition_append_result r;
    ASSERT_FALSE(plog->append_as_leader(b, {.epoch = leader_epoch(0), .now_ms = cleaner_t0}, &r));
  }
  ASSERT_FALSE(plog->mutable_log().roll(cleaner_t0));
  single_log_host host;
  host.plog = plog.get();
  int64_t now = cleaner_t0;
  log_cleaner cleaner(*fs, cleaner_config{}, host, [&] { return now; });
  auto start = std::chrono::steady_clock::now();
  std::optional<cleaning_report> report;
  ASSERT_FALSE(cleaner.clean_dirtiest(&report));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(report);
  std::cout << "cleaned " << report->stats.filter.bytes_read << " bytes (" << report->stats.filter.records_read
            << " records, " << report->stats.map_entries << " keys) into " << report->stats.filter.bytes_retained
            << " bytes in " << ms << " ms; map " << report->stats.map_utilization * 100 << "% of its budget\n";
}

}  // namespace
}  // namespace hw::storage
