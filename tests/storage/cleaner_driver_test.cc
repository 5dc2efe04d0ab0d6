// The log cleaner's driver over a log manager: it cleans the log with the
// highest dirty ratio first, leaves logs under min.cleanable.dirty.ratio
// alone unless max.compaction.lag.ms forces them, respects
// min.compaction.lag.ms, and keeps cleaner-offset-checkpoint (Kafka's
// format, one per log dir) across restarts.

#include <gtest/gtest.h>

#include "storage/checkpoint_file.h"
#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

protocol::uuid topic_id() { return *protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w"); }

// A host over a log manager: every partition is compacted; the "strand" is
// the calling thread.
class manager_host : public log_cleaner_host {
 public:
  explicit manager_host(log_manager*& m) : mgr_(m) {}
  std::vector<candidate> compacted_logs() override {
    std::vector<candidate> out;
    for (const auto& tp : mgr_->partitions()) {
      const log& l = mgr_->find(tp)->log();
      if (l.config().cleanup.compact) out.push_back({tp, &l, l.log_end_offset(), l.config()});
    }
    return out;
  }
  std::map<topic_partition, offset> cleaner_checkpoints() override { return mgr_->cleaner_checkpoints(); }
  std::error_code update_cleaner_checkpoint(const topic_partition& tp, offset o) override {
    return mgr_->update_cleaner_checkpoint(tp, o).code;
  }
  std::error_code run_on_writer(const topic_partition& tp,
                                const std::function<std::error_code(partition_log&)>& fn) override {
    return fn(*mgr_->find(tp));
  }

 private:
  log_manager*& mgr_;
};

class CleanerDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs_.create_directories("/data"));
    ASSERT_FALSE(fs_.sync_directory("/"));
    start();
  }
  void start() {
    owned_.reset();
    log_manager_config c;
    c.log_dirs = {"/data/d1", "/data/d2"};
    c.node = node_id(1);
    c.cluster_id = "MkU3OEVBNTcwNTJENDM2Qk";
    c.default_log_config = cleaner_harness::default_config();
    c.default_log_config.min_cleanable_dirty_ratio = 0.5;
    c.random_seed = 7;
    storage_error err = log_manager::start(fs_, c, now_, &owned_);
    ASSERT_FALSE(err) << err.message;
    mgr_ = owned_.get();
  }
  partition_log* create(const topic_partition& tp) {
    std::shared_ptr<partition_log> p;
    storage_error err = mgr_->create(tp, topic_id(), now_, &p);
    EXPECT_FALSE(err) << err.message;
    return p.get();  // the manager keeps it
  }
  // `versions` values of `keys` keys, then a roll.
  void fill(partition_log* p, int keys, int versions, int64_t ts) {
    for (int v = 0; v < versions; ++v)
      for (int k = 0; k < keys; ++k) {
        bytes b = keyed_batch({{"k" + std::to_string(k), "v" + std::to_string(v)}}, ts);
        partition_append_result r;
        ASSERT_FALSE(p->append_as_leader(b, {.epoch = leader_epoch(0), .now_ms = now_}, &r));
      }
    ASSERT_FALSE(p->mutable_log().roll(now_));
  }
  std::optional<cleaning_report> clean() {
    std::optional<cleaning_report> r;
    EXPECT_FALSE(cleaner_.clean_dirtiest(&r));
    return r;
  }

  faulty_file_system fs_;
  int64_t now_ = cleaner_t0;
  std::unique_ptr<log_manager> owned_;
  log_manager* mgr_ = nullptr;
  manager_host host_{mgr_};
  log_cleaner cleaner_{fs_, cleaner_config{}, host_, [this] { return now_; }};
};

