#include "history.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

namespace hw::chaos {

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

using position = std::pair<int32_t, int64_t>;  // partition, offset

std::string at(const position& p) {
  return "partition " + std::to_string(p.first) + " offset " + std::to_string(p.second);
}

std::string origin_text(const batch_origin& o) {
  if (o.producer_id < 0) return "no producer id";
  return "producer id " + std::to_string(o.producer_id) + " epoch " + std::to_string(o.producer_epoch) +
         " sequence " + std::to_string(o.sequence) + ", leader epoch " + std::to_string(o.leader_epoch);
}

// Who saw a value where, for the findings' details.
std::string seen_by(const event& e) {
  switch (e.kind) {
    case event::type::final_read:
      return "the final read" + (e.origin.leader_epoch >= 0 || e.origin.producer_id >= 0
                                     ? " [" + origin_text(e.origin) + "]"
                                     : std::string());
    case event::type::ack: return "the ack at " + std::to_string(e.at_ms) + " ms";
    case event::type::read:
      return "consumer " + std::to_string(e.consumer) + " gen " + std::to_string(e.generation) + " at " +
             std::to_string(e.at_ms) + " ms";
    default: return "?";
  }
}

// Who read a value at a position: the first few, and how many in all.
struct readers {
  std::vector<std::string> first;
  int64_t count = 0;
  void add(const std::string& who) {
    if (first.size() < 3) first.push_back(who);
    ++count;
  }
  std::string text() const {
    std::string out;
    for (const auto& w : first) out += (out.empty() ? "" : ", ") + w;
    if (count > static_cast<int64_t>(first.size()))
      out += " and " + std::to_string(count - static_cast<int64_t>(first.size())) + " more";
    return out;
  }
};

struct sighting {
  std::string value;
  std::string who;
};

// The whole history indexed the ways the checks look at it.
struct indexed {
  std::map<std::string, const event*> sends;
  std::map<std::string, const event*> acks;
  std::set<std::string> unacked;  // failed or indeterminate, and not acknowledged
  std::map<std::string, std::map<position, readers>> read_at;    // value → positions read, by whom
  std::map<std::string, std::vector<batch_origin>> final_origins; // value → its batches in the final read
  std::map<position, std::vector<sighting>> values_at;             // reads and acks, per position
  std::map<std::string, std::vector<position>> final_at;           // value → positions in the final read
  std::map<int32_t, std::map<int64_t, std::string>> final_log;     // partition → offset → value
  // Transactions.
  std::map<std::string, std::vector<std::string>> txn_values;  // transaction → values sent in it
  std::map<std::string, std::string> txn_of;                   // value → its transaction
  std::map<std::string, const event*> txn_ends;                // transaction → how it ended
  std::map<std::string, txn_status> final_status;              // value → the final read's decision (first copy)
  std::vector<const event*> committed_reads;                   // read_committed consumers' reads
  std::vector<const event*> epoch_bumps;                       // producers' clients' epoch bumps
  // Groups: consumer → its member event; group → partition → offsets its members read.
  std::map<int, const event*> member_of;
  std::map<std::string, std::map<int32_t, std::set<int64_t>>> group_reads;
};

const char* status_name(txn_status s) {
  switch (s) {
    case txn_status::none: return "not transactional";
    case txn_status::committed: return "committed";
    case txn_status::aborted: return "aborted";
    case txn_status::open: return "undecided";
  }
  return "?";
}

const char* outcome_name(txn_outcome o) {
  switch (o) {
    case txn_outcome::committed: return "committed";
    case txn_outcome::aborted: return "aborted";
    case txn_outcome::unknown: return "unknown";
  }
  return "?";
}

void add_sighting(indexed& ix, const position& pos, const std::string& value, const std::string& who) {
  auto& list = ix.values_at[pos];
  for (const auto& s : list)
    if (s.value == value) return;
  list.push_back({value, who});
}

indexed index_of(const std::vector<event>& events, check_counts& counts) {
  indexed ix;
  std::set<std::string> resolved;
  for (const auto& e : events) {
    switch (e.kind) {
      case event::type::send:
        ++counts.sent;
        ix.sends.emplace(e.value, &e);
        if (!e.txn.empty()) {
          ix.txn_values[e.txn].push_back(e.value);
          ix.txn_of[e.value] = e.txn;
        }
        break;
      case event::type::txn_end:
        ix.txn_ends[e.value] = &e;
        ++(e.outcome == txn_outcome::committed ? counts.txn_committed
           : e.outcome == txn_outcome::aborted ? counts.txn_aborted
                                               : counts.txn_unknown);
        break;
      case event::type::ack:
        ++counts.acked;
        ix.acks.emplace(e.value, &e);
        resolved.insert(e.value);
        if (e.offset >= 0) add_sighting(ix, {e.partition, e.offset}, e.value, seen_by(e));
        break;
      case event::type::fail:
        ++counts.failed;
        resolved.insert(e.value);
        ix.unacked.insert(e.value);
        break;
      case event::type::indeterminate:
        ++counts.indeterminate;
        resolved.insert(e.value);
        ix.unacked.insert(e.value);
        break;
      case event::type::rebalance: ++counts.rebalances; break;
      case event::type::client_reset: break;
      case event::type::epoch_bump: ix.epoch_bumps.push_back(&e); break;
      case event::type::member: ix.member_of[e.consumer] = &e; break;
      case event::type::read:
        ++counts.consumer_reads;
        if (auto m = ix.member_of.find(e.consumer); m != ix.member_of.end())
          ix.group_reads[m->second->value][e.partition].insert(e.offset);
        if (e.read_committed) ix.committed_reads.push_back(&e);
        ix.read_at[e.value][position{e.partition, e.offset}].add(seen_by(e));
        add_sighting(ix, {e.partition, e.offset}, e.value, seen_by(e));
        break;
      case event::type::final_read:
        ++counts.final_read;
        ix.read_at[e.value][position{e.partition, e.offset}].add(seen_by(e));
        ix.final_origins[e.value].push_back(e.origin);
        add_sighting(ix, {e.partition, e.offset}, e.value, seen_by(e));
        ix.final_at[e.value].push_back({e.partition, e.offset});
        ix.final_log[e.partition].emplace(e.offset, e.value);
        ix.final_status.emplace(e.value, e.status);
        if (e.status == txn_status::aborted) ++counts.final_aborted;
        break;
    }
  }
  // A send with no outcome by the end of the run is indeterminate.
  for (const auto& [value, e] : ix.sends) {
    if (resolved.count(value)) continue;
    ++counts.indeterminate;
    ix.unacked.insert(value);
  }
  for (const auto& [value, e] : ix.acks) ix.unacked.erase(value);
  for (const auto& value : ix.unacked)
    if (ix.final_at.count(value)) ++counts.unacked_present;
  return ix;
}

std::string final_range(const indexed& ix, int32_t partition) {
  auto it = ix.final_log.find(partition);
  if (it == ix.final_log.end() || it->second.empty()) return "the final read has no record of partition " +
                                                             std::to_string(partition);
  return "the final read of partition " + std::to_string(partition) + " has " + std::to_string(it->second.size()) +
         " records, offsets " + std::to_string(it->second.begin()->first) + ".." +
         std::to_string(it->second.rbegin()->first);
}

void find_lost(const indexed& ix, std::vector<finding>& out) {
  for (const auto& [value, ack] : ix.acks) {
    if (ix.final_at.count(value)) continue;
    std::string detail = value + " acknowledged at " + at({ack->partition, ack->offset}) + " at " +
                         std::to_string(ack->at_ms) + " ms is not in the final read; " +
                         final_range(ix, ack->partition);
    if (auto r = ix.read_at.find(value); r != ix.read_at.end())
      for (const auto& [pos, who] : r->second) detail += "; read earlier at " + at(pos) + " by " + who.text();
    out.push_back({finding_kind::lost, ack->partition, ack->offset, detail});
  }
}

// What the batches of a value's copies in the final read say about how
// the second copy came to be.
std::string copies_verdict(const indexed& ix, const std::string& value) {
  auto it = ix.final_origins.find(value);
  if (it == ix.final_origins.end() || it->second.size() < 2) return "";
  const auto& copies = it->second;
  for (const auto& c : copies)
    if (c.producer_id < 0) return "";
  auto same_write = [](const batch_origin& a, const batch_origin& b) {
    return a.producer_id == b.producer_id && a.producer_epoch == b.producer_epoch && a.sequence == b.sequence;
  };
  for (size_t i = 1; i < copies.size(); ++i)
    if (!same_write(copies[0], copies[i]))
      return " the copies carry different producer ids, epochs or sequences: the client sent the value again "
             "as a new write";
  return " every copy carries the same producer id, epoch and sequence: one write appended more than once";
}

// librdkafka's idempotent producer, told OUT_OF_ORDER_SEQUENCE_NUMBER for a
// request whose sequence follows one that failed (a gap it made itself:
// the earlier request failed at the deposed leader while the later one
// reached the new leader), drains its partitions, bumps its epoch and
// starts every partition's sequences again: records it still held, some of
// them written by the deposed leader and kept by its successor though the
// client was told otherwise, go out again as new writes the broker cannot
// recognise (confluentinc/librdkafka#4953; Kafka's Java producer retries
// without a bump). Kafka's broker answers each step the same way.
//
// Such a duplicate is explained, and reported rather than counted, only
// with evidence: every copy is of one producer id, each later copy under a
// later epoch, and that producer's client logged a bump for a skipped
// sequence to an epoch above the earlier copy's and at most the later one's.
bool resent_after_bump(const indexed& ix, const std::string& value, std::string& why) {
  auto it = ix.final_origins.find(value);
  if (it == ix.final_origins.end() || it->second.size() < 2) return false;
  const auto& copies = it->second;
  for (size_t i = 1; i < copies.size(); ++i) {
    const batch_origin& before = copies[i - 1];
    const batch_origin& after = copies[i];
    if (before.producer_id < 0 || after.producer_id != before.producer_id ||
        after.producer_epoch <= before.producer_epoch)
      return false;
    const event* bump = nullptr;
    for (const event* b : ix.epoch_bumps)
      if (b->origin.producer_id == after.producer_id && b->origin.producer_epoch > before.producer_epoch &&
          b->origin.producer_epoch <= after.producer_epoch &&
          b->error.find("skipped sequence numbers") != std::string::npos)
        bump = b;
    if (!bump) return false;
    why += " the client bumped producer id " + std::to_string(bump->origin.producer_id) + " to epoch " +
           std::to_string(bump->origin.producer_epoch) + " at " + std::to_string(bump->at_ms) + " ms (" +
           bump->error + ") and wrote the value again;";
  }
  return true;
}

void find_duplicates(const indexed& ix, check_result& r) {
  for (const auto& [value, positions] : ix.read_at) {
    if (positions.size() < 2) continue;
    std::string detail = value + " read at " + std::to_string(positions.size()) + " positions:";
    for (const auto& [pos, who] : positions) detail += " " + at(pos) + " (" + who.text() + ");";
    std::string why;
    if (resent_after_bump(ix, value, why)) {
      ++r.counts.client_resends;
      r.explained_duplicates.push_back(detail + why);
      continue;
    }
    detail += copies_verdict(ix, value);
    const auto& first = positions.begin()->first;
    r.findings.push_back({finding_kind::duplicate, first.first, first.second, detail});
  }
}

// Within a partition of the final read, each producer's values must come
// in the order of their sequence numbers. The later copies of a value the
// client wrote again after an epoch bump (see resent_after_bump) are out of
// this order by their nature and are left out of it.
void find_out_of_order(const indexed& ix, std::vector<finding>& out) {
  for (const auto& [partition, log] : ix.final_log) {
    std::map<int, std::pair<int64_t, const std::string*>> previous;  // producer → (offset, value)
    std::set<std::string> seen;
    for (const auto& [offset, value] : log) {
      auto id = parse_value(value);
      if (!id) continue;
      if (!seen.insert(value).second) {
        std::string why;
        if (resent_after_bump(ix, value, why)) continue;
      }
      auto it = previous.find(id->producer);
      if (it != previous.end()) {
        const auto prev = parse_value(*it->second.second);
        if (prev && prev->seq > id->seq)
          out.push_back({finding_kind::out_of_order, partition, offset,
                         value + " at offset " + std::to_string(offset) + " comes after " + *it->second.second +
                             " at offset " + std::to_string(it->second.first) + " in partition " +
                             std::to_string(partition)});
      }
      previous[id->producer] = {offset, &value};
    }
  }
}

void find_inconsistent_offsets(const indexed& ix, std::vector<finding>& out) {
  for (const auto& [pos, seen] : ix.values_at) {
    if (seen.size() < 2) continue;
    std::string detail = at(pos) + " holds " + std::to_string(seen.size()) + " values:";
    for (const auto& s : seen) detail += " " + s.value + " (" + s.who + ");";
    out.push_back({finding_kind::inconsistent_offset, pos.first, pos.second, detail});
  }
  // An acknowledged offset that nothing else claims, while the value was
  // read elsewhere: the broker acknowledged a position it did not keep.
  for (const auto& [value, ack] : ix.acks) {
    if (ack->offset < 0) continue;
    const position acked{ack->partition, ack->offset};
    auto r = ix.read_at.find(value);
    if (r == ix.read_at.end() || r->second.count(acked)) continue;
    if (ix.values_at.at(acked).size() > 1) continue;  // reported above
    std::string detail = value + " acknowledged at " + at(acked) + " at " + std::to_string(ack->at_ms) +
                         " ms but read at";
    for (const auto& [pos, who] : r->second) detail += " " + at(pos) + " (" + who.text() + ");";
    out.push_back({finding_kind::inconsistent_offset, acked.first, acked.second, detail});
  }
}

// A consumer reading an offset at or below one it read before, within one
// generation, went backwards: its position can only move back through a
// rebalance (the committed offset may be behind what was read).
//
// One exception, and only with evidence: the consumer's client logged that
// it reset its position because a broker answered OFFSET_OUT_OF_RANGE at a
// position past everything it had read, and the final read has a record
// at that position. The position was then valid, yet a broker did not have it when
// asked: a deposed leader that has not yet heard of its successor (after a
// pause, say), asked by a client that sends no current leader epoch. Kafka
// answers such a fetch the same way; a client with KIP-320 (librdkafka 2.1
// and later, Java) sends the epoch, gets FENCED_LEADER_EPOCH and looks for
// the new leader instead. Such a reset explains the first read below it and
// is reported, not counted as a finding.
void find_positions_backwards(const std::vector<event>& events, std::map<int32_t, int64_t> log_end,
                              check_result& r) {
  // (consumer, generation, partition) → the last read (offset, value).
  std::map<std::tuple<int, int, int32_t>, std::pair<int64_t, std::string>> last;
  // (consumer, partition) → the client's last reset not yet used to explain a read.
  std::map<std::pair<int, int32_t>, const event*> resets;
  for (const auto& e : events) {
    if (e.kind == event::type::client_reset) {
      resets[{e.consumer, e.partition}] = &e;
      continue;
    }
    if (e.kind != event::type::read) continue;
    const auto key = std::make_tuple(e.consumer, e.generation, e.partition);
    auto it = last.find(key);
    if (it != last.end() && e.offset <= it->second.first) {
      const std::string what = "consumer " + std::to_string(e.consumer) + " in generation " +
                               std::to_string(e.generation) + " read " + e.value + " at offset " +
                               std::to_string(e.offset) + " at " + std::to_string(e.at_ms) + " ms after " +
                               it->second.second + " at offset " + std::to_string(it->second.first) +
                               " of partition " + std::to_string(e.partition);
      auto reset = resets.find({e.consumer, e.partition});
      const event* why = reset == resets.end() ? nullptr : reset->second;
      if (why && why->offset > it->second.first && log_end[e.partition] > why->offset) {
        ++r.counts.client_resets;
        r.explained_resets.push_back(what + ": the client reset from offset " + std::to_string(why->offset) +
                                     " at " + std::to_string(why->at_ms) + " ms (" + why->error +
                                     "), an offset the final read holds");
        resets.erase(reset);
      } else {
        r.findings.push_back({finding_kind::position_backwards, e.partition, e.offset, what});
      }
    }
    last[key] = {e.offset, e.value};
  }
}

// A read_committed consumer sees only committed records: never one the
// final read's markers abort or leave undecided, nor one of a transaction
// its producer was told was aborted.
void find_aborted_reads(const indexed& ix, std::vector<finding>& out) {
  for (const event* e : ix.committed_reads) {
    std::string why;
    auto status = ix.final_status.find(e->value);
    if (status != ix.final_status.end() &&
        (status->second == txn_status::aborted || status->second == txn_status::open))
      why = std::string("the final read has it ") + status_name(status->second);
    if (auto t = ix.txn_of.find(e->value); t != ix.txn_of.end()) {
      auto end = ix.txn_ends.find(t->second);
      if (end != ix.txn_ends.end() && end->second->outcome == txn_outcome::aborted)
        why += (why.empty() ? "" : "; ") + std::string("its transaction ") + t->second + " was aborted at " +
               std::to_string(end->second->at_ms) + " ms";
    }
    if (why.empty()) continue;
    out.push_back({finding_kind::aborted_read, e->partition, e->offset,
                   "read_committed " + seen_by(*e) + " read " + e->value + " at " + at({e->partition, e->offset}) +
                       ": " + why});
  }
}

// Per transaction: what the final read decided of each value it sent,
// against what the producer was told, and all or nothing.
void find_transaction_outcomes(const indexed& ix, std::vector<finding>& out) {
  for (const auto& [txn, values] : ix.txn_values) {
    auto end = ix.txn_ends.find(txn);
    const txn_outcome told = end == ix.txn_ends.end() ? txn_outcome::unknown : end->second->outcome;
    std::vector<std::string> committed, other;
    for (const auto& value : values) {
      auto status = ix.final_status.find(value);
      const bool is_committed = status != ix.final_status.end() && status->second == txn_status::committed;
      (is_committed ? committed : other).push_back(value);
      const position where = ix.final_at.count(value) ? ix.final_at.at(value).front() : position{-1, -1};
      const std::string decided =
          status == ix.final_status.end() ? "absent from the final read" : std::string(status_name(status->second));
      if (told == txn_outcome::aborted && is_committed)
        out.push_back({finding_kind::wrong_outcome, where.first, where.second,
                       value + " of transaction " + txn + ", which its producer aborted, is committed at " + at(where)});
      if (told == txn_outcome::committed && !is_committed && status != ix.final_status.end())
        out.push_back({finding_kind::wrong_outcome, where.first, where.second,
                       value + " of transaction " + txn + ", which its producer committed, is " + decided + " at " +
                           at(where)});
      // (An acknowledged value missing is find_lost's.)
      if (told == txn_outcome::committed && status == ix.final_status.end() && !ix.acks.count(value)) {
        const event* send = ix.sends.at(value);
        out.push_back({finding_kind::lost, send->partition, -1,
                       value + " of transaction " + txn + ", committed at " + std::to_string(end->second->at_ms) +
                           " ms, is not in the final read; " + final_range(ix, send->partition)});
      }
    }
    if (committed.empty() || other.empty()) continue;
    std::string detail = "transaction " + txn + " (" + outcome_name(told) + " by its producer):";
    for (const auto& v : committed) detail += " " + v + " committed;";
    for (const auto& v : other) {
      auto status = ix.final_status.find(v);
      detail += " " + v + " " +
                (status == ix.final_status.end() ? std::string("absent") : std::string(status_name(status->second))) +
                ";";
    }
    const position where = ix.final_at.at(committed.front()).front();
    out.push_back({finding_kind::partial_transaction, where.first, where.second, detail});
  }
}

// A group's members together read each partition from where they start
// up: a record of the final read below the highest offset the group read
// in its partition, read by none of its members, was skipped. Its
// positions come from offsets its members committed, which never pass
// what they read (auto commit stores a record's offset once it is
// returned), and any reset goes back to the earliest offset, so a gap is
// a record the group lost: an assignment that started past a committed
// position, or a fetch that left records out. A read_committed group
// skips aborted (and undecided) records by design; those are left out.
void find_skipped(const indexed& ix, std::vector<finding>& out) {
  std::map<std::string, bool> committed_only;
  for (const auto& [consumer, e] : ix.member_of) committed_only[e->value] = e->read_committed;
  for (const auto& [group, partitions] : ix.group_reads) {
    for (const auto& [partition, offsets] : partitions) {
      auto log = ix.final_log.find(partition);
      if (log == ix.final_log.end() || offsets.empty()) continue;
      const int64_t highest = *offsets.rbegin();
      for (auto it = log->second.begin(); it != log->second.end() && it->first < highest; ++it) {
        if (offsets.count(it->first)) continue;
        if (committed_only[group]) {
          auto status = ix.final_status.find(it->second);
          if (status != ix.final_status.end() && (status->second == txn_status::aborted ||
                                                   status->second == txn_status::open))
            continue;
        }
        out.push_back({finding_kind::skipped, partition, it->first,
                       it->second + " at " + at({partition, it->first}) + " was read by no member of the group " +
                           group + ", which read the partition up to offset " + std::to_string(highest)});
      }
    }
  }
}

void find_unknown_values(const indexed& ix, std::vector<finding>& out) {
  for (const auto& [value, positions] : ix.read_at) {
    if (ix.sends.count(value)) continue;
    const auto& [pos, who] = *positions.begin();
    out.push_back({finding_kind::unknown_value, pos.first, pos.second,
                   "\"" + value + "\" read at " + at(pos) + " by " + who.text() + " was never sent"});
  }
}

}  // namespace

