#pragma once
// Member definitions of coordinator_runtime (coordinator_runtime.h). Only
// the .cc file of a coordinator includes this, and instantiates the
// template there once.

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <map>

#include <boost/asio/experimental/concurrent_channel.hpp>
#include <spdlog/spdlog.h>

#include "broker/coordinator_log/coordinator_log.h"
#include "broker/coordinator_log/coordinator_runtime.h"
#include "broker/run_on.h"

namespace hw::broker {

// One shard and what drives it: drain() hands the shard's output on
// (answers to the waiting coroutines, the rest to the runtime's
// handle_output hook), acknowledges the appends that became durable and
// sets the timer to the shard's next deadline. Everything but `part`,
// `epoch` (set once), `loaded` and `in_progress` (atomic) is touched only on
// part->strand(); the runtime outlives its slots.
template <typename Shard, typename Answer>
struct coordinator_runtime<Shard, Answer>::slot : std::enable_shared_from_this<slot> {
  // One waiting request's answer travels from the shard's strand to its
  // coroutine through this (capacity one, thread-safe).
  using answer_channel = asio::experimental::concurrent_channel<void(broker::error_code, Answer)>;

  slot(coordinator_runtime& o, std::shared_ptr<partition> p, int32_t leader_epoch, std::unique_ptr<Shard> s)
      : owner(o), part(std::move(p)), epoch(leader_epoch), shard(std::move(s)), timer(part->strand()) {}

  // On part->strand():
  void drain();
  void acknowledge_ready();
  void schedule_tick();

