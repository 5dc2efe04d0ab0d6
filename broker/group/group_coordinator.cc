#include "broker/group/group_coordinator.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <random>

#include <boost/asio/experimental/concurrent_channel.hpp>
#include <spdlog/spdlog.h>

#include "broker/coordinator_log/coordinator_log.h"
#include "broker/group/group_partition.h"
#include "broker/run_on.h"
#include "broker/topics.h"
#include "protocol/records/control_record.h"

namespace hw::broker::group {

using protocol::error_code;

namespace {

// One parked request's answer travels from the shard's strand to the
// handler's coroutine through this (capacity one, thread-safe).
using completion_channel = asio::experimental::concurrent_channel<void(broker::error_code, shard_response)>;

}  // namespace

// One shard and what drives it. Everything but `part`, `epoch` (set once)
// is touched only on part->strand().
struct group_coordinator::slot : std::enable_shared_from_this<group_coordinator::slot> {
  slot(std::shared_ptr<partition> p, int32_t leader_epoch, const group_config& config, uint64_t seed)
      : part(std::move(p)), epoch(leader_epoch), rng(seed), shard(config, [this] { return rng(); }),
        timer(part->strand()) {}

  std::shared_ptr<partition> part;
  int32_t epoch;
  std::mt19937_64 rng;
  group_shard shard;
  asio::steady_timer timer;
  std::optional<int64_t> timer_deadline_ms;
  std::map<request_token, std::shared_ptr<completion_channel>> waiting;
  request_token next_token = 1;
  durable_appender appends{part};
  bool stopped = false;
  std::atomic<bool> loaded{false};  // read from any thread (loaded())
};

group_coordinator::group_coordinator(asio::any_io_executor executor, replica_manager& replicas,
                                     coordinator_options options, clock now_ms)
    : executor_(std::move(executor)), replicas_(replicas), options_(options), now_ms_(std::move(now_ms)) {}

group_coordinator::~group_coordinator() = default;

int32_t group_coordinator::partition_for(std::string_view group_id) const {
  return group_partition(group_id, options_.num_partitions);
}

std::shared_ptr<group_coordinator::slot> group_coordinator::find(int32_t partition) const {
  std::lock_guard lock(mutex_);
  auto it = slots_.find(partition);
  return it == slots_.end() ? nullptr : it->second;
}

bool group_coordinator::loaded(const std::vector<int32_t>& partitions) const {
  std::lock_guard lock(mutex_);
  for (int32_t p : partitions) {
    auto it = slots_.find(p);
    if (it == slots_.end() || !it->second->loaded.load(std::memory_order_acquire)) return false;
  }
  return true;
}

std::vector<int32_t> group_coordinator::shard_partitions() const {
  std::lock_guard lock(mutex_);
  std::vector<int32_t> out;
  for (const auto& [p, s] : slots_) out.push_back(p);
  return out;
}

error_code group_coordinator::missing_error(int32_t partition) const {
  // Led here but the listener has not run yet: the shard is about to load.
  auto p = replicas_.get({std::string(consumer_offsets_topic), partition});
  return p && p->is_leader() ? error_code::coordinator_load_in_progress : error_code::not_coordinator;
}

// --- leadership ------------------------------------------------------------------

void group_coordinator::on_leadership(const storage::topic_partition& tp, bool is_leader, int32_t epoch) {
  if (tp.topic != consumer_offsets_topic) return;
  if (!is_leader) {
    stop_shard(tp.partition);
    return;
  }
  auto p = replicas_.get(tp);
  if (p) start_shard(std::move(p), epoch);
}

void group_coordinator::start_shard(std::shared_ptr<partition> p, int32_t epoch) {
  const int32_t index = p->tp().partition;
  if (auto existing = find(index)) {
    // A new epoch of the same leadership: the shard's state is still this
    // log's state.
    if (existing->part == p) return;
    stop_shard(index);
  }
  std::random_device device;
  const uint64_t seed = options_.random_seed != 0 ? options_.random_seed + static_cast<uint64_t>(index)
                                                   : (static_cast<uint64_t>(device()) << 32) ^ device();
  auto s = std::make_shared<slot>(p, epoch, options_.group, seed);
  // Nobody else can reach the shard yet; from here on requests see
  // COORDINATOR_LOAD_IN_PROGRESS until the load below ends.
  s->shard.begin_load();
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    slots_[index] = s;
  }
  spdlog::info("Loading group metadata from {}-{} at leader epoch {}", consumer_offsets_topic, index, epoch);
  asio::post(p->strand(), [this, s] { load(*s); });
}

