// committed_metadata: committed entries replayed and handed on; snapshots
// loaded at start-up, taken when due, installed from the leader.
#include "broker/metadata/committed_metadata.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "controller/metadata/delta.h"
#include "controller/metadata/image_records.h"
#include "controller/raft/raft_batches.h"
#include "controller/raft/raft_quorum_state.h"
#include "controller/raft/snapshot_file.h"

namespace hw::broker {

namespace raft = controller::raft;

committed_metadata::committed_metadata(storage::file_system& fs, committed_metadata_options options,
                                       clock_fn now_ms)
    : fs_(fs),
      options_(std::move(options)),
      now_ms_(std::move(now_ms)),
      image_(std::make_shared<const controller::metadata_image>()) {}

storage::storage_error committed_metadata::load(controller::metadata_log& log, raft::raft_disk_state& disk) {
  const auto& dir = options_.partition_dir;
  disk.state = raft::from_quorum_state(log.state());
  image_ = std::make_shared<const controller::metadata_image>();
  last_snapshot_ms_ = now_ms_();
  std::vector<raft::snapshot_id> snapshots;
  if (auto ec = raft::list_snapshot_files(fs_, dir, &snapshots))
    return {ec, "Cannot list the metadata snapshots in " + dir.string() + ": " + ec.message()};
  std::string why;
  if (!snapshots.empty()) {
    const raft::snapshot_id id = snapshots.back();
    std::vector<uint8_t> bytes;
    if (auto ec = raft::read_snapshot_file(fs_, dir, id, &bytes))
      return {ec, "Cannot read the metadata snapshot " + raft::snapshot_file_name(id) + ": " + ec.message()};
    committed_batch batch;
    if (!decode(id, bytes, &batch, &why))
      return {std::make_error_code(std::errc::illegal_byte_sequence),
              "Cannot load the metadata snapshot " + raft::snapshot_file_name(id) + ": " + why};
    disk.snapshot = id;
    // A dynamic quorum's voters (the bootstrap checkpoint's, or a later snapshot's).
    disk.snapshot_voters = snapshot_voters(bytes);
    disk.snapshot_bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    loaded_ = std::move(batch);
    if (log.end_offset() < id.end_offset) {
      // The snapshot was installed but the log not yet cut: cut it now.
      if (auto ec = log.reset_to(id.end_offset, now_ms_()))
        return {ec, "Cannot reset the metadata log to the snapshot at offset " + std::to_string(id.end_offset.value)};
    }
  } else {
    disk.snapshot = raft::snapshot_id{log.start_offset(), raft::epoch{0}};
  }
  if (log.start_offset() > disk.snapshot.end_offset)
    return {std::make_error_code(std::errc::illegal_byte_sequence),
            "The metadata log starts at offset " + std::to_string(log.start_offset().value) +
                ", after its latest snapshot (offset " + std::to_string(disk.snapshot.end_offset.value) + ")"};
  if (auto ec = log.read_entries(&disk.entries, &why))
    return {ec, "Cannot read the metadata log: " + (why.empty() ? ec.message() : why)};
  std::erase_if(disk.entries, [&](const raft::log_entry& e) { return e.base_offset < disk.snapshot.end_offset; });
  if (!disk.entries.empty() && disk.entries.front().base_offset != disk.snapshot.end_offset)
    return {std::make_error_code(std::errc::illegal_byte_sequence),
            "The metadata log does not continue its snapshot at offset " + std::to_string(disk.snapshot.end_offset.value)};
  applied_ = disk.snapshot.end_offset;
  return {};
}

void committed_metadata::deliver_loaded() {
  if (!loaded_) return;
  committed_batch batch = std::move(*loaded_);
  loaded_.reset();
  deliver_snapshot(std::move(batch));
}

void committed_metadata::deliver_committed(const raft::raft_log& log, storage::offset hw) {
  const auto& entries = log.entries();
  auto it = std::lower_bound(entries.begin(), entries.end(), applied_,
                             [](const raft::log_entry& e, storage::offset o) { return e.end_offset() <= o; });
  committed_batch batch;
  bool any = false;
  std::string why;
  for (; it != entries.end() && it->end_offset() <= hw; ++it) {
    any = true;
    batch.last = storage::offset(it->end_offset().value - 1);
    batch.epoch = it->leader_epoch;
    if (it->control) continue;
    for (size_t i = 0; i < it->records.size(); ++i) {
      controller::metadata_record record;
      if (!controller::decode_record_value(it->records[i], &record, &why)) {
        spdlog::error("Cannot decode the committed metadata record at offset {}: {}",
                      it->base_offset.value + static_cast<int64_t>(i), why);
        continue;
      }
      if (batch.records.empty()) batch.base_offset = it->base_offset + static_cast<int64_t>(i);
      batch.records.push_back(std::move(record));
      bytes_since_snapshot_ += static_cast<int64_t>(it->records[i].size());
    }
  }
  if (!any) return;
  applied_ = batch.last + 1;
  if (batch.records.empty()) batch.base_offset = batch.last;
  if (!batch.records.empty()) {
    controller::metadata_delta delta(image_);
    for (const auto& r : batch.records) {
      if (auto error = delta.replay(r)) spdlog::error("Cannot replay a committed metadata record: {}", *error);
    }
    image_ = delta.apply(batch.last, batch.epoch);
  }
  for (auto& l : listeners_) l(batch);
}

std::optional<raft::voter_set> snapshot_voters(const std::vector<uint8_t>& bytes) {
  auto decoded = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  if (!decoded.ok() || !decoded.voters_record) return std::nullopt;
  const auto& v = *decoded.voters_record;
  return raft::decode_voters_record(protocol::bytes_view(v.data(), v.size()));
}

bool committed_metadata::decode(raft::snapshot_id id, const std::vector<uint8_t>& bytes, committed_batch* out,
                                std::string* why) {
  auto decoded = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  if (!decoded.ok()) {
    *why = decoded.error;
    return false;
  }
  const storage::offset last = id.end_offset - 1;
  auto image = controller::image_from_record_values(decoded.records, last, id.leader_epoch, why);
  if (!image) return false;
  committed_batch batch;
  batch.snapshot = true;
  batch.base_offset = storage::offset(0);
  batch.last = last;
  batch.epoch = id.leader_epoch;
  for (const auto& v : decoded.records) {
    controller::metadata_record record;
    if (!controller::decode_record_value(v, &record, why)) return false;
    batch.records.push_back(std::move(record));
  }
  image_ = std::move(image);
  *out = std::move(batch);
  return true;
}

void committed_metadata::deliver_snapshot(committed_batch batch) {
  applied_ = batch.last + 1;
  bytes_since_snapshot_ = 0;
  spdlog::info("Loaded the metadata snapshot at offset {} (epoch {}, {} records)", applied_.value, batch.epoch.value,
               batch.records.size());
  for (auto& l : listeners_) l(batch);
}

bool committed_metadata::install(raft::snapshot_id id, const raft::snapshot_payload& bytes,
                                 controller::metadata_log& log) {
  const int64_t now = now_ms_();
  const auto& dir = options_.partition_dir;
  spdlog::info("Installing the metadata snapshot {} fetched from the leader", raft::snapshot_file_name(id));
  committed_batch batch;
  std::string why;
  if (!decode(id, *bytes, &batch, &why)) {
    spdlog::error("The leader's metadata snapshot {} does not load: {}", raft::snapshot_file_name(id), why);
    return false;
  }
  if (auto ec = raft::write_snapshot_file(fs_, dir, id, *bytes)) {
    spdlog::error("Cannot write the metadata snapshot {}: {}", raft::snapshot_file_name(id), ec.message());
    return false;
  }
  if (auto ec = log.reset_to(id.end_offset, now)) {
    spdlog::error("Cannot reset the metadata log to offset {}: {}", id.end_offset.value, ec.message());
    return false;
  }
  if (auto ec = raft::delete_snapshot_files_before(fs_, dir, id))
    spdlog::warn("Cannot delete metadata snapshots older than {}: {}", raft::snapshot_file_name(id), ec.message());
  last_snapshot_ms_ = now;
  deliver_snapshot(std::move(batch));
  return true;
}

void committed_metadata::maybe_snapshot(raft::raft_core& core, controller::metadata_log& log) {
  if (bytes_since_snapshot_ <= 0) return;
  const int64_t now = now_ms_();
  const bool by_size = bytes_since_snapshot_ >= options_.snapshot_max_bytes;
  const bool by_time = options_.snapshot_interval_ms > 0 && now - last_snapshot_ms_ >= options_.snapshot_interval_ms;
  if (!by_size && !by_time) return;
  const auto& entries_log = core.log();
  if (applied_ <= entries_log.start_offset() || !entries_log.is_batch_boundary(applied_)) return;
  // The entry the snapshot ends with gives its epoch and timestamp.
  const auto& entries = entries_log.entries();
  auto last = std::lower_bound(entries.begin(), entries.end(), applied_,
                               [](const raft::log_entry& e, storage::offset o) { return e.end_offset() < o; });
  if (last == entries.end() || last->end_offset() != applied_) return;
  const raft::snapshot_id id{applied_, last->leader_epoch};
  raft::snapshot_write_options wo;
  wo.last_contained_log_timestamp_ms = last->append_time_ms;
  wo.write_time_ms = now;
  if (core.dynamic_quorum()) wo.voters_record = raft::voters_record(core.voters_at(applied_ - 1));
  const auto values = controller::image_record_values(*image_);
  auto payload = std::make_shared<const std::vector<uint8_t>>(raft::encode_snapshot(id, values, wo));
  const auto& dir = options_.partition_dir;
  if (auto ec = raft::write_snapshot_file(fs_, dir, id, *payload)) {
    spdlog::error("Cannot write the metadata snapshot {}: {}", raft::snapshot_file_name(id), ec.message());
    last_snapshot_ms_ = now;  // not again at once
    return;
  }
  if (!core.compact(id, payload)) {
    spdlog::warn("The metadata snapshot {} is not at a committed batch end; the log stays whole",
                 raft::snapshot_file_name(id));
    return;
  }
  bytes_since_snapshot_ = 0;
  last_snapshot_ms_ = now;
  if (auto ec = log.advance_start(id.end_offset, now))
    spdlog::warn("Cannot delete the metadata log below offset {}: {}", id.end_offset.value, ec.message());
  if (auto ec = raft::delete_snapshot_files_before(fs_, dir, id))
    spdlog::warn("Cannot delete metadata snapshots older than {}: {}", raft::snapshot_file_name(id), ec.message());
  spdlog::info("Took the metadata snapshot {} ({} records, {} bytes); the log now starts at offset {}",
               raft::snapshot_file_name(id), values.size(), payload->size(), id.end_offset.value);
}

}  // namespace hw::broker