std::string make_value(int producer, int64_t seq) {
  return "p" + std::to_string(producer) + "-" + std::to_string(seq);
}

std::optional<value_id> parse_value(std::string_view text) {
  if (text.size() < 4 || text[0] != 'p') return std::nullopt;
  const auto dash = text.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  value_id id;
  const char* begin = text.data();
  auto [p_end, p_err] = std::from_chars(begin + 1, begin + dash, id.producer);
  auto [s_end, s_err] = std::from_chars(begin + dash + 1, begin + text.size(), id.seq);
  if (p_err != std::errc{} || p_end != begin + dash || s_err != std::errc{} || s_end != begin + text.size() ||
      id.producer < 0 || id.seq < 0)
    return std::nullopt;
  return id;
}

history::history() : start_ms_(now_ms()) {}

void history::add(event e) {
  std::lock_guard lock(mutex_);
  e.at_ms = now_ms() - start_ms_;
  events_.push_back(std::move(e));
}

void history::send(const std::string& value, int32_t partition, const std::string& txn) {
  event e;
  e.kind = event::type::send;
  e.value = value;
  e.partition = partition;
  e.txn = txn;
  add(std::move(e));
}

void history::txn_end(const std::string& txn, txn_outcome outcome, const std::string& detail) {
  event e;
  e.kind = event::type::txn_end;
  e.value = txn;
  e.outcome = outcome;
  e.error = detail;
  add(std::move(e));
}

