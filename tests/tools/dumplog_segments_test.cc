// kafka-dump-log.sh on segments built with the project's record builders:
// the batch and record lines, control records, compressed batches, a torn
// tail, indexes and their mismatch reports, producer snapshots, and the
// JSON formatting rules Kafka's tool shows (Jackson, Java's Double.toString).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "protocol/json/json_out.h"
#include "protocol/records/record_batch_builder.h"
#include "tools/commands/dump_log.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

namespace fs = std::filesystem;

protocol::bytes_view bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

struct run_result {
  int status;
  std::string out, err;
};

run_result dump(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = kafka_dump_log(args, tool_io{out, err});
  return {status, out.str(), err.str()};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class DumpLogSegments : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dumplog-unit-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::vector<uint8_t>& data) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::ssize(data));
    return p.string();
  }

  // Offsets 0-1 (keys, values, headers, idempotent producer 7), 2-4 gzip,
  // 5 an ABORT marker of producer 7.
  std::vector<uint8_t> segment() {
    std::vector<uint8_t> log;
    protocol::record_batch_options plain;
    plain.producer_id = 7;
    plain.producer_epoch = 1;
    plain.base_sequence = 10;
    plain.partition_leader_epoch = 3;
    protocol::record_batch_builder first(plain);
    const protocol::record_header headers[] = {{"h1", bytes("a")}, {"h2", std::nullopt}};
    first.append(1000, bytes("k1"), bytes("v1"), headers);
    first.append(1001, std::nullopt, bytes("v\xff"));
    first.finish_into(log);
    protocol::record_batch_options gz;
    gz.base_offset = 2;
    gz.codec = protocol::compression::gzip;
    protocol::record_batch_builder second(gz);
    for (int i = 0; i < 3; ++i) second.append(2000 + i, std::nullopt, bytes("m" + std::to_string(i)));
    second.finish_into(log);
    protocol::end_txn_marker_batch marker;
    marker.base_offset = 5;
    marker.producer_id = 7;
    marker.producer_epoch = 1;
    marker.timestamp_ms = 3000;
    marker.marker = {protocol::control_record_type::abort, 4};
    protocol::append_end_txn_marker_batch(log, marker);
    return log;
  }

  fs::path dir_;
};

