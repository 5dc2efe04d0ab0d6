#include "broker/metadata/raft_driver.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/metadata/stall_guard.h"
#include "broker/run_on.h"
#include "controller/raft/raft_batches.h"
#include "controller/raft/raft_quorum_state.h"
#include "controller/raft/raft_wire.h"

namespace hw::broker {

namespace raft = controller::raft;
namespace msg = protocol::msg;
using perr = protocol::error_code;
using std::chrono::milliseconds;

namespace {

bool is_answer(const raft::message& m) {
  return std::holds_alternative<raft::vote_response>(m) || std::holds_alternative<raft::begin_quorum_epoch_response>(m) ||
         std::holds_alternative<raft::end_quorum_epoch_response>(m) || std::holds_alternative<raft::fetch_response>(m) ||
         std::holds_alternative<raft::fetch_snapshot_response>(m);
}

uint64_t correlation_of(const raft::message& m) {
  return std::visit([](const auto& x) { return x.correlation; }, m);
}


}  // namespace

raft_driver::raft_driver(asio::any_io_executor executor, storage::file_system& fs, raft_driver_options options,
                         clock_fn now_ms)
    : strand_(asio::make_strand(executor)),
      fs_(fs),
      options_(std::move(options)),
      now_ms_(std::move(now_ms)),
      random_(std::random_device{}()),
      committed_(fs_,
                 {options_.metadata_log_dir / std::string(controller::metadata_partition_dir),
                  options_.snapshot_max_bytes, options_.snapshot_interval_ms},
                 now_ms_),
      channels_(strand_, {options_.node_id, options_.cluster_id, options_.request_timeout_ms, options_.security}),
      tick_timer_(strand_),
      cluster_id_warnings_(options_.cluster_id) {}

raft_driver::~raft_driver() = default;

asio::awaitable<storage::storage_error> raft_driver::start() {
  auto err = co_await run_on(strand_, [this] { return start_on_strand(); });
  if (!err) asio::co_spawn(strand_, tick_loop(), asio::detached);
  co_return err;
}

storage::storage_error raft_driver::start_on_strand() {
  controller::metadata_log_options lo;
  lo.metadata_log_dir = options_.metadata_log_dir;
  lo.config = options_.log_config;
  lo.now_ms = now_ms_();
  if (auto err = controller::metadata_log::open(fs_, lo, &log_)) return err;
  raft::raft_disk_state disk;
  if (auto err = committed_.load(*log_, disk)) return err;
  if (options_.voters.empty()) {
    // An observer that knows only bootstrap servers: it asks them in turn,
    // under ids no node has, until an answer names the leader.
    int32_t pseudo = -2;
    for (auto b : options_.bootstrap_servers) {
      b.id = pseudo--;
      options_.voters.push_back(b);
    }
    if (options_.voters.empty())
      return {std::make_error_code(std::errc::invalid_argument), "No controller.quorum.voters nor bootstrap servers"};
  }
  channels_.set_voters(options_.voters);
  raft::raft_options ro = core_options();
  spdlog::info("Metadata log loaded: {} batches up to offset {}, quorum state epoch {} leader {} voted {}",
               disk.entries.size(), log_->end_offset().value, disk.state.current_epoch.value,
               disk.state.leader_id.value, disk.state.voted_id.value);
  core_ = std::make_unique<raft::raft_core>(std::move(ro), std::move(disk), now_ms_());
  committed_.deliver_loaded();
  pump();
  if (failed_) return {std::make_error_code(std::errc::io_error), "Cannot write the metadata log"};
  return {};
}

raft::raft_options raft_driver::core_options() {
  raft::raft_options ro;
  ro.self = raft::node_id(options_.node_id);
  std::vector<raft::node_id> voter_ids;
  for (const auto& v : options_.voters) voter_ids.emplace_back(v.id);
  ro.voters = voter_ids;
  ro.election_timeout_ms = options_.election_timeout_ms;
  ro.fetch_timeout_ms = options_.fetch_timeout_ms;
  ro.request_timeout_ms = options_.request_timeout_ms;
  ro.retry_backoff_ms = options_.retry_backoff_ms;
  ro.fetch_max_wait_ms = options_.fetch_max_wait_ms;
  ro.leader_change_record = [](raft::node_id leader, raft::epoch, const std::vector<raft::node_id>& voters) {
    return raft::leader_change_record(leader, voters);
  };
  ro.random = [this](int64_t lo_ms, int64_t hi_ms) {
    return std::uniform_int_distribution<int64_t>(lo_ms, hi_ms - 1)(random_);
  };
  return ro;
}

asio::awaitable<void> raft_driver::stop() {
  auto body = [this]() -> asio::awaitable<void> {
    if (!core_ || stopping_) co_return;
    if (leading() && options_.voters.size() > 1 && !failed_) {
      // Graceful resignation: the others start an election at once rather
      // than after their fetch timeout.
      core_->resign();
      pump();
      asio::steady_timer wait(strand_);
      const int64_t until = now_ms_() + std::min<int64_t>(options_.request_timeout_ms, 1000);
      while (outbound_in_flight_ > 0 && now_ms_() < until) {
        wait.expires_after(milliseconds(5));
        co_await wait.async_wait(asio::use_awaitable);
      }
    }
    stopping_ = true;
    tick_timer_.cancel();
    wake_parked();
    channels_.close();
    if (log_) {
      if (auto ec = log_->close()) spdlog::error("Cannot close the metadata log: {}", ec.message());
    }
  };
  co_await asio::co_spawn(strand_, body, asio::use_awaitable);
}

asio::awaitable<void> raft_driver::tick_loop() {
  while (!stopping_ && !failed_) {
    tick_timer_.expires_after(milliseconds(options_.tick_ms));
    boost::system::error_code ec;
    co_await tick_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_ || failed_) break;
    if (stall_guard_) stall_guard_->tick(stall_guard::steady_now_ms());
    core_->tick(now_ms_());
    pump();
    if (!failed_) committed_.maybe_snapshot(*core_, *log_);
  }
}

