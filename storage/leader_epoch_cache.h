#pragma once
// The leader-epoch cache of one partition replica: for every leader epoch in
// its log, the offset of the epoch's first record. It answers
// OffsetsForLeaderEpoch and a leader's DivergingEpoch ("where does epoch E
// end?"), which is how a replica finds the point where its history and the
// leader's part, and it is persisted in the partition directory's
// `leader-epoch-checkpoint`.
//
// Semantics are those of Kafka's LeaderEpochFileCache (4.3):
//  - assign(E, S) ignores an entry that changes nothing: same epoch as the
//    latest with a start offset not below the latest's. Otherwise it first
//    removes, from the end, every entry whose epoch >= E or whose start
//    offset >= S, then appends (E, S). So epochs and start offsets both
//    strictly increase, always (checked by assertions).
//  - end_offset_for(E, LEO): E undefined -> (-1, -1); E the latest epoch ->
//    (E, LEO); E above every epoch -> (-1, -1); E below every epoch ->
//    (E, first start offset); otherwise (largest epoch <= E, start offset of
//    the first epoch > E).
//  - truncate_from_end(O) removes entries starting at or after O;
//    truncate_from_start(O) removes entries starting at or before O and
//    re-adds the last of them starting at O (so the epoch of O is kept).
//  - loading applies assign() to each entry of the file in order, repairing
//    a file that is not monotonic as Kafka does.
//
// Persistence: every change rewrites the checkpoint atomically (temp file,
// fsync, rename, directory fsync) unless the caller passes persist::later,
// which only marks the cache dirty until flush(). Kafka flushes assign()
// synchronously and truncations in the background; passing persist::later
// for truncations gives the same behaviour. A failed write leaves the cache
// changed in memory and dirty (the next flush retries); the caller takes the
// log dir offline as for any failed write.
//
// A new leader's entry may be written off the strand first (a failover
// makes many replicas leaders at once, and each write syncs twice): on the
// strand, prepare_assign() says what the file would hold; on any thread,
// write_prepared() writes it under a temp name of its own; back on the
// strand, note_written() records it, and the assign() that follows finds
// the file already holds its result and writes nothing. A strand write in
// between makes note_written() a no-op (the file may then hold either), so
// assign() writes again.
//
// Owned by the partition's log and used on its strand only; not thread-safe
// (write_prepared() touches no cache state).

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "storage/checkpoint_file.h"
#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

enum class persist {
  now,    // rewrite the checkpoint before returning
  later,  // only mark dirty; the owner calls flush()
};

// The answer to OffsetsForLeaderEpoch for one partition.
struct epoch_end_offset {
  leader_epoch epoch;
  offset end_offset;
  bool operator==(const epoch_end_offset&) const = default;
};

class leader_epoch_cache {
 public:
  // Loads <partition_dir>/leader-epoch-checkpoint; a missing file is an empty
  // cache (nothing is written until the first change).
  static storage_error open(file_system& fs, const std::filesystem::path& partition_dir,
                            std::unique_ptr<leader_epoch_cache>* out);

  leader_epoch_cache(const leader_epoch_cache&) = delete;
  leader_epoch_cache& operator=(const leader_epoch_cache&) = delete;

  // Kafka's assign; *changed (if given) tells whether the entry was taken.
  // Negative epochs or offsets are a caller bug (asserted).
  storage_error assign(leader_epoch epoch, offset start_offset, persist p = persist::now, bool* changed = nullptr);
  // Several assigns, one write (as Kafka's assign(List)).
  storage_error assign(std::span<const epoch_entry> entries, persist p = persist::now);

  storage_error truncate_from_end(offset end_offset, persist p = persist::now);
  storage_error truncate_from_start(offset start_offset, persist p = persist::now);
  storage_error clear(persist p = persist::now);
  // Writes the checkpoint if a change has not been persisted yet.
  storage_error flush();
  bool dirty() const { return dirty_; }

  bool empty() const { return entries_.empty(); }
  const std::vector<epoch_entry>& entries() const { return entries_; }
  std::optional<epoch_entry> latest_entry() const;
  std::optional<epoch_entry> earliest_entry() const;
  std::optional<leader_epoch> latest_epoch() const;
  // The epoch before the latest one.
  std::optional<leader_epoch> previous_epoch() const;
  std::optional<epoch_entry> entry_for(leader_epoch epoch) const;
  // The epoch of the record at `o`: the last entry starting at or before it.
  std::optional<leader_epoch> epoch_for_offset(offset o) const;
  epoch_end_offset end_offset_for(leader_epoch requested, offset log_end_offset) const;

  const std::filesystem::path& checkpoint_path() const { return path_; }

  // What assign(epoch, start_offset) would leave in the file, to be written
  // off the strand; nothing when the assign would change nothing.
  struct prepared_write {
    file_system* fs = nullptr;
    std::filesystem::path path;
    std::vector<epoch_entry> entries;
    uint64_t writes_before = 0;  // the cache's own writes when prepared
  };
  std::optional<prepared_write> prepare_assign(leader_epoch epoch, offset start_offset) const;
  // Any thread: writes the prepared entries (temp name ".prepared.tmp").
  static storage_error write_prepared(const prepared_write& w);
  // On the strand, after write_prepared succeeded.
  void note_written(const prepared_write& w);

 private:
  leader_epoch_cache(file_system& fs, std::filesystem::path path) : fs_(fs), path_(std::move(path)) {}

  bool assign_in_memory(epoch_entry entry);
  storage_error changed(persist p);
  void check_invariants() const;

  file_system& fs_;
  std::filesystem::path path_;
  std::vector<epoch_entry> entries_;  // epochs and start offsets strictly increasing
  bool dirty_ = false;
  // What the file is known to hold (after a write of ours), and how many
  // writes this cache made itself.
  std::optional<std::vector<epoch_entry>> on_disk_;
  uint64_t writes_ = 0;
};

}  // namespace hw::storage
