#pragma once
// Test support for quorum_controller tests: a controller bootstrapped at
// 4.3-IV0 (or an older metadata.version) whose generated records are
// replayed at once (as the controller driver does after appending them),
// with brokers registered and
// unfenced through the real BrokerRegistration/BrokerHeartbeat paths.

#include <gtest/gtest.h>

#include "controller/metadata/delta.h"
#include "controller/quorum_controller.h"
#include "node_ids.h"

namespace hw::controller::testing {

inline protocol::uuid id_of(int n) {
  protocol::uuid id;
  id.bytes[0] = 0x42;
  id.bytes[14] = static_cast<uint8_t>(n >> 8);
  id.bytes[15] = static_cast<uint8_t>(n);
  return id;
}

struct harness {
  quorum_controller controller;
  int64_t next_offset = 0;  // where the next generated record lands
  int64_t now_ms = 1'000'000;
  std::vector<metadata_record> log;  // every record applied, in order

  explicit harness(quorum_controller_options options = {},
                   metadata_version bootstrap = latest_production_metadata_version)
      : controller(with_defaults(std::move(options))) {
    apply(feature_control::bootstrap_records(bootstrap, 1));
  }

  static constexpr int64_t session_timeout_ms = 9000;  // broker.session.timeout.ms

  static quorum_controller_options with_defaults(quorum_controller_options o) {
    o.cluster.broker_session_timeout_ms = session_timeout_ms;
    if (o.cluster.cluster_id.empty()) o.cluster.cluster_id = "test-cluster";
    if (o.replication.random_seed == 0) o.replication.random_seed = 42;
    return o;
  }

  const metadata_image& image() const { return controller.image(); }

  // Replays generated records as the driver would after appending them.
  void apply(const std::vector<metadata_record>& records) {
    auto refused = controller.replay(records);
    ASSERT_FALSE(refused) << *refused;
    log.insert(log.end(), records.begin(), records.end());
    next_offset += static_cast<int64_t>(records.size());
  }
  template <class R>
  R run(controller_result<R> result) {
    apply(result.records);
    return std::move(result.response);
  }

  msg::broker_registration_request registration(int32_t id, std::optional<std::string> rack = std::nullopt) {
    msg::broker_registration_request r;
    r.broker_id = id;
    r.cluster_id = "test-cluster";
    r.incarnation_id = id_of(1000 + id);
    r.listeners.push_back({"PLAINTEXT", "localhost", static_cast<uint16_t>(9092 + id), 0, {}});
    for (const auto& [name, level] : image().features) r.features.push_back({name, 0, level, {}});
    r.rack = std::move(rack);
    r.log_dirs = {id_of(2000 + id)};
    return r;
  }

  int64_t register_broker(int32_t id, std::optional<std::string> rack = std::nullopt) {
    auto response = run(controller.register_broker(registration(id, std::move(rack)), next_offset, now_ms));
    EXPECT_EQ(response.error_code, 0);
    return response.broker_epoch;
  }

  msg::broker_heartbeat_response heartbeat(int32_t id, bool want_shut_down = false, bool want_fence = false) {
    msg::broker_heartbeat_request r;
    r.broker_id = id;
    r.broker_epoch = image().broker(node_id(id)) ? image().broker(node_id(id))->epoch.value : -1;
    r.current_metadata_offset = next_offset - 1;
    r.want_shut_down = want_shut_down;
    r.want_fence = want_fence;
    return run(controller.broker_heartbeat(r, next_offset, now_ms));
  }

  void add_brokers(std::initializer_list<int32_t> ids) {
    for (int32_t id : ids) register_broker(id);
    for (int32_t id : ids) {
      auto r = heartbeat(id);
      EXPECT_FALSE(r.is_fenced) << "broker " << id;
    }
  }

  msg::create_topics_response create(const std::string& name, int32_t partitions, int16_t rf,
                                     std::vector<std::pair<std::string, std::string>> configs = {}) {
    msg::create_topics_request request;
    auto& t = request.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = rf;
    for (auto& [k, v] : configs) t.configs.push_back({k, v, {}});
    return run(controller.create_topics(request));
  }
};

}  // namespace hw::controller::testing
