// The seed corpus of tests/fuzz/record_batch_fuzz.cc, and its generator.
//
// Normally this checks that every committed seed is still a valid records
// field. With HW_WRITE_FUZZ_SEEDS=1 in the environment it (re)writes the
// seeds first:
//   HW_WRITE_FUZZ_SEEDS=1 protocol_records_tests --gtest_filter='RecordsFuzzSeeds.*'

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"

namespace hw::protocol {
namespace {

using bytes = std::vector<uint8_t>;
namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(HW_SOURCE_DIR) / "tests/fuzz/corpus/record_batch";
constexpr size_t kMaxSeedBytes = 64 * 1024;

bytes_view bv(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

bytes small_batch(compression codec, bool transactional, int records) {
  record_batch_options o;
  o.base_offset = 40;
  o.partition_leader_epoch = 2;
  o.codec = codec;
  if (transactional) {
    o.transactional = true;
    o.producer_id = 7001;
    o.producer_epoch = 3;
    o.base_sequence = 11;
  }
  record_batch_builder b(o);
  record_header headers[] = {{"trace-id", bv("0af7651916cd43dd")}, {"empty", std::nullopt}};
  for (int i = 0; i < records; ++i) {
    std::string value = R"({"order":)" + std::to_string(1000 + i) + R"(,"status":"paid"})";
    std::optional<bytes_view> key;
    if (i % 3 != 2) key = bv(i % 3 == 0 ? "customer-1" : "");
    b.append(1700000000000 + i * 5, key, bytes_view(reinterpret_cast<const uint8_t*>(value.data()),
                                                    value.size()),
             std::span<const record_header>(headers, static_cast<size_t>(i % 3)));
  }
  return b.finish();
}

std::map<std::string, bytes> generate_seeds() {
  std::map<std::string, bytes> seeds;
  for (compression codec : {compression::none, compression::gzip, compression::snappy,
                            compression::lz4, compression::zstd}) {
    std::string name(compression_name(codec));
    seeds[name + "_one_record"] = small_batch(codec, false, 1);
    seeds[name + "_six_records"] = small_batch(codec, false, 6);
    seeds[name + "_transactional"] = small_batch(codec, true, 3);
  }
  for (auto type : {control_record_type::commit, control_record_type::abort}) {
    end_txn_marker_batch m;
    m.base_offset = 43;
    m.producer_id = 7001;
    m.producer_epoch = 3;
    m.timestamp_ms = 1700000000100;
    m.marker = {type, 5};
    bytes out;
    append_end_txn_marker_batch(out, m);
    seeds[type == control_record_type::commit ? "control_commit" : "control_abort"] = out;
  }
  record_batch_options compacted;
  compacted.last_offset_delta = 4;
  seeds["empty_compacted"] = record_batch_builder(compacted).finish();
  record_batch_options append_time;
  append_time.ts_type = timestamp_type::log_append_time;
  append_time.log_append_time_ms = 1700000009999;
  record_batch_builder log_append(append_time);
  log_append.append(5, bv("k"), bv("v"));
  seeds["log_append_time"] = log_append.finish();
  // A Fetch-style records field: two batches and the start of a third.
  bytes field = small_batch(compression::none, false, 2);
  bytes second = small_batch(compression::lz4, true, 2);
  field.insert(field.end(), second.begin(), second.end());
  bytes third = small_batch(compression::zstd, false, 2);
  field.insert(field.end(), third.begin(), third.begin() + 30);
  seeds["fetch_with_partial_tail"] = field;
  return seeds;
}

TEST(RecordsFuzzSeeds, CommittedSeedsAreValidRecordsFields) {
  if (std::getenv("HW_WRITE_FUZZ_SEEDS") != nullptr) {
    fs::create_directories(kCorpus);
    for (const auto& [name, data] : generate_seeds()) {
      std::ofstream f(kCorpus / (name + ".bin"), std::ios::binary | std::ios::trunc);
      f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
      ASSERT_TRUE(f.good()) << name;
    }
  }
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "no corpus at " << kCorpus;
  size_t seeds = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kCorpus)) {
    if (e.path().extension() != ".bin") continue;
    ++seeds;
    std::ifstream f(e.path(), std::ios::binary);
    bytes data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_LE(data.size(), kMaxSeedBytes) << e.path();
    record_batch_walker w(data);
    record_batch_view v;
    bytes scratch;
    size_t batches = 0;
    while (w.next(v)) {
      ++batches;
      EXPECT_EQ(v.validate_records(scratch, 4 << 20), batch_error::none) << e.path();
    }
    EXPECT_EQ(w.error(), batch_error::none) << e.path();
    EXPECT_GE(batches, 1u) << e.path();
  }
  EXPECT_GE(seeds, generate_seeds().size());
}

}  // namespace
}  // namespace hw::protocol
