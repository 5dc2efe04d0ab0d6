#pragma once
// Every API handler the broker serves, one per API key, sorted by key.
//
// Adding an API:
//  1. broker/handlers/NN_name.cc: the handler (decode_request, then respond,
//     no_response or close) and `api_handler name_handler()` with the version
//     range to advertise; advertise only versions the handler answers.
//  2. Declare name_handler() below and list it in handlers.cc.
//  3. Unit tests in tests/broker/ for each version, including a body that
//     does not decode; an integration test against the real binary.

#include <span>
#include <vector>

#include "broker/handler.h"

namespace hw::broker {

// One declaration per handler file.
api_handler produce_handler();            // 00_produce.cc
api_handler fetch_handler();              // 01_fetch.cc
api_handler list_offsets_handler();       // 02_list_offsets.cc
api_handler metadata_handler();           // 03_metadata.cc
api_handler offset_commit_handler();      // 08_offset_commit.cc
api_handler offset_fetch_handler();       // 09_offset_fetch.cc
api_handler find_coordinator_handler();   // 10_find_coordinator.cc
api_handler join_group_handler();         // 11_join_group.cc
api_handler heartbeat_handler();          // 12_heartbeat.cc
api_handler leave_group_handler();        // 13_leave_group.cc
api_handler sync_group_handler();         // 14_sync_group.cc
api_handler describe_groups_handler();    // 15_describe_groups.cc
api_handler list_groups_handler();        // 16_list_groups.cc
api_handler sasl_handshake_handler();     // 17_sasl_handshake.cc
api_handler api_versions_handler();       // 18_api_versions.cc
api_handler create_topics_handler();      // 19_create_topics.cc
api_handler delete_topics_handler();      // 20_delete_topics.cc
api_handler delete_records_handler();  // 21_delete_records.cc
api_handler init_producer_id_handler();  // 22_init_producer_id.cc
api_handler offset_for_leader_epoch_handler();  // 23_offset_for_leader_epoch.cc
api_handler describe_acls_handler();     // 29_describe_acls.cc
api_handler create_acls_handler();       // 30_create_acls.cc
api_handler delete_acls_handler();       // 31_delete_acls.cc
api_handler describe_configs_handler();  // 32_describe_configs.cc
api_handler alter_configs_handler();  // 33_alter_configs.cc
api_handler alter_replica_log_dirs_handler();  // 34_alter_replica_log_dirs.cc
api_handler describe_log_dirs_handler();  // 35_describe_log_dirs.cc
api_handler sasl_authenticate_handler();  // 36_sasl_authenticate.cc
api_handler create_partitions_handler();  // 37_create_partitions.cc
api_handler delete_groups_handler();      // 42_delete_groups.cc
api_handler elect_leaders_handler();  // 43_elect_leaders.cc
api_handler incremental_alter_configs_handler();  // 44_incremental_alter_configs.cc
api_handler alter_partition_reassignments_handler();  // 45_alter_partition_reassignments.cc
api_handler list_partition_reassignments_handler();   // 46_list_partition_reassignments.cc
api_handler offset_delete_handler();      // 47_offset_delete.cc
api_handler describe_client_quotas_handler();           // 48_describe_client_quotas.cc
api_handler alter_client_quotas_handler();              // 49_alter_client_quotas.cc
api_handler describe_user_scram_credentials_handler();  // 50_describe_user_scram_credentials.cc
api_handler alter_user_scram_credentials_handler();     // 51_alter_user_scram_credentials.cc
api_handler create_delegation_token_handler();          // 38_create_delegation_token.cc
api_handler renew_delegation_token_handler();           // 39_renew_delegation_token.cc
api_handler expire_delegation_token_handler();          // 40_expire_delegation_token.cc
api_handler describe_delegation_token_handler();        // 41_describe_delegation_token.cc
api_handler describe_quorum_handler();  // 55_describe_quorum.cc
api_handler describe_cluster_handler();  // 60_describe_cluster.cc
api_handler unregister_broker_handler();  // 64_unregister_broker.cc
api_handler update_features_handler();    // 57_update_features.cc
api_handler controller_registration_handler();  // 70_controller_registration.cc
api_handler update_raft_voter_handler();  // 82_update_raft_voter.cc
api_handler assign_replicas_to_dirs_handler();  // 73_assign_replicas_to_dirs.cc
api_handler add_raft_voter_handler();     // 80_add_raft_voter.cc
api_handler remove_raft_voter_handler();  // 80_add_raft_voter.cc
// Served on controller listeners only (not in all_handlers()).
api_handler broker_registration_handler();  // 62_broker_registration.cc
api_handler broker_heartbeat_handler();     // 63_broker_heartbeat.cc
api_handler metadata_log_fetch_handler();   // 01_metadata_log_fetch.cc
api_handler vote_handler();                 // 52_vote.cc
api_handler begin_quorum_epoch_handler();   // 53_begin_quorum_epoch.cc
api_handler end_quorum_epoch_handler();     // 54_end_quorum_epoch.cc
api_handler fetch_snapshot_handler();       // 59_fetch_snapshot.cc
api_handler alter_partition_handler();        // 56_alter_partition.cc, controller listeners only
api_handler allocate_producer_ids_handler();  // 67_allocate_producer_ids.cc
api_handler envelope_handler();               // 58_envelope.cc, controller listeners only
api_handler describe_producers_handler();  // 61_describe_producers.cc
api_handler consumer_group_heartbeat_handler();  // 68_consumer_group_heartbeat.cc
api_handler consumer_group_describe_handler();   // 69_consumer_group_describe.cc
api_handler streams_group_heartbeat_handler();  // 88_streams_group_heartbeat.cc
api_handler streams_group_describe_handler();   // 89_streams_group_describe.cc
api_handler list_config_resources_handler();  // 74_list_config_resources.cc
api_handler describe_topic_partitions_handler();  // 75_describe_topic_partitions.cc
api_handler write_txn_markers_handler();      // 27_write_txn_markers.cc
api_handler add_partitions_to_txn_handler();  // 24_add_partitions_to_txn.cc
api_handler add_offsets_to_txn_handler();     // 25_add_offsets_to_txn.cc
api_handler end_txn_handler();                // 26_end_txn.cc
api_handler txn_offset_commit_handler();      // 28_txn_offset_commit.cc
api_handler describe_transactions_handler();  // 65_describe_transactions.cc
api_handler list_transactions_handler();      // 66_list_transactions.cc

std::span<const api_handler> all_handlers();
// The ones a controller listener serves (Kafka's APIs whose listeners
// include "controller"), the rest being broker-only.
std::vector<api_handler> controller_handlers();

}  // namespace hw::broker
