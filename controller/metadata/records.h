#pragma once
// A metadata record: one entry of the `__cluster_metadata` log, as the
// generated struct of its kind, and its value bytes in a KRaft batch.
//
// Kafka frames each record value (MetadataRecordSerde) as
//   [frame version: uvarint = 1][api key: uvarint][record version: uvarint][body]
// with the body in the record's flexible encoding; the record key is null.
// The controller chooses the record version from metadata.version
// (record_version_for); decoding accepts every version the schema knows.
//
// Pure functions; usable anywhere.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "controller/metadata/metadata_version.h"
#include "protocol/messages/metadata_records.h"

namespace hw::controller {

namespace msg = protocol::msg;

// Every record a Kafka 4.3 controller can write or a 4.3 log can hold
// (ZkMigrationStateRecord included: logs migrated from ZooKeeper keep it).
using metadata_record = std::variant<
    msg::register_broker_record, msg::unregister_broker_record, msg::topic_record,
    msg::partition_record, msg::config_record, msg::partition_change_record,
    msg::fence_broker_record, msg::unfence_broker_record, msg::remove_topic_record,
    msg::delegation_token_record, msg::user_scram_credential_record, msg::feature_level_record,
    msg::client_quota_record, msg::producer_ids_record, msg::broker_registration_change_record,
    msg::access_control_entry_record, msg::remove_access_control_entry_record, msg::no_op_record,
    msg::zk_migration_state_record, msg::remove_user_scram_credential_record,
    msg::begin_transaction_record, msg::end_transaction_record, msg::abort_transaction_record,
    msg::remove_delegation_token_record, msg::register_controller_record, msg::clear_elr_record>;

// The frame version Kafka writes and reads.
inline constexpr uint32_t record_frame_version = 1;
// encode_record_value's default: the version record_version_for picks at
// the latest production metadata.version.
inline constexpr int16_t latest_record_version = -1;

int16_t record_api_key(const metadata_record& record);
// Kafka's class name ("PartitionChangeRecord").
std::string_view record_name(const metadata_record& record);

// The version a controller at metadata.version mv writes this record in.
// BrokerRegistrationChangeRecord's depends on what it carries, as Kafka's
// writers do (fencing 0, controlled shutdown 1, log dirs 2, cordoned dirs 3).
int16_t record_version_for(const metadata_record& record, metadata_version mv);

// The framed value. version must lie in the record's schema range.
std::vector<uint8_t> encode_record_value(const metadata_record& record,
                                         int16_t version = latest_record_version);

// The framed value in the version a controller at metadata.version mv
// writes (what the metadata log append path should use).
inline std::vector<uint8_t> encode_record_value(const metadata_record& record, metadata_version mv) {
  return encode_record_value(record, record_version_for(record, mv));
}

// Decodes a framed value. On failure returns false and says why in *error
// (unknown frame version or api key, a version outside the schema's range,
// a malformed or truncated body, bytes left over).
bool decode_record_value(std::span<const uint8_t> value, metadata_record* out, std::string* error,
                         int16_t* version_out = nullptr);

}  // namespace hw::controller
