#include "broker/replica/log_dir_mover.h"

#include <algorithm>
#include <vector>

#include <spdlog/spdlog.h>

#include "broker/run_on.h"
#include "protocol/records/record_batch.h"

namespace hw::broker {

namespace {
using perr = protocol::error_code;
// How much one step copies before the strand serves others again (Kafka's
// alter-log-dirs thread fetches replica.fetch.max.bytes at a time).
constexpr int32_t k_chunk_bytes = 1 << 20;
}  // namespace

log_dir_mover::log_dir_mover(asio::any_io_executor executor, replica_manager& replicas,
                             replica_manager::removal_hook around_swap, replica_manager::directory_listener moved,
                             std::function<int64_t()> now_ms)
    : replicas_(replicas),
      around_swap_(std::move(around_swap)),
      moved_(std::move(moved)),
      now_ms_(std::move(now_ms)),
      executor_(executor) {}

asio::awaitable<protocol::error_code> log_dir_mover::move(std::shared_ptr<partition> p,
                                                         std::filesystem::path target) {
  std::shared_ptr<storage::partition_log> started;
  const perr answer = co_await run_on(p->strand(), [&]() -> perr {
    storage::log_manager& logs = replicas_.logs();
    const storage::topic_partition& tp = p->tp();
    if (p->removed()) return perr::replica_not_available;
    if (p->log().offline()) return perr::kafka_storage_error;
    auto existing = logs.find_future(tp);
    // Another target than the move in progress: that one stops (Kafka's
    // futureReplicaDirChanged), and a move back to the current dir is done.
    if (existing && existing->dir().parent_path() != target) {
      if (logs.remove_future(tp)) return perr::kafka_storage_error;
      spdlog::info("Stopped moving {} to {}", storage::partition_dir_name(tp),
                   existing->dir().parent_path().string());
      existing.reset();
    }
    if (p->log().dir().parent_path() == target || existing) return perr::none;
    if (auto err = logs.create_future(tp, p->topic_id(), target, now_ms_(), &started)) {
      spdlog::error("Cannot create the future log of {} in {}: {}", storage::partition_dir_name(tp), target.string(),
                    err.message);
      return perr::kafka_storage_error;
    }
    spdlog::info("Moving {} from {} to {}", storage::partition_dir_name(tp), p->log().dir().parent_path().string(),
                 target.string());
    return perr::none;
  });
  if (started) asio::co_spawn(executor_, run(p, started), asio::detached);
  co_return answer;
}

asio::awaitable<void> log_dir_mover::run(std::shared_ptr<partition> p,
                                         std::shared_ptr<storage::partition_log> future) {
  const storage::topic_partition tp = p->tp();
  for (;;) {
    step_result r = co_await run_on(p->strand(), [&] { return copy_step(*p, *future, false); });
    if (r == step_result::done) co_return;
    if (r == step_result::idle) {
      asio::steady_timer pause(executor_, std::chrono::milliseconds(100));
      boost::system::error_code ignored;
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      continue;
    }
    if (r != step_result::caught_up) continue;
    // The cleaner lets go of the log before it is swapped, and finds the
    // new one afterwards.
    if (around_swap_) co_await around_swap_(tp, true);
    r = co_await run_on(p->strand(), [&] { return copy_step(*p, *future, true); });
    if (around_swap_) co_await around_swap_(tp, false);
    if (r == step_result::done) co_return;
  }
}

log_dir_mover::step_result log_dir_mover::copy_step(partition& p, storage::partition_log& future, bool promote_now) {
  storage::log_manager& logs = replicas_.logs();
  const storage::topic_partition& tp = p.tp();
  // Replaced by another move, cancelled, or dropped with the partition.
  if (logs.find_future(tp).get() != &future) return step_result::done;
  auto abandon = [&](const char* why) {
    spdlog::warn("Abandoned moving {} to {}: {}", storage::partition_dir_name(tp),
                 future.dir().parent_path().string(), why);
    if (future.offline()) logs.dir_offline(future.dir().parent_path());
    (void)logs.remove_future(tp);
    return step_result::done;
  };
  if (stopped_.load(std::memory_order_acquire)) return step_result::done;
  if (p.removed()) return abandon("the replica was removed");
  storage::partition_log& current = p.log();
  if (current.offline()) return abandon("its log dir failed");
  if (future.offline()) return abandon("the target log dir failed");
  const int64_t now = now_ms_();

  for (;;) {
    const storage::offset start = current.log().log_start_offset();
    const storage::offset end = current.log().log_end_offset();
    storage::offset copied = future.log().log_end_offset();
    // In line with the current log: what it no longer has (retention, a
    // truncation, another history after a divergence) goes from the future too.
    std::error_code ec;
    if (copied < start) {
      ec = future.truncate_fully_and_start_at(start, now);
    } else {
      if (auto epoch = future.epoch_cache().latest_epoch()) {
        const storage::epoch_end_offset there = current.epoch_cache().end_offset_for(*epoch, end);
        if (there.epoch.value < 0 || there.end_offset < start) {
          ec = future.truncate_fully_and_start_at(start, now);
        } else if (there.end_offset < copied) {
          ec = future.truncate_to(there.end_offset, now);
        }
      }
      if (!ec && future.log().log_end_offset() > end) ec = future.truncate_to(end, now);
      if (!ec && future.log().log_start_offset() < start && future.log().log_end_offset() >= start)
        ec = future.advance_log_start_offset(start, now);
    }
    if (ec) return abandon(ec.message().c_str());
    copied = future.log().log_end_offset();
    if (copied == end) break;

    storage::log_read_result read;
    if (auto rec = current.log().read(copied, k_chunk_bytes, end, true, &read)) return abandon(rec.message().c_str());
    if (!read.log_file || read.length == 0) return step_result::idle;  // the log moved meanwhile: look again
    std::vector<uint8_t> bytes(read.length);
    size_t n = 0;
    if (auto rec = read.log_file->read_at(read.position, bytes, &n); rec || n != bytes.size())
      return abandon("cannot read the current log");
    // The range may end inside a batch (a read stops at its byte limit, as a
    // fetch does): only whole batches are copied, as the replica fetcher does.
    size_t whole = 0;
    {
      protocol::record_batch_walker walker(bytes);
      protocol::record_batch_view b;
      while (walker.next(b)) {
      }
      whole = walker.position();
    }
    if (whole == 0) return abandon("a batch larger than the read");
    bytes.resize(whole);
    storage::partition_append_result appended;
    if (auto aec = future.append_as_follower(bytes, now, &appended)) return abandon(aec.message().c_str());
    if (!promote_now) return step_result::progress;
  }
  if (!promote_now) return step_result::caught_up;
  promote(p, future);
  return step_result::done;
}

void log_dir_mover::promote(partition& p, storage::partition_log& future) {
  storage::log_manager& logs = replicas_.logs();
  const storage::topic_partition& tp = p.tp();
  storage::partition_log& current = p.log();
  // Epochs begun without a batch yet (a leader that has not written).
  const auto latest = future.epoch_cache().latest_epoch();
  for (const auto& e : current.epoch_cache().entries()) {
    if (latest && e.epoch <= *latest) continue;
    if (auto ec = future.adopt_epoch(e.epoch, std::max(e.start_offset, future.log().log_start_offset()))) {
      logs.dir_offline(future.dir().parent_path());
      (void)logs.remove_future(tp);
      return;
    }
  }
  const auto from = current.dir().parent_path();
  std::shared_ptr<storage::partition_log> promoted;
  if (auto err = logs.promote_future(tp, now_ms_(), &promoted)) {
    spdlog::error("Cannot move {} to {}: {}", storage::partition_dir_name(tp), future.dir().parent_path().string(),
                  err.message);
    return;
  }
  promoted->on_high_watermark_updated(p.high_watermark());
  p.replace_log(promoted);
  spdlog::info("Moved {} from {} to {}", storage::partition_dir_name(tp), from.string(),
               promoted->dir().parent_path().string());
  if (moved_) {
    if (auto id = logs.directory_id(promoted->dir().parent_path())) moved_(p.topic_id(), tp.partition, *id);
  }
}

}  // namespace hw::broker
