#pragma once
// What storage's log cleaner needs from the broker (storage/cleaner_driver.h),
// answered from the replica manager: the compacted logs with their settings
// and min(LSO, HW), read on each partition's strand; the checkpoints from
// the log manager; writer work run on the partition's strand.
//
// Ownership and threads: owned by the cleaner service and called only from
// its thread, which blocks on the partition strands (never an io thread;
// the io threads must keep running until the cleaner has stopped).

#include <functional>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <memory>
#include <system_error>
#include <vector>

#include "broker/replica/replica_manager.h"
#include "storage/cleaner_driver.h"

namespace hw::broker {

class cleaner_host final : public storage::log_cleaner_host {
 public:
  explicit cleaner_host(replica_manager& replicas) : replicas_(replicas) {}

  std::vector<candidate> compacted_logs() override;
  std::map<storage::topic_partition, storage::offset> cleaner_checkpoints() override;
  std::error_code update_cleaner_checkpoint(const storage::topic_partition& tp, storage::offset first_dirty) override;
  std::error_code run_on_writer(const storage::topic_partition& tp,
                                const std::function<std::error_code(storage::partition_log&)>& fn) override;

  // Lets go of the partitions the last compacted_logs() returned (the pass
  // is over) and wakes removers waiting for it.
  void release();

  // For whoever removes tp's log: from now on passes skip tp, and if the
  // current pass may be reading tp's log this waits for the pass to end.
  // Blocks: call it from a thread that no partition strand needs (the
  // cleaner waits on strands), never from the only io thread.
  void begin_removal(const storage::topic_partition& tp);
  void end_removal(const storage::topic_partition& tp);

 private:
  replica_manager& replicas_;
  // The partitions whose logs the cleaner may be reading: kept alive (the
  // partition objects, not their logs: see the cleaner service's README note).
  std::vector<std::shared_ptr<partition>> held_;
  // The pass has reached its log's writer: the driver's first writer call
  // (capturing the active producers) is where a cleaning begins.
  bool begun_ = false;
  std::mutex mutex_;  // leaf: the sets below, shared by the cleaner and removers
  std::condition_variable pass_done_;
  std::set<storage::topic_partition> removing_;
  std::set<storage::topic_partition> in_pass_;  // logs the current pass may read
};

}  // namespace hw::broker
