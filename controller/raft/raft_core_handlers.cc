// raft_core: what each peer message does (votes, BeginQuorumEpoch,
// EndQuorumEpoch, Fetch), and the requests the core sends.
#include <algorithm>
#include <cassert>

#include "controller/raft/raft_core.h"

namespace hw::controller::raft {

using protocol::error_code;

void raft_core::receive(node_id from, const message& m) {
  std::visit([&](const auto& body) { on(from, body); }, m);
}

// ---- votes -----------------------------------------------------------------

void raft_core::on(node_id from, const vote_request& m) {
  vote_response r{m.correlation, error_code::none, {}, false, m.pre_vote};
  if (!is_voter() || !std::binary_search(options_.voters.begin(), options_.voters.end(), m.replica_id)) {
    r.error = error_code::inconsistent_voter_set;
  } else if (m.replica_epoch < state_.current_epoch) {
    r.error = error_code::fenced_leader_epoch;
  } else {
    if (!m.pre_vote && m.replica_epoch > state_.current_epoch) {
      become_unattached(m.replica_epoch, no_node);
    }
    voter_standing me{role_, fetch_.heard_from_leader(), state_, log_.last_epoch(), log_.end_offset(),
                      options_.unsafe.grant_votes_without_log_check};
    r.vote_granted = grants_vote(me, m.replica_id, m.pre_vote, m.last_offset_epoch, m.last_offset);
    if (r.vote_granted && !m.pre_vote && state_.voted_id != m.replica_id) {
      // The vote is durable before this response leaves (same ready).
      become_unattached(state_.current_epoch, m.replica_id);
    }
  }
  r.current = current_leader();
  send(from, r);
}

void raft_core::on(node_id from, const vote_response& m) {
  if (observe_leader(m.current)) return;
  if (m.correlation != votes_.correlation()) return;  // an earlier round's answer
  bool counting = (role_ == role::prospective && m.pre_vote) ||
                  (role_ == role::candidate && !m.pre_vote && m.current.leader_epoch == state_.current_epoch);
  if (!counting || votes_.answered(from)) return;
  if (!std::binary_search(options_.voters.begin(), options_.voters.end(), from)) return;
  if (!m.vote_granted || m.error != error_code::none) {
    votes_.no(from);
    if (role_ == role::prospective && state_.leader_id != no_node &&
        options_.voters.size() - votes_.no_count() < majority()) {
      // KIP-996: the majority still follows our leader; so do we.
      become_follower(state_.current_epoch, state_.leader_id);
    }
    return;
  }
  votes_.yes(from);
  if (votes_.yes_count() < majority()) return;
  if (role_ == role::prospective) {
    become_candidate();
  } else {
    become_leader();
  }
}

void raft_core::send_votes() {
  votes_.sent(now_ms_);
  for (node_id v : options_.voters) {
    if (v == options_.self || votes_.answered(v)) continue;
    send(v, vote_request{votes_.correlation(), state_.current_epoch, options_.self, log_.last_epoch(), log_.end_offset(),
                         role_ == role::prospective});
  }
}

// ---- BeginQuorumEpoch / EndQuorumEpoch ------------------------------------

void raft_core::on(node_id from, const begin_quorum_epoch_request& m) {
  begin_quorum_epoch_response r{m.correlation, error_code::none, {}};
  if (m.leader_epoch < state_.current_epoch) {
    r.error = error_code::fenced_leader_epoch;
  } else {
    observe_leader({m.leader_id, m.leader_epoch});
    if (role_ == role::follower && state_.leader_id == m.leader_id) {
      deadline_ms_ = follower_deadline();
      maybe_send_fetch();
    }
  }
  r.current = current_leader();
  send(from, r);
}

void raft_core::on(node_id from, const begin_quorum_epoch_response& m) {
  if (observe_leader(m.current)) return;
  if (role_ != role::leader || m.current.leader_epoch != state_.current_epoch) return;
  leader_.begin_acked(from);
}

void raft_core::send_begin_epochs(bool only_due) {
  for (node_id v : leader_.take_begin_epochs_due(now_ms_, only_due, options_.request_timeout_ms)) {
    send(v, begin_quorum_epoch_request{next_correlation_++, options_.self, state_.current_epoch});
  }
}

void raft_core::on(node_id from, const end_quorum_epoch_request& m) {
  end_quorum_epoch_response r{m.correlation, error_code::none, {}};
  if (m.leader_epoch < state_.current_epoch) {
    r.error = error_code::fenced_leader_epoch;
  } else {
    observe_leader({m.leader_id, m.leader_epoch});
    if (role_ == role::follower && state_.leader_id == m.leader_id && state_.current_epoch == m.leader_epoch) {
      // The leader is leaving: stop counting it as alive (pre-votes may be
      // granted, which Kafka's followers refuse until their own backoff
      // ends: this only elects the successor sooner) and start soon; the most caught-up successor
      // first, the others a step later each, voters not named after a full
      // election timeout.
      fetch_.heard(false);
      auto pos = std::find(m.preferred_successors.begin(), m.preferred_successors.end(), options_.self);
      int64_t backoff = options_.election_timeout_ms;
      if (pos != m.preferred_successors.end()) {
        auto p = static_cast<int64_t>(pos - m.preferred_successors.begin());
        backoff = p * options_.election_timeout_ms / static_cast<int64_t>(m.preferred_successors.size());
      }
      deadline_ms_ = std::min(deadline_ms_, now_ms_ + backoff);
    }
  }
  r.current = current_leader();
  send(from, r);
}

void raft_core::on(node_id from, const end_quorum_epoch_response& m) {
  if (observe_leader(m.current)) return;
  if (role_ == role::resigned && m.current.leader_epoch == state_.current_epoch && !end_epochs_.answered(from)) {
    end_epochs_.yes(from);
  }
}

// ---- Fetch -----------------------------------------------------------------

protocol::error_code raft_core::fetch_refusal(epoch e) const {
  if (role_ != role::leader) return error_code::not_leader_or_follower;
  if (e < state_.current_epoch) return error_code::fenced_leader_epoch;
  if (e > state_.current_epoch) return error_code::unknown_leader_epoch;
  return error_code::none;
}

void raft_core::on(node_id from, const fetch_request& m) {
  fetch_response r;
  r.correlation = m.correlation;
  r.current = current_leader();
  r.log_start_offset = log_.start_offset();
  r.error = fetch_refusal(m.current_leader_epoch);
  if (r.error == error_code::none) {
    leader_.serve_fetch(from, m, log_, options_.fetch_max_records, now_ms_, r);
    if (auto hw = leader_.committed_end(durable_end_)) set_hw(*hw);
  }
  r.high_watermark = high_watermark_;
  send(from, std::move(r));
}

void raft_core::on(node_id, const fetch_response& m) {
  if (!fetch_.take_answer(m.correlation)) return;  // stale or duplicated
  if (observe_leader(m.current)) return;
  if (role_ != role::follower || m.current != current_leader()) return;
  if (m.error != error_code::none) {
    // E.g. a leader that resigned: do not hammer it; the fetch timeout (or
    // its EndQuorumEpoch) ends the wait.
    fetch_.back_off(now_ms_ + options_.retry_backoff_ms);
    return;
  }
  on_fetched(m);
  maybe_send_fetch();
}

void raft_core::on_fetched(const fetch_response& m) {
  fetch_.heard(true);
  deadline_ms_ = follower_deadline();
  if (m.diverging_epoch) {
    // Cut back to where our log and the leader's last agree.
    offset target = std::min(m.diverging_epoch->end_offset,
                             log_.end_offset_for_epoch(m.diverging_epoch->leader_epoch).end_offset);
    offset end = log_.truncate_to(target);
    pending_.truncate_to = pending_.truncate_to ? std::min(*pending_.truncate_to, end) : end;
    std::erase_if(pending_.entries, [end](const log_entry& e) { return e.base_offset >= end; });
    durable_end_ = std::min(durable_end_, end);
    return;
  }
  if (m.snapshot) {
    // Below the leader's log start: copy its snapshot first.
    fetch_.start_copy(*m.snapshot);
    send_snapshot_fetch();
    return;
  }
  for (const log_entry& e : m.entries) {
    if (e.end_offset() <= log_.end_offset()) continue;  // already held (a resent answer)
    if (e.base_offset != log_.end_offset() || e.leader_epoch < log_.last_epoch() || e.records.empty()) break;
    log_.append(e);
    pending_.entries.push_back(e);
  }
  set_hw(std::min(m.high_watermark, log_.end_offset()));
}

void raft_core::maybe_send_fetch() {
  if (role_ != role::follower || !fetch_.may_fetch(now_ms_)) return;
  // Fetch from the durable end only: the offset we report is what the leader
  // counts toward the high watermark.
  if (durable_end_ != log_.end_offset()) return;
  uint64_t correlation = next_correlation_++;
  fetch_.sent(correlation, now_ms_);
  send(state_.leader_id, fetch_request{correlation, options_.self, state_.current_epoch, log_.end_offset(),
                                       log_.last_epoch(), options_.fetch_max_wait_ms, high_watermark_});
}

}  // namespace hw::controller::raft
