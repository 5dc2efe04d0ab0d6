// storage/log with readers and a flusher on other threads while the writer
// appends, rolls, and deletes segments from the front (retention,
// DeleteRecords): every read returns whole, CRC-valid batches holding the
// records written at those offsets, never torn or freed memory, and the
// writer never waits for a reader. Run under -fsanitize=thread too.

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "storage/log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

// Every record's value names its offset, and its timestamp is 10 x offset,
// so a reader can check what it got without sharing state with the writer.
bytes batch_at(int64_t base, int records, size_t pad) {
  protocol::record_batch_options o;
  o.base_offset = base;
  protocol::record_batch_builder b(o);
  for (int i = 0; i < records; ++i) {
    std::string value = "o" + std::to_string(base + i);
    value.resize(std::max(value.size(), pad), '.');
    b.append(10 * (base + i), std::nullopt,
             protocol::bytes_view(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  return b.finish();
}

void check_read(const log_read_result& r, int64_t start, int32_t max_bytes) {
  bytes data = read_range(r);
  ASSERT_EQ(data.size(), r.length);
  protocol::record_batch_walker walker(data);
  protocol::record_batch_view b;
  std::vector<uint8_t> scratch;
  bool first = true;
  int64_t expected_next = -1;
  while (walker.next(b)) {
    ASSERT_EQ(b.validate(), protocol::batch_error::none);
    if (first) {
      ASSERT_GE(b.last_offset(), start);
    } else {
      ASSERT_EQ(b.base_offset(), expected_next);
    }
    first = false;
    expected_next = b.next_offset();
    protocol::record_iterator it;
    ASSERT_EQ(b.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
    protocol::record_view rec;
    while (it.next(rec)) {
      std::string value(rec.value->begin(), rec.value->end());
      ASSERT_EQ(value.substr(0, value.find('.')), "o" + std::to_string(rec.offset));
      ASSERT_EQ(rec.timestamp, 10 * rec.offset);
    }
  }
  ASSERT_EQ(walker.error(), protocol::batch_error::none);
  // Only a byte limit may cut the last batch.
  if (walker.partial_tail_bytes() > 0) {
    ASSERT_EQ(r.length, static_cast<uint64_t>(max_bytes));
  }
}

TEST(LogConcurrency, ReadersAndAFlusherRaceTheWriter) {
  temp_dir tmp;
  auto fs = make_posix_file_system();
  std::unique_ptr<log> l;
  log_load_report report;
  log_config config{.segment_bytes = 16 * 1024, .index_interval_bytes = 512};
  ASSERT_FALSE(log::open(*fs, tmp.path() / "race-0", config, {}, &l, &report));

  std::atomic<bool> done{false};
  std::atomic<int64_t> reads{0}, lookups{0}, flushes{0};
  auto reader = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    while (!done.load(std::memory_order_acquire)) {
      int64_t start = l->log_start_offset().value, end = l->log_end_offset().value;
      int64_t at = start + static_cast<int64_t>(rng() % static_cast<uint64_t>(end - start + 1));
      auto max_bytes = static_cast<int32_t>(rng() % 20'000);
      log_read_result r;
      std::error_code ec = l->read(offset(at), max_bytes, offset(end), rng() % 2 == 0, &r);
      // Retention may pass the offset between the two loads.
      if (ec == make_error_code(log_errc::offset_out_of_range)) continue;
      ASSERT_FALSE(ec) << ec.message();
      check_read(r, at, max_bytes);
      reads.fetch_add(1, std::memory_order_relaxed);
      std::optional<timestamp_and_offset> found;
      ASSERT_FALSE(l->offset_for_timestamp(10 * at + 3, &found));
      if (found) {
        ASSERT_EQ(found->timestamp, 10 * found->offset.value);
        ASSERT_GE(found->timestamp, 10 * at + 3);
      }
      lookups.fetch_add(1, std::memory_order_relaxed);
    }
  };
  auto flusher = [&] {
    while (!done.load(std::memory_order_acquire)) {
      ASSERT_FALSE(l->flush());
      flushes.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread r1(reader, 1), r2(reader, 2), f(flusher);

  std::mt19937_64 rng(3);
  int64_t next = 0;
  for (int i = 0; i < 6000; ++i) {
    int records = 1 + static_cast<int>(rng() % 20);
    bytes batch = batch_at(next, records, rng() % 200);
    append_result r;
    ASSERT_FALSE(l->append(batch, {append_origin::replication, leader_epoch(0), 0}, &r));
    next += records;
    if (rng() % 200 == 0) {
      ASSERT_FALSE(l->roll(0));
    }
    if (rng() % 100 == 0) {
      size_t deleted = 0;
      ASSERT_FALSE(l->delete_segments_below(offset(next - 2000), 0, &deleted));
    }
    if (rng() % 300 == 0) {
      ASSERT_FALSE(l->advance_log_start_offset(offset(std::max<int64_t>(0, next - 1500)), 0));
    }
  }
  // Keep the readers going until each kind of work happened.
  while (reads.load() < 200 || flushes.load() < 5) std::this_thread::yield();
  done.store(true, std::memory_order_release);
  r1.join();
  r2.join();
  f.join();
  EXPECT_FALSE(l->offline());
  EXPECT_EQ(read_all(*l, l->log_start_offset().value).size(),
            static_cast<size_t>(next - l->log_start_offset().value));
  ASSERT_FALSE(l->flush());
  EXPECT_EQ(l->recovery_point(), l->log_end_offset());
}

}  // namespace
}  // namespace hw::storage