// ---- readies ---------------------------------------------------------------

void raft_driver::pump() {
  if (pumping_ || failed_ || !core_) return;
  pumping_ = true;
  while (core_->has_ready() && !failed_) {
    raft::ready r = core_->take_ready();
    process(r);
  }
  pumping_ = false;
  // The fsync waits for whatever else is already queued on the strand
  // (proposals of other requests, fetched batches): their appends share it.
  if (unflushed_ && !failed_ && !flush_posted_) {
    flush_posted_ = true;
    asio::post(strand_, [this] {
      flush_posted_ = false;
      flush();
    });
  }
}

void raft_driver::flush() {
  if (!unflushed_ || failed_ || stopping_) return;
  if (auto ec = log_->flush()) {
    spdlog::error("Cannot flush the metadata log: {}; this node stops taking part in the quorum", ec.message());
    failed_ = true;
    return;
  }
  unflushed_ = false;
  core_->persisted(log_->end_offset());
  pump();
}

bool raft_driver::process(raft::ready& r) {
  const int64_t now = now_ms_();
  if (r.state) {
    if (auto ec = log_->write_state(raft::to_quorum_state(*r.state))) {
      // A vote or a claim of leadership below depends on it: send nothing.
      spdlog::error("Cannot write the quorum state: {}; this node stops taking part in the quorum", ec.message());
      failed_ = true;
      return false;
    }
  }
  if (r.install_snapshot && !committed_.install(r.install_snapshot->first, r.install_snapshot->second, *log_)) {
    failed_ = true;
    return false;
  }
  if (r.truncate_to) {
    spdlog::info("Truncating the metadata log __cluster_metadata-0 to offset {}", r.truncate_to->value);
    if (auto ec = log_->truncate_to(*r.truncate_to, now)) {
      spdlog::error("Cannot truncate the metadata log: {}; this node stops taking part in the quorum", ec.message());
      failed_ = true;
      return false;
    }
  }
  if (!r.entries.empty()) {
    if (auto ec = log_->append_entries(r.entries)) {
      spdlog::error("Cannot append to the metadata log: {}; this node stops taking part in the quorum", ec.message());
      failed_ = true;
      return false;
    }
    unflushed_ = true;
  }
  for (auto& m : r.messages) dispatch(m);
  if (r.high_watermark) {
    committed_.deliver_committed(core_->log(), *r.high_watermark);
    if (!stopping_) committed_.maybe_snapshot(*core_, *log_);
  }
  if (r.leader) report_leader(*r.leader);
  if (!r.entries.empty() || r.high_watermark || r.leader || r.truncate_to) wake_parked();
  return true;
}