  coordinator_runtime& owner;
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
std::vector<int32_t> coordinator_runtime<Shard, Answer>::shard_partitions() const {
  return slots_.partitions();
}

template <typename Shard, typename Answer>
bool coordinator_runtime<Shard, Answer>::loaded(const std::vector<int32_t>& partitions) const {
  return slots_.all_loaded(partitions);
}

template <typename Shard, typename Answer>
std::optional<int32_t> coordinator_runtime<Shard, Answer>::shard_epoch(int32_t partition) const {
  auto s = slots_.find(partition);
  if (!s) return std::nullopt;
  return s->epoch;
}

template <typename Shard, typename Answer>
int64_t coordinator_runtime<Shard, Answer>::in_progress_total() const {
  return slots_.in_progress_total();
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
  if (auto existing = slots_.find(index)) {
    // The same leadership at a new epoch keeps the shard, whose state is
    // still this log's, unless the epoch is part of the shard's identity.
    if (existing->part == p && (existing->epoch == epoch || !options_.reload_on_new_epoch)) return;
    stop_shard(index);
  }
  // Nobody else can reach the shard yet; from here on requests see it
  // loading until load() below ends.
  auto s = std::make_shared<slot>(*this, p, epoch, make_shard(index, epoch));
  if (!slots_.put(index, s)) return;
  spdlog::info("Loading {} from {}-{} at leader epoch {}", options_.what, options_.topic, index, epoch);
  asio::post(p->strand(), [this, s] { load(*s); });
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::stop_shard(int32_t partition) {
  std::shared_ptr<slot> s = slots_.take(partition);
  if (!s) return;
  spdlog::info("Unloading {} of {}-{} (leader epoch {})", options_.what, options_.topic, partition, s->epoch);
  asio::post(s->part->strand(), [this, s] {
    s->stopped = true;
    s->timer.cancel();
    s->shard->unload();
    s->drain();
    published(s->part->tp().partition, nullptr);
    // Whatever the shard did not answer (nothing, by its contract) learns
    // that this broker is no longer the coordinator.
    for (auto& [t, ch] : s->waiting) ch->close();
    s->waiting.clear();
  });
}

template <typename Shard, typename Answer>
asio::awaitable<void> coordinator_runtime<Shard, Answer>::stop() {
  std::vector<std::shared_ptr<partition>> parts;
  for (int32_t p : slots_.close()) {
    if (auto s = slots_.find(p)) parts.push_back(s->part);
    stop_shard(p);
  }
  // The unloads were posted to each strand; wait for them to run.
  for (auto& p : parts) co_await run_on(p->strand(), [] {});
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::post_to_each(const std::function<void(Shard&)>& fn) {
  for (auto& s : slots_.all())
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
  const int64_t took_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  loads_.record(now_ms_(), took_ms);
  spdlog::info("Loaded {} records from {}-{} (up to offset {}); {} {}", records, options_.topic, index,
               replayed.next_offset, size(*s.shard), options_.entries);
  s.drain();
}

// --- requests --------------------------------------------------------------------

template <typename Shard, typename Answer>
auto coordinator_runtime<Shard, Answer>::submit(int32_t partition, const issue_fn& issue)
    -> asio::awaitable<submitted> {
  std::shared_ptr<slot> s = slots_.find(partition);
  if (!s) co_return submitted{missing_error(partition), std::nullopt};
  auto channel = std::make_shared<typename slot::answer_channel>(co_await asio::this_coro::executor, 1);
  // Named, capturing by reference only: the frame keeps s and channel.
  auto on_strand = [&] {
    if (s->stopped) return false;
    const token t = s->next_token++;
    s->waiting.emplace(t, channel);
    issue(*s->shard, t, now_ms_());
    s->drain();
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
  std::shared_ptr<slot> s = slots_.find(partition);
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
  std::shared_ptr<slot> s = slots_.find(partition);
  if (!s || s->stopped) return false;
  assert(s->part->strand().running_in_this_thread());
  fn(*s->shard, now_ms_());
  s->drain();
  return true;
}

// --- the shard's output ------------------------------------------------------------

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
      sp->drain();
    });
  };
}

// --- the slot: the shard's output, appends and timer ---------------------------------

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::slot::drain() {
  for (;;) {
    acknowledge_ready();
    output out = shard->take_output();
    bool any = !out.completions.empty();
    for (auto& c : out.completions) {
      auto it = waiting.find(c.token);
      if (it == waiting.end()) continue;
      const bool sent = it->second->try_send(broker::error_code{}, std::move(c.answer));
      assert(sent && "a request token answered twice");
      (void)sent;
      waiting.erase(it);
    }
    if (owner.handle_output(*this, out)) any = true;
    if (!any) break;
  }
  in_progress.store(owner.in_progress(*shard), std::memory_order_relaxed);
  owner.published(part->tp().partition, shard.get());
  schedule_tick();
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::slot::acknowledge_ready() {
  // The partition calls the wake-up on its strand, which is ours; post so
  // the shard is not re-entered from inside the partition.
  std::weak_ptr<slot> weak = this->weak_from_this();
  auto wake = [weak, strand = part->strand()] {
    asio::post(strand, [weak] {
      auto sp = weak.lock();
      if (!sp || sp->stopped) return;
      sp->drain();
    });
  };
  appends.acknowledge_ready(
      [&](durable_appender::token t, protocol::error_code error) {
        shard->on_append_done(t, error, owner.now_ms_());
      },
      wake);
}

template <typename Shard, typename Answer>
void coordinator_runtime<Shard, Answer>::slot::schedule_tick() {
  const auto deadline = stopped ? std::nullopt : shard->next_deadline_ms();
  if (deadline == timer_deadline_ms) return;
  timer_deadline_ms = deadline;
  if (!deadline) {
    timer.cancel();
    return;
  }
  // The shard's deadlines are on the wall clock; one extra millisecond so
  // the timer does not fire just before the deadline is due.
  const int64_t wait_ms = std::max<int64_t>(0, *deadline - owner.now_ms_()) + 1;
  timer.expires_after(std::chrono::milliseconds(wait_ms));
  std::weak_ptr<slot> weak = this->weak_from_this();
  timer.async_wait([weak](const broker::error_code& ec) {
    if (ec) return;
    auto sp = weak.lock();
    if (!sp || sp->stopped) return;
    sp->timer_deadline_ms.reset();
    sp->shard->tick(sp->owner.now_ms_());
    sp->drain();
  });
}

}  // namespace hw::broker
