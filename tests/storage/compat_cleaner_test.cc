// Compatibility of compacted segments with Apache Kafka 4.3.1: a log
// cleaned by this cleaner (overwritten keys, tombstones with their delete
// horizon, an aborted and a committed transaction, compressed batches,
// batches emptied to keep producer state) passes Kafka's DumpLogSegments
// with --deep-iteration --index-sanity-check: no error, every index passes
// its sanity check, and every record this log holds is reported. Needs Java
// and the jars from scripts/fetch-kafka.sh; skips with a message otherwise.

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>

#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

const std::filesystem::path kSource = HW_SOURCE_DIR;

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

// Lines reporting a problem. Offset gaps ("Non-consecutive offsets", "x is
// followed by y") are what compaction leaves, as in Kafka's own compacted logs.
std::vector<std::string> problem_lines(const std::string& output) {
  std::vector<std::string> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::string lower = line;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view bad :
         {"exception", "mismatch", "isvalid: false", "out of order", "not found", "corrupt", "failed", "error"}) {
      if (lower.find(bad) != std::string::npos) {
        out.push_back(line);
        break;
      }
    }
  }
  return out;
}

size_t count_lines_containing(const std::string& text, std::string_view needle) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

TEST(CompatCleaner, KafkaReadsCompactedSegments) {
  auto libs = kafka_libs();
  if (!libs) GTEST_SKIP() << "Apache Kafka 4.3.1 jars missing: run scripts/fetch-kafka.sh (needs Maven)";
  if (system("java -version >/dev/null 2>&1") != 0) GTEST_SKIP() << "java not found";

  temp_dir tmp;
  auto fs = make_posix_file_system();
  std::filesystem::path dir = tmp.path() / "compacted-0";
  log_config config = cleaner_harness::default_config();
  config.segment_bytes = 4000;
  config.index_interval_bytes = 200;
  partition_log_options o;
  o.config = config;
  o.now_ms = cleaner_t0;
  std::unique_ptr<partition_log> plog;
  ASSERT_FALSE(partition_log::open(*fs, dir, o, &plog));
  single_log_host host;
  host.plog = plog.get();
  int64_t now = cleaner_t0;
  log_cleaner cleaner(*fs, cleaner_config{}, host, [&] { return now; });
  auto append = [&](const bytes& b, producer_origin origin = producer_origin::client) {
    bytes copy = b;
    partition_append_result r;
    ASSERT_FALSE(plog->append_as_leader(copy, {.epoch = leader_epoch(0), .now_ms = now, .origin = origin}, &r));
    ASSERT_EQ(r.error, protocol::error_code::none) << r.error_message;
  };
  const protocol::compression codecs[] = {protocol::compression::none, protocol::compression::gzip,
                                          protocol::compression::snappy, protocol::compression::lz4,
                                          protocol::compression::zstd};
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40; ++i) {
      std::vector<kv> records;
      for (int k = 0; k < 1 + i % 4; ++k)
        records.push_back({"key-" + std::to_string((i * 3 + k) % 17), "value-" + std::to_string(round * 100 + i)});
      if (i % 11 == 0) records.push_back({"key-" + std::to_string(i % 17), std::nullopt});
      append(keyed_batch(records, now + i, {}, codecs[i % 5]));
    }
    // A key deleted for good: its tombstone stays, stamped with a horizon.
    append(keyed_batch({{"gone-" + std::to_string(round), "x"}}, now));
    append(keyed_batch({{"gone-" + std::to_string(round), std::nullopt}}, now));
    append(keyed_batch({{"txn-a", "aborted"}}, now, {100 + round, 0, 0, true}));
    append(marker_batch(100 + round, 0, false, now), producer_origin::coordinator);
    append(keyed_batch({{"txn-c", "committed"}}, now, {200 + round, 0, 0, true}));
    append(marker_batch(200 + round, 0, true, now), producer_origin::coordinator);
    append(keyed_batch({{"idem", "x"}}, now, {300, 0, round}));
    ASSERT_FALSE(plog->mutable_log().roll(now));
    std::optional<cleaning_report> report;
    ASSERT_FALSE(cleaner.clean_dirtiest(&report));
    ASSERT_TRUE(report);
    now += 1000;
  }
  std::vector<stored_record> records;
  std::vector<stored_batch> batches;
  read_log(plog->log(), &records, &batches);
  bool horizon = false, empty = false;
  for (const auto& b : batches) {
    horizon |= b.delete_horizon.has_value();
    empty |= b.record_count == 0;
  }
  EXPECT_TRUE(horizon) << "the test should cover batches with a delete horizon";
  EXPECT_TRUE(empty) << "the test should cover emptied batches";
  auto segments = plog->log().segments();
  ASSERT_GE(segments.size(), 3u);
  ASSERT_FALSE(plog->close());

  std::string files;
  for (const auto& s : segments) {
    for (auto suffix : {".log", ".index", ".timeindex", ".txnindex"}) {
      auto p = dir / segment_file_name(s->base_offset(), suffix);
      if (!std::filesystem::exists(p)) continue;
      if (!files.empty()) files += ",";
      files += p.string();
    }
  }
  std::string tool = (kSource / "scripts/kafka-run-class.sh").string() + " org.apache.kafka.tools.DumpLogSegments";
  int status = 0;
  std::string out = run(tool + " --files " + files + " --deep-iteration --index-sanity-check 2>&1", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(problem_lines(out), std::vector<std::string>{}) << out;
  EXPECT_EQ(count_lines_containing(out, "| offset: "), records.size()) << out;
  // Each index passes (an empty one is reported as such).
  EXPECT_EQ(count_lines_containing(out, "passed sanity check") + count_lines_containing(out, " is empty."),
            2 * segments.size())
      << out;

  // Without the sanity flag the tool also checks each index entry against
  // the log. One report is expected: a time index entry at a batch emptied
  // to keep a producer's sequence. The empty batch keeps its original max
  // timestamp in its header (as Kafka's writeEmptyHeader does), while the
  // tool compares with the max over its records, which is -1 when there are
  // none; Kafka's own cleaned segments read the same way.
  std::string verified = run(tool + " --files " + files + " --deep-iteration 2>&1", &status);
  ASSERT_EQ(status, 0) << verified;
  std::vector<std::string> problems;
  for (const auto& line : problem_lines(verified))
    if (!line.starts_with("Found timestamp mismatch")) problems.push_back(line);
  EXPECT_EQ(problems, std::vector<std::string>{}) << verified;
  EXPECT_EQ(count_lines_containing(verified, "log timestamp: "), count_lines_containing(verified, "log timestamp: -1"))
      << verified;
}

}  // namespace
}  // namespace hw::storage
