// InitProducerId for an idempotent producer, and what each broker does with
// a request frame above socket.request.max.bytes.

#include "broker_process.h"
#include "protocol/messages/init_producer_id.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using R = allowed::rule;

TEST_F(DifferentialTest, InitProducerIdIdempotent) {
  const allowlist allow = {{"producer_id", R::any_value, "each broker allocates its own producer ids"}};
  msg::init_producer_id_request req;
  req.transactional_id.reset();
  req.transaction_timeout_ms = 60000;
  // Kafka answers COORDINATOR_LOAD_IN_PROGRESS until its first block of
  // producer ids arrives from the controller, shortly after it starts.
  for (side s : k_sides) {
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, 4);
    EXPECT_TRUE(wait_until(
        [&] {
          auto a = t().send(s, 22, 4, body);
          return a.error.empty() && a.as<msg::init_producer_id_response>(4).error_code == 0;
        },
        30s))
        << side_name(s) << " allocates no producer id";
  }
  for (int16_t v : {0, 3, 4, 5, 6}) expect_same(t().call("InitProducerId idempotent", 22, v, req), allow);
}

// A frame whose size prefix is above socket.request.max.bytes (100 MiB by
// default on both): Kafka closes the connection without answering.
TEST_F(DifferentialTest, OversizedRequestFrame) {
  for (int32_t size : {104857601, 0x7fffffff}) {
    twin c;
    std::vector<uint8_t> bytes = {static_cast<uint8_t>(size >> 24), static_cast<uint8_t>(size >> 16),
                                  static_cast<uint8_t>(size >> 8), static_cast<uint8_t>(size)};
    bytes.resize(64, 0);  // the start of a header, as a client would send it
    std::array<bool, 2> closed{};
    for (side s : k_sides) {
      ASSERT_TRUE(c.socket(s).send_raw(bytes)) << side_name(s);
      closed[static_cast<int>(s)] = c.socket(s).closed_by_peer(10s);
    }
    EXPECT_TRUE(closed[0]) << "Kafka kept the connection open after a " << size << "-byte frame prefix";
    EXPECT_EQ(closed[1], closed[0]) << "size " << size << ": Kafka closed the connection, Highwater did not";
  }
  // The brokers still serve new connections.
  twin after;
  msg::init_producer_id_request req;
  req.transactional_id.reset();
  expect_same(after.call("InitProducerId after oversized frames", 22, 4, req),
              {{"producer_id", R::any_value, "each broker allocates its own producer ids"}});
}

// A negative size prefix: not a frame at all.
TEST_F(DifferentialTest, NegativeFrameSize) {
  twin c;
  std::vector<uint8_t> bytes = {0xff, 0xff, 0xff, 0xf0};
  std::array<bool, 2> closed{};
  for (side s : k_sides) {
    ASSERT_TRUE(c.socket(s).send_raw(bytes)) << side_name(s);
    closed[static_cast<int>(s)] = c.socket(s).closed_by_peer(10s);
  }
  EXPECT_EQ(closed[1], closed[0]) << "Kafka " << (closed[0] ? "closed" : "kept") << " the connection";
}

}  // namespace
}  // namespace hw::testing::differential
