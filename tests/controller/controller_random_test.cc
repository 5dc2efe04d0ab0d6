// Seeded random operations against the controller; after every step the
// image must keep the partition invariants of DESIGN.md §4 (a failing seed
// replays exactly).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::harness;

bool active(const metadata_image& image, int32_t b) {
  const broker_registration* r = image.broker(node_id(b));
  return r && !r->fenced && !r->in_controlled_shutdown;
}

void check_invariants(const quorum_controller& controller, const metadata_image& image, const metadata_image& before,
                      const std::string& where) {
  for (const auto& [id, topic] : image.topics_by_id) {
    for (const auto& [p, reg] : topic->partitions) {
      std::string at = where + " " + topic->name + "-" + std::to_string(p);
      std::set<node_id> replicas(reg.replicas.begin(), reg.replicas.end());
      ASSERT_EQ(replicas.size(), reg.replicas.size()) << at;
      std::set<node_id> isr(reg.isr.begin(), reg.isr.end());
      ASSERT_EQ(isr.size(), reg.isr.size()) << at;
      for (node_id r : reg.isr) ASSERT_TRUE(replicas.count(r)) << at << " ISR member " << r << " not a replica";
      for (node_id r : reg.elr) {
        ASSERT_TRUE(replicas.count(r)) << at;
        ASSERT_FALSE(isr.count(r)) << at << " " << r << " in ISR and ELR";
      }
      if (reg.has_leader()) {
        ASSERT_TRUE(isr.count(reg.leader)) << at << " leader " << reg.leader << " not in ISR";
        ASSERT_TRUE(active(image, reg.leader.value))
            << at << " leader " << reg.leader << " not active: registered " << (image.broker(reg.leader) != nullptr)
            << " fenced " << (image.broker(reg.leader) && image.broker(reg.leader)->fenced) << " shutting down "
            << (image.broker(reg.leader) && image.broker(reg.leader)->in_controlled_shutdown) << " epochs "
            << reg.leader_epoch << "/" << reg.partition_epoch << " before "
            << (before.partition(id, p) ? before.partition(id, p)->leader.value : -9) << " "
            << (before.partition(id, p) ? before.partition(id, p)->partition_epoch.value : -9);
      } else {
        ASSERT_TRUE(reg.isr.empty()) << at << " leaderless with an ISR";
      }
      for (node_id r : reg.isr)
        ASSERT_TRUE(image.broker(r) && !image.broker(r)->fenced) << at << " fenced " << r << " in ISR";
      // The ELR exists only while the ISR is below min ISR (KIP-966).
      if (!reg.elr.empty()) {
        ASSERT_LT(static_cast<int32_t>(reg.isr.size()), controller.configuration().effective_min_isr(image, *topic)) << at;
      }
      if (const partition_registration* old = before.partition(id, p)) {
        ASSERT_GE(reg.leader_epoch, old->leader_epoch) << at;
        ASSERT_GE(reg.partition_epoch, old->partition_epoch) << at;
        if (reg.leader != old->leader) {
          ASSERT_GT(reg.leader_epoch, old->leader_epoch) << at;
        }
      }
    }
  }
  ASSERT_GE(image.next_producer_id, before.next_producer_id);
}