void raft_driver::report_leader(const raft::leader_and_epoch& le) {
  if (le.leader_id.value == options_.node_id) {
    spdlog::info("Node {} is the leader of the metadata quorum at epoch {}", options_.node_id, le.leader_epoch.value);
  } else if (le.leader_id != raft::no_node) {
    spdlog::info("Node {} follows leader {} of the metadata quorum at epoch {}", options_.node_id,
                 le.leader_id.value, le.leader_epoch.value);
  } else {
    spdlog::info("The metadata quorum has no known leader at epoch {}", le.leader_epoch.value);
  }
  leader_now_.store(le.leader_id.value, std::memory_order_release);
  for (auto& l : leader_listeners_) l(le);
}

void raft_driver::dispatch(raft::outbound& m) {
  if (is_answer(m.body)) {
    answers_[correlation_of(m.body)] = std::move(m.body);
    return;
  }
  ++outbound_in_flight_;
  asio::co_spawn(strand_, send_request(m.to, std::move(m.body)), [](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("A metadata quorum request failed: {}", x.what());
    }
  });
}

void raft_driver::wake_parked() {
  for (auto& t : parked_) t->cancel();
  parked_.clear();
}

raft::propose_result raft_driver::propose(std::vector<std::vector<uint8_t>> records) {
  if (!core_ || failed_ || stopping_) return {raft::propose_error::not_leader, raft::offset{-1}};
  auto result = core_->propose(std::move(records));
  pump();
  return result;
}

// ---- outbound --------------------------------------------------------------

asio::awaitable<void> raft_driver::send_request(raft::node_id to, raft::message m) {
  std::optional<raft::message> answer = co_await channels_.call(to, std::move(m));
  --outbound_in_flight_;
  if (!answer && !stopping_) spdlog::debug("A metadata quorum request to node {} got no answer", to.value);
  if (!answer || stopping_ || failed_) co_return;
  core_->receive(to, *answer);
  pump();
}

asio::awaitable<std::error_code> raft_driver::call_leader(int16_t api_key, int16_t api_version,
                                                          std::vector<uint8_t> body, milliseconds timeout,
                                                          client_response* out) {
  auto call = [&]() -> asio::awaitable<std::error_code> {
    if (stopping_) co_return make_error_code(client_errc::closed);
    const int32_t leader = leader_id();
    auto client = leader >= 0 ? channels_.client_for(leader, true) : nullptr;
    if (!client) co_return make_error_code(client_errc::connect_failed);
    co_return co_await client->send(api_key, api_version, std::move(body), timeout, out);
  };
  co_return co_await asio::co_spawn(strand_, call, asio::use_awaitable);
}

// ---- inbound ---------------------------------------------------------------

std::optional<raft::message> raft_driver::ask(raft::node_id from, raft::message request) {
  if (!core_ || failed_ || stopping_) return std::nullopt;
  const uint64_t correlation = next_inbound_++;
  std::visit([correlation](auto& x) { x.correlation = correlation; }, request);
  core_->receive(from, request);
  pump();
  auto it = answers_.find(correlation);
  if (it == answers_.end()) return std::nullopt;
  raft::message answer = std::move(it->second);
  answers_.erase(it);
  return answer;
}

void raft_driver::note_refusal(perr e, std::string_view api, int32_t peer,
                               const std::optional<std::string>& their_cluster_id) {
  if (e == perr::inconsistent_cluster_id && their_cluster_id)
    cluster_id_warnings_.refused(api, peer, *their_cluster_id, now_ms_());
}

namespace {

// Who sent a Vote, BeginQuorumEpoch or EndQuorumEpoch (for the log).
template <typename W, typename F>
int32_t sender_of(const W& w, F field) {
  if (w.topics.empty() || w.topics.front().partitions.empty()) return -1;
  return field(w.topics.front().partitions.front());
}

}  // namespace

