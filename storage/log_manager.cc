#include "storage/log_manager.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "storage/checkpoint_file.h"
#include "storage/log_manager_dirs.h"
#include "storage/clean_shutdown.h"
#include "storage/meta_properties.h"

namespace hw::storage {

std::string partition_dir_name(const topic_partition& tp) { return tp.topic + "-" + std::to_string(tp.partition); }

std::optional<topic_partition> parse_partition_dir_name(std::string_view name) {
  size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  int32_t partition = 0;
  std::string_view digits = name.substr(dash + 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  if (!parse_java_int32(digits, &partition) || partition < 0) return std::nullopt;
  return topic_partition{std::string(name.substr(0, dash)), partition};
}

namespace {

std::map<topic_partition, offset> read_offsets(file_system& fs, const std::filesystem::path& p, storage_error* err) {
  std::map<topic_partition, offset> out;
  std::vector<topic_partition_offset> entries;
  storage_error e = read_offset_checkpoint(fs, p, &entries);
  if (e && e.code != std::errc::no_such_file_or_directory) {
    *err = e;
    return out;
  }
  for (const auto& en : entries) out[{en.topic, en.partition}] = en.value;
  return out;
}

}  // namespace

log_manager::log_manager(file_system& fs, const log_manager_config& config)
    : fs_(fs), config_(config), random_(config.random_seed) {}

log_manager::~log_manager() = default;

void log_manager::event(std::string line) {
  std::lock_guard lock(events_mutex_);
  events_.push_back(std::move(line));
}

void log_manager::attach_event_sink(const topic_partition& tp, const std::filesystem::path& dir, partition_log& log) {
  log.mutable_log().set_roll_listener([this, tp](offset new_base) { notify_rolled(tp, new_base); });
  if (!config_.on_log_event) return;
  log.mutable_log().set_event_sink(
      [sink = config_.on_log_event, where = " partition=" + partition_dir_name(tp) + ", dir=" + dir.string() + "] "](
          std::string_view kafka_class, const std::string& line) {
        sink("[" + std::string(kafka_class) + where + line);
      });
}

std::vector<std::string> log_manager::events() const {
  std::lock_guard lock(events_mutex_);
  return events_;
}

storage_error log_manager::start(file_system& fs, const log_manager_config& config, int64_t now_ms,
                                 std::unique_ptr<log_manager>* out) {
  std::unique_ptr<log_manager> m(new log_manager(fs, config));
  for (const auto& p : config.log_dirs) {
    auto d = std::make_unique<dir_state>();
    d->path = p;
    m->dirs_.push_back(std::move(d));
  }
  for (auto& d : m->dirs_) {
    if (auto err = m->start_dir(*d, now_ms)) return err;
  }
  // Dirs load in parallel with each other, each with its own workers.
  std::vector<std::thread> dir_threads;
  for (auto& d : m->dirs_) {
    if (d->offline) continue;
    dir_state* dp = d.get();
    dir_threads.emplace_back([&m, dp, now_ms] { m->load_dir(*dp, now_ms); });
  }
  for (auto& t : dir_threads) t.join();
  if (m->start_error_) return m->start_error_;
  if (auto err = m->settle_found_futures(now_ms)) return err;
  // The marker goes only once every log of the dir is loaded: a crash from
  // here on must recover.
  for (auto& d : m->dirs_) {
    if (d->offline || !d->had_clean_shutdown) continue;
    if (auto err = remove_clean_shutdown_marker(fs, d->path)) {
      m->event("cannot remove the clean-shutdown marker of " + d->path.string() + ": " + err.message);
      m->dir_offline(d->path);
    }
  }
  bool any_online = std::any_of(m->dirs_.begin(), m->dirs_.end(), [](const auto& d) { return !d->offline; });
  if (!any_online) return {std::make_error_code(std::errc::io_error), "every log dir is offline"};
  *out = std::move(m);
  return {};
}

storage_error log_manager::start_dir(dir_state& d, int64_t now_ms) {
  if (!fs_.exists(d.path)) {
    if (auto ec = fs_.create_directories(d.path)) {
      event("log dir " + d.path.string() + " cannot be created (" + ec.message() + "): offline");
      d.offline = true;
      return {};
    }
    event("created log dir " + d.path.string());
  }
  if (auto err = check_identity(d, now_ms)) {
    if (err.code.category() == storage_category() || err.code == std::errc::invalid_argument) return err;
    event("log dir " + d.path.string() + " offline: " + err.message);
    d.offline = true;
    return {};
  }
  d.had_clean_shutdown = has_clean_shutdown_marker(fs_, d.path);
  if (d.had_clean_shutdown) {
    if (auto e = read_clean_shutdown_marker(fs_, d.path)) previous_epoch_ = e;
  }
  storage_error err;
  d.recovery_points = read_offsets(fs_, d.path / recovery_point_checkpoint_name, &err);
  if (!err) d.log_starts = read_offsets(fs_, d.path / log_start_offset_checkpoint_name, &err);
  if (err) {
    // A damaged checkpoint is not fatal: everything is recovered instead.
    event("ignoring a checkpoint of " + d.path.string() + ": " + err.message);
    d.recovery_points.clear();
    d.log_starts.clear();
    d.had_clean_shutdown = false;
  }
  storage_error cleaner_err;
  d.cleaner_offsets = read_offsets(fs_, d.path / cleaner_offset_checkpoint_name, &cleaner_err);
  if (cleaner_err) {
    event("ignoring the cleaner checkpoint of " + d.path.string() + ": " + cleaner_err.message);
    d.cleaner_offsets.clear();
  }
  return {};
}

storage_error log_manager::check_identity(dir_state& d, int64_t) {
  const auto path = d.path / meta_properties_name;
  meta_properties props;
  if (fs_.exists(path)) {
    if (auto err = read_meta_properties(fs_, path, &props)) return err;
    if (props.node && *props.node != config_.node) {
      return {std::make_error_code(std::errc::invalid_argument),
              "log dir " + d.path.string() + " belongs to node.id " + std::to_string(props.node->value) +
                  ", not " + std::to_string(config_.node.value) + " (" + path.string() + ")"};
    }
    if (props.cluster_id && *props.cluster_id != config_.cluster_id) {
      return {std::make_error_code(std::errc::invalid_argument),
              "log dir " + d.path.string() + " belongs to cluster.id " + *props.cluster_id + ", not " +
                  config_.cluster_id + " (" + path.string() + ")"};
    }
    if (props.version == 1 && props.directory_id) {
      d.id = props.directory_id;
      return {};
    }
  }
  props.version = 1;
  props.node = config_.node;
  props.cluster_id = config_.cluster_id;
  if (!props.directory_id) props.directory_id = protocol::uuid::random(random_);  // version 4: never a reserved id
  if (auto err = write_meta_properties(fs_, path, props, std::chrono::system_clock::now())) return err;
  d.id = props.directory_id;
  return {};
}

void log_manager::load_dir(dir_state& d, int64_t now_ms) {
  std::vector<std::string> names;
  if (auto ec = fs_.list(d.path, &names)) {
    event("cannot list " + d.path.string() + ": " + ec.message());
    dir_offline(d.path);
    return;
  }
  std::vector<topic_partition> found;
  for (const auto& name : names) {
    auto p = d.path / name;
    if (!fs_.is_directory(p)) continue;
    if (name.ends_with(delete_dir_suffix)) {
      std::lock_guard lock(mutex_);
      pending_deletes_.push_back(p);
      continue;
    }
    if (name.ends_with(future_dir_suffix)) {
      // `<tp>.<uuid>-future`: settled once every dir is loaded.
      const std::string_view stem(name.data(), name.size() - future_dir_suffix.size());
      const size_t dot = stem.rfind('.');
      auto tp = dot == std::string_view::npos ? std::nullopt : parse_partition_dir_name(stem.substr(0, dot));
      std::lock_guard lock(mutex_);
      if (tp) {
        found_futures_.emplace_back(&d, *tp);
        future_names_[{&d, *tp}] = name;
      } else {
        event("ignoring stray directory " + p.string());
      }
      continue;
    }
    // The metadata log lives beside the partitions but belongs to the quorum.
    if (name == metadata_log_dir_name) continue;
    auto tp = parse_partition_dir_name(name);
    if (!tp) {
      event("ignoring stray directory " + p.string());
      continue;
    }
    found.push_back(*tp);
  }

  std::vector<std::unique_ptr<partition_log>> opened(found.size());
  std::vector<storage_error> errors(found.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < found.size(); i = next++) {
      partition_log_options o;
      o.config = config_.default_log_config;
      o.had_clean_shutdown = d.had_clean_shutdown;
      auto rp = d.recovery_points.find(found[i]);
      o.recovery_point = rp == d.recovery_points.end() ? offset(0) : rp->second;
      auto ls = d.log_starts.find(found[i]);
      o.log_start_offset = ls == d.log_starts.end() ? offset(0) : ls->second;
      o.now_ms = now_ms;
      o.jitter_seed = std::hash<std::string>{}(partition_dir_name(found[i]));
      o.producer_id_expiration_ms = config_.producer_id_expiration_ms;
      log_load_report report;
      errors[i] = partition_log::open(fs_, d.path / partition_dir_name(found[i]), o, &opened[i], &report);
      if (!errors[i]) attach_event_sink(found[i], d.path, *opened[i]);
      if (!errors[i] && report.segments_recovered > 0) {
        event("recovered " + partition_dir_name(found[i]) + " in " + d.path.string() + ": " +
              std::to_string(report.segments_recovered) + " segments, " + std::to_string(report.bytes_truncated) +
              " bytes truncated");
      }
    }
  };
  size_t workers = std::clamp<size_t>(static_cast<size_t>(std::max(config_.num_recovery_threads_per_data_dir, 1)), 1,
                                      std::max<size_t>(found.size(), 1));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers; ++i) threads.emplace_back(work);
  for (auto& t : threads) t.join();

  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < found.size(); ++i) {
    if (errors[i]) {
      event("cannot load " + partition_dir_name(found[i]) + " in " + d.path.string() + ": " + errors[i].message);
      d.offline = true;
      continue;
    }
    if (auto it = logs_.find(found[i]); it != logs_.end()) {
      // Kafka refuses to start too: which copy is the partition's history?
      if (!start_error_) {
        start_error_ = {std::make_error_code(std::errc::file_exists),
                        "duplicate log directories for " + partition_dir_name(found[i]) + ": " +
                            it->second.log->dir().string() + " and " + opened[i]->dir().string() +
                            " (a log dir probably failed while a move between dirs was finishing: delete the copy "
                            "in the dir that failed)"};
      }
      continue;
    }
    logs_[found[i]] = entry{std::move(opened[i]), &d, now_ms};
    ++d.partitions;
  }
}

