#pragma once
// Member definitions of coordinator_runtime (coordinator_runtime.h). Only
// the .cc file of a coordinator includes this, and instantiates the
// template there once.

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>

#include <boost/asio/experimental/concurrent_channel.hpp>
#include <spdlog/spdlog.h>

#include "broker/coordinator_log/coordinator_log.h"
#include "broker/coordinator_log/coordinator_runtime.h"
#include "broker/run_on.h"

namespace hw::broker {

// One shard and what drives it. Everything but `part`, `epoch` (set once)
// and `loaded` (atomic) is touched only on part->strand().
template <typename Shard, typename Answer>
struct coordinator_runtime<Shard, Answer>::slot : std::enable_shared_from_this<slot> {
  // One waiting request's answer travels from the shard's strand to its
  // coroutine through this (capacity one, thread-safe).
  using answer_channel = asio::experimental::concurrent_channel<void(broker::error_code, Answer)>;

  slot(std::shared_ptr<partition> p, int32_t leader_epoch, std::unique_ptr<Shard> s)
      : part(std::move(p)), epoch(leader_epoch), shard(std::move(s)), timer(part->strand()) {}

  std::shared_ptr<partition> part;
  int32_t epoch;
  std::unique_ptr<Shard> shard;
  asio::steady_timer timer;
  std::optional<int64_t> timer_deadline_ms;
  std::map<token, std::shared_ptr<answer_channel>> waiting;
  token next_token = 1;
  durable_appender appends{part};
  bool stopped = false;
  std::atomic<bool> loaded{false};
  std::atomic<int64_t> in_progress{0};  // the hook's count, published for the metrics
};

template <typename Shard, typename Answer>
coordinator_runtime<Shard, Answer>::coordinator_runtime(replica_manager& replicas,
                                                        coordinator_runtime_options options, clock now_ms)
    : replicas_(replicas), options_(std::move(options)), now_ms_(std::move(now_ms)) {}

template <typename Shard, typename Answer>
coordinator_runtime<Shard, Answer>::~coordinator_runtime() = default;

template <typename Shard, typename Answer>
auto coordinator_runtime<Shard, Answer>::find(int32_t partition) const -> std::shared_ptr<slot> {
  std::lock_guard lock(mutex_);
  auto it = slots_.find(partition);
  return it == slots_.end() ? nullptr : it->second;
}

template <typename Shard, typename Answer>
std::vector<int32_t> coordinator_runtime<Shard, Answer>::shard_partitions() const {
  std::lock_guard lock(mutex_);
  std::vector<int32_t> out;
  for (const auto& [p, s] : slots_) out.push_back(p);
  return out;
}

template <typename Shard, typename Answer>
bool coordinator_runtime<Shard, Answer>::loaded(const std::vector<int32_t>& partitions) const {
  std::lock_guard lock(mutex_);
  for (int32_t p : partitions) {
    auto it = slots_.find(p);
    if (it == slots_.end() || !it->second->loaded.load(std::memory_order_acquire)) return false;
  }
  return true;
}

template <typename Shard, typename Answer>
std::optional<int32_t> coordinator_runtime<Shard, Answer>::shard_epoch(int32_t partition) const {
  auto s = find(partition);
  if (!s) return std::nullopt;
  return s->epoch;
}

template <typename Shard, typename Answer>
protocol::error_code coordinator_runtime<Shard, Answer>::missing_error(int32_t partition) const {
  // Led here but the listener has not run yet: the shard is about to load.
  auto p = replicas_.get({options_.topic, partition});
  return p && p->is_leader() ? protocol::error_code::coordinator_load_in_progress
                             : protocol::error_code::not_coordinator;
}

// --- leadership ------------------------------------------------------------------

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::on_leadership(const storage::topic_partition& tp, bool is_leader,
                                                        int32_t epoch) {
  if (tp.topic != options_.topic) return;
  if (!is_leader) {
    stop_shard(tp.partition);
    return;
  }
  if (auto p = replicas_.get(tp)) start_shard(std::move(p), epoch);
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::start_shard(std::shared_ptr<partition> p, int32_t epoch) {
  const int32_t index = p->tp().partition;
  if (auto existing = find(index)) {
    // The same leadership at a new epoch keeps the shard, whose state is
    // still this log's, unless the epoch is part of the shard's identity.
    if (existing->part == p && (existing->epoch == epoch || !options_.reload_on_new_epoch)) return;
    stop_shard(index);
  }
  // Nobody else can reach the shard yet; from here on requests see it
  // loading until load() below ends.
  auto s = std::make_shared<slot>(p, epoch, make_shard(index, epoch));
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    slots_[index] = s;
  }
  spdlog::info("Loading {} from {}-{} at leader epoch {}", options_.what, options_.topic, index, epoch);
  asio::post(p->strand(), [this, s] { load(*s); });
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::stop_shard(int32_t partition) {
  std::shared_ptr<slot> s;
  {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(partition);
    if (it == slots_.end()) return;
    s = std::move(it->second);
    slots_.erase(it);
  }
  spdlog::info("Unloading {} of {}-{} (leader epoch {})", options_.what, options_.topic, partition, s->epoch);
  asio::post(s->part->strand(), [this, s] {
    s->stopped = true;
    s->timer.cancel();
    s->shard->unload();
    drain(*s);
    // Whatever the shard did not answer (nothing, by its contract) learns
    // that this broker is no longer the coordinator.
    for (auto& [t, ch] : s->waiting) ch->close();
    s->waiting.clear();
  });
}

template <typename Shard, typename Answer>
asio::awaitable<void> coordinator_runtime<Shard, Answer>::stop() {
  std::vector<int32_t> partitions;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (const auto& [p, s] : slots_) partitions.push_back(p);
  }
  std::vector<std::shared_ptr<partition>> parts;
  for (int32_t p : partitions) {
    if (auto s = find(p)) parts.push_back(s->part);
    stop_shard(p);
  }
  // The unloads were posted to each strand; wait for them to run.
  for (auto& p : parts) co_await run_on(p->strand(), [] {});
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::post_to_each(const std::function<void(Shard&)>& fn) {
  std::vector<std::shared_ptr<slot>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [p, s] : slots_) all.push_back(s);
  }
  for (auto& s : all)
    asio::post(s->part->strand(), [s, fn] {
      if (!s->stopped) fn(*s->shard);
    });
}

