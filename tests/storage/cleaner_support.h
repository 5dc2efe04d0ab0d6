#pragma once
// Helpers shared by the cleaner tests (tests/storage/cleaner_*_test.cc):
// keyed record batches (plain, idempotent, transactional, markers), a
// partition log on the in-memory faulty file system with a one-partition
// cleaner host, and reading the log back as (offset, key, value) records.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/records/control_record.h"
#include "protocol/records/record_batch_builder.h"
#include "storage/cleaner.h"
#include "storage/io/faulty_file_system.h"
#include "storage/cleaner_driver.h"
#include "storage/partition_log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage::testing {

constexpr int64_t cleaner_t0 = 1'700'000'000'000;

struct kv {
  std::string key;
  std::optional<std::string> value;  // nullopt: a tombstone
};

struct producer_fields {
  int64_t id = -1;
  int16_t epoch = -1;
  int32_t base_sequence = -1;
  bool transactional = false;
};

inline protocol::bytes_view view_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

inline bytes keyed_batch(const std::vector<kv>& records, int64_t ts = cleaner_t0, producer_fields p = {},
                         protocol::compression codec = protocol::compression::none) {
  protocol::record_batch_options o;
  o.codec = codec;
  o.producer_id = p.id;
  o.producer_epoch = p.epoch;
  o.base_sequence = p.base_sequence;
  o.transactional = p.transactional;
  protocol::record_batch_builder b(o);
  for (const auto& r : records) {
    std::optional<protocol::bytes_view> v;
    if (r.value) v = view_of(*r.value);
    protocol::record_header h{"h", view_of(r.key)};
    b.append(ts, view_of(r.key), v, std::span<const protocol::record_header>(&h, 1));
  }
  return b.finish();
}

inline bytes marker_batch(int64_t pid, int16_t epoch, bool commit, int64_t ts = cleaner_t0) {
  bytes out;
  protocol::end_txn_marker_batch m;
  m.producer_id = pid;
  m.producer_epoch = epoch;
  m.timestamp_ms = ts;
  m.marker.type = commit ? protocol::control_record_type::commit : protocol::control_record_type::abort;
  m.marker.coordinator_epoch = 1;
  protocol::append_end_txn_marker_batch(out, m);
  return out;
}

// A record as read back.
struct stored_record {
  int64_t offset = 0;
  std::string key;
  std::optional<std::string> value;
  bool control = false;
  bool transactional = false;
  bool operator==(const stored_record&) const = default;
  friend void PrintTo(const stored_record& r, std::ostream* os) {
    *os << r.offset << ":" << r.key << "=" << r.value.value_or("<null>") << (r.control ? " (control)" : "");
  }
};

// A batch as read back (records may be empty).
struct stored_batch {
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int64_t producer_id = -1;
  bool control = false;
  std::optional<int64_t> delete_horizon;
  int32_t record_count = 0;
  int codec = 0;
};

inline void read_log(const log& l, std::vector<stored_record>* records, std::vector<stored_batch>* batches = nullptr) {
  records->clear();
  if (batches) batches->clear();
  for (const auto& s : l.segments()) {
    uint32_t size = s->end().size;
    bytes data(size);
    size_t got = 0;
    ASSERT_FALSE(s->log_file()->read_at(0, data, &got));
    ASSERT_EQ(got, size);
    protocol::record_batch_walker walker(data);
    protocol::record_batch_view b;
    std::vector<uint8_t> scratch;
    while (walker.next(b)) {
      ASSERT_EQ(b.validate(), protocol::batch_error::none) << "at offset " << b.base_offset();
      if (batches)
        batches->push_back({b.base_offset(), b.last_offset(), b.producer_id(), b.is_control(), b.delete_horizon_ms(),
                            b.record_count(), b.compression_id()});
      protocol::record_iterator it;
      ASSERT_EQ(b.open_records(scratch, 64 << 20, it), protocol::batch_error::none);
      protocol::record_view r;
      while (it.next(r)) {
        stored_record out;
        out.offset = r.offset;
        if (r.key) out.key.assign(r.key->begin(), r.key->end());
        if (r.value) out.value.emplace(r.value->begin(), r.value->end());
        out.control = b.is_control();
        out.transactional = b.is_transactional();
        records->push_back(out);
      }
      ASSERT_EQ(it.error(), protocol::batch_error::none);
    }
    ASSERT_EQ(walker.error(), protocol::batch_error::none);
  }
}

// Every record read through log::read (as a fetch would), following batch
// ends rather than record offsets, since cleaned logs hold empty batches.
inline std::vector<stored_record> read_via_fetch(const log& l) {
  std::vector<stored_record> out;
  int64_t next = l.log_start_offset().value;
  while (next < l.log_end_offset().value) {
    log_read_result r;
    EXPECT_FALSE(l.read(offset(next), 64 * 1024, l.log_end_offset(), true, &r));
    bytes data = read_range(r);
    protocol::record_batch_walker walker(data);
    protocol::record_batch_view b;
    std::vector<uint8_t> scratch;
    int64_t before = next;
    while (walker.next(b)) {
      protocol::record_iterator it;
      EXPECT_EQ(b.open_records(scratch, 64 << 20, it), protocol::batch_error::none);
      protocol::record_view rec;
      while (it.next(rec)) {
        stored_record s{rec.offset, std::string(rec.key->begin(), rec.key->end()), std::nullopt, b.is_control(),
                        b.is_transactional()};
        if (rec.value) s.value.emplace(rec.value->begin(), rec.value->end());
        out.push_back(s);
      }
      next = b.next_offset();
    }
    if (next == before) break;
  }
  return out;
}

