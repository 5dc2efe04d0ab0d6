#include "storage/producer_state.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdio>
#include <limits>

#include "protocol/messages/producer_snapshot.h"
#include "protocol/records/crc32c.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"
#include "storage/checkpoint_file.h"

namespace hw::storage {
namespace {

using protocol::error_code;

constexpr int32_t int32_max = std::numeric_limits<int32_t>::max();

std::string str(producer_id id) { return std::to_string(id.value); }
std::string str(offset o) { return std::to_string(o.value); }

bool in_sequence(int32_t last_seq, int32_t next_seq) {
  return static_cast<int64_t>(next_seq) == static_cast<int64_t>(last_seq) + 1 || (next_seq == 0 && last_seq == int32_max);
}

producer_append_result failure(error_code code, std::string message) {
  producer_append_result r;
  r.error = code;
  r.message = std::move(message);
  return r;
}

// ProducerStateEntry.maybeUpdateProducerEpoch: a new epoch starts a new window.
void switch_epoch(producer_entry& e, producer_epoch epoch) {
  if (e.epoch == epoch) return;
  e.batches.clear();
  e.epoch = epoch;
}

void add_batch_metadata(producer_entry& e, const batch_metadata& b) {
  if (e.batches.size() == producer_batches_retained) e.batches.pop_front();
  e.batches.push_back(b);
}

}  // namespace

int32_t increment_sequence(int32_t sequence, int32_t increment) {
  if (sequence > int32_max - increment) return increment - (int32_max - sequence) - 1;
  return sequence + increment;
}

int32_t decrement_sequence(int32_t sequence, int32_t decrement) {
  if (sequence < decrement) return int32_max - (decrement - sequence) + 1;
  return sequence - decrement;
}

// --- producer_append ---

producer_append::staged& producer_append::staged_for(producer_id id) {
  auto it = staged_.find(id);
  if (it != staged_.end()) return it->second;
  staged s;
  if (const producer_entry* e = state_->find(id)) s.current = *e;
  s.current.id = id;
  s.updated = s.current;
  s.updated.batches.clear();  // only this append's batches; merged on apply
  return staged_.emplace(id, std::move(s)).first->second;
}

producer_append_result producer_append::add(const producer_batch& b) {
  assert(b.id != no_producer_id);
  // A retry of a batch the producer already got an answer for: Kafka looks
  // only at the committed state, and only for producers' own writes.
  if (origin_ == producer_origin::client && !b.control) {
    if (const producer_entry* e = state_->find(b.id); e && e->epoch == b.epoch) {
      int32_t last_seq = b.last_sequence();
      for (const auto& m : e->batches) {
        if (m.first_sequence() != b.base_sequence || m.last_sequence != last_seq) continue;
        producer_append_result r;
        r.duplicate = m;
        r.message = "duplicate of the batch at offsets " + str(m.first_offset()) + ".." + str(m.last_offset);
        return r;
      }
    }
  }
  staged& s = staged_for(b.id);
  if (b.control) return b.marker ? add_marker(s, b) : producer_append_result{};
  return add_data(s, b);
}

bool producer_append::epoch_rejected(const staged& s, const producer_batch& b, int16_t txn_version,
                                     producer_append_result* r) const {
  producer_epoch current = s.updated.epoch;
  // Transaction version 2 bumps the epoch with every marker.
  bool invalid = txn_version >= 2 ? b.epoch <= current : b.epoch < current;
  if (!invalid) return false;
  // A retried TV2 marker of a transaction that already ended is written again.
  if (txn_version >= 2 && b.epoch == current && !s.updated.current_txn_first_offset) return false;
  if (origin_ == producer_origin::replication) return false;  // the leader accepted it
  *r = failure(error_code::invalid_producer_epoch,
               "epoch of producer " + str(b.id) + " at offset " + str(b.first_offset) + " is " +
                   std::to_string(b.epoch.value) + ", " + (txn_version >= 2 ? "at or below" : "below") +
                   " the last seen epoch " + std::to_string(current.value));
  return true;
}

producer_append_result producer_append::add_data(staged& s, const producer_batch& b) {
  producer_append_result r;
  // A write that would open a transaction here carries the guard the
  // coordinator's verification started with, still held (checked first,
  // as Kafka's analyzeAndValidateProducerState does).
  const bool ongoing = s.updated.current_txn_first_offset && s.updated.epoch == b.epoch;
  if (b.transactional && verification_ && origin_ != producer_origin::replication && !ongoing &&
      (*verification_ == no_verification_guard || state_->verification_guard_of(b.id) != *verification_))
    return failure(error_code::invalid_txn_state, "Record was not part of an ongoing transaction");
  if (b.transactional) transactional_.push_back({b.id, b.epoch, false});
  if (epoch_rejected(s, b, 0, &r)) return r;
  if (origin_ == producer_origin::client) {
    const producer_entry& updated = s.updated;
    if (b.epoch != updated.epoch) {
      if (b.base_sequence != 0 && updated.epoch != no_producer_epoch)
        return failure(error_code::out_of_order_sequence_number,
                       "invalid sequence number " + std::to_string(b.base_sequence) + " for new epoch " +
                           std::to_string(b.epoch.value) + " of producer " + str(b.id) + " (must start at 0)");
    } else {
      int32_t last_seq = !updated.batches.empty()      ? updated.last_sequence()
                         : b.epoch == s.current.epoch ? s.current.last_sequence()
                                                      : no_sequence;
      // With no known epoch (state removed by retention or DeleteRecords) any sequence goes.
      if (s.current.epoch != no_producer_epoch && !in_sequence(last_seq, b.base_sequence))
        return failure(error_code::out_of_order_sequence_number,
                       "out of order sequence number for producer " + str(b.id) + " at offset " +
                           str(b.first_offset) + ": " + std::to_string(b.base_sequence) + " (incoming), " +
                           std::to_string(last_seq) + " (current end)");
    }
  }
  if (s.updated.current_txn_first_offset && !b.transactional)
    return failure(error_code::invalid_txn_state, "expected a transactional write from producer " + str(b.id) +
                                                      " at offset " + str(b.first_offset));
  switch_epoch(s.updated, b.epoch);
  add_batch_metadata(s.updated, {.last_sequence = b.last_sequence(),
                                 .last_offset = b.last_offset,
                                 .offset_delta = static_cast<int32_t>(b.last_offset - b.first_offset),
                                 .timestamp_ms = b.max_timestamp_ms});
  s.updated.last_timestamp_ms = b.max_timestamp_ms;
  if (!s.updated.current_txn_first_offset && b.transactional) {
    s.updated.current_txn_first_offset = b.first_offset;
    started_txns_.emplace_back(b.first_offset, b.id);
  }
  return r;
}

producer_append_result producer_append::add_marker(staged& s, const producer_batch& b) {
  const end_txn_marker& m = *b.marker;
  // The version rides in WriteTxnMarkers, so only replicated markers lack it.
  assert(m.transaction_version != transaction_version_unknown || origin_ == producer_origin::replication);
  int16_t version = m.transaction_version == transaction_version_unknown ? 0 : m.transaction_version;
  producer_append_result r;
  if (epoch_rejected(s, b, version, &r)) return r;
  if (s.updated.coordinator > m.coordinator && origin_ != producer_origin::replication)
    return failure(error_code::transaction_coordinator_fenced,
                   "invalid coordinator epoch for producer " + str(b.id) + " at offset " + str(b.first_offset) +
                       ": " + std::to_string(m.coordinator.value) + " (zombie), " +
                       std::to_string(s.updated.coordinator.value) + " (current)");
  // A marker for an empty transaction does not touch the index or the LSO.
  if (s.updated.current_txn_first_offset) {
    r.completed = completed_txn{b.id, *s.updated.current_txn_first_offset, b.first_offset, !m.commit};
    completed_txns_.push_back(*r.completed);
  }
  transactional_.push_back({b.id, b.epoch, true});
  switch_epoch(s.updated, b.epoch);
  s.updated.coordinator = m.coordinator;
  s.updated.current_txn_first_offset.reset();
  s.updated.last_timestamp_ms = m.timestamp_ms;
  return r;
}

// --- producer_state ---

const producer_entry* producer_state::find(producer_id id) const {
  auto it = producers_.find(id);
  return it == producers_.end() ? nullptr : &it->second;
}

void producer_state::merge(const producer_entry& updated) {
  auto [it, inserted] = producers_.try_emplace(updated.id, updated);
  if (inserted) return;
  producer_entry& e = it->second;
  switch_epoch(e, updated.epoch);
  for (const auto& b : updated.batches) add_batch_metadata(e, b);
  e.coordinator = updated.coordinator;
  e.current_txn_first_offset = updated.current_txn_first_offset;
  e.last_timestamp_ms = updated.last_timestamp_ms;
}

std::vector<finished_txn> producer_state::apply(producer_append&& append) {
  assert(append.state_ == this);
  for (const auto& [id, s] : append.staged_) merge(s.updated);
  for (const auto& [first, id] : append.started_txns_) ongoing_txns_[first] = id;
  // The transaction is open (its first write) or ended (a marker): the
  // guard has done its work either way, unless the marker ends a v2
  // transaction at the epoch the producer's next one is being verified at.
  for (const auto& t : append.transactional_) {
    auto it = verifications_.find(t.id);
    if (it == verifications_.end()) continue;
    const bool next_started = it->second.supports_epoch_bump && t.marker && t.epoch == it->second.epoch;
    if (!next_started) verifications_.erase(it);
  }
  std::vector<finished_txn> finished;
  for (const auto& txn : append.completed_txns_) {
    // Computed before completing, so the transaction does not hide itself.
    finished.push_back({txn, last_stable_offset(txn)});
    complete_txn(txn);
  }
  append.staged_.clear();
  return finished;
}

producer_append_result producer_state::check_and_update(const producer_batch& batch, producer_origin origin) {
  producer_append append = begin_append(origin);
  producer_append_result r = append.add(batch);
  if (r.ok()) apply(std::move(append));
  return r;
}

std::optional<finished_txn> producer_state::update_from_recovered_batch(const producer_batch& batch) {
  producer_append append = begin_append(producer_origin::replication);
  producer_append_result r = append.add(batch);
  assert(r.ok());  // replication rules reject nothing
  std::vector<finished_txn> finished = apply(std::move(append));
  map_end_offset_ = batch.last_offset + 1;
  if (finished.empty()) return std::nullopt;
  return finished.front();
}

void producer_state::complete_txn(const completed_txn& txn) {
  auto it = ongoing_txns_.find(txn.first_offset);
  // Every open transaction was registered when its first batch was applied.
  assert(it != ongoing_txns_.end() && it->second == txn.id);
  ongoing_txns_.erase(it);
  unreplicated_txns_[txn.first_offset] = txn;
}

bool producer_state::has_ongoing_transaction(producer_id id, producer_epoch epoch) const {
  const producer_entry* e = find(id);
  return e && e->current_txn_first_offset && e->epoch == epoch;
}

verification_guard producer_state::start_verification(producer_id id, producer_epoch epoch, bool supports_epoch_bump,
                                                      int64_t now_ms) {
  static std::atomic<verification_guard> next{1};
  auto [it, inserted] = verifications_.try_emplace(id);
  if (inserted) it->second = {next.fetch_add(1, std::memory_order_relaxed), now_ms, epoch, supports_epoch_bump};
  if (epoch > it->second.epoch) it->second.epoch = epoch;
  return it->second.guard;
}

verification_guard producer_state::verification_guard_of(producer_id id) const {
  auto it = verifications_.find(id);
  return it == verifications_.end() ? no_verification_guard : it->second.guard;
}

size_t producer_state::expire(int64_t now_ms, int64_t producer_id_expiration_ms) {
  std::erase_if(verifications_,
                [&](const auto& kv) { return now_ms - kv.second.created_ms >= producer_id_expiration_ms; });
  return std::erase_if(producers_, [&](const auto& kv) {
    const producer_entry& e = kv.second;
    return !e.current_txn_first_offset && now_ms - e.last_timestamp_ms >= producer_id_expiration_ms;
  });
}

int64_t producer_state::oldest_transaction_last_write_ms() const {
  if (ongoing_txns_.empty()) return -1;
  const producer_entry* e = find(ongoing_txns_.begin()->second);
  return e ? e->last_timestamp_ms : -1;
}

std::optional<offset> producer_state::first_undecided_offset() const {
  if (ongoing_txns_.empty()) return std::nullopt;
  return ongoing_txns_.begin()->first;
}

std::optional<offset> producer_state::first_unstable_offset() const {
  std::optional<offset> undecided = first_undecided_offset();
  if (unreplicated_txns_.empty()) return undecided;
  offset unreplicated = unreplicated_txns_.begin()->first;
  return undecided ? std::min(*undecided, unreplicated) : unreplicated;
}

offset producer_state::last_stable_offset(const completed_txn& txn) const {
  for (const auto& [first, id] : ongoing_txns_)
    if (id != txn.id) return first;
  return txn.last_offset + 1;
}

void producer_state::on_high_watermark_updated(offset high_watermark) {
  std::erase_if(unreplicated_txns_, [&](const auto& kv) { return kv.second.last_offset < high_watermark; });
}

void producer_state::on_log_start_offset_incremented(offset log_start_offset) {
  on_high_watermark_updated(log_start_offset);
  if (map_end_offset_ < log_start_offset) map_end_offset_ = log_start_offset;
}

void producer_state::truncate_fully_and_start_at(offset o) {
  producers_.clear();
  ongoing_txns_.clear();
  unreplicated_txns_.clear();
  map_end_offset_ = o;
}

void producer_state::load_snapshot(std::span<const producer_entry> entries, offset snapshot_offset, int64_t now_ms,
                                   int64_t producer_id_expiration_ms) {
  truncate_fully_and_start_at(snapshot_offset);
  for (const auto& e : entries) {
    if (!e.current_txn_first_offset && now_ms - e.last_timestamp_ms >= producer_id_expiration_ms) continue;
    producers_[e.id] = e;
    if (e.current_txn_first_offset) ongoing_txns_[*e.current_txn_first_offset] = e.id;
  }
}

// --- snapshot files ---

namespace {

constexpr int16_t snapshot_version = 1;
constexpr size_t snapshot_crc_at = 2;
constexpr size_t snapshot_entries_at = 6;
constexpr std::string_view snapshot_suffix = ".snapshot";

storage_error corrupt(storage_errc code, const std::filesystem::path& where, const std::string& why) {
  return {make_error_code(code), "corrupt producer snapshot " + where.string() + ": " + why};
}

protocol::msg::producer_snapshot::producer_entry to_wire(const producer_entry& e) {
  protocol::msg::producer_snapshot::producer_entry w;
  w.producer_id = e.id.value;
  w.epoch = e.epoch.value;
  w.last_sequence = e.last_sequence();
  w.last_offset = e.last_data_offset().value;
  w.offset_delta = e.last_offset_delta();
  w.timestamp = e.last_timestamp_ms;
  w.coordinator_epoch = e.coordinator.value;
  w.current_txn_first_offset = e.current_txn_first_offset ? e.current_txn_first_offset->value : -1;
  return w;
}

producer_entry from_wire(const protocol::msg::producer_snapshot::producer_entry& w) {
  producer_entry e;
  e.id = producer_id(w.producer_id);
  e.epoch = producer_epoch(w.epoch);
  e.coordinator = coordinator_epoch(w.coordinator_epoch);
  e.last_timestamp_ms = w.timestamp;
  if (w.current_txn_first_offset >= 0) e.current_txn_first_offset = offset(w.current_txn_first_offset);
  // Kafka keeps the last batch only if there was one.
  if (w.last_offset >= 0)
    e.batches.push_back({w.last_sequence, offset(w.last_offset), w.offset_delta, w.timestamp});
  return e;
}

std::optional<offset> snapshot_offset_of(std::string_view name) {
  if (name.size() <= snapshot_suffix.size() || !name.ends_with(snapshot_suffix)) return std::nullopt;
  std::string_view digits = name.substr(0, name.size() - snapshot_suffix.size());
  int64_t value = 0;
  if (digits.find_first_not_of("0123456789") != std::string_view::npos || !parse_java_int64(digits, &value))
    return std::nullopt;
  return offset(value);
}

}  // namespace

std::string producer_snapshot_name(offset o) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(o.value));
  return std::string(buf) + std::string(snapshot_suffix);
}

