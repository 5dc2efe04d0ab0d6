#include "broker/replica/replica_fetcher.h"

#include <algorithm>
#include <cassert>
#include <span>
#include <vector>

#include <spdlog/spdlog.h>

#include "broker/run_on.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/records/record_batch.h"

namespace hw::broker {

using perr = protocol::error_code;

namespace {

// The mutable bytes of `frame` that the view [data, data + size) points at.
std::span<uint8_t> frame_span(const frame_bytes& frame, const uint8_t* data, size_t size) {
  const std::span<uint8_t> all = frame.bytes();
  const auto at = static_cast<size_t>(data - all.data());
  assert(at <= all.size() && size <= all.size() - at);
  return all.subspan(at, size);
}

constexpr int16_t fetch_key = 1;
constexpr int16_t fetch_version = 16;
constexpr int16_t list_offsets_key = 2;
constexpr int16_t list_offsets_version = 7;
}  // namespace

replica_fetcher::replica_fetcher(asio::any_io_executor executor, node_id self, node_id source, std::string host,
                                 uint16_t port, fetcher_settings settings, std::function<int64_t()> broker_epoch,
                                 std::function<int64_t()> now_ms)
    : strand_(asio::make_strand(executor)),
      self_(self),
      source_(source),
      host_(std::move(host)),
      port_(port),
      settings_(settings),
      broker_epoch_(std::move(broker_epoch)),
      now_ms_(std::move(now_ms)),
      wake_(strand_, asio::steady_timer::time_point::max()) {
  kafka_client_options o;
  o.host = host_;
  o.port = port_;
  o.client_id = "broker-" + std::to_string(self.value) + "-fetcher-" + std::to_string(source.value);
  o.security = settings_.security;
  client_ = kafka_client::create(strand_, o);
}

void replica_fetcher::start() {
  asio::co_spawn(strand_, [self = shared_from_this()]() -> asio::awaitable<void> { co_await self->run(); },
                 asio::detached);
}

void replica_fetcher::wake() { wake_.cancel(); }

void replica_fetcher::add(std::shared_ptr<partition> p, storage::leader_epoch leader_epoch, storage::offset log_end,
                          std::optional<storage::leader_epoch> latest_epoch) {
  asio::post(strand_, [self = shared_from_this(), p = std::move(p), leader_epoch, log_end, latest_epoch]() mutable {
    if (self->stopped_) return;
    entry e{p, follower_state(self->settings_.backoff_ms), self->next_generation_++};
    e.state.start(leader_epoch, log_end, latest_epoch);
    self->partitions_.insert_or_assign(p->tp(), std::move(e));
    self->size_.store(self->partitions_.size(), std::memory_order_relaxed);
    self->wake();
  });
}

asio::awaitable<void> replica_fetcher::remove(storage::topic_partition tp) {
  co_await run_on(strand_, [&] {
    partitions_.erase(tp);
    size_.store(partitions_.size(), std::memory_order_relaxed);
  });
}

void replica_fetcher::stop() {
  asio::post(strand_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->partitions_.clear();
    self->client_->close();
    self->wake();
  });
}

asio::awaitable<void> replica_fetcher::run() {
  while (!stopped_) {
    const int64_t now = now_ms_();
    // Partitions waiting for the leader's offsets are reset first.
    std::vector<storage::topic_partition> resetting;
    for (auto& [tp, e] : partitions_)
      if (e.state.phase(now) == follower_phase::resetting) resetting.push_back(tp);
    for (const auto& tp : resetting) co_await reset_offsets(tp);
    if (stopped_) break;

    bool any_ready = false;
    int64_t next_retry = INT64_MAX;
    for (auto& [tp, e] : partitions_) {
      if (e.state.ready(now)) any_ready = true;
      else if (e.state.phase(now) == follower_phase::delayed) next_retry = std::min(next_retry, e.state.retry_at_ms());
    }
    if (!any_ready) {
      // Nothing to fetch: until a partition is added or a backoff ends.
      if (next_retry == INT64_MAX) wake_.expires_at(asio::steady_timer::time_point::max());
      else wake_.expires_after(std::chrono::milliseconds(std::max<int64_t>(next_retry - now, 1)));
      boost::system::error_code ignored;
      co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      continue;
    }
    co_await fetch_once(now);
  }
}

