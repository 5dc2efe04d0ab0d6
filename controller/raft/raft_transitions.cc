// raft_transitions: between roles, and the requests the roles send.
#include "controller/raft/raft_transitions.h"

#include <cassert>

namespace hw::controller::raft {

void raft_transitions::become_unattached(epoch e, node_id voted) {
  c_.current_role = role::unattached;
  c_.set_state({e, no_node, voted});
  c_.fetch.reset();
  c_.leader.clear();
  c_.deadline_ms = c_.now_ms + (c_.may_stand() ? c_.random_election_timeout() : 0);
  c_.note_leader_change();
}

void raft_transitions::become_prospective() {
  assert(c_.may_stand());
  c_.current_role = role::prospective;
  c_.fetch.reset();
  c_.leader.clear();
  if (start_vote_round()) {
    become_candidate();
  } else {
    send_votes();
  }
}

void raft_transitions::become_candidate() {
  c_.current_role = role::candidate;
  c_.set_state({c_.state.current_epoch + 1, no_node, c_.options.self});
  c_.note_leader_change();
  if (start_vote_round()) {
    become_leader();
  } else {
    send_votes();
  }
}

bool raft_transitions::start_vote_round() {
  // Its own vote counts only when it is in the set it counts (a node that
  // stands after removing itself needs a majority of the others).
  std::vector<node_id> yes;
  if (c_.is_voter()) yes.push_back(c_.options.self);
  c_.votes.start(c_.next_correlation(), std::move(yes));
  c_.deadline_ms = c_.now_ms + c_.random_election_timeout();
  return c_.votes.yes_count() >= c_.majority();
}

void raft_transitions::become_leader() {
  c_.current_role = role::leader;
  c_.set_state({c_.state.current_epoch, c_.options.self, c_.state.voted_id});
  // The first entry of the epoch: the high watermark moves only once it is
  // committed, so nothing of an older epoch is declared committed by counting
  // replicas of it alone.
  const offset start = c_.log.end_offset();
  c_.leader.start(c_.options.self, c_.voter_ids(), start, c_.now_ms);
  std::vector<uint8_t> change;
  if (c_.options.leader_change_record)
    change = c_.options.leader_change_record(c_.options.self, c_.state.current_epoch, c_.voter_ids());
  log_entry lc{start, c_.state.current_epoch, true, {std::move(change)}, c_.now_ms};
  if (c_.voters.is_dynamic() && c_.voters.latest_offset() < offset{0}) {
    // The voters came from the bootstrap checkpoint, which no one fetches:
    // as Kafka, the epoch's first batch writes them (and kraft.version 1)
    // into the log, after the LeaderChange.
    const voter_set& set = c_.voters.latest();
    lc.records.push_back(c_.options.kraft_version_record ? c_.options.kraft_version_record(1) : std::vector<uint8_t>{});
    lc.records.push_back(c_.options.voters_record ? c_.options.voters_record(set) : std::vector<uint8_t>{});
    lc.voters = set;
  }
  c_.append(lc);
  c_.pending.entries.push_back(std::move(lc));
  c_.note_leader_change();
  send_begin_epochs(false);
}

void raft_transitions::become_follower(epoch e, node_id leader) {
  node_id voted = e == c_.state.current_epoch ? c_.state.voted_id : no_node;
  c_.current_role = role::follower;
  c_.set_state({e, leader, voted});
  c_.fetch.new_term();
  c_.leader.clear();
  c_.deadline_ms = c_.follower_deadline();
  c_.note_leader_change();
  maybe_send_fetch();
}

void raft_transitions::become_resigned(std::vector<node_id> successors) {
  c_.current_role = role::resigned;
  c_.resign_successors = std::move(successors);
  c_.end_epochs.start(0, {});
  c_.deadline_ms = c_.now_ms + c_.random_election_timeout();
  send_end_epochs();
}

bool raft_transitions::observe_leader(const leader_and_epoch& le) {
  const node_id self = c_.options.self;
  if (le.leader_epoch > c_.state.current_epoch) {
    if (le.leader_id != no_node && le.leader_id != self) {
      become_follower(le.leader_epoch, le.leader_id);
    } else {
      become_unattached(le.leader_epoch, no_node);
    }
    return true;
  }
  if (le.leader_epoch == c_.state.current_epoch && le.leader_id != no_node && le.leader_id != self &&
      c_.state.leader_id == no_node && c_.current_role != role::leader && c_.current_role != role::resigned) {
    // The epoch has a leader we did not know of (a candidate lost to it,
    // an unattached voter learns of it). A prospective voter that already
    // knew of it is challenging it: peers naming it are no news.
    become_follower(le.leader_epoch, le.leader_id);
    return true;
  }
  return false;
}

// ---- requests --------------------------------------------------------------

void raft_transitions::send_votes() {
  c_.votes.sent(c_.now_ms);
  for (node_id v : c_.voter_ids()) {
    if (v == c_.options.self || c_.votes.answered(v)) continue;
    c_.send(v, vote_request{c_.votes.correlation(), c_.state.current_epoch, c_.options.self, c_.log.last_epoch(),
                            c_.log.end_offset(), c_.current_role == role::prospective});
  }
}

void raft_transitions::send_begin_epochs(bool only_due) {
  for (node_id v : c_.leader.take_begin_epochs_due(c_.now_ms, only_due, c_.options.request_timeout_ms)) {
    c_.send(v, begin_quorum_epoch_request{c_.next_correlation(), c_.options.self, c_.state.current_epoch});
  }
}

void raft_transitions::send_end_epochs() {
  c_.end_epochs.sent(c_.now_ms);
  for (node_id v : c_.voter_ids()) {
    if (v == c_.options.self || c_.end_epochs.answered(v)) continue;
    c_.send(v, end_quorum_epoch_request{c_.next_correlation(), c_.options.self, c_.state.current_epoch,
                                        c_.resign_successors});
  }
}

void raft_transitions::maybe_send_fetch() {
  if (c_.current_role != role::follower || !c_.fetch.may_fetch(c_.now_ms)) return;
  // Fetch from the durable end only: the offset we report is what the leader
  // counts toward the high watermark.
  if (c_.durable_end != c_.log.end_offset()) return;
  uint64_t correlation = c_.next_correlation();
  c_.fetch.sent(correlation, c_.now_ms);
  c_.send(c_.state.leader_id, c_.fetch_request_from_end(correlation));
}

// ---- the voter set ---------------------------------------------------------

void raft_transitions::on_voters_changed() {
  switch (c_.current_role) {
    case role::leader:
      c_.leader.set_voters(c_.voter_ids());
      send_begin_epochs(false);  // a new voter learns who leads
      break;
    case role::prospective:
    case role::candidate:
      // No longer a voter: it stops asking (its vote of this epoch stays).
      if (!c_.may_stand()) become_unattached(c_.state.current_epoch, c_.state.voted_id);
      break;
    case role::unattached:
      // An observer that became a voter waits an election timeout before it
      // stands; a voter that became an observer asks who leads at once.
      c_.deadline_ms = c_.now_ms + (c_.may_stand() ? c_.random_election_timeout() : 0);
      break;
    case role::follower:
    case role::resigned:
      // A follower keeps fetching either way; its fetch timeout asks whether
      // it is a voter when it ends.
      break;
  }
}

void raft_transitions::leader_commit() {
  if (auto hw = c_.leader.committed_end(c_.durable_end)) c_.set_hw(*hw);
  // A leader that removed itself steps down once the removal is committed.
  if (!c_.is_voter() && c_.voters.latest_offset() < c_.high_watermark && c_.voters.latest_offset() >= offset{0})
    become_resigned(c_.leader.successors());
}

void raft_transitions::send_snapshot_fetch() {
  uint64_t correlation = c_.next_correlation();
  c_.fetch.sent(correlation, c_.now_ms);
  c_.send(c_.state.leader_id, fetch_snapshot_request{correlation, c_.options.self, c_.state.current_epoch,
                                                     c_.fetch.copied_snapshot(), c_.fetch.copied_bytes(),
                                                     c_.options.fetch_snapshot_max_bytes});
}

}  // namespace hw::controller::raft
