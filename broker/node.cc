#include "broker/node.h"

#include "broker/admin/streams_topic_creator.h"

#include <atomic>
#include <csignal>
#include <map>
#include <mutex>
#include <cstdlib>
#include <future>
#include <random>
#include <variant>

#include <spdlog/spdlog.h>

#include "broker/crash_handler.h"
#include "broker/dispatcher.h"
#include "broker/features.h"
#include "broker/metadata/controller_registration.h"
#include "broker/group/group_coordinator.h"
#include "broker/txn/txn_coordinator.h"
#include "broker/txn/txn_verifier.h"
#include "broker/txn/txn_marker_sender.h"
#include "broker/fetch/shared_fetch_sessions.h"
#include "broker/handler_registry.h"
#include "broker/handlers/handlers.h"
#include "broker/maintenance/storage_scheduler.h"
#include "broker/metadata/broker_lifecycle.h"
#include "broker/metadata/controller_options.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/stall_guard.h"
#include "broker/metadata/alter_partition_manager.h"
#include "broker/metadata/dir_assignment_manager.h"
#include "broker/replica/log_dir_mover.h"
#include "broker/replica/fetcher_manager.h"
#include "broker/metadata/quorum_voters.h"
#include "broker/metadata/raft_driver.h"
#include "broker/metrics/broker_metrics.h"
#include "broker/producer_id_manager.h"
#include "broker/quota/client_quotas.h"
#include "broker/quota/quota_metrics.h"
#include "broker/quota/request_quotas.h"
#include "broker/replica/replica_manager.h"
#include "broker/security/sasl_client.h"
#include "broker/security/sasl_listener.h"
#include "broker/security/delegation_token_store.h"
#include "broker/security/scram_credential_store.h"
#include "broker/security/tls_context.h"
#include "config/listener_security.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "broker/wall_clock.h"
#include "storage/io/file_system.h"
#include "storage/late_transaction.h"
#include "storage/log_manager.h"
#include "storage/meta_properties.h"
#include "config/topic_configs_layers.h"
#include "controller/bootstrap_metadata.h"
#include "controller/metadata/metadata_version.h"
#include "storage/topic_log_config.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

std::vector<std::filesystem::path> storage_dirs(const config::broker_config& c) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& d : c.log_dirs) dirs.emplace_back(d);
  std::filesystem::path meta(c.metadata_log_dir);
  if (std::find(dirs.begin(), dirs.end(), meta) == dirs.end()) dirs.push_back(meta);
  return dirs;
}

// The cluster id of formatted storage, nothing when no dir is formatted.
std::optional<std::string> find_cluster_id(storage::file_system& fs, const config::broker_config& c,
                                           std::string* error) {
  for (const auto& dir : storage_dirs(c)) {
    auto path = dir / storage::meta_properties_name;
    if (!fs.exists(path)) continue;
    storage::meta_properties props;
    if (auto err = storage::read_meta_properties(fs, path, &props)) {
      *error = err.message;
      return std::nullopt;
    }
    if (props.cluster_id) return props.cluster_id;
  }
  return std::nullopt;
}

std::string random_cluster_id() {
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device());
  return protocol::uuid::random(rng).to_string();
}

server_options make_server_options(const config::broker_config& c) {
  server_options o;
  o.listeners = c.listeners;
  o.connection.max_frame_bytes = c.socket_request_max_bytes;
  o.connection.max_inflight = static_cast<size_t>(c.connection_max_inflight_requests);
  // Beyond ten years "idle" means never (and keeps clock arithmetic in range).
  constexpr int64_t kTenYearsMs = 10LL * 365 * 24 * 3600 * 1000;
  o.connection.idle_timeout_ms = c.connections_max_idle_ms > kTenYearsMs ? -1 : c.connections_max_idle_ms;
  o.max_connections = c.max_connections;
  o.listen_backlog = c.socket_listen_backlog_size;
  o.send_buffer_bytes = c.socket_send_buffer_bytes;
  o.receive_buffer_bytes = c.socket_receive_buffer_bytes;
  o.queued_max_requests = c.queued_max_requests;
  return o;
}

group::coordinator_options group_coordinator_options(const config::broker_config& c) {
  group::coordinator_options o;
  o.group.min_session_timeout_ms = static_cast<int32_t>(c.get_int("group.min.session.timeout.ms"));
  o.group.max_session_timeout_ms = static_cast<int32_t>(c.get_int("group.max.session.timeout.ms"));
  o.group.max_size = static_cast<int32_t>(c.get_int("group.max.size"));
  o.group.initial_rebalance_delay_ms = static_cast<int32_t>(c.get_int("group.initial.rebalance.delay.ms"));
  o.group.offsets_retention_ms = c.get_int("offsets.retention.minutes") * 60 * 1000;
  o.group.offsets_retention_check_interval_ms = c.get_int("offsets.retention.check.interval.ms");
  o.num_partitions = static_cast<int32_t>(c.get_int("offsets.topic.num.partitions"));
  o.load_buffer_bytes = static_cast<int32_t>(c.get_int("offsets.load.buffer.size"));
  o.consumer.session_timeout_ms = static_cast<int32_t>(c.get_int("group.consumer.session.timeout.ms"));
  o.consumer.heartbeat_interval_ms = static_cast<int32_t>(c.get_int("group.consumer.heartbeat.interval.ms"));
  o.consumer.max_size = static_cast<int32_t>(c.get_int("group.consumer.max.size"));
  o.consumer.assignors = c.get_list("group.consumer.assignors");
  o.consumer.assignment_interval_ms = static_cast<int32_t>(c.get_int("group.consumer.assignment.interval.ms"));
  o.consumer.regex_refresh_interval_ms = static_cast<int32_t>(c.get_int("group.consumer.regex.refresh.interval.ms"));
  o.consumer.migration = group::consumer::migration_policy_from(c.get_string("group.consumer.migration.policy"))
                             .value_or(group::consumer::migration_policy::bidirectional);
  o.consumer.classic_max_size = o.group.max_size;
  o.streams.session_timeout_ms = static_cast<int32_t>(c.get_int("group.streams.session.timeout.ms"));
  o.streams.heartbeat_interval_ms = static_cast<int32_t>(c.get_int("group.streams.heartbeat.interval.ms"));
  o.streams.max_size = static_cast<int32_t>(c.get_int("group.streams.max.size"));
  o.streams.num_standby_replicas = static_cast<int32_t>(c.get_int("group.streams.num.standby.replicas"));
  o.streams.assignment_interval_ms = static_cast<int32_t>(c.get_int("group.streams.assignment.interval.ms"));
  o.streams.initial_rebalance_delay_ms =
      static_cast<int32_t>(c.get_int("group.streams.initial.rebalance.delay.ms"));
  return o;
}

