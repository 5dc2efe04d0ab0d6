#pragma once
// The logs of one broker across its `log.dirs` (Kafka's LogManager): at
// start-up each dir is created if missing, its meta.properties checked (or
// written), its checkpoints read and its clean-shutdown marker consumed, and
// every `<topic>-<partition>` directory opened in parallel (recovering after
// an unclean shutdown); then creation (in the dir holding the fewest
// partitions), deletion (rename to `<topic>-<partition>.<uuid>-delete`,
// removed later), checkpoints, flushes and a clean shutdown.
//
// Failures: a failed write or fsync in a log, or of a dir's checkpoint,
// takes the whole log dir offline; its partitions answer KAFKA_STORAGE_ERROR
// (is_offline) while the other dirs keep serving. A node.id or cluster.id
// that does not match a dir's meta.properties refuses to start.
//
// Threads: the manager methods (start, remove, checkpoint_all, flush_dirty,
// cleanup_deleted, shutdown) run on the broker's control owner, or the
// blocking pool for the slow ones; create() may run on several threads at
// once for different partitions (its files are written outside the lock);
// find(), is_offline() and
// dir_offline() may be called from any thread (a partition strand reports
// its errors through note_error()). Loading uses its own std::thread workers,
// at most num_recovery_threads_per_data_dir per dir, joined before start()
// returns.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/wire/uuid.h"
#include "storage/io/file_system.h"
#include "storage/log_config.h"
#include "storage/partition_log.h"
#include "storage/types.h"

namespace hw::storage {

struct topic_partition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const topic_partition&) const = default;
  bool operator==(const topic_partition&) const = default;
};

// "<topic>-<partition>", the partition directory's name.
std::string partition_dir_name(const topic_partition& tp);
// The inverse: the partition follows the last '-' (topics may hold '-' and
// '.'); nothing for a name that is not a partition directory.
std::optional<topic_partition> parse_partition_dir_name(std::string_view name);

inline constexpr std::string_view delete_dir_suffix = "-delete";
// `__cluster_metadata-0`: the metadata quorum's log, which the log manager
// leaves alone when it shares a log dir.
inline constexpr std::string_view metadata_log_dir_name = "__cluster_metadata-0";
inline constexpr std::string_view future_dir_suffix = "-future";

struct log_manager_config {
  std::vector<std::filesystem::path> log_dirs;  // log.dirs
  node_id node{0};                              // node.id
  std::string cluster_id;                       // cluster.id
  log_config default_log_config;
  int num_recovery_threads_per_data_dir = 2;  // num.recovery.threads.per.data.dir
  // log.flush.interval.messages / log.flush.interval.ms: by default never
  // (Kafka leaves durability to replication and the page cache).
  int64_t flush_interval_messages = INT64_MAX;
  int64_t flush_interval_ms = INT64_MAX;
  int64_t producer_id_expiration_ms = 86'400'000;
  // Receives each log's writer events (rolls, truncations), prefixed with
  // the partition and its dir as Kafka's log lines are; none: not reported.
  std::function<void(const std::string&)> on_log_event;
  // Seeds directory ids and delete-dir names (tests pass a fixed one).
  uint64_t random_seed = std::random_device{}();
};

class log_manager {
 public:
  // Refuses to start on an identity mismatch, a dir whose meta.properties
  // cannot be read, or a partition found in two dirs; a dir that fails with I/O is taken offline instead
  // (unless every dir is).
  static storage_error start(file_system& fs, const log_manager_config& config, int64_t now_ms,
                             std::unique_ptr<log_manager>* out);
  ~log_manager();
  log_manager(const log_manager&) = delete;
  log_manager& operator=(const log_manager&) = delete;

