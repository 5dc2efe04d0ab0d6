// Golden bytes captured from real clients (the Java 4.x client and
// librdkafka) talking to Apache Kafka: every request and response decodes,
// and re-encodes to the identical bytes; chosen fields decode to the values
// the scenario put there. See tests/protocol/fixtures/README.md.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <regex>
#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/consumer_protocol.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/sync_group.h"
#include "protocol/records/record_batch.h"

namespace hw::protocol {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(HW_SOURCE_DIR) / "tests/protocol/fixtures";

struct fixture {
  std::string client;
  std::string scenario;
  std::string api_name;
  int16_t api_key = -1;
  int16_t api_version = -1;
  int32_t correlation_id = -1;
  std::vector<uint8_t> request;
  std::vector<uint8_t> response;
};

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// manifest.json is written one key per line; that is all this reader needs.
std::vector<fixture> load_fixtures() {
  std::ifstream in(kFixtures / "manifest.json");
  std::vector<fixture> out;
  std::map<std::string, std::string> cur;
  std::regex kv(R"re(^\s*"(\w+)": "?([^",]*)"?,?\s*$)re");
  std::string line;
  auto flush = [&] {
    if (!cur.count("request")) return;
    fixture f;
    f.client = cur["client"];
    f.scenario = cur["scenario"];
    f.api_name = cur["api_name"];
    f.api_key = static_cast<int16_t>(std::stoi(cur["api_key"]));
    f.api_version = static_cast<int16_t>(std::stoi(cur["api_version"]));
    f.correlation_id = std::stoi(cur["correlation_id"]);
    f.request = read_file(kFixtures / cur["request"]);
    f.response = read_file(kFixtures / cur["response"]);
    out.push_back(std::move(f));
    cur.clear();
  };
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kv)) {
      if (m[1] == "request") flush();
      cur[m[1]] = m[2];
    }
  }
  flush();
  return out;
}

const std::vector<fixture>& fixtures() {
  static const std::vector<fixture> all = load_fixtures();
  return all;
}

// Splits a frame into its header (decoded) and body.
template <typename Header>
bytes_view split(const std::vector<uint8_t>& frame, int16_t header_version, Header& header) {
  reader r(frame);
  header.decode(r, header_version);
  EXPECT_TRUE(r.ok()) << r.error();
  return bytes_view(frame).subspan(r.position());
}

template <typename T>
T decode_body(bytes_view body, int16_t version) {
  reader r(body);
  T m;
  m.decode(r, version);
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.remaining(), 0u);
  return m;
}

TEST(GoldenFixtures, CoverBothClientsAndTheKeyApis) {
  std::set<std::pair<std::string, int16_t>> seen;
  for (const fixture& f : fixtures()) seen.insert({f.client, f.api_key});
  for (const char* client : {"java", "librdkafka"})
    for (int16_t key : {18, 3, 0, 1, 11, 14, 8, 22})  // ApiVersions ... InitProducerId
      EXPECT_TRUE(seen.count({client, key})) << client << " api " << key;
  EXPECT_GE(fixtures().size(), 100u);
}

TEST(GoldenFixtures, EveryRequestReencodesToTheSameBytes) {
  for (const fixture& f : fixtures()) {
    SCOPED_TRACE(f.client + " " + f.scenario + " " + f.api_name + " v" + std::to_string(f.api_version));
    msg::request_header h;
    bytes_view body = split(f.request, request_header_version(f.api_key, f.api_version), h);
    EXPECT_EQ(h.request_api_key, f.api_key);
    EXPECT_EQ(h.request_api_version, f.api_version);
    EXPECT_EQ(h.correlation_id, f.correlation_id);
    const char* error = nullptr;
    auto again = reencode_request(f.api_key, f.api_version, body, &error);
    ASSERT_TRUE(again) << error;
    EXPECT_TRUE(std::equal(again->begin(), again->end(), body.begin(), body.end()));
    // The header itself re-encodes identically too.
    std::vector<uint8_t> hb;
    writer w(hb);
    h.encode(w, request_header_version(f.api_key, f.api_version));
    EXPECT_TRUE(std::equal(hb.begin(), hb.end(), f.request.begin()));
  }
}

TEST(GoldenFixtures, EveryResponseReencodesToTheSameBytes) {
  for (const fixture& f : fixtures()) {
    SCOPED_TRACE(f.client + " " + f.scenario + " " + f.api_name + " v" + std::to_string(f.api_version));
    msg::response_header h;
    bytes_view body = split(f.response, response_header_version(f.api_key, f.api_version), h);
    EXPECT_EQ(h.correlation_id, f.correlation_id);
    const char* error = nullptr;
    auto again = reencode_response(f.api_key, f.api_version, body, &error);
    ASSERT_TRUE(again) << error;
    EXPECT_TRUE(std::equal(again->begin(), again->end(), body.begin(), body.end()));
  }
}

