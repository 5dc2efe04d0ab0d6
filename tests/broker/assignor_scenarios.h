#pragma once
// Seeded random groups that evolve step by step as a coordinator would
// drive them: members join and leave, subscriptions change, topics gain
// partitions, appear or are deleted, the assignor changes. After each step
// the answer is fed back the way Kafka's coordinator keeps it: a member
// whose partitions changed takes the answer's listing (its new record), the
// others keep theirs. A replayed seed gives the same steps.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "broker/group/consumer/assignor.h"

namespace hw::broker::group::consumer::testing {

// Formats a listing as the oracle does: <topic>=<p>.<p>/... or "-".
inline std::string listing_text(const partition_listing& listing) {
  if (listing.empty()) return "-";
  std::string out;
  for (const listed_topic& t : listing) {
    if (!out.empty()) out += '/';
    out += t.topic_id.to_string() + '=';
    for (size_t i = 0; i < t.partitions.size(); ++i) out += (i ? "." : "") + std::to_string(t.partitions[i]);
  }
  return out;
}

class scenario {
 public:
  explicit scenario(uint64_t seed) : rng_(seed) { start(); }

  // The next step's input; the caller runs it and reports the answer.
  const group_spec& spec() const { return spec_; }
  const partition_count_map& topics() const { return describer_; }
  const std::string& assignor_name() const { return assignor_; }

  // The step in the oracle's input format.
  std::string case_text(const std::string& name) const;

  // Feeds the answer back and moves the group on by an event or two.
  void advance(const assignment_result& result);

 private:
  struct member_state {
    std::string id;
    std::optional<std::string> instance;
    std::vector<protocol::uuid> topics;
    int32_t unresolved = 0;
    topic_partitions assignment;
    std::optional<partition_listing> listing;
  };

  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }
  protocol::uuid random_topic() { return std::next(topics_.begin(), static_cast<long>(below(topics_.size())))->first; }
  template <typename T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

  void start();
  member_state new_member();
  std::string new_member_id();
  std::vector<protocol::uuid> random_subscription();
  void give_previous_assignment();
  void apply_event();
  void rebuild_spec();

  std::mt19937_64 rng_;
  std::map<protocol::uuid, int32_t> topics_;
  std::vector<member_state> members_;  // in the group's order
  bool same_topics_ = true;            // every member subscribes to the same topics
  std::string assignor_;
  std::optional<protocol::uuid> unknown_topic_;  // a subscribed id the metadata lacks, for one step
  int next_member_ = 0;
  group_spec spec_;
  partition_count_map describer_;
};

inline void scenario::start() {
  assignor_ = chance(65) ? "uniform" : "range";
  same_topics_ = chance(50);
  for (uint64_t i = 0, n = 1 + below(10); i < n; ++i)
    topics_[protocol::uuid::random(rng_)] = static_cast<int32_t>(1 + below(64));
  std::vector<protocol::uuid> shared = random_subscription();
  int32_t shared_unresolved = chance(10) ? static_cast<int32_t>(1 + below(3)) : 0;
  for (uint64_t i = 0, n = 1 + below(30); i < n; ++i) {
    member_state m = new_member();
    if (same_topics_) {
      m.topics = shared;
      shuffle(m.topics);
      // Now and then one member also names a topic that does not exist,
      // which makes the group heterogeneous with equal topic ids.
      if (!chance(5)) m.unresolved = shared_unresolved;
    }
    members_.push_back(std::move(m));
  }
  if (chance(30)) give_previous_assignment();
  rebuild_spec();
}

inline std::string scenario::new_member_id() {
  int n = next_member_++;
  switch (below(10)) {
    case 0:
      return "\xc3\xa9-" + std::to_string(n);  // é
    case 1:
      return "\xf0\x9f\x98\x80" + std::to_string(n);  // a surrogate pair in Java
    case 2:
    case 3:
    case 4:
      return "m" + std::to_string(n);
    default:
      return protocol::uuid::random(rng_).to_string();
  }
}

inline scenario::member_state scenario::new_member() {
  member_state m;
  m.id = new_member_id();
  if (chance(25)) m.instance = "i-" + std::to_string(below(1000));
  m.topics = random_subscription();
  if (chance(10)) m.unresolved = static_cast<int32_t>(1 + below(3));
  return m;
}

// Some of the known topics in a random order; rarely none.
inline std::vector<protocol::uuid> scenario::random_subscription() {
  std::vector<protocol::uuid> out;
  for (const auto& [id, count] : topics_)
    if (chance(60)) out.push_back(id);
  if (out.empty() && !chance(5)) out.push_back(random_topic());
  shuffle(out);
  return out;
}

// A previous target assignment: some partitions of each topic spread over
// its subscribers, listed in a random order or not at all (ascending).
inline void scenario::give_previous_assignment() {
  for (const auto& [id, count] : topics_) {
    std::vector<member_state*> subscribers;
    for (auto& m : members_)
      if (std::find(m.topics.begin(), m.topics.end(), id) != m.topics.end()) subscribers.push_back(&m);
    if (subscribers.empty()) continue;
    for (int32_t p = 0; p < count; ++p)
      if (chance(80)) subscribers[below(subscribers.size())]->assignment[id].insert(p);
  }
  for (auto& m : members_) {
    if (m.assignment.empty() || chance(50)) continue;
    partition_listing listing = ascending_listing(m.assignment);
    for (auto& t : listing) shuffle(t.partitions);
    shuffle(listing);
    m.listing = listing;
  }
}