inline std::vector<stored_record> data_records(const std::vector<stored_record>& all) {
  std::vector<stored_record> out;
  for (const auto& r : all)
    if (!r.control) out.push_back(r);
  return out;
}

// The latest value per key (nullopt for a tombstone) among data records.
inline std::map<std::string, std::optional<std::string>> latest_by_key(const std::vector<stored_record>& all) {
  std::map<std::string, std::optional<std::string>> out;
  for (const auto& r : all)
    if (!r.control) out[r.key] = r.value;
  return out;
}

// A cleaner host for one partition; the "strand" is the calling thread.
class single_log_host : public log_cleaner_host {
 public:
  partition_log* plog = nullptr;
  topic_partition tp{"compacted", 0};
  std::optional<offset> last_stable;  // default: the log end
  std::map<topic_partition, offset> checkpoints;
  int writer_calls = 0;
  // Runs before the install step (to change the log under the cleaner).
  std::function<void(partition_log&)> before_install;

  std::vector<candidate> compacted_logs() override {
    return {{tp, &plog->log(), last_stable.value_or(plog->log().log_end_offset()), plog->log().config()}};
  }
  std::map<topic_partition, offset> cleaner_checkpoints() override { return checkpoints; }
  std::error_code update_cleaner_checkpoint(const topic_partition& t, offset o) override {
    checkpoints[t] = o;
    return {};
  }
  std::error_code run_on_writer(const topic_partition&,
                                const std::function<std::error_code(partition_log&)>& fn) override {
    if (writer_calls++ == 1 && before_install) before_install(*plog);
    return fn(*plog);
  }
};

// A partition log on the faulty file system, its host and cleaner.
class cleaner_harness {
 public:
  explicit cleaner_harness(log_config config = default_config()) : config_(config) {
    EXPECT_FALSE(fs.create_directories("/logs"));
    EXPECT_FALSE(fs.sync_directory("/"));
    open(true);
  }

  static log_config default_config() {
    log_config c;
    c.segment_bytes = 2048;
    c.index_interval_bytes = 256;
    c.cleanup.compact = true;
    c.cleanup.delete_enabled = false;
    c.min_cleanable_dirty_ratio = 0.01;
    c.file_delete_delay_ms = 1000;
    return c;
  }

  std::filesystem::path dir() const { return "/logs/compacted-0"; }

  void open(bool clean) {
    host.plog = nullptr;
    plog.reset();
    partition_log_options o;
    o.config = config_;
    o.had_clean_shutdown = clean;
    o.now_ms = now;
    storage_error err = partition_log::open(fs, dir(), o, &plog);
    ASSERT_FALSE(err) << err.message;
    host.plog = plog.get();
  }

  partition_append_result append(const bytes& batch, producer_origin origin = producer_origin::client) {
    bytes copy = batch;
    partition_append_result r;
    std::error_code ec =
        plog->append_as_leader(copy, {.epoch = leader_epoch(0), .now_ms = now, .origin = origin}, &r);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_EQ(r.error, protocol::error_code::none) << r.error_message;
    return r;
  }

  // Appends put/tombstone batches of one record each.
  void put(const std::string& key, std::optional<std::string> value) {
    append(keyed_batch({{key, std::move(value)}}, now));
  }

  void roll() { ASSERT_FALSE(plog->mutable_log().roll(now)); }

  // One cleaning through the driver; the report, if it cleaned.
  std::optional<cleaning_report> clean() {
    std::optional<cleaning_report> report;
    std::error_code ec = cleaner.clean_dirtiest(&report);
    EXPECT_FALSE(ec) << ec.message();
    return report;
  }

  // One cleaning pass from the checkpoint whatever the dirty ratio (Kafka
  // re-cleans the whole log each time; the ratio only decides when).
  void force_clean() {
    auto segs = plog->log().segments();
    std::optional<cleaning_report> report;
    log_config forced = config_;
    forced.min_cleanable_dirty_ratio = -1;  // any log qualifies (ratio > -1)
    plog->mutable_log().set_config(forced);
    std::error_code ec = cleaner.clean_dirtiest(&report);
    plog->mutable_log().set_config(config_);
    ASSERT_FALSE(ec) << ec.message();
  }

  std::vector<stored_record> records() {
    std::vector<stored_record> out;
    read_log(plog->log(), &out);
    return out;
  }

  log_config config_;
  faulty_file_system fs;
  int64_t now = cleaner_t0;
  single_log_host host;
  cleaner_config cleaner_cfg{};
  std::unique_ptr<partition_log> plog;
  log_cleaner cleaner{fs, cleaner_cfg, host, [this] { return now; }};
};

}  // namespace hw::storage::testing
