// raft_core: construction, time, transitions between roles, proposals,
// persistence acknowledgements and the leader's high watermark. Message
// handlers are in raft_core_handlers.cc.
#include "controller/raft/raft_core.h"

#include <algorithm>
#include <cassert>

namespace hw::controller::raft {

raft_core::raft_core(raft_options options, raft_disk_state disk, int64_t now_ms)
    : options_(std::move(options)),
      state_(disk.state),
      log_(disk.snapshot, std::move(disk.entries)),
      now_ms_(now_ms),
      durable_end_(log_.end_offset()),
      high_watermark_(log_.start_offset()),
      snapshot_bytes_(std::move(disk.snapshot_bytes)) {
  assert(options_.random);
  assert(!options_.voters.empty());
  std::sort(options_.voters.begin(), options_.voters.end());
  // A restarted node resumes in the epoch it persisted. It never leads that
  // epoch again (its in-memory leader state is gone): a former leader is
  // resigned until its election timeout.
  if (state_.leader_id == options_.self) {
    role_ = is_voter() ? role::resigned : role::unattached;
    deadline_ms_ = now_ms_ + random_election_timeout();
  } else if (state_.leader_id != no_node) {
    role_ = role::follower;
    deadline_ms_ = follower_deadline();
    maybe_send_fetch();
  } else {
    role_ = role::unattached;
    deadline_ms_ = now_ms_ + (is_voter() ? random_election_timeout() : 0);
  }
  note_leader_change();
  // The only voter needs no one's vote: it leads a new epoch at once, as
  // Kafka's single-voter quorum does, rather than after an election timeout.
  if (options_.voters.size() == 1 && is_voter()) become_candidate();
}

bool raft_core::is_voter() const {
  return std::binary_search(options_.voters.begin(), options_.voters.end(), options_.self);
}

// Followers of one leader fetch in step, so their fetch timeouts would end
// together and their elections split the vote (each votes for itself, and
// both wait out another election timeout). A random extra of at most a fifth
// of the election timeout lets one of them ask first.
int64_t raft_core::follower_deadline() {
  return now_ms_ + options_.fetch_timeout_ms + options_.random(0, options_.election_timeout_ms / 5 + 1);
}

int64_t raft_core::random_election_timeout() {
  int64_t t = options_.election_timeout_ms;
  int64_t r = options_.random(t, 2 * t);
  assert(r >= t && r < 2 * t);
  return r;
}

ready raft_core::take_ready() {
  ready r = std::move(pending_);
  pending_ = ready{};
  return r;
}

void raft_core::set_state(persistent_state s) {
  if (s == state_) return;
  state_ = s;
  pending_.state = s;
}

void raft_core::note_leader_change() {
  leader_and_epoch le = current_leader();
  if (le == last_reported_leader_) return;
  last_reported_leader_ = le;
  pending_.leader = le;
}

void raft_core::set_hw(offset hw) {
  if (hw <= high_watermark_) return;
  high_watermark_ = hw;
  pending_.high_watermark = hw;
}

// ---- time ------------------------------------------------------------------

void raft_core::tick(int64_t now_ms) {
  now_ms_ = std::max(now_ms_, now_ms);
  switch (role_) {
    case role::unattached:
      if (now_ms_ < deadline_ms_) break;
      if (is_voter()) {
        become_prospective();
      } else {
        // An observer without a leader asks the voters in turn; any of
        // them answers with the leader it knows.
        node_id to = fetch_.next_probe(options_.voters);
        uint64_t correlation = next_correlation_++;
        fetch_.sent(correlation, now_ms_);
        send(to, fetch_request{correlation, options_.self, state_.current_epoch, log_.end_offset(),
                               log_.last_epoch(), options_.fetch_max_wait_ms, high_watermark_});
        deadline_ms_ = now_ms_ + options_.request_timeout_ms;
      }
      break;
    case role::prospective:
    case role::candidate:
      if (now_ms_ >= deadline_ms_) {
        // A lost or split election: back off (the new randomized timeout)
        // and ask again, starting with a pre-vote.
        become_prospective();
      } else if (now_ms_ - votes_.sent_ms() >= options_.request_timeout_ms) {
        send_votes();
      }
      break;
    case role::follower:
      if (now_ms_ >= deadline_ms_) {
        if (is_voter()) {
          become_prospective();
        } else {
          become_unattached(state_.current_epoch, no_node);
        }
        break;
      }
      // A request lost: ask again.
      if (fetch_.expire(now_ms_, options_.request_timeout_ms) && fetch_.copying()) send_snapshot_fetch();
      maybe_send_fetch();
      break;
    case role::leader:
      // Check-quorum. Kafka gives the leader half a fetch timeout more than
      // its followers, so that a follower's fetch timeout, not the leader's,
      // ends a term when both could. A leader that a majority of voters has
      // not fetched from within that time is cut off: it steps aside so that
      // the majority can elect a leader it can reach.
      if (!leader_.has_quorum(now_ms_, options_.fetch_timeout_ms * 3 / 2)) {
        resign();
        break;
      }
      send_begin_epochs(true);
      break;
    case role::resigned:
      if (now_ms_ >= deadline_ms_) {
        // As Kafka: move past the epoch it led (its voters may still hold
        // answers from it), then elect like anyone else.
        become_unattached(state_.current_epoch + 1, no_node);
      } else if (now_ms_ - end_epochs_.sent_ms() >= options_.request_timeout_ms) {
        send_end_epochs();
      }
      break;
  }
}

// ---- transitions -----------------------------------------------------------

void raft_core::become_unattached(epoch e, node_id voted) {
  role_ = role::unattached;
  set_state({e, no_node, voted});
  fetch_.reset();
  leader_.clear();
  deadline_ms_ = now_ms_ + (is_voter() ? random_election_timeout() : 0);
  note_leader_change();
}

void raft_core::become_prospective() {
  assert(is_voter());
  role_ = role::prospective;
  fetch_.reset();
  leader_.clear();
  votes_.start(next_correlation_++, {options_.self});
  deadline_ms_ = now_ms_ + random_election_timeout();
  if (votes_.yes_count() >= majority()) {
    become_candidate();
    return;
  }
  send_votes();
}

void raft_core::become_candidate() {
  role_ = role::candidate;
  set_state({state_.current_epoch + 1, no_node, options_.self});
  votes_.start(next_correlation_++, {options_.self});
  deadline_ms_ = now_ms_ + random_election_timeout();
  note_leader_change();
  if (votes_.yes_count() >= majority()) {
    become_leader();
    return;
  }
  send_votes();
}

void raft_core::become_leader() {
  role_ = role::leader;
  set_state({state_.current_epoch, options_.self, state_.voted_id});
  // The first entry of the epoch: the high watermark moves only once it is
  // committed, so nothing of an older epoch is declared committed by counting
  // replicas of it alone.
  leader_.start(options_.self, options_.voters, log_.end_offset(), now_ms_);
  std::vector<uint8_t> change;
  if (options_.leader_change_record) change = options_.leader_change_record(options_.self, state_.current_epoch);
  log_entry lc{log_.end_offset(), state_.current_epoch, true, {std::move(change)}, now_ms_};
  log_.append(lc);
  pending_.entries.push_back(std::move(lc));
  note_leader_change();
  send_begin_epochs(false);
}

void raft_core::become_follower(epoch e, node_id leader) {
  node_id voted = e == state_.current_epoch ? state_.voted_id : no_node;
  role_ = role::follower;
  set_state({e, leader, voted});
  fetch_.new_term();
  leader_.clear();
  deadline_ms_ = follower_deadline();
  note_leader_change();
  maybe_send_fetch();
}

void raft_core::become_resigned(std::vector<node_id> successors) {
  role_ = role::resigned;
  resign_successors_ = std::move(successors);
  end_epochs_.start(0, {});
  deadline_ms_ = now_ms_ + random_election_timeout();
  send_end_epochs();
}

void raft_core::send_end_epochs() {
  end_epochs_.sent(now_ms_);
  for (node_id v : options_.voters) {
    if (v == options_.self || end_epochs_.answered(v)) continue;
    send(v, end_quorum_epoch_request{next_correlation_++, options_.self, state_.current_epoch, resign_successors_});
  }
}

void raft_core::resign() {
  if (role_ != role::leader) return;
  become_resigned(leader_.successors());
}

bool raft_core::observe_leader(const leader_and_epoch& le) {
  if (le.leader_epoch > state_.current_epoch) {
    if (le.leader_id != no_node && le.leader_id != options_.self) {
      become_follower(le.leader_epoch, le.leader_id);
    } else {
      become_unattached(le.leader_epoch, no_node);
    }
    return true;
  }
  if (le.leader_epoch == state_.current_epoch && le.leader_id != no_node && le.leader_id != options_.self &&
      state_.leader_id == no_node && role_ != role::leader && role_ != role::resigned) {
    // The epoch has a leader we did not know of (a candidate lost to it,
    // an unattached voter learns of it). A prospective voter that already
    // knew of it is challenging it: peers naming it are no news.
    become_follower(le.leader_epoch, le.leader_id);
    return true;
  }
  return false;
}

// ---- proposals, persistence, the high watermark ---------------------------

propose_result raft_core::propose(std::vector<std::vector<uint8_t>> records) {
  if (role_ != role::leader) return {propose_error::not_leader, offset{-1}};
  if (records.empty()) return {propose_error::empty_batch, offset{-1}};
  if (static_cast<size_t>(log_.end_offset() - high_watermark_) + records.size() > options_.max_uncommitted_records) {
    return {propose_error::too_many_uncommitted, offset{-1}};
  }
  log_entry e{log_.end_offset(), state_.current_epoch, false, std::move(records), now_ms_};
  offset base = e.base_offset;
  log_.append(e);
  pending_.entries.push_back(std::move(e));
  return {propose_error::none, base};
}

void raft_core::persisted(offset end) {
  offset e = std::min(end, log_.end_offset());
  if (e <= durable_end_) return;
  durable_end_ = e;
  if (role_ == role::leader) {
    if (auto hw = leader_.committed_end(durable_end_)) set_hw(*hw);
  } else {
    maybe_send_fetch();
  }
}

}  // namespace hw::controller::raft
