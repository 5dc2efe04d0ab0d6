#pragma once
// The one place that decides a partition's next leader, ISR and ELR, and
// writes the PartitionChangeRecord for it (Kafka's PartitionChangeBuilder
// rules, KIP-966 included):
//
// - Leader: the current one while it is still acceptable and in the target
//   ISR; else the first replica (replica order) in the target ISR that is
//   acceptable (unfenced, not shutting down); with an empty ISR, the first
//   acceptable ELR member (which then becomes the ISR alone); with ISR and
//   ELR empty and exactly one last-known leader, that one once it is
//   acceptable again (a "balanced" unclean recovery); then, only for an UNCLEAN election, any acceptable
//   replica — the ISR becomes that replica alone and the leader recovers.
//   PREFERRED tries the first replica before keeping the current leader.
// - ELR (when enabled): while the target ISR is below min.insync.replicas,
//   replicas leaving the ISR join the ELR (minus replicas known to have shut
//   down uncleanly); once the ISR is back at min ISR, ELR and last-known ELR
//   clear. An unclean election clears them too.
// - Last-known ELR keeps the last leader when the ISR first empties, and
//   clears once the partition has a leader again.
// - Reassignment: a reassigning partition lists its target replicas first,
//   then the ones being removed (`removing`), with the new ones in `adding`.
//   Once the target ISR holds every target replica, the change completes
//   it: replicas and ISR lose the removed ones, adding/removing clear, and
//   a leader being removed is replaced by an election.
// - A record with a leader field bumps the leader epoch on replay; every
//   record bumps the partition epoch. Before 3.6 an ISR shrink also bumps
//   the leader epoch. A replica set that drops a member bumps it too.
// No record (nullopt) when nothing would change.
//
// Pure; used on the controller strand.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "controller/metadata/image.h"
#include "controller/metadata/records.h"

namespace hw::controller {

enum class election_type : int8_t { preferred = 0, unclean = 1, online = 2 };

struct partition_change_options {
  // Whether a broker may lead now: registered, unfenced, not in controlled
  // shutdown (Kafka's isActive / isAcceptableLeader).
  std::function<bool(node_id)> acceptable_leader;
  metadata_version version = latest_production_metadata_version;
  int32_t min_isr = 1;
  bool elr_enabled = false;
  // Where a replica new to the partition goes (directory assignment).
  std::function<protocol::uuid(node_id)> default_directory;
  // Whether a broker's log dir is online (KIP-858): a replica in a failed
  // dir may not lead. Empty: every dir counts as online.
  std::function<bool(node_id, const protocol::uuid&)> directory_online;
};

// The replica lists of a partition under reassignment (Kafka's
// PartitionReassignmentReplicas): target order first, then the removed.
struct reassignment_replicas {
  std::vector<node_id> replicas;
  std::vector<node_id> adding;
  std::vector<node_id> removing;

  // Moving from `current` to `target`.
  static reassignment_replicas between(const std::vector<node_id>& current, const std::vector<node_id>& target);
  bool in_progress() const { return !adding.empty() || !removing.empty(); }
  // The replicas before the reassignment began (what a cancel goes back to).
  std::vector<node_id> original() const;
};

class partition_change_builder {
 public:
  partition_change_builder(const partition_registration& current, const topic_id& topic,
                           int32_t partition, partition_change_options options);

  partition_change_builder& set_target_isr(std::vector<node_id> isr);
  partition_change_builder& set_target_replicas(std::vector<node_id> replicas);
  partition_change_builder& set_target_adding(std::vector<node_id> adding);
  partition_change_builder& set_target_removing(std::vector<node_id> removing);
  partition_change_builder& set_unclean_shutdown_replicas(std::vector<node_id> replicas);
  partition_change_builder& set_election(election_type election);
  partition_change_builder& set_target_leader_recovery_state(int8_t state);
  // The log dir that holds broker's replica (AssignReplicasToDirs).
  partition_change_builder& set_directory(node_id broker, const protocol::uuid& dir);

  const std::vector<node_id>& target_isr() const { return target_isr_; }

  // The record to write, or nullopt when it would change nothing.
  std::optional<msg::partition_change_record> build();

 private:
  struct election_result {
    node_id leader = no_leader;
    bool unclean = false;
  };
  election_result elect() const;
  election_result elect_preferred() const;
  election_result elect_any() const;
  bool can_elect_last_known_leader() const;
  bool valid_new_leader(node_id replica) const;
  // acceptable_leader, and the replica's current log dir online.
  bool acceptable(node_id replica) const;
  void populate_target_elr();
  void try_election(msg::partition_change_record& record);
  void update_record_elr(msg::partition_change_record& record);
  void update_last_known_leader(msg::partition_change_record& record) const;
  void complete_reassignment_if_possible();
  void set_assignment_changes(msg::partition_change_record& record) const;

  const partition_registration& current_;
  topic_id topic_id_;
  int32_t partition_;
  partition_change_options options_;
  std::vector<node_id> target_isr_;
  std::vector<node_id> target_replicas_;
  std::vector<node_id> target_adding_;
  std::vector<node_id> target_removing_;
  std::vector<node_id> target_elr_;
  std::vector<node_id> unclean_shutdown_;
  election_type election_ = election_type::online;
  int8_t target_recovery_state_;
  std::map<node_id, protocol::uuid> target_directories_;  // from current_, then set_directory
};

// Whether a change record carries nothing but its partition key.
bool change_record_is_noop(const msg::partition_change_record& record);

}  // namespace hw::controller
