#pragma once
// The bytes of a KRaft batch file, as Kafka writes both its metadata
// snapshots (RecordsSnapshotWriter) and the bootstrap metadata that
// `kafka-storage.sh format` leaves in every directory it formats
// (bootstrap.checkpoint, BatchFileWriter): offsets from 0 across the file,
// one partition leader epoch on every batch, the writer's clock as
// timestamps;
//   - a control batch whose record is a SnapshotHeaderRecord (type 3);
//   - the record values in data batches (null keys), `records_per_append`
//     at a time, a new batch whenever the next group would push the batch
//     past `max_batch_bytes`;
//   - a control batch with one SnapshotFooterRecord (type 4).
// Here, below the controller, because the storage tool writes
// bootstrap.checkpoint and the controller writes snapshots, and neither may
// include the other. Reading is the controller's (raft/snapshot_file.h).
// Pure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hw::storage {

struct snapshot_write_options {
  // SnapshotHeaderRecord.LastContainedLogTimestamp: the append time of the
  // batch holding the last record the snapshot covers (0 in a bootstrap file).
  int64_t last_contained_log_timestamp_ms = 0;
  // The writer's clock: every batch's base and max timestamp.
  int64_t write_time_ms = 0;
  size_t records_per_append = 1024;   // SnapshotEmitter's group size
  size_t max_batch_bytes = 8u << 20;  // KafkaRaftClient.MAX_BATCH_SIZE_BYTES
  // A dynamic quorum's voter set (KIP-853): this VotersRecord value, after a
  // KRaftVersionRecord of level 1, follows the header in its batch (what
  // Kafka writes under kraft.version 1, and what `kafka-storage.sh format
  // --standalone` writes alone in the bootstrap checkpoint).
  std::optional<std::vector<uint8_t>> voters_record;
};

// The file's bytes for the record values (each a framed metadata record).
// A group of records_per_append that alone exceeds max_batch_bytes (Kafka
// would refuse it) is split over batches record by record; a single record
// over the limit gets a batch of its own.
std::vector<uint8_t> encode_snapshot_batches(int32_t partition_leader_epoch,
                                             std::span<const std::vector<uint8_t>> record_values,
                                             const snapshot_write_options& options);

}  // namespace hw::storage