std::vector<uint8_t> encode_producer_snapshot(const producer_state& state) {
  protocol::msg::producer_snapshot snap;
  for (const auto& [id, e] : state.producers()) snap.producer_entries.push_back(to_wire(e));
  // Kafka writes hash-map order; sorted output is the same file to a reader and stable for tests.
  std::sort(snap.producer_entries.begin(), snap.producer_entries.end(),
            [](const auto& a, const auto& b) { return a.producer_id < b.producer_id; });
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(snapshot_version);
  snap.encode(w, snapshot_version);  // the CRC field is written as 0 and patched below
  uint32_t crc = protocol::crc32c(std::span<const uint8_t>(out).subspan(snapshot_entries_at));
  w.patch_int32(snapshot_crc_at, static_cast<int32_t>(crc));
  return out;
}

storage_error decode_producer_snapshot(std::span<const uint8_t> bytes, const std::filesystem::path& where,
                                       std::vector<producer_entry>* out) {
  protocol::reader r(bytes);
  int16_t version = r.read_int16();
  if (!r.ok()) return corrupt(storage_errc::malformed, where, "shorter than its header");
  if (version != snapshot_version)
    return corrupt(storage_errc::unsupported_version, where, "unknown file version " + std::to_string(version));
  protocol::msg::producer_snapshot snap;
  snap.decode(r, version);
  if (!r.ok()) return corrupt(storage_errc::malformed, where, std::string("failed schema validation: ") + r.error());
  uint32_t computed = protocol::crc32c(bytes.subspan(snapshot_entries_at));
  if (snap.crc != computed)
    return corrupt(storage_errc::checksum_mismatch, where,
                   "CRC is no longer valid (stored " + std::to_string(snap.crc) + ", computed " +
                       std::to_string(computed) + ")");
  out->clear();
  for (const auto& w : snap.producer_entries) out->push_back(from_wire(w));
  return {};
}

