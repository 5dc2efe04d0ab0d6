#pragma once
// The raft driver: connects the pure KRaft core (controller/raft/raft_core.h)
// to the world. It owns the core, the `__cluster_metadata` log on disk, one
// outbound connection per voter and the tick timer, all on one strand.
//
// Each ready the core hands out is processed in the order raft_core.h
// prescribes: quorum-state written and fsynced, then truncation and
// replication appends (the same bytes on every replica), then messages
// sent, then the high watermark applied. Once the readies run dry an fsync
// is posted to the strand, behind whatever is already queued there (other
// proposals, fetched batches), so that their appends share it; then the
// core is told how far the log is durable (`persisted`). As in Kafka's raft
// I/O thread, the fsync runs on the strand itself: metadata batches are
// small, and nothing else may touch the log meanwhile.
//
// Inbound RPCs (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch of the
// metadata partition, FetchSnapshot, DescribeQuorum) come from the
// controller listener's handlers: the driver gives each a correlation, the
// core answers within the same ready. An empty Fetch answer is parked until
// the log or the high watermark moves, the leader changes or the fetcher's
// max wait passes, then asked again. Outbound requests go through the
// peer's kafka_client; a failed call is dropped (the core resends).
//
// Committed records go to the commit listeners (the controller, the
// broker's metadata publisher) on the strand, one batch per move of the high
// watermark; leadership changes to the leader listeners.
//
// Ownership and threads: owned by main; everything below runs on strand().
// Listeners are added before start().

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/metadata/cluster_id_warnings.h"
#include "broker/metadata/committed_batch.h"
#include "broker/metadata/committed_metadata.h"
#include "broker/metadata/quorum_channels.h"
#include "broker/metadata/quorum_voters.h"
#include "broker/network/kafka_client.h"
#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "controller/raft/metadata_log.h"
#include "controller/raft/raft_core.h"
#include "protocol/messages/add_raft_voter.h"
#include "protocol/messages/begin_quorum_epoch.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/end_quorum_epoch.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/fetch_snapshot.h"
#include "protocol/messages/remove_raft_voter.h"
#include "protocol/messages/update_raft_voter.h"
#include "protocol/messages/vote.h"
#include "storage/io/file_system.h"

namespace hw::broker {

class stall_guard;

struct raft_driver_options {
  int32_t node_id = 1;
  std::vector<quorum_voter> voters;  // controller.quorum.voters
  // A controller of a dynamic quorum (KIP-853: no controller.quorum.voters,
  // controller.quorum.bootstrap.servers): its voters are in the metadata
  // log, and it is the voter (node_id, directory_id).
  bool dynamic_quorum = false;
  protocol::uuid directory_id;  // the metadata log directory's, from meta.properties
  // controller.quorum.bootstrap.servers (host:port; id unused): an observer
  // without `voters` asks these who leads, and learns the leader's endpoint
  // from the NodeEndpoints of their Fetch answers.
  std::vector<quorum_voter> bootstrap_servers;
  std::string cluster_id;
  std::filesystem::path metadata_log_dir;
  storage::log_config log_config;
  int64_t election_timeout_ms = 1000;  // controller.quorum.election.timeout.ms
  int64_t fetch_timeout_ms = 2000;     // controller.quorum.fetch.timeout.ms
  int64_t request_timeout_ms = 2000;   // controller.quorum.request.timeout.ms
  int64_t retry_backoff_ms = 20;       // controller.quorum.retry.backoff.ms
  int64_t fetch_max_wait_ms = 500;     // how long a leader parks an empty Fetch
  int64_t tick_ms = 10;
  // A snapshot of the committed image is taken once this many bytes of
  // records were committed since the last (or, with new records, once the
  // interval passed; 0: no time trigger); the log before it is deleted.
  int64_t snapshot_max_bytes = 20 << 20;   // metadata.log.max.record.bytes.between.snapshots
  int64_t snapshot_interval_ms = 3'600'000;  // metadata.log.max.snapshot.interval.ms
  std::string listener_name = "CONTROLLER";  // the voters' listener, for DescribeQuorum
  // How this node's connections to the peers' controller listener are protected.
  client_security security;
};

// A Fetch answer and the batches its records point into.
struct raft_fetch_answer {
  std::vector<uint8_t> records;
  protocol::msg::fetch_response response;
};

// A FetchSnapshot answer and the chunk it points into.
struct raft_fetch_snapshot_answer {
  std::vector<uint8_t> bytes;
  protocol::msg::fetch_snapshot_response response;
};

class raft_driver {
 public:
  using commit_listener = std::function<void(const committed_batch&)>;
  using leader_listener = std::function<void(const controller::raft::leader_and_epoch&)>;
  using clock_fn = std::function<int64_t()>;

