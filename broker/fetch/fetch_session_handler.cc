#include "broker/fetch/fetch_session_handler.h"

#include <set>

namespace hw::broker::fetch {

namespace {

// Whether the leader's cached copy of a partition must be refreshed.
bool changed(const partition_request& cached, const partition_request& now) {
  return cached.fetch_offset != now.fetch_offset || cached.log_start_offset != now.log_start_offset ||
         cached.max_bytes != now.max_bytes || cached.current_leader_epoch != now.current_leader_epoch ||
         cached.last_fetched_epoch != now.last_fetched_epoch;
}

}  // namespace

fetch_session_handler::request fetch_session_handler::build(const std::vector<partition_request>& next) {
  request out;
  out.session_id = session_id_;
  out.session_epoch = next_epoch_;
  out.full = next_epoch_ == initial_epoch;
  last_full_ = out.full;
  if (out.full) {
    out.partitions = next;
    sent_ = next;
    sent_forgotten_.clear();
    return out;
  }
  // Every fetch of a replica comes here with its whole session: only what
  // changed is copied, and the session is looked up, not rebuilt.
  size_t kept = 0;
  for (const auto& p : next) {
    auto it = session_.find(partition_identity::of(p.key));
    if (it != session_.end()) ++kept;
    if (it == session_.end() || changed(it->second, p)) out.partitions.push_back(p);
  }
  if (kept != session_.size()) {
    std::set<partition_identity> wanted;
    for (const auto& p : next) wanted.insert(partition_identity::of(p.key));
    for (const auto& [id, p] : session_)
      if (!wanted.count(id)) out.forgotten.push_back(id);
  }
  sent_ = out.partitions;
  sent_forgotten_ = out.forgotten;
  return out;
}

bool fetch_session_handler::handle_response(protocol::error_code error, int32_t session_id) {
  if (error != protocol::error_code::none) {
    // The leader knows no such session: start afresh. Otherwise close the
    // one it has (same id, epoch 0) and open a new one.
    if (error == protocol::error_code::fetch_session_id_not_found) session_id_ = invalid_session_id;
    next_epoch_ = initial_epoch;
    session_.clear();
    return false;
  }
  if (session_id == invalid_session_id) {
    // No session kept (a full cache, or the leader closed it): full again.
    session_id_ = invalid_session_id;
    next_epoch_ = initial_epoch;
    session_.clear();
    return true;
  }
  if (last_full_) {
    session_id_ = session_id;
    next_epoch_ = fetch::next_epoch(initial_epoch);
  } else if (session_id != session_id_) {
    // An incremental answer about another session: not ours to apply.
    next_epoch_ = initial_epoch;
    session_.clear();
    return false;
  } else {
    next_epoch_ = fetch::next_epoch(next_epoch_);
  }
  if (last_full_) session_.clear();
  for (auto& p : sent_) {
    auto id = partition_identity::of(p.key);
    session_.insert_or_assign(std::move(id), std::move(p));
  }
  for (const auto& id : sent_forgotten_) session_.erase(id);
  sent_.clear();
  sent_forgotten_.clear();
  return true;
}

void fetch_session_handler::handle_error() {
  next_epoch_ = initial_epoch;
  session_.clear();
}

}  // namespace hw::broker::fetch
