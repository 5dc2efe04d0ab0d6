#include "broker/metadata/raft_driver.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/metadata/stall_guard.h"
#include "broker/run_on.h"
#include "controller/raft/raft_batches.h"
#include "controller/raft/raft_quorum_state.h"
#include "controller/raft/raft_wire.h"
#include "protocol/messages/api_versions.h"

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
  // The bootstrap servers, under ids no node has: a node that knows no
  // leader asks them in turn until an answer names one.
  int32_t pseudo = -2;
  for (auto b : options_.bootstrap_servers) {
    b.id = pseudo--;
    bootstrap_.push_back(b);
  }
  if (options_.voters.empty() && !options_.dynamic_quorum) {
    // A broker observing: the bootstrap servers stand for the voters.
    options_.voters = bootstrap_;
    if (options_.voters.empty())
      return {std::make_error_code(std::errc::invalid_argument), "No controller.quorum.voters nor bootstrap servers"};
  }
  raft::raft_options ro = core_options();
  spdlog::info("Metadata log loaded: {} batches up to offset {}, quorum state epoch {} leader {} voted {}",
               disk.entries.size(), log_->end_offset().value, disk.state.current_epoch.value,
               disk.state.leader_id.value, disk.state.voted_id.value);
  core_ = std::make_unique<raft::raft_core>(std::move(ro), std::move(disk), now_ms_());
  if (options_.dynamic_quorum)
    spdlog::info("Dynamic metadata quorum (kraft.version 1): {} voters known, this node {} a voter",
                 core_->voters().size(), core_->is_voter() ? "is" : "is not");
  refresh_voters();
  committed_.deliver_loaded();
  pump();
  if (failed_) return {std::make_error_code(std::errc::io_error), "Cannot write the metadata log"};
  return {};
}