  raft_driver(asio::any_io_executor executor, storage::file_system& fs, raft_driver_options options,
              clock_fn now_ms);
  ~raft_driver();
  raft_driver(const raft_driver&) = delete;
  raft_driver& operator=(const raft_driver&) = delete;

  const asio::strand<asio::any_io_executor>& strand() const { return strand_; }
  void add_commit_listener(commit_listener l) { committed_.add_listener(std::move(l)); }
  void add_leader_listener(leader_listener l) { leader_listeners_.push_back(std::move(l)); }
  // Ticks `guard` and tells it of metadata Fetch answers (stall_guard.h).
  void watch_stalls(stall_guard* guard) {
    stall_guard_ = guard;
    channels_.watch_stalls(guard);
  }

  // Opens the metadata log, loads it into the core and starts ticking.
  asio::awaitable<storage::storage_error> start();
  // A leader resigns (EndQuorumEpoch, so that the others elect at once) and
  // waits briefly for the message to leave; then everything closes.
  asio::awaitable<void> stop();

  // --- on the strand ---------------------------------------------------------
  controller::raft::propose_result propose(std::vector<std::vector<uint8_t>> records);
  bool leading() const { return core_ && core_->current_role() == controller::raft::role::leader; }
  int32_t node_id() const { return options_.node_id; }
  int32_t leader_id() const { return core_ ? core_->leader_id().value : -1; }
  int32_t epoch() const { return core_ ? core_->current_epoch().value : -1; }
  storage::offset high_watermark() const { return core_ ? core_->high_watermark() : storage::offset(0); }
  storage::offset log_end() const { return core_ ? core_->log().end_offset() : storage::offset(0); }
  storage::offset epoch_start_offset() const { return core_ ? core_->epoch_start_offset() : storage::offset(0); }
  // The voters' endpoints on the controller listener (a dynamic quorum's
  // from its newest voter set), then the bootstrap servers under pseudo ids.
  const std::vector<quorum_voter>& voters() const { return voters_; }
  // How many voters there are (pseudo ids aside).
  size_t voter_count() const;
  // kraft.version: 1 for a quorum whose voters live in the log, else 0.
  int16_t kraft_version() const { return core_ && core_->dynamic_quorum() ? 1 : 0; }
  // UpdateFeatures' kraft.version upgrade, on the leader: a quorum already
  // at the level has nothing to write; a static quorum is not upgraded in
  // place (README, "Operations": format a dynamic one).
  controller::api_error upgrade_kraft_version(int16_t level, bool validate_only) const;
  // The committed image at the end of what was last handed to the commit
  // listeners (they may read it while they are called).
  const std::shared_ptr<const controller::metadata_image>& committed_image() const { return committed_.image(); }

  // --- any thread (approximate) ----------------------------------------------
  int32_t leader_id_now() const { return leader_now_.load(std::memory_order_acquire); }
  // kraft_version() as last seen on the strand (ApiVersions' finalized kraft.version).
  int16_t kraft_version_now() const { return kraft_now_.load(std::memory_order_acquire); }

  // --- inbound RPCs (any executor) --------------------------------------------
  asio::awaitable<protocol::msg::vote_response> vote(const protocol::msg::vote_request& request);
  asio::awaitable<protocol::msg::begin_quorum_epoch_response> begin_quorum_epoch(
      const protocol::msg::begin_quorum_epoch_request& request);
  asio::awaitable<protocol::msg::end_quorum_epoch_response> end_quorum_epoch(
      const protocol::msg::end_quorum_epoch_request& request);
  asio::awaitable<raft_fetch_answer> fetch(const protocol::msg::fetch_request& request);
  asio::awaitable<raft_fetch_snapshot_answer> fetch_snapshot(const protocol::msg::fetch_snapshot_request& request);
  // The leader's view of the quorum; nothing on another node (the caller
  // then asks the leader, or answers NOT_LEADER_OR_FOLLOWER).
  asio::awaitable<std::optional<protocol::msg::describe_quorum_response>> describe_quorum();
  // AddRaftVoter and RemoveRaftVoter at this node (KIP-853): Kafka's checks
  // (raft_membership.h), the new voter's ApiVersions, and the answer once
  // the change is committed (or REQUEST_TIMED_OUT after
  // controller.quorum.request.timeout.ms, NOT_LEADER_OR_FOLLOWER when the
  // leadership ends first).
  asio::awaitable<protocol::msg::add_raft_voter_response> add_raft_voter(
      const protocol::msg::add_raft_voter_request& request);
  asio::awaitable<protocol::msg::remove_raft_voter_response> remove_raft_voter(
      const protocol::msg::remove_raft_voter_request& request);
  // UpdateRaftVoter at this node: KafkaRaftClient's checks, then the
  // leader's (raft_membership::update); answered at once.
  asio::awaitable<protocol::msg::update_raft_voter_response> update_raft_voter(
      const protocol::msg::update_raft_voter_request& request);
  // This controller's own endpoints (its controller listeners, once bound;
  // any thread). In a dynamic quorum, a voter whose entry in the voter set
  // names other endpoints (a controller that came back at another address)
  // asks the leader to update it, every controller.quorum.fetch.timeout.ms
  // until it has; a leader updates its own entry itself.
  void set_local_endpoints(std::vector<controller::raft::voter_endpoint> endpoints);

