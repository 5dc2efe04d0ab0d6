#pragma once
// The active controller in this process (process.roles containing
// `controller`): drives the quorum controller's generate → commit → replay
// path over the metadata log. Today the quorum has one voter — this node —
// so a batch is committed once it is flushed; the multi-voter raft driver
// replaces exactly the commit step.
//
// Ownership and threads: owned by main. Everything runs on its own strand:
// an operation generates its records and response on the strand, the
// records are appended and flushed as one batch, then replayed into the
// controller and handed to every commit listener (the broker's metadata
// publisher) in log order before the response is returned. Callers on
// other strands co_await submit().

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/run_on.h"
#include "controller/metadata/records.h"
#include "controller/quorum_controller.h"
#include "controller/raft/metadata_log.h"
#include "storage/io/file_system.h"

namespace hw::broker {

// Committed records as the log holds them, for replay.
struct committed_batch {
  storage::offset base_offset;  // of the first record
  storage::offset last;         // of the last record (control records between them are skipped)
  int32_t epoch = 0;
  std::vector<controller::metadata_record> records;
  storage::offset last_offset() const { return last; }
};

struct controller_service_options {
  std::filesystem::path metadata_log_dir;
  int32_t node_id = 1;
  std::vector<int32_t> voters;
  storage::log_config log_config;
  controller::quorum_controller_options controller;
};

class controller_service {
 public:
  // Called on the controller strand, in log order; must not block (the
  // broker's publisher queues the batch for its own strand).
  using commit_listener = std::function<void(const committed_batch&)>;
  using clock_fn = std::function<int64_t()>;

  controller_service(asio::any_io_executor executor, storage::file_system& fs, controller_service_options options,
                     clock_fn now_ms);
  ~controller_service();

  // Before start(): who hears of committed batches (the broker's publisher).
  void add_listener(commit_listener listener) { listeners_.push_back(std::move(listener)); }

  // Opens the metadata log, replays it to every listener, and takes
  // leadership of the next epoch (bootstrapping a new cluster's records).
  asio::awaitable<storage::storage_error> start();
  // Closes the log (after the last operation).
  asio::awaitable<void> stop();

  // Runs op on the controller strand against the working state; appends
  // and commits its records; returns its response once they are replayed.
  // If the append fails, the controller reverts and the response carries
  // whatever op produced — the caller maps `ok == false` to its error.
  // Op: controller_result<R>(quorum_controller&, int64_t now_ms, storage::offset next_offset).
  // A template rather than a std::function: GCC 12 destroys non-trivial
  // temporaries inside a co_await expression twice, so callers pass plain
  // lambdas.
  template <class R, class Op>
  asio::awaitable<R> submit(Op op, bool* ok = nullptr, storage::offset* committed_end = nullptr) {
    co_return co_await run_on(strand_, [&] {
      auto result = op(*controller_, now_ms_(), log_->end_offset());
      std::error_code ec = commit(std::move(result.records));
      if (ok) *ok = !ec;
      if (committed_end) *committed_end = log_->end_offset();
      return std::move(result.response);
    });
  }

  int32_t leader_epoch() const { return log_ ? log_->state().leader_epoch : -1; }
  int32_t node_id() const { return options_.node_id; }
  const std::vector<int32_t>& voters() const { return options_.voters; }
  // The end and committed end of the metadata log (any thread, approximate).
  int64_t high_watermark() const { return high_watermark_.load(std::memory_order_acquire); }

  // Periodic work (fencing expired brokers) on the strand.
  asio::awaitable<void> tick();

 private:
  storage::storage_error start_on_strand();
  std::error_code commit(std::vector<controller::metadata_record> records);
  storage::storage_error replay_log();
  void publish(const committed_batch& batch);

  asio::strand<asio::any_io_executor> strand_;
  storage::file_system& fs_;
  controller_service_options options_;
  clock_fn now_ms_;
  std::unique_ptr<controller::metadata_log> log_;
  std::unique_ptr<controller::quorum_controller> controller_;
  std::vector<commit_listener> listeners_;
  std::atomic<int64_t> high_watermark_{0};
};

}  // namespace hw::broker
