#include "controller/partition_change.h"

#include <algorithm>
#include <set>

namespace hw::controller {

namespace {

bool contains(const std::vector<node_id>& v, node_id x) { return std::find(v.begin(), v.end(), x) != v.end(); }

bool contains_all(const std::vector<node_id>& big, const std::vector<node_id>& small) {
  return std::all_of(small.begin(), small.end(), [&](node_id x) { return contains(big, x); });
}

}  // namespace

reassignment_replicas reassignment_replicas::between(const std::vector<node_id>& current,
                                                     const std::vector<node_id>& target) {
  // Both difference lists sorted, as Kafka computes them.
  std::set<node_id> removing, adding;
  for (node_id r : current)
    if (!contains(target, r)) removing.insert(r);
  for (node_id r : target)
    if (!contains(current, r)) adding.insert(r);
  reassignment_replicas out;
  out.replicas = target;
  out.replicas.insert(out.replicas.end(), removing.begin(), removing.end());
  out.adding.assign(adding.begin(), adding.end());
  out.removing.assign(removing.begin(), removing.end());
  return out;
}

std::vector<node_id> reassignment_replicas::original() const {
  std::vector<node_id> out;
  for (node_id r : replicas)
    if (!contains(adding, r)) out.push_back(r);
  return out;
}

bool change_record_is_noop(const msg::partition_change_record& r) {
  return !r.isr && r.leader == no_leader_change && !r.replicas && !r.removing_replicas &&
         !r.adding_replicas && r.leader_recovery_state == -1 && !r.directories &&
         !r.eligible_leader_replicas && !r.last_known_elr;
}

partition_change_builder::partition_change_builder(const partition_registration& current,
                                                   const topic_id& topic, int32_t partition,
                                                   partition_change_options options)
    : current_(current),
      topic_id_(topic),
      partition_(partition),
      options_(std::move(options)),
      target_isr_(current.isr),
      target_replicas_(current.replicas),
      target_adding_(current.adding),
      target_removing_(current.removing),
      target_elr_(current.elr),
      target_recovery_state_(current.leader_recovery_state) {
  // A partition from before directory assignment holds no dirs: Kafka
  // reads them as MIGRATING (the zero id) for every replica.
  for (size_t i = 0; i < current.replicas.size(); ++i)
    target_directories_[current.replicas[i]] = i < current.directories.size() ? current.directories[i] : protocol::uuid{};
}

partition_change_builder& partition_change_builder::set_target_isr(std::vector<node_id> isr) {
  target_isr_ = std::move(isr);
  return *this;
}
partition_change_builder& partition_change_builder::set_target_replicas(std::vector<node_id> replicas) {
  target_replicas_ = std::move(replicas);
  return *this;
}
partition_change_builder& partition_change_builder::set_target_adding(std::vector<node_id> adding) {
  target_adding_ = std::move(adding);
  return *this;
}
partition_change_builder& partition_change_builder::set_target_removing(std::vector<node_id> removing) {
  target_removing_ = std::move(removing);
  return *this;
}
partition_change_builder& partition_change_builder::set_unclean_shutdown_replicas(std::vector<node_id> r) {
  unclean_shutdown_ = std::move(r);
  return *this;
}
partition_change_builder& partition_change_builder::set_election(election_type election) {
  election_ = election;
  return *this;
}
partition_change_builder& partition_change_builder::set_target_leader_recovery_state(int8_t state) {
  target_recovery_state_ = state;
  return *this;
}

partition_change_builder& partition_change_builder::set_directory(node_id broker, const protocol::uuid& dir) {
  target_directories_[broker] = dir;
  return *this;
}

bool partition_change_builder::acceptable(node_id replica) const {
  if (!options_.acceptable_leader(replica)) return false;
  if (!options_.directory_online) return true;
  auto d = target_directories_.find(replica);
  return options_.directory_online(replica, d == target_directories_.end() ? protocol::uuid{} : d->second);
}

bool partition_change_builder::valid_new_leader(node_id replica) const {
  bool eligible = contains(target_isr_, replica) || (target_isr_.empty() && contains(target_elr_, replica));
  return eligible && acceptable(replica);
}

bool partition_change_builder::can_elect_last_known_leader() const {
  // Only the single last leader recorded when the ISR emptied counts, only
  // when neither ISR nor ELR has anyone left, and only once it is back.
  return options_.elr_enabled && target_elr_.empty() && target_isr_.empty() &&
         current_.last_known_elr.size() == 1 && acceptable(current_.last_known_elr.front());
}

partition_change_builder::election_result partition_change_builder::elect_preferred() const {
  node_id preferred = target_replicas_.front();
  if (valid_new_leader(preferred)) return {preferred, false};
  if (valid_new_leader(current_.leader)) return {current_.leader, false};
  for (size_t i = 1; i < target_replicas_.size(); ++i) {
    if (valid_new_leader(target_replicas_[i])) return {target_replicas_[i], false};
  }
  if (can_elect_last_known_leader()) return {current_.last_known_elr.front(), true};
  return {};
}

partition_change_builder::election_result partition_change_builder::elect_any() const {
  if (valid_new_leader(current_.leader)) return {current_.leader, false};
  for (node_id r : target_replicas_) {
    if (valid_new_leader(r)) return {r, false};
  }
  if (can_elect_last_known_leader()) return {current_.last_known_elr.front(), true};
  if (election_ == election_type::unclean) {
    for (node_id r : target_replicas_) {
      if (acceptable(r)) return {r, true};
    }
  }
  return {};
}

partition_change_builder::election_result partition_change_builder::elect() const {
  if (target_replicas_.empty()) return {};
  return election_ == election_type::preferred ? elect_preferred() : elect_any();
}

void partition_change_builder::populate_target_elr() {
  if (!options_.elr_enabled) return;
  if (static_cast<int32_t>(target_isr_.size()) >= options_.min_isr) {
    target_elr_.clear();
    return;
  }
  // Everyone who was in the ISR or ELR and is not in the target ISR (nor
  // known to have lost unflushed data) holds every committed offset.
  std::set<node_id> candidates(target_elr_.begin(), target_elr_.end());
  candidates.insert(current_.isr.begin(), current_.isr.end());
  target_elr_.clear();
  for (node_id r : candidates) {
    if (!contains(target_isr_, r) && !contains(unclean_shutdown_, r)) target_elr_.push_back(r);
  }
}

void partition_change_builder::try_election(msg::partition_change_record& record) {
  election_result result = elect();
  if (result.leader == current_.leader) return;
  if (contains(target_elr_, result.leader)) {
    target_isr_ = {result.leader};
    std::erase(target_elr_, result.leader);
  }
  record.leader = result.leader.value;
  if (result.unclean) {
    // The new leader may miss committed records: it starts a new history
    // alone, recovering.
    record.isr = std::vector<int32_t>{result.leader.value};
    if (current_.leader_recovery_state != static_cast<int8_t>(leader_recovery_state::recovering)) {
      record.leader_recovery_state = static_cast<int8_t>(leader_recovery_state::recovering);
    }
  }
}

void partition_change_builder::update_record_elr(msg::partition_change_record& record) {
  bool clean = !record.isr.has_value();
  if (!clean || !options_.elr_enabled) target_elr_.clear();
  if (target_elr_ != current_.elr) record.eligible_leader_replicas = storage::plain_list(target_elr_);
  // The last-known leader lives in last_known_elr; it is updated after the
  // election (update_last_known_leader), not here.
}

void partition_change_builder::update_last_known_leader(msg::partition_change_record& record) const {
  if (!options_.elr_enabled) return;
  bool leaderless_now = record.isr && record.isr->empty();
  if (leaderless_now &&
      (current_.last_known_elr.size() != 1 || current_.last_known_elr.front() != current_.leader)) {
    record.last_known_elr = std::vector<int32_t>{current_.leader.value};
  } else if ((record.leader >= 0 || (current_.leader != no_leader && record.leader != no_leader.value)) &&
             !current_.last_known_elr.empty()) {
    record.last_known_elr = std::vector<int32_t>{};
  }
}

void partition_change_builder::complete_reassignment_if_possible() {
  if (target_adding_.empty() && target_removing_.empty()) return;
  auto without_removed = [&](const std::vector<node_id>& v) {
    std::vector<node_id> out;
    for (node_id r : v)
      if (!contains(target_removing_, r)) out.push_back(r);
    return out;
  };
  std::vector<node_id> isr = without_removed(target_isr_);
  std::vector<node_id> replicas = without_removed(target_replicas_);
  // Complete only with every remaining replica in sync: never shrink the
  // replica set below what holds the data.
  if (isr.empty() || replicas.empty() || !contains_all(isr, replicas)) return;
  target_isr_ = std::move(isr);
  target_replicas_ = std::move(replicas);
  target_adding_.clear();
  target_removing_.clear();
}

void partition_change_builder::set_assignment_changes(msg::partition_change_record& record) const {
  if (!target_replicas_.empty()) {
    if (options_.version.directory_assignment_supported()) {
      // Replicas keep their directory (or the one set); new ones get their
      // broker's default. Written whenever the list differs, as Kafka does.
      std::vector<protocol::uuid> dirs;
      for (node_id r : target_replicas_) {
        auto d = target_directories_.find(r);
        if (d != target_directories_.end()) {
          dirs.push_back(d->second);
        } else {
          dirs.push_back(options_.default_directory ? options_.default_directory(r) : protocol::uuid{});
        }
      }
      std::vector<protocol::uuid> before = current_.directories;
      if (before.empty()) before.resize(current_.replicas.size());
      if (dirs != before) record.directories = std::move(dirs);
    }
    if (target_replicas_ != current_.replicas) record.replicas = storage::plain_list(target_replicas_);
  }
  if (target_removing_ != current_.removing) record.removing_replicas = storage::plain_list(target_removing_);
  if (target_adding_ != current_.adding) record.adding_replicas = storage::plain_list(target_adding_);
}

std::optional<msg::partition_change_record> partition_change_builder::build() {
  msg::partition_change_record record;
  record.topic_id = topic_id_.value;
  record.partition_id = partition_;

  complete_reassignment_if_possible();
  populate_target_elr();
  try_election(record);
  // A replica set that drops a member needs a new leader epoch.
  if (record.leader == no_leader_change && !contains_all(target_replicas_, current_.replicas)) {
    record.leader = current_.leader.value;
  }
  update_record_elr(record);
  if (!record.isr && (!target_isr_.empty() || options_.elr_enabled) && target_isr_ != current_.isr) {
    record.isr = storage::plain_list(target_isr_);
  }
  // Before 3.6 brokers needed a new leader epoch on every ISR shrink (KAFKA-15021).
  if (options_.version.level < 12 && record.leader == no_leader_change && record.isr &&
      !contains_all(storage::named_list<node_id>(*record.isr), current_.isr)) {
    record.leader = current_.leader.value;
  }
  update_last_known_leader(record);
  set_assignment_changes(record);
  if (target_recovery_state_ != current_.leader_recovery_state) {
    record.leader_recovery_state = target_recovery_state_;
  }
  if (change_record_is_noop(record)) return std::nullopt;
  return record;
}

}  // namespace hw::controller
