#pragma once
// Committed metadata records as the quorum hands them to whoever replays
// them (the controller, the broker's metadata publisher).

#include <cstdint>
#include <vector>

#include "controller/metadata/records.h"
#include "storage/types.h"

namespace hw::broker {

// Records committed by one move of the high watermark, in log order;
// control records (leader changes) are left out, but `last` covers them.
struct committed_batch {
  // A snapshot: `records` rebuild the whole image from empty (at start-up
  // from the latest snapshot, or one fetched from the leader); whatever the
  // replayer held before is replaced.
  bool snapshot = false;
  storage::offset base_offset;  // of the first record
  storage::offset last;         // of the last offset committed (records or control)
  storage::leader_epoch epoch{0};  // of the last batch
  std::vector<controller::metadata_record> records;
  storage::offset last_offset() const { return last; }
};

}  // namespace hw::broker
