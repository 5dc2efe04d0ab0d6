// Bad input on the wire: the broker closes the connection, never crashes,
// never allocates what a size prefix claims before checking it, and keeps
// serving other connections.

#include <gtest/gtest.h>

#include "broker_process.h"
#include "kafka_socket.h"

namespace hw::testing {
namespace {

class FramingIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "socket.request.max.bytes=1024"})) << broker.log();
  }
  // A fresh connection still gets answers.
  void expect_still_serving() {
    kafka_socket s(broker.port());
    ASSERT_TRUE(s.send_frame(api_versions_frame(3, 1)));
    EXPECT_TRUE(s.read_frame()) << broker.log();
    EXPECT_TRUE(broker.running());
  }
  broker_process broker;
};

TEST_F(FramingIT, OversizedFrameClosesBeforeAllocating) {
  long vm_before = broker.vm_size_kib();
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.send_raw({0x40, 0, 0, 0}));  // claims 1 GiB, sends nothing more
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
  long vm_after = broker.vm_size_kib();
  EXPECT_LT(vm_after - vm_before, 256 * 1024) << "the broker grew by " << (vm_after - vm_before) << " KiB";
  EXPECT_TRUE(wait_until([&] { return broker.log().find("larger than 1024") != std::string::npos; }, 5s))
      << broker.log();
  expect_still_serving();
}

TEST_F(FramingIT, FrameJustAboveTheLimitCloses) {
  kafka_socket s(broker.port());
  std::vector<uint8_t> frame(1025, 0);
  ASSERT_TRUE(s.send_frame(frame));
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
  expect_still_serving();
}

TEST_F(FramingIT, NegativeSizeCloses) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.send_raw({0xff, 0xff, 0xff, 0xff}));
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
  EXPECT_TRUE(wait_until([&] { return broker.log().find("Invalid receive (size = -1)") != std::string::npos; }, 5s));
  expect_still_serving();
}

TEST_F(FramingIT, GarbageCloses) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.send_frame({0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55}));
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
  expect_still_serving();
}

TEST_F(FramingIT, TruncatedHeaderCloses) {
  for (std::vector<uint8_t> frame : {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 18, 0},
                                     std::vector<uint8_t>{0, 18, 0, 3, 0, 0, 0, 1, 0, 9, 'x'}}) {
    kafka_socket s(broker.port());
    ASSERT_TRUE(s.send_frame(frame));
    EXPECT_TRUE(s.closed_by_peer()) << "frame of " << frame.size() << " bytes\n" << broker.log();
  }
  expect_still_serving();
}

TEST_F(FramingIT, UnknownApiKeyCloses) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.send_frame(request_frame(9999, 0, 1, {})));
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
  expect_still_serving();
}

TEST_F(FramingIT, ApiNotServedYetCloses) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.send_frame(request_frame(3, 12, 1, {0x01, 0x00, 0x00})));  // Metadata v12
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
  expect_still_serving();
}

TEST_F(FramingIT, EarlierResponsesAreWrittenBeforeTheClose) {
  kafka_socket s(broker.port());
  std::vector<uint8_t> bytes;
  for (auto f : {with_size(api_versions_frame(2, 1)), with_size(api_versions_frame(2, 2)),
                 with_size(request_frame(9999, 0, 3, {}))})
    bytes.insert(bytes.end(), f.begin(), f.end());
  ASSERT_TRUE(s.send_raw(bytes));
  EXPECT_TRUE(s.read_frame());
  EXPECT_TRUE(s.read_frame());
  EXPECT_TRUE(s.closed_by_peer()) << broker.log();
}

TEST_F(FramingIT, SizeSplitAcrossWritesIsReassembled) {
  kafka_socket s(broker.port());
  auto f = with_size(api_versions_frame(1, 9));
  ASSERT_TRUE(s.send_raw({f[0], f[1]}));
  ASSERT_TRUE(s.send_raw(std::vector<uint8_t>(f.begin() + 2, f.begin() + 7)));
  ASSERT_TRUE(s.send_raw(std::vector<uint8_t>(f.begin() + 7, f.end())));
  EXPECT_TRUE(s.read_frame()) << broker.log();
}

TEST_F(FramingIT, ManyGarbageConnectionsDoNotHurt) {
  uint32_t x = 12345;
  for (int i = 0; i < 50; ++i) {
    kafka_socket s(broker.port());
    std::vector<uint8_t> junk(64);
    for (auto& b : junk) b = static_cast<uint8_t>(x = x * 1103515245 + 12345);
    junk[0] = 0;  // a small size, so the body is read and parsed
    s.send_raw(junk);
  }
  expect_still_serving();
}

}  // namespace
}  // namespace hw::testing
