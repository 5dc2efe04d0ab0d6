#pragma once
// Conversions between the old single-group / single-member shapes of some
// requests and the shapes group_shard works with, as Kafka's request and
// response classes do them. For the handlers; pure, any thread.

#include <cstdint>

#include "broker/group/shard_output.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/offset_fetch.h"

namespace hw::broker::group {

// OffsetFetch v1-7 (one group, top-level topics; null topics from v2 means
// all) as the v8+ group form. v8+ requests carry their groups already.
protocol::msg::offset_fetch_request::offset_fetch_request_group legacy_offset_fetch_group(
    const protocol::msg::offset_fetch_request& request);

// Fills the v1-7 fields of an OffsetFetch response from the one group's
// answer: the group error goes top level (v2+) or, before v2, into every
// partition with offset -1.
void fill_legacy_offset_fetch(protocol::msg::offset_fetch_response& out, const offset_fetch_group_response& group,
                              int16_t version);

// LeaveGroup v0-2 names one member at top level; v3+ lists members.
protocol::msg::leave_group_request leave_group_members(const protocol::msg::leave_group_request& request,
                                                       int16_t version);

// LeaveGroup v0-2 answers with one top-level error: the top-level one if
// set, else that of the one member.
void fold_legacy_leave(protocol::msg::leave_group_response& response, int16_t version);

}  // namespace hw::broker::group
