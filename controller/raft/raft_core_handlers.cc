// raft_core: what each peer message does (votes, BeginQuorumEpoch,
// EndQuorumEpoch, Fetch), and the requests the core sends.
#include <algorithm>
#include <cassert>

#include "controller/raft/raft_core.h"

namespace hw::controller::raft {

using protocol::error_code;

namespace {
bool contains(const std::vector<node_id>& v, node_id n) { return std::find(v.begin(), v.end(), n) != v.end(); }
}  // namespace

void raft_core::receive(node_id from, const message& m) {
  std::visit([&](const auto& body) { on(from, body); }, m);
}

// ---- votes -----------------------------------------------------------------

bool raft_core::log_up_to_date(epoch last_epoch, offset end) const {
  if (options_.unsafe.grant_votes_without_log_check) return true;
  if (last_epoch != log_.last_epoch()) return last_epoch > log_.last_epoch();
  return end >= log_.end_offset();
}

bool raft_core::grant(node_id candidate, bool pre_vote, epoch request_epoch, epoch last_epoch, offset end) {
  bool log_ok = log_up_to_date(last_epoch, end);
  if (pre_vote) {
    // KIP-996: a follower that has fetched from its leader (as Kafka: once,
    // in this term of following) does not help a partitioned or flaky voter
    // depose it; it leaves that state only on a fetch timeout.
    if (role_ == role::leader) return false;
    if (role_ == role::follower && fetched_from_leader_) return false;
    return log_ok;
  }
  assert(request_epoch == state_.current_epoch);
  // One leader per epoch: an epoch with a known leader elects no other, and
  // a voter votes at most once per epoch.
  if (state_.leader_id != no_node) return false;
  if (state_.voted_id != no_node) return state_.voted_id == candidate;
  if (role_ != role::unattached && role_ != role::prospective) return false;
  return log_ok;
}

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
    r.vote_granted = grant(m.replica_id, m.pre_vote, m.replica_epoch, m.last_offset_epoch, m.last_offset);
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
  if (m.correlation != vote_round_) return;  // an earlier round's answer
  bool counting = (role_ == role::prospective && m.pre_vote) ||
                  (role_ == role::candidate && !m.pre_vote && m.current.leader_epoch == state_.current_epoch);
  if (!counting || contains(granted_, from) || contains(rejected_, from)) return;
  if (!std::binary_search(options_.voters.begin(), options_.voters.end(), from)) return;
  if (!m.vote_granted || m.error != error_code::none) {
    rejected_.push_back(from);
    if (role_ == role::prospective && state_.leader_id != no_node &&
        options_.voters.size() - rejected_.size() < majority()) {
      // KIP-996: the majority still follows our leader; so do we.
      become_follower(state_.current_epoch, state_.leader_id);
    }
    return;
  }
  granted_.push_back(from);
  if (granted_.size() < majority()) return;
  if (role_ == role::prospective) {
    become_candidate();
  } else {
    become_leader();
  }
}

void raft_core::send_votes() {
  votes_sent_ms_ = now_ms_;
  for (node_id v : options_.voters) {
    if (v == options_.self || contains(granted_, v) || contains(rejected_, v)) continue;
    send(v, vote_request{vote_round_, state_.current_epoch, options_.self, log_.last_epoch(), log_.end_offset(),
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
  auto it = replicas_.find(from);
  if (it != replicas_.end()) it->second.begin_acked = true;
}

void raft_core::send_begin_epochs(bool only_due) {
  for (node_id v : options_.voters) {
    if (v == options_.self) continue;
    replica& r = replicas_[v];
    if (r.begin_acked || r.last_fetch_ms >= leader_since_ms_) continue;
    if (only_due && r.begin_sent_ms >= 0 && now_ms_ - r.begin_sent_ms < options_.request_timeout_ms) continue;
    r.begin_sent_ms = now_ms_;
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
      fetched_from_leader_ = false;
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
  if (role_ == role::resigned && m.current.leader_epoch == state_.current_epoch && !contains(end_acked_, from)) {
    end_acked_.push_back(from);
  }
}

// ---- Fetch -----------------------------------------------------------------

void raft_core::on(node_id from, const fetch_request& m) {
  fetch_response r = answer_fetch(from, m);
  send(from, std::move(r));
}

fetch_response raft_core::answer_fetch(node_id from, const fetch_request& m) {
  fetch_response r;
  r.correlation = m.correlation;
  r.current = current_leader();
  r.log_start_offset = log_.start_offset();
  if (role_ != role::leader) {
    r.error = error_code::not_leader_or_follower;
    r.high_watermark = high_watermark_;
    return r;
  }
  if (m.current_leader_epoch != state_.current_epoch) {
    r.error = m.current_leader_epoch < state_.current_epoch ? error_code::fenced_leader_epoch
                                                            : error_code::unknown_leader_epoch;
    r.high_watermark = high_watermark_;
    return r;
  }
  replica& rep = replicas_[from];
  rep.last_fetch_ms = now_ms_;  // a fetch in this epoch counts for check-quorum
  if (m.fetch_offset < log_.start_offset()) {
    r.snapshot = log_.snapshot();
  } else {
    epoch_end_offset eo = log_.end_offset_for_epoch(m.last_fetched_epoch);
    if (eo.leader_epoch != m.last_fetched_epoch || eo.end_offset < m.fetch_offset) {
      r.diverging_epoch = eo;
    } else {
      // The fetcher's log matches ours up to fetch_offset, and it is
      // durable there (followers fetch from their durable end).
      rep.end = m.fetch_offset;
      maybe_advance_leader_hw();
      r.entries = log_.read(m.fetch_offset, options_.fetch_max_records);
    }
  }
  r.high_watermark = high_watermark_;
  return r;
}

void raft_core::on(node_id, const fetch_response& m) {
  if (m.correlation == 0 || m.correlation != fetch_in_flight_) return;  // stale or duplicated
  fetch_in_flight_ = 0;
  if (observe_leader(m.current)) return;
  if (role_ != role::follower || m.current != current_leader()) return;
  if (m.error != error_code::none) {
    // E.g. a leader that resigned: do not hammer it; the fetch timeout (or
    // its EndQuorumEpoch) ends the wait.
    fetch_backoff_until_ms_ = now_ms_ + options_.retry_backoff_ms;
    return;
  }
  on_fetched(m);
  maybe_send_fetch();
}

void raft_core::on_fetched(const fetch_response& m) {
  fetched_from_leader_ = true;
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
    snapshot_fetch_ = *m.snapshot;
    snapshot_buffer_.clear();
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
  if (role_ != role::follower || fetch_in_flight_ != 0 || snapshot_fetch_ || now_ms_ < fetch_backoff_until_ms_) return;
  // Fetch from the durable end only: the offset we report is what the leader
  // counts toward the high watermark.
  if (durable_end_ != log_.end_offset()) return;
  fetch_in_flight_ = next_correlation_++;
  fetch_sent_ms_ = now_ms_;
  send(state_.leader_id, fetch_request{fetch_in_flight_, options_.self, state_.current_epoch, log_.end_offset(),
                                       log_.last_epoch(), options_.fetch_max_wait_ms, high_watermark_});
}

}  // namespace hw::controller::raft
