#pragma once
// The transaction coordinator of one __transaction_state partition, as a
// pure state machine (broker/txn/README.md): requests, tick(now_ms),
// load/unload, append acknowledgements and marker completions go in;
// answers, records to append and markers to write come out of
// take_output(). No I/O and no clock. Owned by the partition's strand;
// every call comes from it.
//
// The rules are Kafka 4.3's TransactionCoordinator: InitProducerId (new
// ids, epoch bumps, fencing an ongoing transaction by aborting it first,
// producer id rotation when the epoch is used up), AddPartitionsToTxn and
// its verify-only form, EndTxn for transaction versions 1 and 2 (v2 bumps
// the epoch at every end and answers retries), the abort of transactions
// past their timeout, and the expiry of idle transactional ids.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/txn/txn_metadata.h"
#include "broker/txn/txn_records.h"
#include "broker/txn/txn_state_manager.h"
#include "protocol/error_code.h"

namespace hw::broker::txn {

struct txn_config {
  // transaction.max.timeout.ms: a longer transaction.timeout.ms is
  // INVALID_TRANSACTION_TIMEOUT.
  int32_t max_timeout_ms = 900000;
  // transactional.id.expiration.ms: an id idle this long (no transaction
  // open) is forgotten.
  int64_t id_expiration_ms = 604800000;
  // The cluster's finalized transaction.version: the record format, and the
  // version the coordinator's own aborts (timeouts, fencing) run at.
  int16_t transaction_version_level = 2;
  // transaction.abort.timed.out.transaction.cleanup.interval.ms: how often
  // tick() is due (next_deadline_ms) to look for timed-out transactions
  // and idle ids.
  int64_t tick_interval_ms = 10000;
};

// Chosen by the caller per request; echoed in the answer.
using request_token = uint64_t;
// Chosen by the shard per append; the caller acknowledges with it, in order.
using append_token = uint64_t;

struct producer_id_and_epoch {
  int64_t id = k_no_producer_id;
  int16_t epoch = k_no_producer_epoch;
};

struct init_producer_id_result {
  protocol::error_code error = protocol::error_code::none;
  int64_t producer_id = k_no_producer_id;
  int16_t producer_epoch = k_no_producer_epoch;
};
struct end_txn_result {
  protocol::error_code error = protocol::error_code::none;
  // Transactions v2: the id and epoch the producer goes on with.
  int64_t producer_id = k_no_producer_id;
  int16_t producer_epoch = k_no_producer_epoch;
};
// InitProducerId, EndTxn, or the one error of an AddPartitionsToTxn /
// AddOffsetsToTxn (every partition of the request gets it).
using txn_answer = std::variant<init_producer_id_result, end_txn_result, protocol::error_code>;

struct txn_completion {
  request_token token = 0;
  txn_answer answer;
};

struct txn_append {
  append_token token = 0;
  txn_record record;
};

// Markers to write once PrepareCommit / PrepareAbort is durable: a COMMIT
// or ABORT control batch at this producer id and epoch, with the
// coordinator epoch, in every partition. The caller reports completion
// with on_markers_written (a partition whose topic is gone counts as done).
struct marker_job {
  std::string transactional_id;
  int64_t producer_id = k_no_producer_id;
  int16_t producer_epoch = k_no_producer_epoch;
  bool commit = false;
  int32_t coordinator_epoch = -1;
  // WriteTxnMarkers v2's TransactionVersion: the client's version.
  int16_t transaction_version = 0;
  txn_partitions partitions;
};

struct txn_shard_output {
  std::vector<txn_completion> completions;
  std::vector<txn_append> appends;
  std::vector<marker_job> markers;
  // Coordinator bugs met on the way (Kafka's IllegalStateException), for
  // the caller to log at ERROR; the request concerned got
  // UNKNOWN_SERVER_ERROR.
  std::vector<std::string> illegal;
};

class txn_shard {
 public:
  txn_shard(int32_t partition, txn_config config);

  const txn_config& config() const { return config_; }
  void set_transaction_version_level(int16_t level) { config_.transaction_version_level = level; }
  // The ids, the mode and coordinator epoch, and the reads
  // (DescribeTransactions, ListTransactions, metrics).
  const txn_state_manager& states() const { return states_; }

  // --- leadership ---------------------------------------------------------
  // coordinator_epoch: the partition's leader epoch here.
  void begin_load(int32_t coordinator_epoch);
  // One record in log order; false (nothing applied, `error` says why) for
  // a record that does not decode.
  bool load(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value, std::string* error) {
    return states_.load(key, value, error);
  }
  // Transactions found between prepare and complete get their markers again.
  void end_load(int64_t now_ms);
  // Requests waiting on an append are answered NOT_COORDINATOR; everything
  // is forgotten until the next load.
  void unload();

