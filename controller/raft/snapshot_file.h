#pragma once
// Metadata snapshots as KRaft stores them:
// `<metadata.log.dir>/__cluster_metadata-0/<end offset>-<epoch>.checkpoint`
// (Kafka's Snapshots.java: the offset zero-padded to 20 digits, the epoch
// to 10). The file is a run of record batches, byte for byte what Kafka's
// RecordsSnapshotWriter writes, so Kafka's tools and a Kafka controller
// read ours and we read theirs:
//   - offsets count from 0 across the whole file (not from the snapshot's
//     end offset); every batch carries the snapshot's epoch as partition
//     leader epoch and the writer's clock as its timestamps;
//   - first a control batch whose first record is a SnapshotHeaderRecord
//     (control type 3) with the timestamp of the last record the snapshot
//     covers (Kafka's writer adds KRaftVersionRecord and VotersRecord to
//     that batch under kraft.version 1; we read them, we do not write them:
//     our voter set is static, kraft.version 0);
//   - then the record values in data batches (null keys), `records_per_append`
//     records at a time, a new batch whenever the next group would push the
//     batch past `max_batch_bytes` (Kafka's SnapshotEmitter appends groups
//     of 1024 to batches of at most KafkaRaftClient.MAX_BATCH_SIZE_BYTES);
//   - last a control batch with one SnapshotFooterRecord (control type 4).
// The bytes of a file are the snapshot_payload the raft core passes around
// (FetchSnapshot serves them as they are).
//
// The file helpers write through storage::file_system: a snapshot is
// written as `<name>.checkpoint.part`, fsynced, renamed and the directory
// fsynced, so a crash leaves either no snapshot or a whole one.
//
// Pure functions and stateless helpers; the raft driver calls them on its
// strand (the file helpers block: run them where blocking disk work goes).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "controller/raft/raft_types.h"
#include "protocol/wire/reader.h"
#include "storage/io/file_system.h"
#include "storage/snapshot_batches.h"

namespace hw::controller::raft {

inline constexpr std::string_view snapshot_suffix = ".checkpoint";
inline constexpr std::string_view partial_snapshot_suffix = ".checkpoint.part";
inline constexpr std::string_view deleted_snapshot_suffix = ".checkpoint.deleted";

// "00000000000000001234-0000000007.checkpoint".
std::string snapshot_file_name(snapshot_id id);

enum class snapshot_file_kind {
  complete,  // <name>.checkpoint
  partial,   // <name>...checkpoint.part: a write that did not finish
  deleted,   // <name>.checkpoint.deleted: Kafka renames before deleting
};

struct snapshot_file_info {
  snapshot_id id;
  snapshot_file_kind kind = snapshot_file_kind::complete;
};

// Any snapshot file name, as Kafka's Snapshots.parse reads one: 20 digits,
// '-', 10 digits, then one of the three suffixes (Kafka's partial files
// have a random part before theirs). Nothing for other names.
std::optional<snapshot_file_info> classify_snapshot_file_name(std::string_view name);

// The id of a complete snapshot's file name only (`.part`, `.deleted` and
// every other name give nothing).
std::optional<snapshot_id> parse_snapshot_file_name(std::string_view name);

// How the batches are cut and stamped (storage/snapshot_batches.h, which
// writes the bytes: Kafka's bootstrap.checkpoint has the same layout).
using snapshot_write_options = storage::snapshot_write_options;

// The file's bytes for the record values (each a framed metadata record).
// A group of records_per_append that alone exceeds max_batch_bytes (Kafka
// would refuse it) is split over batches record by record; a single record
// over the limit gets a batch of its own.
std::vector<uint8_t> encode_snapshot(snapshot_id id, std::span<const std::vector<uint8_t>> record_values,
                                     const snapshot_write_options& options);

struct decoded_snapshot {
  std::string error;  // empty: the bytes are a whole, valid snapshot
  int64_t last_contained_log_timestamp_ms = -1;
  // The KRaftVersionRecord of a kraft.version 1 snapshot.
  std::optional<int16_t> kraft_version;
  // The VotersRecord value of a kraft.version 1 snapshot, undecoded.
  std::optional<std::vector<uint8_t>> voters_record;
  std::vector<std::vector<uint8_t>> records;  // the data record values, in order
  epoch leader_epoch{-1};  // the batches' partition leader epoch

  bool ok() const { return error.empty(); }
};

// Reads a snapshot file's bytes, checking every batch (framing, CRC, magic
// 2, consecutive offsets from 0, one partition leader epoch), that the
// first batch is a control batch led by a SnapshotHeaderRecord, that the
// last is a control batch holding one SnapshotFooterRecord and nothing
// follows it, and that no other control record appears. On failure only
// `error` is meaningful.
decoded_snapshot decode_snapshot(protocol::bytes_view bytes);

// Writes the snapshot durably in dir (which must exist): `.part`, fsync,
// rename, fsync of dir. An existing file of that id is replaced.
std::error_code write_snapshot_file(storage::file_system& fs, const std::filesystem::path& dir, snapshot_id id,
                                    std::span<const uint8_t> bytes);

// The complete snapshots in dir, oldest first (by end offset, then epoch).
// Leftovers of unfinished writes (`.part`) and of deletions (`.deleted`)
// are removed, as Kafka does when it opens the metadata log.
std::error_code list_snapshot_files(storage::file_system& fs, const std::filesystem::path& dir,
                                    std::vector<snapshot_id>* out);

// The bytes of a snapshot file (unchecked: decode_snapshot checks them).
std::error_code read_snapshot_file(storage::file_system& fs, const std::filesystem::path& dir, snapshot_id id,
                                   std::vector<uint8_t>* out);

// Removes the complete snapshots older than keep (by end offset, then
// epoch) and fsyncs dir; keep itself and newer ones stay.
std::error_code delete_snapshot_files_before(storage::file_system& fs, const std::filesystem::path& dir,
                                             snapshot_id keep);

}  // namespace hw::controller::raft
