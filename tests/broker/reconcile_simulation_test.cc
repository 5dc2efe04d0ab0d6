// Seeded random runs of a consumer group (KIP-848) whose target assignment
// keeps changing: members join, leave, change their subscription, static
// members leave and come back under a new member id, answers get lost (the
// client then sends a full heartbeat, or is fenced and rejoins with epoch
// 0), and each client lets revoked partitions go only some heartbeats after
// it was told. The coordinator side is the real code: epoch check,
// reconciliation, partition epochs.
//
// Checked after every step: no partition is owned by two clients, a client
// owns only what its member record holds, no partition is in two members'
// records, and the partition epochs are exactly what the records say. Once
// the target stops changing, every member converges to it.
//
// HW_RECONCILE_SIM_SEEDS=<n> changes how many seeds run;
// HW_RECONCILE_SIM_SEED=<s> replays one seed and prints its events.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <vector>

#include "tests/broker/reconcile_test_support.h"

namespace hw::broker::group::consumer {
namespace {

using namespace testing;
namespace msg = protocol::msg;

// Topics t1, t2, t3 with these many partitions.
constexpr int k_partitions[] = {4, 3, 2};
constexpr int k_topics = 3;
constexpr size_t k_max_members = 5;
constexpr int k_churn_steps = 300;
constexpr int k_converge_rounds = 60;

struct client {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::set<std::string> topics;
  member_epoch epoch{0};
  topic_partitions owned;
  topic_partitions desired;  // the last assignment received
  int revoke_in = -1;        // heartbeats until the client lets go; -1: nothing to let go
  bool owned_changed = true;
  bool full_next = true;  // joining, or the last answer was lost
  bool subscription_changed = false;
};

struct stats {
  int64_t heartbeats = 0, revocations = 0, unreleased = 0, fenced = 0, lost = 0;
  int64_t joins = 0, leaves = 0, static_returns = 0, subscription_changes = 0, retargets = 0;
  int64_t converge_rounds = 0;
};

bool within(const topic_partitions& a, const topic_partitions& b) {
  for (const auto& [t, ps] : a) {
    auto it = b.find(t);
    for (int32_t p : ps) {
      if (it == b.end() || !it->second.contains(p)) return false;
    }
  }
  return true;
}

std::string show(const topic_partitions& tp) {
  std::ostringstream os;
  os << "{";
  for (const auto& [t, ps] : tp) {
    os << " t" << int(t.bytes[15]) << ":";
    for (int32_t p : ps) os << " " << p;
  }
  os << " }";
  return os.str();
}

class simulation {
 public:
  stats s;

  simulation(uint64_t seed, bool trace) : rng_(seed), trace_(trace) {}

