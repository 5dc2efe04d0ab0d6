// Compatibility with Apache Kafka 4.3.1's on-disk format, both ways:
// - a partition directory written by a real Kafka broker
//   (fixtures/kafka-4.3.1/fixture-0, made by capture.sh) opens cleanly,
//   reads back every record, and recovery rebuilds its indexes byte for byte;
// - producer snapshots written by partition_log decode in DumpLogSegments
//   with every producer's last batch;
// - segments written by this log pass Kafka's own DumpLogSegments (deep
//   iteration, index sanity check, and index-versus-log verification) with
//   every record reported and no error; it needs Java and the jars from
//   scripts/fetch-kafka.sh and skips with a message when they are missing.
// Every test here is named Compat*: `ctest -R ^Compat` selects them (the
// per-group executable carries the unit label; see the storage report).

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "protocol/records/control_record.h"
#include "storage/log.h"
#include "storage/partition_log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

const std::filesystem::path kSource = HW_SOURCE_DIR;
const std::filesystem::path kFixture = kSource / "tests/storage/fixtures/kafka-4.3.1";

void copy_dir(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::filesystem::create_directories(to);
  for (const auto& e : std::filesystem::directory_iterator(from))
    std::filesystem::copy_file(e.path(), to / e.path().filename());
}

std::map<std::string, std::string> files_ending(const std::filesystem::path& dir, std::string_view suffix) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.path().filename().string().ends_with(suffix)) continue;
    std::ifstream in(e.path(), std::ios::binary);
    out[e.path().filename().string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

// The records capture.sh produced: record i has key "key-i" and value
// "value-i-" followed by i % 50 'x' (empty for every 7th), two headers.
struct fixture_record {
  std::string key, value;
  std::vector<std::string> header_keys;
};

std::vector<fixture_record> read_fixture_records(const log& l) {
  std::vector<fixture_record> out;
  int64_t next = 0;
  while (next < l.log_end_offset().value) {
    log_read_result r;
    EXPECT_FALSE(l.read(offset(next), 1 << 20, l.log_end_offset(), true, &r));
    bytes data = read_range(r);
    protocol::record_batch_walker walker(data);
    protocol::record_batch_view b;
    std::vector<uint8_t> scratch;
    while (walker.next(b)) {
      EXPECT_EQ(b.validate(), protocol::batch_error::none);
      protocol::record_iterator it;
      EXPECT_EQ(b.open_records(scratch, 1 << 24, it), protocol::batch_error::none);
      protocol::record_view rec;
      while (it.next(rec)) {
        EXPECT_EQ(rec.offset, static_cast<int64_t>(out.size()));
        fixture_record f;
        f.key = rec.key ? std::string(rec.key->begin(), rec.key->end()) : "<null>";
        f.value = rec.value ? std::string(rec.value->begin(), rec.value->end()) : "<null>";
        for (const auto& h : rec.headers()) f.header_keys.emplace_back(h.key);
        out.push_back(std::move(f));
      }
      next = b.next_offset();
    }
  }
  return out;
}

class CompatKafkaWrittenLog : public ::testing::Test {
 protected:
  void SetUp() override { copy_dir(kFixture / "fixture-0", dir()); }
  std::filesystem::path dir() const { return tmp_.path() / "fixture-0"; }
  void open(bool clean) {
    log_open_options o;
    o.had_clean_shutdown = clean;
    o.on_recovered_batch = [&](const protocol::record_batch_view&) { ++recovered_batches_; };
    ASSERT_FALSE(log::open(*fs_, dir(), config_, o, &log_, &report_));
  }

  // The topic's configs in capture.sh.
  log_config config_{.segment_ms = 1000, .index_interval_bytes = 256};

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  std::unique_ptr<log> log_;
  log_load_report report_;
  int recovered_batches_ = 0;
};

TEST_F(CompatKafkaWrittenLog, OpensCleanlyAndReadsEveryRecordBack) {
  auto indexes = files_ending(dir(), "index");
  open(true);
  EXPECT_TRUE(report_.events.empty()) << report_.events.front();
  EXPECT_EQ(log_->segment_count(), 3u);
  EXPECT_EQ(log_->log_end_offset(), offset(240));
  auto records = read_fixture_records(*log_);
  ASSERT_EQ(records.size(), 240u);
  for (int i = 0; i < 240; ++i) {
    SCOPED_TRACE("offset " + std::to_string(i));
    EXPECT_EQ(records[i].key, "key-" + std::to_string(i));
    std::string value = i % 7 == 0 ? "" : "value-" + std::to_string(i) + "-" + std::string(i % 50, 'x');
    EXPECT_EQ(records[i].value, value);
    EXPECT_EQ(records[i].header_keys, (std::vector<std::string>{"source", "round"}));
  }
  // The consumer's view, captured from the broker.
  std::ifstream expected(kFixture / "expected.tsv");
  std::string line;
  int n = 0;
  while (std::getline(expected, line)) {
    std::istringstream fields(line);
    int64_t o = 0;
    std::string key;
    size_t value_bytes = 0;
    fields >> o >> key >> value_bytes;
    ASSERT_EQ(o, n);
    EXPECT_EQ(records[n].key, key);
    EXPECT_EQ(records[n].value.size(), value_bytes);
    ++n;
  }
  EXPECT_EQ(n, 240);
  EXPECT_EQ(files_ending(dir(), "index"), indexes) << "a clean open changes no file";
}

TEST_F(CompatKafkaWrittenLog, TimestampLookupsUseKafkasTimeIndex) {
  open(true);
  std::optional<timestamp_and_offset> max, found;
  ASSERT_FALSE(log_->offset_for_timestamp(max_timestamp, &max));
  ASSERT_TRUE(max);
  ASSERT_FALSE(log_->offset_for_timestamp(max->timestamp, &found));
  ASSERT_TRUE(found);
  EXPECT_LE(found->offset, max->offset);
  EXPECT_EQ(found->timestamp, max->timestamp);
  ASSERT_FALSE(log_->offset_for_timestamp(0, &found));
  EXPECT_EQ(found->offset, offset(0));
  EXPECT_EQ(found->epoch, leader_epoch(0));
}

TEST_F(CompatKafkaWrittenLog, RecoveryRebuildsKafkasIndexesByteForByte) {
  auto indexes = files_ending(dir(), "index");
  open(false);
  EXPECT_EQ(report_.segments_recovered, 3u);
  EXPECT_EQ(report_.bytes_truncated, 0u);
  EXPECT_GT(recovered_batches_, 0);
  ASSERT_FALSE(log_->close());
  EXPECT_EQ(files_ending(dir(), "index"), indexes);
  EXPECT_EQ(read_fixture_records(*log_).size(), 240u);
}

TEST_F(CompatKafkaWrittenLog, AppendsContinueAfterKafkasRecords) {
  open(true);
  bytes batch = make_batch({.records = 3});
  append_result r;
  ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r));
  EXPECT_EQ(r.first_offset, offset(240));
  EXPECT_EQ(read_all(*log_, 238).size(), 5u);
}

