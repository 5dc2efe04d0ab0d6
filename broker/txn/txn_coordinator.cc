#include "broker/txn/txn_coordinator.h"

#include <cassert>

#include <boost/asio/experimental/concurrent_channel.hpp>
#include <spdlog/spdlog.h>

#include "broker/coordinator_log/coordinator_log.h"
#include "broker/run_on.h"
#include "broker/txn/txn_partition.h"

namespace hw::broker::txn {

using protocol::error_code;

namespace {

using answer_channel = asio::experimental::concurrent_channel<void(broker::error_code, txn_answer)>;

}  // namespace

// One shard and what drives it. Everything but `part` and `epoch` (set
// once) is touched only on part->strand().
struct txn_coordinator::slot : std::enable_shared_from_this<txn_coordinator::slot> {
  slot(std::shared_ptr<partition> p, int32_t leader_epoch, const txn_config& config)
      : part(std::move(p)), epoch(leader_epoch), shard(part->tp().partition, config), timer(part->strand()) {}

  std::shared_ptr<partition> part;
  int32_t epoch;
  txn_shard shard;
  asio::steady_timer timer;
  bool ticking = false;
  std::map<request_token, std::shared_ptr<answer_channel>> waiting;
  request_token next_token = 1;
  durable_appender appends{part};
  bool stopped = false;
};

txn_coordinator::txn_coordinator(replica_manager& replicas, txn_coordinator_options options, clock now_ms,
                                 marker_writer markers)
    : replicas_(replicas),
      options_(options),
      now_ms_(std::move(now_ms)),
      markers_(std::move(markers)),
      level_(options.txn.transaction_version_level) {}

txn_coordinator::~txn_coordinator() = default;

int32_t txn_coordinator::partition_for(std::string_view transactional_id) const {
  return txn_partition(transactional_id, options_.num_partitions);
}

void txn_coordinator::set_transaction_version_level(int16_t level) {
  if (level_.exchange(level, std::memory_order_relaxed) == level) return;
  std::vector<std::shared_ptr<slot>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [p, s] : slots_) all.push_back(s);
  }
  for (auto& s : all)
    asio::post(s->part->strand(), [s, level] { s->shard.set_transaction_version_level(level); });
}

std::shared_ptr<txn_coordinator::slot> txn_coordinator::find(int32_t partition) const {
  std::lock_guard lock(mutex_);
  auto it = slots_.find(partition);
  return it == slots_.end() ? nullptr : it->second;
}

std::vector<int32_t> txn_coordinator::active_partitions() const {
  std::lock_guard lock(mutex_);
  std::vector<int32_t> out;
  for (const auto& [p, s] : slots_) out.push_back(p);
  return out;
}

bool txn_coordinator::still_coordinates(const marker_job& job) const {
  auto s = find(partition_for(job.transactional_id));
  return s && s->epoch == job.coordinator_epoch;
}

error_code txn_coordinator::missing_error(int32_t partition) const {
  auto p = replicas_.get({std::string(transaction_state_topic), partition});
  return p && p->is_leader() ? error_code::coordinator_load_in_progress : error_code::not_coordinator;
}

// --- leadership ---------------------------------------------------------------

void txn_coordinator::on_leadership(const storage::topic_partition& tp, bool is_leader, int32_t epoch) {
  if (tp.topic != transaction_state_topic) return;
  if (!is_leader) {
    stop_shard(tp.partition);
    return;
  }
  if (auto p = replicas_.get(tp)) start_shard(std::move(p), epoch);
}

void txn_coordinator::start_shard(std::shared_ptr<partition> p, int32_t epoch) {
  const int32_t index = p->tp().partition;
  if (auto existing = find(index)) {
    if (existing->part == p && existing->epoch == epoch) return;
    // A new leader epoch is a new coordinator epoch: markers of the old one
    // are fenced, so the shard reloads under the new one.
    stop_shard(index);
  }
  txn_config config = options_.txn;
  config.transaction_version_level = transaction_version_level();
  auto s = std::make_shared<slot>(p, epoch, config);
  s->shard.begin_load(epoch);
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    slots_[index] = s;
  }
  spdlog::info("Elected as the transaction coordinator for {}-{} at epoch {}", transaction_state_topic, index, epoch);
  asio::post(p->strand(), [this, s] { load(*s); });
}

void txn_coordinator::stop_shard(int32_t partition) {
  std::shared_ptr<slot> s;
  {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(partition);
    if (it == slots_.end()) return;
    s = std::move(it->second);
    slots_.erase(it);
  }
  spdlog::info("Resigned as the transaction coordinator for {}-{} at epoch {}", transaction_state_topic, partition,
               s->epoch);
  asio::post(s->part->strand(), [this, s] {
    s->stopped = true;
    s->timer.cancel();
    s->shard.unload();
    drain(*s);
    for (auto& [token, ch] : s->waiting) ch->close();
    s->waiting.clear();
  });
}

asio::awaitable<void> txn_coordinator::stop() {
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
  for (auto& p : parts) co_await run_on(p->strand(), [] {});
}

