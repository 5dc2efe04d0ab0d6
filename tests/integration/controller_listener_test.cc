// A combined node's controller listener, as another process's broker uses
// it: BrokerRegistration and BrokerHeartbeat reach the active controller,
// the registered broker appears in the cluster's metadata once unfenced,
// and the broker listener refuses controller-only APIs.

#include <gtest/gtest.h>

#include <tuple>

#include "broker_process.h"
#include "protocol/messages/broker_heartbeat.h"
#include "protocol/messages/broker_registration.h"
#include "protocol/messages/describe_cluster.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

constexpr int16_t k_registration_version = 4;
constexpr int16_t k_heartbeat_version = 2;

class ControllerListenerIT : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = start_with_controller_listener(broker);
    ASSERT_TRUE(port) << broker.log();
    controller_port = *port;
    raw_client c(broker.port());
    auto md = c.metadata(std::vector<std::string>{});
    ASSERT_TRUE(md && md->cluster_id);
    cluster_id = *md->cluster_id;
  }

  msg::broker_registration_request registration(int32_t id) const {
    msg::broker_registration_request r;
    r.broker_id = id;
    r.cluster_id = cluster_id;
    r.incarnation_id.bytes[0] = static_cast<uint8_t>(id);
    r.incarnation_id.bytes[15] = 0x42;
    msg::broker_registration_request::listener l;
    l.name = "PLAINTEXT";
    l.host = "127.0.0.1";
    l.port = 19999;
    r.listeners.push_back(l);
    // What a Kafka 4.3 broker supports.
    for (const auto& [name, lo, hi] : {std::tuple{"metadata.version", 7, 30}, std::tuple{"kraft.version", 0, 1},
                                       std::tuple{"transaction.version", 0, 2}, std::tuple{"group.version", 0, 1},
                                       std::tuple{"eligible.leader.replicas.version", 0, 1},
                                       std::tuple{"streams.version", 0, 1}}) {
      msg::broker_registration_request::feature f;
      f.name = name;
      f.min_supported_version = static_cast<int16_t>(lo);
      f.max_supported_version = static_cast<int16_t>(hi);
      r.features.push_back(f);
    }
    // One log dir (its directory id), as a broker of metadata.version 4.3 must list.
    protocol::uuid dir;
    dir.bytes[0] = 0x70;
    dir.bytes[15] = static_cast<uint8_t>(id);
    r.log_dirs.push_back(dir);
    return r;
  }

  uint16_t controller_port = 0;
  std::string cluster_id;
  broker_process broker;
};

TEST_F(ControllerListenerIT, ABrokerRegistersAndIsUnfencedByHeartbeats) {
  raw_client controller(controller_port);
  auto reg = controller.call<msg::broker_registration_response>(62, k_registration_version, registration(2));
  ASSERT_TRUE(reg);
  ASSERT_EQ(reg->error_code, 0);
  EXPECT_GT(reg->broker_epoch, 0);

  msg::broker_heartbeat_request hb;
  hb.broker_id = 2;
  hb.broker_epoch = reg->broker_epoch;
  hb.current_metadata_offset = int64_t{1} << 40;  // caught up with anything
  bool unfenced = wait_until(
      [&] {
        auto r = controller.call<msg::broker_heartbeat_response>(63, k_heartbeat_version, hb);
        return r && r->error_code == 0 && !r->is_fenced;
      },
      std::chrono::seconds(10));
  ASSERT_TRUE(unfenced);

  // The broker listener's view: broker 2 at the endpoint it registered.
  raw_client client(broker.port());
  bool listed = wait_until(
      [&] {
        msg::describe_cluster_request req;
        auto r = client.call<msg::describe_cluster_response>(60, 1, req);
        if (!r) return false;
        for (const auto& b : r->brokers)
          if (b.broker_id == 2) return b.host == "127.0.0.1" && b.port == 19999;
        return false;
      },
      std::chrono::seconds(10));
  EXPECT_TRUE(listed);

  // A stale broker epoch is refused.
  hb.broker_epoch = reg->broker_epoch - 1;
  auto stale = controller.call<msg::broker_heartbeat_response>(63, k_heartbeat_version, hb);
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->error_code, static_cast<int16_t>(protocol::error_code::stale_broker_epoch));
}

TEST_F(ControllerListenerIT, AnotherClusterIsRefused) {
  raw_client controller(controller_port);
  auto req = registration(3);
  req.cluster_id = "AnotherClusterIdXXXXXX";
  auto reg = controller.call<msg::broker_registration_response>(62, k_registration_version, req);
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->error_code, static_cast<int16_t>(protocol::error_code::inconsistent_cluster_id));
}

TEST_F(ControllerListenerIT, TheBrokerListenerDoesNotServeControllerOnlyApis) {
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.connected());
  std::vector<uint8_t> body;
  protocol::writer w(body);
  registration(4).encode(w, k_registration_version);
  ASSERT_TRUE(s.send_frame(request_frame(62, k_registration_version, 1, body)));
  EXPECT_FALSE(s.read_frame(std::chrono::seconds(5))) << "the connection should be closed";
}

}  // namespace
}  // namespace hw::testing
