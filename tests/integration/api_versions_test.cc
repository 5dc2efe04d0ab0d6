// ApiVersions against a running highwater: every version, the fallback for a
// version the broker does not know, pipelining, and real clients' bytes.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include <fstream>
#include <iterator>

#include "broker_process.h"
#include "kafka_socket.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_versions.h"
#include "protocol/wire/reader.h"

namespace hw::testing {
namespace {

using protocol::msg::api_versions_response;

// Splits a response frame with a v0 header into its correlation id and body.
api_versions_response decode_response(const std::vector<uint8_t>& frame, int16_t version, int32_t* corr) {
  protocol::reader r(frame);
  *corr = r.read_int32();
  api_versions_response resp;
  resp.decode(r, version);
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.remaining(), 0u) << "bytes left after the v" << version << " body";
  return resp;
}

class ApiVersionsIT : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(broker.start()) << broker.log(); }
  broker_process broker;
};

TEST_F(ApiVersionsIT, EveryVersionDecodes) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.connected());
  for (int16_t v = 0; v <= 4; ++v) {
    ASSERT_TRUE(s.send_frame(api_versions_frame(v, 1000 + v)));
    auto frame = s.read_frame();
    ASSERT_TRUE(frame) << "no response to v" << v << "\n" << broker.log();
    int32_t corr = 0;
    auto resp = decode_response(*frame, v, &corr);
    EXPECT_EQ(corr, 1000 + v);
    EXPECT_EQ(resp.error_code, 0);
    bool found = false;
    for (auto& k : resp.api_keys)
      if (k.api_key == 18) {
        found = true;
        EXPECT_EQ(k.min_version, 0);
        EXPECT_EQ(k.max_version, 4);
      }
    EXPECT_TRUE(found);
    if (v >= 3) {
      EXPECT_FALSE(resp.supported_features.empty());
      // The metadata log's levels, as Kafka 4.3.1 formats them, at the
      // offset of the broker's image (past the bootstrap records).
      EXPECT_GT(resp.finalized_features_epoch, 0);
      std::map<std::string, std::pair<int16_t, int16_t>> finalized;
      for (const auto& f : resp.finalized_features) finalized[f.name] = {f.min_version_level, f.max_version_level};
      EXPECT_EQ(finalized["metadata.version"], std::make_pair(int16_t{30}, int16_t{30}));
      EXPECT_EQ(finalized["transaction.version"], std::make_pair(int16_t{2}, int16_t{2}));
      EXPECT_EQ(finalized["group.version"], std::make_pair(int16_t{1}, int16_t{1}));
      EXPECT_EQ(finalized["eligible.leader.replicas.version"], std::make_pair(int16_t{1}, int16_t{1}));
      EXPECT_EQ(finalized["streams.version"], std::make_pair(int16_t{1}, int16_t{1}));
    }
  }
}

TEST_F(ApiVersionsIT, UnknownVersionGetsV0UnsupportedVersion) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.send_frame(api_versions_frame(127, 77)));
  auto frame = s.read_frame();
  ASSERT_TRUE(frame) << broker.log();
  int32_t corr = 0;
  auto resp = decode_response(*frame, 0, &corr);
  EXPECT_EQ(corr, 77);
  EXPECT_EQ(resp.error_code, static_cast<int16_t>(protocol::error_code::unsupported_version));
  // Like Kafka: the list holds ApiVersions' own range so the client can retry.
  ASSERT_EQ(resp.api_keys.size(), 1u);
  EXPECT_EQ(resp.api_keys[0].api_key, 18);
  EXPECT_EQ(resp.api_keys[0].max_version, 4);
  // The connection stays usable.
  ASSERT_TRUE(s.send_frame(api_versions_frame(3, 78)));
  ASSERT_TRUE(s.read_frame());
}

TEST_F(ApiVersionsIT, HundredPipelinedRequestsAnsweredInOrder) {
  kafka_socket s(broker.port());
  std::vector<uint8_t> all;
  for (int i = 0; i < 100; ++i) {
    auto f = with_size(api_versions_frame(static_cast<int16_t>(i % 5), 5000 + i));
    all.insert(all.end(), f.begin(), f.end());
  }
  ASSERT_TRUE(s.send_raw(all));  // one write: the broker sees them all at once
  for (int i = 0; i < 100; ++i) {
    auto frame = s.read_frame();
    ASSERT_TRUE(frame) << "response " << i << " missing\n" << broker.log();
    int32_t corr = 0;
    auto resp = decode_response(*frame, static_cast<int16_t>(i % 5), &corr);
    ASSERT_EQ(corr, 5000 + i);
    EXPECT_EQ(resp.error_code, 0);
  }
}

// queued.max.requests=1: connections take turns for the one broker-wide
// slot; every pipelined request is still answered, in order, promptly.
TEST(ApiVersionsBudgetIT, OneBrokerWideSlotServesEveryConnection) {
  broker_process broker;
  ASSERT_TRUE(broker.start({"--override", "queued.max.requests=1"})) << broker.log();
  std::vector<std::unique_ptr<kafka_socket>> sockets;
  for (int c = 0; c < 4; ++c) {
    sockets.push_back(std::make_unique<kafka_socket>(broker.port()));
    std::vector<uint8_t> all;
    for (int i = 0; i < 50; ++i) {
      auto f = with_size(api_versions_frame(static_cast<int16_t>(i % 5), c * 1000 + i));
      all.insert(all.end(), f.begin(), f.end());
    }
    ASSERT_TRUE(sockets.back()->send_raw(all));
  }
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 50; ++i) {
      auto frame = sockets[c]->read_frame();
      ASSERT_TRUE(frame) << "connection " << c << " response " << i << " missing\n" << broker.log();
      int32_t corr = 0;
      decode_response(*frame, static_cast<int16_t>(i % 5), &corr);
      ASSERT_EQ(corr, c * 1000 + i);
    }
}

TEST_F(ApiVersionsIT, RealClientRequestBytes) {
  // ApiVersions exactly as librdkafka 2.0.2 (v3) and the Java client 4.3.1 (v4)
  // sent them to Apache Kafka (tests/protocol/fixtures).
  for (auto [path, version] : {std::pair{"tests/protocol/fixtures/librdkafka/001_ApiVersions_v3.request.bin", 3},
                               std::pair{"tests/protocol/fixtures/java/001_ApiVersions_v4.request.bin", 4}}) {
    std::ifstream in(path, std::ios::binary);
    if (!in) GTEST_SKIP() << "fixture " << path << " not found";
    std::vector<uint8_t> frame((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    kafka_socket s(broker.port());
    ASSERT_TRUE(s.send_frame(frame));
    auto resp_frame = s.read_frame();
    ASSERT_TRUE(resp_frame) << path << "\n" << broker.log();
    int32_t corr = 0;
    auto resp = decode_response(*resp_frame, static_cast<int16_t>(version), &corr);
    EXPECT_EQ(resp.error_code, 0) << path;
  }
}

}  // namespace
}  // namespace hw::testing
