#include "broker/security/api_acls.h"

#include <array>
#include <cassert>

namespace hw::broker {

namespace {

using controller::acl_operation;
using controller::acl_resource_type;
using protocol::error_code;

constexpr auto cluster = acl_resource_type::cluster;
constexpr auto topic = acl_resource_type::topic;
constexpr auto group = acl_resource_type::group;
constexpr auto txn_id = acl_resource_type::transactional_id;

constexpr auto cluster_refused = error_code::cluster_authorization_failed;
constexpr auto topic_refused = error_code::topic_authorization_failed;
constexpr auto group_refused = error_code::group_authorization_failed;
constexpr auto txn_refused = error_code::transactional_id_authorization_failed;

// From Kafka 4.3's KafkaApis, ControllerApis and AclApis.
constexpr std::array<api_acl_check, 105> k_table{{
    // Produce
    {0, "transactional_id", txn_id, acl_operation::write, txn_refused, acl_scope::request, "",
     "a batch is transactional"},
    {0, "topic", topic, acl_operation::write, topic_refused, acl_scope::resource, "", "each topic written"},
    // Fetch
    {1, "follower", cluster, acl_operation::cluster_action, topic_refused, acl_scope::resource, "",
     "a replica's fetch: every partition refused"},
    {1, "topic", topic, acl_operation::read, topic_refused, acl_scope::resource, "", "a consumer's fetch"},
    {1, "metadata_log", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "",
     "the metadata log's fetchers, on controller listeners"},
    // ListOffsets
    {2, "topic", topic, acl_operation::describe, topic_refused, acl_scope::resource, "", "each topic"},
    // Metadata
    {3, "topic", topic, acl_operation::describe, topic_refused, acl_scope::filter, "",
     "all topics: only those described; named ones refused"},
    {3, "auto_create_cluster", cluster, acl_operation::create, topic_refused, acl_scope::resource,
     "auto_create_topic", "a named topic that does not exist, with auto-creation"},
    {3, "auto_create_topic", topic, acl_operation::create, topic_refused, acl_scope::resource,
     "auto_create_cluster", "a named topic that does not exist, with auto-creation"},
    {3, "cluster_operations", cluster, acl_operation::describe, error_code::none, acl_scope::filter, "",
     "cluster authorized operations asked for (v8-v10)"},
    // OffsetCommit
    {8, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {8, "topic", topic, acl_operation::read, topic_refused, acl_scope::resource, "", "each topic"},
    // OffsetFetch
    {9, "group", group, acl_operation::describe, group_refused, acl_scope::resource, "", "each group"},
    {9, "topic", topic, acl_operation::describe, topic_refused, acl_scope::filter, "",
     "all topics: only those described; named ones refused"},
    // FindCoordinator
    {10, "group", group, acl_operation::describe, group_refused, acl_scope::resource, "", "group keys"},
    {10, "transactional_id", txn_id, acl_operation::describe, txn_refused, acl_scope::resource, "",
     "transaction keys"},
    // JoinGroup, Heartbeat, LeaveGroup, SyncGroup
    {11, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {12, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {13, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {14, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    // DescribeGroups
    {15, "group", group, acl_operation::describe, group_refused, acl_scope::resource, "", "each group"},
    // ListGroups
    {16, "cluster", cluster, acl_operation::describe, error_code::none, acl_scope::filter, "group",
     "every group listed"},
    {16, "group", group, acl_operation::describe, error_code::none, acl_scope::filter, "cluster",
     "else only the groups described"},
    // CreateTopics
    {19, "cluster", cluster, acl_operation::create, topic_refused, acl_scope::resource, "topic", "each topic"},
    {19, "topic", topic, acl_operation::create, topic_refused, acl_scope::resource, "cluster", "each topic"},
    {19, "topic_configs", topic, acl_operation::describe_configs, topic_refused, acl_scope::resource, "",
     "the configs answered (topic_config_error_code)"},
    // DeleteTopics
    {20, "cluster", cluster, acl_operation::remove, topic_refused, acl_scope::resource, "delete",
     "DELETE on the cluster allows every topic"},
    {20, "describe", topic, acl_operation::describe, topic_refused, acl_scope::resource, "",
     "each topic (DELETE on the cluster allows it too)"},
    {20, "delete", topic, acl_operation::remove, topic_refused, acl_scope::resource, "cluster",
     "each topic described"},
    // DeleteRecords
    {21, "topic", topic, acl_operation::remove, topic_refused, acl_scope::resource, "", "each topic"},
    // InitProducerId
    {22, "transactional_id", txn_id, acl_operation::write, txn_refused, acl_scope::request, "",
     "a transactional producer"},
    {22, "idempotent", cluster, acl_operation::idempotent_write, cluster_refused, acl_scope::request,
     "idempotent_any_topic", "an idempotent producer"},
    {22, "idempotent_any_topic", topic, acl_operation::write, cluster_refused, acl_scope::request, "idempotent",
     "an idempotent producer: WRITE on some topic (authorizeByResourceType)"},
    // OffsetForLeaderEpoch
    {23, "follower", cluster, acl_operation::cluster_action, topic_refused, acl_scope::resource, "topic",
     "a replica's request"},
    {23, "topic", topic, acl_operation::describe, topic_refused, acl_scope::resource, "follower", "each topic"},
    // AddPartitionsToTxn
    {24, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "",
     "v4 and later (brokers verifying)"},
    {24, "transactional_id", txn_id, acl_operation::write, txn_refused, acl_scope::request, "", "v3 and earlier"},
    {24, "topic", topic, acl_operation::write, topic_refused, acl_scope::resource, "", "each topic"},
    // AddOffsetsToTxn
    {25, "transactional_id", txn_id, acl_operation::write, txn_refused, acl_scope::request, "", "always"},
    {25, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    // EndTxn
    {26, "transactional_id", txn_id, acl_operation::write, txn_refused, acl_scope::request, "", "always"},
    // WriteTxnMarkers
    {27, "alter", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "cluster_action", "always"},
    {27, "cluster_action", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "alter",
     "always"},
    // TxnOffsetCommit
    {28, "transactional_id", txn_id, acl_operation::write, txn_refused, acl_scope::request, "", "always"},
    {28, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {28, "topic", topic, acl_operation::read, topic_refused, acl_scope::resource, "", "each topic"},
    // DescribeAcls, CreateAcls, DeleteAcls
    {29, "cluster", cluster, acl_operation::describe, cluster_refused, acl_scope::request, "", "always"},
    {30, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    {31, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // DescribeConfigs
    {32, "cluster", cluster, acl_operation::describe_configs, cluster_refused, acl_scope::resource, "",
     "broker, broker logger and client metrics resources"},
    {32, "topic", topic, acl_operation::describe_configs, topic_refused, acl_scope::resource, "", "topics"},
    {32, "group", group, acl_operation::describe_configs, group_refused, acl_scope::resource, "", "groups"},
    // AlterConfigs
    {33, "cluster", cluster, acl_operation::alter_configs, cluster_refused, acl_scope::resource, "",
     "broker and broker logger resources"},
    {33, "topic", topic, acl_operation::alter_configs, topic_refused, acl_scope::resource, "", "topics"},
    {33, "group", group, acl_operation::alter_configs, group_refused, acl_scope::resource, "", "groups"},
    // AlterReplicaLogDirs (each partition refused)
    {34, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // DescribeLogDirs
    {35, "cluster", cluster, acl_operation::describe, cluster_refused, acl_scope::request, "", "always"},
    // CreatePartitions
    {37, "topic", topic, acl_operation::alter, topic_refused, acl_scope::resource, "", "each topic"},
    // DeleteGroups
    {42, "group", group, acl_operation::remove, group_refused, acl_scope::resource, "", "each group"},
    // ElectLeaders
    {43, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // IncrementalAlterConfigs
    {44, "cluster", cluster, acl_operation::alter_configs, cluster_refused, acl_scope::resource, "",
     "broker and broker logger resources"},
    {44, "topic", topic, acl_operation::alter_configs, topic_refused, acl_scope::resource, "", "topics"},
    {44, "group", group, acl_operation::alter_configs, group_refused, acl_scope::resource, "", "groups"},
    // AlterPartitionReassignments, ListPartitionReassignments
    {45, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    {46, "cluster", cluster, acl_operation::describe, cluster_refused, acl_scope::request, "", "always"},
    // OffsetDelete
    {47, "group", group, acl_operation::remove, group_refused, acl_scope::request, "", "always"},
    {47, "topic", topic, acl_operation::read, topic_refused, acl_scope::resource, "", "each topic"},
    // DescribeClientQuotas, AlterClientQuotas
    {48, "cluster", cluster, acl_operation::describe_configs, cluster_refused, acl_scope::request, "", "always"},
    {49, "cluster", cluster, acl_operation::alter_configs, cluster_refused, acl_scope::request, "", "always"},
    // DescribeUserScramCredentials, AlterUserScramCredentials
    {50, "cluster", cluster, acl_operation::describe, cluster_refused, acl_scope::request, "", "always"},
    {51, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // The quorum's and the brokers' own requests to controllers
    {52, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {53, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {54, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {56, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {58, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "",
     "a broker forwarding a client's request"},
    {59, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {62, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {63, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {67, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {70, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {73, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    {82, "cluster", cluster, acl_operation::cluster_action, cluster_refused, acl_scope::request, "", "always"},
    // UnregisterBroker (kafka-cluster.sh unregister)
    {64, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // UpdateFeatures (kafka-features.sh upgrade, downgrade, disable)
    {57, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // AddRaftVoter, RemoveRaftVoter (kafka-metadata-quorum.sh add-controller, remove-controller)
    {80, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    {81, "cluster", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "", "always"},
    // DescribeQuorum
    {55, "cluster", cluster, acl_operation::describe, cluster_refused, acl_scope::request, "", "always"},
    // DescribeCluster: no check on a broker listener (ALTER on a controller's);
    // its cluster authorized operations when asked
    {60, "controller", cluster, acl_operation::alter, cluster_refused, acl_scope::request, "",
     "on a controller listener"},
    {60, "cluster_operations", cluster, acl_operation::describe, error_code::none, acl_scope::filter, "",
     "cluster authorized operations asked for"},
    // DescribeProducers
    {61, "topic", topic, acl_operation::read, topic_refused, acl_scope::resource, "", "each topic"},
    // DescribeTransactions
    {65, "transactional_id", txn_id, acl_operation::describe, txn_refused, acl_scope::resource, "",
     "each transactional id"},
    {65, "topic", topic, acl_operation::describe, error_code::none, acl_scope::filter, "",
     "partitions of topics not described are left out"},
    // ListTransactions
    {66, "transactional_id", txn_id, acl_operation::describe, error_code::none, acl_scope::filter, "",
     "only the transactions described"},
    // ConsumerGroupHeartbeat
    {68, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {68, "topic", topic, acl_operation::describe, topic_refused, acl_scope::request, "",
     "each topic subscribed to by name: one refused refuses the heartbeat"},
    // ConsumerGroupDescribe
    {69, "group", group, acl_operation::describe, group_refused, acl_scope::resource, "", "each group"},
    // ListConfigResources
    {74, "cluster", cluster, acl_operation::describe_configs, cluster_refused, acl_scope::request, "", "always"},
    // DescribeTopicPartitions
    {75, "topic", topic, acl_operation::describe, topic_refused, acl_scope::filter, "",
     "all topics: only those described; named ones refused"},
    // StreamsGroupHeartbeat
    {88, "group", group, acl_operation::read, group_refused, acl_scope::request, "", "always"},
    {88, "topic", topic, acl_operation::describe, topic_refused, acl_scope::request, "",
     "each topic of the member's topology: one refused refuses the heartbeat"},
    {88, "create_cluster", cluster, acl_operation::create, error_code::none, acl_scope::filter, "create_topic",
     "internal topics to create: those refused are named in the MISSING_INTERNAL_TOPICS status"},
    {88, "create_topic", topic, acl_operation::create, error_code::none, acl_scope::filter, "create_cluster",
     "internal topics to create: those refused are named in the MISSING_INTERNAL_TOPICS status"},
    // StreamsGroupDescribe
    {89, "group", group, acl_operation::describe, group_refused, acl_scope::resource, "", "each group"},
    {89, "topic", topic, acl_operation::describe, error_code::none, acl_scope::filter, "",
     "a group whose topology names a topic not described is refused"},
}};

}  // namespace

std::span<const api_acl_check> api_acl_table() { return k_table; }

const api_acl_check& api_acl(int16_t api_key, std::string_view check) {
  for (const auto& c : k_table)
    if (c.api_key == api_key && c.check == check) return c;
  assert(false && "no such check in the API table");
  return k_table[0];
}

}  // namespace hw::broker
