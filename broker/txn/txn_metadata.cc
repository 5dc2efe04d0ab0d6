#include "broker/txn/txn_metadata.h"

#include <algorithm>
#include <array>

namespace hw::broker::txn {

namespace {

constexpr std::array<std::string_view, 8> k_names = {"Empty",          "Ongoing",       "PrepareCommit", "PrepareAbort",
                                                     "CompleteCommit", "CompleteAbort", "Dead",          "PrepareEpochFence"};

std::string describe(const txn_transit& t) {
  return "producer id " + std::to_string(t.producer_id) + " epoch " + std::to_string(t.producer_epoch) + " state " +
         std::string(state_name(t.state)) + " with " + std::to_string(t.partitions.size()) + " partition(s)";
}

bool ends_a_prepare(txn_state s) { return s == txn_state::complete_commit || s == txn_state::complete_abort; }
bool prepares_an_end(txn_state s) { return s == txn_state::prepare_commit || s == txn_state::prepare_abort; }

}  // namespace

std::string_view state_name(txn_state s) {
  const auto i = static_cast<size_t>(s);
  return i < k_names.size() ? k_names[i] : std::string_view("Unknown");
}

std::optional<txn_state> state_from_name(std::string_view name) {
  for (size_t i = 0; i < k_names.size(); ++i)
    if (k_names[i] == name) return static_cast<txn_state>(i);
  return std::nullopt;
}

std::optional<txn_state> state_from_id(int8_t id) {
  if (id < 0 || id >= static_cast<int8_t>(k_names.size())) return std::nullopt;
  return static_cast<txn_state>(id);
}

bool may_follow(txn_state from, txn_state to) {
  using enum txn_state;
  const bool done = from == empty || from == complete_commit || from == complete_abort;
  switch (to) {
    case empty:
    case dead:
      return done;
    case ongoing:
      return done || from == ongoing;
    case prepare_commit:
    case prepare_epoch_fence:
      return from == ongoing;
    case prepare_abort:
      // From a finished or empty transaction too: a version 2 client may
      // abort a transaction that never added a partition.
      return done || from == ongoing || from == prepare_epoch_fence;
    case complete_commit:
      return from == prepare_commit;
    case complete_abort:
      return from == prepare_abort;
  }
  return false;
}

txn_metadata::txn_metadata(std::string transactional_id, int64_t producer_id, int32_t timeout_ms, int64_t now_ms)
    : id_(std::move(transactional_id)) {
  current_.producer_id = producer_id;
  current_.timeout_ms = timeout_ms;
  current_.last_update_ms = now_ms;
}

txn_metadata::txn_metadata(std::string transactional_id, const txn_transit& loaded)
    : id_(std::move(transactional_id)), current_(loaded) {}

txn_prepared txn_metadata::prepare(txn_transit target) {
  txn_prepared out;
  if (pending_) {
    out.illegal = "a transition to " + std::string(state_name(target.state)) + " while one to " +
                  std::string(state_name(*pending_)) + " is pending";
    return out;
  }
  if (target.producer_id < 0) {
    out.illegal = "an illegal producer id " + std::to_string(target.producer_id);
    return out;
  }
  if (target.state != txn_state::dead && target.producer_epoch < 0) {
    out.illegal = "an illegal producer epoch " + std::to_string(target.producer_epoch);
    return out;
  }
  if (!may_follow(current_.state, target.state)) {
    out.illegal = std::string(state_name(target.state)) + " cannot follow " + std::string(state_name(current_.state));
    return out;
  }
  // The record names the id it moves from (Kafka's PreviousProducerId is
  // the current id at every transition).
  target.prev_producer_id = current_.producer_id;
  pending_ = target.state;
  out.transit = std::move(target);
  return out;
}

txn_prepared txn_metadata::prepare_fence_epoch() {
  txn_transit t = current_;
  t.state = txn_state::prepare_epoch_fence;
  // A fence whose write failed was never shown to anyone: reuse its epoch.
  // At the very top there is nothing left to bump to.
  if (!failed_epoch_fence_ && current_.producer_epoch != INT16_MAX) t.producer_epoch = current_.producer_epoch + 1;
  return prepare(std::move(t));
}

txn_prepared txn_metadata::prepare_increment_epoch(int32_t timeout_ms, std::optional<int16_t> expected_epoch,
                                                   int64_t now_ms) {
  if (epoch_exhausted()) {
    txn_prepared out;
    out.illegal = "no producer epoch is left for producer id " + std::to_string(current_.producer_id);
    return out;
  }
  txn_transit t = current_;
  t.state = txn_state::empty;
  const int16_t bumped = static_cast<int16_t>(current_.producer_epoch + 1);
  if (!expected_epoch) {
    // A new producer: whatever came before is fenced.
    t.producer_epoch = bumped;
    t.last_producer_epoch = k_no_producer_epoch;
  } else if (current_.producer_epoch == k_no_producer_epoch || *expected_epoch == current_.producer_epoch) {
    // The same producer going on after an error.
    t.producer_epoch = bumped;
    t.last_producer_epoch = current_.producer_epoch;
  } else if (*expected_epoch == current_.last_producer_epoch) {
    // A retry of a bump that succeeded: answer the same epoch again.
  } else {
    txn_prepared out;
    out.error = protocol::error_code::producer_fenced;
    return out;
  }
  t.timeout_ms = timeout_ms;
  t.partitions.clear();
  t.start_ms = -1;
  t.last_update_ms = now_ms;
  return prepare(std::move(t));
}

txn_prepared txn_metadata::prepare_rotate_producer_id(int64_t new_producer_id, int32_t timeout_ms, int64_t now_ms,
                                                      bool record_last_epoch) {
  using enum txn_state;
  if (current_.state == ongoing || current_.state == prepare_commit || current_.state == prepare_abort) {
    txn_prepared out;
    out.illegal = "cannot move to a new producer id while a transaction is pending";
    return out;
  }
  txn_transit t = current_;
  t.state = empty;
  t.producer_id = new_producer_id;
  t.producer_epoch = 0;
  t.last_producer_epoch = record_last_epoch ? current_.producer_epoch : k_no_producer_epoch;
  t.timeout_ms = timeout_ms;
  t.partitions.clear();
  t.start_ms = -1;
  t.last_update_ms = now_ms;
  return prepare(std::move(t));
}

txn_prepared txn_metadata::prepare_add_partitions(const txn_partitions& added, int64_t now_ms,
                                                  int16_t client_version) {
  using enum txn_state;
  txn_transit t = current_;
  t.state = ongoing;
  if (current_.state == empty || current_.state == complete_commit || current_.state == complete_abort)
    t.start_ms = now_ms;
  t.partitions.insert(added.begin(), added.end());
  t.last_update_ms = now_ms;
  t.client_version = client_version;
  return prepare(std::move(t));
}

txn_prepared txn_metadata::prepare_abort_or_commit(txn_state to, int16_t client_version, int64_t next_producer_id,
                                                   int64_t now_ms, bool no_partition_added) {
  txn_transit t = current_;
  t.state = to;
  if (bumps_epoch_at_end(client_version)) {
    // An abort at the very top lets a broken producer recover: no bump
    // (there is none left), the epoch stays.
    if (!(current_.producer_epoch == INT16_MAX && to == txn_state::prepare_abort))
      t.producer_epoch = static_cast<int16_t>(current_.producer_epoch + 1);
    t.last_producer_epoch = current_.producer_epoch;
  }
  t.start_ms = no_partition_added ? now_ms : current_.start_ms;
  t.next_producer_id = next_producer_id;
  t.last_update_ms = now_ms;
  t.client_version = client_version;
  return prepare(std::move(t));
}

txn_prepared txn_metadata::prepare_complete(int64_t now_ms) {
  // The prepare record is durable, so a fence that failed before is over.
  failed_epoch_fence_ = false;
  txn_transit t = current_;
  t.state = current_.state == txn_state::prepare_commit ? txn_state::complete_commit : txn_state::complete_abort;
  if (bumps_epoch_at_end(current_.client_version) && current_.next_producer_id != k_no_producer_id) {
    // The bump used the epoch up: the producer goes on under the next id.
    // The last epoch stays the one the client last saw.
    t.producer_id = current_.next_producer_id;
    t.producer_epoch = 0;
  }
  t.next_producer_id = k_no_producer_id;
  t.partitions.clear();
  t.last_update_ms = now_ms;
  return prepare(std::move(t));
}

txn_prepared txn_metadata::prepare_dead() {
  txn_transit t = current_;
  t.state = txn_state::dead;
  t.partitions.clear();
  return prepare(std::move(t));
}

bool txn_metadata::valid_epoch(const txn_transit& t) const {
  const bool v2 = bumps_epoch_at_end(t.client_version);
  if (v2 && ends_a_prepare(t.state) && t.producer_epoch == 0)
    return t.last_producer_epoch == current_.last_producer_epoch && t.prev_producer_id == current_.producer_id;
  if (v2 && prepares_an_end(t.state))
    return t.last_producer_epoch == current_.producer_epoch && t.producer_id == current_.producer_id;
  return t.producer_epoch == current_.producer_epoch && t.producer_id == current_.producer_id;
}

bool txn_metadata::valid_epoch_bump(const txn_transit& t) const {
  return t.producer_epoch == static_cast<int16_t>(current_.producer_epoch + 1) ||
         (t.producer_epoch == 0 && t.producer_id != current_.producer_id);
}

std::optional<std::string> txn_metadata::complete(const txn_transit& t) {
  using enum txn_state;
  auto wrong = [&](std::string_view why) -> std::optional<std::string> {
    return "transactional id " + id_ + ": cannot complete the move from " + describe(current_) + " to " +
           describe(t) + ": " + std::string(why);
  };
  if (!pending_) return wrong("nothing is pending");
  if (*pending_ != t.state) return wrong("another move is pending");
  switch (t.state) {
    case empty:
      if (t.producer_epoch != current_.producer_epoch && !valid_epoch_bump(t)) return wrong("not an epoch bump");
      if (!t.partitions.empty() || t.start_ms != -1) return wrong("an empty transaction with partitions");
      break;
    case ongoing:
      if (!valid_epoch(t)) return wrong("another producer epoch");
      if (!std::includes(t.partitions.begin(), t.partitions.end(), current_.partitions.begin(),
                         current_.partitions.end()))
        return wrong("partitions would be dropped");
      if (t.timeout_ms != current_.timeout_ms) return wrong("another timeout");
      break;
    case prepare_commit:
    case prepare_abort: {
      const bool empty_abort = t.state == prepare_abort && bumps_epoch_at_end(t.client_version) &&
                               (current_.state == empty || current_.state == complete_commit ||
                                current_.state == complete_abort);
      if (!valid_epoch(t)) return wrong("another producer epoch");
      if (t.partitions != current_.partitions) return wrong("other partitions");
      if (t.timeout_ms != current_.timeout_ms) return wrong("another timeout");
      if (t.start_ms != current_.start_ms && !empty_abort) return wrong("another start time");
      break;
    }
    case complete_commit:
    case complete_abort:
      if (!valid_epoch(t)) return wrong("another producer epoch");
      if (t.timeout_ms != current_.timeout_ms) return wrong("another timeout");
      if (t.start_ms == -1) return wrong("no start time");
      break;
    case prepare_epoch_fence:
      // The abort that follows a fence takes its place before any write.
      return wrong("a fence is never written as such");
    case dead:
      // An expired id is removed, not moved.
      return wrong("a dead id is removed, not kept");
  }
  current_ = t;
  pending_.reset();
  fence_in_flight_ = false;
  return std::nullopt;
}

void txn_metadata::abandon() {
  if (pending_ == txn_state::prepare_abort && fence_in_flight_) failed_epoch_fence_ = true;
  pending_.reset();
  fence_in_flight_ = false;
}

void txn_metadata::take_over_fence(int16_t fenced_epoch) {
  pending_.reset();
  current_.producer_epoch = fenced_epoch;
  current_.last_producer_epoch = k_no_producer_epoch;
  fence_in_flight_ = true;
}

bool txn_metadata::remove_partition(const txn_topic_partition& tp) {
  if (!prepares_an_end(current_.state)) return false;
  current_.partitions.erase(tp);
  return true;
}

}  // namespace hw::broker::txn