TEST_F(CleanerDriverTest, CleansTheDirtiestLogFirstAndSkipsCleanOnes) {
  topic_partition a{"a", 0}, b{"b", 0};
  partition_log* pa = create(a);
  partition_log* pb = create(b);
  fill(pa, 4, 6, now_);
  fill(pb, 4, 6, now_);
  // b gets cleaned once, then gets a little more dirt: its ratio drops below a's.
  mgr_->update_cleaner_checkpoint(a, pa->log().log_end_offset());
  auto first = clean();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->tp, b);
  EXPECT_FALSE(clean()) << "a is checkpointed at its end, b is clean: nothing is dirtier than 0.5";
  // Dirty a heavily, b a little.
  fill(pa, 8, 10, now_);
  fill(pb, 1, 1, now_);
  auto plans = cleaner_.plans();
  ASSERT_EQ(plans.size(), 2u);
  auto second = clean();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->tp, a);
  EXPECT_GT(second->range.cleanable_ratio(), 0.5);
  EXPECT_EQ(mgr_->cleaner_checkpoints()[a], pa->log().segments().back()->base_offset());
}

TEST_F(CleanerDriverTest, MinCompactionLagHoldsBackRecentSegments) {
  topic_partition tp{"lagged", 0};
  partition_log* p = create(tp);
  log_config c = p->log().config();
  c.min_compaction_lag_ms = 60'000;
  p->mutable_log().set_config(c);
  fill(p, 3, 10, now_);
  EXPECT_FALSE(clean()) << "every segment is younger than the lag";
  now_ += 60'001;
  auto r = clean();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->tp, tp);
}

TEST_F(CleanerDriverTest, MaxCompactionLagForcesALogBelowTheRatio) {
  topic_partition tp{"forced", 0};
  partition_log* p = create(tp);
  fill(p, 40, 1, now_);  // no duplicates yet
  ASSERT_TRUE(clean());  // first pass: everything is dirty
  fill(p, 1, 1, now_ + 1000);  // a little dirt: ratio far below 0.5
  EXPECT_FALSE(clean());
  log_config c = p->log().config();
  c.max_compaction_lag_ms = 10'000;
  p->mutable_log().set_config(c);
  EXPECT_FALSE(clean()) << "the dirty segment is not old enough yet";
  now_ += 20'000;
  auto r = clean();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->range.needs_compaction_now());
}

TEST_F(CleanerDriverTest, CheckpointFileSurvivesRestartAndRemoval) {
  topic_partition a{"a", 0}, b{"b", 1};
  partition_log* pa = create(a);
  create(b);
  fill(pa, 3, 5, now_);
  ASSERT_TRUE(clean());
  offset end = pa->log().segments().back()->base_offset();
  ASSERT_EQ(mgr_->cleaner_checkpoints()[a], end);
  // Kafka's format in the dir holding the partition.
  std::filesystem::path dir = pa->dir().parent_path();
  std::vector<topic_partition_offset> entries;
  ASSERT_FALSE(read_offset_checkpoint(fs_, dir / cleaner_offset_checkpoint_name, &entries));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0], (topic_partition_offset{"a", 0, end}));
  std::string text;
  ASSERT_FALSE(read_whole_file(fs_, dir / cleaner_offset_checkpoint_name, &text));
  EXPECT_EQ(text, "0\n1\na 0 " + std::to_string(end.value) + "\n");

  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  start();
  EXPECT_EQ(mgr_->cleaner_checkpoints()[a], end);
  // A truncation below the checkpoint pulls it down; one above leaves it.
  ASSERT_FALSE(mgr_->truncate_cleaner_checkpoint(a, end + 10));
  EXPECT_EQ(mgr_->cleaner_checkpoints()[a], end);
  ASSERT_FALSE(mgr_->truncate_cleaner_checkpoint(a, end - 3));
  EXPECT_EQ(mgr_->cleaner_checkpoints()[a], end - 3);
  ASSERT_FALSE(mgr_->remove(a));
  EXPECT_FALSE(mgr_->cleaner_checkpoints().contains(a));
  ASSERT_FALSE(read_offset_checkpoint(fs_, dir / cleaner_offset_checkpoint_name, &entries));
  EXPECT_TRUE(entries.empty());
}

}  // namespace
}  // namespace hw::storage
