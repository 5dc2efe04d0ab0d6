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
#include <map>
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

  // Lets go of the partitions the last compacted_logs() returned.
  void release() { held_.clear(); }

 private:
  replica_manager& replicas_;
  // The partitions whose logs the cleaner may be reading: kept alive (the
  // partition objects, not their logs: see the cleaner service's README note).
  std::vector<std::shared_ptr<partition>> held_;
};

}  // namespace hw::broker
