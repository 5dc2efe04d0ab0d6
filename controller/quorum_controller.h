#pragma once
// The active controller's logic: admin and broker-lifecycle requests in,
// metadata records and a response out.
//
// Every operation *generates* records from the working image and changes
// nothing there: the caller appends the records to the metadata log (one
// batch, in order) and then hands them back through replay(), before the
// next operation — Kafka's controller does the same, so the next request
// is validated against the records already on their way to commit. On loss
// of leadership the caller reverts the working image to the last committed
// one (revert_to). Standby controllers replay committed records the same
// way.
//
// Soft state that is not in the log lives here too, as in Kafka: each
// broker's heartbeat session (last contact, reported metadata offset,
// controlled shutdown progress) and the replica placer's random source.
//
// Validation follows Kafka 4.3's ReplicationControlManager,
// ConfigurationControlManager, ClusterControlManager and
// ProducerIdControlManager, with their error codes and messages.
//
// Owner: the controller strand; not thread-safe. Pure: no I/O, the clock is
// the now_ms every call carries.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controller/metadata/delta.h"
#include "controller/metadata/image.h"
#include "controller/metadata/records.h"
#include "controller/partition_change.h"
#include "protocol/error_code.h"
#include "protocol/messages/allocate_producer_ids.h"
#include "protocol/messages/alter_partition.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/broker_heartbeat.h"
#include "protocol/messages/broker_registration.h"
#include "protocol/messages/controller_registration.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_partition_reassignments.h"
#include "protocol/messages/unregister_broker.h"

namespace hw::controller {

using protocol::error_code;

template <class R>
struct controller_result {
  std::vector<metadata_record> records;
  R response;
};

// An error as Kafka's ApiError carries it: code and message (empty message
// = the code's default text, as the caller's response writer fills it).
struct api_error {
  error_code code = error_code::none;
  std::string message;
  bool ok() const { return code == error_code::none; }
};

// Checks one config of a resource: nullopt when valid, else the error code
// (INVALID_CONFIG, ...) and Kafka's message ("Unknown topic config name: x",
// "Invalid value abc for configuration retention.ms: Not a number of type LONG").
using config_validator =
    std::function<std::optional<std::pair<error_code, std::string>>(std::string_view key, std::string_view value)>;

// Checks a config resource's full set of configs after a change, against
// the image's broker configs (GROUP resources: Kafka's GroupConfig.validate,
// with the broker's bounds): nullopt when valid, else the error and
// Kafka's message.
using config_set_validator = std::function<std::optional<std::pair<error_code, std::string>>(
    const std::map<std::string, std::string>& configs, const metadata_image& image)>;

// One entry of CreateTopics' "configs" answer (DescribeConfigs' ConfigSource ids).
struct effective_config {
  std::string name;
  std::optional<std::string> value;
  bool read_only = false;
  int8_t source = 5;  // DEFAULT_CONFIG
  bool sensitive = false;
};
// The effective configs of a topic created with these overrides, given the
// image's cluster and broker configs.
using effective_topic_configs_fn = std::function<std::vector<effective_config>(
    const std::map<std::string, std::string>& overrides, const metadata_image& image)>;

struct quorum_controller_options {
  int32_t node_id = 1;
  std::string cluster_id;
  int32_t num_partitions = 1;               // num.partitions
  int16_t default_replication_factor = 1;   // default.replication.factor
  int32_t min_insync_replicas = 1;          // min.insync.replicas (static broker default)
  bool unclean_leader_election_enable = false;
  // Periodic elections (tick): unclean ones for leaderless partitions every
  // unclean.leader.election.interval.ms; preferred ones, when
  // auto.leader.rebalance.enable, every leader.imbalance.check.interval.seconds.
  int64_t unclean_election_interval_ms = 300'000;
  bool auto_leader_rebalance_enable = true;
  int64_t leader_imbalance_check_interval_ms = 300'000;
  bool delete_topic_enable = true;
  int64_t broker_session_timeout_ms = 9000;
  int64_t broker_heartbeat_interval_ms = 2000;
  config_validator validate_topic_config;   // empty: every key and value accepted
  config_validator validate_broker_config;  // empty: every key and value accepted
  config_set_validator validate_group_configs;  // empty: every key and value accepted
  effective_topic_configs_fn effective_topic_configs;  // empty: CreateTopics answers no configs
  uint64_t random_seed = 0;
};

// Whether partitions keep ELRs: metadata.version supports them and the
// eligible.leader.replicas.version feature is on.
bool elr_enabled(const metadata_image& image);

// The records a new cluster's log starts with, as `kafka-storage format`
// writes them at metadata.version mv: metadata.version and the other
// finalized features Kafka 4.3.1 enables by default, and (with ELR) the
// cluster-wide min.insync.replicas, inside a metadata transaction.
std::vector<metadata_record> bootstrap_records(metadata_version mv, int32_t min_insync_replicas = 1);

class quorum_controller {
 public:
  explicit quorum_controller(quorum_controller_options options,
                             std::shared_ptr<const metadata_image> committed = nullptr);