txn::txn_coordinator_options txn_coordinator_options(const config::broker_config& c) {
  txn::txn_coordinator_options o;
  o.txn.max_timeout_ms = static_cast<int32_t>(c.get_int("transaction.max.timeout.ms"));
  o.txn.id_expiration_ms = c.get_int("transactional.id.expiration.ms");
  o.num_partitions = static_cast<int32_t>(c.get_int("transaction.state.log.num.partitions"));
  o.load_buffer_bytes = static_cast<int32_t>(c.get_int("transaction.state.log.load.buffer.size"));
  o.txn.tick_interval_ms = c.get_int("transaction.abort.timed.out.transaction.cleanup.interval.ms");
  return o;
}

txn::marker_sender_options txn_marker_sender_options(const config::broker_config& c,
                                                     client_security security) {
  txn::marker_sender_options o;
  o.security = std::move(security);
  o.listener = c.inter_broker_listener_name;
  o.self = c.node_id;
  o.request_timeout = std::chrono::milliseconds(c.get_int("request.timeout.ms"));
  return o;
}

}  // namespace

std::optional<std::string> format_storage(const config::broker_config& c, const std::string& cluster_id,
                                          bool ignore_formatted) {
  auto fs = storage::make_posix_file_system();
  std::mt19937_64 rng(std::random_device{}());
  for (const auto& dir : storage_dirs(c)) {
    auto path = dir / storage::meta_properties_name;
    if (fs->exists(path)) {
      storage::meta_properties existing;
      if (auto err = storage::read_meta_properties(*fs, path, &existing)) return err.message;
      if (ignore_formatted) continue;
      return "Log directory " + dir.string() + " is already formatted. Use --ignore-formatted to ignore this directory and format the others.";
    }
    if (auto ec = fs->create_directories(dir)) return "Cannot create " + dir.string() + ": " + ec.message();
    storage::meta_properties props;
    props.version = 1;
    props.node = storage::node_id(c.node_id);
    props.cluster_id = cluster_id;
    props.directory_id = protocol::uuid::random(rng);
    if (auto err = storage::write_meta_properties(*fs, path, props, std::chrono::system_clock::now()))
      return err.message;
    std::printf("Formatting %s with metadata.version %s.\n", dir.string().c_str(), "4.3-IV0");
  }
  return std::nullopt;
}

struct broker_node::impl {
  explicit impl(const config::broker_config& c)
      : cfg(c),
        io(c.num_io_threads),
        fs(storage::make_posix_file_system()),
        handlers(all_handlers()),
        controller_api_handlers(controller_handlers()),
        dispatch(services) {
    signals.async_wait([this](const error_code& ec, int signo) { signalled.set_value(ec ? 0 : signo); });
  }

  const config::broker_config& cfg;
  asio::io_context io;
  std::unique_ptr<storage::file_system> fs;
  handler_registry handlers;
  handler_registry controller_api_handlers;
  broker_services services;
  dispatcher dispatch;
  std::string cluster_id;
  std::unique_ptr<storage::log_manager> logs;
  // Replication throttles, leader and follower side (the publisher keeps
  // them in step with the throttle configs); declared before what uses them.
  std::unique_ptr<replication_quota> leader_quota;
  std::unique_ptr<replication_quota> follower_quota;
  std::unique_ptr<replica_manager> replicas;
  std::unique_ptr<fetcher_manager> fetchers;              // followers' fetchers
  std::unique_ptr<alter_partition_manager> isr_changes;  // leaders' ISR changes to the controller
  std::unique_ptr<dir_assignment_manager> dir_assignments;  // which log dir holds each replica, to the controller
  std::unique_ptr<log_dir_mover> log_mover;                 // replicas moved between log dirs
  // Waits until the cleaner lets go of a log (before = true) or lets it
  // clean again: around a deletion and a move between dirs.
  replica_manager::removal_hook cleaner_pause;
  std::unique_ptr<storage_scheduler> maintenance;  // started last, stopped before the logs close
  asio::thread_pool removal_pool{1};               // waits for the cleaner to let go of a deleted log
  std::atomic<cleaner_service*> cleaner_for_removals{nullptr};  // set once the cleaner runs
  std::unique_ptr<group::group_coordinator> groups;
  std::unique_ptr<txn::txn_marker_sender> txn_markers;
  std::unique_ptr<txn::txn_verifier> txn_verifier;
  std::unique_ptr<txn::txn_coordinator> txns;
  std::unique_ptr<fetch::shared_fetch_sessions> fetch_sessions;
  std::unique_ptr<streams_topic_creator> streams_topics;
  std::unique_ptr<authorizer_store> authorizer;  // null without authorizer.class.name
  std::unique_ptr<delegation_token_store> delegation_tokens;
  std::unique_ptr<quota::client_quotas> client_quotas;
  std::unique_ptr<metadata_publisher> publisher;
  std::unique_ptr<stall_guard> stalls;
  std::unique_ptr<raft_driver> raft;
  std::unique_ptr<metrics::broker_metrics> stats;  // the Prometheus endpoint's registry
  std::vector<bound_listener> bound;  // the server's listeners, and METRICS when served
  std::unique_ptr<controller_service> controller;
  std::unique_ptr<producer_id_manager> producer_ids;
  std::unique_ptr<broker_lifecycle> lifecycle;
  std::unique_ptr<controller_registration> controller_registrar;
  // How this node logs in on other nodes' inter-broker and controller
  // listeners when those are SASL ones (null otherwise).
  client_security inter_broker_security;
  client_security controller_security;
  // The server the dynamic TLS stores go to, once its listeners run; the
  // dynamic store keys last applied (guarded: the publisher's strand and
  // start-up both reload).
  std::atomic<server*> tls_target{nullptr};
  std::mutex tls_mutex;
  std::map<std::string, std::string> applied_tls;
  std::unique_ptr<server> srv;
  std::vector<std::thread> threads;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  // Installed before anything starts, so a signal during start-up still
  // leads to a clean shutdown rather than the default disposition.
  asio::signal_set signals{io, SIGINT, SIGTERM};
  std::promise<int> signalled;

