#pragma once
// The `__cluster_metadata` log on disk: `<metadata.log.dir>/__cluster_metadata-0/`
// holding Kafka-format segments of KRaft batches (records with a null key
// and a metadata record frame as value, the batch's partition leader epoch
// being the raft epoch; control batches for leader changes) and the
// `quorum-state` file (who leads which epoch, who this voter voted for).
//
// This is the storage half of the raft quorum: it knows nothing of votes or
// peers. It keeps the high watermark (the committed end) that the quorum
// logic hands it, and never returns uncommitted records to a reader.
//
// Ownership and threads: owned by the raft driver and used on its strand
// only; not thread-safe.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "controller/raft/raft_types.h"
#include "protocol/wire/reader.h"
#include "storage/io/file_system.h"
#include "storage/log.h"
#include "storage/types.h"

namespace hw::controller {

inline constexpr std::string_view metadata_topic_name = "__cluster_metadata";
inline constexpr std::string_view metadata_partition_dir = "__cluster_metadata-0";
inline constexpr std::string_view quorum_state_file_name = "quorum-state";

// What `quorum-state` holds (Kafka's QuorumStateData, data_version 1).
struct quorum_state {
  int32_t leader_id = -1;
  int32_t leader_epoch = 0;
  int32_t voted_id = -1;

  bool operator==(const quorum_state&) const = default;
};

// The JSON Kafka writes, and the inverse (unknown fields ignored). Reading
// fails (nullopt) on anything without an integral leaderEpoch.
std::string format_quorum_state(const quorum_state& s);
std::optional<quorum_state> parse_quorum_state(std::string_view json);

// One record of a committed batch as a reader sees it.
struct metadata_log_entry {
  storage::offset offset;
  int32_t epoch = 0;          // the batch's leader epoch
  int64_t append_time_ms = 0;  // the batch's timestamp
  bool control = false;       // a KRaft control record (value is its body; key type in control_type)
  int16_t control_type = -1;
  protocol::bytes_view value;
};

struct metadata_log_options {
  std::filesystem::path metadata_log_dir;
  storage::log_config config;  // metadata.log.segment.bytes etc.
  int64_t now_ms = 0;
};

class metadata_log {
 public:
  // Opens (creating when missing) the partition directory, recovering the
  // log as any partition's, and reads quorum-state (absent: epoch 0, no leader).
  static storage::storage_error open(storage::file_system& fs, const metadata_log_options& options,
                                     std::unique_ptr<metadata_log>* out);
  ~metadata_log();
  metadata_log(const metadata_log&) = delete;
  metadata_log& operator=(const metadata_log&) = delete;

  const quorum_state& state() const { return state_; }
  // Persists a new quorum state atomically and durably before returning.
  std::error_code write_state(const quorum_state& s);

  storage::offset end_offset() const { return log_->log_end_offset(); }
  // The epoch of the last batch in the log (0 when empty).
  int32_t last_epoch() const { return last_epoch_; }
  storage::offset high_watermark() const { return high_watermark_; }
  // The quorum committed up to o (exclusive); never moves backwards and
  // never past the log end.
  void set_high_watermark(storage::offset o);

  // Appends one batch of records (values framed by the caller) at `epoch`;
  // returns the offset of its first record. Not durable until flush().
  std::error_code append(std::span<const std::vector<uint8_t>> values, int32_t epoch, int64_t now_ms,
                         storage::offset* base_offset);
  // Appends a LeaderChangeMessage control batch for `leader` at `epoch`.
  std::error_code append_leader_change(int32_t leader, std::span<const int32_t> voters, int32_t epoch,
                                       int64_t now_ms);
  // fdatasyncs everything appended.
  std::error_code flush();

  // --- raft replication (the driver of a multi-voter quorum) ---------------
  storage::offset start_offset() const { return log_->log_start_offset(); }
  // Appends the entries' batches exactly as the leader wrote them (offsets,
  // epochs, timestamps): every replica holds the same bytes. The first must
  // start at the log end. Not durable until flush().
  std::error_code append_entries(std::span<const raft::log_entry> entries);
  // Removes every record at or above o (a follower whose log diverged); never
  // below the high watermark. Durable when it returns.
  std::error_code truncate_to(storage::offset o, int64_t now_ms);
  // Drops the whole log: it restarts empty at `start` (a snapshot installed
  // from the leader covers everything before it).
  std::error_code reset_to(storage::offset start, int64_t now_ms);
  // Deletes what a snapshot ending at o covers (o a batch boundary).
  std::error_code advance_start(storage::offset o, int64_t now_ms);
  // Every batch from the log start, as the raft core keeps them; a batch
  // that does not decode is an error naming it.
  std::error_code read_entries(std::vector<raft::log_entry>* out, std::string* why) const;

  // Visits committed records in [from, high watermark) in order; stops early
  // when visit returns false. A corrupt batch (which recovery should have
  // cut) is an error.
  std::error_code read_committed(storage::offset from,
                                 const std::function<bool(const metadata_log_entry&)>& visit) const;

  std::error_code close();

 private:
  metadata_log(storage::file_system& fs, std::filesystem::path dir) : fs_(fs), dir_(std::move(dir)) {}
  std::error_code append_batch(std::vector<uint8_t> batch, int32_t epoch, int64_t now_ms,
                               storage::offset* base_offset);

  storage::file_system& fs_;
  std::filesystem::path dir_;
  std::unique_ptr<storage::log> log_;
  quorum_state state_;
  int32_t last_epoch_ = 0;
  storage::offset high_watermark_{0};
};

}  // namespace hw::controller