raft::raft_options raft_driver::core_options() {
  raft::raft_options ro;
  ro.self = raft::node_id(options_.node_id);
  ro.directory_id = options_.directory_id;
  if (!options_.dynamic_quorum)
    for (const auto& v : options_.voters) ro.voters.emplace_back(v.id);
  for (const auto& b : bootstrap_) ro.bootstrap.emplace_back(b.id);
  ro.voters_record = [](const raft::voter_set& s) { return raft::voters_record(s); };
  ro.kraft_version_record = [](int16_t level) { return raft::kraft_version_record(level); };
  ro.snapshot_voters = [](const std::vector<uint8_t>& bytes) { return snapshot_voters(bytes); };
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
    if (leading() && voter_count() > 1 && !failed_) {
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
    maybe_update_own_entry();
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
  refresh_voters();
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
      for (const auto& v : voters_) {
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
    auto state = [&](int32_t id, const protocol::uuid& directory) {
      msg::describe_quorum_response::replica_state s;
      s.replica_id = id;
      s.replica_directory_id = directory;
      s.log_end_offset = -1;
      s.last_fetch_timestamp = -1;
      s.last_caught_up_timestamp = -1;
      if (auto it = views.find(raft::node_id(id)); it != views.end()) {
        s.log_end_offset = it->second.end.value;
        // The leader reports itself fetched and caught up now, as Kafka's.
        s.last_fetch_timestamp = id == options_.node_id ? now : it->second.last_fetch_ms;
        s.last_caught_up_timestamp = id == options_.node_id ? now : it->second.last_caught_up_ms;
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
    // The newest voter set (a static quorum's has ids only: its endpoints
    // are controller.quorum.voters').
    const raft::voter_set& set = core_->voters();
    for (const auto& v : set.voters) {
      p.current_voters.push_back(state(v.id.value, v.directory_id));
      auto& node = out.nodes.emplace_back();
      node.node_id = v.id.value;
      for (const auto& e : v.endpoints) node.listeners.push_back({e.name, e.host, e.port, {}});
      if (v.endpoints.empty())
        for (const auto& q : voters_)
          if (q.id == v.id.value && q.port != 0) node.listeners.push_back({options_.listener_name, q.host, q.port, {}});
    }
    for (const auto& [id, view] : views) {
      if (set.contains(id)) continue;
      p.observers.push_back(state(id.value, core_->replica_directory(id)));
    }
    return out;
  });
}

controller::api_error raft_driver::upgrade_kraft_version(int16_t level, bool /*validate_only*/) const {
  using controller::error_code;
  if (!leading())
    return {error_code::not_leader_or_follower,
            "Upgrade kraft version failed because the replica is not the current leader"};
  const int16_t current = kraft_version();
  if (level == current) return {};
  if (level < current)
    return {error_code::invalid_update_version, "Invalid upgrade of kraft.version from version " +
                                                    std::to_string(current) + " to " + std::to_string(level) +
                                                    " because the new version is a downgrade"};
  return {error_code::invalid_update_version,
          "Invalid upgrade of kraft.version from version " + std::to_string(current) + " to " +
              std::to_string(level) +
              ": this controller quorum's voters are fixed by controller.quorum.voters; a quorum whose voters live "
              "in the metadata log is formatted with kafka-storage.sh format --standalone or --initial-controllers"};
}

size_t raft_driver::voter_count() const {
  return static_cast<size_t>(
      std::count_if(voters_.begin(), voters_.end(), [](const quorum_voter& v) { return v.id >= 0; }));
}

void raft_driver::refresh_voters() {
  if (!core_) return;
  kraft_now_.store(kraft_version(), std::memory_order_release);
  if (!core_->dynamic_quorum()) {
    if (voters_ != options_.voters) {
      voters_ = options_.voters;
      channels_.set_voters(voters_);
    }
    return;
  }
  // Called after every ready: compare in place, build only when the set changed.
  auto endpoint_of = [&](const raft::voter& v) -> const raft::voter_endpoint* {
    for (const auto& e : v.endpoints)
      if (e.name == options_.listener_name) return &e;
    return nullptr;
  };
  size_t at = 0;
  bool same = true;
  for (const auto& v : core_->voters().voters) {
    const auto* e = endpoint_of(v);
    if (!e) continue;
    same = at < voters_.size() && voters_[at].id == v.id.value && voters_[at].port == e->port && voters_[at].host == e->host;
    if (!same) break;
    ++at;
  }
  same = same && voters_.size() == at + bootstrap_.size() && std::equal(bootstrap_.begin(), bootstrap_.end(), voters_.begin() + at);
  if (same) return;
  std::vector<quorum_voter> list;
  for (const auto& v : core_->voters().voters)
    if (const auto* e = endpoint_of(v)) list.push_back({v.id.value, e->host, e->port});
  list.insert(list.end(), bootstrap_.begin(), bootstrap_.end());
  voters_ = std::move(list);
  channels_.set_voters(voters_);
}

// ---- voter changes (KIP-853) --------------------------------------------------

namespace {

std::string endpoints_string(const std::vector<raft::voter_endpoint>& endpoints) {
  // Kafka's Endpoints.toString.
  std::string out = "Endpoints(endpoints={";
  for (size_t i = 0; i < endpoints.size(); ++i)
    out += (i ? ", " : "") + ("ListenerName(" + endpoints[i].name + ")=") + endpoints[i].host + "/<unresolved>:" +
           std::to_string(endpoints[i].port);
  return out + "})";
}

template <class Response>
Response voter_refusal(perr e, std::optional<std::string> message) {
  Response r;
  r.error_code = static_cast<int16_t>(e);
  r.error_message = std::move(message);
  return r;
}

// The checks an AddRaftVoter or RemoveRaftVoter request meets first
// (KafkaRaftClient's): its cluster id, this node leading, a voter named by
// an id and a directory. `what` begins the last message ("Add", "Remove").
template <class Response, class Request>
std::optional<Response> request_refusal(const Request& req, const std::string& cluster_id, bool usable, bool leading,
                                        const char* what) {
  if (req.cluster_id && *req.cluster_id != cluster_id)
    return voter_refusal<Response>(perr::inconsistent_cluster_id, "The given id \"" + *req.cluster_id +
                                                                      "\" doesn't match the cluster id \"" + cluster_id +
                                                                      "\"");
  if (!usable) return voter_refusal<Response>(perr::broker_not_available, "");
  if (!leading) return voter_refusal<Response>(perr::not_leader_or_follower, "");
  if (req.voter_id < 0 || req.voter_directory_id.is_zero())
    return voter_refusal<Response>(perr::invalid_request, std::string(what) + " voter request didn't include a valid voter");
  return std::nullopt;
}

}  // namespace

asio::awaitable<perr> raft_driver::wait_committed(storage::offset entry, int32_t term, int64_t deadline_ms) {
  for (;;) {
    // Committed first: a leader that removed itself resigns at that moment.
    if (epoch() == term && core_->high_watermark() > entry) co_return perr::none;
    if (!leading() || epoch() != term) co_return perr::not_leader_or_follower;
    const int64_t left = deadline_ms - now_ms_();
    if (left <= 0 || stopping_) co_return perr::request_timed_out;
    auto timer = std::make_shared<asio::steady_timer>(strand_, milliseconds(left));
    parked_.push_back(timer);
    boost::system::error_code ec;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    std::erase(parked_, timer);
  }
}

asio::awaitable<msg::add_raft_voter_response> raft_driver::add_raft_voter(const msg::add_raft_voter_request& request) {
  co_return co_await asio::co_spawn(strand_, add_voter_on_strand(request), asio::use_awaitable);
}

asio::awaitable<msg::add_raft_voter_response> raft_driver::add_voter_on_strand(msg::add_raft_voter_request req) {
  using response = msg::add_raft_voter_response;
  // KafkaRaftClient.handleAddVoterRequest's checks, then AddVoterHandler's.
  if (auto refused = request_refusal<response>(req, options_.cluster_id, core_ && !failed_ && !stopping_, leading(), "Add"))
    co_return *refused;
  raft::voter v;
  v.id = raft::node_id(req.voter_id);
  v.directory_id = req.voter_directory_id;
  for (const auto& l : req.listeners) v.endpoints.push_back({l.name, l.host, l.port});
  const auto endpoint = std::find_if(v.endpoints.begin(), v.endpoints.end(),
                                     [&](const raft::voter_endpoint& e) { return e.name == options_.listener_name; });
  if (endpoint == v.endpoints.end())
    co_return voter_refusal<response>(perr::invalid_request, "Add voter request didn't include the endpoint (" +
                                                                 endpoints_string(v.endpoints) +
                                                                 ") for the default listener ListenerName(" +
                                                                 options_.listener_name + ")");
  auto begun = core_->begin_add_voter(v);
  if (begun.error != perr::none) co_return voter_refusal<response>(begun.error, begun.message);
  // The new voter's ApiVersions: it must speak kraft.version 1. One timer
  // covers the whole add from here.
  const int64_t deadline = now_ms_() + options_.request_timeout_ms;
  const int32_t term = epoch();
  auto client = channels_.client_to(endpoint->host, endpoint->port);
  msg::api_versions_request av;
  av.client_software_name = "highwater-raft";
  av.client_software_version = "1";
  auto answer = co_await client->call<msg::api_versions_response>(18, msg::api_versions_request::schema.max_version, av,
                                                                  milliseconds(options_.request_timeout_ms));
  client->close();
  if (!leading() || epoch() != term) co_return voter_refusal<response>(perr::not_leader_or_follower, std::nullopt);
  const std::string key = raft::replica_key_string(v.id, v.directory_id);
  if (answer.error || answer.response.error_code != 0) {
    core_->abort_add_voter();
    const auto e = answer.error ? perr::broker_not_available : static_cast<perr>(answer.response.error_code);
    co_return voter_refusal<response>(perr::request_timed_out,
                                      std::string("Aborted add voter operation for since API_VERSIONS returned an error ") +
                                          std::string(protocol::error_name(e)));
  }
  std::optional<std::pair<int16_t, int16_t>> range;
  for (const auto& f : answer.response.supported_features)
    if (f.name == "kraft.version") range = std::pair{f.min_version, f.max_version};
  const int16_t finalized = 1;
  if (!range || range->first > finalized || range->second < finalized) {
    core_->abort_add_voter();
    const std::string shown = range ? "(min: " + std::to_string(range->first) + ", max: " + std::to_string(range->second)
                                    : std::string("(min: 0, max: 0)");
    co_return voter_refusal<response>(perr::invalid_request, "Aborted add voter operation for " + key +
                                                                 " since the kraft.version range " + shown +
                                                                 " doesn't support the finalized version " +
                                                                 std::to_string(finalized));
  }
  v.min_kraft_version = range->first;
  v.max_kraft_version = range->second;
  auto done = core_->finish_add_voter(v);
  pump();
  if (done.error != perr::none) co_return voter_refusal<response>(done.error, done.message);
  spdlog::info("Adding voter {} to the metadata quorum at offset {}", key, done.entry.value);
  if (!req.ack_when_committed) co_return voter_refusal<response>(perr::none, std::nullopt);
  const perr outcome = co_await wait_committed(done.entry, term, deadline);
  co_return voter_refusal<response>(outcome, std::nullopt);
}

asio::awaitable<msg::remove_raft_voter_response> raft_driver::remove_raft_voter(
    const msg::remove_raft_voter_request& request) {
  using response = msg::remove_raft_voter_response;
  auto op = [this, req = request]() -> asio::awaitable<response> {
    if (auto refused =
            request_refusal<response>(req, options_.cluster_id, core_ && !failed_ && !stopping_, leading(), "Remove"))
      co_return *refused;
    const int64_t deadline = now_ms_() + options_.request_timeout_ms;
    const int32_t term = epoch();
    auto done = core_->remove_voter(raft::node_id(req.voter_id), req.voter_directory_id);
    pump();
    if (done.error != perr::none) co_return voter_refusal<response>(done.error, done.message);
    spdlog::info("Removing voter {} from the metadata quorum at offset {}",
                 raft::replica_key_string(raft::node_id(req.voter_id), req.voter_directory_id), done.entry.value);
    const perr outcome = co_await wait_committed(done.entry, term, deadline);
    co_return voter_refusal<response>(outcome, std::nullopt);
  };
  co_return co_await asio::co_spawn(strand_, op, asio::use_awaitable);
}

void raft_driver::set_local_endpoints(std::vector<raft::voter_endpoint> endpoints) {
  asio::post(strand_, [this, endpoints = std::move(endpoints)]() mutable { local_endpoints_ = std::move(endpoints); });
}

namespace {

std::vector<raft::voter_endpoint> sorted_endpoints(std::vector<raft::voter_endpoint> e) {
  std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return e;
}

}  // namespace

bool raft_driver::own_entry_stale() const {
  if (!core_ || !core_->dynamic_quorum()) return false;
  const raft::voter* own = core_->voters().find(raft::node_id(options_.node_id));
  if (!own || own->directory_id != options_.directory_id) return false;
  return sorted_endpoints(own->endpoints) != sorted_endpoints(local_endpoints_) || own->min_kraft_version != 0 ||
         own->max_kraft_version != 1;
}

void raft_driver::maybe_update_own_entry() {
  // Looked at once per fetch timeout (not every tick: the comparison copies
  // and sorts the endpoints).
  if (updating_own_entry_ || local_endpoints_.empty() || now_ms_() < next_own_update_ms_) return;
  next_own_update_ms_ = now_ms_() + options_.fetch_timeout_ms;
  if (own_entry_stale()) asio::co_spawn(strand_, update_own_entry(), asio::detached);
}

asio::awaitable<void> raft_driver::update_own_entry() {
  updating_own_entry_ = true;
  raft::voter self;
  self.id = raft::node_id(options_.node_id);
  self.directory_id = options_.directory_id;
  self.endpoints = local_endpoints_;
  if (leading()) {
    auto r = core_->update_voter(self, options_.listener_name);
    pump();
    if (r.error == perr::none) spdlog::info("Updated this leader's endpoints in the voter set at offset {}", r.entry.value);
  } else if (leader_id() >= 0) {
    msg::update_raft_voter_request req;
    req.cluster_id = options_.cluster_id;
    req.current_leader_epoch = epoch();
    req.voter_id = options_.node_id;
    req.voter_directory_id = options_.directory_id;
    for (const auto& e : local_endpoints_) req.listeners.push_back({e.name, e.host, e.port, {}});
    req.k_raft_version_feature.min_supported_version = 0;
    req.k_raft_version_feature.max_supported_version = 1;
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, 0);
    client_response raw;
    auto ec = co_await call_leader(82, 0, std::move(body), milliseconds(options_.request_timeout_ms), &raw);
    if (!ec) {
      msg::update_raft_voter_response resp;
      protocol::reader rd(raw.body());
      resp.decode(rd, 0);
      if (rd.ok() && resp.error_code == 0) spdlog::info("Asked the leader to update this voter's endpoints");
      else if (rd.ok())
        spdlog::debug("UpdateRaftVoter refused: {}", protocol::error_name(static_cast<perr>(resp.error_code)));
    }
  }
  updating_own_entry_ = false;
}

asio::awaitable<msg::update_raft_voter_response> raft_driver::update_raft_voter(
    const msg::update_raft_voter_request& request) {
  using response = msg::update_raft_voter_response;
  auto op = [this, req = request]() -> asio::awaitable<response> {
    response out;
    auto answer = [&](perr e) {
      out.error_code = static_cast<int16_t>(e);
      out.current_leader.leader_id = leader_id();
      out.current_leader.leader_epoch = epoch();
      for (const auto& v : voters_)
        if (v.id == leader_id()) {
          out.current_leader.host = v.host;
          out.current_leader.port = v.port;
        }
      return out;
    };
    // KafkaRaftClient.handleUpdateVoterRequest's checks, in its order.
    if (req.cluster_id && *req.cluster_id != options_.cluster_id) co_return answer(perr::inconsistent_cluster_id);
    if (req.current_leader_epoch < epoch()) co_return answer(perr::fenced_leader_epoch);
    if (req.current_leader_epoch > epoch()) co_return answer(perr::unknown_leader_epoch);
    if (!leading()) co_return answer(perr::not_leader_or_follower);
    if (!core_ || failed_ || stopping_) co_return answer(perr::broker_not_available);
    if (req.voter_id < 0 || req.voter_directory_id.is_zero()) co_return answer(perr::invalid_request);
    raft::voter v;
    v.id = raft::node_id(req.voter_id);
    v.directory_id = req.voter_directory_id;
    for (const auto& l : req.listeners) v.endpoints.push_back({l.name, l.host, l.port});
    if (std::none_of(v.endpoints.begin(), v.endpoints.end(),
                     [&](const raft::voter_endpoint& e) { return e.name == options_.listener_name; }))
      co_return answer(perr::invalid_request);
    const auto& range = req.k_raft_version_feature;
    if (range.min_supported_version < 0 || range.max_supported_version < 0 ||
        range.max_supported_version < range.min_supported_version)
      co_return answer(perr::invalid_request);
    v.min_kraft_version = range.min_supported_version;
    v.max_kraft_version = range.max_supported_version;
    auto done = core_->update_voter(v, options_.listener_name);
    pump();
    if (done.error == perr::none && done.entry >= storage::offset(0))
      spdlog::info("Updated voter {} in the metadata quorum at offset {}",
                   raft::replica_key_string(v.id, v.directory_id), done.entry.value);
    co_return answer(done.error);
  };
  co_return co_await asio::co_spawn(strand_, op, asio::use_awaitable);
}

}  // namespace hw::broker