  ~impl() {
    // After a failed start the loop may still run.
    cleaner_for_removals.store(nullptr, std::memory_order_release);
    if (maintenance) maintenance->stop();  // before the io threads: its tasks wait on strands
    work.reset();
    io.stop();
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }

  std::optional<std::string> start();
  std::optional<std::string> start_storage();
  void start_replication();
  void start_fetchers();
  void on_dir_failure(const std::filesystem::path& dir);
  void start_coordinators();
  void fill_services();
  std::optional<std::string> start_quorum();
  std::optional<std::string> start_io_and_controller();
  std::optional<std::string> start_listeners();
  std::optional<std::string> resolve_own_security();
  std::map<std::string, std::string> dynamic_tls_keys(const controller::metadata_image& image) const;
  void reload_tls(const controller::metadata_image& image);
  std::optional<std::string> register_with_controller();
  void start_maintenance();
  void await_groups_loaded();
  std::optional<std::string> serve_metrics();
  void shutdown();
};

std::optional<std::string> broker_node::impl::start_storage() {
  std::string error;
  auto existing = find_cluster_id(*fs, cfg, &error);
  if (!error.empty()) return error;
  if (existing) {
    cluster_id = *existing;
  } else {
    // First start on empty storage: format it, as the apache/kafka image
    // does (with its CLUSTER_ID, which every node of a cluster shares).
    const char* given = std::getenv("CLUSTER_ID");
    cluster_id = given && *given ? std::string(given) : random_cluster_id();
    spdlog::info("No formatted storage found; formatting with cluster.id {}", cluster_id);
  }
  if (auto e = format_storage(cfg, cluster_id, true)) return e;

  storage::log_manager_config lm;
  for (const auto& d : cfg.log_dirs) lm.log_dirs.emplace_back(d);
  lm.node = storage::node_id(cfg.node_id);
  lm.cluster_id = cluster_id;
  lm.default_log_config = storage::make_log_config(config::config_map{}, config::broker_config_layers(cfg));
  lm.num_recovery_threads_per_data_dir = static_cast<int>(cfg.get_int("num.recovery.threads.per.data.dir"));
  lm.flush_interval_messages = cfg.log_flush_interval_messages;
  lm.flush_interval_ms = cfg.log_flush_interval_ms;
  lm.producer_id_expiration_ms = cfg.get_int("producer.id.expiration.ms");
  lm.on_log_event = [](const std::string& line) { spdlog::info("{}", line); };
  if (auto err = storage::log_manager::start(*fs, lm, wall_clock_ms(), &logs)) return err.message;
  for (const auto& e : logs->events()) spdlog::info("{}", e);
  logs->set_dir_failure_listener(
      [this](const std::filesystem::path& dir) { asio::post(io, [this, dir] { on_dir_failure(dir); }); });
  return std::nullopt;
}

// A log dir failed (an I/O error in one of its logs or checkpoints): its
// partitions answer KAFKA_STORAGE_ERROR and the controller hears of it in
// the next heartbeat, sent now, and moves their leaderships (KIP-858). As
// Kafka, the broker halts when the metadata log's dir or every log dir is gone.
void broker_node::impl::on_dir_failure(const std::filesystem::path& dir) {
  spdlog::error("Stopped serving replicas in failed log dir {}", dir.string());
  const bool metadata_dir = std::filesystem::path(cfg.metadata_log_dir) == dir;
  if (metadata_dir || logs->online_directory_ids().empty()) {
    std::string all;
    for (const auto& d : cfg.log_dirs) all += (all.empty() ? "" : ", ") + d;
    if (metadata_dir) {
      spdlog::critical("Shutdown broker because the metadata log dir {} has failed", dir.string());
    } else {
      spdlog::critical("Shutdown broker because all log dirs in {} have failed", all);
    }
    spdlog::shutdown();
    std::_Exit(1);
  }
  if (lifecycle) lifecycle->dir_failed();
}

