#pragma once
// Replication control: topics and their partitions — the image's topics,
// written by TopicRecord, PartitionRecord, PartitionChangeRecord,
// RemoveTopicRecord and ClearElrRecord — with Kafka 4.3's
// ReplicationControlManager rules: topic creation and deletion, new
// partitions and their rack-aware placement, leader elections (requested,
// preferred, unclean, periodic), leaders' ISR changes (AlterPartition, ELR
// with KIP-966), reassignments, and the partition changes a broker's
// fencing, unfencing, shutdown or lost log dirs call for (cluster control
// asks for those).
//
// Every leader and ISR choice goes through partition_change_builder with
// the topic's effective min ISR and unclean-election setting from
// configuration control.
//
// Owner: the controller strand, through quorum_controller. Generates,
// never mutates the image: every call takes the working image. Soft state:
// the random source of placement and topic ids, and when the periodic
// elections are next due.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "controller/configuration_control.h"
#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "controller/partition_change.h"
#include "protocol/messages/alter_partition.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/assign_replicas_to_dirs.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/list_partition_reassignments.h"

namespace hw::controller {

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

struct replication_control_options {
  int32_t num_partitions = 1;               // num.partitions
  int16_t default_replication_factor = 1;   // default.replication.factor
  bool delete_topic_enable = true;
  // Periodic elections: unclean ones for leaderless partitions every
  // unclean.leader.election.interval.ms; preferred ones, when
  // auto.leader.rebalance.enable, every leader.imbalance.check.interval.seconds.
  int64_t unclean_election_interval_ms = 300'000;
  bool auto_leader_rebalance_enable = true;
  int64_t leader_imbalance_check_interval_ms = 300'000;
  effective_topic_configs_fn effective_topic_configs;  // empty: CreateTopics answers no configs
  uint64_t random_seed = 0;
};

class replication_control {
 public:
  replication_control(replication_control_options options, const configuration_control& configs);

  // Topics and partitions (replication_control_topics.cc).
  // quota: the client's controller mutation quota, asked per topic once
  // everything else about it is valid (controller_result.h).
  controller_result<msg::create_topics_response> create_topics(const metadata_image& image,
                                                                const msg::create_topics_request& request,
                                                                const partition_change_quota& quota = {});
  controller_result<msg::delete_topics_response> delete_topics(const metadata_image& image,
                                                               const msg::delete_topics_request& request,
                                                               int16_t version,
                                                               const partition_change_quota& quota = {}) const;
  controller_result<msg::create_partitions_response> create_partitions(const metadata_image& image,
                                                                       const msg::create_partitions_request& request,
                                                                       const partition_change_quota& quota = {});

  // Leaders and ISRs.
  controller_result<msg::elect_leaders_response> elect_leaders(const metadata_image& image,
                                                               const msg::elect_leaders_request& request,
                                                               int16_t version) const;
  // A leader's ISR change (versions 2-3: topics by id). The answer carries
  // the partition as it will be; NEW_LEADER_ELECTED when the change moved
  // leadership away from the requester.
  controller_result<msg::alter_partition_response> alter_partition(const metadata_image& image,
                                                                   const msg::alter_partition_request& request,
                                                                   int16_t version) const;
  // A broker's report of which log dir holds each of its replicas
  // (KIP-858): the partitions' directories change; a replica reported in a
  // dir already offline leaves its ISR and cannot lead.
  controller_result<msg::assign_replicas_to_dirs_response> assign_replicas_to_dirs(
      const metadata_image& image, const msg::assign_replicas_to_dirs_request& request) const;
  // Move leadership back to preferred replicas; elect unclean leaders for
  // leaderless partitions of topics that allow it. At most max_elections
  // records each.
  std::vector<metadata_record> balance_leaders(const metadata_image& image, size_t max_elections = 1000) const;
  std::vector<metadata_record> elect_unclean_leaders(const metadata_image& image, size_t max_elections = 1000) const;
  // The periodic elections that are due at now_ms, each on its own interval
  // from the first call (Kafka's deferred controller events).
  std::vector<metadata_record> periodic_elections(const metadata_image& image, int64_t now_ms);

