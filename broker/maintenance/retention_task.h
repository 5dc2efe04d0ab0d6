#pragma once
// Time, size and log-start retention of every hosted partition (Kafka's
// LogManager.cleanupLogs): each log's plan is made and carried out on its
// partition's strand, bounded by the high watermark; the deleted segments
// wait in one pending_deletions for file.delete.delay.ms. Compacted logs
// lose segments here only below their log start (cleanup.policy=compact) or
// by time and size too (compact,delete): storage/retention.h decides.
//
// Ownership and threads: owned by the storage scheduler and driven from its
// one coroutine, one call at a time (run() hops to each partition strand in
// turn; delete_expired() runs on the blocking pool), so the pending queue
// has one user at a time.

#include <cstdint>
#include <system_error>

#include "broker/asio.h"
#include "broker/replica/replica_manager.h"
#include "storage/retention.h"

namespace hw::broker {

class retention_task {
 public:
  explicit retention_task(replica_manager& replicas) : replicas_(replicas) {}

  // One pass over every hosted partition; returns the segments deleted. A
  // partition whose retention fails on I/O is reported to the log manager
  // (its dir goes offline); the others still run.
  asio::awaitable<size_t> run(int64_t now_ms);
  // Removes the files of deleted segments whose delay has passed.
  std::error_code delete_expired(int64_t now_ms);
  // At shutdown: the logs close with their deleted files gone.
  std::error_code delete_all();
  size_t pending_files() const { return pending_.size(); }

 private:
  replica_manager& replicas_;
  storage::pending_deletions pending_;
};

}  // namespace hw::broker