storage_error write_producer_snapshot(file_system& fs, const std::filesystem::path& dir,
                                      const producer_state& state) {
  std::vector<uint8_t> bytes = encode_producer_snapshot(state);
  return write_text_file_atomically(fs, dir / producer_snapshot_name(state.map_end_offset()),
                                    {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

storage_error read_producer_snapshot(file_system& fs, const std::filesystem::path& path,
                                     std::vector<producer_entry>* out) {
  std::string content;
  if (auto err = read_text_file(fs, path, &content)) return err;
  return decode_producer_snapshot({reinterpret_cast<const uint8_t*>(content.data()), content.size()}, path, out);
}

storage_error list_producer_snapshots(file_system& fs, const std::filesystem::path& dir, std::vector<offset>* out) {
  std::vector<std::string> names;
  if (auto ec = fs.list(dir, &names)) return {ec, "cannot list " + dir.string() + ": " + ec.message()};
  out->clear();
  for (const auto& name : names)
    if (auto o = snapshot_offset_of(name)) out->push_back(*o);
  std::sort(out->begin(), out->end());
  return {};
}

storage_error delete_producer_snapshots_below(file_system& fs, const std::filesystem::path& dir, offset o) {
  std::vector<offset> snapshots;
  if (auto err = list_producer_snapshots(fs, dir, &snapshots)) return err;
  for (offset s : snapshots) {
    if (s >= o) break;
    std::filesystem::path p = dir / producer_snapshot_name(s);
    if (auto ec = fs.remove(p)) return {ec, "cannot delete " + p.string() + ": " + ec.message()};
  }
  return {};
}

storage_error load_newest_producer_snapshot(producer_state& state, file_system& fs, const std::filesystem::path& dir,
                                           std::span<const offset> snapshots, int64_t now_ms,
                                           int64_t producer_id_expiration_ms, corrupt_snapshot on_corrupt,
                                           bool* loaded) {
  *loaded = false;
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    std::filesystem::path p = dir / producer_snapshot_name(*it);
    std::vector<producer_entry> entries;
    storage_error err = read_producer_snapshot(fs, p, &entries);
    if (!err) {
      state.load_snapshot(entries, *it, now_ms, producer_id_expiration_ms);
      *loaded = true;
      return {};
    }
    if (err.code.category() != storage_category()) return err;  // an I/O error is not corruption
    // Kafka drops a corrupt snapshot and falls back to an older one.
    if (on_corrupt == corrupt_snapshot::remove)
      if (auto ec = fs.remove(p)) return {ec, "cannot delete " + p.string() + ": " + ec.message()};
  }
  return {};
}

storage_error truncate_and_reload(producer_state& state, file_system& fs, const std::filesystem::path& dir,
                                  offset log_start, offset log_end, int64_t now_ms,
                                  int64_t producer_id_expiration_ms) {
  std::vector<offset> snapshots;
  if (auto err = list_producer_snapshots(fs, dir, &snapshots)) return err;
  std::vector<offset> kept;
  for (offset s : snapshots) {
    if (s > log_end || s <= log_start) {
      std::filesystem::path p = dir / producer_snapshot_name(s);
      if (auto ec = fs.remove(p)) return {ec, "cannot delete " + p.string() + ": " + ec.message()};
    } else {
      kept.push_back(s);
    }
  }
  if (log_end == state.map_end_offset()) {
    state.on_log_start_offset_incremented(log_start);
    return {};
  }
  bool loaded = false;
  if (auto err = load_newest_producer_snapshot(state, fs, dir, kept, now_ms, producer_id_expiration_ms,
                                               corrupt_snapshot::remove, &loaded))
    return err;
  if (loaded) return {};
  state.truncate_fully_and_start_at(log_start);
  return {};
}

}  // namespace hw::storage