  // Empty when every check held; the first failure otherwise.
  std::string run() {
    for (int i = 0; i < 3; ++i) join();
    for (int step = 0; step < k_churn_steps && failure_.empty(); ++step) {
      churn_step();
      check();
    }
    if (!failure_.empty()) return failure_;
    return converge();
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool chance(size_t one_in) { return pick(one_in) == 0; }

  void log(const std::string& line) {
    if (trace_) std::printf("  %s\n", line.c_str());
  }

  void fail(const std::string& why) {
    if (failure_.empty()) failure_ = why;
  }

  std::set<std::string> random_topics() {
    std::set<std::string> out;
    while (out.empty()) {
      for (int t = 1; t <= k_topics; ++t) {
        if (chance(2)) out.insert("t" + std::to_string(t));
      }
    }
    return out;
  }

  client* random_client() {
    if (clients_.empty()) return nullptr;
    auto it = clients_.begin();
    std::advance(it, pick(clients_.size()));
    return &it->second;
  }

  void churn_step() {
    switch (pick(20)) {
      case 0: retarget(false); break;
      case 1: if (clients_.size() < k_max_members) join(); break;
      case 2: if (clients_.size() > 1) leave(*random_client()); break;
      case 3: change_subscription(); break;
      case 4: static_away_or_back(); break;
      default:
        if (auto* c = random_client()) heartbeat(*c, chance(10));
        break;
    }
  }

  // A new target at the next epoch: each partition to one of the members
  // subscribed to its topic (now and then to none, while churning).
  void retarget(bool complete) {
    ++s.retargets;
    g_.target_epoch = member_epoch(g_.target_epoch.value + 1);
    g_.targets.clear();
    for (int t = 1; t <= k_topics; ++t) {
      std::vector<std::string> subscribers;
      for (const auto& [id, m] : g_.members) {
        if (m.subscription.subscribed_topic_names.contains("t" + std::to_string(t))) subscribers.push_back(id);
      }
      for (int p = 0; p < k_partitions[t - 1]; ++p) {
        if (subscribers.empty() || (!complete && chance(10))) continue;
        g_.targets[subscribers[pick(subscribers.size())]][topic(t)].insert(p);
      }
    }
    log("target epoch " + std::to_string(g_.target_epoch.value));
  }

  void join() {
    client c;
    c.member_id = "m" + std::to_string(next_id_++);
    c.topics = random_topics();
    if (chance(3)) c.instance_id = "instance-" + c.member_id;
    auto& m = g_.join(c.member_id, c.topics);
    m.subscription.instance_id = c.instance_id;
    log("join " + c.member_id);
    clients_.emplace(c.member_id, c);
    ++s.joins;
    retarget(false);
  }

  // Leaves for good (epoch -1): the client drops everything, the member goes.
  void leave(client& c) {
    const std::string id = c.member_id;
    log("leave " + id);
    g_.leave(id);
    clients_.erase(id);
    ++s.leaves;
    retarget(false);
  }

  void change_subscription() {
    auto* c = random_client();
    if (c == nullptr) return;
    c->topics = random_topics();
    c->subscription_changed = true;
    ++s.subscription_changes;
    log("subscribe " + c->member_id);
    heartbeat(*c, false);
  }

  // A static member steps out (epoch -2) or one that did comes back, or its
  // session runs out while away.
  void static_away_or_back() {
    if (!away_.empty() && chance(2)) {
      auto it = away_.begin();
      std::advance(it, pick(away_.size()));
      std::string old_id = *it;
      away_.erase(it);
      if (chance(4)) {
        log("session of " + old_id + " expired");
        g_.leave(old_id);
        retarget(false);
      } else {
        come_back(old_id);
      }
      return;
    }
    for (const auto& [member_id, c] : clients_) {
      if (!c.instance_id || !chance(2)) continue;
      const std::string id = member_id;
      log("static " + id + " steps out");
      g_.replace(static_member_left(g_.members.at(id)));
      away_.push_back(id);
      clients_.erase(id);
      return;
    }
  }

  void come_back(const std::string& old_id) {
    const auto old = g_.members.at(old_id);
    auto back = static_member_replacement(old, "m" + std::to_string(next_id_++));
    log("static " + old_id + " back as " + back.member_id);
    auto target = g_.targets[old_id];
    g_.leave(old_id);
    g_.members.emplace(back.member_id, back);
    if (auto conflict = g_.epochs.add_member(back.current)) fail("static return: partition epoch conflict");
    g_.targets[back.member_id] = target;
    client c;
    c.member_id = back.member_id;
    c.instance_id = back.subscription.instance_id;
    c.topics = back.subscription.subscribed_topic_names;
    clients_.emplace(c.member_id, c);
    ++s.static_returns;
  }

  msg::consumer_group_heartbeat_request request_of(const client& c, bool send_owned) const {
    msg::consumer_group_heartbeat_request r;
    r.member_id = c.member_id;
    r.member_epoch = c.epoch.value;
    r.instance_id = c.instance_id;
    if (c.full_next || c.subscription_changed) {
      r.rebalance_timeout_ms = 30000;
      r.subscribed_topic_names = std::vector<std::string>(c.topics.begin(), c.topics.end());
    }
    if (send_owned) {
      r.topic_partitions.emplace();
      for (const auto& [t, ps] : c.owned) r.topic_partitions->push_back({t, {ps.begin(), ps.end()}, {}});
    }
    return r;
  }

  // The client's side first (a revocation may complete), then one
  // heartbeat through the coordinator's steps, then the answer (maybe lost).
  void heartbeat(client& c, bool lose_answer) {
    ++s.heartbeats;
    if (c.revoke_in == 0) {
      c.owned = c.desired;
      c.owned_changed = true;
      c.revoke_in = -1;
    } else if (c.revoke_in > 0) {
      --c.revoke_in;
    }
    const bool send_owned = c.owned_changed || c.full_next || chance(4);
    const auto request = request_of(c, send_owned);
    const auto owned = owned_partitions(request);

    const consumer_member before = g_.members.at(c.member_id);
    auto check = check_heartbeat_epoch(before, member_epoch(request.member_epoch), owned);
    if (check.error != protocol::error_code::none) {
      // The client gives everything up and rejoins with epoch 0.
      log(c.member_id + " fenced at epoch " + std::to_string(c.epoch.value));
      ++s.fenced;
      client fresh;
      fresh.member_id = c.member_id;
      fresh.instance_id = c.instance_id;
      fresh.topics = c.topics;
      c = fresh;
      return;
    }
    consumer_member updated = with_heartbeat(before, request, "client", "/127.0.0.1");
    const bool subscription_changed =
        updated.subscription.subscribed_topic_names != before.subscription.subscribed_topic_names;
    g_.members.at(c.member_id).subscription = updated.subscription;
    // A new target comes with the change, except now and then (as for a
    // regular expression not resolved yet): the member then reconciles
    // against a target that may still list topics it left.
    if (subscription_changed && !chance(4)) retarget(false);

    auto r = g_.heartbeat(c.member_id, owned, subscription_changed);
    if (r.error != protocol::error_code::none) return fail("reconciliation failed: " + r.error_message);
    const consumer_member& after = g_.members.at(c.member_id);
    if (after.current.state == member_state::unrevoked_partitions &&
        before.current.state != member_state::unrevoked_partitions) {
      ++s.revocations;
    }
    if (after.current.state == member_state::unreleased_partitions) ++s.unreleased;
    log(c.member_id + " epoch " + std::to_string(request.member_epoch) + " owned " +
        (owned ? show(*owned) : "null") + " -> epoch " + std::to_string(after.current.epoch.value) + " " +
        std::string(to_string(after.current.state)) + " assigned " + show(partitions_of(after.current.assigned)) +
        " revoking " + show(partitions_of(after.current.pending_revocation)));

    if (send_owned) c.owned_changed = false;
    c.subscription_changed = false;
    if (lose_answer) {
      ++s.lost;
      c.full_next = true;
      log("  answer lost");
      return;
    }
    c.full_next = false;
    c.epoch = after.current.epoch;
    if (answer_carries_assignment(request, before, after)) take(c, partitions_of(after.current.assigned));
  }

  // A client given an assignment takes new partitions at once, unless it
  // must first let some go: that takes a few heartbeats, then it holds
  // exactly the last assignment it was given.
  void take(client& c, topic_partitions assignment) {
    c.desired = std::move(assignment);
    if (within(c.owned, c.desired)) {
      c.owned_changed = c.owned_changed || c.owned != c.desired;
      c.owned = c.desired;
      c.revoke_in = -1;
    } else if (c.revoke_in < 0) {
      c.revoke_in = static_cast<int>(pick(4));
    }
  }

  void check() {
    if (!failure_.empty()) return;
    std::map<std::pair<protocol::uuid, int32_t>, std::string> owner;
    for (const auto& [id, c] : clients_) {
      for (const auto& [t, ps] : c.owned) {
        for (int32_t p : ps) {
          auto [it, added] = owner.emplace(std::pair{t, p}, id);
          if (!added) return fail("t" + std::to_string(t.bytes[15]) + "-" + std::to_string(p) + " owned by " +
                                  it->second + " and " + id);
        }
      }
      const auto& m = g_.members.at(id);
      auto held = partitions_of(m.current.assigned);
      for (const auto& [t, ps] : partitions_of(m.current.pending_revocation)) held[t].insert(ps.begin(), ps.end());
      if (!within(c.owned, held)) return fail(id + " owns " + show(c.owned) + " beyond its record " + show(held));
    }
    std::map<protocol::uuid, std::map<int32_t, member_epoch>> expected;
    for (const auto& [id, m] : g_.members) {
      for (const auto* list : {&m.current.assigned, &m.current.pending_revocation}) {
        for (const auto& [t, ps] : *list) {
          for (const auto& [p, at] : ps) {
            if (expected[t].contains(p)) return fail("two records hold a partition, one is " + id);
            expected[t][p] = m.current.epoch;
          }
        }
      }
    }
    if (expected != g_.epochs.all()) fail("partition epochs differ from the member records");
  }

  bool converged() const {
    for (const auto& [id, c] : clients_) {
      const auto& m = g_.members.at(id);
      auto t = g_.targets.find(id);
      const topic_partitions target = t == g_.targets.end() ? topic_partitions{} : t->second;
      if (!m.is_reconciled_to(g_.target_epoch) || partitions_of(m.current.assigned) != target ||
          !m.current.pending_revocation.empty() || c.owned != target || c.epoch != g_.target_epoch) {
        return false;
      }
    }
    return true;
  }

  // No more churn: the away static members come back, one last complete
  // target, every client heartbeats in turn until all hold their target.
  std::string converge() {
    log("converge");
    while (!away_.empty()) {
      come_back(away_.back());
      away_.pop_back();
    }
    retarget(true);
    for (int round = 0; round < k_converge_rounds; ++round) {
      if (converged()) return failure_;
      ++s.converge_rounds;
      for (auto& [id, c] : clients_) {
        heartbeat(c, false);
        check();
        if (!failure_.empty()) return failure_;
      }
    }
    return converged() ? failure_ : "no convergence after " + std::to_string(k_converge_rounds) + " rounds";
  }

  std::mt19937_64 rng_;
  bool trace_;
  group g_;
  std::map<std::string, client> clients_;
  std::vector<std::string> away_;  // static members stepped out (epoch -2), by old member id
  int next_id_ = 0;
  std::string failure_;
};

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::stoull(v) : fallback;
}

TEST(ReconcileSimulation, NoPartitionOwnedTwiceAndEveryMemberConverges) {
  uint64_t first = 1;
  uint64_t count = env_or("HW_RECONCILE_SIM_SEEDS", 400);
  const bool replay = std::getenv("HW_RECONCILE_SIM_SEED") != nullptr;
  if (replay) {
    first = env_or("HW_RECONCILE_SIM_SEED", 1);
    count = 1;
  }
  const auto started = std::chrono::steady_clock::now();
  stats total;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    simulation sim(seed, replay);
    std::string failure = sim.run();
    ASSERT_TRUE(failure.empty()) << "seed " << seed << ": " << failure << "\nreplay: HW_RECONCILE_SIM_SEED=" << seed
                                 << " broker_reconcile_tests --gtest_filter=ReconcileSimulation.*";
    total.heartbeats += sim.s.heartbeats;
    total.revocations += sim.s.revocations;
    total.unreleased += sim.s.unreleased;
    total.fenced += sim.s.fenced;
    total.lost += sim.s.lost;
    total.joins += sim.s.joins;
    total.leaves += sim.s.leaves;
    total.static_returns += sim.s.static_returns;
    total.subscription_changes += sim.s.subscription_changes;
    total.retargets += sim.s.retargets;
    total.converge_rounds += sim.s.converge_rounds;
  }
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  std::printf(
      "%llu seeds in %lld ms: %lld heartbeats, %lld targets, %lld revocations asked, %lld unreleased waits, %lld "
      "fenced, %lld answers lost, %lld joins, %lld leaves, %lld static returns, %lld subscription changes, %lld "
      "rounds to converge\n",
      static_cast<unsigned long long>(count), static_cast<long long>(ms), static_cast<long long>(total.heartbeats),
      static_cast<long long>(total.retargets), static_cast<long long>(total.revocations),
      static_cast<long long>(total.unreleased), static_cast<long long>(total.fenced),
      static_cast<long long>(total.lost), static_cast<long long>(total.joins), static_cast<long long>(total.leaves),
      static_cast<long long>(total.static_returns), static_cast<long long>(total.subscription_changes),
      static_cast<long long>(total.converge_rounds));
  // The runs must reach the transitions they are meant to test.
  if (count >= 100) {
    const auto n = static_cast<int64_t>(count);
    EXPECT_GT(total.revocations, n * 5);
    EXPECT_GT(total.unreleased, n * 5);
    EXPECT_GT(total.fenced, n / 20);
    EXPECT_GT(total.lost, n);
    EXPECT_GT(total.static_returns, n / 2);
    EXPECT_GT(total.subscription_changes, n * 5);
  }
}

}  // namespace
}  // namespace hw::broker::group::consumer