void run_seed(uint64_t seed) {
  quorum_controller_options o;
  o.replication.random_seed = seed;
  harness h(o);
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  h.add_brokers({1, 2, 3, 4, 5});
  std::map<int32_t, int> incarnation;
  // A broker told to shut down stops heartbeating until it restarts (a new
  // incarnation registers), as a real broker process does.
  // Once it asks to shut down, it keeps asking.
  std::set<int32_t> down;
  std::set<int32_t> stopping;
  auto beat = [&](int32_t b, bool shut_down = false, bool fence = false) {
    if (!h.image().broker(node_id(b)) || down.count(b)) return;
    if (shut_down) stopping.insert(b);
    if (h.heartbeat(b, stopping.count(b) > 0, fence).should_shut_down) down.insert(b);
  };
  int topics = 0;
  for (int step = 0; step < 400; ++step) {
    auto before = h.controller.working_image();
    std::string where = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    int32_t broker = 1 + pick(5);
    int op = pick(11);
    where += " op " + std::to_string(op) + " broker " + std::to_string(broker);
    switch (op) {
      case 0:
        h.create("t" + std::to_string(topics++), 1 + pick(4), static_cast<int16_t>(1 + pick(3)));
        break;
      case 1: {
        if (h.image().topics_by_name.empty()) break;
        auto it = h.image().topics_by_name.begin();
        std::advance(it, pick(static_cast<int>(h.image().topics_by_name.size())));
        msg::delete_topics_request request;
        request.topics.push_back({it->first, {}, {}});
        h.run(h.controller.delete_topics(request, 6));
        break;
      }
      case 2:
        beat(broker, pick(3) == 0, pick(4) == 0);
        break;
      case 3: {
        // Time passes; most brokers keep their sessions, some do not.
        h.now_ms += 1000 + pick(6000);
        for (int32_t b = 1; b <= 5; ++b) {
          if (pick(5) != 0) beat(b);
        }
        h.apply(h.controller.tick(h.now_ms));
        break;
      }
      case 4: {
        // A restart: the same or a new incarnation registers again.
        auto registration = h.registration(broker);
        if (pick(2) == 0 || down.count(broker)) {
          registration.incarnation_id = testing::id_of(5000 + 10 * broker + ++incarnation[broker]);
        }
        const broker_registration* known = h.image().broker(node_id(broker));
        if (pick(2) == 0 && known) registration.previous_broker_epoch = known->epoch.value;
        if (h.run(h.controller.register_broker(registration, h.next_offset, h.now_ms)).error_code == 0) {
          down.erase(broker);
          stopping.erase(broker);
        }
        break;
      }
      case 5: {
        msg::elect_leaders_request request;
        request.election_type = static_cast<int8_t>(pick(2));
        request.topic_partitions.reset();
        h.run(h.controller.elect_leaders(request, 2));
        break;
      }
      case 6: {
        if (h.image().topics_by_name.empty()) break;
        const auto& [name, id] = *h.image().topics_by_name.begin();
        msg::create_partitions_request request;
        request.topics.push_back({name, static_cast<int32_t>(h.image().topic(id)->partitions.size()) + 1, std::nullopt, {}});
        h.run(h.controller.create_partitions(request));
        break;
      }
      case 7: {
        if (h.image().topics_by_name.empty()) break;
        msg::incremental_alter_configs_request request;
        auto& r = request.resources.emplace_back();
        r.resource_type = static_cast<int8_t>(config_resource_type::topic);
        r.resource_name = h.image().topics_by_name.rbegin()->first;
        r.configs.push_back({"min.insync.replicas", 0, std::to_string(1 + pick(3)), {}});
        h.run(h.controller.incremental_alter_configs(request));
        break;
      }
      case 8: {
        if (!h.image().broker(node_id(broker))) break;
        msg::allocate_producer_ids_request request;
        request.broker_id = broker;
        request.broker_epoch = h.image().broker(node_id(broker))->epoch.value;
        h.run(h.controller.allocate_producer_ids(request));
        break;
      }
      case 9: {
        // A leader shrinks or expands its ISR to a random set of live replicas.
        if (h.image().topics_by_id.empty()) break;
        const auto& [id, topic] = *h.image().topics_by_id.begin();
        const auto& [partition, reg] = *topic->partitions.begin();
        if (!reg.has_leader()) break;
        msg::alter_partition_request request;
        request.broker_id = reg.leader.value;
        request.broker_epoch = h.image().broker(node_id(reg.leader.value))->epoch.value;
        auto& d = request.topics.emplace_back();
        d.topic_id = id.value;
        auto& p = d.partitions.emplace_back();
        p.partition_index = partition;
        p.leader_epoch = reg.leader_epoch.value;
        p.partition_epoch = reg.partition_epoch.value;
        p.leader_recovery_state = 0;
        for (int32_t r : storage::plain_list(reg.replicas)) {
          if (r == reg.leader.value || (pick(2) == 0 && active(h.image(), r))) {
            p.new_isr_with_epochs.push_back({r, h.image().broker(node_id(r))->epoch.value, {}});
          }
        }
        auto response = h.run(h.controller.alter_partition(request, 3));
        EXPECT_EQ(response.error_code, 0) << where;
        break;
      }
      default:
        for (int32_t b = 1; b <= 5; ++b) beat(b);
    }
    check_invariants(h.controller, h.image(), *before, where);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ControllerRandom, InvariantsHoldUnderRandomOperations) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    run_seed(seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace hw::controller