  const quorum_controller_options& options() const { return options_; }
  // The image with every generated record replayed, committed or not.
  const std::shared_ptr<const metadata_image>& working_image() const {
    flush();
    return image_;
  }
  const metadata_image& image() const { return *working_image(); }

  // Replays records into the working image (the caller's own generated
  // records, or committed ones on a standby). Stops at the first refused
  // record and returns why; the image then keeps the records before it.
  std::optional<std::string> replay(const metadata_record& record);
  std::optional<std::string> replay(const std::vector<metadata_record>& records);
  // The same, stamping the image with where the last record landed (when the
  // caller knows it), so working_image()->provenance follows the log.
  std::optional<std::string> replay(const std::vector<metadata_record>& records, storage::offset last_offset,
                                    int32_t epoch);
  // Back to the last committed image (leadership lost); drops heartbeat
  // sessions, which restart at the next contact.
  void revert_to(std::shared_ptr<const metadata_image> committed);

  controller_result<msg::create_topics_response> create_topics(const msg::create_topics_request& request,
                                                                int16_t version, int64_t now_ms);
  controller_result<msg::delete_topics_response> delete_topics(const msg::delete_topics_request& request,
                                                               int16_t version);
  controller_result<msg::create_partitions_response> create_partitions(
      const msg::create_partitions_request& request, int16_t version);
  controller_result<msg::incremental_alter_configs_response> incremental_alter_configs(
      const msg::incremental_alter_configs_request& request, int16_t version);
  controller_result<msg::alter_configs_response> alter_configs(const msg::alter_configs_request& request,
                                                               int16_t version);
  controller_result<msg::allocate_producer_ids_response> allocate_producer_ids(
      const msg::allocate_producer_ids_request& request);
  // new_broker_epoch: the offset the first generated record will get (the
  // log end, Kafka's next write offset); a new incarnation takes it as its
  // epoch. Records removing the old incarnation from ISRs come first, the
  // RegisterBrokerRecord last.
  controller_result<msg::broker_registration_response> register_broker(
      const msg::broker_registration_request& request, int16_t version, int64_t new_broker_epoch,
      int64_t now_ms);
  // A controller announcing its listeners and features (DescribeCluster
  // answers with them): a RegisterControllerRecord.
  controller_result<msg::controller_registration_response> register_controller(
      const msg::controller_registration_request& request);
  // Removes a broker (kafka-cluster.sh unregister): out of every ISR and
  // ELR, then its registration.
  controller_result<msg::unregister_broker_response> unregister_broker(
      const msg::unregister_broker_request& request);
  // next_offset: the offset the first generated record will get (the log
  // end), so a controlled shutdown knows when the others have seen it.
  controller_result<msg::broker_heartbeat_response> broker_heartbeat(
      const msg::broker_heartbeat_request& request, int16_t version, int64_t next_offset, int64_t now_ms);
  // A leader's ISR change (versions 2-3: topics by id). The answer carries
  // the partition as it will be; NEW_LEADER_ELECTED when the change moved
  // leadership away from the requester.
  controller_result<msg::alter_partition_response> alter_partition(const msg::alter_partition_request& request,
                                                                   int16_t version);
  controller_result<msg::elect_leaders_response> elect_leaders(const msg::elect_leaders_request& request,
                                                               int16_t version);
  // Starts, changes or cancels (null replicas) partition reassignments
  // (quorum_controller_reassignment.cc); the leader's AlterPartition
  // completes them once the new replicas are in sync.
  controller_result<msg::alter_partition_reassignments_response> alter_partition_reassignments(
      const msg::alter_partition_reassignments_request& request, int16_t version);
  msg::list_partition_reassignments_response list_partition_reassignments(
      const msg::list_partition_reassignments_request& request) const;
  // Periodic tasks (Kafka runs them every leader.imbalance.check.interval
  // and on a timer): move leadership back to preferred replicas
  // (auto.leader.rebalance.enable), and elect unclean leaders for leaderless
  // partitions of topics that allow it. At most max_elections records each.
  std::vector<metadata_record> balance_leaders(size_t max_elections = 1000) const;
  std::vector<metadata_record> elect_unclean_leaders(size_t max_elections = 1000) const;
  // Fences brokers whose session expired (no heartbeat for
  // broker.session.timeout.ms) and moves their leaderships away; in a tick
  // that fences nobody, runs the periodic elections that are due.
  std::vector<metadata_record> tick(int64_t now_ms);
  // When the first session of an unfenced broker runs out if no heartbeat
  // comes (the tick that fences it is due then); nullopt: none to watch.
  std::optional<int64_t> next_session_expiry_ms() const;

