#pragma once
// Producer state of one partition: the idempotence window and the open
// transactions, with Kafka's rules (ProducerStateManager, ProducerAppendInfo,
// ProducerStateEntry in Kafka 4.3), and its `.snapshot` files.
//
// Per producer id the state keeps the producer epoch, the metadata of the
// last 5 batches (last sequence, last offset, offset delta, timestamp), the
// epoch of the transaction coordinator that wrote its last marker, and the
// first offset of its open transaction. Checking a batch:
//  - client batch with the epoch and exact sequence range of a retained
//    batch: a duplicate; the caller answers with the original offsets and
//    does not append (checked against the committed state, as Kafka does);
//  - epoch lower than the producer's: INVALID_PRODUCER_EPOCH (Kafka >= 2.7
//    no longer answers PRODUCER_FENCED on produce);
//  - client batch, same epoch: first sequence must follow the last one
//    (INT32_MAX wraps to 0), else OUT_OF_ORDER_SEQUENCE_NUMBER; a new epoch
//    must start at sequence 0, unless the producer had no known epoch; a
//    producer the partition does not know (its state expired or was removed
//    with the log) is accepted at any sequence, so Kafka never answers
//    UNKNOWN_PRODUCER_ID on produce any more;
//  - a non-transactional batch while a transaction is open: INVALID_TXN_STATE;
//  - a COMMIT/ABORT marker: its epoch may not be lower (transaction version
//    2: must be higher, except a retried marker of an already ended
//    transaction with the same epoch), its coordinator epoch may not be
//    lower (TRANSACTION_COORDINATOR_FENCED); it ends the open transaction and
//    returns it (producer, first offset, marker offset, aborted?) for the
//    transaction index.
// Batches that arrive by replication or are replayed from the log during
// recovery skip the sequence checks and never fail (the leader validated
// them), as Kafka's REPLICATION origin does.
//
// KIP-890's verification guard (Kafka's VerificationGuard): before the
// first transactional write of a producer epoch (no transaction open here)
// the leader asks the transaction coordinator to vouch for it, taking a
// guard from start_verification() first; the append must then carry that
// guard, still held for the producer. Any transactional batch of the
// producer (its first write, a marker) clears the guard (but a v2 marker at
// the guard's own epoch: start_verification), so a write that
// was vouched for just before a marker ended the transaction cannot open a
// transaction the coordinator does not know of (a guard from then no
// longer matches: INVALID_TXN_STATE). Guards are unique in the process, so
// a stale one never matches a later one.
//
// Two-phase use, like Kafka: the log stages all batches of one append with
// begin_append() / producer_append::add(), appends them to the segment, and
// only then apply()s the staged changes; a rejected or failed append is just
// dropped. check_and_update() does both for a single batch.
//
// The pure part (producer_state) does no I/O and takes time as arguments;
// the snapshot functions below it do the file work. Owned by the partition's
// log and used on its strand only; not thread-safe.

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocol/error_code.h"
#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

inline constexpr int producer_batches_retained = 5;
// A marker whose transaction version is not known (a replicated marker: the
// version travels in WriteTxnMarkers, not in the log).
inline constexpr int16_t transaction_version_unknown = -1;

// Sequence arithmetic with Kafka's wrap-around at INT32_MAX.
int32_t increment_sequence(int32_t sequence, int32_t increment);
int32_t decrement_sequence(int32_t sequence, int32_t decrement);

// A verification guard; 0 is none.
using verification_guard = uint64_t;
inline constexpr verification_guard no_verification_guard = 0;

enum class producer_origin {
  client,       // Produce from a producer: full validation
  coordinator,  // group/transaction coordinator writes and WriteTxnMarkers: no sequence checks
  replication,  // fetched from the leader or replayed from the log: nothing rejected
};

// The commit/abort control record of a control batch.
struct end_txn_marker {
  bool commit = false;
  coordinator_epoch coordinator{0};
  int64_t timestamp_ms = 0;  // the control record's timestamp
  int16_t transaction_version = transaction_version_unknown;  // required unless replicated
};

// What the producer state needs of one record batch, offsets already assigned.
struct producer_batch {
  producer_id id;
  producer_epoch epoch;
  int32_t base_sequence = 0;
  offset first_offset;
  offset last_offset;
  int64_t max_timestamp_ms = 0;
  bool transactional = false;
  bool control = false;
  std::optional<end_txn_marker> marker;  // set for a control batch holding a marker; a control batch without one
                                         // (its records were cleaned) changes nothing
  int32_t last_sequence() const { return increment_sequence(base_sequence, static_cast<int32_t>(last_offset - first_offset)); }
};