void history::ack(const std::string& value, int32_t partition, int64_t offset) {
  event e;
  e.kind = event::type::ack;
  e.value = value;
  e.partition = partition;
  e.offset = offset;
  add(std::move(e));
}

void history::fail(const std::string& value, const std::string& error) {
  event e;
  e.kind = event::type::fail;
  e.value = value;
  e.error = error;
  add(std::move(e));
}

void history::indeterminate(const std::string& value, const std::string& error) {
  event e;
  e.kind = event::type::indeterminate;
  e.value = value;
  e.error = error;
  add(std::move(e));
}

void history::rebalance(int consumer, int generation, std::vector<int32_t> assignment) {
  event e;
  e.kind = event::type::rebalance;
  e.consumer = consumer;
  e.generation = generation;
  e.assignment = std::move(assignment);
  add(std::move(e));
}

void history::read(int consumer, int generation, int32_t partition, int64_t offset, const std::string& value,
                   bool read_committed) {
  event e;
  e.kind = event::type::read;
  e.read_committed = read_committed;
  e.consumer = consumer;
  e.generation = generation;
  e.partition = partition;
  e.offset = offset;
  e.value = value;
  add(std::move(e));
}

void history::final_read(int32_t partition, int64_t offset, const std::string& value, batch_origin origin,
                         txn_status status) {
  event e;
  e.kind = event::type::final_read;
  e.status = status;
  e.partition = partition;
  e.offset = offset;
  e.value = value;
  e.origin = origin;
  add(std::move(e));
}