// The metadata quorum: a voter when this node is a controller, else an
// observer; the controller on top of it; the broker's publisher replaying
// what it commits.
std::optional<std::string> broker_node::impl::start_quorum() {
  raft_driver_options ro;
  ro.node_id = cfg.node_id;
  ro.voters = parse_quorum_voters(cfg.controller_quorum_voters);
  if (ro.voters.size() != cfg.controller_quorum_voters.size())
    return "Invalid value for configuration controller.quorum.voters: entries must be id@host:port";
  const bool is_controller = cfg.has_role("controller");
  const bool listed = std::any_of(ro.voters.begin(), ro.voters.end(), [&](const quorum_voter& v) { return v.id == cfg.node_id; });
  if (is_controller && !ro.voters.empty() && !listed)
    return "Node " + std::to_string(cfg.node_id) + " has the controller role but is not in controller.quorum.voters";
  if (!is_controller && listed)
    return "Node " + std::to_string(cfg.node_id) + " is in controller.quorum.voters but process.roles has no controller role";
  for (const auto& entry : cfg.controller_quorum_bootstrap_servers) {
    auto server = parse_host_port(entry);
    if (!server)
      return "Invalid value " + entry + " for configuration controller.quorum.bootstrap.servers: entries must be host:port";
    ro.bootstrap_servers.push_back(*server);
  }
  if (ro.voters.empty() && !is_controller && !ro.bootstrap_servers.empty()) {
    // An observer of a quorum it finds through the bootstrap servers.
  } else if (ro.voters.empty() && !ro.bootstrap_servers.empty()) {
    // A controller of a dynamic quorum (KIP-853): its voters are in the
    // metadata log (first in the checkpoint `kafka-storage.sh format
    // --standalone | --initial-controllers` wrote); formatted
    // --no-initial-controllers, it observes until it is added. It is the
    // voter (node.id, the metadata directory's id).
    ro.dynamic_quorum = true;
    storage::meta_properties props;
    const auto path = std::filesystem::path(cfg.metadata_log_dir) / storage::meta_properties_name;
    if (auto err = storage::read_meta_properties(*fs, path, &props)) return err.message;
    if (!props.directory_id) return "No directory id found in " + cfg.metadata_log_dir;
    ro.directory_id = *props.directory_id;
  } else if (ro.voters.empty()) {
    if (!is_controller)
      return "process.roles=broker needs controller.quorum.voters or controller.quorum.bootstrap.servers naming the controllers";
    // A single node without a voter list is its own quorum.
    quorum_voter self;
    self.id = cfg.node_id;
    self.host = "localhost";
    for (const auto& l : cfg.listeners) {
      if (std::find(cfg.controller_listener_names.begin(), cfg.controller_listener_names.end(), l.name) ==
          cfg.controller_listener_names.end())
        continue;
      if (!l.host.empty()) self.host = l.host;
      self.port = static_cast<uint16_t>(l.port);
      break;
    }
    ro.voters.push_back(self);
  }
  ro.cluster_id = cluster_id;
  ro.metadata_log_dir = cfg.metadata_log_dir;
  ro.election_timeout_ms = cfg.get_int("controller.quorum.election.timeout.ms");
  ro.fetch_timeout_ms = cfg.get_int("controller.quorum.fetch.timeout.ms");
  ro.request_timeout_ms = cfg.get_int("controller.quorum.request.timeout.ms");
  ro.retry_backoff_ms = cfg.get_int("controller.quorum.retry.backoff.ms");
  ro.snapshot_max_bytes = cfg.get_int("metadata.log.max.record.bytes.between.snapshots");
  ro.snapshot_interval_ms = cfg.get_int("metadata.log.max.snapshot.interval.ms");
  if (!cfg.controller_listener_names.empty()) ro.listener_name = cfg.controller_listener_names.front();
  ro.security = controller_security;
  raft = std::make_unique<raft_driver>(io.get_executor(), *fs, ro, wall_clock_ms);
  if (is_controller) {
    controller_service_options co;
    co.node_id = cfg.node_id;
    co.controller = make_quorum_controller_options(cfg, cluster_id);
    std::string bootstrap_error;
    auto bootstrap = controller::read_bootstrap_metadata(*fs, cfg.metadata_log_dir, &bootstrap_error);
    if (!bootstrap_error.empty()) return bootstrap_error;
    if (bootstrap) {
      spdlog::info("Bootstrap metadata from {}: {} SCRAM credentials{}", bootstrap->source, bootstrap->scram.size(),
                   bootstrap->other_records.empty() ? "" : " (records of other kinds left out)");
      co.bootstrap_scram = std::move(bootstrap->scram);
      // The file's levels this build can run (a Kafka-formatted file may
      // finalize share.version, which Highwater does not support).
      for (const auto& [name, level] : bootstrap->features) {
        const auto& supported = supported_features();
        auto it = std::find_if(supported.begin(), supported.end(), [&](const auto& f) { return f.name == name; });
        if (it != supported.end() && level >= it->min_version && level <= it->max_version)
          co.bootstrap_features[name] = level;
        else if (level != 0)
          spdlog::warn("Bootstrap metadata: {} level {} left out (not supported here)", name, level);
      }
    }
    co.on_unclean_elections = [m = stats.get()](int64_t n) {
      if (m) m->on_unclean_leader_elections(n);
    };
    controller = std::make_unique<controller_service>(*raft, co, wall_clock_ms);
    services.controller = controller.get();
  }
  raft->add_commit_listener([p = publisher.get()](const committed_batch& b) { p->on_commit(b); });
  services.raft = raft.get();
  // A stall long enough for the controller to have fenced this broker puts
  // its leaderships in doubt until its metadata catches up (stall_guard.h);
  // the doubt lasts a session timeout at most.
  const int64_t session_ms = cfg.get_int("broker.session.timeout.ms");
  stalls = std::make_unique<stall_guard>(session_ms / 2, session_ms,
                                         [p = publisher.get()] { return p->applied_offset() + 1; });
  raft->watch_stalls(stalls.get());
  services.stalls = stalls.get();
  return std::nullopt;
}