  // --- requests (answers come out of take_output) -------------------------
  // Whether InitProducerId would hand out a new producer id (an unknown
  // transactional id, or a used-up epoch): the caller fetches one and passes
  // it as `fresh_producer_id`. Without it such a request is answered
  // COORDINATOR_LOAD_IN_PROGRESS (retriable).
  bool init_needs_producer_id(std::string_view transactional_id, std::optional<producer_id_and_epoch> expected) const;
  void init_producer_id(request_token token, const std::string& transactional_id, int32_t timeout_ms,
                        std::optional<producer_id_and_epoch> expected, std::optional<int64_t> fresh_producer_id,
                        int64_t now_ms);
  // AddPartitionsToTxn (v3 and below, or v4+ not verify-only), and
  // AddOffsetsToTxn (the group's __consumer_offsets partition).
  void add_partitions(request_token token, const std::string& transactional_id, producer_id_and_epoch producer,
                      const txn_partitions& partitions, int16_t client_version, int64_t now_ms);
  // AddPartitionsToTxn v4+ verify-only (a partition leader checking a
  // transactional write, KIP-890 part 1): answered at once.
  std::vector<std::pair<txn_topic_partition, protocol::error_code>> verify_partitions(
      const std::string& transactional_id, producer_id_and_epoch producer, const txn_partitions& partitions) const;
  // Whether EndTxn would need a new producer id (v2, the bump uses up the epoch).
  bool end_needs_producer_id(std::string_view transactional_id, int16_t client_version) const;
  void end_txn(request_token token, const std::string& transactional_id, producer_id_and_epoch producer, bool commit,
               int16_t client_version, std::optional<int64_t> fresh_producer_id, int64_t now_ms);

  // Every marker of the job went out (for this coordinator epoch).
  void on_markers_written(const std::string& transactional_id, int32_t coordinator_epoch, int64_t now_ms);
  // `error`: the storage outcome of the append (none = durable).
  void on_append_done(append_token token, protocol::error_code error, int64_t now_ms);

  // Aborts transactions open past their timeout, expires idle ids, retries
  // completion records whose write failed.
  void tick(int64_t now_ms);
  // When tick() is next due (active only).
  std::optional<int64_t> next_deadline_ms() const;

  txn_shard_output take_output();

 private:
  // What to do when an append is acknowledged.
  enum class then {
    answer_init,          // InitProducerId: the new epoch
    answer_add,           // AddPartitionsToTxn / AddOffsetsToTxn
    end_prepared,         // EndTxn's prepare record: answer, then markers
    fence_prepared,       // InitProducerId's abort of the fenced transaction
    timeout_prepared,     // the coordinator's abort of a timed-out transaction
    end_completed,        // the complete record after the markers
    expired,              // the tombstone of an idle id
  };
  struct in_flight {
    std::string transactional_id;
    txn_transit transit;
    then next = then::answer_add;
    std::optional<request_token> token;
    int32_t coordinator_epoch = -1;
  };
  // An EndTxn (or the coordinator's own abort) whose rules said to write
  // its prepare record.
  struct end_call {
    const std::string& transactional_id;
    producer_id_and_epoch producer;
    int16_t client_version;
    std::optional<int64_t> fresh_producer_id;
    then next;
    std::optional<request_token> token;
    int64_t now_ms;
    bool fence;  // the id's pending change is InitProducerId's fencing
  };

  void answer(std::optional<request_token> token, txn_answer a);
  void append(const std::string& transactional_id, const txn_transit& transit, then next,
              std::optional<request_token> token);
  void illegal(const std::string& transactional_id, const std::string& what);
  // EndTxn's rules (v1 or v2 by the client's version);
  // `from_client` false for the coordinator's own aborts. Returns the
  // answer when there is nothing to write (or an error).
  std::optional<end_txn_result> begin_end(const std::string& transactional_id, producer_id_and_epoch producer,
                                          bool commit, int16_t client_version, bool from_client,
                                          std::optional<int64_t> fresh_producer_id, then next,
                                          std::optional<request_token> token, int64_t now_ms);
  // Writes the prepare record (no_partition_added: a v2 abort of a
  // transaction that added nothing).
  std::optional<end_txn_result> write_prepare(txn_metadata& m, const end_call& call, txn_state target,
                                              bool no_partition_added);
  // The prepare record is durable: answer and hand out the markers.
  void after_prepare(const in_flight& f, int64_t now_ms);
  // Answers the request behind an append (if any) with `e`, in the shape
  // of that request's answer.
  void fail(const in_flight& f, protocol::error_code e);
  void abort_timed_out(int64_t now_ms);
  void expire_idle(int64_t now_ms);

  txn_config config_;
  txn_state_manager states_;
  int64_t next_tick_ms_ = 0;
  std::map<append_token, in_flight> appends_;
  append_token next_append_ = 1;
  // Between a durable prepare record and a durable complete record: the
  // complete record to write once the markers are out.
  std::map<std::string, txn_transit, std::less<>> awaiting_markers_;
  // Completion records whose write failed with a retriable error.
  std::vector<std::string> retry_complete_;
  txn_shard_output out_;
};

}  // namespace hw::broker::txn