inline void scenario::rebuild_spec() {
  spec_ = group_spec{};
  bool homogeneous = true;
  for (const member_state& m : members_) {
    member_spec s;
    s.member_id = m.id;
    s.instance_id = m.instance;
    s.subscribed_topic_ids = m.topics;
    s.unresolved_topic_names = m.unresolved;
    s.assignment = m.assignment;
    s.assignment_listing = m.listing;
    if (unknown_topic_ && (same_topics_ || &m == &members_.front())) s.subscribed_topic_ids.push_back(*unknown_topic_);
    spec_.members.push_back(std::move(s));
  }
  // Kafka calls a group homogeneous when every member subscribes to the same
  // names: the same topics and, here, as many that name no topic.
  for (const member_spec& s : spec_.members) {
    const member_spec& first = spec_.members.front();
    if (std::set(s.subscribed_topic_ids.begin(), s.subscribed_topic_ids.end()) !=
            std::set(first.subscribed_topic_ids.begin(), first.subscribed_topic_ids.end()) ||
        s.unresolved_topic_names != first.unresolved_topic_names)
      homogeneous = false;
  }
  spec_.subscription = homogeneous ? subscription_type::homogeneous : subscription_type::heterogeneous;
  spec_.owners = owners_of(spec_.members);
  describer_ = partition_count_map(topics_);
}

inline std::string scenario::case_text(const std::string& name) const {
  std::string out = "case " + name + "\nassignor " + assignor_ + "\ntype " +
                    (spec_.subscription == subscription_type::homogeneous ? "homogeneous" : "heterogeneous") + "\n";
  for (const auto& [id, count] : topics_) out += "topic " + id.to_string() + " " + std::to_string(count) + "\n";
  for (const member_spec& m : spec_.members) {
    std::string topics;
    for (const auto& t : m.subscribed_topic_ids) topics += (topics.empty() ? "" : ",") + t.to_string();
    out += "member " + m.member_id + " " + m.instance_id.value_or("-") + " " +
           std::to_string(m.unresolved_topic_names) + " " + (topics.empty() ? "-" : topics) + " " +
           listing_text(m.assignment_listing.value_or(ascending_listing(m.assignment))) + "\n";
  }
  for (const auto& [topic, owners] : spec_.owners) {
    std::string list;
    for (const auto& [p, member] : owners) list += (list.empty() ? "" : ",") + std::to_string(p) + ":" + member;
    out += "owners " + topic.to_string() + " " + list + "\n";
  }
  return out + "run\n";
}

inline void scenario::advance(const assignment_result& result) {
  unknown_topic_.reset();
  if (const auto* answer = std::get_if<group_assignment>(&result)) {
    for (member_state& m : members_) {
      auto it = answer->members.find(m.id);
      topic_partitions now = it == answer->members.end() ? topic_partitions{} : it->second;
      if (now == m.assignment) continue;
      m.assignment = now;
      m.listing = it == answer->members.end() ? partition_listing{} : answer->listings.at(m.id);
    }
  }
  apply_event();
  if (chance(40)) apply_event();
  // The member whose heartbeat computes the assignment comes last.
  if (members_.size() > 1 && chance(50)) {
    auto it = members_.begin() + static_cast<long>(below(members_.size()));
    member_state moved = std::move(*it);
    members_.erase(it);
    members_.push_back(std::move(moved));
  }
  rebuild_spec();
}

inline void scenario::apply_event() {
  uint64_t roll = below(100);
  auto subscribers_of = [&](const protocol::uuid& id) {
    std::vector<member_state*> out;
    for (auto& m : members_)
      if (std::find(m.topics.begin(), m.topics.end(), id) != m.topics.end()) out.push_back(&m);
    return out;
  };
  if (roll < 20 && members_.size() < 30) {  // a member joins
    member_state m = new_member();
    if (same_topics_) {
      m.topics = members_.front().topics;
      m.unresolved = members_.front().unresolved;
      shuffle(m.topics);
    }
    members_.push_back(std::move(m));
  } else if (roll < 35 && members_.size() > 1) {  // a member leaves
    members_.erase(members_.begin() + static_cast<long>(below(members_.size())));
  } else if (roll < 50) {  // a topic grows
    int32_t& count = topics_[random_topic()];
    count = std::min<int32_t>(64, count + static_cast<int32_t>(1 + below(8)));
  } else if (roll < 58 && topics_.size() > 1) {  // a topic is deleted: its name no longer resolves
    protocol::uuid deleted = random_topic();
    for (member_state* m : subscribers_of(deleted)) {
      m->topics.erase(std::find(m->topics.begin(), m->topics.end(), deleted));
      ++m->unresolved;
    }
    topics_.erase(deleted);
  } else if (roll < 66 && topics_.size() < 10) {  // a topic is created and subscribed to
    protocol::uuid id = protocol::uuid::random(rng_);
    topics_[id] = static_cast<int32_t>(1 + below(64));
    for (auto& m : members_)
      if (same_topics_ || chance(50))
        m.topics.insert(m.topics.begin() + static_cast<long>(below(m.topics.size() + 1)), id);
  } else if (roll < 78) {  // subscriptions change
    if (same_topics_) {
      std::vector<protocol::uuid> shared = random_subscription();
      for (auto& m : members_) {
        m.topics = shared;
        shuffle(m.topics);
      }
    } else {
      members_[below(members_.size())].topics = random_subscription();
    }
  } else if (roll < 88) {  // the group iterates its members in another order
    shuffle(members_);
  } else if (roll < 93) {
    assignor_ = assignor_ == "uniform" ? "range" : "uniform";
  } else if (roll < 97) {  // a subscribed topic the metadata does not know, for one step
    unknown_topic_ = protocol::uuid::random(rng_);
  }
}

}  // namespace hw::broker::group::consumer::testing