// How this node's connections to the inter-broker and the controller
// listeners are protected, as Kafka reads it: that listener's ssl.* keys
// for TLS, its JAAS entry for sasl.mechanism.inter.broker.protocol /
// sasl.mechanism.controller.protocol for SASL.
std::optional<std::string> broker_node::impl::resolve_own_security() {
  if (cfg.has_role("broker") && !cfg.inter_broker_listener_name.empty()) {
    auto login = own_sasl_login(cfg, cfg.inter_broker_listener_name, "sasl.mechanism.inter.broker.protocol");
    if (auto* error = std::get_if<std::string>(&login)) return *error;
    inter_broker_security.sasl = std::get<0>(std::move(login));
    auto tls = own_tls_context(cfg, cfg.inter_broker_listener_name);
    if (auto* error = std::get_if<std::string>(&tls)) return *error;
    inter_broker_security.tls = std::get<0>(std::move(tls));
  }
  if (!cfg.controller_listener_names.empty()) {
    auto login = own_sasl_login(cfg, cfg.controller_listener_names.front(), "sasl.mechanism.controller.protocol");
    if (auto* error = std::get_if<std::string>(&login)) return *error;
    controller_security.sasl = std::get<0>(std::move(login));
    auto tls = own_tls_context(cfg, cfg.controller_listener_names.front());
    if (auto* error = std::get_if<std::string>(&tls)) return *error;
    controller_security.tls = std::get<0>(std::move(tls));
  }
  return std::nullopt;
}

std::optional<std::string> broker_node::impl::start() {
  if (auto error = resolve_own_security()) return error;
  auto made = make_authorizer_store(cfg);
  if (auto* error = std::get_if<std::string>(&made)) return *error;
  authorizer = std::get<0>(std::move(made));
  services.authorizer = authorizer.get();
  stats = std::make_unique<metrics::broker_metrics>();
  services.metrics = stats.get();
  if (auto e = start_storage()) return e;
  start_replication();
  start_fetchers();
  start_coordinators();
  fill_services();
  if (auto error = start_quorum()) return error;
  producer_ids = std::make_unique<producer_id_manager>(controller_block_fetcher(services));
  services.producer_ids = producer_ids.get();
  if (auto error = start_io_and_controller()) return error;
  if (auto error = start_listeners()) return error;
  if (controller) {
    controller_registrar = std::make_unique<controller_registration>(services, srv->bound());
    controller_registrar->start();
  }
  if (cfg.has_role("broker")) {
    if (auto error = register_with_controller()) return error;
  }
  start_maintenance();
  bound = srv->bound();
  if (auto error = serve_metrics()) return error;
  return std::nullopt;
}

// Hosted partitions, the metadata publisher that gives them roles, and the
// replication quotas.
void broker_node::impl::start_replication() {
  replicas = std::make_unique<replica_manager>(io.get_executor(), *logs, cfg.node_id);
  // A deleted partition's log is freed only once the cleaner is not reading
  // it; that wait blocks, so it runs on its own thread, not an io thread.
  cleaner_pause = [this](const storage::topic_partition& tp, bool before) -> asio::awaitable<void> {
    auto* cleaner = cleaner_for_removals.load(std::memory_order_acquire);
    if (!cleaner) co_return;
    if (!before) {
      cleaner->end_log_removal(tp);
      co_return;
    }
    // Named, not a temporary inside the co_await: GCC 12 destroys such
    // temporaries (this lambda owns a string) twice.
    storage::topic_partition removed = tp;
    auto wait_for_cleaner = [cleaner, &removed]() -> asio::awaitable<void> {
      cleaner->begin_log_removal(removed);
      co_return;
    };
    co_await asio::co_spawn(removal_pool, wait_for_cleaner, asio::use_awaitable);
  };
  replicas->set_removal_hook(cleaner_pause);
  publisher = std::make_unique<metadata_publisher>(io.get_executor(), *replicas, cfg, wall_clock_ms);
  publisher->set_authorizer(authorizer.get());
  {
    const std::string& secret = cfg.get_string("delegation.token.secret.key");
    delegation_tokens =
        std::make_unique<delegation_token_store>(secret.empty() ? std::nullopt : std::optional<std::string>(secret));
    services.delegation_tokens = delegation_tokens.get();
    publisher->set_delegation_tokens(delegation_tokens.get());
  }
  client_quotas = std::make_unique<quota::client_quotas>(
      quota::window_config{static_cast<int>(cfg.get_int("quota.window.num")),
                           cfg.get_int("quota.window.size.seconds") * 1000});
  publisher->set_client_quotas(client_quotas.get());
  services.quotas = client_quotas.get();
  {
    const int windows = static_cast<int>(cfg.get_int("replication.quota.window.num"));
    const int64_t window_ms = cfg.get_int("replication.quota.window.size.seconds") * 1000;
    leader_quota = std::make_unique<replication_quota>(windows, window_ms);
    follower_quota = std::make_unique<replication_quota>(windows, window_ms);
    publisher->set_replication_quotas(leader_quota.get(), follower_quota.get());
    services.leader_quota = leader_quota.get();
    services.rack_aware_replica_selector = !cfg.get_string("replica.selector.class").empty();
  }
  replicas->set_broker_lookup([p = publisher.get()](node_id id) -> std::optional<broker_status> {
    const auto image = p->image();
    const controller::broker_registration* b = image ? image->broker(id) : nullptr;
    if (!b) return std::nullopt;
    return broker_status{b->epoch, b->fenced, b->in_controlled_shutdown};
  });
}