  // The partition's log, creating it in the online dir whose directory id
  // is `dir` (the controller's assignment) or else in the dir with the
  // fewest partitions.
  // Logs are shared: whoever holds one (a partition, and through it a
  // request waiting across a deletion) can still read it after remove().
  storage_error create(const topic_partition& tp, const protocol::uuid& topic_id, int64_t now_ms,
                       std::shared_ptr<partition_log>* out, const protocol::uuid& dir = {});
  std::shared_ptr<partition_log> find(const topic_partition& tp) const;
  std::vector<topic_partition> partitions() const;
  // Closes the log (no more writes; holders may still read what it held)
  // and renames its directory to `<tp>.<uuid>-delete`; the files go in
  // cleanup_deleted(). A future log of tp goes the same way.
  storage_error remove(const topic_partition& tp);
  // --- moving a replica between dirs (AlterReplicaLogDirs, Kafka's future logs) ---
  // Where tp's log goes when it is created here (Kafka's preferred log
  // dir): before the controller's assignment. Cleared once used.
  void set_preferred_dir(const topic_partition& tp, const std::filesystem::path& dir);
  // An empty future log of tp in dir (`<tp>.<uuid>-future`), to be filled
  // from tp's log and then promoted; a future log in another dir is removed
  // first. The dir must be one of log.dirs, online, and not hold tp's log.
  storage_error create_future(const topic_partition& tp, const protocol::uuid& topic_id,
                              const std::filesystem::path& dir, int64_t now_ms, std::shared_ptr<partition_log>* out);
  std::shared_ptr<partition_log> find_future(const topic_partition& tp) const;
  // Drops tp's future log (closed, renamed `-delete`); nothing when none.
  storage_error remove_future(const topic_partition& tp);
  // The caught-up future log becomes tp's log (on the partition's strand,
  // with nothing appended to either meanwhile): it is closed (everything
  // synced), its directory renamed `<tp>` and opened again as tp's log, then
  // the current log is closed and renamed `<tp>.<uuid>-delete`. A failure
  // before the current log goes leaves it tp's log (the target dir goes
  // offline); a crash between the renames leaves tp in two dirs, which
  // start() refuses, as Kafka does, naming both. Future logs found at
  // start-up are deleted: an interrupted move starts over when asked again.
  storage_error promote_future(const topic_partition& tp, int64_t now_ms, std::shared_ptr<partition_log>* out);

  // Removes the `-delete` directories (at start-up and after remove()).
  void cleanup_deleted();

  // recovery-point-offset-checkpoint and log-start-offset-checkpoint of every online dir.
  storage_error checkpoint_all();

  // cleaner-offset-checkpoint (Kafka's LogCleanerManager checkpoints): each
  // compacted log's first dirty offset, one file per log dir, read at
  // start-up (a damaged file is ignored: its logs are cleaned from their
  // start). Any thread (the cleaner's).
  std::map<topic_partition, offset> cleaner_checkpoints() const;
  // Records tp's first dirty offset and rewrites its dir's file; a failed
  // write takes the dir offline. remove() drops the partition's entry.
  storage_error update_cleaner_checkpoint(const topic_partition& tp, offset first_dirty);
  // Kafka's maybeTruncateCheckpoint: after tp's log is truncated to o, its
  // checkpoint may not stay above o (what follows o is new, dirty data).
  storage_error truncate_cleaner_checkpoint(const topic_partition& tp, offset o);
  // Flushes the logs past log.flush.interval.messages unflushed messages or
  // log.flush.interval.ms since their last flush; that advances recovery points.
  storage_error flush_dirty(int64_t now_ms);
  // Flushes tp's log below o (advancing its recovery point to o); a failed
  // flush takes its dir offline. Nothing for a log removed meanwhile.
  storage_error flush_to(const topic_partition& tp, offset o, int64_t now_ms);
  // Told (on the partition's writer) the base offset of each segment a log
  // rolls; the owner flushes below it soon, off the writer (flush_to), as
  // Kafka does after a roll. Must not block. Empty: nobody is told.
  using roll_listener = std::function<void(const topic_partition&, offset new_base)>;
  void set_roll_listener(roll_listener listener);
  // Every log closed, checkpoints written, then each dir's clean-shutdown marker.
  storage_error shutdown(broker_epoch epoch);