asio::awaitable<msg::vote_response> raft_driver::vote(const msg::vote_request& request) {
  raft::vote_request req;
  if (auto e = raft::from_wire(request, options_.cluster_id, &req); e != perr::none) {
    note_refusal(e, "Vote", sender_of(request, [](const auto& p) { return p.replica_id; }), request.cluster_id);
    co_return raft::vote_error(e);
  }
  co_return co_await run_on(strand_, [&]() -> msg::vote_response {
    auto a = ask(req.replica_id, req);
    if (!a) return raft::vote_error(perr::broker_not_available);
    return raft::to_wire(std::get<raft::vote_response>(*a));
  });
}

asio::awaitable<msg::begin_quorum_epoch_response> raft_driver::begin_quorum_epoch(
    const msg::begin_quorum_epoch_request& request) {
  raft::begin_quorum_epoch_request req;
  if (auto e = raft::from_wire(request, options_.cluster_id, &req); e != perr::none) {
    note_refusal(e, "BeginQuorumEpoch", sender_of(request, [](const auto& p) { return p.leader_id; }),
                 request.cluster_id);
    co_return raft::begin_quorum_epoch_error(e);
  }
  co_return co_await run_on(strand_, [&]() -> msg::begin_quorum_epoch_response {
    auto a = ask(req.leader_id, req);
    if (!a) return raft::begin_quorum_epoch_error(perr::broker_not_available);
    return raft::to_wire(std::get<raft::begin_quorum_epoch_response>(*a));
  });
}

asio::awaitable<msg::end_quorum_epoch_response> raft_driver::end_quorum_epoch(
    const msg::end_quorum_epoch_request& request) {
  raft::end_quorum_epoch_request req;
  if (auto e = raft::from_wire(request, options_.cluster_id, &req); e != perr::none) {
    note_refusal(e, "EndQuorumEpoch", sender_of(request, [](const auto& p) { return p.leader_id; }),
                 request.cluster_id);
    co_return raft::end_quorum_epoch_error(e);
  }
  co_return co_await run_on(strand_, [&]() -> msg::end_quorum_epoch_response {
    auto a = ask(req.leader_id, req);
    if (!a) return raft::end_quorum_epoch_error(perr::broker_not_available);
    return raft::to_wire(std::get<raft::end_quorum_epoch_response>(*a));
  });
}

asio::awaitable<raft_fetch_answer> raft_driver::fetch(const msg::fetch_request& request) {
  raft::fetch_request req;
  if (auto e = raft::from_wire(request, options_.cluster_id, &req); e != perr::none) {
    note_refusal(e, "Fetch", request.replica_state.replica_id >= 0 ? request.replica_state.replica_id : request.replica_id,
                 request.cluster_id);
    raft_fetch_answer out;
    out.response = raft::fetch_error(e);
    co_return out;
  }
  auto op = fetch_on_strand(req);
  co_return co_await asio::co_spawn(strand_, std::move(op), asio::use_awaitable);
}

asio::awaitable<raft_fetch_answer> raft_driver::fetch_on_strand(raft::fetch_request request) {
  const int64_t deadline = now_ms_() + std::clamp<int64_t>(request.max_wait_ms, 0, options_.request_timeout_ms);
  raft_fetch_answer out;
  std::optional<raft::offset> high_watermark_told;  // what the first answer would have said
  for (;;) {
    auto a = ask(request.replica_id, request);
    if (!a) {
      out.response = raft::fetch_error(perr::broker_not_available);
      co_return out;
    }
    auto& r = std::get<raft::fetch_response>(*a);
    const int64_t left = deadline - now_ms_();
    const bool empty = r.error == perr::none && r.entries.empty() && !r.diverging_epoch && !r.snapshot;
    // A commit with nothing new to fetch answers at once too, as Kafka's
    // leader completes parked fetches when its high watermark moves: the
    // fetcher (a voter, or a broker observing) learns what is committed
    // now, not after its max wait or the next append.
    const bool committed_more = high_watermark_told && r.high_watermark != *high_watermark_told;
    if (!high_watermark_told) high_watermark_told = r.high_watermark;
    // The fetcher knows less than is committed (KIP-1166): most often the
    // commit is this very fetch's doing, its offset having made the quorum.
    const bool fetcher_behind = request.high_watermark && r.high_watermark > *request.high_watermark;
    if (!empty || committed_more || fetcher_behind || left <= 0 || stopping_) {
      out.response = raft::to_wire(r, out.records);
      // The leader's endpoint, for fetchers that know only bootstrap
      // servers (Fetch v17's NodeEndpoints).
      for (const auto& v : options_.voters) {
        if (v.id != r.current.leader_id.value || v.id < 0 || v.port == 0) continue;
        auto& e = out.response.node_endpoints.emplace_back();
        e.node_id = v.id;
        e.host = v.host;
        e.port = v.port;
        e.rack.reset();
      }
      co_return out;
    }
    // Nothing new: wait for an append, a move of the high watermark, a
    // change of leader or the fetcher's max wait, then ask again.
    auto timer = std::make_shared<asio::steady_timer>(strand_, milliseconds(left));
    parked_.push_back(timer);
    boost::system::error_code ec;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    std::erase(parked_, timer);
  }
}