  // The effective min.insync.replicas of a topic (topic config, then the
  // cluster default config, then the static option), capped at its
  // replication factor as Kafka does.
  int32_t effective_min_isr(const metadata_image& image, const topic_image& topic) const;
  bool unclean_election_enabled(const metadata_image& image, std::string_view topic) const;

 private:
  struct heartbeat_session {
    int64_t last_contact_ms = 0;
    // False for the session granted when this controller took over: no
    // registration or heartbeat of the incarnation has reached it yet.
    bool heard = false;
    int64_t metadata_offset = -1;
    int64_t controlled_shutdown_offset = -1;
    // Where its latest RegisterBrokerRecord went (a re-registration of the
    // same incarnation keeps the epoch but lands later): it is caught up
    // once its metadata reaches it.
    int64_t registration_offset = -1;
  };

  // Leader/ISR updates for every partition the iterator picks, as Kafka's
  // generateLeaderAndIsrUpdates: broker_to_remove leaves the ISR and cannot
  // lead; broker_to_add may lead although the image still shows it fenced;
  // unclean_shutdown leaves ISR and ELR.
  void leader_and_isr_updates(const metadata_image& image, int32_t broker_to_remove, int32_t broker_to_add,
                              int32_t unclean_shutdown,
                              const std::function<bool(const partition_registration&)>& pick,
                              std::vector<metadata_record>& out) const;
  void fence_records(const metadata_image& image, int32_t broker, std::vector<metadata_record>& out) const;
  // A heartbeat reporting log dirs offline: the replicas in them leave their
  // ISRs and the registration keeps the dirs still online (JBOD).
  void offline_dir_records(int32_t broker, const std::vector<protocol::uuid>& offline,
                           std::vector<metadata_record>& out) const;
  void unfence_records(const metadata_image& image, int32_t broker, int64_t epoch,
                       std::vector<metadata_record>& out) const;
  void controlled_shutdown_records(const metadata_image& image, int32_t broker, int64_t epoch,
                                   std::vector<metadata_record>& out) const;
  bool is_active(const metadata_image& image, int32_t broker) const;
  // How a change of one of topic's partitions is decided: leaders must be
  // active, the topic's min ISR, ELR on or off, new replicas' directories.
  partition_change_options change_options(const metadata_image& image, const topic_image& topic) const;
  // The directory a new replica on broker goes to (Kafka's defaultDir):
  // its only log dir; UNASSIGNED with several (the broker picks) or when it
  // is not registered; MIGRATING when it registered none.
  protocol::uuid default_directory(const metadata_image& image, int32_t broker) const;
  bool has_leaderships(const metadata_image& image, int32_t broker) const;
  int64_t lowest_active_offset(const metadata_image& image) const;
  api_error check_broker_epoch(int32_t broker, int64_t epoch) const;
  error_code alter_partition_error(int32_t broker, const partition_registration* partition,
                                   const msg::alter_partition_request::partition_data& data, int16_t version) const;
  static std::vector<int32_t> new_isr_of(const msg::alter_partition_request::partition_data& data, int16_t version);
  // Why a BrokerRegistration is refused (none when it is accepted).
  error_code registration_error(const msg::broker_registration_request& request, int64_t now_ms) const;

