#pragma once
// `__consumer_offsets` records of consumer groups (KIP-848), as Kafka 4.3
// writes them: the key's int16 is the record type (3 group epoch, 4 the
// partition metadata of releases before 4.1, 5 member metadata, 6 target
// assignment epoch, 7 a member's target assignment, 8 a member's current
// assignment, 16 a resolved regular expression), every value is version 0,
// and a record without a value is a tombstone. Encoding writes the bytes
// Kafka 4.3.1 writes for the same content (checked against its own records,
// tests/broker/fixtures/consumer_group_records_4_3.txt). Pure; any thread.

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "broker/group/consumer/keyed_record.h"
#include "broker/group/coordinator_record.h"
#include "protocol/messages/group_coordinator_records.h"

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;

using group_epoch_record = keyed_record<msg::consumer_group_metadata_key, msg::consumer_group_metadata_value>;
using partition_metadata_record =
    keyed_record<msg::consumer_group_partition_metadata_key, msg::consumer_group_partition_metadata_value>;
using member_metadata_record =
    keyed_record<msg::consumer_group_member_metadata_key, msg::consumer_group_member_metadata_value>;
using target_assignment_epoch_record =
    keyed_record<msg::consumer_group_target_assignment_metadata_key,
                 msg::consumer_group_target_assignment_metadata_value>;
using target_assignment_member_record =
    keyed_record<msg::consumer_group_target_assignment_member_key, msg::consumer_group_target_assignment_member_value>;
using current_assignment_record =
    keyed_record<msg::consumer_group_current_member_assignment_key,
                 msg::consumer_group_current_member_assignment_value>;
using regular_expression_record =
    keyed_record<msg::consumer_group_regular_expression_key, msg::consumer_group_regular_expression_value>;

using consumer_group_record =
    std::variant<group_epoch_record, partition_metadata_record, member_metadata_record,
                 target_assignment_epoch_record, target_assignment_member_record, current_assignment_record,
                 regular_expression_record>;

// Whether a key of this record type is a consumer group's.
bool is_consumer_group_record_type(int16_t record_type);

coordinator_record encode_record(const consumer_group_record& record);

// nullopt when the key is not a consumer-group record or either part does
// not decode (wrong value version, trailing bytes, truncation).
std::optional<consumer_group_record> decode_consumer_group_record(byte_view key, std::optional<byte_view> value);

// The group a record belongs to.
const std::string& group_of(const consumer_group_record& record);

}  // namespace hw::broker::group::consumer
