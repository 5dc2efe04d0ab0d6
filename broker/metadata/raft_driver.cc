#include "broker/metadata/raft_driver.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/metadata/stall_guard.h"
#include "broker/run_on.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image_records.h"
#include "controller/raft/raft_batches.h"
#include "controller/raft/snapshot_file.h"
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
  std::optional<committed_batch> loaded;
  if (auto err = load_disk_state(disk, loaded)) return err;
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
  raft::raft_options ro = core_options();
  spdlog::info("Metadata log loaded: {} batches up to offset {}, quorum state epoch {} leader {} voted {}",
               disk.entries.size(), log_->end_offset().value, disk.state.current_epoch.value,
               disk.state.leader_id.value, disk.state.voted_id.value);
  core_ = std::make_unique<raft::raft_core>(std::move(ro), std::move(disk), now_ms_());
  if (loaded) deliver_snapshot(std::move(*loaded));
  pump();
  if (failed_) return {std::make_error_code(std::errc::io_error), "Cannot write the metadata log"};
  return {};
}

// What the raft core starts from: the quorum state, the latest snapshot
// (handed back in `loaded` for the image) and the log entries after it.
storage::storage_error raft_driver::load_disk_state(raft::raft_disk_state& disk,
                                                    std::optional<committed_batch>& loaded) {
  disk.state = raft::from_quorum_state(log_->state());
  image_ = std::make_shared<const controller::metadata_image>();
  last_snapshot_ms_ = now_ms_();
  // The latest snapshot, then the log after it.
  std::vector<raft::snapshot_id> snapshots;
  if (auto ec = raft::list_snapshot_files(fs_, partition_dir(), &snapshots))
    return {ec, "Cannot list the metadata snapshots in " + partition_dir().string() + ": " + ec.message()};
  std::string why;
  if (!snapshots.empty()) {
    const raft::snapshot_id id = snapshots.back();
    std::vector<uint8_t> bytes;
    if (auto ec = raft::read_snapshot_file(fs_, partition_dir(), id, &bytes))
      return {ec, "Cannot read the metadata snapshot " + raft::snapshot_file_name(id) + ": " + ec.message()};
    committed_batch batch;
    if (!load_snapshot(id, bytes, &batch, &why))
      return {std::make_error_code(std::errc::illegal_byte_sequence),
              "Cannot load the metadata snapshot " + raft::snapshot_file_name(id) + ": " + why};
    disk.snapshot = id;
    disk.snapshot_bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    loaded = std::move(batch);
    if (log_->end_offset() < id.end_offset) {
      // The snapshot was installed but the log not yet cut: cut it now.
      if (auto ec = log_->reset_to(id.end_offset, now_ms_()))
        return {ec, "Cannot reset the metadata log to the snapshot at offset " + std::to_string(id.end_offset.value)};
    }
  } else {
    disk.snapshot = raft::snapshot_id{log_->start_offset(), raft::epoch{0}};
  }
  if (log_->start_offset() > disk.snapshot.end_offset)
    return {std::make_error_code(std::errc::illegal_byte_sequence),
            "The metadata log starts at offset " + std::to_string(log_->start_offset().value) +
                ", after its latest snapshot (offset " + std::to_string(disk.snapshot.end_offset.value) + ")"};
  if (auto ec = log_->read_entries(&disk.entries, &why))
    return {ec, "Cannot read the metadata log: " + (why.empty() ? ec.message() : why)};
  std::erase_if(disk.entries, [&](const raft::log_entry& e) { return e.base_offset < disk.snapshot.end_offset; });
  if (!disk.entries.empty() && disk.entries.front().base_offset != disk.snapshot.end_offset)
    return {std::make_error_code(std::errc::illegal_byte_sequence),
            "The metadata log does not continue its snapshot at offset " + std::to_string(disk.snapshot.end_offset.value)};
  applied_ = disk.snapshot.end_offset;
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
  ro.leader_change_record = [voter_ids](raft::node_id leader, raft::epoch) {
    return raft::leader_change_record(leader, voter_ids);
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
    for (auto& [id, c] : clients_) c->close();
    for (auto& [id, c] : forwarding_clients_) c->close();
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
    maybe_snapshot();
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
  if (r.install_snapshot && !install_snapshot(r.install_snapshot->first, r.install_snapshot->second)) {
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
  if (r.high_watermark) deliver_committed(*r.high_watermark);
  if (r.leader) {
    if (r.leader->leader_id.value == options_.node_id) {
      spdlog::info("Node {} is the leader of the metadata quorum at epoch {}", options_.node_id,
                   r.leader->leader_epoch.value);
    } else if (r.leader->leader_id != raft::no_node) {
      spdlog::info("Node {} follows leader {} of the metadata quorum at epoch {}", options_.node_id,
                   r.leader->leader_id.value, r.leader->leader_epoch.value);
    } else {
      spdlog::info("The metadata quorum has no known leader at epoch {}", r.leader->leader_epoch.value);
    }
    leader_now_.store(r.leader->leader_id.value, std::memory_order_release);
    for (auto& l : leader_listeners_) l(*r.leader);
  }
  if (!r.entries.empty() || r.high_watermark || r.leader || r.truncate_to) wake_parked();
  return true;
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

void raft_driver::deliver_committed(storage::offset hw) {
  const auto& entries = core_->log().entries();
  auto it = std::lower_bound(entries.begin(), entries.end(), applied_,
                             [](const raft::log_entry& e, storage::offset o) { return e.end_offset() <= o; });
  committed_batch batch;
  bool any = false;
  std::string why;
  for (; it != entries.end() && it->end_offset() <= hw; ++it) {
    any = true;
    batch.last = storage::offset(it->end_offset().value - 1);
    batch.epoch = it->leader_epoch;
    if (it->control) continue;
    for (size_t i = 0; i < it->records.size(); ++i) {
      controller::metadata_record record;
      if (!controller::decode_record_value(it->records[i], &record, &why)) {
        spdlog::error("Cannot decode the committed metadata record at offset {}: {}",
                      it->base_offset.value + static_cast<int64_t>(i), why);
        continue;
      }
      if (batch.records.empty()) batch.base_offset = it->base_offset + static_cast<int64_t>(i);
      batch.records.push_back(std::move(record));
      bytes_since_snapshot_ += static_cast<int64_t>(it->records[i].size());
    }
  }
  if (!any) return;
  applied_ = batch.last + 1;
  if (batch.records.empty()) batch.base_offset = batch.last;
  if (!batch.records.empty()) {
    controller::metadata_delta delta(image_);
    for (const auto& r : batch.records) {
      if (auto error = delta.replay(r)) spdlog::error("Cannot replay a committed metadata record: {}", *error);
    }
    image_ = delta.apply(batch.last, batch.epoch);
  }
  for (auto& l : commit_listeners_) l(batch);
  maybe_snapshot();
}

std::filesystem::path raft_driver::partition_dir() const {
  return options_.metadata_log_dir / std::string(controller::metadata_partition_dir);
}

bool raft_driver::load_snapshot(raft::snapshot_id id, const std::vector<uint8_t>& bytes, committed_batch* out,
                                std::string* why) {
  auto decoded = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  if (!decoded.ok()) {
    *why = decoded.error;
    return false;
  }
  const storage::offset last = id.end_offset - 1;
  auto image = controller::image_from_record_values(decoded.records, last, id.leader_epoch, why);
  if (!image) return false;
  committed_batch batch;
  batch.snapshot = true;
  batch.base_offset = storage::offset(0);
  batch.last = last;
  batch.epoch = id.leader_epoch;
  for (const auto& v : decoded.records) {
    controller::metadata_record record;
    if (!controller::decode_record_value(v, &record, why)) return false;
    batch.records.push_back(std::move(record));
  }
  image_ = std::move(image);
  *out = std::move(batch);
  return true;
}

void raft_driver::deliver_snapshot(committed_batch batch) {
  applied_ = batch.last + 1;
  bytes_since_snapshot_ = 0;
  spdlog::info("Loaded the metadata snapshot at offset {} (epoch {}, {} records)", applied_.value, batch.epoch.value,
               batch.records.size());
  for (auto& l : commit_listeners_) l(batch);
}

bool raft_driver::install_snapshot(raft::snapshot_id id, const raft::snapshot_payload& bytes) {
  const int64_t now = now_ms_();
  spdlog::info("Installing the metadata snapshot {} fetched from the leader", raft::snapshot_file_name(id));
  committed_batch batch;
  std::string why;
  if (!load_snapshot(id, *bytes, &batch, &why)) {
    spdlog::error("The leader's metadata snapshot {} does not load: {}", raft::snapshot_file_name(id), why);
    return false;
  }
  if (auto ec = raft::write_snapshot_file(fs_, partition_dir(), id, *bytes)) {
    spdlog::error("Cannot write the metadata snapshot {}: {}", raft::snapshot_file_name(id), ec.message());
    return false;
  }
  if (auto ec = log_->reset_to(id.end_offset, now)) {
    spdlog::error("Cannot reset the metadata log to offset {}: {}", id.end_offset.value, ec.message());
    return false;
  }
  if (auto ec = raft::delete_snapshot_files_before(fs_, partition_dir(), id))
    spdlog::warn("Cannot delete metadata snapshots older than {}: {}", raft::snapshot_file_name(id), ec.message());
  last_snapshot_ms_ = now;
  deliver_snapshot(std::move(batch));
  return true;
}

void raft_driver::maybe_snapshot() {
  if (!core_ || failed_ || stopping_ || bytes_since_snapshot_ <= 0) return;
  const int64_t now = now_ms_();
  const bool by_size = bytes_since_snapshot_ >= options_.snapshot_max_bytes;
  const bool by_time = options_.snapshot_interval_ms > 0 && now - last_snapshot_ms_ >= options_.snapshot_interval_ms;
  if (!by_size && !by_time) return;
  const auto& log = core_->log();
  if (applied_ <= log.start_offset() || !log.is_batch_boundary(applied_)) return;
  // The entry the snapshot ends with gives its epoch and timestamp.
  const auto& entries = log.entries();
  auto last = std::lower_bound(entries.begin(), entries.end(), applied_,
                               [](const raft::log_entry& e, storage::offset o) { return e.end_offset() < o; });
  if (last == entries.end() || last->end_offset() != applied_) return;
  const raft::snapshot_id id{applied_, last->leader_epoch};
  raft::snapshot_write_options wo;
  wo.last_contained_log_timestamp_ms = last->append_time_ms;
  wo.write_time_ms = now;
  const auto values = controller::image_record_values(*image_);
  auto payload = std::make_shared<const std::vector<uint8_t>>(raft::encode_snapshot(id, values, wo));
  if (auto ec = raft::write_snapshot_file(fs_, partition_dir(), id, *payload)) {
    spdlog::error("Cannot write the metadata snapshot {}: {}", raft::snapshot_file_name(id), ec.message());
    last_snapshot_ms_ = now;  // not again at once
    return;
  }
  if (!core_->compact(id, payload)) {
    spdlog::warn("The metadata snapshot {} is not at a committed batch end; the log stays whole",
                 raft::snapshot_file_name(id));
    return;
  }
  bytes_since_snapshot_ = 0;
  last_snapshot_ms_ = now;
  if (auto ec = log_->advance_start(id.end_offset, now))
    spdlog::warn("Cannot delete the metadata log below offset {}: {}", id.end_offset.value, ec.message());
  if (auto ec = raft::delete_snapshot_files_before(fs_, partition_dir(), id))
    spdlog::warn("Cannot delete metadata snapshots older than {}: {}", raft::snapshot_file_name(id), ec.message());
  spdlog::info("Took the metadata snapshot {} ({} records, {} bytes); the log now starts at offset {}",
               raft::snapshot_file_name(id), values.size(), payload->size(), id.end_offset.value);
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

std::shared_ptr<kafka_client> raft_driver::client_for(int32_t node, bool forwarding) {
  auto& clients = forwarding ? forwarding_clients_ : clients_;
  if (auto it = clients.find(node); it != clients.end()) return it->second;
  std::vector<quorum_voter> known = options_.voters;
  if (auto it = learned_endpoints_.find(node); it != learned_endpoints_.end()) known.push_back(it->second);
  for (const auto& v : known) {
    if (v.id != node) continue;
    kafka_client_options o;
    o.host = v.host;
    o.port = v.port;
    o.client_id = (forwarding ? "controller-forwarder-" : "raft-client-") + std::to_string(options_.node_id);
    o.connect_timeout = milliseconds(options_.request_timeout_ms);
    auto c = kafka_client::create(strand_, o);
    clients[node] = c;
    return c;
  }
  return nullptr;
}

asio::awaitable<void> raft_driver::send_request(raft::node_id to, raft::message m) {
  std::optional<raft::message> answer;
  auto client = client_for(to.value);
  const milliseconds timeout(options_.request_timeout_ms);
  const std::string& cluster = options_.cluster_id;
  if (!client) {
    // Not a voter we know (an observer is answered, never asked).
  } else if (auto* v = std::get_if<raft::vote_request>(&m)) {
    auto wire = raft::to_wire(*v, cluster, to);
    auto out = co_await client->call<msg::vote_response>(52, raft::vote_version, wire, timeout);
    if (!out.error) {
      raft::vote_response r;
      raft::from_wire(out.response, v->correlation, &r);
      r.pre_vote = v->pre_vote;  // not on the wire: the answer is to what we asked
      answer = r;
    }
  } else if (auto* b = std::get_if<raft::begin_quorum_epoch_request>(&m)) {
    auto wire = raft::to_wire(*b, cluster, to);
    auto out =
        co_await client->call<msg::begin_quorum_epoch_response>(53, raft::begin_quorum_epoch_version, wire, timeout);
    if (!out.error) {
      raft::begin_quorum_epoch_response r;
      raft::from_wire(out.response, b->correlation, &r);
      answer = r;
    }
  } else if (auto* e = std::get_if<raft::end_quorum_epoch_request>(&m)) {
    auto wire = raft::to_wire(*e, cluster);
    auto out = co_await client->call<msg::end_quorum_epoch_response>(54, raft::end_quorum_epoch_version, wire, timeout);
    if (!out.error) {
      raft::end_quorum_epoch_response r;
      raft::from_wire(out.response, e->correlation, &r);
      answer = r;
    }
  } else if (auto* f = std::get_if<raft::fetch_request>(&m)) {
    auto wire = raft::to_wire(*f, cluster);
    const milliseconds fetch_timeout(options_.request_timeout_ms + f->max_wait_ms);
    const int64_t sent_ms = stall_guard::steady_now_ms();
    auto out = co_await client->call<msg::fetch_response>(1, raft::fetch_version, wire, fetch_timeout);
    if (!out.error) {
      for (const auto& e : out.response.node_endpoints) {
        if (e.node_id < 0 || e.port <= 0 || e.port > 65535) continue;
        quorum_voter v;
        v.id = e.node_id;
        v.host = e.host;
        v.port = static_cast<uint16_t>(e.port);
        learned_endpoints_[e.node_id] = v;
      }
      raft::fetch_response r;
      std::string why;
      raft::from_wire(out.response, f->correlation, &r, &why);
      if (!why.empty()) spdlog::warn("A metadata Fetch answer from node {} does not decode: {}", to.value, why);
      else if (stall_guard_ && r.error == perr::none)
        stall_guard_->answered(sent_ms, r.high_watermark.value);
      answer = std::move(r);
    }
  } else if (auto* s = std::get_if<raft::fetch_snapshot_request>(&m)) {
    auto wire = raft::to_wire(*s, cluster);
    auto out = co_await client->call<msg::fetch_snapshot_response>(59, raft::fetch_snapshot_version, wire, timeout);
    if (!out.error) {
      raft::fetch_snapshot_response r;
      raft::from_wire(out.response, s->correlation, &r);
      answer = std::move(r);
    }
  }
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
    auto client = leader >= 0 ? client_for(leader, true) : nullptr;
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
