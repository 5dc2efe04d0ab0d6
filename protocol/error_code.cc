#include "protocol/error_code.h"

namespace hw::protocol {

std::string_view error_name(error_code code) {
  switch (code) {
    case error_code::unknown_server_error: return "UNKNOWN_SERVER_ERROR";
    case error_code::none: return "NONE";
    case error_code::offset_out_of_range: return "OFFSET_OUT_OF_RANGE";
    case error_code::corrupt_message: return "CORRUPT_MESSAGE";
    case error_code::unknown_topic_or_partition: return "UNKNOWN_TOPIC_OR_PARTITION";
    case error_code::invalid_fetch_size: return "INVALID_FETCH_SIZE";
    case error_code::leader_not_available: return "LEADER_NOT_AVAILABLE";
    case error_code::not_leader_or_follower: return "NOT_LEADER_OR_FOLLOWER";
    case error_code::request_timed_out: return "REQUEST_TIMED_OUT";
    case error_code::broker_not_available: return "BROKER_NOT_AVAILABLE";
    case error_code::replica_not_available: return "REPLICA_NOT_AVAILABLE";
    case error_code::message_too_large: return "MESSAGE_TOO_LARGE";
    case error_code::stale_controller_epoch: return "STALE_CONTROLLER_EPOCH";
    case error_code::offset_metadata_too_large: return "OFFSET_METADATA_TOO_LARGE";
    case error_code::network_exception: return "NETWORK_EXCEPTION";
    case error_code::coordinator_load_in_progress: return "COORDINATOR_LOAD_IN_PROGRESS";
    case error_code::coordinator_not_available: return "COORDINATOR_NOT_AVAILABLE";
    case error_code::not_coordinator: return "NOT_COORDINATOR";
    case error_code::invalid_topic_exception: return "INVALID_TOPIC_EXCEPTION";
    case error_code::record_list_too_large: return "RECORD_LIST_TOO_LARGE";
    case error_code::not_enough_replicas: return "NOT_ENOUGH_REPLICAS";
    case error_code::not_enough_replicas_after_append: return "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
    case error_code::invalid_required_acks: return "INVALID_REQUIRED_ACKS";
    case error_code::illegal_generation: return "ILLEGAL_GENERATION";
    case error_code::inconsistent_group_protocol: return "INCONSISTENT_GROUP_PROTOCOL";
    case error_code::invalid_group_id: return "INVALID_GROUP_ID";
    case error_code::unknown_member_id: return "UNKNOWN_MEMBER_ID";
    case error_code::invalid_session_timeout: return "INVALID_SESSION_TIMEOUT";
    case error_code::rebalance_in_progress: return "REBALANCE_IN_PROGRESS";
    case error_code::invalid_commit_offset_size: return "INVALID_COMMIT_OFFSET_SIZE";
    case error_code::topic_authorization_failed: return "TOPIC_AUTHORIZATION_FAILED";
    case error_code::group_authorization_failed: return "GROUP_AUTHORIZATION_FAILED";
    case error_code::cluster_authorization_failed: return "CLUSTER_AUTHORIZATION_FAILED";
    case error_code::invalid_timestamp: return "INVALID_TIMESTAMP";
    case error_code::unsupported_sasl_mechanism: return "UNSUPPORTED_SASL_MECHANISM";
    case error_code::illegal_sasl_state: return "ILLEGAL_SASL_STATE";
    case error_code::unsupported_version: return "UNSUPPORTED_VERSION";
    case error_code::topic_already_exists: return "TOPIC_ALREADY_EXISTS";
    case error_code::invalid_partitions: return "INVALID_PARTITIONS";
    case error_code::invalid_replication_factor: return "INVALID_REPLICATION_FACTOR";
    case error_code::invalid_replica_assignment: return "INVALID_REPLICA_ASSIGNMENT";
    case error_code::invalid_config: return "INVALID_CONFIG";
    case error_code::not_controller: return "NOT_CONTROLLER";
    case error_code::invalid_request: return "INVALID_REQUEST";
    case error_code::unsupported_for_message_format: return "UNSUPPORTED_FOR_MESSAGE_FORMAT";
    case error_code::policy_violation: return "POLICY_VIOLATION";
    case error_code::out_of_order_sequence_number: return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case error_code::duplicate_sequence_number: return "DUPLICATE_SEQUENCE_NUMBER";
    case error_code::invalid_producer_epoch: return "INVALID_PRODUCER_EPOCH";
    case error_code::invalid_txn_state: return "INVALID_TXN_STATE";
    case error_code::invalid_producer_id_mapping: return "INVALID_PRODUCER_ID_MAPPING";
    case error_code::invalid_transaction_timeout: return "INVALID_TRANSACTION_TIMEOUT";
    case error_code::concurrent_transactions: return "CONCURRENT_TRANSACTIONS";
    case error_code::transaction_coordinator_fenced: return "TRANSACTION_COORDINATOR_FENCED";
    case error_code::transactional_id_authorization_failed: return "TRANSACTIONAL_ID_AUTHORIZATION_FAILED";
    case error_code::security_disabled: return "SECURITY_DISABLED";
    case error_code::operation_not_attempted: return "OPERATION_NOT_ATTEMPTED";
    case error_code::kafka_storage_error: return "KAFKA_STORAGE_ERROR";
    case error_code::log_dir_not_found: return "LOG_DIR_NOT_FOUND";
    case error_code::sasl_authentication_failed: return "SASL_AUTHENTICATION_FAILED";
    case error_code::unknown_producer_id: return "UNKNOWN_PRODUCER_ID";
    case error_code::reassignment_in_progress: return "REASSIGNMENT_IN_PROGRESS";
    case error_code::delegation_token_auth_disabled: return "DELEGATION_TOKEN_AUTH_DISABLED";
    case error_code::delegation_token_not_found: return "DELEGATION_TOKEN_NOT_FOUND";
    case error_code::delegation_token_owner_mismatch: return "DELEGATION_TOKEN_OWNER_MISMATCH";
    case error_code::delegation_token_request_not_allowed: return "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED";
    case error_code::delegation_token_authorization_failed: return "DELEGATION_TOKEN_AUTHORIZATION_FAILED";
    case error_code::delegation_token_expired: return "DELEGATION_TOKEN_EXPIRED";
    case error_code::invalid_principal_type: return "INVALID_PRINCIPAL_TYPE";
    case error_code::non_empty_group: return "NON_EMPTY_GROUP";
    case error_code::group_id_not_found: return "GROUP_ID_NOT_FOUND";
    case error_code::fetch_session_id_not_found: return "FETCH_SESSION_ID_NOT_FOUND";
    case error_code::invalid_fetch_session_epoch: return "INVALID_FETCH_SESSION_EPOCH";
    case error_code::listener_not_found: return "LISTENER_NOT_FOUND";
    case error_code::topic_deletion_disabled: return "TOPIC_DELETION_DISABLED";
    case error_code::fenced_leader_epoch: return "FENCED_LEADER_EPOCH";
    case error_code::unknown_leader_epoch: return "UNKNOWN_LEADER_EPOCH";
    case error_code::unsupported_compression_type: return "UNSUPPORTED_COMPRESSION_TYPE";
    case error_code::stale_broker_epoch: return "STALE_BROKER_EPOCH";
    case error_code::offset_not_available: return "OFFSET_NOT_AVAILABLE";
    case error_code::member_id_required: return "MEMBER_ID_REQUIRED";
    case error_code::preferred_leader_not_available: return "PREFERRED_LEADER_NOT_AVAILABLE";
    case error_code::group_max_size_reached: return "GROUP_MAX_SIZE_REACHED";
    case error_code::fenced_instance_id: return "FENCED_INSTANCE_ID";
    case error_code::eligible_leaders_not_available: return "ELIGIBLE_LEADERS_NOT_AVAILABLE";
    case error_code::election_not_needed: return "ELECTION_NOT_NEEDED";
    case error_code::no_reassignment_in_progress: return "NO_REASSIGNMENT_IN_PROGRESS";
    case error_code::group_subscribed_to_topic: return "GROUP_SUBSCRIBED_TO_TOPIC";
    case error_code::invalid_record: return "INVALID_RECORD";
    case error_code::unstable_offset_commit: return "UNSTABLE_OFFSET_COMMIT";
    case error_code::throttling_quota_exceeded: return "THROTTLING_QUOTA_EXCEEDED";
    case error_code::producer_fenced: return "PRODUCER_FENCED";
    case error_code::resource_not_found: return "RESOURCE_NOT_FOUND";
    case error_code::duplicate_resource: return "DUPLICATE_RESOURCE";
    case error_code::unacceptable_credential: return "UNACCEPTABLE_CREDENTIAL";
    case error_code::inconsistent_voter_set: return "INCONSISTENT_VOTER_SET";
    case error_code::invalid_update_version: return "INVALID_UPDATE_VERSION";
    case error_code::feature_update_failed: return "FEATURE_UPDATE_FAILED";
    case error_code::principal_deserialization_failure: return "PRINCIPAL_DESERIALIZATION_FAILURE";
    case error_code::snapshot_not_found: return "SNAPSHOT_NOT_FOUND";
    case error_code::position_out_of_range: return "POSITION_OUT_OF_RANGE";
    case error_code::unknown_topic_id: return "UNKNOWN_TOPIC_ID";
    case error_code::duplicate_broker_registration: return "DUPLICATE_BROKER_REGISTRATION";
    case error_code::broker_id_not_registered: return "BROKER_ID_NOT_REGISTERED";
    case error_code::inconsistent_topic_id: return "INCONSISTENT_TOPIC_ID";
    case error_code::inconsistent_cluster_id: return "INCONSISTENT_CLUSTER_ID";
    case error_code::transactional_id_not_found: return "TRANSACTIONAL_ID_NOT_FOUND";
    case error_code::fetch_session_topic_id_error: return "FETCH_SESSION_TOPIC_ID_ERROR";
    case error_code::ineligible_replica: return "INELIGIBLE_REPLICA";
    case error_code::new_leader_elected: return "NEW_LEADER_ELECTED";
    case error_code::offset_moved_to_tiered_storage: return "OFFSET_MOVED_TO_TIERED_STORAGE";
    case error_code::fenced_member_epoch: return "FENCED_MEMBER_EPOCH";
    case error_code::unreleased_instance_id: return "UNRELEASED_INSTANCE_ID";
    case error_code::unsupported_assignor: return "UNSUPPORTED_ASSIGNOR";
    case error_code::stale_member_epoch: return "STALE_MEMBER_EPOCH";
    case error_code::mismatched_endpoint_type: return "MISMATCHED_ENDPOINT_TYPE";
    case error_code::unsupported_endpoint_type: return "UNSUPPORTED_ENDPOINT_TYPE";
    case error_code::unknown_controller_id: return "UNKNOWN_CONTROLLER_ID";
    case error_code::unknown_subscription_id: return "UNKNOWN_SUBSCRIPTION_ID";
    case error_code::telemetry_too_large: return "TELEMETRY_TOO_LARGE";
    case error_code::invalid_registration: return "INVALID_REGISTRATION";
    case error_code::transaction_abortable: return "TRANSACTION_ABORTABLE";
    case error_code::invalid_record_state: return "INVALID_RECORD_STATE";
    case error_code::share_session_not_found: return "SHARE_SESSION_NOT_FOUND";
    case error_code::invalid_share_session_epoch: return "INVALID_SHARE_SESSION_EPOCH";
    case error_code::fenced_state_epoch: return "FENCED_STATE_EPOCH";
    case error_code::invalid_voter_key: return "INVALID_VOTER_KEY";
    case error_code::duplicate_voter: return "DUPLICATE_VOTER";
    case error_code::voter_not_found: return "VOTER_NOT_FOUND";
    case error_code::invalid_regular_expression: return "INVALID_REGULAR_EXPRESSION";
    case error_code::rebootstrap_required: return "REBOOTSTRAP_REQUIRED";
    case error_code::streams_invalid_topology: return "STREAMS_INVALID_TOPOLOGY";
    case error_code::streams_invalid_topology_epoch: return "STREAMS_INVALID_TOPOLOGY_EPOCH";
    case error_code::streams_topology_fenced: return "STREAMS_TOPOLOGY_FENCED";
    case error_code::share_session_limit_reached: return "SHARE_SESSION_LIMIT_REACHED";
  }
  return "UNKNOWN";
}

bool error_retriable(error_code code) {
  switch (code) {
    case error_code::corrupt_message:
    case error_code::unknown_topic_or_partition:
    case error_code::leader_not_available:
    case error_code::not_leader_or_follower:
    case error_code::request_timed_out:
    case error_code::network_exception:
    case error_code::coordinator_load_in_progress:
    case error_code::coordinator_not_available:
    case error_code::not_coordinator:
    case error_code::not_enough_replicas:
    case error_code::not_enough_replicas_after_append:
    case error_code::not_controller:
    case error_code::kafka_storage_error:
    case error_code::fetch_session_id_not_found:
    case error_code::invalid_fetch_session_epoch:
    case error_code::fenced_leader_epoch:
    case error_code::unknown_leader_epoch:
    case error_code::offset_not_available:
    case error_code::preferred_leader_not_available:
    case error_code::eligible_leaders_not_available:
    case error_code::election_not_needed:
    case error_code::unstable_offset_commit:
    case error_code::throttling_quota_exceeded:
    case error_code::concurrent_transactions:
    case error_code::unknown_topic_id:
    case error_code::inconsistent_topic_id:
    case error_code::fetch_session_topic_id_error:
      return true;
    default:
      return false;
  }
}

}  // namespace hw::protocol