// Followers' fetchers and the leader side's ISR changes.
void broker_node::impl::start_fetchers() {
  fetcher_settings fetch;
  fetch.max_wait_ms = static_cast<int32_t>(cfg.get_int("replica.fetch.wait.max.ms"));
  fetch.min_bytes = static_cast<int32_t>(cfg.get_int("replica.fetch.min.bytes"));
  fetch.partition_max_bytes = static_cast<int32_t>(cfg.get_int("replica.fetch.max.bytes"));
  fetch.response_max_bytes = static_cast<int32_t>(cfg.get_int("replica.fetch.response.max.bytes"));
  fetch.backoff_ms = cfg.get_int("replica.fetch.backoff.ms");
  fetch.request_timeout = std::chrono::milliseconds(cfg.get_int("replica.socket.timeout.ms"));
  fetch.quota = follower_quota.get();
  fetch.security = inter_broker_security;
  auto epoch = [r = replicas.get()] { return r->broker_epoch(); };
  fetchers = std::make_unique<fetcher_manager>(io.get_executor(), node_id(cfg.node_id),
                                               static_cast<int32_t>(cfg.get_int("num.replica.fetchers")),
                                               cfg.inter_broker_listener_name, fetch, epoch, wall_clock_ms);
  replicas->set_fetchers(fetchers.get());
  isr_changes = std::make_unique<alter_partition_manager>(io.get_executor(), services, epoch);
  services.isr_changes = isr_changes.get();
  dir_assignments = std::make_unique<dir_assignment_manager>(io.get_executor(), services, epoch);
  auto report_dir = [d = dir_assignments.get()](const protocol::uuid& topic, int32_t partition,
                                                 const protocol::uuid& dir) { d->submit(topic, partition, dir); };
  replicas->set_directory_listener(report_dir);
  log_mover = std::make_unique<log_dir_mover>(io.get_executor(), *replicas, cleaner_pause, report_dir, wall_clock_ms);
  services.log_mover = log_mover.get();
  // Kafka checks every replica.lag.time.max.ms / 2 for followers out of sync.
  isr_changes->start_isr_expiration(
      *replicas, std::chrono::milliseconds(std::max<int64_t>(cfg.get_int("replica.lag.time.max.ms") / 2, 1)));
}

// The group and transaction coordinators, on the partitions they lead.
void broker_node::impl::start_coordinators() {
  groups = std::make_unique<group::group_coordinator>(*replicas, group_coordinator_options(cfg),
                                                      wall_clock_ms);
  txn_markers = std::make_unique<txn::txn_marker_sender>(
      io.get_executor(), *publisher, txn_marker_sender_options(cfg, inter_broker_security),
      [this](const txn::marker_job& job) { return txns && txns->still_coordinates(job); });
  txns = std::make_unique<txn::txn_coordinator>(
      *replicas, txn_coordinator_options(cfg), wall_clock_ms,
      [m = txn_markers.get()](txn::marker_job job, std::function<void()> done) {
        m->write(std::move(job), std::move(done));
      });
  // The transaction log's record versions follow the finalized
  // transaction.version, as Kafka's coordinator's do.
  publisher->add_image_listener([this](const controller::metadata_image& image) { reload_tls(image); });
  // Consumer groups assign the partitions of the topics the image has.
  publisher->add_image_listener(
      [g = groups.get(), p = publisher.get()](const controller::metadata_image&) { g->on_image(p->image()); });
  groups->on_image(publisher->image());
  publisher->add_image_listener([t = txns.get()](const controller::metadata_image& image) {
    if (image.feature_level(controller::metadata_version::feature_name))
      t->set_transaction_version_level(image.feature_level("transaction.version").value_or(0));
  });
  if (cfg.get_bool("transaction.partition.verification.enable")) {
    txn::verifier_options vo;
    vo.listener = cfg.inter_broker_listener_name;
    vo.self = cfg.node_id;
    vo.security = inter_broker_security;
    vo.num_txn_partitions = static_cast<int32_t>(cfg.get_int("transaction.state.log.num.partitions"));
    vo.request_timeout = std::chrono::milliseconds(cfg.get_int("request.timeout.ms"));
    vo.add_retry_backoff = std::chrono::milliseconds(cfg.get_int("add.partitions.to.txn.retry.backoff.ms"));
    vo.add_retry_backoff_max = std::chrono::milliseconds(cfg.get_int("add.partitions.to.txn.retry.backoff.max.ms"));
    txn_verifier = std::make_unique<txn::txn_verifier>(io.get_executor(), *publisher, vo);
  }
  replicas->set_leadership_listener([g = groups.get(), t = txns.get()](const storage::topic_partition& tp, bool leader,
                                                                      int32_t epoch) {
    g->on_leadership(tp, leader, epoch);
    t->on_leadership(tp, leader, epoch);
  });
}

// What handlers reach (services.h).
void broker_node::impl::fill_services() {
  services.handlers = &handlers;
  services.controller_handlers = &controller_api_handlers;
  services.controller_listener_names = cfg.controller_listener_names;
  services.finalized = bootstrap_finalized_features();
  services.config = &cfg;
  services.node_id = cfg.node_id;
  services.cluster_id = cluster_id;
  services.metadata = publisher.get();
  services.scram_credentials = &publisher->scram_credentials();
  services.replicas = replicas.get();
  services.groups = groups.get();
  streams_topics = std::make_unique<streams_topic_creator>(services, io.get_executor());
  services.streams_topics = streams_topics.get();
  services.txns = txns.get();
  services.txn_verifier = txn_verifier.get();
  fetch_sessions = std::make_unique<fetch::shared_fetch_sessions>(fetch::fetch_session_cache::options{
      static_cast<int32_t>(cfg.get_int("max.incremental.fetch.session.cache.slots")),
      fetch::fetch_session_cache::options{}.eviction_ms});  // Kafka's internal default; not a public key
  services.fetch_sessions = fetch_sessions.get();
  services.now_ms = wall_clock_ms;
}

// The io threads, then the raft driver and this node's controller.
std::optional<std::string> broker_node::impl::start_io_and_controller() {
  work.emplace(io.get_executor());
  for (int i = 0; i < cfg.num_io_threads; ++i) threads.emplace_back([this] {
    protect_thread_stack();
    io.run();
  });

  {
    auto started = asio::co_spawn(io, raft->start(), asio::use_future);
    if (auto err = started.get()) return err.message;
  }
  if (controller) {
    auto started = asio::co_spawn(io, controller->start(), asio::use_future);
    if (auto err = started.get()) return err.message;
  }
  return std::nullopt;
}

