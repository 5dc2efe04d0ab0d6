#pragma once
// Control records: the single record of a control batch. Its key is
// version int16 (0) + type int16; for transaction markers (ABORT, COMMIT)
// the value is version int16 (0) + coordinatorEpoch int32. The KRaft types
// (2 and up) carry their own values, decoded by the raft layer.

#include <array>
#include <cstdint>
#include <optional>

#include "protocol/records/record.h"

namespace hw::protocol {

enum class control_record_type : int16_t {
  abort = 0,
  commit = 1,
  leader_change = 2,
  snapshot_header = 3,
  snapshot_footer = 4,
  kraft_version = 5,
  kraft_voters = 6,
};

struct control_record_key {
  int16_t version = 0;
  int16_t type = 0;  // raw: unknown types are skipped by readers, not refused
};

struct end_txn_marker {
  control_record_type type = control_record_type::commit;  // commit or abort
  int32_t coordinator_epoch = 0;
};

inline constexpr size_t control_key_bytes = 4;
inline constexpr size_t end_txn_marker_value_bytes = 6;

// The key of a control record, or nothing when it is null, shorter than four
// bytes, or of a negative version. Longer keys (later versions) are accepted.
std::optional<control_record_key> parse_control_key(const record_view& record);

// The transaction marker in a control record, or nothing when the record is
// not an ABORT/COMMIT marker or its value is malformed.
std::optional<end_txn_marker> parse_end_txn_marker(const record_view& record);

std::array<uint8_t, control_key_bytes> encode_control_key(control_record_type type);
std::array<uint8_t, end_txn_marker_value_bytes> encode_end_txn_marker_value(int32_t coordinator_epoch);

}  // namespace hw::protocol
