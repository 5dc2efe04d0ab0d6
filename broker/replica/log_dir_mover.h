#pragma once
// Moves a hosted replica from one of this broker's log dirs to another,
// online (AlterReplicaLogDirs, as Kafka's ReplicaAlterLogDirsManager): a
// future log is made in the target dir, filled from the current log chunk
// by chunk on the partition's strand (batches as they are: offsets, epochs,
// producer state and aborted transactions follow), kept in step when the
// current log is truncated, cut at its start or rewritten after a
// divergence, and once it has everything — on the strand, with nothing
// appended in between — it replaces the current log: the partition goes on
// in it, the old directory is deleted, and the controller is told the new
// dir (AssignReplicasToDirs). The cleaner leaves the partition alone while
// the logs are swapped. A move is abandoned when the partition is dropped,
// either dir fails, or another move of it is asked for; a restart abandons
// it too (asked for again, it starts over).
//
// Ownership and threads: owned by the node. move() from any strand; each
// move's loop runs as its own coroutine, every step on the partition's
// strand; the set of moves lives on the mover's strand.

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include "broker/asio.h"
#include "broker/replica/replica_manager.h"
#include "protocol/error_code.h"

namespace hw::broker {

class log_dir_mover {
 public:
  // around_swap(tp, true) may wait until the cleaner lets go of tp's log;
  // (tp, false) lets it clean again (the replica manager's removal hook).
  // moved(topic id, partition, dir id): the new dir, for the controller.
  log_dir_mover(asio::any_io_executor executor, replica_manager& replicas,
                replica_manager::removal_hook around_swap, replica_manager::directory_listener moved,
                std::function<int64_t()> now_ms);

  // Kafka's ReplicaManager.alterReplicaLogDirs for one hosted partition:
  // none when the move started, goes on, is cancelled (target = its current
  // dir) or is not needed; KAFKA_STORAGE_ERROR when a dir is offline.
  asio::awaitable<protocol::error_code> move(std::shared_ptr<partition> p, std::filesystem::path target);
  // No more steps; moves in progress stop at their next step.
  void stop() { stopped_.store(true, std::memory_order_release); }

 private:
  enum class step_result { progress, caught_up, idle, done };  // idle: nothing read, look again soon
  asio::awaitable<void> run(std::shared_ptr<partition> p, std::shared_ptr<storage::partition_log> future);
  // One chunk from the current log into the future one (strand).
  step_result copy_step(partition& p, storage::partition_log& future, bool promote);
  // The future log takes the current one's place (strand).
  void promote(partition& p, storage::partition_log& future);

  replica_manager& replicas_;
  replica_manager::removal_hook around_swap_;
  replica_manager::directory_listener moved_;
  std::function<int64_t()> now_ms_;
  asio::any_io_executor executor_;
  std::atomic<bool> stopped_{false};
};

}  // namespace hw::broker