TEST(GoldenFixtures, ApiVersionsNameTheClientAndKafkaAdvertisesProduceFromV0) {
  int checked = 0;
  for (const fixture& f : fixtures()) {
    if (f.api_key != 18) continue;
    msg::request_header h;
    auto req = decode_body<msg::api_versions_request>(split(f.request, 2, h), f.api_version);
    EXPECT_EQ(req.client_software_name, f.client == "java" ? "apache-kafka-java" : "librdkafka");
    EXPECT_FALSE(req.client_software_version.empty());
    msg::response_header rh;
    auto resp = decode_body<msg::api_versions_response>(split(f.response, 0, rh), f.api_version);
    EXPECT_EQ(resp.error_code, 0);
    bool produce = false;
    for (const auto& k : resp.api_keys)
      if (k.api_key == 0) {
        produce = true;
        EXPECT_EQ(k.min_version, 0);
      }
    EXPECT_TRUE(produce);
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

TEST(GoldenFixtures, ProduceBatchesCarryTheScenarioCodec) {
  const std::map<std::string, int> codec = {{"none", 0}, {"gzip", 1}, {"snappy", 2}, {"lz4", 3}, {"zstd", 4}};
  int checked = 0;
  for (const fixture& f : fixtures()) {
    if (f.api_key != 0 || f.scenario.rfind("produce-", 0) != 0) continue;
    auto it = codec.find(f.scenario.substr(8));
    if (it == codec.end()) continue;
    msg::request_header h;
    auto req = decode_body<msg::produce_request>(
        split(f.request, request_header_version(0, f.api_version), h), f.api_version);
    ASSERT_FALSE(req.topic_data.empty());
    ASSERT_FALSE(req.topic_data[0].partition_data.empty());
    const records_view& records = req.topic_data[0].partition_data[0].records;
    ASSERT_FALSE(records.null);
    ASSERT_GT(records.size, 22u);
    // The records view points into the request frame: nothing was copied.
    EXPECT_GE(records.data, f.request.data());
    EXPECT_LE(records.data + records.size, f.request.data() + f.request.size());
    EXPECT_EQ(records.data[16], 2) << "magic";
    EXPECT_EQ(records.data[22] & 0x7, it->second) << "compression bits of the batch attributes";
    ++checked;
  }
  EXPECT_EQ(checked, 10);  // five codecs, two clients
}

TEST(GoldenFixtures, JoinGroupAndInitProducerIdDecodeToTheirValues) {
  int joins = 0, inits = 0;
  for (const fixture& f : fixtures()) {
    msg::request_header h;
    bytes_view body = split(f.request, request_header_version(f.api_key, f.api_version), h);
    if (f.api_key == 11) {
      auto join = decode_body<msg::join_group_request>(body, f.api_version);
      EXPECT_EQ(join.protocol_type, "consumer");
      EXPECT_FALSE(join.group_id.empty());
      EXPECT_FALSE(join.protocols.empty());
      ++joins;
    } else if (f.api_key == 22) {
      decode_body<msg::init_producer_id_request>(body, f.api_version);
      msg::response_header rh;
      auto resp = decode_body<msg::init_producer_id_response>(
          split(f.response, response_header_version(22, f.api_version), rh), f.api_version);
      if (resp.error_code == 0) {
        EXPECT_GE(resp.producer_id, 0);
        EXPECT_GE(resp.producer_epoch, 0);
        ++inits;
      } else {
        // A transactional id's first try may meet COORDINATOR_LOAD_IN_PROGRESS.
        EXPECT_EQ(resp.error_code, static_cast<int16_t>(error_code::coordinator_load_in_progress));
        EXPECT_EQ(resp.producer_id, -1);
      }
    }
  }
  EXPECT_GE(joins, 2);
  EXPECT_GE(inits, 2);
}

TEST(GoldenFixtures, FetchResponsesCarryValidBatches) {
  int batches = 0;
  for (const fixture& f : fixtures()) {
    if (f.api_key != 1) continue;
    msg::response_header rh;
    auto resp = decode_body<msg::fetch_response>(
        split(f.response, response_header_version(1, f.api_version), rh), f.api_version);
    for (const auto& t : resp.responses)
      for (const auto& p : t.partitions) {
        EXPECT_EQ(p.error_code, 0);
        if (p.records.null || p.records.size == 0) continue;
        EXPECT_GE(p.high_watermark, 0);
        record_batch_walker walker(p.records.bytes());
        record_batch_view b{bytes_view{}};
        while (walker.next(b)) {
          EXPECT_EQ(b.validate(), batch_error::none);
          EXPECT_LT(b.last_offset(), p.high_watermark);
          ++batches;
        }
        EXPECT_EQ(walker.error(), batch_error::none);
      }
  }
  EXPECT_GE(batches, 6);  // records fetched by both clients, every codec
}

TEST(GoldenFixtures, SyncGroupAssignmentsAreConsumerProtocolAssignments) {
  int assignments = 0;
  for (const fixture& f : fixtures()) {
    if (f.api_key != 14) continue;
    msg::response_header rh;
    auto resp = decode_body<msg::sync_group_response>(
        split(f.response, response_header_version(14, f.api_version), rh), f.api_version);
    EXPECT_EQ(resp.error_code, 0);
    ASSERT_GE(resp.assignment.size(), 2u);
    reader r(resp.assignment);
    int16_t version = r.read_int16();
    msg::consumer_protocol_assignment a;
    a.decode(r, version);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_FALSE(a.assigned_partitions.empty());
    EXPECT_FALSE(a.assigned_partitions[0].topic.empty());
    EXPECT_FALSE(a.assigned_partitions[0].partitions.empty());
    ++assignments;
  }
  EXPECT_GE(assignments, 2);
}

TEST(GoldenFixtures, OffsetCommitsNameCommittedOffsets) {
  int commits = 0;
  for (const fixture& f : fixtures()) {
    if (f.api_key != 8) continue;
    msg::request_header h;
    auto req = decode_body<msg::offset_commit_request>(
        split(f.request, request_header_version(8, f.api_version), h), f.api_version);
    EXPECT_FALSE(req.group_id.empty());
    for (const auto& t : req.topics)
      for (const auto& p : t.partitions) {
        EXPECT_GE(p.committed_offset, 0);
        ++commits;
      }
  }
  EXPECT_GE(commits, 2);
}

}  // namespace
}  // namespace hw::protocol