// --- DumpLogSegments on our segments ----------------------------------------------

std::optional<std::filesystem::path> kafka_libs() {
  const char* cache = getenv("HW_KAFKA_CACHE");
  const char* home = getenv("HOME");
  std::filesystem::path dir = cache && *cache ? std::filesystem::path(cache)
                                              : std::filesystem::path(home ? home : "/") / ".cache/highwater/kafka-4.3.1";
  if (!std::filesystem::exists(dir / "libs/.complete")) return std::nullopt;
  return dir / "libs";
}

std::string run(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

// DumpLogSegments' output, split per dumped file.
std::map<std::string, std::string> dump_sections(const std::string& output) {
  std::map<std::string, std::string> out;
  std::istringstream in(output);
  std::string line, current = "<preamble>";
  while (std::getline(in, line)) {
    if (line.starts_with("Dumping ")) current = std::filesystem::path(line.substr(8)).filename().string();
    out[current] += line + "\n";
  }
  return out;
}

size_t count_lines_starting(const std::string& text, std::string_view prefix) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) n += line.starts_with(prefix);
  return n;
}

// Lines that report a problem. The one exception: DumpLogSegments reports
// "-1 is followed by <base>" for every segment not starting at offset 0
// (it prints that for Kafka's own segments too).
std::vector<std::string> problem_lines(const std::string& output, const std::vector<offset>& bases) {
  std::vector<std::string> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::string lower = line;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (line.starts_with("Non-consecutive offsets")) continue;
    if (line.starts_with("  -1 is followed by ")) {
      offset next(std::stoll(line.substr(20)));
      if (std::find(bases.begin(), bases.end(), next) != bases.end()) continue;
    }
    for (std::string_view bad : {"exception", "mismatch", "isvalid: false", "out of order", "not found", "corrupt",
                                 "failed", "error", "is followed by"}) {
      if (lower.find(bad) != std::string::npos) {
        out.push_back(line);
        break;
      }
    }
  }
  return out;
}