struct batch_metadata {
  int32_t last_sequence = no_sequence;
  offset last_offset;
  int32_t offset_delta = 0;  // last_offset - first offset of the batch
  int64_t timestamp_ms = 0;
  int32_t first_sequence() const { return decrement_sequence(last_sequence, offset_delta); }
  offset first_offset() const { return last_offset - offset_delta; }
  bool operator==(const batch_metadata&) const = default;
};

struct producer_entry {
  producer_id id;
  producer_epoch epoch = no_producer_epoch;
  coordinator_epoch coordinator{-1};
  int64_t last_timestamp_ms = -1;
  std::optional<offset> current_txn_first_offset;
  std::deque<batch_metadata> batches;  // oldest first, at most producer_batches_retained

  int32_t last_sequence() const { return batches.empty() ? no_sequence : batches.back().last_sequence; }
  offset last_data_offset() const { return batches.empty() ? offset(-1) : batches.back().last_offset; }
  int32_t last_offset_delta() const { return batches.empty() ? 0 : batches.back().offset_delta; }
  bool operator==(const producer_entry&) const = default;
};

// A transaction ended by a marker: the range to put in the transaction index if aborted.
struct completed_txn {
  producer_id id;
  offset first_offset;
  offset last_offset;  // the marker's offset
  bool aborted = false;
  bool operator==(const completed_txn&) const = default;
};

// A completed transaction and the last stable offset to store with it.
struct finished_txn {
  completed_txn txn;
  offset last_stable_offset;
  bool operator==(const finished_txn&) const = default;
};

struct producer_append_result {
  protocol::error_code error = protocol::error_code::none;
  std::string message;                      // why, for the log line and the error message
  std::optional<batch_metadata> duplicate;  // the retained batch this one repeats; do not append it
  std::optional<completed_txn> completed;   // set for a marker that closed a non-empty transaction
  bool ok() const { return error == protocol::error_code::none && !duplicate; }
};

class producer_state;

// The batches of one append, validated against the state and against each
// other; nothing is visible until producer_state::apply().
class producer_append {
 public:
  producer_append_result add(const producer_batch& batch);

 private:
  friend class producer_state;
  struct staged {
    producer_entry current;  // the committed entry when staging began (empty if none)
    producer_entry updated;  // epoch/txn/coordinator as updated; only the new batches
  };
  producer_append(const producer_state& state, producer_origin origin, std::optional<verification_guard> verification)
      : state_(&state), origin_(origin), verification_(verification) {}
  staged& staged_for(producer_id id);
  producer_append_result add_data(staged& s, const producer_batch& b);
  producer_append_result add_marker(staged& s, const producer_batch& b);
  bool epoch_rejected(const staged& s, const producer_batch& b, int16_t txn_version, producer_append_result* r) const;

  const producer_state* state_;
  producer_origin origin_;
  std::optional<verification_guard> verification_;  // set: a write opening a transaction must match it
  std::map<producer_id, staged> staged_;
  struct transactional_batch {
    producer_id id;
    producer_epoch epoch = no_producer_epoch;
    bool marker = false;
  };
  std::vector<transactional_batch> transactional_;  // their producers' guards go (start_verification)
  std::vector<std::pair<offset, producer_id>> started_txns_;
  std::vector<completed_txn> completed_txns_;
};

class producer_state {
 public:
  producer_state() = default;

  // `verification`: the guard the append carries when transactional writes
  // must be verified (transaction.partition.verification.enable); nullopt
  // when they are not. Replicated batches are never checked.
  producer_append begin_append(producer_origin origin,
                               std::optional<verification_guard> verification = std::nullopt) const {
    return producer_append(*this, origin, verification);
  }
  // Makes a staged append visible; ends its transactions in order and
  // returns each with the last stable offset Kafka stores in the index.
  std::vector<finished_txn> apply(producer_append&& append);
  // Stage, and apply if accepted (not for a duplicate or an error).
  producer_append_result check_and_update(const producer_batch& batch, producer_origin origin);
  // Log recovery and rebuild: a batch read back from the log (replication
  // rules); returns the transaction it ended, if any.
  std::optional<finished_txn> update_from_recovered_batch(const producer_batch& batch);

  const producer_entry* find(producer_id id) const;
  const std::unordered_map<producer_id, producer_entry>& producers() const { return producers_; }

  // Whether the producer has a transaction open here at this epoch.
  bool has_ongoing_transaction(producer_id id, producer_epoch epoch) const;
  // The producer's verification guard, created when it has none (for this
  // epoch, and whether the writer is a transactions v2 client, which the
  // coordinator adds the partition for); a later epoch moves the guard on
  // to it. The guard stays until a transactional batch of the producer is
  // applied or the guard expires, except a v2 producer's marker at the
  // guard's epoch: under transactions v2 the markers of a transaction carry
  // the epoch its EndTxn bumped to, the epoch the producer's next
  // transaction is verified at, which must not lose its guard to them
  // (Kafka's UnifiedLog.updateProducers).
  verification_guard start_verification(producer_id id, producer_epoch epoch, bool supports_epoch_bump,
                                        int64_t now_ms);
  verification_guard verification_guard_of(producer_id id) const;

