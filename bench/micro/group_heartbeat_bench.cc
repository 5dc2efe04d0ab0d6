// What a ConsumerGroupHeartbeat costs the group coordinator when it changes
// nothing (a stable member saying it still holds its partitions, the common
// case, every group.consumer.heartbeat.interval.ms per member), by group
// size: flat when the call touches only its member, linear when it copies
// the group. Pure coordinator work: no network, no log.
#include <benchmark/benchmark.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "broker/group/consumer/consumer_group_manager.h"
#include "tests/broker/consumer_group_support.h"

namespace {

using hw::broker::group::consumer::consumer_group_manager;
using hw::broker::group::consumer::consumer_group_options;
using hw::broker::group::consumer::heartbeat_outcome;
using request = hw::protocol::msg::consumer_group_heartbeat_request;

struct stable_group {
  explicit stable_group(int members) : manager(options()) {
    topics.add("orders", 1, members * 2);
    for (int i = 0; i < members; ++i) {
      request join = hw::testing::heartbeat_owning("m-" + std::to_string(i), 0, {});
      join.rebalance_timeout_ms = 60000;
      join.subscribed_topic_names = std::vector<std::string>{"orders"};
      join.topic_partitions->clear();
      if (beat(join).response.error_code != 0) throw std::runtime_error("a member could not join");
    }
    // Every member heartbeats with what it was given until none moves.
    for (bool moved = true; moved;) {
      moved = false;
      for (int i = 0; i < members; ++i) {
        const std::string id = "m-" + std::to_string(i);
        auto out = beat(hw::testing::heartbeat_owning(id, epochs[id], owned[id]));
        moved |= !out.records.empty();
      }
    }
  }

  static consumer_group_options options() {
    consumer_group_options o;
    o.assignment_interval_ms = 0;
    return o;
  }

  heartbeat_outcome beat(const request& r) {
    auto out = manager.heartbeat(r, 1, "client", "/127.0.0.1", topics, now, [] { return std::string("unused"); });
    epochs[r.member_id] = out.response.member_epoch;
    if (out.response.assignment) {
      auto& parts = owned[r.member_id];
      parts.clear();
      for (const auto& tp : out.response.assignment->topic_partitions)
        parts.insert(parts.end(), tp.partitions.begin(), tp.partitions.end());
    }
    return out;
  }

  consumer_group_manager manager;
  hw::testing::topic_map_image topics;
  int64_t now = 1000;
  std::map<std::string, int32_t> epochs;
  std::map<std::string, std::vector<int32_t>> owned;
};

void BM_StableMemberHeartbeat(benchmark::State& state) {
  stable_group g(static_cast<int>(state.range(0)));
  const request r = hw::testing::heartbeat_owning("m-0", g.epochs["m-0"], g.owned["m-0"]);
  for (auto _ : state) {
    auto out = g.manager.heartbeat(r, 1, "client", "/127.0.0.1", g.topics, g.now, [] { return std::string(); });
    if (!out.records.empty() || out.response.error_code != 0) {
      const std::string why = "the heartbeat changed the group: error " + std::to_string(out.response.error_code) +
                              ", " + std::to_string(out.records.size()) + " records " + out.response.error_message.value_or("");
      state.SkipWithError(why.c_str());
      break;
    }
    benchmark::DoNotOptimize(out);
  }
  state.counters["members"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_StableMemberHeartbeat)->Arg(10)->Arg(100)->Arg(1000);

}  // namespace
