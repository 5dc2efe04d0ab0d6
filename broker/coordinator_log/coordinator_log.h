#pragma once
// What the group and transaction coordinators share about their partition
// (__consumer_offsets, __transaction_state): replaying it from the log
// start when this broker becomes its leader, and appending their records
// with acks=all semantics, each acknowledged in order once the high
// watermark passes it. Everything here runs on the partition's strand.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "broker/replica/partition.h"
#include "protocol/error_code.h"
#include "protocol/records/record_batch.h"

namespace hw::broker {

// Called for every record of every batch at or after the log start, in
// order (control batches included: the caller decides).
using replayed_record_fn =
    std::function<void(const protocol::record_batch_view& batch, const protocol::record_view& record)>;

struct replay_result {
  int64_t next_offset = 0;  // where the replay stopped (the log end, unless it failed)
  std::error_code error;    // a read failure, with next_offset where it happened
};

// Reads `p` from its log start to its log end (not the high watermark: a
// new leader's log is the partition's history from now on, and its HW may
// lag what its predecessor acknowledged until its followers fetch from it),
// `buffer_bytes` at a time.
replay_result replay_partition(partition& p, int32_t buffer_bytes, const replayed_record_fn& on_record);

// The producer a transactional append is written for (TxnOffsetCommit):
// the batch carries its id and epoch and is transactional, so the
// partition's producer state holds the transaction open until its marker.
struct coordinator_producer {
  int64_t id = -1;
  int16_t epoch = -1;
  // KIP-890: the partition's verification guard for the producer's write
  // (nullopt: not verified); see partition::append_records.
  std::optional<uint64_t> verification;
};

// One coordinator record to append.
struct coordinator_append_record {
  std::span<const uint8_t> key;
  std::optional<std::span<const uint8_t>> value;  // nullopt: tombstone
};

class durable_appender {
 public:
  using token = uint64_t;
  using done_fn = std::function<void(token, protocol::error_code)>;

  explicit durable_appender(std::shared_ptr<partition> p) : part_(std::move(p)) {}

  // Appends the records as one batch at the leader epoch (none: the token
  // is acknowledged at once, in its turn). A refused append is acknowledged
  // with its error in its turn. `what` names the records in a warning.
  // With `producer`, the batch is that producer's transactional batch.
  void append(token t, const std::vector<coordinator_append_record>& records, int64_t now_ms, std::string_view what,
              std::optional<coordinator_producer> producer = std::nullopt);

  // Acknowledges, in order, the appends the high watermark has passed or
  // that failed (NOT_LEADER_OR_FOLLOWER once this broker stops leading).
  // When the first one still waits, `wake` is registered with the
  // partition (called on its strand when the HW moves; post from it rather
  // than re-entering) and this returns.
  void acknowledge_ready(const done_fn& done, const std::function<void()>& wake);

  bool empty() const { return pending_.empty(); }

 private:
  struct pending {
    token t = 0;
    int64_t end_offset = 0;
    protocol::error_code error = protocol::error_code::none;
  };
  std::shared_ptr<partition> part_;
  std::deque<pending> pending_;
  // Held while waiting for the HW (the partition keeps waiters weakly).
  std::shared_ptr<std::function<void()>> hw_wake_;
};

}  // namespace hw::broker
