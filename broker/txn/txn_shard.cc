#include "broker/txn/txn_shard.h"

#include <algorithm>
#include <climits>
#include <variant>

#include "broker/coordinator_log/append_errors.h"

namespace hw::broker::txn {

using protocol::error_code;

namespace {

bool is_prepare(txn_state s) { return s == txn_state::prepare_commit || s == txn_state::prepare_abort; }

}  // namespace

txn_shard::txn_shard(int32_t partition, txn_config config) : config_(config), states_(partition) {}

// --- leadership -------------------------------------------------------------

void txn_shard::begin_load(int32_t coordinator_epoch) {
  unload();
  states_.begin_load(coordinator_epoch);
}

void txn_shard::end_load(int64_t now_ms) {
  states_.activate();
  next_tick_ms_ = now_ms + config_.tick_interval_ms;
  // A transaction whose prepare record was written but not its complete one
  // has markers that may not all have gone out: send them all again.
  for (auto& [id, m] : states_.ids()) {
    if (!is_prepare(m.state())) continue;
    in_flight f;
    f.transactional_id = id;
    f.transit = m.current();
    f.next = then::timeout_prepared;  // no one to answer
    f.coordinator_epoch = states_.coordinator_epoch();
    after_prepare(f, now_ms);
  }
}

void txn_shard::unload() {
  for (const auto& [token, f] : appends_) fail(f, error_code::not_coordinator);
  appends_.clear();
  awaiting_markers_.clear();
  retry_complete_.clear();
  states_.unload();
}

// --- helpers ----------------------------------------------------------------

void txn_shard::answer(std::optional<request_token> token, txn_answer a) {
  if (token) out_.completions.push_back({*token, std::move(a)});
}

void txn_shard::fail(const in_flight& f, error_code e) {
  switch (f.next) {
    case then::answer_init:
    case then::fence_prepared:
      return answer(f.token, init_producer_id_result{e});
    case then::end_prepared:
      return answer(f.token, end_txn_result{e});
    default:
      return answer(f.token, e);
  }
}

void txn_shard::append(const std::string& transactional_id, const txn_transit& transit, then next,
                       std::optional<request_token> token) {
  const append_token t = next_append_++;
  in_flight f;
  f.transactional_id = transactional_id;
  f.transit = transit;
  f.next = next;
  f.token = token;
  f.coordinator_epoch = states_.coordinator_epoch();
  txn_record record = next == then::expired
                          ? tombstone_record(transactional_id)
                          : transit_record(transactional_id, transit, config_.transaction_version_level);
  appends_.emplace(t, std::move(f));
  out_.appends.push_back({t, std::move(record)});
}

void txn_shard::illegal(const std::string& transactional_id, const std::string& what) {
  out_.illegal.push_back("transactional id " + transactional_id + ": " + what);
}

txn_shard_output txn_shard::take_output() {
  txn_shard_output taken = std::move(out_);
  out_ = {};
  return taken;
}

// --- InitProducerId -----------------------------------------------------------

bool txn_shard::init_needs_producer_id(std::string_view transactional_id,
                                       std::optional<producer_id_and_epoch> expected) const {
  const txn_metadata* m = states_.find(transactional_id);
  if (!m) return true;
  return m->epoch_exhausted() && (!expected || expected->epoch == m->producer_epoch());
}

void txn_shard::init_producer_id(request_token token, const std::string& transactional_id, int32_t timeout_ms,
                                 std::optional<producer_id_and_epoch> expected,
                                 std::optional<int64_t> fresh_producer_id, int64_t now_ms) {
  auto fail = [&](error_code e) { answer(token, init_producer_id_result{e}); };
  if (transactional_id.empty()) return fail(error_code::invalid_request);
  if (timeout_ms <= 0 || timeout_ms > config_.max_timeout_ms) return fail(error_code::invalid_transaction_timeout);
  if (auto e = states_.not_serving(); e != error_code::none) return fail(e);

  txn_metadata* m = states_.find_mutable(transactional_id);
  if (!m) {
    if (!fresh_producer_id) return fail(error_code::coordinator_not_available);
    m = &states_.create(transactional_id, txn_metadata(transactional_id, *fresh_producer_id, timeout_ms, now_ms));
  }
  if (m->has_pending()) return fail(error_code::concurrent_transactions);
  if (expected) {
    // A producer resuming after an error names its id and epoch: it is
    // fenced unless the id is still its own (the epoch is checked next), or
    // it is the id it had before an exhausted epoch moved it on.
    const bool own = m->producer_epoch() == k_no_producer_epoch || expected->id == m->producer_id() ||
                     (expected->id == m->prev_producer_id() && epoch_exhausted(expected->epoch));
    if (!own) return fail(error_code::producer_fenced);
  }
  txn_prepared p;
  switch (m->state()) {
    case txn_state::prepare_commit:
    case txn_state::prepare_abort:
      return fail(error_code::concurrent_transactions);
    case txn_state::empty:
    case txn_state::complete_commit:
    case txn_state::complete_abort:
      if (m->epoch_exhausted() && (!expected || expected->epoch == m->producer_epoch())) {
        if (!fresh_producer_id) return fail(error_code::coordinator_not_available);
        p = m->prepare_rotate_producer_id(*fresh_producer_id, timeout_ms, now_ms, expected.has_value());
      } else {
        p = m->prepare_increment_epoch(timeout_ms, expected ? std::optional<int16_t>(expected->epoch) : std::nullopt,
                                       now_ms);
      }
      break;
    case txn_state::ongoing: {
      // Another instance left a transaction open: abort it at a bumped
      // epoch first; the client retries (CONCURRENT_TRANSACTIONS) and then
      // gets an epoch above the fenced one.
      p = m->prepare_fence_epoch();
      if (!p.ok()) break;
      const producer_id_and_epoch fenced{p.transit->producer_id, p.transit->producer_epoch};
      auto refused = begin_end(transactional_id, fenced, false, config_.transaction_version_level, false, std::nullopt,
                               then::fence_prepared, token, now_ms);
      if (refused) {
        if (m->pending() == txn_state::prepare_epoch_fence) m->abandon();
        fail(refused->error == error_code::none ? error_code::concurrent_transactions : refused->error);
      }
      return;
    }
    case txn_state::dead:
    case txn_state::prepare_epoch_fence:
      illegal(transactional_id, "InitProducerId found the state " + std::string(state_name(m->state())));
      return fail(error_code::unknown_server_error);
  }
  if (!p.ok()) {
    if (!p.illegal.empty()) illegal(transactional_id, p.illegal);
    return fail(p.illegal.empty() ? p.error : error_code::unknown_server_error);
  }
  append(transactional_id, *p.transit, then::answer_init, token);
}

// --- AddPartitionsToTxn / AddOffsetsToTxn -------------------------------------

void txn_shard::add_partitions(request_token token, const std::string& transactional_id,
                               producer_id_and_epoch producer, const txn_partitions& partitions,
                               int16_t client_version, int64_t now_ms) {
  auto fail = [&](error_code e) { answer(token, e); };
  if (transactional_id.empty()) return fail(error_code::invalid_request);
  if (auto e = states_.not_serving(); e != error_code::none) return fail(e);
  txn_metadata* m = states_.find_mutable(transactional_id);
  if (!m) return fail(error_code::invalid_producer_id_mapping);
  // A change in flight first (Kafka's order): the producer may already be
  // at the epoch or the producer id that change is writing.
  if (m->has_pending()) return fail(error_code::concurrent_transactions);
  if (m->producer_id() != producer.id) return fail(error_code::invalid_producer_id_mapping);
  if (m->producer_epoch() != producer.epoch) return fail(error_code::producer_fenced);
  if (is_prepare(m->state())) return fail(error_code::concurrent_transactions);
  if (m->state() == txn_state::ongoing &&
      std::includes(m->partitions().begin(), m->partitions().end(), partitions.begin(), partitions.end()))
    return fail(error_code::none);  // already there: nothing to write
  auto p = m->prepare_add_partitions(partitions, now_ms, client_version);
  if (!p.ok()) {
    illegal(transactional_id, p.illegal);
    return fail(error_code::unknown_server_error);
  }
  append(transactional_id, *p.transit, then::answer_add, token);
}

std::vector<std::pair<txn_topic_partition, error_code>> txn_shard::verify_partitions(
    const std::string& transactional_id, producer_id_and_epoch producer, const txn_partitions& partitions) const {
  error_code all = states_.not_serving();
  const txn_metadata* m = states_.find(transactional_id);
  if (transactional_id.empty()) {
    all = error_code::invalid_request;
  } else if (all != error_code::none) {
  } else if (!m || m->producer_id() != producer.id) {
    all = error_code::invalid_producer_id_mapping;
  } else if (m->producer_epoch() != producer.epoch) {
    all = error_code::producer_fenced;
  } else if (is_prepare(m->state())) {
    all = error_code::concurrent_transactions;
  }
  std::vector<std::pair<txn_topic_partition, error_code>> out;
  for (const auto& tp : partitions) {
    error_code e = all;
    // Added when the Ongoing record was durable, removed when the complete
    // one is: a partition outside the set must not take the write.
    if (e == error_code::none && !m->partitions().contains(tp)) e = error_code::transaction_abortable;
    out.emplace_back(tp, e);
  }
  return out;
}

// --- EndTxn -------------------------------------------------------------------

bool txn_shard::end_needs_producer_id(std::string_view transactional_id, int16_t client_version) const {
  const txn_metadata* m = states_.find(transactional_id);
  return m && bumps_epoch_at_end(client_version) && m->epoch_exhausted() &&
         m->pending() != txn_state::prepare_epoch_fence;
}

void txn_shard::end_txn(request_token token, const std::string& transactional_id, producer_id_and_epoch producer,
                        bool commit, int16_t client_version, std::optional<int64_t> fresh_producer_id,
                        int64_t now_ms) {
  if (auto e = states_.not_serving(); e != error_code::none && !transactional_id.empty())
    return answer(token, end_txn_result{e});
  auto done = begin_end(transactional_id, producer, commit, client_version, true, fresh_producer_id,
                        then::end_prepared, token, now_ms);
  if (done) answer(token, *done);
}

namespace {

// What EndTxn's rules decide for an id: an answer with nothing to write
// (an error, or a retry of an end already done), a prepare record to
// write, or a state the coordinator should never meet (Kafka's
// IllegalStateException).
struct write_prepare_step {
  txn_state target;
  bool no_partition_added = false;  // a v2 abort of a transaction that added nothing
};
struct unexpected_state {};
using end_decision = std::variant<end_txn_result, write_prepare_step, unexpected_state>;

// What the rules look at besides the id's metadata.
struct end_ask {
  producer_id_and_epoch producer;
  bool commit;
  bool from_client;
  bool fence;  // the id's pending change is InitProducerId's fencing
};

end_decision end_error(error_code e) { return end_txn_result{e}; }

// Version 0 and 1 clients never bump their epoch: it must match.
end_decision end_rules_v1(const txn_metadata& m, const end_ask& c) {
  using enum txn_state;
  const end_decision wrong_state = end_error(error_code::invalid_txn_state);
  const end_decision concurrent = end_error(error_code::concurrent_transactions);
  // Nothing to write: the transaction already ended that way (a retry).
  const end_decision already = end_txn_result{};
  if (m.producer_id() != c.producer.id) return end_error(error_code::invalid_producer_id_mapping);
  if ((c.from_client && c.producer.epoch != m.producer_epoch()) || c.producer.epoch < m.producer_epoch())
    return end_error(error_code::producer_fenced);
  if (m.has_pending() && !c.fence) return concurrent;
  switch (m.state()) {
    case ongoing:
      return write_prepare_step{c.commit ? prepare_commit : prepare_abort};
    case complete_commit:
      return c.commit ? already : wrong_state;
    case complete_abort:
      return c.commit ? wrong_state : already;
    case prepare_commit:
      return c.commit ? concurrent : wrong_state;
    case prepare_abort:
      return c.commit ? wrong_state : concurrent;
    case empty:
      return wrong_state;
    case dead:
    case prepare_epoch_fence:
      break;
  }
  return unexpected_state{};
}

// Version 2: every end bumps the epoch, so the epoch tells a retry (one
// below the current) from the next end (the current).
end_decision end_rules_v2(const txn_metadata& m, const end_ask& c) {
  using enum txn_state;
  const bool retry_on_overflow = !c.fence && m.prev_producer_id() == c.producer.id &&
                                 c.producer.epoch == INT16_MAX - 1 && m.producer_epoch() == 0;
  const bool retry_on_bump = !c.fence && m.producer_epoch() == c.producer.epoch + 1;
  const bool retry = retry_on_bump || retry_on_overflow;
  bool valid_epoch = false;
  if (c.fence) {
    valid_epoch = (!c.from_client || c.producer.epoch == m.producer_epoch()) && c.producer.epoch >= m.producer_epoch();
  } else {
    switch (m.state()) {
      case ongoing:
      case empty:
      case dead:
      case prepare_epoch_fence:
        valid_epoch = c.producer.epoch == m.producer_epoch();
        break;
      case prepare_commit:
      case prepare_abort:
        valid_epoch = retry_on_bump;
        break;
      case complete_commit:
      case complete_abort:
        valid_epoch = retry || c.producer.epoch == m.producer_epoch();
        break;
    }
  }
  // A change in flight is waited out before the epoch is judged, as Kafka
  // does: while the markers of the last end are written the state is still
  // PrepareCommit/PrepareAbort at the bumped epoch, and the producer's next
  // end at that epoch (an abort of the transaction it has just begun) is
  // the next end, not a stale one.
  if (m.has_pending() && !c.fence) return end_error(error_code::concurrent_transactions);
  if (m.producer_id() != c.producer.id && !retry_on_overflow) return end_error(error_code::invalid_producer_id_mapping);
  if (!valid_epoch) return end_error(error_code::producer_fenced);
  const end_decision wrong_state = end_error(error_code::invalid_txn_state);
  const end_decision concurrent = end_error(error_code::concurrent_transactions);
  const end_decision abort_empty = write_prepare_step{prepare_abort, true};
  // Nothing to write: the transaction already ended that way (a retry).
  const end_decision already = end_txn_result{error_code::none, m.producer_id(), m.producer_epoch()};
  switch (m.state()) {
    case ongoing:
      return write_prepare_step{c.commit ? prepare_commit : prepare_abort};
    case complete_commit:
      if (c.commit) return retry ? already : wrong_state;
      return retry ? wrong_state : abort_empty;
    case complete_abort:
      if (!c.commit) return retry ? already : abort_empty;
      return wrong_state;
    case prepare_commit:
      return c.commit ? concurrent : wrong_state;
    case prepare_abort:
      return c.commit ? wrong_state : concurrent;
    case empty:
      return c.commit ? wrong_state : abort_empty;
    case dead:
    case prepare_epoch_fence:
      break;
  }
  return unexpected_state{};
}

}  // namespace

std::optional<end_txn_result> txn_shard::begin_end(const std::string& transactional_id,
                                                   producer_id_and_epoch producer, bool commit,
                                                   int16_t client_version, bool from_client,
                                                   std::optional<int64_t> fresh_producer_id, then next,
                                                   std::optional<request_token> token, int64_t now_ms) {
  if (transactional_id.empty()) return end_txn_result{error_code::invalid_request};
  txn_metadata* m = states_.find_mutable(transactional_id);
  if (!m) return end_txn_result{error_code::invalid_producer_id_mapping};
  const bool fence = m->pending() == txn_state::prepare_epoch_fence;
  const end_ask ask{producer, commit, from_client, fence};
  const end_decision decision = bumps_epoch_at_end(client_version) ? end_rules_v2(*m, ask) : end_rules_v1(*m, ask);
  if (const auto* answer_now = std::get_if<end_txn_result>(&decision)) return *answer_now;
  if (const auto* step = std::get_if<write_prepare_step>(&decision)) {
    const end_call call{transactional_id, producer, client_version, fresh_producer_id, next, token, now_ms, fence};
    return write_prepare(*m, call, step->target, step->no_partition_added);
  }
  illegal(transactional_id, "EndTxn found the state " + std::string(state_name(m->state())));
  return end_txn_result{error_code::unknown_server_error};
}

std::optional<end_txn_result> txn_shard::write_prepare(txn_metadata& m, const end_call& c, txn_state target,
                                                       bool no_partition_added) {
  const bool v2 = bumps_epoch_at_end(c.client_version);
  int64_t next_producer_id = k_no_producer_id;
  if (v2 && !c.fence && m.epoch_exhausted()) {
    if (!c.fresh_producer_id) return end_txn_result{error_code::coordinator_not_available};
    next_producer_id = *c.fresh_producer_id;
  }
  if (target == txn_state::prepare_abort && c.fence) m.take_over_fence(c.producer.epoch);
  auto p = m.prepare_abort_or_commit(target, v2 ? c.client_version : 0, next_producer_id, c.now_ms,
                                     no_partition_added);
  if (!p.ok()) {
    illegal(c.transactional_id, p.illegal);
    return end_txn_result{error_code::unknown_server_error};
  }
  append(c.transactional_id, *p.transit, c.next, c.token);
  return std::nullopt;
}

void txn_shard::after_prepare(const in_flight& f, int64_t now_ms) {
  txn_metadata* m = states_.find_mutable(f.transactional_id);
  if (!m) return;
  const bool commit = m->state() == txn_state::prepare_commit;
  // The answer goes now: the decision is durable, the markers follow.
  if (f.next == then::end_prepared) {
    if (bumps_epoch_at_end(m->client_version()))
      answer(f.token, end_txn_result{error_code::none, m->producer_id(), m->producer_epoch()});
    else
      answer(f.token, end_txn_result{});
  } else if (f.next == then::fence_prepared) {
    answer(f.token, init_producer_id_result{error_code::concurrent_transactions});
  }
  marker_job job;
  job.transactional_id = f.transactional_id;
  job.producer_id = m->producer_id();
  job.producer_epoch = m->producer_epoch();
  job.commit = commit;
  job.coordinator_epoch = states_.coordinator_epoch();
  job.transaction_version = m->client_version();
  job.partitions = m->partitions();
  auto p = m->prepare_complete(now_ms);
  if (!p.ok()) {
    illegal(f.transactional_id, p.illegal);
    return;
  }
  awaiting_markers_.insert_or_assign(f.transactional_id, *p.transit);
  if (job.partitions.empty()) {
    // A v2 abort of an empty transaction: no partition to mark.
    on_markers_written(f.transactional_id, states_.coordinator_epoch(), now_ms);
  } else {
    out_.markers.push_back(std::move(job));
  }
}

void txn_shard::on_markers_written(const std::string& transactional_id, int32_t coordinator_epoch, int64_t) {
  if (!states_.active() || coordinator_epoch != states_.coordinator_epoch()) return;
  auto it = awaiting_markers_.find(transactional_id);
  if (it == awaiting_markers_.end()) return;
  append(transactional_id, it->second, then::end_completed, std::nullopt);
}

// --- durability ---------------------------------------------------------------

void txn_shard::on_append_done(append_token token, error_code error, int64_t now_ms) {
  auto it = appends_.find(token);
  if (it == appends_.end()) return;  // unloaded meanwhile: answered then
  const in_flight f = std::move(it->second);
  appends_.erase(it);
  txn_metadata* m = states_.find_mutable(f.transactional_id);
  if (f.coordinator_epoch != states_.coordinator_epoch() || !m) {
    answer(f.token, error_code::not_coordinator);
    return;
  }
  const error_code e = coordinator_error_of_append(error);
  if (e != error_code::none) {
    if (f.next == then::end_completed && e == error_code::coordinator_not_available) {
      // The markers are out; the record saying so is retried (the id stays
      // pending meanwhile, as Kafka's marker manager keeps it).
      retry_complete_.push_back(f.transactional_id);
      return;
    }
    m->abandon();
    if (f.next == then::end_completed) awaiting_markers_.erase(f.transactional_id);
    return fail(f, e);
  }
  if (f.next == then::expired) {
    states_.erase(f.transactional_id);
    return;
  }
  const txn_state before = m->state();
  if (auto wrong = m->complete(f.transit)) {
    illegal(f.transactional_id, *wrong);
    m->abandon();
    return fail(f, error_code::unknown_server_error);
  }
  states_.note_state_change(before, m->state());
  switch (f.next) {
    case then::answer_init:
      answer(f.token, init_producer_id_result{error_code::none, f.transit.producer_id, f.transit.producer_epoch});
      break;
    case then::answer_add:
      answer(f.token, error_code::none);
      break;
    case then::end_prepared:
    case then::fence_prepared:
    case then::timeout_prepared:
      after_prepare(f, now_ms);
      break;
    case then::end_completed:
      awaiting_markers_.erase(f.transactional_id);
      break;
    case then::expired:
      break;
  }
}

// --- time ---------------------------------------------------------------------

std::optional<int64_t> txn_shard::next_deadline_ms() const {
  if (!states_.active()) return std::nullopt;
  return next_tick_ms_;
}

void txn_shard::tick(int64_t now_ms) {
  if (!states_.active()) return;
  next_tick_ms_ = now_ms + config_.tick_interval_ms;
  auto retry = std::move(retry_complete_);
  retry_complete_.clear();
  for (const auto& id : retry) {
    auto it = awaiting_markers_.find(id);
    if (it != awaiting_markers_.end()) append(id, it->second, then::end_completed, std::nullopt);
  }
  abort_timed_out(now_ms);
  expire_idle(now_ms);
}

void txn_shard::abort_timed_out(int64_t now_ms) {
  std::vector<std::string> due;
  for (const auto& [id, m] : states_.ids()) {
    // A distributed two-phase commit transaction (KIP-939: the largest
    // timeout) never times out.
    if (m.state() != txn_state::ongoing || m.has_pending() || m.timeout_ms() == INT32_MAX) continue;
    if (m.start_ms() + m.timeout_ms() < now_ms) due.push_back(id);
  }
  for (const auto& id : due) {
    txn_metadata& m = *states_.find_mutable(id);
    auto p = m.prepare_fence_epoch();
    if (!p.ok()) {
      illegal(id, p.illegal);
      continue;
    }
    auto refused = begin_end(id, {p.transit->producer_id, p.transit->producer_epoch}, false,
                             config_.transaction_version_level, false, std::nullopt, then::timeout_prepared,
                             std::nullopt, now_ms);
    if (refused && m.pending() == txn_state::prepare_epoch_fence) m.abandon();
  }
}

void txn_shard::expire_idle(int64_t now_ms) {
  for (auto& [id, m] : states_.ids()) {
    const auto s = m.state();
    if (s != txn_state::empty && s != txn_state::complete_commit && s != txn_state::complete_abort) continue;
    if (m.has_pending() || m.last_update_ms() > now_ms - config_.id_expiration_ms) continue;
    auto p = m.prepare_dead();
    if (!p.ok()) continue;
    append(id, *p.transit, then::expired, std::nullopt);
  }
}

}  // namespace hw::broker::txn