std::optional<std::string> broker_node::impl::start_listeners() {
  // A broker's client listeners answer only once it is registered, caught
  // up, unfenced and coordinating the groups it leads (Kafka's BrokerServer
  // enables request processing after the same waits); the controller
  // listener serves the quorum and other brokers' registrations meanwhile.
  server_options so = make_server_options(cfg);
  so.connection.metrics = stats.get();
  so.connection_rates = &client_quotas->connections();
  // SCRAM logins are checked against the metadata's credentials, as the
  // publisher has last applied them.
  // Delegation tokens log in with SCRAM too (tokenauth=true).
  auto sasl = make_sasl_listeners(
      cfg,
      [store = services.scram_credentials](scram_mechanism m, const std::string& user) {
        return store ? store->find(m, user) : std::nullopt;
      },
      [tokens = services.delegation_tokens](scram_mechanism m, const std::string& id) {
        return tokens ? tokens->login(m, id) : std::nullopt;
      });
  if (auto* error = std::get_if<std::string>(&sasl)) return *error;
  so.sasl_listeners = std::get<0>(std::move(sasl));
  // This broker's dynamic key and trust stores (kafka-configs --alter on
  // listener.name.<l>.ssl.*) win over the static ones, as in Kafka.
  std::map<std::string, std::string> dynamic_tls = dynamic_tls_keys(*publisher->image());
  auto tls = make_tls_listeners(config::with_dynamic_listener_tls(cfg, dynamic_tls));
  if (auto* error = std::get_if<std::string>(&tls)) return *error;
  so.tls_listeners = std::get<0>(std::move(tls));
  {
    std::lock_guard lock(tls_mutex);
    applied_tls = std::move(dynamic_tls);
  }
  // early.start.listeners serve at once (the controller's by default);
  // before the ACLs are loaded their authorizer lets only super users in.
  if (cfg.has_role("broker")) {
    for (const auto& l : cfg.listeners)
      if (std::find(cfg.early_start_listeners.begin(), cfg.early_start_listeners.end(), l.name) ==
          cfg.early_start_listeners.end())
        so.deferred_listeners.push_back(l.name);
  }
  srv = std::make_unique<server>(io, std::move(so), dispatch);
  if (auto error = srv->start()) return error;
  tls_target.store(srv.get());
  reload_tls(*publisher->image());  // a change applied while the listeners started
  return std::nullopt;
}

std::map<std::string, std::string> broker_node::impl::dynamic_tls_keys(const controller::metadata_image& image) const {
  std::map<std::string, std::string> out;
  auto it = image.configs.find({controller::config_resource_type::broker, std::to_string(cfg.node_id)});
  if (it == image.configs.end()) return out;
  for (const auto& [key, value] : it->second)
    if (config::listener_tls_reconfigurable(key)) out.emplace(key, value);
  return out;
}

// Rebuilds the TLS contexts when this broker's dynamic store keys changed;
// a store that does not load is logged and the old one keeps serving (the
// alter was validated, but a file can change underneath).
void broker_node::impl::reload_tls(const controller::metadata_image& image) {
  std::map<std::string, std::string> wanted = dynamic_tls_keys(image);
  std::lock_guard lock(tls_mutex);
  server* target = tls_target.load();
  if (!target || wanted == applied_tls) return;
  auto made = make_tls_listeners(config::with_dynamic_listener_tls(cfg, wanted));
  if (auto* error = std::get_if<std::string>(&made)) {
    spdlog::error("Reloading the TLS key and trust stores failed; the previous ones keep serving: {}", *error);
    return;
  }
  applied_tls = std::move(wanted);
  target->update_tls(std::get<0>(std::move(made)));
  spdlog::info("Reloaded the TLS key and trust stores of this broker's listeners for new connections");
}

// Registration with the active controller; the client listeners open once
// this broker is caught up, unfenced and coordinating its groups.
std::optional<std::string> broker_node::impl::register_with_controller() {
  std::optional<int64_t> previous_epoch;
  if (auto e = logs->previous_broker_epoch()) previous_epoch = e->value;
  lifecycle = std::make_unique<broker_lifecycle>(io.get_executor(), services, srv->bound(), previous_epoch,
                                                 logs->online_directory_ids(),
                                                 [l = logs.get()] { return l->offline_directory_ids(); });
  auto registered = asio::co_spawn(io, lifecycle->start(), asio::use_future);
  if (auto err = registered.get()) return err;
  replicas->set_broker_epoch(lifecycle->broker_epoch());
  await_groups_loaded();
  srv->start_deferred();
  return std::nullopt;
}

void broker_node::impl::start_maintenance() {
  maintenance = std::make_unique<storage_scheduler>(io.get_executor(), *replicas, *fs,
                                                    std::vector<std::filesystem::path>(cfg.log_dirs.begin(), cfg.log_dirs.end()),
                                                    make_maintenance_options(cfg), wall_clock_ms);
  maintenance->start();
  cleaner_for_removals.store(maintenance->cleaner(), std::memory_order_release);
}

