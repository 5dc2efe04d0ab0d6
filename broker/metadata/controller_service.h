#pragma once
// The controller in this process (process.roles containing `controller`):
// drives the quorum controller's generate → commit → replay path over the
// raft quorum. When the quorum elects this node and everything before its
// epoch is committed and replayed, the controller becomes active: an
// operation generates records from the working image, replays them there at
// once (so the next operation sees them), proposes them to the quorum, and
// answers once the high watermark passes them. Otherwise it is a standby
// that follows the driver's committed image; an operation then answers
// NOT_CONTROLLER.
// On loss of leadership the working image reverts to the committed one and
// waiting operations answer NOT_CONTROLLER (their records may still commit
// under the next leader, as in Kafka).
//
// Ownership and threads: owned by main; everything runs on the raft
// driver's strand (the driver calls the controller's listeners there, and
// proposals go straight to it). Callers on other strands co_await submit().

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/metadata/committed_batch.h"
#include "broker/metadata/controller_not_active.h"
#include "broker/metadata/raft_driver.h"
#include "controller/metadata/records.h"
#include "controller/quorum_controller.h"

namespace hw::broker {

struct controller_service_options {
  int32_t node_id = 1;
  controller::quorum_controller_options controller;
  // How long an operation waits for its records to commit.
  std::chrono::milliseconds commit_timeout{30'000};
  std::chrono::milliseconds tick_interval{1'000};  // session expiry checks
  // Called (on the controller strand) with the number of unclean leader
  // elections in records this controller wrote (UncleanLeaderElectionsPerSec).
  std::function<void(int64_t)> on_unclean_elections;
  // The SCRAM credentials of the metadata log directory's bootstrap file
  // (`kafka-storage.sh format --add-scram`), written with a new cluster's
  // first records (controller/bootstrap_metadata.h).
  std::vector<protocol::msg::user_scram_credential_record> bootstrap_scram;
  // The feature levels of that file (metadata.version among them), the
  // ones this build supports: a new cluster starts at them. Empty: at the
  // newest metadata.version with Kafka's default levels.
  std::map<std::string, int16_t> bootstrap_features;
};

enum class commit_status { committed, not_controller, failed };

class controller_service {
 public:
  // Whether this node's controller is the active one (any thread; may lag).
  bool is_active() const { return active_published_.load(std::memory_order_relaxed); }
  using clock_fn = std::function<int64_t()>;

  // Registers with the driver's listeners: construct before driver.start().
  controller_service(raft_driver& driver, controller_service_options options, clock_fn now_ms);
  ~controller_service();

  // With this node the only voter, waits until it is active (the quorum of
  // one commits at once); then starts the periodic checks.
  asio::awaitable<storage::storage_error> start();
  asio::awaitable<void> stop();

  // Runs op on the controller strand against the working image, proposes
  // its records and returns its response once they are committed. When this
  // node is not the active controller (or stops being it before the commit)
  // the response's errors say NOT_CONTROLLER and *status not_controller.
  // Op: controller_result<R>(quorum_controller&, int64_t now_ms, storage::offset next_offset).
  // A template rather than a std::function: GCC 12 destroys non-trivial
  // temporaries inside a co_await expression twice, so callers pass plain
  // lambdas.
  template <class R, class Op>
  asio::awaitable<R> submit(Op op, commit_status* status = nullptr, storage::offset* committed_end = nullptr) {
    auto body = [&]() -> asio::awaitable<R> {
      auto result = op(*controller_, now_ms_(), driver_.log_end());
      std::shared_ptr<commit_waiter> waiter;
      commit_status s = start_commit(std::move(result.records), &waiter, committed_end);
      if (waiter) {
        boost::system::error_code ec;
        co_await waiter->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        s = waiter->status;
        std::erase(waiters_, waiter);  // timed out: still listed
      }
      if (s != commit_status::committed) mark_not_controller(result.response);
      if (status) *status = s;
      co_return std::move(result.response);
    };
    co_return co_await asio::co_spawn(driver_.strand(), body, asio::use_awaitable);
  }

 private:
  struct commit_waiter {
    storage::offset end;
    commit_status status = commit_status::failed;
    asio::steady_timer timer;
    explicit commit_waiter(asio::any_io_executor ex) : timer(ex, asio::steady_timer::time_point::max()) {}
  };

  // On the strand: proposes records (replayed into the working image once
  // accepted); the waiter, when the caller must wait for the commit.
  commit_status start_commit(std::vector<controller::metadata_record> records,
                             std::shared_ptr<commit_waiter>* waiter, storage::offset* end);
  void log_unclean_elections(const std::vector<controller::metadata_record>& records);
  void on_commit(const committed_batch& batch);
  void on_leader_change(const controller::raft::leader_and_epoch& le);
  void maybe_activate();
  void deactivate();
  void finish_waiters(bool all, commit_status status);
  // Periodic work (fencing brokers whose session expired), when active.
  asio::awaitable<void> tick_loop();

  raft_driver& driver_;
  controller_service_options options_;
  clock_fn now_ms_;
  std::unique_ptr<controller::quorum_controller> controller_;
  bool active_ = false;
  std::atomic<bool> active_published_{false};  // active_, for is_active() from any thread
  std::vector<std::shared_ptr<commit_waiter>> waiters_;
  asio::steady_timer tick_timer_;
  bool stopping_ = false;
};

}  // namespace hw::broker