  // Per topic name, the request-level errors of CreateTopics: duplicates,
  // names, collisions, existing topics, null config values.
  std::map<std::string, api_error> validate_new_topics(const msg::create_topics_request& request) const;
  api_error new_topic_config_records(const msg::create_topics_request::creatable_topic& topic,
                                     std::vector<metadata_record>& out) const;
  // Partition id → (replicas, initial ISR) of a topic being created.
  using new_partitions = std::map<int32_t, std::pair<std::vector<int32_t>, std::vector<int32_t>>>;
  std::vector<int32_t> active_replicas(const std::vector<int32_t>& replicas) const;
  api_error manual_assignment(const msg::create_topics_request::creatable_topic& topic, new_partitions& parts) const;
  api_error placed_assignment(const msg::create_topics_request::creatable_topic& topic, new_partitions& parts);
  api_error create_topic(const msg::create_topics_request::creatable_topic& topic,
                         std::vector<metadata_record>& records,
                         msg::create_topics_response::creatable_topic_result& result);
  api_error create_partitions_of(const msg::create_partitions_request::create_partitions_topic& topic,
                                 std::vector<metadata_record>& records);
  api_error reassign_partition(const std::string& topic, int32_t partition,
                               const std::optional<std::vector<int32_t>>& target,
                               bool allow_replication_factor_change, std::vector<metadata_record>& out) const;
  api_error validate_manual_assignment(const std::vector<int32_t>& replicas,
                                       std::optional<size_t> replication_factor) const;
  msg::partition_record new_partition(const protocol::uuid& topic_id, int32_t partition,
                                      const std::vector<int32_t>& replicas, std::vector<int32_t> isr) const;
  std::optional<std::vector<std::vector<int32_t>>> place(int32_t partitions, int32_t replication_factor,
                                                        std::string* error);

  // Config changes of one resource: validation, existence, the ELR rules,
  // ClearElrRecords. `implicit_deletes` are keys the legacy AlterConfigs
  // removes by omission.
  api_error alter_config_resource(config_resource resource, const std::vector<msg::config_record>& explicit_changes,
                                  const std::vector<msg::config_record>& implicit_deletes, bool newly_created,
                                  std::vector<metadata_record>& out) const;
  api_error validate_config_resource(const config_resource& resource,
                                     const std::map<std::string, std::string>& all) const;

  // Publishes the records replayed one at a time since the last publish.
  void flush() const;

  quorum_controller_options options_;
  // The working image and the records replayed over it not yet published
  // (both mutable: publishing changes no observable state).
  mutable std::shared_ptr<const metadata_image> image_;
  mutable std::unique_ptr<metadata_delta> pending_;
  // The first moment the session counts as expired (no heartbeat for more
  // than broker.session.timeout.ms): tick() fences then.
  int64_t session_expiry_ms(const heartbeat_session& s) const {
    return s.last_contact_ms + options_.broker_session_timeout_ms + 1;
  }
  std::map<int32_t, heartbeat_session> sessions_;
  // When tick() next runs the unclean elections and the leader balancing
  // (-1: from the first tick on).
  int64_t next_unclean_election_ms_ = -1;
  int64_t next_balance_ms_ = -1;
  std::mt19937_64 random_;
};

}  // namespace hw::controller
