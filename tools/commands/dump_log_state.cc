// kafka-dump-log.sh: a segment's .txnindex (aborted transactions) and a
// partition's producer .snapshot files, printed as Kafka's tool prints
// them. A corrupt snapshot is reported on stderr and the run goes on, as in
// Kafka.

#include <ostream>

#include "protocol/messages/producer_snapshot.h"
#include "protocol/records/crc32c.h"
#include "storage/transaction_index.h"
#include "tools/commands/dump_log.h"

namespace hw::tools::dump_log {
namespace {

// The whole file, or nothing when it does not exist.
std::optional<std::vector<uint8_t>> file_bytes(storage::file_system& fs, const std::string& path) {
  std::unique_ptr<storage::file> f;
  uint64_t size = 0;
  if (fs.open(path, storage::open_mode::read_only, &f) || !f || f->size(&size)) return std::nullopt;
  std::vector<uint8_t> out(size);
  size_t got = 0;
  if (size && f->read_at(0, {out.data(), out.size()}, &got))
    throw java_failure("java.io.IOException", "Failed to read " + path);
  out.resize(got);
  return out;
}

// Offset of the producer entries in a snapshot: version int16, crc uint32.
constexpr size_t k_snapshot_entries_at = 6;

std::string optional_long(int64_t v) { return v >= 0 ? "OptionalLong[" + std::to_string(v) + "]" : "OptionalLong.empty"; }

}  // namespace

void dump_txn_index(storage::file_system& fs, const std::string& path, std::ostream& out) {
  name_offset(path);
  const auto bytes = file_bytes(fs, path);
  if (!bytes) return;
  const size_t n = bytes->size() / storage::aborted_txn_size;
  for (size_t i = 0; i < n; ++i) {
    protocol::reader r({bytes->data() + i * storage::aborted_txn_size, storage::aborted_txn_size});
    const int16_t version = r.read_int16();
    const int64_t producer_id = r.read_int64();
    const int64_t first = r.read_int64();
    const int64_t last = r.read_int64();
    const int64_t stable = r.read_int64();
    if (version > 0)
      throw java_failure("org.apache.kafka.common.KafkaException",
                         "Unexpected aborted transaction version " + std::to_string(version) +
                             " in transaction index " + java_absolute_path(path) + ", current version is 0");
    out << "version: " << version << " producerId: " << producer_id << " firstOffset: " << first
        << " lastOffset: " << last << " lastStableOffset: " << stable << '\n';
  }
}

void dump_producer_snapshot(storage::file_system& fs, const std::string& path, std::ostream& out,
                            std::ostream& err) {
  const auto bytes = file_bytes(fs, path);
  if (!bytes) throw java_failure("java.nio.file.NoSuchFileException", java_file_string(path));
  protocol::reader r({bytes->data(), bytes->size()});
  const int16_t version = r.read_int16();
  if (!r.ok()) {
    err << "Snapshot failed schema validation: null\n";
    return;
  }
  if (version != 1) {
    err << "Snapshot failed schema validation: Snapshot contained an unknown file version " << version << '\n';
    return;
  }
  protocol::msg::producer_snapshot snapshot;
  snapshot.decode(r, version);
  if (!r.ok()) {
    err << "Snapshot failed schema validation: null\n";
    return;
  }
  const uint32_t computed = bytes->size() >= k_snapshot_entries_at
                                ? protocol::crc32c({bytes->data() + k_snapshot_entries_at,
                                                    bytes->size() - k_snapshot_entries_at})
                                : 0;
  if (snapshot.crc != computed) {
    err << "Snapshot is corrupt (CRC is no longer valid). Stored crc: " << snapshot.crc
        << ". Computed crc: " << computed << '\n';
    return;
  }
  for (const auto& e : snapshot.producer_entries) {
    out << "producerId: " << e.producer_id << " producerEpoch: " << e.epoch
        << " coordinatorEpoch: " << e.coordinator_epoch
        << " currentTxnFirstOffset: " << optional_long(e.current_txn_first_offset)
        << " lastTimestamp: " << e.timestamp;
    if (e.last_offset >= 0)
      out << " firstSequence: " << decrement_sequence(e.last_sequence, e.offset_delta)
          << " lastSequence: " << e.last_sequence << " lastOffset: " << e.last_offset
          << " offsetDelta: " << e.offset_delta << " timestamp: " << e.timestamp;
    out << '\n';
  }
}

}  // namespace hw::tools::dump_log