// --- loading ---------------------------------------------------------------------

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::load(slot& s) {
  if (s.stopped) return;
  const int32_t index = s.part->tp().partition;
  const auto started = std::chrono::steady_clock::now();
  size_t records = 0;
  auto replayed = replay_partition(
      *s.part, options_.load_buffer_bytes,
      [&](const protocol::record_batch_view& batch, const protocol::record_view& record) {
        if (replay(*s.shard, batch, record, index)) ++records;
      });
  if (replayed.error)
    spdlog::error("Loading {}-{} at offset {}: {}", options_.topic, index, replayed.next_offset,
                  replayed.error.message());
  end_load(*s.shard, now_ms_());
  s.loaded.store(true, std::memory_order_release);
  {
    const int64_t took_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    const int64_t now = now_ms_();
    std::lock_guard lock(mutex_);
    loads_.push_back({now, took_ms});
    while (loads_.size() > 1 && (loads_.size() > 4096 || now - loads_.front().at_ms > 600'000)) loads_.pop_front();
  }
  spdlog::info("Loaded {} records from {}-{} (up to offset {}); {} {}", records, options_.topic, index,
               replayed.next_offset, size(*s.shard), options_.entries);
  drain(s);
}

// --- requests --------------------------------------------------------------------

template <typename Shard, typename Answer>
auto coordinator_runtime<Shard, Answer>::submit(int32_t partition, const issue_fn& issue)
    -> asio::awaitable<submitted> {
  std::shared_ptr<slot> s = find(partition);
  if (!s) co_return submitted{missing_error(partition), std::nullopt};
  auto channel = std::make_shared<typename slot::answer_channel>(co_await asio::this_coro::executor, 1);
  // Named, capturing by reference only: the frame keeps s and channel.
  auto on_strand = [&] {
    if (s->stopped) return false;
    const token t = s->next_token++;
    s->waiting.emplace(t, channel);
    issue(*s->shard, t, now_ms_());
    drain(*s);
    return true;
  };
  const bool issued = co_await run_on(s->part->strand(), on_strand);
  if (!issued) co_return submitted{protocol::error_code::not_coordinator, std::nullopt};
  auto [ec, answer] = co_await channel->async_receive(asio::as_tuple(asio::use_awaitable));
  if (ec) co_return submitted{protocol::error_code::not_coordinator, std::nullopt};
  co_return submitted{protocol::error_code::none, std::move(answer)};
}

template <typename Shard, typename Answer>
asio::awaitable<protocol::error_code> coordinator_runtime<Shard, Answer>::read(int32_t partition,
                                                                               const read_fn& fn) {
  std::shared_ptr<slot> s = find(partition);
  if (!s) co_return missing_error(partition);
  auto on_strand = [&]() -> protocol::error_code {
    if (s->stopped) return protocol::error_code::not_coordinator;
    if (auto e = read_refusal(*s->shard); e != protocol::error_code::none) return e;
    fn(*s->shard);
    return protocol::error_code::none;
  };
  co_return co_await run_on(s->part->strand(), on_strand);
}

template <typename Shard, typename Answer>
bool coordinator_runtime<Shard, Answer>::apply_on_strand(int32_t partition,
                                                         const std::function<void(Shard&, int64_t)>& fn) {
  std::shared_ptr<slot> s = find(partition);
  if (!s || s->stopped) return false;
  assert(s->part->strand().running_in_this_thread());
  fn(*s->shard, now_ms_());
  drain(*s);
  return true;
}

// --- the shard's output ------------------------------------------------------------

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::drain(slot& s) {
  for (;;) {
    acknowledge_ready(s);
    output out = s.shard->take_output();
    bool any = !out.completions.empty();
    for (auto& c : out.completions) {
      auto it = s.waiting.find(c.token);
      if (it == s.waiting.end()) continue;
      const bool sent = it->second->try_send(broker::error_code{}, std::move(c.answer));
      assert(sent && "a request token answered twice");
      (void)sent;
      s.waiting.erase(it);
    }
    if (handle_output(s, out)) any = true;
    if (!any) break;
  }
  s.in_progress.store(in_progress(*s.shard), std::memory_order_relaxed);
  schedule_tick(s);
}

template <typename Shard, typename Answer>
int64_t coordinator_runtime<Shard, Answer>::in_progress_total() const {
  std::lock_guard lock(mutex_);
  int64_t total = 0;
  for (const auto& [p, s] : slots_) total += s->in_progress.load(std::memory_order_relaxed);
  return total;
}

template <typename Shard, typename Answer>
auto coordinator_runtime<Shard, Answer>::recent_load_times(int64_t now_ms, int64_t window_ms) const
    -> std::optional<load_times> {
  std::lock_guard lock(mutex_);
  load_times t;
  int64_t count = 0, sum = 0;
  for (const auto& l : loads_) {
    if (now_ms - l.at_ms > window_ms) continue;
    t.max_ms = std::max<double>(t.max_ms, static_cast<double>(l.took_ms));
    sum += l.took_ms;
    ++count;
  }
  if (count == 0) return std::nullopt;
  t.avg_ms = static_cast<double>(sum) / static_cast<double>(count);
  return t;
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::append(slot& s, uint64_t append_token,
                                                const std::vector<coordinator_append_record>& records,
                                                std::string_view what, const coordinator_producer* producer) {
  std::optional<coordinator_producer> p;
  if (producer) p = *producer;
  s.appends.append(append_token, records, now_ms_(), what, p);
}

template <typename Shard, typename Answer>
std::function<void(typename coordinator_runtime<Shard, Answer>::later_fn)> coordinator_runtime<Shard,
                                                                                            Answer>::later(slot& s) {
  std::weak_ptr<slot> weak = s.weak_from_this();
  return [this, weak, strand = s.part->strand()](later_fn fn) {
    asio::post(strand, [this, weak, fn = std::move(fn)] {
      auto sp = weak.lock();
      if (!sp || sp->stopped) return;
      fn(*sp->shard, now_ms_());
      drain(*sp);
    });
  };
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::acknowledge_ready(slot& s) {
  // The partition calls the wake-up on its strand, which is ours; post so
  // the shard is not re-entered from inside the partition.
  std::weak_ptr<slot> weak = s.weak_from_this();
  auto wake = [this, weak, strand = s.part->strand()] {
    asio::post(strand, [this, weak] {
      auto sp = weak.lock();
      if (!sp || sp->stopped) return;
      drain(*sp);
    });
  };
  s.appends.acknowledge_ready(
      [&](durable_appender::token t, protocol::error_code error) { s.shard->on_append_done(t, error, now_ms_()); },
      wake);
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::schedule_tick(slot& s) {
  const auto deadline = s.stopped ? std::nullopt : s.shard->next_deadline_ms();
  if (deadline == s.timer_deadline_ms) return;
  s.timer_deadline_ms = deadline;
  if (!deadline) {
    s.timer.cancel();
    return;
  }
  // The shard's deadlines are on the wall clock; one extra millisecond so
  // the timer does not fire just before the deadline is due.
  const int64_t wait_ms = std::max<int64_t>(0, *deadline - now_ms_()) + 1;
  s.timer.expires_after(std::chrono::milliseconds(wait_ms));
  std::weak_ptr<slot> weak = s.weak_from_this();
  s.timer.async_wait([this, weak](const broker::error_code& ec) {
    if (ec) return;
    auto sp = weak.lock();
    if (!sp || sp->stopped) return;
    sp->timer_deadline_ms.reset();
    sp->shard->tick(now_ms_());
    drain(*sp);
  });
}

}  // namespace hw::broker