  // A partition's strand reports a failed operation: when the log went
  // offline (an I/O failure), its whole dir goes offline. Returns ec.
  std::error_code note_error(const topic_partition& tp, std::error_code ec);
  void dir_offline(const std::filesystem::path& dir);
  bool is_dir_offline(const std::filesystem::path& dir) const;
  // Directory ids (meta.properties' directory.id, KIP-858): of a dir, of the
  // dir holding tp's log, of the dirs online and offline (a dir that failed
  // before its id was read has none).
  std::optional<protocol::uuid> directory_id(const std::filesystem::path& dir) const;
  std::optional<protocol::uuid> directory_of(const topic_partition& tp) const;
  std::vector<protocol::uuid> online_directory_ids() const;
  std::vector<protocol::uuid> offline_directory_ids() const;
  // Told once when a dir goes offline after start(), from whichever thread
  // saw the failure, possibly under the manager's lock: it must only hand
  // the news on (post), never block or call back in. Set before serving.
  using dir_failure_listener = std::function<void(const std::filesystem::path&)>;
  void set_dir_failure_listener(dir_failure_listener listener);
  // KAFKA_STORAGE_ERROR for this partition.
  bool is_offline(const topic_partition& tp) const;

  // The broker epoch of a clean-shutdown marker found at start-up (KIP-966).
  std::optional<broker_epoch> previous_broker_epoch() const { return previous_epoch_; }
  // Log lines: dirs created, logs recovered, stray dirs ignored, dirs offline.
  std::vector<std::string> events() const;

 private:
  struct dir_state;
  struct entry {
    std::shared_ptr<partition_log> log;
    dir_state* dir = nullptr;
    int64_t last_flush_ms = 0;
  };

  log_manager(file_system& fs, const log_manager_config& config);
  storage_error start_dir(dir_state& d, int64_t now_ms);
  storage_error check_identity(dir_state& d, int64_t now_ms);
  void load_dir(dir_state& d, int64_t now_ms);
  storage_error write_checkpoints(dir_state& d);
  storage_error write_cleaner_checkpoint(dir_state& d);
  // Closes e's log and renames its directory `<tp>.<uuid>-delete` (queued
  // for cleanup_deleted); the dir goes offline when the rename fails.
  storage_error retire(const topic_partition& tp, entry& e);
  // Start-up: the future dirs found are deleted (promote_future).
  storage_error settle_found_futures(int64_t now_ms);
  partition_log_options reopen_options(const entry& e, int64_t now_ms);
  dir_state* dir_of(const std::filesystem::path& dir) const;
  // Marks d offline; the first time, logs it and tells the failure listener.
  void mark_offline(dir_state& d);
  void event(std::string line);
  void attach_event_sink(const topic_partition& tp, const std::filesystem::path& dir, partition_log& log);
  void notify_rolled(const topic_partition& tp, offset new_base);
  // Flushes e's log below up_to; a failure takes its dir offline. Under mutex_.
  storage_error flush_entry(entry& e, offset up_to, int64_t now_ms);

  file_system& fs_;
  log_manager_config config_;
  std::vector<std::unique_ptr<dir_state>> dirs_;
  // A leaf lookup table: partition strands look up while the control owner
  // creates and removes.
  mutable std::mutex mutex_;
  std::map<topic_partition, entry> logs_;
  std::map<topic_partition, entry> futures_;  // future logs (moves between dirs)
  std::map<topic_partition, std::filesystem::path> preferred_dirs_;
  // Future dirs found at start-up, settled once every dir is loaded.
  std::vector<std::pair<dir_state*, topic_partition>> found_futures_;
  std::map<std::pair<dir_state*, topic_partition>, std::string> future_names_;
  std::vector<std::filesystem::path> pending_deletes_;
  // Serialises rewrites of the cleaner-offset-checkpoint files (taken before mutex_).
  std::mutex cleaner_checkpoint_mutex_;
  mutable std::mutex events_mutex_;  // loader threads log too
  std::vector<std::string> events_;
  std::mutex roll_listener_mutex_;  // a leaf: held for a copy of the listener
  roll_listener roll_listener_;
  dir_failure_listener failure_listener_;  // set before serving, then read only
  std::optional<broker_epoch> previous_epoch_;
  storage_error start_error_;  // set by a loader (under mutex_)
  std::mt19937_64 random_;
};

}  // namespace hw::storage
