#include "storage/partition_log.h"

#include <cassert>
#include <limits>
#include <set>

#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "storage/partition_metadata.h"

namespace hw::storage {

producer_batch to_producer_batch(const protocol::record_batch_view& batch, offset first_offset,
                                 int16_t transaction_version) {
  producer_batch b;
  b.id = producer_id(batch.producer_id());
  b.epoch = producer_epoch(batch.producer_epoch());
  b.base_sequence = batch.base_sequence();
  b.first_offset = first_offset;
  b.last_offset = first_offset + batch.last_offset_delta();
  b.max_timestamp_ms = batch.max_timestamp();
  b.transactional = batch.is_transactional();
  b.control = batch.is_control();
  if (!b.control) return b;
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  if (batch.open_records(scratch, 1 << 20, it) != protocol::batch_error::none) return b;
  protocol::record_view r;
  if (!it.next(r)) return b;
  auto marker = protocol::parse_end_txn_marker(r);
  if (!marker) return b;
  b.marker = end_txn_marker{marker->type == protocol::control_record_type::commit,
                            coordinator_epoch(marker->coordinator_epoch), r.timestamp, transaction_version};
  return b;
}

std::error_code partition_log::to_error(const storage_error& err) {
  // Any failed write of the epoch checkpoint or a snapshot is a failed write
  // of this log: it goes offline with the rest of its dir.
  if (err) offline_.store(true, std::memory_order_release);
  return err.code;
}

storage_error partition_log::open(file_system& fs, const std::filesystem::path& dir,
                                  const partition_log_options& options, std::unique_ptr<partition_log>* out,
                                  log_load_report* report) {
  // A new partition's directory, its first segment and partition.metadata
  // are made durable later, together, before its first append
  // (make_durable): until then there is nothing in it a crash could lose
  // that the metadata log would not recreate.
  const bool created = !fs.exists(dir);
  if (created) {
    if (auto ec = fs.create_directories(dir)) return {ec, "cannot create " + dir.string() + ": " + ec.message()};
  }
  std::unique_ptr<partition_log> p(new partition_log(fs, options.producer_id_expiration_ms));
  p->new_directory_ = created;
  if (created) p->durability_pending_.store(true, std::memory_order_release);

  const auto metadata = dir / partition_metadata_name;
  if (fs.exists(metadata)) {
    protocol::uuid id;
    if (auto err = read_partition_metadata(fs, metadata, &id)) return err;
    p->topic_id_ = id;
  } else if (options.topic_id) {
    p->topic_id_ = options.topic_id;
    p->metadata_unwritten_ = true;
    p->durability_pending_.store(true, std::memory_order_release);
  }

  if (auto err = leader_epoch_cache::open(fs, dir, &p->epochs_)) return err;

  // After an unclean shutdown only snapshots at or below the recovery point
  // are trusted; recovery then feeds the batches from there on.
  if (!options.had_clean_shutdown) {
    if (auto err = truncate_and_reload(p->producers_, fs, dir, options.log_start_offset, options.recovery_point,
                                       options.now_ms, options.producer_id_expiration_ms)) {
      return err;
    }
    p->feeding_producers_ = true;
  }

  log_open_options lo;
  lo.recovery_point = options.recovery_point;
  lo.had_clean_shutdown = options.had_clean_shutdown;
  lo.log_start_offset = options.log_start_offset;
  lo.now_ms = options.now_ms;
  lo.jitter_seed = options.jitter_seed;
  lo.defer_directory_sync = created;
  partition_log* self = p.get();
  lo.on_recovered_batch = [self](const protocol::record_batch_view& b) { self->on_recovered(b); };
  log_load_report local_report;
  if (auto ec = log::open(fs, dir, options.config, lo, &p->log_, report ? report : &local_report)) {
    return {ec, "cannot open the log in " + dir.string() + ": " + ec.message()};
  }
  p->feeding_producers_ = false;

  // Cache and log agree: no epoch starts past the log end or before its start.
  leader_epoch_cache& epochs = *p->epochs_;
  if (auto err = epochs.truncate_from_end(p->log_->log_end_offset(), persist::later)) return err;
  if (!epochs.empty()) {
    if (auto err = epochs.truncate_from_start(p->log_->log_start_offset(), persist::later)) return err;
  }
  if (auto err = epochs.flush()) return err;

  if (auto ec = p->reload_producer_state(options.now_ms)) {
    return {ec, "cannot rebuild producer state in " + dir.string() + ": " + ec.message()};
  }
  if (p->reindex_from_) {
    if (auto ec = p->rebuild_transaction_index(*p->reindex_from_, options.now_ms)) {
      return {ec, "cannot rebuild the transaction index in " + dir.string() + ": " + ec.message()};
    }
    p->reindex_from_.reset();
  }
  *out = std::move(p);
  return {};
}

partition_log::~partition_log() = default;

void partition_log::replay_batch(const protocol::record_batch_view& batch) {
  if (batch.producer_id() >= 0) {
    producers_.update_from_recovered_batch(to_producer_batch(batch, offset(batch.base_offset())));
  }
  producers_.update_map_end_offset(offset(batch.next_offset()));
}

void partition_log::on_recovered(const protocol::record_batch_view& batch) {
  if (!reindex_from_) reindex_from_ = offset(batch.base_offset());
  int32_t epoch = batch.partition_leader_epoch();
  auto latest = epochs_->latest_epoch();
  if (epoch >= 0 && (!latest || leader_epoch(epoch) > *latest)) {
    epochs_->assign(leader_epoch(epoch), offset(batch.base_offset()), persist::later);
  }
  if (!feeding_producers_) return;
  offset map_end = producers_.map_end_offset();
  if (offset(batch.last_offset()) < map_end) return;
  if (offset(batch.base_offset()) != map_end) {
    // The snapshot ends before the first segment recovery scanned: replay
    // from the log after loading instead.
    feeding_producers_ = false;
    return;
  }
  replay_batch(batch);
}

std::error_code partition_log::reload_producer_state(int64_t now_ms) {
  if (auto err = truncate_and_reload(producers_, fs_, dir(), log_->log_start_offset(), log_->log_end_offset(),
                                     now_ms, producer_id_expiration_ms_)) {
    return to_error(err);
  }
  return replay_producer_state(now_ms);
}

std::error_code partition_log::replay_producer_state(int64_t) {
  const offset from = std::max(producers_.map_end_offset(), log_->log_start_offset());
  if (auto ec = for_each_batch(from, [this](const protocol::record_batch_view& b) { replay_batch(b); })) return ec;
  producers_.update_map_end_offset(log_->log_end_offset());
  return {};
}

std::error_code partition_log::for_each_batch(offset from,
                                              const std::function<void(const protocol::record_batch_view&)>& visit) {
  const offset end = log_->log_end_offset();
  offset next = from;
  std::vector<uint8_t> buf;
  while (next < end) {
    log_read_result r;
    if (auto ec = log_->read(next, 1 << 20, end, true, &r)) return ec;
    if (r.length == 0) break;
    buf.resize(r.length);
    size_t got = 0;
    if (auto ec = r.log_file->read_at(r.position, buf, &got)) return ec;
    buf.resize(got);
    protocol::record_batch_walker walker(buf);
    protocol::record_batch_view b;
    offset before = next;
    while (walker.next(b)) {
      if (offset(b.last_offset()) < next) continue;
      visit(b);
      next = offset(b.next_offset());
    }
    if (next == before) break;
  }
  return {};
}

// Recovery emptied the `.txnindex` of every segment it scanned, from the
// one starting at `from`. As Kafka's recovery does, the aborts of those
// segments are found again by replaying them into a producer state as it
// stood at `from`: the newest snapshot at or below `from` (none: empty at
// the log start), brought to `from` from the log, then on to the log end.
// Replaying from the live state's snapshot instead would miss every abort
// between `from` and that snapshot, and read_committed consumers would then
// be handed those aborted records as committed.
std::error_code partition_log::rebuild_transaction_index(offset from, int64_t now_ms) {
  const offset start = log_->log_start_offset();
  producer_state scratch;
  scratch.truncate_fully_and_start_at(start);
  std::vector<offset> snapshots;
  if (auto err = list_producer_snapshots(fs_, dir(), &snapshots)) return to_error(err);
  std::erase_if(snapshots, [&](offset s) { return s > from || s < start; });
  bool loaded = false;
  if (auto err = load_newest_producer_snapshot(scratch, fs_, dir(), snapshots, now_ms, producer_id_expiration_ms_,
                                               corrupt_snapshot::keep, &loaded))
    return to_error(err);
  std::vector<aborted_txn> found;
  auto ec = for_each_batch(std::max(scratch.map_end_offset(), start), [&](const protocol::record_batch_view& b) {
    if (b.producer_id() < 0) return;
    auto finished = scratch.update_from_recovered_batch(to_producer_batch(b, offset(b.base_offset())));
    if (finished && finished->txn.aborted && finished->txn.last_offset >= from) {
      const completed_txn& t = finished->txn;
      found.push_back(aborted_txn{t.id, t.first_offset, t.last_offset, finished->last_stable_offset});
    }
  });
  if (ec) return ec;
  // A segment after `from` that recovery did not scan (only one with a bad
  // index before the recovery range is rebuilt alone) keeps its entries.
  std::vector<aborted_txn> kept;
  if (auto kept_ec = log_->collect_aborted_transactions(from, log_->log_end_offset(), &kept)) return kept_ec;
  std::set<int64_t> kept_ends;
  for (const auto& t : kept) kept_ends.insert(t.last_offset.value);
  for (const auto& txn : found) {
    if (kept_ends.count(txn.last_offset.value)) continue;
    if (auto append_ec = log_->append_aborted_txn(txn)) return append_ec;
  }
  return {};
}

std::error_code partition_log::assign_epoch(leader_epoch epoch, offset start) {
  if (epoch.value < 0) return {};
  auto latest = epochs_->latest_epoch();
  if (latest && epoch <= *latest) return {};
  return to_error(epochs_->assign(epoch, start, persist::now));
}

std::optional<leader_epoch_cache::prepared_write> partition_log::prepare_become_leader(leader_epoch epoch) const {
  if (offline() || epoch.value < 0) return std::nullopt;
  auto latest = epochs_->latest_epoch();
  if (latest && epoch <= *latest) return std::nullopt;
  return epochs_->prepare_assign(epoch, log_->log_end_offset());
}

std::error_code partition_log::become_leader(leader_epoch epoch) {
  if (offline()) return make_error_code(log_errc::log_offline);
  return assign_epoch(epoch, log_->log_end_offset());
}

std::error_code partition_log::append_as_leader(std::span<uint8_t> batches, const leader_append_options& options,
                                                partition_append_result* out) {
  append_options o{append_origin::leader, options.epoch, options.now_ms};
  return append(batches, o, options.origin, options.transaction_version, options.verification, out);
}

std::error_code partition_log::append_as_follower(std::span<uint8_t> batches, int64_t now_ms,
                                                  partition_append_result* out) {
  append_options o{append_origin::replication, leader_epoch(0), now_ms};
  return append(batches, o, producer_origin::replication, transaction_version_unknown, std::nullopt, out);
}

std::error_code partition_log::append(std::span<uint8_t> batches, const append_options& options,
                                      producer_origin origin, int16_t transaction_version,
                                      std::optional<verification_guard> verification, partition_append_result* out) {
  *out = {};
  // The directory and partition.metadata are durable before any data.
  if (auto ec = make_durable()) return ec;
  if (offline()) return make_error_code(log_errc::log_offline);
  const bool leader = options.origin == append_origin::leader;
  const bool append_time = log_->config().timestamp_type == message_timestamp_type::log_append_time;
  producer_append staged = producers_.begin_append(origin, verification);
  std::vector<epoch_entry> new_epochs;
  offset next = log_->log_end_offset();
  protocol::record_batch_walker walker(batches);
  protocol::record_batch_view b;
  while (walker.next(b)) {
    offset first = leader ? next : offset(b.base_offset());
    next = first + b.last_offset_delta() + 1;
    leader_epoch epoch = leader ? options.epoch : leader_epoch(b.partition_leader_epoch());
    if (epoch.value >= 0 && (new_epochs.empty() || new_epochs.back().epoch < epoch)) new_epochs.push_back({epoch, first});
    if (b.producer_id() < 0) continue;
    producer_batch pb = to_producer_batch(b, first, transaction_version);
    if (append_time) pb.max_timestamp_ms = options.now_ms;
    producer_append_result r = staged.add(pb);
    if (r.duplicate) {
      out->duplicate = true;
      out->log.first_offset = r.duplicate->first_offset();
      out->log.last_offset = r.duplicate->last_offset;
      return {};
    }
    if (r.error != protocol::error_code::none) {
      out->error = r.error;
      out->error_message = std::move(r.message);
      return {};
    }
  }
  if (walker.error() != protocol::batch_error::none) return make_error_code(log_errc::invalid_records);

  // As Kafka: the epoch cache learns a new epoch before the records land.
  for (const auto& e : new_epochs) {
    if (auto ec = assign_epoch(e.epoch, e.start_offset)) return ec;
  }
  const size_t segments_before = log_->segment_count();
  if (auto ec = log_->append(batches, options, &out->log)) return ec;
  std::error_code snapshot_error;
  // A roll happened before the write: snapshot the state at the new segment's base.
  if (log_->segment_count() > segments_before) {
    producers_.update_map_end_offset(out->log.first_offset);
    snapshot_error = to_error(write_producer_snapshot(fs_, dir(), producers_));
  }
  out->finished_txns = producers_.apply(std::move(staged));
  producers_.update_map_end_offset(out->log.last_offset + 1);
  for (const auto& f : out->finished_txns) {
    if (!f.txn.aborted) continue;
    if (auto ec = log_->append_aborted_txn({f.txn.id, f.txn.first_offset, f.txn.last_offset, f.last_stable_offset})) {
      return ec;
    }
  }
  return snapshot_error;
}

std::error_code partition_log::truncate_to(offset o, int64_t now_ms) {
  if (o >= log_->log_end_offset()) {
    // Nothing to cut, but an epoch that starts at the log end holds no batch:
    // this replica led it without writing before another leader was
    // elected. Left in place it would claim the end of the log for an epoch
    // the leader's history does not give it, and every fetch would diverge
    // again (Kafka's UnifiedLog.truncateTo drops it the same way).
    return to_error(epochs_->truncate_from_end(log_->log_end_offset(), persist::now));
  }
  if (auto err = epochs_->truncate_from_end(o, persist::now)) return to_error(err);
  if (auto ec = log_->truncate_to(o, now_ms)) return ec;
  return reload_producer_state(now_ms);
}

std::error_code partition_log::truncate_fully_and_start_at(offset o, int64_t now_ms) {
  if (auto err = epochs_->clear(persist::now)) return to_error(err);
  if (auto ec = log_->truncate_fully_and_start_at(o, now_ms)) return ec;
  if (auto err = delete_producer_snapshots_below(fs_, dir(), offset(std::numeric_limits<int64_t>::max()))) {
    return to_error(err);
  }
  producers_.truncate_fully_and_start_at(o);
  return {};
}

std::error_code partition_log::advance_log_start_offset(offset o, int64_t now_ms) {
  if (offline()) return make_error_code(log_errc::log_offline);
  if (auto ec = log_->advance_log_start_offset(o, now_ms)) return ec;
  return on_log_start_offset_moved();
}

std::error_code partition_log::on_log_start_offset_moved() {
  const offset start = log_->log_start_offset();
  if (!epochs_->empty()) {
    if (auto err = epochs_->truncate_from_start(start, persist::now)) return to_error(err);
  }
  producers_.on_log_start_offset_incremented(start);
  // Kafka keeps snapshots above the log start only.
  if (auto err = delete_producer_snapshots_below(fs_, dir(), start + 1)) return to_error(err);
  return {};
}

std::error_code partition_log::take_snapshot() {
  producers_.update_map_end_offset(log_->log_end_offset());
  return to_error(write_producer_snapshot(fs_, dir(), producers_));
}

std::error_code partition_log::make_durable() {
  if (!durability_pending_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(durability_mutex_);
  if (!durability_pending_.load(std::memory_order_relaxed)) return {};
  if (offline()) return std::make_error_code(std::errc::io_error);
  auto failed = [this](std::error_code ec) {
    offline_.store(true, std::memory_order_release);
    return ec;
  };
  // The atomic write syncs the file and then the partition's directory,
  // which also makes the first segment's entries durable.
  if (metadata_unwritten_) {
    if (auto err = write_partition_metadata(fs_, dir() / partition_metadata_name, *topic_id_)) return to_error(err);
  } else if (new_directory_) {
    if (auto ec = fs_.sync_directory(dir())) return failed(ec);
  }
  if (new_directory_) {
    if (auto ec = fs_.sync_directory(dir().parent_path())) return failed(ec);
  }
  metadata_unwritten_ = false;
  new_directory_ = false;
  durability_pending_.store(false, std::memory_order_release);
  return {};
}

std::error_code partition_log::close() {
  std::error_code first;
  if (auto ec = make_durable()) first = ec;
  {
    // Nothing is written into the directory after it closed (it may be
    // renamed for deletion next).
    std::lock_guard lock(durability_mutex_);
    durability_pending_.store(false, std::memory_order_release);
  }
  if (!offline()) {
    if (auto ec = take_snapshot()) first = ec;
    if (auto err = epochs_->flush(); err && !first) first = err.code;
  }
  if (auto ec = log_->close(); ec && !first) first = ec;
  return first;
}

}  // namespace hw::storage