log_manager::dir_state* log_manager::dir_of(const std::filesystem::path& dir) const {
  for (const auto& d : dirs_) {
    if (d->path == dir) return d.get();
  }
  return nullptr;
}

void log_manager::dir_offline(const std::filesystem::path& dir) {
  if (dir_state* d = dir_of(dir)) mark_offline(*d);
}

void log_manager::mark_offline(dir_state& d) {
  if (d.offline.exchange(true)) return;
  event("log dir " + d.path.string() + " is offline");
  if (failure_listener_) failure_listener_(d.path);
}

void log_manager::set_dir_failure_listener(dir_failure_listener listener) { failure_listener_ = std::move(listener); }

std::optional<protocol::uuid> log_manager::directory_id(const std::filesystem::path& dir) const {
  dir_state* d = dir_of(dir);
  return d ? d->id : std::nullopt;
}

std::optional<protocol::uuid> log_manager::directory_of(const topic_partition& tp) const {
  std::lock_guard lock(mutex_);
  auto it = logs_.find(tp);
  if (it == logs_.end()) return std::nullopt;
  return it->second.dir->id;
}

std::vector<protocol::uuid> log_manager::online_directory_ids() const {
  std::vector<protocol::uuid> out;
  for (const auto& d : dirs_)
    if (!d->offline && d->id) out.push_back(*d->id);
  return out;
}

