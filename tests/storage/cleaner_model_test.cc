// Model-based test of compaction: seeded random puts, tombstones,
// multi-record and compressed batches, rolls, reopenings and cleanings at
// advancing times, checked after every step against a model (the full
// history by offset and the latest value per key):
// - every stored record is the record appended at its offset (offsets never change);
// - every key's latest value is present; nothing at or past the active segment goes;
// - a key whose latest record is a tombstone is either still there as a
//   tombstone or gone, and gone only once delete.retention.ms has passed
//   since the tombstone was written.
// A failing seed replays exactly (the clock and the file system are the test's).

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

struct appended {
  std::string key;
  std::optional<std::string> value;
  int64_t written_ms = 0;
};

class model_run {
 public:
  explicit model_run(uint64_t seed) : rng_(seed), h_(config()) {}

  static log_config config() {
    log_config c = cleaner_harness::default_config();
    c.segment_bytes = 1500;
    c.delete_retention_ms = 3'000;
    return c;
  }

  void run(int steps) {
    for (int step = 0; step < steps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      int dice = static_cast<int>(rng_() % 100);
      if (dice < 70) {
        append_batch();
      } else if (dice < 80) {
        h_.roll();
      } else if (dice < 95) {
        h_.now += static_cast<int64_t>(rng_() % 1500);
        auto report = h_.clean();
        if (report) ++cleanings_;
      } else {
        ASSERT_FALSE(h_.plog->close());
        h_.open(true);
      }
      check();
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(cleanings_, 5);
    EXPECT_GT(tombstones_gone_, 0) << "the run never reached a delete horizon";
    EXPECT_LT(h_.records().size(), history_.size() / 2) << "compaction removed little";
  }

 private:
  void append_batch() {
    int n = 1 + static_cast<int>(rng_() % 4);
    std::vector<kv> records;
    for (int i = 0; i < n; ++i) {
      std::string key = "k" + std::to_string(rng_() % 25);
      if (rng_() % 6 == 0) {
        records.push_back({key, std::nullopt});
      } else {
        records.push_back({key, "v" + std::to_string(rng_() % 100000)});
      }
    }
    auto codec = rng_() % 3 == 0 ? protocol::compression::zstd : protocol::compression::none;
    auto r = h_.append(keyed_batch(records, h_.now, {}, codec));
    for (int i = 0; i < n; ++i)
      history_[r.log.first_offset.value + i] = {records[i].key, records[i].value, h_.now};
  }

  void check() {
    auto stored = h_.records();
    std::map<std::string, int64_t> latest_offset;
    for (const auto& [o, a] : history_) latest_offset[a.key] = o;
    std::set<int64_t> present;
    for (const auto& r : stored) {
      auto it = history_.find(r.offset);
      ASSERT_NE(it, history_.end()) << "a record at an offset never written: " << r.offset;
      EXPECT_EQ(r.key, it->second.key) << "offset " << r.offset;
      EXPECT_EQ(r.value, it->second.value) << "offset " << r.offset;
      present.insert(r.offset);
    }
    offset active_base = h_.plog->log().segments().back()->base_offset();
    for (const auto& [o, a] : history_) {
      if (o >= active_base.value) EXPECT_TRUE(present.contains(o)) << "active segment record " << o << " gone";
    }
    for (const auto& [key, o] : latest_offset) {
      const appended& a = history_[o];
      if (a.value) {
        EXPECT_TRUE(present.contains(o)) << "latest value of " << key << " at " << o << " gone";
      } else if (!present.contains(o)) {
        ++tombstones_gone_;
        EXPECT_GE(h_.now - a.written_ms, config().delete_retention_ms) << "tombstone of " << key << " gone early";
      }
    }
  }

  std::mt19937_64 rng_;
  cleaner_harness h_;
  std::map<int64_t, appended> history_;
  int cleanings_ = 0;
  int tombstones_gone_ = 0;
};

TEST(CleanerModel, RandomHistoriesMatchTheModel) {
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    model_run(seed).run(400);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace hw::storage