  // Sends a request (encoded at `version`) to the current leader's
  // controller listener and waits for its answer: what a node without the
  // active controller uses to reach it. Fails with connect_failed while no
  // leader is known.
  asio::awaitable<std::error_code> call_leader(int16_t api_key, int16_t api_version, std::vector<uint8_t> body,
                                               std::chrono::milliseconds timeout, client_response* out);

 private:
  storage::storage_error start_on_strand();
  controller::raft::raft_options core_options();
  void pump();
  // fsyncs what was appended and tells the core (posted by pump).
  void flush();
  bool process(controller::raft::ready& r);
  void dispatch(controller::raft::outbound& m);
  asio::awaitable<void> send_request(controller::raft::node_id to, controller::raft::message m);
  asio::awaitable<raft_fetch_answer> fetch_on_strand(controller::raft::fetch_request request);
  void report_leader(const controller::raft::leader_and_epoch& le);
  void wake_parked();
  asio::awaitable<void> tick_loop();
  // An inbound request refused for its cluster id is logged (rate-limited).
  void note_refusal(protocol::error_code e, std::string_view api, int32_t peer,
                    const std::optional<std::string>& their_cluster_id);
  // Feeds an inbound request to the core and returns the core's answer.
  std::optional<controller::raft::message> ask(controller::raft::node_id from, controller::raft::message request);
  // The voters' endpoints again, after the voter set may have changed.
  void refresh_voters();
  // Waits until the KRaftVoters entry at `entry` is committed: none, or
  // NOT_LEADER_OR_FOLLOWER when the term ends first, REQUEST_TIMED_OUT at
  // deadline_ms (on the strand).
  asio::awaitable<protocol::error_code> wait_committed(storage::offset entry, int32_t term, int64_t deadline_ms);
  asio::awaitable<protocol::msg::add_raft_voter_response> add_voter_on_strand(protocol::msg::add_raft_voter_request r);
  // Whether this voter's entry differs from what it is now (on the strand).
  bool own_entry_stale() const;
  void maybe_update_own_entry();
  asio::awaitable<void> update_own_entry();

  asio::strand<asio::any_io_executor> strand_;
  storage::file_system& fs_;
  raft_driver_options options_;
  clock_fn now_ms_;
  std::mt19937_64 random_;
  std::unique_ptr<controller::metadata_log> log_;
  std::unique_ptr<controller::raft::raft_core> core_;
  std::vector<quorum_voter> voters_;     // see voters()
  std::vector<quorum_voter> bootstrap_;  // controller.quorum.bootstrap.servers, ids -2, -3, ...
  committed_metadata committed_;
  quorum_channels channels_;
  std::vector<leader_listener> leader_listeners_;
  stall_guard* stall_guard_ = nullptr;

  bool pumping_ = false;
  bool unflushed_ = false;
  bool flush_posted_ = false;
  bool failed_ = false;      // the log cannot be written: stop taking part
  bool stopping_ = false;
  uint64_t next_inbound_ = 1;
  std::map<uint64_t, controller::raft::message> answers_;  // core answers to inbound requests
  std::vector<std::shared_ptr<asio::steady_timer>> parked_;
  int outbound_in_flight_ = 0;
  asio::steady_timer tick_timer_;
  cluster_id_warnings cluster_id_warnings_;  // any thread

  std::vector<controller::raft::voter_endpoint> local_endpoints_;  // set_local_endpoints
  int64_t next_own_update_ms_ = 0;
  bool updating_own_entry_ = false;

  std::atomic<int32_t> leader_now_{-1};
  std::atomic<int16_t> kraft_now_{0};
};

}  // namespace hw::broker