std::vector<protocol::uuid> log_manager::offline_directory_ids() const {
  std::vector<protocol::uuid> out;
  for (const auto& d : dirs_)
    if (d->offline && d->id) out.push_back(*d->id);
  return out;
}

bool log_manager::is_dir_offline(const std::filesystem::path& dir) const {
  dir_state* d = dir_of(dir);
  return d && d->offline.load();
}

bool log_manager::is_offline(const topic_partition& tp) const {
  std::lock_guard lock(mutex_);
  auto it = logs_.find(tp);
  return it != logs_.end() && it->second.dir->offline.load();
}

std::error_code log_manager::note_error(const topic_partition& tp, std::error_code ec) {
  if (!ec) return ec;
  dir_state* d = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = logs_.find(tp);
    if (it != logs_.end() && it->second.log->offline()) d = it->second.dir;
  }
  if (d) dir_offline(d->path);
  return ec;
}

std::shared_ptr<partition_log> log_manager::find(const topic_partition& tp) const {
  std::lock_guard lock(mutex_);
  auto it = logs_.find(tp);
  return it == logs_.end() ? nullptr : it->second.log;
}

std::vector<topic_partition> log_manager::partitions() const {
  std::lock_guard lock(mutex_);
  std::vector<topic_partition> out;
  for (const auto& [tp, e] : logs_) out.push_back(tp);
  return out;
}