void group_coordinator::stop_shard(int32_t partition) {
  std::shared_ptr<slot> s;
  {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(partition);
    if (it == slots_.end()) return;
    s = std::move(it->second);
    slots_.erase(it);
  }
  spdlog::info("Unloading group metadata of {}-{}", consumer_offsets_topic, partition);
  asio::post(s->part->strand(), [this, s] {
    s->stopped = true;
    s->timer.cancel();
    s->shard.unload();
    drain(*s);
    // Whatever the shard did not answer (nothing, by its contract) learns
    // that this broker is no longer the coordinator.
    for (auto& [token, ch] : s->waiting) ch->close();
    s->waiting.clear();
  });
}

asio::awaitable<void> group_coordinator::stop() {
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

// --- loading ---------------------------------------------------------------------

void group_coordinator::load(slot& s) {
  if (s.stopped) return;
  size_t records = 0;
  auto replayed = replay_partition(
      *s.part, options_.load_buffer_bytes,
      [&](const protocol::record_batch_view& batch, const protocol::record_view& record) {
        if (batch.is_control()) {
          if (auto marker = protocol::parse_end_txn_marker(record))
            s.shard.on_txn_marker(batch.producer_id(), marker->type == protocol::control_record_type::commit);
          return;
        }
        if (!record.key) return;
        loaded_record in;
        in.key = *record.key;
        in.value = record.value;
        in.producer_id = batch.is_transactional() ? batch.producer_id() : -1;
        if (s.shard.load(in)) ++records;
      });
  if (replayed.error)
    spdlog::error("Loading {}-{} at offset {}: {}", consumer_offsets_topic, s.part->tp().partition,
                  replayed.next_offset, replayed.error.message());
  s.shard.end_load(now_ms_());
  s.loaded.store(true, std::memory_order_release);
  spdlog::info("Loaded {} group records from {}-{} (up to offset {}); {} groups", records, consumer_offsets_topic,
               s.part->tp().partition, replayed.next_offset, s.shard.group_count());
  drain(s);
}

// --- requests --------------------------------------------------------------------

asio::awaitable<group_coordinator::submitted> group_coordinator::submit(int32_t partition, const issue_fn& issue) {
  std::shared_ptr<slot> s = find(partition);
  if (!s) co_return submitted{missing_error(partition), std::nullopt};
  auto channel = std::make_shared<completion_channel>(co_await asio::this_coro::executor, 1);
  // Named, capturing by reference only: the frame keeps s and channel.
  auto on_strand = [&] {
    if (s->stopped) return false;
    const request_token token = s->next_token++;
    s->waiting.emplace(token, channel);
    issue(s->shard, token, now_ms_());
    drain(*s);
    return true;
  };
  const bool issued = co_await run_on(s->part->strand(), on_strand);
  if (!issued) co_return submitted{error_code::not_coordinator, std::nullopt};
  auto [ec, response] = co_await channel->async_receive(asio::as_tuple(asio::use_awaitable));
  if (ec) co_return submitted{error_code::not_coordinator, std::nullopt};
  co_return submitted{error_code::none, std::move(response)};
}

asio::awaitable<error_code> group_coordinator::read(int32_t partition, const read_fn& fn) {
  std::shared_ptr<slot> s = find(partition);
  if (!s) co_return missing_error(partition);
  auto on_strand = [&] {
    if (s->stopped) return false;
    fn(s->shard);
    return true;
  };
  const bool ran = co_await run_on(s->part->strand(), on_strand);
  co_return ran ? error_code::none : error_code::not_coordinator;
}

// --- the shard's output ------------------------------------------------------------

void group_coordinator::drain(slot& s) {
  for (;;) {
    acknowledge_ready(s);
    shard_output out = s.shard.take_output();
    if (out.completions.empty() && out.appends.empty()) break;
    for (auto& c : out.completions) {
      auto it = s.waiting.find(c.token);
      if (it == s.waiting.end()) continue;
      const bool sent = it->second->try_send(broker::error_code{}, std::move(c.response));
      assert(sent && "a request token completed twice");
      (void)sent;
      s.waiting.erase(it);
    }
    for (auto& a : out.appends) write(s, std::move(a));
  }
  schedule_tick(s);
}

void group_coordinator::write(slot& s, append_request request) {
  std::vector<coordinator_append_record> records;
  records.reserve(request.records.size());
  for (const auto& r : request.records) {
    coordinator_append_record out{r.key, std::nullopt};
    if (r.value) out.value = std::span<const uint8_t>(*r.value);
    records.push_back(out);
  }
  s.appends.append(request.token, records, now_ms_(), std::to_string(request.records.size()) + " group records");
}

void group_coordinator::acknowledge_ready(slot& s) {
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
      [&](durable_appender::token token, error_code error) { s.shard.on_append_done(token, error, now_ms_()); },
      wake);
}

void group_coordinator::schedule_tick(slot& s) {
  const auto deadline = s.stopped ? std::nullopt : s.shard.next_deadline_ms();
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
    sp->shard.tick(now_ms_());
    drain(*sp);
  });
}

}  // namespace hw::broker::group