// --- loading --------------------------------------------------------------------

void txn_coordinator::load(slot& s) {
  if (s.stopped) return;
  size_t records = 0, bad = 0;
  auto replayed = replay_partition(
      *s.part, options_.load_buffer_bytes,
      [&](const protocol::record_batch_view& batch, const protocol::record_view& record) {
        if (batch.is_control() || !record.key) return;
        std::optional<std::span<const uint8_t>> value;
        if (record.value) value = std::span<const uint8_t>(*record.value);
        std::string error;
        if (s.shard.load(std::span<const uint8_t>(*record.key), value, &error)) {
          ++records;
        } else if (++bad <= 5) {
          spdlog::error("Skipping a record of {}-{} that does not decode: {}", transaction_state_topic,
                        s.part->tp().partition, error);
        }
      });
  if (replayed.error)
    spdlog::error("Loading {}-{} at offset {}: {}", transaction_state_topic, s.part->tp().partition,
                  replayed.next_offset, replayed.error.message());
  s.shard.end_load(now_ms_());
  spdlog::info("Loaded {} transaction records from {}-{} (up to offset {}); {} transactional ids",
               records, transaction_state_topic, s.part->tp().partition, replayed.next_offset, s.shard.size());
  drain(s);
}

// --- requests -------------------------------------------------------------------

asio::awaitable<txn_coordinator::submitted> txn_coordinator::submit(int32_t partition, const issue_fn& issue) {
  std::shared_ptr<slot> s = find(partition);
  if (!s) co_return submitted{missing_error(partition), std::nullopt};
  auto channel = std::make_shared<answer_channel>(co_await asio::this_coro::executor, 1);
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
  auto [ec, answer] = co_await channel->async_receive(asio::as_tuple(asio::use_awaitable));
  if (ec) co_return submitted{error_code::not_coordinator, std::nullopt};
  co_return submitted{error_code::none, std::move(answer)};
}

asio::awaitable<error_code> txn_coordinator::read(int32_t partition, const read_fn& fn) {
  std::shared_ptr<slot> s = find(partition);
  if (!s) co_return missing_error(partition);
  auto on_strand = [&]() -> error_code {
    if (s->stopped) return error_code::not_coordinator;
    if (auto e = s->shard.not_serving(); e != error_code::none) return e;
    fn(s->shard);
    return error_code::none;
  };
  co_return co_await run_on(s->part->strand(), on_strand);
}

// --- the shard's output -----------------------------------------------------------

void txn_coordinator::drain(slot& s) {
  std::weak_ptr<slot> weak = s.weak_from_this();
  auto strand = s.part->strand();
  auto wake = [this, weak, strand] {
    asio::post(strand, [this, weak] {
      auto sp = weak.lock();
      if (!sp || sp->stopped) return;
      drain(*sp);
    });
  };
  for (;;) {
    s.appends.acknowledge_ready(
        [&](durable_appender::token token, error_code error) { s.shard.on_append_done(token, error, now_ms_()); },
        wake);
    txn_shard_output out = s.shard.take_output();
    if (out.completions.empty() && out.appends.empty() && out.markers.empty() && out.illegal.empty()) break;
    for (const auto& line : out.illegal) spdlog::error("Transaction coordinator {}: {}", s.part->tp().partition, line);
    for (auto& c : out.completions) {
      auto it = s.waiting.find(c.token);
      if (it == s.waiting.end()) continue;
      const bool sent = it->second->try_send(broker::error_code{}, std::move(c.answer));
      assert(sent && "a request token answered twice");
      (void)sent;
      s.waiting.erase(it);
    }
    for (auto& a : out.appends) {
      std::vector<coordinator_append_record> records{{a.record.key, std::nullopt}};
      if (a.record.value) records[0].value = std::span<const uint8_t>(*a.record.value);
      s.appends.append(a.token, records, now_ms_(), "a transaction record");
    }
    for (auto& job : out.markers) {
      const std::string id = job.transactional_id;
      const int32_t coordinator_epoch = job.coordinator_epoch;
      markers_(std::move(job), [this, weak, strand, id, coordinator_epoch] {
        asio::post(strand, [this, weak, id, coordinator_epoch] {
          auto sp = weak.lock();
          if (!sp || sp->stopped) return;
          sp->shard.on_markers_written(id, coordinator_epoch, now_ms_());
          drain(*sp);
        });
      });
    }
  }
  schedule_tick(s);
}

void txn_coordinator::schedule_tick(slot& s) {
  if (s.ticking || s.stopped || !s.shard.active()) return;
  s.ticking = true;
  s.timer.expires_after(std::chrono::milliseconds(options_.tick_interval_ms));
  std::weak_ptr<slot> weak = s.weak_from_this();
  s.timer.async_wait([this, weak](const broker::error_code& ec) {
    auto sp = weak.lock();
    if (!sp) return;
    sp->ticking = false;
    if (ec || sp->stopped) return;
    sp->shard.tick(now_ms_());
    drain(*sp);
  });
}

}  // namespace hw::broker::txn