TEST_F(DumpLogSegments, PrintsBatchesAndRecordsAsKafkaDoes) {
  auto log = segment();
  const size_t first_size = 12 + static_cast<size_t>((log[8] << 24) | (log[9] << 16) | (log[10] << 8) | log[11]);
  log.insert(log.end(), {1, 2, 3, 4, 5});  // a torn tail
  const std::string path = write("00000000000000000000.log", log);
  const auto r = dump({"--files", path, "--print-data-log"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 12u) << r.out;
  EXPECT_EQ(out[0], "Dumping " + path);
  EXPECT_EQ(out[1], "Log starting offset: 0");
  EXPECT_EQ(out[2].rfind("baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 10 lastSequence: 11 producerId: 7 "
                         "producerEpoch: 1 partitionLeaderEpoch: 3 isTransactional: false isControl: false "
                         "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1001 size: " +
                             std::to_string(first_size) + " magic: 2 compresscodec: none crc: ",
                         0),
            0u)
      << out[2];
  EXPECT_NE(out[2].find(" isvalid: true"), std::string::npos);
  EXPECT_EQ(out[3], "| offset: 0 CreateTime: 1000 keySize: 2 valueSize: 2 sequence: 10 headerKeys: [h1,h2] key: k1 "
                    "payload: v1");
  // Java decodes a malformed byte as U+FFFD.
  EXPECT_EQ(out[4], "| offset: 1 CreateTime: 1001 keySize: -1 valueSize: 2 sequence: 11 headerKeys: [] payload: "
                    "v\xEF\xBF\xBD");
  EXPECT_NE(out[5].find("compresscodec: gzip"), std::string::npos);
  EXPECT_EQ(out[6], "| offset: 2 CreateTime: 2000 keySize: -1 valueSize: 2 sequence: -1 headerKeys: [] payload: m0");
  EXPECT_NE(out[9].find("isTransactional: true isControl: true"), std::string::npos);
  EXPECT_EQ(out[10], "| offset: 5 CreateTime: 3000 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: "
                     "ABORT coordinatorEpoch: 4");
  EXPECT_EQ(out[11], "Found 5 invalid bytes at the end of 00000000000000000000.log");
}

TEST_F(DumpLogSegments, SkipsMetadataAndReportsGapsAndCorruption) {
  auto log = segment();
  const std::string path = write("00000000000000000003.log", log);
  auto r = dump({"--files", path, "--print-data-log", "--skip-record-metadata"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = lines(r.out);
  EXPECT_EQ(out[3], "| key: k1 payload: v1");
  EXPECT_EQ(out.back(), "");  // a control record prints an empty line
  // Offsets come from the batches (0 follows -1), not from the name.
  EXPECT_EQ(r.err, "");

  // A batch length below 14 ends the run as Kafka's CorruptRecordException.
  log[8] = log[9] = log[10] = 0;
  log[11] = 5;
  write("00000000000000000003.log", log);
  r = dump({"--files", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err)[0], "Exception in thread \"main\" org.apache.kafka.common.errors.CorruptRecordException: "
                             "Found record size 5 smaller than minimum record overhead (14) in file " +
                                 path + ".");
}

TEST_F(DumpLogSegments, ChecksAnOffsetIndexAgainstItsSegment) {
  const auto log = segment();
  write("00000000000000000000.log", log);
  // Entry 1 -> position 0 matches (the first batch ends at 1); 3 -> the
  // second batch's position does not (it ends at 4).
  const size_t second = 12 + static_cast<size_t>((log[8] << 24) | (log[9] << 16) | (log[10] << 8) | log[11]);
  std::vector<uint8_t> index = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, static_cast<uint8_t>(second)};
  const std::string path = write("00000000000000000000.index", index);
  const auto r = dump({"--files", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out)[1], "offset: 1 position: 0");
  EXPECT_EQ(lines(r.out)[2], "offset: 3 position: " + std::to_string(second));
  EXPECT_EQ(r.err, "Mismatches in :" + path + "\n  Index offset: 3, log offset: 4\n");
  const auto sane = dump({"--files", path, "--index-sanity-check"});
  EXPECT_EQ(lines(sane.out)[1], path + " passed sanity check.");
}

TEST_F(DumpLogSegments, ReportsACorruptProducerSnapshotAndGoesOn) {
  std::vector<uint8_t> snapshot = {0, 1, 0, 0, 0, 9, 0, 0, 0, 0};  // version 1, wrong CRC, no entries
  const std::string path = write("00000000000000000010.snapshot", snapshot);
  const auto r = dump({"--files", path});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "Snapshot is corrupt (CRC is no longer valid). Stored crc: 9. Computed crc: 1214729159\n");
}

TEST(DumpLogOptions, RefusesWhatItCannotDo) {
  auto r = dump({"--files", "x.log", "--value-decoder-class"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--value-decoder-class"), std::string::npos);
  r = dump({"--print-data-log"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err)[0], "Missing required argument \"[files]\"");
  r = dump({"--files", "noext,a.unknown"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "Ignoring unknown file noext\nIgnoring unknown file a.unknown\n");
}

TEST(DumpLogJson, FormatsAsJacksonAndJava) {
  using namespace protocol::json;
  EXPECT_EQ(java_double(100), "100.0");
  EXPECT_EQ(java_double(1e7), "1.0E7");
  EXPECT_EQ(java_double(9999999), "9999999.0");
  EXPECT_EQ(java_double(0.001), "0.001");
  EXPECT_EQ(java_double(0.0001), "1.0E-4");
  EXPECT_EQ(java_double(-123.456), "-123.456");
  EXPECT_EQ(java_double(1.5e300), "1.5E300");
  EXPECT_EQ(quoted("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(java_utf8("ok\xE2\x82"), "ok\xEF\xBF\xBD");
  EXPECT_EQ(java_utf8("\xC3\xA9\x80"), "\xC3\xA9\xEF\xBF\xBD");
  const uint8_t b[] = {0xfb, 0xff, 0x01};
  EXPECT_EQ(base64(b, 3), "+/8B");
  EXPECT_EQ(base64(b, 1), "+w==");
  json_out out;
  out.begin_object();
  out.key("a");
  out.begin_array();
  out.integer(1);
  out.null();
  out.end_array();
  out.key("b");
  out.string("x");
  out.end_object();
  EXPECT_EQ(out.text(), "{\"a\":[1,null],\"b\":\"x\"}");
}

}  // namespace
}  // namespace hw::tools