asio::awaitable<raft_fetch_snapshot_answer> raft_driver::fetch_snapshot(const msg::fetch_snapshot_request& request) {
  raft::fetch_snapshot_request req;
  raft_fetch_snapshot_answer out;
  if (auto e = raft::from_wire(request, options_.cluster_id, &req); e != perr::none) {
    note_refusal(e, "FetchSnapshot", request.replica_id, request.cluster_id);
    out.response = raft::fetch_snapshot_error(e);
    co_return out;
  }
  co_return co_await run_on(strand_, [&]() {
    raft_fetch_snapshot_answer answer;
    auto a = ask(req.replica_id, req);
    if (!a) {
      answer.response = raft::fetch_snapshot_error(perr::broker_not_available);
      return answer;
    }
    auto& r = std::get<raft::fetch_snapshot_response>(*a);
    answer.bytes = std::move(r.bytes);
    r.bytes.clear();
    answer.response = raft::to_wire(r);
    answer.response.topics[0].partitions[0].unaligned_records =
        protocol::records_view(protocol::bytes_view(answer.bytes.data(), answer.bytes.size()));
    return answer;
  });
}

asio::awaitable<std::optional<msg::describe_quorum_response>> raft_driver::describe_quorum() {
  co_return co_await run_on(strand_, [this]() -> std::optional<msg::describe_quorum_response> {
    if (!leading()) return std::nullopt;
    const int64_t now = now_ms_();
    const auto views = core_->replica_views();
    const int64_t end = core_->log().end_offset().value;
    auto state = [&](int32_t id) {
      msg::describe_quorum_response::replica_state s;
      s.replica_id = id;
      s.log_end_offset = -1;
      s.last_fetch_timestamp = -1;
      s.last_caught_up_timestamp = -1;
      if (auto it = views.find(raft::node_id(id)); it != views.end()) {
        s.log_end_offset = it->second.end.value;
        s.last_fetch_timestamp = id == options_.node_id ? now : it->second.last_fetch_ms;
        if (it->second.end.value >= end) s.last_caught_up_timestamp = s.last_fetch_timestamp;
      }
      return s;
    };
    msg::describe_quorum_response out;
    auto& t = out.topics.emplace_back();
    t.topic_name = std::string(controller::metadata_topic_name);
    auto& p = t.partitions.emplace_back();
    p.partition_index = 0;
    p.leader_id = options_.node_id;
    p.leader_epoch = core_->current_epoch().value;
    p.high_watermark = core_->high_watermark().value;
    for (const auto& v : options_.voters) {
      p.current_voters.push_back(state(v.id));
      auto& node = out.nodes.emplace_back();
      node.node_id = v.id;
      if (v.port != 0) node.listeners.push_back({options_.listener_name, v.host, v.port, {}});
    }
    for (const auto& [id, view] : views) {
      if (std::any_of(options_.voters.begin(), options_.voters.end(),
                      [&](const quorum_voter& v) { return v.id == id.value; }))
        continue;
      p.observers.push_back(state(id.value));
    }
    return out;
  });
}

}  // namespace hw::broker