  // Reassignments (replication_control_reassignment.cc): start, change or
  // cancel (null replicas); the leader's AlterPartition completes them once
  // the new replicas are in sync.
  controller_result<msg::alter_partition_reassignments_response> alter_partition_reassignments(
      const metadata_image& image, const msg::alter_partition_reassignments_request& request, int16_t version) const;
  msg::list_partition_reassignments_response list_partition_reassignments(
      const metadata_image& image, const msg::list_partition_reassignments_request& request) const;

  // What a broker's change of state does to the partitions it replicates.
  // It leaves every ISR it is in and cannot lead (fenced, shutting down,
  // replaced by a new incarnation after a clean shutdown).
  void remove_from_isrs(const metadata_image& image, node_id broker, std::vector<metadata_record>& out) const;
  // Leaderless partitions elect again, the broker among the candidates
  // although the image still shows it fenced.
  void elect_after_unfence(const metadata_image& image, node_id broker, std::vector<metadata_record>& out) const;
  // A new incarnation after an unclean shutdown (ELR on): out of ISRs and ELRs.
  void remove_unclean_shutdown(const metadata_image& image, node_id broker, std::vector<metadata_record>& out) const;
  // An unregistered broker: out of ISRs, then (disjoint) out of ELRs, as
  // Kafka's two passes.
  void remove_from_isrs_and_elrs(const metadata_image& image, node_id broker, std::vector<metadata_record>& out) const;
  // Replicas in log dirs reported offline leave their ISRs (JBOD).
  void remove_offline_dirs(const metadata_image& image, node_id broker, const std::vector<protocol::uuid>& offline,
                           std::vector<metadata_record>& out) const;
  static bool leads_any(const metadata_image& image, node_id broker);

 private:
  // Partition id → (replicas, initial ISR) of a topic being created.
  using new_partitions = std::map<int32_t, std::pair<std::vector<node_id>, std::vector<node_id>>>;

  // Leader/ISR updates for every partition `pick` selects, as Kafka's
  // generateLeaderAndIsrUpdates: broker_to_remove leaves the ISR and cannot
  // lead; broker_to_add may lead although the image still shows it fenced;
  // unclean_shutdown leaves ISR and ELR.
  void leader_and_isr_updates(const metadata_image& image, node_id broker_to_remove, node_id broker_to_add,
                              node_id unclean_shutdown, const std::function<bool(const partition_registration&)>& pick,
                              std::vector<metadata_record>& out) const;
  // How a change of one of topic's partitions is decided: leaders must be
  // active, the topic's min ISR, ELR on or off, new replicas' directories.
  partition_change_options change_options(const metadata_image& image, const topic_image& topic) const;
  static api_error manual_assignment(const metadata_image& image,
                                     const msg::create_topics_request::creatable_topic& topic, new_partitions& parts);
  static api_error validate_manual_assignment(const metadata_image& image, const std::vector<node_id>& replicas,
                                              std::optional<size_t> replication_factor);

  std::optional<std::vector<std::vector<node_id>>> place(const metadata_image& image, int32_t partitions,
                                                        int32_t replication_factor, std::string* error);
  api_error placed_assignment(const metadata_image& image, const msg::create_topics_request::creatable_topic& topic,
                              new_partitions& parts);
  api_error create_topic(const metadata_image& image, const msg::create_topics_request::creatable_topic& topic,
                         std::vector<metadata_record>& records,
                         msg::create_topics_response::creatable_topic_result& result,
                         const partition_change_quota& quota);
  api_error create_partitions_of(const metadata_image& image,
                                 const msg::create_partitions_request::create_partitions_topic& topic,
                                 std::vector<metadata_record>& records, const partition_change_quota& quota);
  api_error reassign_partition(const metadata_image& image, const std::string& topic, int32_t partition,
                               const std::optional<std::vector<node_id>>& target,
                               bool allow_replication_factor_change, std::vector<metadata_record>& out) const;

  replication_control_options options_;
  const configuration_control& configs_;
  std::mt19937_64 random_;
  // When periodic_elections next runs the unclean elections and the leader
  // balancing (-1: from the first call on).
  int64_t next_unclean_election_ms_ = -1;
  int64_t next_balance_ms_ = -1;
};

}  // namespace hw::controller