void history::member(int consumer, const std::string& group, bool read_committed) {
  event e;
  e.kind = event::type::member;
  e.consumer = consumer;
  e.value = group;
  e.read_committed = read_committed;
  add(std::move(e));
}

void history::epoch_bump(int64_t producer_id, int16_t epoch, const std::string& why) {
  event e;
  e.kind = event::type::epoch_bump;
  e.origin.producer_id = producer_id;
  e.origin.producer_epoch = epoch;
  e.error = why;
  add(std::move(e));
}

void history::client_reset(int consumer, int32_t partition, int64_t offset, const std::string& why) {
  event e;
  e.kind = event::type::client_reset;
  e.consumer = consumer;
  e.partition = partition;
  e.offset = offset;
  e.error = why;
  add(std::move(e));
}

std::vector<event> history::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::string wall_clock(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d,%03d UTC", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

void history::write(std::ostream& out) const {
  std::lock_guard lock(mutex_);
  out << "history began at " << wall_clock(started_) << "; times below are from then\n";
  for (const auto& e : events_) {
    out << e.at_ms << "ms ";
    switch (e.kind) {
      case event::type::send:
        out << "send " << e.value << " partition " << e.partition;
        if (!e.txn.empty()) out << " transaction " << e.txn;
        break;
      case event::type::txn_end:
        out << "txn-end " << e.value << " " << outcome_name(e.outcome);
        if (!e.error.empty()) out << " (" << e.error << ")";
        break;
      case event::type::ack: out << "ack " << e.value << " partition " << e.partition << " offset " << e.offset; break;
      case event::type::fail: out << "fail " << e.value << " " << e.error; break;
      case event::type::indeterminate: out << "indeterminate " << e.value << " " << e.error; break;
      case event::type::rebalance:
        out << "rebalance consumer " << e.consumer << " generation " << e.generation << " partitions";
        for (auto p : e.assignment) out << " " << p;
        break;
      case event::type::read:
        out << "read consumer " << e.consumer << " generation " << e.generation << " partition " << e.partition
            << " offset " << e.offset << " " << e.value << (e.read_committed ? " read_committed" : "");
        break;
      case event::type::client_reset:
        out << "client-reset consumer " << e.consumer << " partition " << e.partition << " at offset " << e.offset
            << " (" << e.error << ")";
        break;
      case event::type::epoch_bump:
        out << "epoch-bump producer id " << e.origin.producer_id << " to epoch " << e.origin.producer_epoch << " ("
            << e.error << ")";
        break;
      case event::type::member:
        out << "member consumer " << e.consumer << " group " << e.value << (e.read_committed ? " read_committed" : "");
        break;
      case event::type::final_read:
        out << "final " << e.value << " partition " << e.partition << " offset " << e.offset << " ("
            << origin_text(e.origin) << ")";
        if (e.status != txn_status::none) out << " " << status_name(e.status);
        break;
    }
    out << "\n";
  }
}

std::optional<offset_reset_line> parse_offset_reset(std::string_view line) {
  // "<topic> [<partition>]: offset reset (at offset <offset>, broker <id>) to ..."
  if (line.find("Offset out of range") == std::string_view::npos) return std::nullopt;
  const auto marker = line.find("]: offset reset (at offset ");
  if (marker == std::string_view::npos) return std::nullopt;
  const auto bracket = line.rfind(" [", marker);
  if (bracket == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view text, auto& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() ? static_cast<size_t>(end - text.data()) : 0;
  };
  offset_reset_line r;
  const std::string_view partition = line.substr(bracket + 2, marker - bracket - 2);
  if (number(partition, r.partition) != partition.size()) return std::nullopt;
  std::string_view rest = line.substr(marker + std::string_view("]: offset reset (at offset ").size());
  const size_t used = number(rest, r.offset);
  if (!used) return std::nullopt;
  rest = rest.substr(used);
  constexpr std::string_view broker = ", broker ";
  if (rest.substr(0, broker.size()) != broker) return std::nullopt;
  rest = rest.substr(broker.size());
  if (!number(rest, r.broker)) return std::nullopt;
  return r;
}

std::optional<std::string> parse_epoch_bump_reason(std::string_view line) {
  if (line.find("Beginning partition drain") == std::string_view::npos ||
      line.find(" epoch bump ") == std::string_view::npos)
    return std::nullopt;
  const auto colon = line.rfind(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  return std::string(line.substr(colon + 2));
}

std::optional<epoch_bump_line> parse_epoch_bumped(std::string_view line) {
  constexpr std::string_view marker = "bumped epoch to PID{Id:";
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + marker.size());
  epoch_bump_line r;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), r.producer_id);
  if (ec != std::errc()) return std::nullopt;
  rest = rest.substr(static_cast<size_t>(end - rest.data()));
  constexpr std::string_view epoch = ",Epoch:";
  if (rest.substr(0, epoch.size()) != epoch) return std::nullopt;
  rest = rest.substr(epoch.size());
  auto [end2, ec2] = std::from_chars(rest.data(), rest.data() + rest.size(), r.epoch);
  if (ec2 != std::errc() || end2 == rest.data() + rest.size() || *end2 != '}') return std::nullopt;
  return r;
}