replica_fetcher::fetch_plan replica_fetcher::plan_fetch(int64_t now) const {
  fetch_plan plan;
  plan.asked.reserve(partitions_.size());
  plan.wanted.reserve(partitions_.size());
  replication_quota* quota = settings_.quota;
  const bool over_quota = quota && quota->exceeded(now);
  for (const auto& [tp, e] : partitions_) {
    if (!e.state.ready(now)) continue;
    if (over_quota && e.state.lag() > 0 && quota->throttled(tp)) {
      plan.held_back = true;
      continue;
    }
    const fetch_position& pos = e.state.position();
    fetch::partition_request& r = plan.wanted.emplace_back();
    r.key = {e.part->topic_id(), "", tp.partition};
    r.fetch_offset = pos.fetch_offset;
    r.log_start_offset = e.part->log_start_offset();
    r.max_bytes = settings_.partition_max_bytes;
    r.current_leader_epoch = pos.current_leader_epoch;
    r.last_fetched_epoch = pos.last_fetched_epoch;
    plan.asked.push_back(asked_partition{{r.key.topic_id, tp.partition}, tp, e.generation, pos});
  }
  std::sort(plan.asked.begin(), plan.asked.end(),
            [](const asked_partition& a, const asked_partition& b) { return a.key < b.key; });
  return plan;
}

const replica_fetcher::asked_partition* replica_fetcher::fetch_plan::find(const protocol::uuid& topic_id,
                                                                          int32_t partition) const {
  const auto key = std::make_pair(topic_id, partition);
  auto it = std::lower_bound(asked.begin(), asked.end(), key,
                             [](const asked_partition& a, const auto& k) { return a.key < k; });
  return it != asked.end() && it->key == key ? &*it : nullptr;
}

protocol::msg::fetch_request replica_fetcher::fetch_request_for(
    const fetch::fetch_session_handler::request& session) const {
  protocol::msg::fetch_request request;
  request.replica_id = -1;  // v15+: in replica_state
  request.replica_state.replica_id = self_.value;
  request.replica_state.replica_epoch = broker_epoch_();
  request.max_wait_ms = settings_.max_wait_ms;
  request.min_bytes = settings_.min_bytes;
  request.max_bytes = settings_.response_max_bytes;
  request.isolation_level = 0;
  request.session_id = session.session_id;
  request.session_epoch = session.session_epoch;
  for (const auto& r : session.partitions) {
    if (request.topics.empty() || request.topics.back().topic_id != r.key.topic_id)
      request.topics.emplace_back().topic_id = r.key.topic_id;
    auto& fp = request.topics.back().partitions.emplace_back();
    fp.partition = r.key.partition;
    fp.current_leader_epoch = r.current_leader_epoch ? r.current_leader_epoch->value : -1;
    fp.fetch_offset = r.fetch_offset.value;
    fp.last_fetched_epoch = r.last_fetched_epoch ? r.last_fetched_epoch->value : -1;
    fp.log_start_offset = r.log_start_offset.value;
    fp.partition_max_bytes = r.max_bytes;
  }
  for (const auto& f : session.forgotten) {
    if (request.forgotten_topics_data.empty() || request.forgotten_topics_data.back().topic_id != f.topic_id)
      request.forgotten_topics_data.emplace_back().topic_id = f.topic_id;
    request.forgotten_topics_data.back().partitions.push_back(f.partition);
  }
  return request;
}

asio::awaitable<void> replica_fetcher::fetch_once(int64_t now) {
  const fetch_plan plan = plan_fetch(now);
  if (plan.wanted.empty() && plan.held_back) {
    // Everything ready is throttled: wait for the rate to fall (or a
    // partition to be added) rather than spin.
    wake_.expires_after(std::chrono::milliseconds(std::max<int64_t>(settings_.backoff_ms, 1)));
    boost::system::error_code ignored;
    co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    co_return;
  }
  const fetch::fetch_session_handler::request session = session_.build(plan.wanted);
  const auto timeout = settings_.request_timeout + std::chrono::milliseconds(settings_.max_wait_ms);
  auto outcome = co_await client_->call<protocol::msg::fetch_response>(fetch_key, fetch_version,
                                                                      fetch_request_for(session), timeout);
  if (stopped_) co_return;
  const int64_t answered = now_ms_();
  if (!answer_usable(outcome.error, static_cast<perr>(outcome.response.error_code), outcome.response.session_id,
                     session.session_id, plan, answered)) {
    co_return;
  }
  for (auto& topic : outcome.response.responses) {
    for (auto& pd : topic.partitions) {
      const asked_partition* asked = plan.find(topic.topic_id, pd.partition_index);
      if (!asked) continue;
      co_await apply_answer(*asked, pd, outcome.frame, answered);
    }
  }
  // Over every partition: an incremental answer leaves out the unchanged ones.
  int64_t max_lag = 0;
  for (const auto& [tp, e] : partitions_) max_lag = std::max(max_lag, e.state.lag());
  max_lag_.store(max_lag, std::memory_order_relaxed);
}

