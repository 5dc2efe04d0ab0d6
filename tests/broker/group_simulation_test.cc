// Seeded random schedules of clients joining, syncing, heartbeating,
// committing, leaving and going silent, with appends that sometimes fail
// and a shard that is sometimes unloaded and reloaded from its log.
// Checks: every request is answered exactly once (nothing is left parked
// after unload), generations never go back, and a reloaded shard holds the
// offsets the log says.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "tests/broker/group_test_support.h"

namespace hw::broker::group {
namespace {

using namespace testing;

struct client {
  std::string member_id;
  std::optional<std::string> instance_id;
  int32_t generation = -1;
  std::optional<request_token> parked;  // join or sync in flight
  bool silent = false;
};

client fresh(const client& c) {
  client out;
  out.instance_id = c.instance_id;
  return out;
}

struct sim_stats {
  int joins = 0;
  int syncs = 0;
  int32_t max_generation = 0;
  int reloads = 0;
};

class simulation {
 public:
  sim_stats stats;

  explicit simulation(uint64_t seed) : rng_(seed), h_({}, seed) { h_.auto_ack = false; }

  void run(int steps) {
    for (int i = 0; i < 6; ++i) {
      clients_.push_back({});
      if (i % 3 == 0) clients_.back().instance_id = "instance-" + std::to_string(i);
    }
    for (int step = 0; step < steps; ++step) {
      switch (pick(10)) {
        case 0: case 1: case 2: act(clients_[pick(clients_.size())]); break;
        case 3: h_.advance(pick(4000)); break;
        case 4: case 5: ack_some(); break;
        case 6: clients_[pick(clients_.size())].silent ^= (pick(4) == 0); break;
        case 7: commit_simple(); break;
        case 8: if (pick(40) == 0) reload(); break;
        default: collect(); break;
      }
      check_generations();
    }
    h_.ack(error_code::none);
    h_.shard.unload();
    collect();
    h_.drain();
    for (auto t : issued_) EXPECT_TRUE(h_.responses.contains(t) || answered_.contains(t)) << "token never answered: " << t;
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  request_token track(request_token t) {
    issued_.insert(t);
    return t;
  }

  void act(client& c) {
    if (c.silent || c.parked) return;
    if (c.generation < 0 || pick(8) == 0) {
      auto a = args();
      a.member_id = c.member_id;
      a.instance_id = c.instance_id;
      a.protocols = range_protocol(pick(3) == 0 ? std::vector<std::string>{"t", "u"} : std::vector<std::string>{"t"});
      a.version = static_cast<int16_t>(pick(2) == 0 ? 9 : 5);
      c.parked = track(h_.join(a));
      return;
    }
    switch (pick(4)) {
      case 0: {
        std::map<std::string, std::vector<uint8_t>> plan;
        if (auto* g = h_.shard.find_group("g"); g && g->is_leader(c.member_id)) {
          for (const auto& [id, _] : g->members()) plan[id] = {1};
        }
        c.parked = track(h_.sync("g", c.member_id, c.generation, plan, c.instance_id));
        break;
      }
      case 1: {
        auto e = h_.heartbeat("g", c.member_id, c.generation, c.instance_id);
        if (e == code(error_code::unknown_member_id) || e == code(error_code::fenced_instance_id) ||
            e == code(error_code::illegal_generation)) {
          c = fresh(c);
        }
        break;
      }
      case 2:
        track(h_.commit("g", c.member_id, c.generation, "t", static_cast<int32_t>(pick(3)), static_cast<int64_t>(pick(1000))));
        break;
      default:
        h_.leave("g", c.member_id, c.instance_id);
        c = fresh(c);
        break;
    }
  }

  void commit_simple() {
    track(h_.commit("simple-" + std::to_string(pick(3)), "", -1, "t", static_cast<int32_t>(pick(2)),
                    static_cast<int64_t>(pick(1000))));
  }

  void ack_some() {
    if (h_.pending.empty()) return;
    h_.ack(pick(10) == 0 ? error_code::request_timed_out : error_code::none);
  }

  // Moves answers to the clients that wait for them.
  void collect() {
    h_.drain();
    for (auto& c : clients_) {
      if (!c.parked || !h_.responses.contains(*c.parked)) continue;
      auto t = *c.parked;
      c.parked.reset();
      answered_.insert(t);
      auto response = std::move(h_.responses[t]);
      h_.responses.erase(t);
      if (auto* j = std::get_if<msg::join_group_response>(&response)) {
        if (j->error_code == code(error_code::member_id_required)) {
          c.member_id = j->member_id;
        } else if (j->error_code == 0) {
          ++stats.joins;
          c.member_id = j->member_id;
          c.generation = j->generation_id;
        } else {
          c = fresh(c);
        }
      } else if (auto* s = std::get_if<msg::sync_group_response>(&response)) {
        if (s->error_code == 0) ++stats.syncs;
        if (s->error_code != 0 && s->error_code != code(error_code::rebalance_in_progress)) c = fresh(c);
      }
    }
    for (auto it = h_.responses.begin(); it != h_.responses.end();) {
      answered_.insert(it->first);
      it = h_.responses.erase(it);
    }
  }

  void check_generations() {
    const auto* g = h_.shard.find_group("g");
    if (!g) last_generation_ = 0;  // deleted: a new group starts over
    if (g) {
      EXPECT_GE(g->generation(), last_generation_);
      last_generation_ = g->generation();
      stats.max_generation = std::max(stats.max_generation, g->generation());
      EXPECT_LE(g->members().awaiting_join_count(), static_cast<int32_t>(g->members().size()));
    }
  }

  // Leadership moves away and comes back: the new shard state comes from
  // the log alone.
  void reload() {
    ++stats.reloads;
    h_.ack(error_code::none);
    auto offsets_before = h_.shard.offsets();
    h_.shard.unload();
    collect();
    for (auto& c : clients_) c.parked.reset();
    h_.shard.begin_load();
    for (const auto& rec : h_.log) {
      std::optional<std::span<const uint8_t>> value;
      if (rec.value) value = std::span<const uint8_t>(*rec.value);
      ASSERT_TRUE(h_.shard.load({rec.key, value}));
    }
    h_.shard.end_load(h_.now);
    EXPECT_EQ(h_.shard.offsets(), offsets_before);
    if (const auto* g = h_.shard.find_group("g")) last_generation_ = std::min(last_generation_, g->generation());
  }

  std::mt19937_64 rng_;
  shard_harness h_;
  std::vector<client> clients_;
  std::set<request_token> issued_;
  std::set<request_token> answered_;
  int32_t last_generation_ = 0;
};

TEST(GroupSimulation, EveryRequestAnsweredOnceAcrossSeeds) {
  sim_stats total;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    simulation sim(seed);
    sim.run(4000);
    total.joins += sim.stats.joins;
    total.syncs += sim.stats.syncs;
    total.reloads += sim.stats.reloads;
    total.max_generation = std::max(total.max_generation, sim.stats.max_generation);
    if (::testing::Test::HasFailure()) break;
  }
  // The schedules must reach the interesting states, not idle.
  EXPECT_GT(total.joins, 400);
  EXPECT_GT(total.syncs, 100);
  EXPECT_GT(total.reloads, 10);
  EXPECT_GT(total.max_generation, 10);
  std::printf("joins %d syncs %d reloads %d max generation %d\n", total.joins, total.syncs, total.reloads,
              total.max_generation);
}

}  // namespace
}  // namespace hw::broker::group
