#pragma once
// replication-offset-checkpoint: each hosted partition's high watermark,
// one file per log dir in Kafka's checkpoint format (Kafka's
// ReplicaManager.checkpointHighWatermarks), so that a restarted follower
// can start from its last known HW instead of 0.
//
// Threads: the caller's (the storage scheduler runs it on its blocking pool).

#include <filesystem>
#include <map>
#include <vector>

#include "broker/replica/replica_manager.h"
#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::broker {

// Writes every online dir's file (an empty one for a dir hosting nothing).
// A failed write takes that dir offline; the first error is returned.
storage::storage_error write_high_watermark_checkpoints(storage::file_system& fs, replica_manager& replicas,
                                                        const std::vector<std::filesystem::path>& log_dirs);

// What the files hold, for seeding HWs at start-up; damaged or missing
// files contribute nothing.
std::map<storage::topic_partition, storage::offset> read_high_watermark_checkpoints(
    storage::file_system& fs, const std::vector<std::filesystem::path>& log_dirs);

}  // namespace hw::broker
