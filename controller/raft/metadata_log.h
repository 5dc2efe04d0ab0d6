#pragma once
// The `__cluster_metadata` log on disk: `<metadata.log.dir>/__cluster_metadata-0/`
// holding Kafka-format segments of KRaft batches (records with a null key
// and a metadata record frame as value, the batch's partition leader epoch
// being the raft epoch; control batches for leader changes) and the
// `quorum-state` file (who leads which epoch, who this voter voted for).
//
// This is the storage half of the raft quorum: it knows nothing of votes,
// peers or what is committed (the raft core keeps its copy of the entries
// and the high watermark); it stores and returns the batches as given.
//
// Ownership and threads: owned by the raft driver and used on its strand
// only; not thread-safe.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "controller/raft/raft_types.h"
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

  // fdatasyncs everything appended.
  std::error_code flush();

  storage::offset start_offset() const { return log_->log_start_offset(); }
  // Appends the entries' batches exactly as the leader wrote them (offsets,
  // epochs, timestamps): every replica holds the same bytes. The first must
  // start at the log end. Not durable until flush().
  std::error_code append_entries(std::span<const raft::log_entry> entries);
  // Removes every record at or above o (a follower whose log diverged; the
  // raft core never cuts below its high watermark). Durable when it returns.
  std::error_code truncate_to(storage::offset o, int64_t now_ms);
  // Drops the whole log: it restarts empty at `start` (a snapshot installed
  // from the leader covers everything before it).
  std::error_code reset_to(storage::offset start, int64_t now_ms);
  // Deletes what a snapshot ending at o covers (o a batch boundary).
  std::error_code advance_start(storage::offset o, int64_t now_ms);
  // Every batch from the log start, as the raft core keeps them; a batch
  // that does not decode is an error naming it.
  std::error_code read_entries(std::vector<raft::log_entry>* out, std::string* why) const;

  std::error_code close();

 private:
  metadata_log(storage::file_system& fs, std::filesystem::path dir) : fs_(fs), dir_(std::move(dir)) {}

  storage::file_system& fs_;
  std::filesystem::path dir_;
  std::unique_ptr<storage::log> log_;
  quorum_state state_;
};

}  // namespace hw::controller
