#pragma once
// `__consumer_offsets` records of streams groups (KIP-1071), as Kafka 4.3
// writes them: the key's int16 is the record type (17 group metadata, 19
// member metadata, 20 target assignment epoch, 21 a member's target
// assignment, 22 a member's current assignment, 23 the topology), every
// value is version 0, a record without a value is a tombstone. And the
// topology between its record and the shape `topology.h` configures.
// Pure; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "broker/group/consumer/consumer_group_records.h"
#include "broker/group/coordinator_record.h"
#include "broker/group/streams/topology.h"
#include "protocol/messages/group_coordinator_records.h"

namespace hw::broker::group::streams {

namespace msg = protocol::msg;
using consumer::keyed_record;

using group_metadata_record = keyed_record<msg::streams_group_metadata_key, msg::streams_group_metadata_value>;
using member_metadata_record =
    keyed_record<msg::streams_group_member_metadata_key, msg::streams_group_member_metadata_value>;
using target_assignment_epoch_record =
    keyed_record<msg::streams_group_target_assignment_metadata_key, msg::streams_group_target_assignment_metadata_value>;
using target_assignment_member_record =
    keyed_record<msg::streams_group_target_assignment_member_key, msg::streams_group_target_assignment_member_value>;
using current_assignment_record =
    keyed_record<msg::streams_group_current_member_assignment_key, msg::streams_group_current_member_assignment_value>;
using topology_record = keyed_record<msg::streams_group_topology_key, msg::streams_group_topology_value>;

using streams_group_record = std::variant<group_metadata_record, member_metadata_record, target_assignment_epoch_record,
                                          target_assignment_member_record, current_assignment_record, topology_record>;

// Whether a key of this record type is a streams group's.
bool is_streams_group_record_type(int16_t record_type);

coordinator_record encode_record(const streams_group_record& record);

// nullopt when the key is not a streams-group record or either part does
// not decode (wrong value version, trailing bytes, truncation).
std::optional<streams_group_record> decode_streams_group_record(byte_view key, std::optional<byte_view> value);

// The group a record belongs to.
const std::string& group_of(const streams_group_record& record);

// The topology between its record value and the configured shape, in the
// member's order (Kafka copies the heartbeat's topology into the record as
// it came).
topology topology_from(const msg::streams_group_topology_value& value);
msg::streams_group_topology_value to_value(const topology& t);

}  // namespace hw::broker::group::streams
