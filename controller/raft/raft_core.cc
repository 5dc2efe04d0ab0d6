// raft_core: construction, time, message routing, proposals, persistence
// acknowledgements, resignation and compaction. The moves between roles are
// in raft_transitions.cc, the message handlers in raft_election.cc and
// raft_fetching.cc.
#include "controller/raft/raft_core.h"

#include <algorithm>
#include <type_traits>

namespace hw::controller::raft {

raft_core::raft_core(raft_options options, raft_disk_state disk, int64_t now_ms)
    : c_(std::move(options), std::move(disk), now_ms) {
  // A restarted node resumes in the epoch it persisted. It never leads that
  // epoch again (its in-memory leader state is gone): a former leader is
  // resigned until its election timeout.
  if (c_.state.leader_id == c_.options.self) {
    c_.current_role = c_.may_stand() ? role::resigned : role::unattached;
    c_.deadline_ms = c_.now_ms + c_.random_election_timeout();
  } else if (c_.state.leader_id != no_node) {
    c_.current_role = role::follower;
    c_.deadline_ms = c_.follower_deadline();
    transitions_.maybe_send_fetch();
  } else {
    c_.current_role = role::unattached;
    c_.deadline_ms = c_.now_ms + (c_.may_stand() ? c_.random_election_timeout() : 0);
  }
  c_.note_leader_change();
  // The only voter needs no one's vote: it leads a new epoch at once, as
  // Kafka's single-voter quorum does, rather than after an election timeout.
  if (c_.voters.latest().size() == 1 && c_.is_voter()) transitions_.become_candidate();
}

ready raft_core::take_ready() {
  ready r = std::move(c_.pending);
  c_.pending = ready{};
  return r;
}

void raft_core::receive(node_id from, const message& m) {
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, fetch_request> || std::is_same_v<T, fetch_response> ||
                      std::is_same_v<T, fetch_snapshot_request> || std::is_same_v<T, fetch_snapshot_response>) {
          fetching_.on(from, body);
        } else {
          election_.on(from, body);
        }
      },
      m);
}

// ---- time ------------------------------------------------------------------

void raft_core::tick(int64_t now_ms) {
  c_.now_ms = std::max(c_.now_ms, now_ms);
  const int64_t now = c_.now_ms;
  switch (c_.current_role) {
    case role::unattached:
      if (now < c_.deadline_ms) break;
      if (c_.may_stand()) {
        transitions_.become_prospective();
      } else {
        // An observer without a leader asks the voters in turn; any of
        // them answers with the leader it knows.
        // (The bootstrap servers while no voter is known.)
        const std::vector<node_id> known = c_.voter_ids();
        const std::vector<node_id>& ask = known.empty() ? c_.options.bootstrap : known;
        if (ask.empty()) break;
        node_id to = c_.fetch.next_probe(ask);
        uint64_t correlation = c_.next_correlation();
        c_.fetch.sent(correlation, now);
        c_.send(to, c_.fetch_request_from_end(correlation));
        c_.deadline_ms = now + c_.options.request_timeout_ms;
      }
      break;
    case role::prospective:
    case role::candidate:
      if (now >= c_.deadline_ms) {
        // A lost or split election: back off (the new randomized timeout)
        // and ask again, starting with a pre-vote.
        transitions_.become_prospective();
      } else if (now - c_.votes.sent_ms() >= c_.options.request_timeout_ms) {
        transitions_.send_votes();
      }
      break;
    case role::follower:
      if (now >= c_.deadline_ms) {
        if (c_.may_stand()) {
          transitions_.become_prospective();
        } else {
          transitions_.become_unattached(c_.state.current_epoch, no_node);
        }
        break;
      }
      // A request lost: ask again.
      if (c_.fetch.expire(now, c_.options.request_timeout_ms) && c_.fetch.copying()) transitions_.send_snapshot_fetch();
      transitions_.maybe_send_fetch();
      break;
    case role::leader:
      // Check-quorum. Kafka gives the leader half a fetch timeout more than
      // its followers, so that a follower's fetch timeout, not the leader's,
      // ends a term when both could. A leader that a majority of voters has
      // not fetched from within that time is cut off: it steps aside so that
      // the majority can elect a leader it can reach.
      if (!c_.leader.has_quorum(now, c_.options.fetch_timeout_ms * 3 / 2)) {
        resign();
        break;
      }
      transitions_.send_begin_epochs(true);
      break;
    case role::resigned:
      if (now >= c_.deadline_ms) {
        // As Kafka: move past the epoch it led (its voters may still hold
        // answers from it), then elect like anyone else.
        transitions_.become_unattached(c_.state.current_epoch + 1, no_node);
      } else if (now - c_.end_epochs.sent_ms() >= c_.options.request_timeout_ms) {
        transitions_.send_end_epochs();
      }
      break;
  }
}

// ---- proposals, persistence, resignation, compaction -----------------------

propose_result raft_core::propose(std::vector<std::vector<uint8_t>> records) {
  if (c_.current_role != role::leader) return {propose_error::not_leader, offset{-1}};
  if (records.empty()) return {propose_error::empty_batch, offset{-1}};
  if (static_cast<size_t>(c_.log.end_offset() - c_.high_watermark) + records.size() >
      c_.options.max_uncommitted_records) {
    return {propose_error::too_many_uncommitted, offset{-1}};
  }
  log_entry e{c_.log.end_offset(), c_.state.current_epoch, false, std::move(records), c_.now_ms};
  offset base = e.base_offset;
  c_.append(e);
  c_.pending.entries.push_back(std::move(e));
  return {propose_error::none, base};
}

void raft_core::persisted(offset end) {
  offset e = std::min(end, c_.log.end_offset());
  if (e <= c_.durable_end) return;
  c_.durable_end = e;
  if (c_.current_role == role::leader) {
    transitions_.leader_commit();
  } else {
    transitions_.maybe_send_fetch();
  }
}

void raft_core::resign() {
  if (c_.current_role != role::leader) return;
  transitions_.become_resigned(c_.leader.successors());
}

bool raft_core::compact(snapshot_id s, snapshot_payload bytes) {
  if (!bytes || s.end_offset <= c_.log.start_offset() || s.end_offset > c_.high_watermark) return false;
  if (s.end_offset > c_.durable_end) return false;
  // At a batch end, with the epoch of the entry before it.
  if (c_.log.epoch_at(s.end_offset - 1) != s.leader_epoch) return false;
  if (!c_.log.is_batch_boundary(s.end_offset)) return false;
  c_.log.compact_to(s);
  c_.voters.compact_to(s.end_offset);
  c_.snapshot_bytes = std::move(bytes);
  return true;
}

}  // namespace hw::controller::raft