const char* to_string(finding_kind k) {
  switch (k) {
    case finding_kind::lost: return "lost";
    case finding_kind::duplicate: return "duplicate";
    case finding_kind::out_of_order: return "out-of-order";
    case finding_kind::inconsistent_offset: return "inconsistent-offset";
    case finding_kind::position_backwards: return "position-backwards";
    case finding_kind::unknown_value: return "unknown-value";
    case finding_kind::aborted_read: return "aborted-read";
    case finding_kind::wrong_outcome: return "wrong-outcome";
    case finding_kind::partial_transaction: return "partial-transaction";
    case finding_kind::skipped: return "skipped";
  }
  return "?";
}

check_result check(const std::vector<event>& events) {
  check_result r;
  const indexed ix = index_of(events, r.counts);
  find_lost(ix, r.findings);
  find_duplicates(ix, r);
  find_out_of_order(ix, r.findings);
  find_inconsistent_offsets(ix, r.findings);
  std::map<int32_t, int64_t> log_end;  // partition → one past the final read's last offset
  for (const auto& [partition, log] : ix.final_log)
    if (!log.empty()) log_end[partition] = log.rbegin()->first + 1;
  find_positions_backwards(events, std::move(log_end), r);
  find_unknown_values(ix, r.findings);
  find_skipped(ix, r.findings);
  find_aborted_reads(ix, r.findings);
  find_transaction_outcomes(ix, r.findings);
  return r;
}