TEST(CompatDumpLogSegments, KafkaReadsEverySegmentThisLogWrites) {
  auto libs = kafka_libs();
  if (!libs) GTEST_SKIP() << "Apache Kafka 4.3.1 jars missing: run scripts/fetch-kafka.sh (needs Maven)";
  if (system("java -version >/dev/null 2>&1") != 0) GTEST_SKIP() << "java not found";

  temp_dir tmp;
  auto fs = make_posix_file_system();
  std::filesystem::path dir = tmp.path() / "compat-0";
  std::unique_ptr<log> l;
  log_load_report report;
  log_config config{.segment_bytes = 6000, .index_interval_bytes = 300};
  ASSERT_FALSE(log::open(*fs, dir, config, {}, &l, &report));
  std::map<int64_t, int> records_per_base;  // filled after writing
  const protocol::compression codecs[] = {protocol::compression::none, protocol::compression::gzip,
                                          protocol::compression::snappy, protocol::compression::lz4,
                                          protocol::compression::zstd};
  int64_t total = 0;
  for (int i = 0; i < 60; ++i) {
    bytes batch = make_batch({.records = 1 + i % 9, .first_timestamp = 1'700'000'000'000 + 1000 * i,
                              .value_bytes = static_cast<size_t>(10 + 7 * i), .codec = codecs[i % 5]});
    if (i == 30) {
      // A transaction marker, as the coordinator writes it.
      batch.clear();
      protocol::end_txn_marker_batch marker;
      marker.producer_id = 42;
      marker.producer_epoch = 1;
      marker.timestamp_ms = 1'700'000'030'000;
      marker.marker.type = protocol::control_record_type::commit;
      protocol::append_end_txn_marker_batch(batch, marker);
    }
    append_result r;
    ASSERT_FALSE(l->append(batch, {append_origin::leader, leader_epoch(i / 20), 0}, &r));
    total += r.last_offset.value - r.first_offset.value + 1;
  }
  auto infos = l->segment_infos();
  ASSERT_GE(infos.size(), 3u);
  ASSERT_FALSE(l->close());

  std::string files;
  std::vector<offset> bases;
  for (const auto& s : infos) {
    bases.push_back(s.base_offset);
    for (auto suffix : {".log", ".index", ".timeindex"}) {
      if (!files.empty()) files += ",";
      files += (dir / segment_file_name(s.base_offset, suffix)).string();
    }
  }
  std::string tool = (kSource / "scripts/kafka-run-class.sh").string() + " org.apache.kafka.tools.DumpLogSegments";
  int status = 0;
  std::string checked = run(tool + " --files " + files + " --deep-iteration --index-sanity-check 2>&1", &status);
  ASSERT_EQ(status, 0) << checked;
  std::string verified = run(tool + " --files " + files + " --deep-iteration 2>&1", &status);
  ASSERT_EQ(status, 0) << verified;
  EXPECT_EQ(problem_lines(checked, bases), std::vector<std::string>{}) << checked;
  EXPECT_EQ(problem_lines(verified, bases), std::vector<std::string>{}) << verified;

  auto sections = dump_sections(checked);
  auto verified_sections = dump_sections(verified);
  int64_t reported = 0;
  for (const auto& s : infos) {
    std::string log_name = segment_file_name(s.base_offset, ".log");
    size_t records = count_lines_starting(sections[log_name], "| offset: ");
    EXPECT_EQ(records, static_cast<size_t>(s.next_offset - s.base_offset)) << log_name;
    reported += static_cast<int64_t>(records);
    for (auto suffix : {".index", ".timeindex"}) {
      std::string name = segment_file_name(s.base_offset, suffix);
      EXPECT_NE(sections[name].find("passed sanity check"), std::string::npos) << sections[name];
    }
    // Without the sanity flag the tool lists each index entry and checks it
    // against the log: the first segment has entries, and they all check out.
    std::string index_section = verified_sections[segment_file_name(s.base_offset, ".index")];
    if (s.base_offset == infos.front().base_offset) {
      EXPECT_GT(count_lines_starting(index_section, "offset: "), 0u) << index_section;
    }
  }
  EXPECT_EQ(reported, total);
  size_t index_entries = 0, time_entries = 0;
  for (const auto& s : infos) {
    index_entries += count_lines_starting(verified_sections[segment_file_name(s.base_offset, ".index")], "offset: ");
    time_entries +=
        count_lines_starting(verified_sections[segment_file_name(s.base_offset, ".timeindex")], "timestamp: ");
  }
  std::cout << "DumpLogSegments: " << infos.size() << " segments, " << reported << " of " << total
            << " records reported, " << index_entries << " offset index and " << time_entries
            << " time index entries verified against the log, no errors\n";
}

