#include "broker/handlers/handlers.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace hw::broker {

std::span<const api_handler> all_handlers() {
  // Built on first use, not at static-initialisation time, so the order in
  // which translation units initialise does not matter.
  static const auto handlers = [] {
    std::array list{
        produce_handler(),
        fetch_handler(),
        list_offsets_handler(),
        metadata_handler(),
        offset_commit_handler(),
        offset_fetch_handler(),
        find_coordinator_handler(),
        join_group_handler(),
        heartbeat_handler(),
        leave_group_handler(),
        sync_group_handler(),
        describe_groups_handler(),
        list_groups_handler(),
        sasl_handshake_handler(),
        api_versions_handler(),
        create_topics_handler(),
        delete_topics_handler(),
        create_partitions_handler(),
        delete_groups_handler(),
        offset_delete_handler(),
        delete_records_handler(),
        init_producer_id_handler(),
        write_txn_markers_handler(),
        add_partitions_to_txn_handler(),
        add_offsets_to_txn_handler(),
        end_txn_handler(),
        txn_offset_commit_handler(),
        describe_transactions_handler(),
        list_transactions_handler(),
        offset_for_leader_epoch_handler(),
        describe_acls_handler(),
        create_acls_handler(),
        delete_acls_handler(),
        describe_configs_handler(),
        alter_configs_handler(),
        alter_replica_log_dirs_handler(),
        describe_log_dirs_handler(),
        sasl_authenticate_handler(),
        elect_leaders_handler(),
        incremental_alter_configs_handler(),
        alter_partition_reassignments_handler(),
        list_partition_reassignments_handler(),
        describe_client_quotas_handler(),
        alter_client_quotas_handler(),
        describe_user_scram_credentials_handler(),
        alter_user_scram_credentials_handler(),
        create_delegation_token_handler(),
        renew_delegation_token_handler(),
        expire_delegation_token_handler(),
        describe_delegation_token_handler(),
        describe_quorum_handler(),
        describe_cluster_handler(),
        unregister_broker_handler(),
        update_features_handler(),
        add_raft_voter_handler(),
        remove_raft_voter_handler(),
        describe_producers_handler(),
        consumer_group_heartbeat_handler(),
        streams_group_heartbeat_handler(),
        streams_group_describe_handler(),
        consumer_group_describe_handler(),
        list_config_resources_handler(),
        describe_topic_partitions_handler(),
    };
    std::sort(list.begin(), list.end(), [](const api_handler& a, const api_handler& b) { return a.api_key < b.api_key; });
    for (size_t i = 1; i < list.size(); ++i) assert(list[i - 1].api_key != list[i].api_key && "two handlers for one API");
    return list;
  }();
  return handlers;
}

std::vector<api_handler> controller_handlers() {
  // From the "listeners" of Kafka 4.3's request definitions, among the APIs
  // served here. Fetch (the metadata log's, on a controller) comes with the
  // raft driver (below).
  static constexpr int16_t controller_keys[] = {17, 18, 19, 20, 29, 30, 31, 32, 33, 36, 37, 38, 39, 40,
                                                43, 44, 45, 46, 49, 55, 57, 60, 64, 80, 81};
  std::vector<api_handler> out;
  for (const api_handler& h : all_handlers())
    for (int16_t k : controller_keys)
      if (h.api_key == k) out.push_back(h);
  // What only a controller answers: brokers reach it from other processes,
  // and the quorum's own RPCs.
  out.push_back(metadata_log_fetch_handler());
  out.push_back(vote_handler());
  out.push_back(begin_quorum_epoch_handler());
  out.push_back(end_quorum_epoch_handler());
  out.push_back(fetch_snapshot_handler());
  out.push_back(broker_registration_handler());
  out.push_back(broker_heartbeat_handler());
  out.push_back(controller_registration_handler());
  out.push_back(update_raft_voter_handler());
  out.push_back(assign_replicas_to_dirs_handler());
  out.push_back(alter_partition_handler());
  out.push_back(allocate_producer_ids_handler());
  out.push_back(envelope_handler());
  // AlterUserScramCredentials' listeners include the controller (Describe's do not).
  out.push_back(alter_user_scram_credentials_handler());
  std::sort(out.begin(), out.end(), [](const api_handler& a, const api_handler& b) { return a.api_key < b.api_key; });
  return out;
}

}  // namespace hw::broker