storage_error log_manager::create(const topic_partition& tp, const protocol::uuid& topic_id, int64_t now_ms,
                                  std::shared_ptr<partition_log>* out, const protocol::uuid& dir) {
  // The directory is picked (and counted) under the lock; its files are
  // created and synced outside it, so that several partitions are created
  // at once (a topic of many partitions) and nothing else waits on the syncs.
  dir_state* best = nullptr;
  partition_log_options o;
  {
    std::lock_guard lock(mutex_);
    if (auto it = logs_.find(tp); it != logs_.end()) {
      *out = it->second.log;
      return {};
    }
    // Kafka's order: a preferred dir (AlterReplicaLogDirs before the
    // replica existed), the controller's assignment, the emptiest dir.
    if (auto p = preferred_dirs_.find(tp); p != preferred_dirs_.end()) {
      dir_state* preferred = dir_of(p->second);
      if (preferred && !preferred->offline) best = preferred;
      preferred_dirs_.erase(p);
    }
    for (auto& d : dirs_) {
      if (!best && !d->offline && d->id == dir) best = d.get();
    }
    const bool chosen = best != nullptr;
    for (auto& d : dirs_) {
      if (chosen) break;
      if (d->offline) continue;
      if (!best || d->partitions < best->partitions) best = d.get();
    }
    if (!best) return {std::make_error_code(std::errc::io_error), "every log dir is offline"};
    ++best->partitions;
    o.jitter_seed = random_();
  }
  o.config = config_.default_log_config;
  o.had_clean_shutdown = true;
  o.now_ms = now_ms;
  o.producer_id_expiration_ms = config_.producer_id_expiration_ms;
  o.topic_id = topic_id;
  std::unique_ptr<partition_log> log;
  const auto path = best->path / partition_dir_name(tp);
  auto failed = [&](storage_error err, bool dir_failed) {
    std::lock_guard lock(mutex_);
    --best->partitions;
    if (dir_failed) mark_offline(*best);
    return err;
  };
  // Opening creates the partition's directory and syncs the log dir that
  // holds it, so the new entry survives a crash.
  if (auto err = partition_log::open(fs_, path, o, &log))
    return failed(err, err.code.category() != storage_category());
  std::lock_guard lock(mutex_);
  attach_event_sink(tp, best->path, *log);
  std::shared_ptr<partition_log> shared = std::move(log);
  *out = shared;
  logs_[tp] = entry{std::move(shared), best, now_ms};
  return {};
}

