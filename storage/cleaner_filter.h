#pragma once
// What the cleaner keeps of one record batch (Kafka's LogCleaner
// RecordFilter applied by MemoryRecords.filterTo), as bytes to append to
// the cleaned segment:
//
// Batch level (in offset order, feeding the transaction tracker):
// - a batch holding the last data of an active producer, or a marker
//   carrying its last epoch, stays, emptied if nothing in it survives, so
//   producer state (sequences, epochs) rebuilt from the log is unchanged;
//   so does the last batch of the cleaning round (its offsets bound what
//   the cleaned log covers);
// - a batch of an aborted transaction goes; a discardable marker goes
//   once its delete horizon has passed (the first pass that finds it
//   discardable stamps the horizon, now + delete.retention.ms);
// Record level:
// - a record past the map's latest offset stays; a record without a key
//   goes; otherwise a record stays if it holds the latest offset of its key
//   and has a value, or is a tombstone whose batch has no delete horizon yet
//   or one not yet reached.
// Output: the original bytes when every record stays and no horizon is to
// be set; else a rebuilt batch with the same base offset, last offset
// delta, attributes, producer fields and leader epoch, recompressed with the
// same codec, CRC recomputed, and the delete horizon (KIP-534: attribute
// bit 0x40, base timestamp = horizon) set when it holds a tombstone or is a
// discardable marker; an empty header for a batch kept with no record.
//
// Pure (bytes in, bytes out); used by the cleaner on its thread.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "protocol/records/record_batch.h"
#include "storage/cleaner_offset_map.h"
#include "storage/cleaner_txn.h"
#include "storage/producer_state.h"
#include "storage/types.h"

namespace hw::storage {

// Kafka's LastRecord: an active producer's last data offset (none when its
// last entry in the log is a marker) and epoch.
struct last_producer_record {
  std::optional<offset> last_data_offset;
  producer_epoch epoch;
};
using active_producer_records = std::unordered_map<int64_t, last_producer_record>;

// Kafka's lastRecordsOfActiveProducers, read on the partition strand.
active_producer_records last_records_of(const producer_state& state);

struct cleaner_filter_context {
  const cleaner_offset_map* map = nullptr;
  cleaner_txn_tracker* txns = nullptr;
  const active_producer_records* producers = nullptr;
  int64_t now_ms = 0;
  int64_t delete_retention_ms = 0;
  // The end of this cleaning round (the first uncleanable offset).
  offset upper_bound_offset;
  // The next offset of the last segment of the group being rewritten.
  offset group_end_offset;
};

struct cleaner_filter_stats {
  uint64_t batches_read = 0;
  uint64_t records_read = 0;
  uint64_t bytes_read = 0;
  uint64_t records_retained = 0;
  uint64_t bytes_retained = 0;
  uint64_t keyless_records = 0;  // Kafka's invalidMessage
};

// Appends what is kept of batch to out (nothing when it goes). *index_entries
// receives the aborted transactions whose marker stays in this batch. A
// batch whose header or records cannot be read is an error, and out is
// left as it was.
protocol::batch_error filter_batch(const protocol::record_batch_view& batch, const cleaner_filter_context& ctx,
                                   std::vector<uint8_t>& out, std::vector<aborted_txn>* index_entries,
                                   cleaner_filter_stats* stats);

}  // namespace hw::storage
