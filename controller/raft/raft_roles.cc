// raft_roles: the leader's progress and the answers it serves, a follower's
// fetch and snapshot copy, a round of requests to the voters, the vote rule.
#include "controller/raft/raft_roles.h"

#include <algorithm>
#include <functional>

namespace hw::controller::raft {

using protocol::error_code;

namespace {
bool contains(const std::vector<node_id>& v, node_id n) { return std::find(v.begin(), v.end(), n) != v.end(); }
}  // namespace

const char* role_name(role r) {
  switch (r) {
    case role::unattached: return "unattached";
    case role::prospective: return "prospective";
    case role::candidate: return "candidate";
    case role::follower: return "follower";
    case role::leader: return "leader";
    case role::resigned: return "resigned";
  }
  return "?";
}

// ---- the vote rule ---------------------------------------------------------

bool grants_vote(const voter_standing& me, node_id candidate, bool pre_vote, epoch last_epoch, offset end) {
  bool log_ok = me.skip_log_check ||
                (last_epoch != me.last_epoch ? last_epoch > me.last_epoch : end >= me.end);
  if (pre_vote) {
    // KIP-996: a follower that has fetched from its leader (as Kafka: once,
    // in this term of following) does not help a partitioned or flaky voter
    // depose it; it leaves that state only on a fetch timeout.
    if (me.current == role::leader) return false;
    if (me.current == role::follower && me.heard_from_leader) return false;
    return log_ok;
  }
  // One leader per epoch: an epoch with a known leader elects no other, and
  // a voter votes at most once per epoch.
  if (me.state.leader_id != no_node) return false;
  if (me.state.voted_id != no_node) return me.state.voted_id == candidate;
  if (me.current != role::unattached && me.current != role::prospective) return false;
  return log_ok;
}

// ---- leader ----------------------------------------------------------------

void leader_progress::start(node_id self, const std::vector<node_id>& voters, offset epoch_start, int64_t now_ms) {
  self_ = self;
  voters_ = voters;
  replicas_.clear();
  for (node_id v : voters_) replicas_[v] = replica{};
  epoch_start_ = epoch_start;
  since_ms_ = now_ms;
}

void leader_progress::set_voters(const std::vector<node_id>& voters) {
  voters_ = voters;
  for (node_id v : voters_) replicas_.try_emplace(v);
}

protocol::uuid leader_progress::directory_of(node_id id) const {
  auto it = replicas_.find(id);
  return it == replicas_.end() ? protocol::uuid{} : it->second.directory_id;
}

bool leader_progress::caught_up(node_id id, const protocol::uuid& directory, int64_t now_ms, int64_t window_ms) const {
  auto it = replicas_.find(id);
  if (it == replicas_.end() || it->second.directory_id != directory) return false;
  const replica_view& v = it->second.view;
  return v.last_caught_up_ms > 0 && v.last_fetch_ms > 0 && v.last_fetch_ms > now_ms - window_ms;
}

void leader_progress::serve_fetch(node_id from, const fetch_request& m, const raft_log& log, size_t max_records,
                                  int64_t now_ms, fetch_response& r) {
  replica& rep = replicas_[from];
  rep.previous_fetch_ms = rep.view.last_fetch_ms;
  rep.view.last_fetch_ms = now_ms;  // a fetch in this epoch counts for check-quorum
  rep.directory_id = m.replica_directory_id;
  // The snapshot first, as Kafka's validateOffsetAndEpoch: below the log
  // start, at it with another epoch than the snapshot's, or from an epoch
  // older than the snapshot's (the fetcher diverged inside what the snapshot
  // covers, where it cannot be told how far to cut back).
  const snapshot_id& snap = log.snapshot();
  if (snap.end_offset > offset{0} &&
      (m.fetch_offset < snap.end_offset || (m.fetch_offset == snap.end_offset && m.last_fetched_epoch != snap.leader_epoch) ||
       m.last_fetched_epoch < snap.leader_epoch)) {
    r.snapshot = snap;
    return;
  }
  epoch_end_offset eo = log.end_offset_for_epoch(m.last_fetched_epoch);
  if (eo.leader_epoch != m.last_fetched_epoch || eo.end_offset < m.fetch_offset) {
    r.diverging_epoch = eo;
    return;
  }
  // The fetcher's log matches ours up to fetch_offset, and it is durable
  // there (followers fetch from their durable end).
  rep.view.end = m.fetch_offset;
  const offset leader_end = log.end_offset();
  if (m.fetch_offset >= leader_end) {
    rep.view.last_caught_up_ms = std::max(rep.view.last_caught_up_ms, now_ms);
  } else if (rep.leader_end_at_last_fetch > offset{0} && m.fetch_offset >= rep.leader_end_at_last_fetch) {
    rep.view.last_caught_up_ms = std::max(rep.view.last_caught_up_ms, rep.previous_fetch_ms);
  }
  rep.leader_end_at_last_fetch = leader_end;
  r.entries = log.read(m.fetch_offset, max_records);
}

void leader_progress::serve_snapshot(node_id from, const fetch_snapshot_request& m, const raft_log& log,
                                     const snapshot_payload& bytes, int64_t now_ms, fetch_snapshot_response& r) {
  if (!bytes || !(m.snapshot == log.snapshot())) {
    r.error = error_code::snapshot_not_found;  // compacted again since: the next fetch says which
    return;
  }
  auto size = static_cast<int64_t>(bytes->size());
  if (m.position < 0 || m.position > size) {
    r.error = error_code::position_out_of_range;
    return;
  }
  replicas_[from].view.last_fetch_ms = now_ms;  // copying a snapshot is fetching (check-quorum)
  int64_t n = std::min<int64_t>(size - m.position, std::max<int32_t>(m.max_bytes, 1));
  r.size = size;
  r.position = m.position;
  r.bytes.assign(bytes->begin() + m.position, bytes->begin() + m.position + n);
}

void leader_progress::begin_acked(node_id from) {
  auto it = replicas_.find(from);
  if (it != replicas_.end()) it->second.begin_acked = true;
}

std::vector<node_id> leader_progress::take_begin_epochs_due(int64_t now_ms, bool only_due, int64_t resend_ms) {
  std::vector<node_id> due;
  for (node_id v : voters_) {
    if (v == self_) continue;
    replica& r = replicas_[v];
    if (r.begin_acked || r.view.last_fetch_ms >= since_ms_) continue;
    if (only_due && r.begin_sent_ms >= 0 && now_ms - r.begin_sent_ms < resend_ms) continue;
    r.begin_sent_ms = now_ms;
    due.push_back(v);
  }
  return due;
}

bool leader_progress::has_quorum(int64_t now_ms, int64_t check_quorum_ms) const {
  if (now_ms - since_ms_ < check_quorum_ms) return true;
  size_t heard = 0;
  for (node_id v : voters_) {
    auto it = replicas_.find(v);
    if (v == self_ || (it != replicas_.end() && it->second.view.last_fetch_ms >= now_ms - check_quorum_ms)) ++heard;
  }
  return heard >= voters_.size() / 2 + 1;
}

offset leader_progress::end_of(node_id v, offset self_end) const {
  if (v == self_) return self_end;
  auto it = replicas_.find(v);
  return it == replicas_.end() ? offset{-1} : it->second.view.end;
}

std::optional<offset> leader_progress::committed_end(offset self_end) const {
  // A leader that is no longer a voter (it removed itself) still commits
  // for the new set, without counting itself.
  if (voters_.empty()) return std::nullopt;
  std::vector<offset> ends;
  for (node_id v : voters_) ends.push_back(end_of(v, self_end));
  std::sort(ends.begin(), ends.end(), std::greater<>());
  offset candidate = ends[voters_.size() / 2];
  // The first entry of the term must be committed first: nothing of an
  // older epoch is declared committed by counting replicas of it alone.
  if (candidate > epoch_start_) return candidate;
  return std::nullopt;
}

std::vector<node_id> leader_progress::successors() const {
  std::vector<node_id> out;
  for (node_id v : voters_) {
    if (v != self_) out.push_back(v);
  }
  // Most caught-up first: they can win without a truncation.
  std::stable_sort(out.begin(), out.end(), [this](node_id a, node_id b) { return end_of(a, {}) > end_of(b, {}); });
  return out;
}

std::map<node_id, replica_view> leader_progress::views(offset self_end, int64_t now_ms) const {
  std::map<node_id, replica_view> out;
  for (const auto& [id, r] : replicas_) {
    const bool voter = std::find(voters_.begin(), voters_.end(), id) != voters_.end();
    // Kafka's leader forgets an observer that has not fetched for 5 minutes.
    if (!voter && id != self_ && now_ms - r.view.last_fetch_ms >= k_observer_session_timeout_ms) continue;
    out[id] = id == self_ ? replica_view{self_end, now_ms} : r.view;
  }
  return out;
}

// ---- follower --------------------------------------------------------------

void fetch_progress::reset() {
  in_flight_ = 0;
  copy_.reset();
  buffer_.clear();
}

void fetch_progress::new_term() {
  reset();
  heard_ = false;
  leader_ending_ = false;
}

bool fetch_progress::may_fetch(int64_t now_ms) const {
  return in_flight_ == 0 && !copy_ && now_ms >= backoff_until_ms_;
}

void fetch_progress::sent(uint64_t correlation, int64_t now_ms) {
  in_flight_ = correlation;
  sent_ms_ = now_ms;
}

bool fetch_progress::take_answer(uint64_t correlation) {
  if (correlation == 0 || correlation != in_flight_) return false;  // stale or duplicated
  in_flight_ = 0;
  return true;
}

bool fetch_progress::expire(int64_t now_ms, int64_t timeout_ms) {
  if (in_flight_ == 0 || now_ms - sent_ms_ < timeout_ms) return false;
  in_flight_ = 0;
  return true;
}

void fetch_progress::start_copy(snapshot_id s) {
  copy_ = s;
  buffer_.clear();
}

fetch_progress::chunk fetch_progress::add_chunk(const fetch_snapshot_response& m) {
  auto have = static_cast<int64_t>(buffer_.size());
  if (m.error != error_code::none || !copy_ || !(m.snapshot == *copy_) || m.position != have ||
      m.position + static_cast<int64_t>(m.bytes.size()) > m.size) {
    copy_.reset();
    buffer_.clear();
    return chunk::restart;
  }
  buffer_.insert(buffer_.end(), m.bytes.begin(), m.bytes.end());
  return static_cast<int64_t>(buffer_.size()) < m.size ? chunk::more : chunk::complete;
}

std::pair<snapshot_id, std::vector<uint8_t>> fetch_progress::finish_copy() {
  std::pair<snapshot_id, std::vector<uint8_t>> out{*copy_, std::move(buffer_)};
  copy_.reset();
  buffer_.clear();
  return out;
}

// ---- a round of requests ---------------------------------------------------

void voter_round::start(uint64_t correlation, std::vector<node_id> yes) {
  correlation_ = correlation;
  yes_ = std::move(yes);
  no_.clear();
}

bool voter_round::answered(node_id v) const { return contains(yes_, v) || contains(no_, v); }

}  // namespace hw::controller::raft