storage_error log_manager::remove(const topic_partition& tp) {
  if (auto err = remove_future(tp)) return err;
  entry e;
  {
    std::lock_guard lock(mutex_);
    preferred_dirs_.erase(tp);
    auto it = logs_.find(tp);
    if (it == logs_.end()) return {};
    e = std::move(it->second);
    logs_.erase(it);
    --e.dir->partitions;
  }
  if (auto err = retire(tp, e)) return err;
  std::lock_guard checkpoint_lock(cleaner_checkpoint_mutex_);
  bool had_entry = false;
  {
    std::lock_guard lock(mutex_);
    had_entry = e.dir->cleaner_offsets.erase(tp) > 0;
  }
  if (had_entry) {
    if (auto err = write_cleaner_checkpoint(*e.dir)) {
      dir_offline(e.dir->path);
      return err;
    }
  }
  return {};
}

storage_error log_manager::retire(const topic_partition& tp, entry& e) {
  const auto from = e.log->dir();
  (void)e.log->close();  // the data goes anyway
  e.log.reset();
  std::string suffix;
  {
    std::lock_guard lock(mutex_);
    suffix = "." + hex_uuid(random_) + std::string(delete_dir_suffix);
  }
  const auto to = e.dir->path / (partition_dir_name(tp) + suffix);
  if (auto ec = fs_.rename(from, to)) {
    dir_offline(e.dir->path);
    return {ec, "cannot rename " + from.string() + ": " + ec.message()};
  }
  if (auto ec = fs_.sync_directory(e.dir->path)) {
    dir_offline(e.dir->path);
    return {ec, "cannot sync " + e.dir->path.string() + ": " + ec.message()};
  }
  std::lock_guard lock(mutex_);
  pending_deletes_.push_back(to);
  return {};
}

std::map<topic_partition, offset> log_manager::cleaner_checkpoints() const {
  std::map<topic_partition, offset> out;
  std::lock_guard lock(mutex_);
  for (const auto& d : dirs_) {
    if (d->offline) continue;
    for (const auto& [tp, o] : d->cleaner_offsets) {
      auto it = logs_.find(tp);
      if (it != logs_.end() && it->second.dir == d.get()) out[tp] = o;
    }
  }
  return out;
}

storage_error log_manager::update_cleaner_checkpoint(const topic_partition& tp, offset first_dirty) {
  std::lock_guard checkpoint_lock(cleaner_checkpoint_mutex_);
  dir_state* d = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = logs_.find(tp);
    if (it == logs_.end()) return {};  // removed meanwhile
    d = it->second.dir;
    d->cleaner_offsets[tp] = first_dirty;
  }
  if (d->offline) return {std::make_error_code(std::errc::io_error), d->path.string() + " is offline"};
  if (auto err = write_cleaner_checkpoint(*d)) {
    dir_offline(d->path);
    return err;
  }
  return {};
}

storage_error log_manager::truncate_cleaner_checkpoint(const topic_partition& tp, offset o) {
  std::optional<offset> current;
  {
    std::lock_guard lock(mutex_);
    auto it = logs_.find(tp);
    if (it == logs_.end()) return {};
    auto c = it->second.dir->cleaner_offsets.find(tp);
    if (c != it->second.dir->cleaner_offsets.end()) current = c->second;
  }
  if (!current || *current <= o) return {};
  return update_cleaner_checkpoint(tp, o);
}

storage_error log_manager::write_cleaner_checkpoint(dir_state& d) {
  std::vector<topic_partition_offset> entries;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [tp, o] : d.cleaner_offsets) entries.push_back({tp.topic, tp.partition, o});
  }
  return write_offset_checkpoint(fs_, d.path / cleaner_offset_checkpoint_name, entries);
}

void log_manager::cleanup_deleted() {
  std::vector<std::filesystem::path> doomed;
  {
    std::lock_guard lock(mutex_);
    doomed.swap(pending_deletes_);
  }
  std::vector<std::filesystem::path> failed;
  for (const auto& p : doomed) {
    if (auto ec = fs_.remove_all(p)) {
      event("cannot delete " + p.string() + ": " + ec.message());
      failed.push_back(p);
    }
  }
  std::lock_guard lock(mutex_);
  pending_deletes_.insert(pending_deletes_.end(), failed.begin(), failed.end());
}

