// raft_election: votes, BeginQuorumEpoch, EndQuorumEpoch.
#include "controller/raft/raft_election.h"

#include <algorithm>
#include <cassert>

namespace hw::controller::raft {

using protocol::error_code;

void raft_election::on(node_id from, const vote_request& m) {
  vote_response r{m.correlation, error_code::none, {}, false, m.pre_vote};
  // A static quorum answers its voters only. In a dynamic one, a node's set
  // may be older than the candidate's (the entry that made either of them a
  // voter not fetched yet), so any node may vote, as in Kafka (KIP-853):
  // the candidate counts only the voters of its own set.
  if (!c_.voters.is_dynamic() && (!c_.is_voter() || !c_.is_voter_id(m.replica_id))) {
    r.error = error_code::inconsistent_voter_set;
  } else if (m.replica_epoch < c_.state.current_epoch) {
    r.error = error_code::fenced_leader_epoch;
  } else {
    if (!m.pre_vote && m.replica_epoch > c_.state.current_epoch) {
      t_.become_unattached(m.replica_epoch, no_node);
    }
    assert(m.pre_vote || m.replica_epoch == c_.state.current_epoch);
    voter_standing me{c_.current_role, c_.fetch.heard_from_leader(), c_.state, c_.log.last_epoch(),
                      c_.log.end_offset(), c_.options.unsafe.grant_votes_without_log_check};
    r.vote_granted = grants_vote(me, m.replica_id, m.pre_vote, m.last_offset_epoch, m.last_offset);
    if (r.vote_granted && !m.pre_vote && c_.state.voted_id != m.replica_id) {
      // The vote is durable before this response leaves (same ready).
      t_.become_unattached(c_.state.current_epoch, m.replica_id);
    }
  }
  r.current = c_.current_leader();
  c_.send(from, r);
}

void raft_election::on(node_id from, const vote_response& m) {
  if (t_.observe_leader(m.current)) return;
  if (m.correlation != c_.votes.correlation()) return;  // an earlier round's answer
  const role now = c_.current_role;
  bool counting = (now == role::prospective && m.pre_vote) ||
                  (now == role::candidate && !m.pre_vote && m.current.leader_epoch == c_.state.current_epoch);
  if (!counting || c_.votes.answered(from) || !c_.is_voter_id(from)) return;
  if (!m.vote_granted || m.error != error_code::none) {
    c_.votes.no(from);
    if (now == role::prospective && c_.state.leader_id != no_node &&
        c_.voters.latest().size() - c_.votes.no_count() < c_.majority()) {
      // KIP-996: the majority still follows our leader; so do we.
      t_.become_follower(c_.state.current_epoch, c_.state.leader_id);
    }
    return;
  }
  c_.votes.yes(from);
  if (c_.votes.yes_count() < c_.majority()) return;
  if (now == role::prospective) {
    t_.become_candidate();
  } else {
    t_.become_leader();
  }
}

void raft_election::on(node_id from, const begin_quorum_epoch_request& m) {
  begin_quorum_epoch_response r{m.correlation, error_code::none, {}};
  if (m.leader_epoch < c_.state.current_epoch) {
    r.error = error_code::fenced_leader_epoch;
  } else {
    t_.observe_leader({m.leader_id, m.leader_epoch});
    if (c_.current_role == role::follower && c_.state.leader_id == m.leader_id) {
      c_.deadline_ms = c_.follower_deadline();
      t_.maybe_send_fetch();
    }
  }
  r.current = c_.current_leader();
  c_.send(from, r);
}

void raft_election::on(node_id from, const begin_quorum_epoch_response& m) {
  if (t_.observe_leader(m.current)) return;
  if (c_.current_role != role::leader || m.current.leader_epoch != c_.state.current_epoch) return;
  c_.leader.begin_acked(from);
}

void raft_election::on(node_id from, const end_quorum_epoch_request& m) {
  end_quorum_epoch_response r{m.correlation, error_code::none, {}};
  if (m.leader_epoch < c_.state.current_epoch) {
    r.error = error_code::fenced_leader_epoch;
  } else {
    t_.observe_leader({m.leader_id, m.leader_epoch});
    if (c_.current_role == role::follower && c_.state.leader_id == m.leader_id &&
        c_.state.current_epoch == m.leader_epoch) {
      // The leader is leaving: stop counting it as alive (pre-votes may be
      // granted, which Kafka's followers refuse until their own backoff
      // ends: this only elects the successor sooner) and start soon; the
      // most caught-up successor first, the others a step later each,
      // voters not named after a full election timeout.
      c_.fetch.leader_ends();
      const auto& successors = m.preferred_successors;
      auto pos = std::find(successors.begin(), successors.end(), c_.options.self);
      int64_t backoff = c_.options.election_timeout_ms;
      if (pos != successors.end()) {
        auto p = static_cast<int64_t>(pos - successors.begin());
        backoff = p * c_.options.election_timeout_ms / static_cast<int64_t>(successors.size());
      }
      c_.deadline_ms = std::min(c_.deadline_ms, c_.now_ms + backoff);
    }
  }
  r.current = c_.current_leader();
  c_.send(from, r);
}

void raft_election::on(node_id from, const end_quorum_epoch_response& m) {
  if (t_.observe_leader(m.current)) return;
  if (c_.current_role == role::resigned && m.current.leader_epoch == c_.state.current_epoch &&
      !c_.end_epochs.answered(from)) {
    c_.end_epochs.yes(from);
  }
}

}  // namespace hw::controller::raft
