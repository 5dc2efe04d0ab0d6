// The log manager's side of moving a replica between log dirs
// (AlterReplicaLogDirs): preferred dirs, future logs, their promotion in
// place of the current log, and the future logs found at start-up.

#include "storage/log_manager.h"
#include "storage/log_manager_dirs.h"

namespace hw::storage {

void log_manager::set_preferred_dir(const topic_partition& tp, const std::filesystem::path& dir) {
  std::lock_guard lock(mutex_);
  preferred_dirs_[tp] = dir;
}

storage_error log_manager::create_future(const topic_partition& tp, const protocol::uuid& topic_id,
                                         const std::filesystem::path& dir, int64_t now_ms,
                                         std::shared_ptr<partition_log>* out) {
  dir_state* target = dir_of(dir);
  if (!target) return {std::make_error_code(std::errc::no_such_file_or_directory), dir.string() + " is not a log dir"};
  if (target->offline) return {std::make_error_code(std::errc::io_error), "log dir " + dir.string() + " is offline"};
  {
    std::lock_guard lock(mutex_);
    auto current = logs_.find(tp);
    if (current == logs_.end()) return {std::make_error_code(std::errc::no_such_file_or_directory), "no log"};
    if (current->second.dir == target) return {std::make_error_code(std::errc::file_exists), "already there"};
    auto f = futures_.find(tp);
    if (f != futures_.end() && f->second.dir == target) {
      *out = f->second.log;
      return {};
    }
  }
  if (auto err = remove_future(tp)) return err;
  partition_log_options o;
  o.config = config_.default_log_config;
  o.had_clean_shutdown = true;
  o.now_ms = now_ms;
  o.producer_id_expiration_ms = config_.producer_id_expiration_ms;
  o.topic_id = topic_id;
  std::string name;
  {
    std::lock_guard lock(mutex_);
    o.jitter_seed = random_();
    name = partition_dir_name(tp) + "." + hex_uuid(random_) + std::string(future_dir_suffix);
  }
  std::unique_ptr<partition_log> log;
  if (auto err = partition_log::open(fs_, target->path / name, o, &log)) {
    if (err.code.category() != storage_category()) mark_offline(*target);
    return err;
  }
  if (auto ec = log->make_durable()) {
    mark_offline(*target);
    return {ec, "cannot sync " + log->dir().string() + ": " + ec.message()};
  }
  std::shared_ptr<partition_log> shared = std::move(log);
  std::lock_guard lock(mutex_);
  futures_[tp] = entry{shared, target, now_ms};
  *out = std::move(shared);
  return {};
}

std::shared_ptr<partition_log> log_manager::find_future(const topic_partition& tp) const {
  std::lock_guard lock(mutex_);
  auto it = futures_.find(tp);
  return it == futures_.end() ? nullptr : it->second.log;
}

storage_error log_manager::remove_future(const topic_partition& tp) {
  entry e;
  {
    std::lock_guard lock(mutex_);
    auto it = futures_.find(tp);
    if (it == futures_.end()) return {};
    e = std::move(it->second);
    futures_.erase(it);
  }
  if (e.dir->offline) return {};  // nothing can be renamed there; it goes with the dir
  return retire(tp, e);
}

partition_log_options log_manager::reopen_options(const entry& e, int64_t now_ms) {
  partition_log_options o;
  o.config = e.log->log().config();
  o.had_clean_shutdown = true;
  o.recovery_point = e.log->log().log_end_offset();
  o.log_start_offset = e.log->log().log_start_offset();
  o.now_ms = now_ms;
  o.producer_id_expiration_ms = config_.producer_id_expiration_ms;
  std::lock_guard lock(mutex_);
  o.jitter_seed = random_();
  return o;
}

storage_error log_manager::promote_future(const topic_partition& tp, int64_t now_ms,
                                          std::shared_ptr<partition_log>* out) {
  entry future, current;
  {
    std::lock_guard lock(mutex_);
    auto f = futures_.find(tp);
    auto c = logs_.find(tp);
    if (f == futures_.end() || c == logs_.end()) {
      return {std::make_error_code(std::errc::no_such_file_or_directory), "no future log to promote"};
    }
    future = f->second;
    current = c->second;
  }
  dir_state& target = *future.dir;
  const auto future_path = future.log->dir();
  const auto final_path = target.path / partition_dir_name(tp);
  // Kafka's order: the future (closed, so everything it holds is synced)
  // becomes `<tp>` in its dir first; a failure there leaves the current
  // log as it was. Then the current log is retired.
  partition_log_options o = reopen_options(future, now_ms);
  auto target_failed = [&](std::error_code ec, const std::string& what) -> storage_error {
    mark_offline(target);
    std::lock_guard lock(mutex_);
    futures_.erase(tp);
    return {ec, what + ": " + ec.message()};
  };
  if (auto ec = future.log->close()) return target_failed(ec, "cannot close " + future_path.string());
  if (auto ec = fs_.rename(future_path, final_path)) return target_failed(ec, "cannot rename " + future_path.string());
  if (auto ec = fs_.sync_directory(target.path)) return target_failed(ec, "cannot sync " + target.path.string());
  std::unique_ptr<partition_log> log;
  if (auto err = partition_log::open(fs_, final_path, o, &log)) return target_failed(err.code, err.message);
  attach_event_sink(tp, target.path, *log);
  std::shared_ptr<partition_log> shared = std::move(log);
  {
    std::lock_guard lock(mutex_);
    futures_.erase(tp);
    logs_[tp] = entry{shared, &target, now_ms};
    ++target.partitions;
    --current.dir->partitions;
  }
  // The old copy goes; a failure there takes only its dir offline.
  (void)retire(tp, current);
  // The cleaner starts over on the moved log (its old dir's entry goes).
  {
    std::lock_guard checkpoint_lock(cleaner_checkpoint_mutex_);
    bool had_entry = false;
    {
      std::lock_guard lock(mutex_);
      had_entry = current.dir->cleaner_offsets.erase(tp) > 0;
    }
    if (had_entry && !current.dir->offline) {
      if (auto err = write_cleaner_checkpoint(*current.dir)) dir_offline(current.dir->path);
    }
  }
  event("moved " + partition_dir_name(tp) + " from " + current.dir->path.string() + " to " + target.path.string());
  *out = std::move(shared);
  return {};
}

storage_error log_manager::settle_found_futures(int64_t) {
  // A move a restart interrupted starts over when asked for again.
  for (const auto& [d, tp] : found_futures_) {
    const auto path = d->path / future_names_.at({d, tp});
    event("deleting the future log " + path.string() + " of a move a restart interrupted");
    std::lock_guard lock(mutex_);
    pending_deletes_.push_back(path);
  }
  found_futures_.clear();
  future_names_.clear();
  return {};
}

}  // namespace hw::storage