storage_error log_manager::write_checkpoints(dir_state& d) {
  std::vector<topic_partition_offset> recovery;
  std::vector<topic_partition_offset> starts;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [tp, e] : logs_) {
      if (e.dir != &d) continue;
      recovery.push_back({tp.topic, tp.partition, e.log->log().recovery_point()});
      starts.push_back({tp.topic, tp.partition, e.log->log().log_start_offset()});
    }
  }
  if (auto err = write_offset_checkpoint(fs_, d.path / recovery_point_checkpoint_name, recovery)) return err;
  return write_offset_checkpoint(fs_, d.path / log_start_offset_checkpoint_name, starts);
}

storage_error log_manager::checkpoint_all() {
  storage_error first;
  for (auto& d : dirs_) {
    if (d->offline) continue;
    if (auto err = write_checkpoints(*d)) {
      dir_offline(d->path);
      if (!first) first = err;
    }
  }
  return first;
}

storage_error log_manager::flush_entry(entry& e, offset up_to, int64_t now_ms) {
  storage::log& l = e.log->mutable_log();
  if (auto ec = l.flush(up_to)) {
    mark_offline(*e.dir);
    return {ec, "cannot flush " + l.dir().string() + ": " + ec.message()};
  }
  e.last_flush_ms = now_ms;
  return {};
}

storage_error log_manager::flush_dirty(int64_t now_ms) {
  storage_error first;
  std::lock_guard lock(mutex_);
  for (auto& [tp, e] : logs_) {
    if (e.dir->offline) continue;
    const storage::log& l = e.log->log();
    int64_t unflushed = l.log_end_offset() - l.recovery_point();
    bool by_count = unflushed >= config_.flush_interval_messages;
    bool by_time = config_.flush_interval_ms != INT64_MAX && now_ms - e.last_flush_ms >= config_.flush_interval_ms;
    if (unflushed <= 0 || !(by_count || by_time)) continue;
    if (auto err = flush_entry(e, l.log_end_offset(), now_ms); err && !first) first = err;
  }
  return first;
}

storage_error log_manager::flush_to(const topic_partition& tp, offset o, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  auto it = logs_.find(tp);
  if (it == logs_.end() || it->second.dir->offline) return {};
  if (o <= it->second.log->log().recovery_point()) return {};
  return flush_entry(it->second, o, now_ms);
}

void log_manager::set_roll_listener(roll_listener listener) {
  std::lock_guard lock(roll_listener_mutex_);
  roll_listener_ = std::move(listener);
}

void log_manager::notify_rolled(const topic_partition& tp, offset new_base) {
  roll_listener listener;
  {
    std::lock_guard lock(roll_listener_mutex_);
    listener = roll_listener_;
  }
  if (listener) listener(tp, new_base);
}

storage_error log_manager::shutdown(broker_epoch epoch) {
  storage_error first;
  // A move in progress is abandoned: its future log is deleted at the next start.
  {
    std::lock_guard lock(mutex_);
    for (auto& [tp, e] : futures_) (void)e.log->close();
    futures_.clear();
  }
  for (auto& d : dirs_) {
    if (d->offline) continue;
    bool ok = true;
    {
      std::lock_guard lock(mutex_);
      for (auto& [tp, e] : logs_) {
        if (e.dir != d.get()) continue;
        if (auto ec = e.log->close()) {
          ok = false;
          if (!first) first = {ec, "cannot close " + e.log->dir().string() + ": " + ec.message()};
        }
      }
    }
    if (ok) {
      if (auto err = write_checkpoints(*d)) {
        ok = false;
        if (!first) first = err;
      }
    }
    if (ok) {
      if (auto err = write_clean_shutdown_marker(fs_, d->path, epoch)) {
        if (!first) first = err;
      }
    }
  }
  std::lock_guard lock(mutex_);
  logs_.clear();
  return first;
}

}  // namespace hw::storage