  // Removes producers idle for producer_id_expiration_ms (transactional.id
  // expiry is the coordinator's), except those with an open transaction,
  // and verification guards older than that.
  size_t expire(int64_t now_ms, int64_t producer_id_expiration_ms);

  // The last write time of the producer of the earliest open transaction
  // (Kafka's oldestTxnLastTimestamp); -1 when none is open.
  int64_t oldest_transaction_last_write_ms() const;

  // Transactions and the last stable offset.
  std::optional<offset> first_undecided_offset() const;  // the earliest open transaction
  std::optional<offset> first_unstable_offset() const;   // ... or ended above the high watermark
  offset last_stable_offset(const completed_txn& txn) const;
  void on_high_watermark_updated(offset high_watermark);
  void on_log_start_offset_incremented(offset log_start_offset);

  // The offset up to which the log has been applied (exclusive): snapshots are named by it.
  offset map_end_offset() const { return map_end_offset_; }
  void update_map_end_offset(offset o) { map_end_offset_ = o; }

  void truncate_fully_and_start_at(offset o);
  // Replaces the state with a snapshot's entries, dropping expired ones.
  void load_snapshot(std::span<const producer_entry> entries, offset snapshot_offset, int64_t now_ms,
                     int64_t producer_id_expiration_ms);

 private:
  void merge(const producer_entry& updated);
  void complete_txn(const completed_txn& txn);

  struct verification_entry {
    verification_guard guard = no_verification_guard;
    int64_t created_ms = 0;
    producer_epoch epoch = no_producer_epoch;
    bool supports_epoch_bump = false;
  };
  std::unordered_map<producer_id, producer_entry> producers_;
  std::unordered_map<producer_id, verification_entry> verifications_;
  std::map<offset, producer_id> ongoing_txns_;        // by first offset
  std::map<offset, completed_txn> unreplicated_txns_;  // ended, marker above the high watermark
  offset map_end_offset_{0};
};

// --- .snapshot files: Kafka's ProducerSnapshot v1 ---
// int16 version (1), uint32 CRC-32C of everything after it, int32 count,
// then per producer: int64 id, int16 epoch, int32 last sequence, int64 last
// offset, int32 offset delta, int64 timestamp, int32 coordinator epoch,
// int64 first offset of the open transaction (-1: none). Only the last batch
// of each producer is kept, as in Kafka.

std::string producer_snapshot_name(offset o);  // "%020d.snapshot"
std::vector<uint8_t> encode_producer_snapshot(const producer_state& state);
// A bad version, a short or malformed body or a CRC mismatch is an error naming `where`.
storage_error decode_producer_snapshot(std::span<const uint8_t> bytes, const std::filesystem::path& where,
                                       std::vector<producer_entry>* out);

// Writes <dir>/<map end offset>.snapshot atomically and durably.
storage_error write_producer_snapshot(file_system& fs, const std::filesystem::path& dir,
                                      const producer_state& state);
storage_error read_producer_snapshot(file_system& fs, const std::filesystem::path& path,
                                     std::vector<producer_entry>* out);
// Offsets of the snapshot files in dir, ascending (other names are ignored).
storage_error list_producer_snapshots(file_system& fs, const std::filesystem::path& dir, std::vector<offset>* out);
// Deletes the snapshots strictly below o.
storage_error delete_producer_snapshots_below(file_system& fs, const std::filesystem::path& dir, offset o);

// What loading does with a snapshot that does not decode: delete it (the
// live state's reload, as Kafka does) or leave it (a read-only rebuild).
enum class corrupt_snapshot { remove, keep };
// Loads `state` from the newest of `snapshots` (offsets in dir, ascending)
// that decodes, trying older ones past corrupt files; *loaded says whether
// one was. An I/O error stops the search and is returned.
storage_error load_newest_producer_snapshot(producer_state& state, file_system& fs, const std::filesystem::path& dir,
                                           std::span<const offset> snapshots, int64_t now_ms,
                                           int64_t producer_id_expiration_ms, corrupt_snapshot on_corrupt,
                                           bool* loaded);

// Kafka's truncateAndReload, used on log truncation and at load: deletes the
// snapshots above log_end or at or below log_start; if the state does not
// already end at log_end, reloads it from the latest remaining snapshot (a
// corrupt one is deleted and the next older tried), or empties it at
// log_start. The log then replays its batches from map_end_offset() to
// log_end with update_from_recovered_batch().
storage_error truncate_and_reload(producer_state& state, file_system& fs, const std::filesystem::path& dir,
                                  offset log_start, offset log_end, int64_t now_ms,
                                  int64_t producer_id_expiration_ms);

}  // namespace hw::storage