bool replica_fetcher::answer_usable(const std::error_code& error, perr top, int32_t answered_session,
                                    int32_t session_id, const fetch_plan& plan, int64_t answered) {
  if (error) {
    session_.handle_error();
  } else if (!session_.handle_response(top, answered_session) &&
             (top == perr::fetch_session_id_not_found || top == perr::invalid_fetch_session_epoch ||
              top == perr::none)) {
    // The session is gone or out of step (the leader restarted or evicted
    // it): the next request, at once, is full and opens a new one.
    spdlog::debug("Fetch session {} with broker {} ended ({}); opening a new one", session_id, source_.value,
                  protocol::error_name(top));
    return false;
  }
  if (!error && top == perr::none) return true;
  if (error)
    spdlog::debug("Fetch from broker {} ({}:{}) failed: {}", source_.value, host_, port_, error.message());
  else
    spdlog::warn("Fetch from broker {} failed: {}", source_.value, protocol::error_name(top));
  for (const asked_partition& a : plan.asked) {
    if (entry* e = current(a)) e->state.on_request_failed(answered);
  }
  return false;
}

replica_fetcher::entry* replica_fetcher::current(const asked_partition& asked) {
  auto found = partitions_.find(asked.tp);
  return found != partitions_.end() && found->second.generation == asked.generation ? &found->second : nullptr;
}

asio::awaitable<void> replica_fetcher::apply_answer(const asked_partition& asked, const fetched_partition& pd,
                                                    const frame_bytes& frame, int64_t answered) {
  // Removed or re-added while the request was out: not this answer's. The
  // entry may also go (a role change unfollows the partition) while this
  // coroutine waits on the partition's strand: looked up again after every
  // wait (current()), never held across one.
  entry* e = current(asked);
  if (!e) co_return;
  const perr err = static_cast<perr>(pd.error_code);
  if (err != perr::none) {
    if (err != perr::offset_out_of_range)
      spdlog::debug("Fetch of {} from broker {}: {}", storage::partition_dir_name(asked.tp), source_.value,
                    protocol::error_name(err));
    e->state.on_error(err, answered);
    co_return;
  }
  if (pd.diverging_epoch.epoch >= 0 || pd.diverging_epoch.end_offset >= 0) {
    const diverging_epoch leader{storage::leader_epoch(pd.diverging_epoch.epoch),
                                 storage::offset(pd.diverging_epoch.end_offset)};
    co_await truncate_diverging(asked, e->part, leader, answered);
    co_return;
  }
  co_await append_fetched(asked, e->part, pd, frame, answered);
}

asio::awaitable<void> replica_fetcher::truncate_diverging(const asked_partition& asked, std::shared_ptr<partition> p,
                                                          diverging_epoch leader, int64_t answered) {
  const storage::leader_epoch epoch = asked.position.current_leader_epoch;
  struct cut_result {
    std::error_code error;
    bool applied = false;
    storage::offset log_end;
    std::optional<storage::leader_epoch> latest;
  };
  auto r = co_await run_on(p->strand(), [&] {
    cut_result out;
    if (p->removed() || p->is_leader() || p->leader_epoch() != epoch.value) return out;
    const storage::epoch_end_offset local = p->end_offset_for(leader.epoch);
    const truncation t = truncation_for_divergence(leader, local.epoch, local.end_offset, p->log_end_offset());
    out.error = p->truncate(t, answered);
    out.applied = true;
    out.log_end = p->log_end_offset();
    out.latest = p->latest_epoch();
    return out;
  });
  entry* e = current(asked);
  if (!e) co_return;
  if (r.error) {
    spdlog::error("Cannot truncate {}: {}", storage::partition_dir_name(asked.tp), r.error.message());
    e->state.on_storage_error();
  } else if (r.applied) {
    e->state.on_truncated(r.log_end, r.latest);
  }
}