std::map<finding_kind, int64_t> check_result::by_kind() const {
  std::map<finding_kind, int64_t> out;
  for (const auto& f : findings) ++out[f.kind];
  return out;
}

std::string check_result::report(size_t max_per_kind) const {
  std::ostringstream o;
  const auto& c = counts;
  o << "sent " << c.sent << ", acknowledged " << c.acked << ", failed " << c.failed << ", indeterminate "
    << c.indeterminate << " (" << c.unacked_present << " unacknowledged in the final read); consumers read "
    << c.consumer_reads << " records across " << c.rebalances << " rebalances; the final read has " << c.final_read
    << " records\n";
  if (c.txn_committed + c.txn_aborted + c.txn_unknown > 0)
    o << "transactions: " << c.txn_committed << " committed, " << c.txn_aborted << " aborted, " << c.txn_unknown
      << " of unknown outcome; the final read's markers abort " << c.final_aborted << " records\n";
  if (!explained_resets.empty()) {
    o << explained_resets.size()
      << " consumer resets explained by an out-of-range answer at a valid position (not findings):\n";
    for (size_t i = 0; i < explained_resets.size() && i < max_per_kind; ++i) o << "  " << explained_resets[i] << "\n";
    if (explained_resets.size() > max_per_kind)
      o << "  ... and " << (explained_resets.size() - max_per_kind) << " more\n";
  }
  if (!explained_duplicates.empty()) {
    o << explained_duplicates.size()
      << " duplicates explained by the client's epoch bump after a sequence gap (not findings):\n";
    for (size_t i = 0; i < explained_duplicates.size() && i < max_per_kind; ++i)
      o << "  " << explained_duplicates[i] << "\n";
    if (explained_duplicates.size() > max_per_kind)
      o << "  ... and " << (explained_duplicates.size() - max_per_kind) << " more\n";
  }
  if (findings.empty()) {
    o << "no findings\n";
    return o.str();
  }
  o << findings.size() << " findings:";
  for (const auto& [kind, n] : by_kind()) o << " " << n << " " << to_string(kind) << ";";
  o << "\n";
  std::map<finding_kind, size_t> shown;
  for (const auto& f : findings) {
    if (shown[f.kind]++ >= max_per_kind) continue;
    o << "  [" << to_string(f.kind) << "] " << f.detail << "\n";
  }
  for (const auto& [kind, n] : shown)
    if (n > max_per_kind) o << "  ... and " << (n - max_per_kind) << " more " << to_string(kind) << "\n";
  return o.str();
}

}  // namespace hw::chaos
