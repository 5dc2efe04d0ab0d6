#include "broker/maintenance/high_watermark_checkpoint.h"

#include <spdlog/spdlog.h>

#include "storage/checkpoint_file.h"

namespace hw::broker {

storage::storage_error write_high_watermark_checkpoints(storage::file_system& fs, replica_manager& replicas,
                                                        const std::vector<std::filesystem::path>& log_dirs) {
  std::map<std::filesystem::path, std::vector<storage::topic_partition_offset>> by_dir;
  for (const auto& d : log_dirs) by_dir[d];
  for (const auto& p : replicas.all()) {
    const auto dir = p->log_ptr()->dir().parent_path();
    by_dir[dir].push_back({p->tp().topic, p->tp().partition, p->high_watermark()});
  }
  storage::storage_error first;
  for (const auto& [dir, entries] : by_dir) {
    if (replicas.logs().is_dir_offline(dir)) continue;
    auto err = storage::write_offset_checkpoint(fs, dir / storage::replication_offset_checkpoint_name, entries);
    if (!err) continue;
    spdlog::error("Error while writing to high watermark file in directory {}: {}", dir.string(), err.message);
    replicas.logs().dir_offline(dir);
    if (!first) first = err;
  }
  return first;
}

std::map<storage::topic_partition, storage::offset> read_high_watermark_checkpoints(
    storage::file_system& fs, const std::vector<std::filesystem::path>& log_dirs) {
  std::map<storage::topic_partition, storage::offset> out;
  for (const auto& d : log_dirs) {
    std::vector<storage::topic_partition_offset> entries;
    if (storage::read_offset_checkpoint(fs, d / storage::replication_offset_checkpoint_name, &entries)) continue;
    for (const auto& e : entries) out[{e.topic, e.partition}] = e.value;
  }
  return out;
}

}  // namespace hw::broker