TEST(CompatDumpLogSegments, KafkaDecodesProducerSnapshotsThisLogWrites) {
  auto libs = kafka_libs();
  if (!libs) GTEST_SKIP() << "Apache Kafka 4.3.1 jars missing: run scripts/fetch-kafka.sh (needs Maven)";
  if (system("java -version >/dev/null 2>&1") != 0) GTEST_SKIP() << "java not found";

  temp_dir tmp;
  auto fs = make_posix_file_system();
  std::unique_ptr<partition_log> plog;
  ASSERT_FALSE(partition_log::open(*fs, tmp.path() / "snap-0", {}, &plog));
  // Producers 100, 101 and 102 append idempotent batches of 2 records.
  for (int i = 0; i < 9; ++i) {
    protocol::record_batch_options o;
    o.producer_id = 100 + i % 3;
    o.producer_epoch = 3;
    o.base_sequence = (i / 3) * 2;
    protocol::record_batch_builder b(o);
    for (int r = 0; r < 2; ++r) b.append(1'700'000'000'000 + i, std::nullopt, protocol::bytes_view());
    bytes batch = b.finish();
    partition_append_result result;
    ASSERT_FALSE(plog->append_as_leader(batch, {.epoch = leader_epoch(0), .now_ms = 1'700'000'000'000}, &result));
    ASSERT_EQ(result.error, protocol::error_code::none) << result.error_message;
  }
  ASSERT_FALSE(plog->take_snapshot());
  std::filesystem::path snapshot = tmp.path() / "snap-0" / segment_file_name(offset(18), ".snapshot");
  ASSERT_TRUE(std::filesystem::exists(snapshot));

  std::string tool = (kSource / "scripts/kafka-run-class.sh").string() + " org.apache.kafka.tools.DumpLogSegments";
  int status = 0;
  std::string out = run(tool + " --files " + snapshot.string() + " 2>&1", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("Exception"), std::string::npos) << out;
  // Each producer's last batch: sequences 4-5, at offsets 12+2k .. 13+2k.
  for (int k = 0; k < 3; ++k) {
    std::string id = "producerId: " + std::to_string(100 + k) + " producerEpoch: 3";
    size_t at = out.find(id);
    ASSERT_NE(at, std::string::npos) << out;
    std::string line = out.substr(at, out.find('\n', at) - at);
    EXPECT_NE(line.find("firstSequence: 4 lastSequence: 5"), std::string::npos) << line;
    EXPECT_NE(line.find("lastOffset: " + std::to_string(13 + 2 * k)), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace hw::storage