// The Prometheus endpoint, when highwater.metrics.port asks for one; its
// gauges read the partitions' published health and the fetchers' lag.
std::optional<std::string> broker_node::impl::serve_metrics() {
  const int64_t port = cfg.get_int("highwater.metrics.port");
  if (port < 0) return std::nullopt;
  const int64_t max_txn_timeout_ms = cfg.get_int("transaction.max.timeout.ms");
  stats->set_quota_source([q = client_quotas.get()] { return quota::quota_gauges(*q, quota::now_ms()); });
  stats->set_gauge_source([r = replicas.get(), f = fetchers.get(), c = controller.get(), p = publisher.get(),
                           t = txns.get(), groups = groups.get(), max_txn_timeout_ms] {
    metrics::replica_gauges g;
    const int64_t now = wall_clock_ms();
    for (const auto& p : r->all()) {
      const partition_health h = p->health_now();
      ++g.partitions;
      g.leaders += h.leader;
      g.under_replicated += h.under_replicated;
      g.under_min_isr += h.under_min_isr;
      g.offline_replicas += h.offline;
      g.producer_ids += h.producer_ids;
      g.lso_lag_max = std::max(g.lso_lag_max, h.lso_lag);
      g.late_transaction_partitions +=
          storage::is_late_transaction(h.oldest_transaction_last_write_ms, now, max_txn_timeout_ms);
    }
    if (t) {
      g.open_transactions = t->in_progress_total();
      if (auto loads = t->loads().recent(now)) {
        g.txn_load_time_max_ms = loads->max_ms;
        g.txn_load_time_avg_ms = loads->avg_ms;
      }
    }
    if (groups) {
      const group::group_counts counts = groups->counts();
      g.classic_groups = counts.classic;
      g.consumer_groups = counts.consumer;
      g.consumer_groups_by_state = counts.consumer_by_state;
      g.consumer_group_rebalances = static_cast<int64_t>(counts.consumer_rebalances);
      g.streams_groups = counts.streams;
      g.streams_groups_by_state = counts.streams_by_state;
      g.streams_group_rebalances = static_cast<int64_t>(counts.streams_rebalances);
    }
    g.fetcher_max_lag = f ? f->max_lag() : 0;
    if (c && c->is_active() && p) {
      const auto image = p->image();
      for (const auto& [id, topic] : image->topics_by_id)
        for (const auto& [index, part] : topic->partitions) g.offline_partitions += part.has_leader() ? 0 : 1;
    }
    return g;
  });
  const std::string& host = cfg.get_string("highwater.metrics.host");
  auto served = stats->serve(host, static_cast<uint16_t>(port));
  if (auto* error = std::get_if<std::string>(&served)) return *error;
  const uint16_t bound_port = std::get<uint16_t>(served);
  spdlog::info("Serving Prometheus metrics on http://{}:{}/metrics", host, bound_port);
  bound.push_back(bound_listener{"METRICS", security_protocol::plaintext, host, bound_port});
  return std::nullopt;
}

// Until the __consumer_offsets partitions this broker leads are loaded, a
// JoinGroup would be answered COORDINATOR_LOAD_IN_PROGRESS. Bounded: a
// huge offsets log must not keep the broker closed (clients retry that
// error).
void broker_node::impl::await_groups_loaded() {
  std::vector<int32_t> led;
  const auto image = publisher->image();  // held: the publisher may move on meanwhile
  if (const auto* topic = image->topic(consumer_offsets_topic)) {
    for (const auto& [index, p] : topic->partitions)
      if (p.leader == storage::node_id(cfg.node_id)) led.push_back(index);
  }
  if (led.empty()) return;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!groups->loaded(led)) {
    if (std::chrono::steady_clock::now() > deadline) {
      spdlog::warn("Group metadata of {} {} partition(s) not loaded after 30 s; serving anyway", led.size(),
                   consumer_offsets_topic);
      return;
    }
    std::this_thread::sleep_for(10ms);
  }
  spdlog::info("Group metadata of {} {} partition(s) loaded", led.size(), consumer_offsets_topic);
}

void broker_node::impl::shutdown() {
  // Scrapes read the partitions: no more of them from here on.
  if (stats) stats->stop();
  // Controlled shutdown first, while this broker still serves, as Kafka's
  // does: its leaderships move to other ISR members, produces waiting for
  // acks=all complete (the followers go on fetching) or are told
  // NOT_LEADER_OR_FOLLOWER, and clients move to the new leaders after one
  // metadata refresh. Only then do the listeners close.
  if (lifecycle) asio::co_spawn(io, lifecycle->stop(), asio::use_future).get();
  std::promise<void> closed;
  {
    std::lock_guard lock(tls_mutex);
    tls_target.store(nullptr);  // no reload reaches a server shutting down
  }
  if (srv) srv->shutdown(5s, [&] { closed.set_value(); });
  else closed.set_value();
  closed.get_future().wait();
  if (isr_changes) isr_changes->stop();
  if (dir_assignments) dir_assignments->stop();
  if (log_mover) log_mover->stop();
  if (fetchers) fetchers->stop();
  if (controller_registrar) asio::co_spawn(io, controller_registrar->stop(), asio::use_future).get();
  if (controller) asio::co_spawn(io, controller->stop(), asio::use_future).get();
  if (raft) asio::co_spawn(io, raft->stop(), asio::use_future).get();
  // Nothing commits now; a metadata batch still being applied (the role
  // changes of this broker's own controlled shutdown, often) finishes
  // before the logs close under it.
  if (publisher && !publisher->stop(30s)) spdlog::warn("Metadata still being applied at shutdown after 30 s");
  if (groups) asio::co_spawn(io, groups->stop(), asio::use_future).get();
  if (txn_markers) txn_markers->stop();
  if (txn_verifier) txn_verifier->stop();
  if (txns) asio::co_spawn(io, txns->stop(), asio::use_future).get();
  cleaner_for_removals.store(nullptr, std::memory_order_release);
  if (maintenance) maintenance->stop();
  if (logs) {
    // Every partition strand drains before the logs close.
    for (auto& p : replicas->all()) asio::co_spawn(p->strand(), []() -> asio::awaitable<void> { co_return; }, asio::use_future).get();
    const int64_t epoch = lifecycle ? lifecycle->broker_epoch() : -1;
    if (auto err = logs->shutdown(storage::broker_epoch(epoch))) spdlog::error("Log shutdown: {}", err.message);
  }
  work.reset();
  io.stop();
  for (auto& t : threads) t.join();
  threads.clear();
}

broker_node::broker_node(const config::broker_config& config) : impl_(std::make_unique<impl>(config)) {}

broker_node::~broker_node() = default;

std::optional<std::string> broker_node::start() { return impl_->start(); }

const std::vector<bound_listener>& broker_node::bound() const { return impl_->bound; }

void broker_node::run_until_signal() {
  int signo = impl_->signalled.get_future().get();
  spdlog::info("Received {}; shutting down", signo == SIGTERM ? "SIGTERM" : "SIGINT");
  impl_->shutdown();
  spdlog::info("Highwater shut down");
}

}  // namespace hw::broker