asio::awaitable<void> replica_fetcher::append_fetched(const asked_partition& asked, std::shared_ptr<partition> p,
                                                      const fetched_partition& pd, const frame_bytes& frame,
                                                      int64_t answered) {
  const storage::offset leader_hw(pd.high_watermark);
  const storage::offset leader_start(pd.log_start_offset);
  const storage::leader_epoch epoch = asked.position.current_leader_epoch;
  // Whole batches only: a response cut at its size limit may end in part of one.
  const protocol::bytes_view records = pd.records.bytes();
  size_t whole = 0;
  {
    protocol::record_batch_walker walker(records);
    protocol::record_batch_view b;
    while (walker.next(b)) {
    }
    whole = walker.position();
  }
  if (whole == 0) {
    co_await run_on(p->strand(), [&] {
      if (!p->removed() && !p->is_leader() && p->leader_epoch() == epoch.value)
        p->follow_leader_offsets(leader_hw, leader_start, answered);
    });
    if (entry* e = current(asked)) e->state.on_empty(leader_hw);
    co_return;
  }
  // The batches as they lie in the answer's frame, which is ours alone:
  // the decoder's records are views into it.
  const std::span<uint8_t> batches = frame_span(frame, records.data(), whole);
  auto appended = co_await run_on(p->strand(), [&] {
    return p->append_as_follower(epoch, batches, leader_hw, leader_start, answered);
  });
  entry* e = current(asked);
  if (!e) co_return;
  if (appended.error == storage::log_errc::unexpected_append_offset) {
    // Not where this log ends (it changed under the fetcher): fetch
    // again from the log end rather than give the partition up.
    spdlog::warn("Fetched data for {} starts below its log end {}; fetching from there",
                 storage::partition_dir_name(asked.tp), appended.log_end.value);
    e->state.on_truncated(appended.log_end, appended.last_epoch);
  } else if (appended.error) {
    spdlog::error("Cannot append to {} what broker {} sent: {}", storage::partition_dir_name(asked.tp),
                  source_.value, appended.error.message());
    e->state.on_storage_error();
  } else if (appended.applied) {
    replication_quota* quota = settings_.quota;
    if (quota && quota->throttled(asked.tp)) quota->record(static_cast<int64_t>(whole), answered);
    e->state.on_appended(asked.position.fetch_offset, appended.log_end, appended.last_epoch, leader_hw);
  }
}

asio::awaitable<void> replica_fetcher::reset_offsets(const storage::topic_partition& tp) {
  auto it = partitions_.find(tp);
  if (it == partitions_.end()) co_return;
  const uint64_t generation = it->second.generation;
  std::shared_ptr<partition> p = it->second.part;
  const storage::leader_epoch epoch = it->second.state.position().current_leader_epoch;
  // The leader's latest (-1) and earliest (-2) offsets, asked as this replica.
  protocol::msg::list_offsets_request request;
  request.replica_id = self_.value;
  auto& topic = request.topics.emplace_back();
  topic.name = tp.topic;
  // One request per timestamp: a partition appears once per request.
  auto& part = topic.partitions.emplace_back();
  part.partition_index = tp.partition;
  part.current_leader_epoch = epoch.value;
  auto ask = [&](int64_t ts) -> asio::awaitable<std::pair<perr, storage::offset>> {
    topic.partitions[0].timestamp = ts;
    auto out = co_await client_->call<protocol::msg::list_offsets_response>(list_offsets_key, list_offsets_version,
                                                                            request, settings_.request_timeout);
    if (out.error) co_return std::make_pair(perr::network_exception, storage::offset(-1));
    for (const auto& t : out.response.topics)
      for (const auto& pr : t.partitions)
        if (pr.partition_index == tp.partition)
          co_return std::make_pair(static_cast<perr>(pr.error_code), storage::offset(pr.offset));
    co_return std::make_pair(perr::unknown_server_error, storage::offset(-1));
  };
  auto [latest_error, leader_end] = co_await ask(-1);
  std::pair<perr, storage::offset> earliest{latest_error, storage::offset(-1)};
  if (latest_error == perr::none) earliest = co_await ask(-2);
  it = partitions_.find(tp);
  if (stopped_ || it == partitions_.end() || it->second.generation != generation) co_return;
  const int64_t answered = now_ms_();
  if (earliest.first != perr::none) {
    it->second.state.on_error(earliest.first == perr::offset_out_of_range ? perr::unknown_server_error
                                                                               : earliest.first,
                              answered);
    co_return;
  }
  struct reset_result {
    std::error_code error;
    bool applied = false;
    storage::offset fetch_offset;
    std::optional<storage::leader_epoch> latest;
  };
  const storage::offset leader_start = earliest.second;
  auto r = co_await run_on(p->strand(), [&] {
    reset_result out;
    if (p->removed() || p->is_leader() || p->leader_epoch() != epoch.value) return out;
    const reset_decision d = reset_after_out_of_range(leader_end, leader_start, p->log_end_offset());
    out.error = p->truncate(d.cut, answered);
    out.applied = true;
    out.fetch_offset = d.fetch_offset;
    out.latest = p->latest_epoch();
    return out;
  });
  // Unfollowed while the truncation ran: nothing left to update.
  it = partitions_.find(tp);
  if (stopped_ || it == partitions_.end() || it->second.generation != generation) co_return;
  if (r.error) {
    spdlog::error("Cannot truncate {}: {}", storage::partition_dir_name(tp), r.error.message());
    it->second.state.on_storage_error();
  } else if (r.applied) {
    spdlog::info("Reset fetch offset for partition {} to {} (the leader's log is [{}, {}))",
                 storage::partition_dir_name(tp), r.fetch_offset.value, leader_start.value, leader_end.value);
    it->second.state.on_reset(r.fetch_offset, r.latest, leader_end);
  }
}

}  // namespace hw::broker
