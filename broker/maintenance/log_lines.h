#pragma once
// The prefix Kafka puts before a partition log's lines in the broker log
// ("[UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] "), so that
// operators' greps and alerts written for Kafka match Highwater's lines.

#include <filesystem>
#include <string>

#include "storage/log_manager.h"

namespace hw::broker {

// dir: the log dir holding the partition's directory.
inline std::string unified_log_prefix(const storage::topic_partition& tp, const std::filesystem::path& dir) {
  return "[UnifiedLog partition=" + storage::partition_dir_name(tp) + ", dir=" + dir.string() + "] ";
}

}  // namespace hw::broker
