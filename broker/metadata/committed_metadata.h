#pragma once
// What the metadata quorum committed, applied: the raft driver hands it
// each move of the high watermark; it decodes the committed entries, replays
// them into the committed image, and hands them to the commit listeners
// (the controller, the broker's metadata publisher) as one committed_batch.
// It also owns the image's snapshots: at start-up it loads the latest one
// and the log after it; once enough records were committed (or the interval
// passed) it writes a new one and lets the core compact and the log drop
// what it covers; a follower's snapshot fetched from the leader is stored,
// loaded and handed on here. Either way the listeners get a batch marked
// `snapshot` that replaces their image.
//
// Owner/thread: the raft driver, on its strand; listeners are added before
// the driver starts.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/metadata/committed_batch.h"
#include "controller/metadata/image.h"
#include "controller/raft/metadata_log.h"
#include "controller/raft/raft_core.h"
#include "storage/io/file_system.h"

namespace hw::broker {

// The voter set a snapshot holds (a dynamic quorum's: KIP-853), or none.
std::optional<controller::raft::voter_set> snapshot_voters(const std::vector<uint8_t>& bytes);

struct committed_metadata_options {
  std::filesystem::path partition_dir;  // __cluster_metadata-0: the snapshot files
  int64_t snapshot_max_bytes = 20 << 20;     // metadata.log.max.record.bytes.between.snapshots
  int64_t snapshot_interval_ms = 3'600'000;  // metadata.log.max.snapshot.interval.ms (0: none)
};

class committed_metadata {
 public:
  using listener = std::function<void(const committed_batch&)>;
  using clock_fn = std::function<int64_t()>;

  committed_metadata(storage::file_system& fs, committed_metadata_options options, clock_fn now_ms);

  void add_listener(listener l) { listeners_.push_back(std::move(l)); }
  // The committed image at the end of what was last handed to the listeners.
  const std::shared_ptr<const controller::metadata_image>& image() const { return image_; }

  // Start-up: the latest snapshot (cutting a log an installation left
  // whole), then the log entries after it, for the core to start from.
  storage::storage_error load(controller::metadata_log& log, controller::raft::raft_disk_state& disk);
  // Hands the snapshot load() read, if any, to the listeners.
  void deliver_loaded();
  // The high watermark moved to `hw`: the entries of `log` committed since
  // the last call, as one batch.
  void deliver_committed(const controller::raft::raft_log& log, storage::offset hw);
  // A snapshot the core fetched from the leader: loaded, stored, the log
  // reset to its end, older snapshots deleted, handed on. False (logged)
  // when any step fails: the node stops taking part in the quorum.
  bool install(controller::raft::snapshot_id id, const controller::raft::snapshot_payload& bytes,
               controller::metadata_log& log);
  // Writes a snapshot of the committed image once one is due and the
  // applied offset is a batch end of `core`'s log; the core compacts and the
  // log drops what the snapshot covers.
  void maybe_snapshot(controller::raft::raft_core& core, controller::metadata_log& log);

 private:
  // A snapshot's bytes: the image and the records for the listeners.
  bool decode(controller::raft::snapshot_id id, const std::vector<uint8_t>& bytes, committed_batch* out,
              std::string* why);
  void deliver_snapshot(committed_batch batch);

  storage::file_system& fs_;
  committed_metadata_options options_;
  clock_fn now_ms_;
  std::vector<listener> listeners_;
  storage::offset applied_{0};  // committed entries handed on up to here
  // The committed image at applied_, what a snapshot holds.
  std::shared_ptr<const controller::metadata_image> image_;
  std::optional<committed_batch> loaded_;  // by load(), until deliver_loaded()
  int64_t bytes_since_snapshot_ = 0;
  int64_t last_snapshot_ms_ = 0;
};

}  // namespace hw::broker
