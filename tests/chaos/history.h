#pragma once
// What a chaos run's workload did and saw, and the checker that judges it
// the way Jepsen's Kafka "queue" workload does. The history is a list of
// events: producer sends and their outcomes (acknowledged at a partition
// and offset, definitely failed, or indeterminate), consumer reads (which
// consumer, in which assignment generation, what offset of what partition
// held what value), consumer rebalances, and the final read of every
// partition from the beginning. The checker is pure: it takes the events
// and returns findings, so it is tested on small hand-made histories.
//
// Values are "p<producer>-<seq>": each producer numbers its sends from 0,
// so a value is unique across the run and the order of one producer's
// values within a partition is checkable.
//
// Transactions: a transactional producer's sends name their transaction,
// and the transaction's end says what the producer was told (committed,
// aborted, or unknown when the client could not say); read_committed
// consumers' reads are marked so; the final read marks each transactional
// record with what the partition's markers decided.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hw::chaos {

// "2026-12-03 03:09:15,408 UTC", as the brokers' log lines write time.
std::string wall_clock(std::chrono::system_clock::time_point t);

struct value_id {
  int producer = -1;
  int64_t seq = -1;
};
std::string make_value(int producer, int64_t seq);
// Nothing when the text is not "p<producer>-<seq>".
std::optional<value_id> parse_value(std::string_view text);

// Where the final read found a record: the batch's producer id and epoch,
// the record's sequence number, and the leader epoch of its append (-1:
// not known). Two copies of one value with the same producer id, epoch and
// sequence are one write appended twice; with different ones, the client
// sent the value again as a new write.
struct batch_origin {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t sequence = -1;
  int32_t leader_epoch = -1;
  bool operator==(const batch_origin&) const = default;
};

// What a transactional producer was told of its transaction.
enum class txn_outcome { committed, aborted, unknown };
// What the final read's markers say of a record's transaction.
enum class txn_status {
  none,       // not transactional
  committed,  // a COMMIT marker of its producer follows it
  aborted,    // an ABORT marker follows it
  open,       // no marker yet
};

struct event {
  enum class type {
    send,           // a producer handed value to its client for partition
    ack,            // value acknowledged at partition, offset (offset -1: the client gave none)
    fail,           // value definitely not written (the client never sent it or the broker refused it)
    indeterminate,  // value's outcome unknown (timed out after a send, or never resolved)
    rebalance,      // consumer's assignment changed: a new generation with these partitions
    read,           // consumer, in generation, read value at partition, offset
    final_read,     // the final read from the beginning found value at partition, offset
    client_reset,   // consumer's client moved its position of partition from offset to its reset point,
                    // because a broker (error: which, and why) answered that the offset was out of range
    txn_end,        // transaction `txn` ended with `outcome` (error: the client's words when unknown)
    epoch_bump,     // an idempotent producer's client bumped its epoch (KIP-360) to origin.producer_epoch of
                    // origin.producer_id, having drained its partitions (error: the client's reason)
    member,         // consumer reads in the group named by value (read_committed: committed records only)
  };
  type kind = type::send;
  int64_t at_ms = 0;  // since the history began
  std::string value;
  int32_t partition = -1;
  int64_t offset = -1;
  int consumer = -1;
  int generation = -1;
  std::vector<int32_t> assignment;
  std::string error;
  batch_origin origin;  // final reads; epoch bumps: the producer id and the new epoch
  std::string txn;      // sends: the transaction (empty: none); txn_end: which
  txn_outcome outcome = txn_outcome::unknown;  // txn_end
  bool read_committed = false;                 // reads: the consumer reads committed records only
  txn_status status = txn_status::none;        // final reads
};

// Thread-safe: producers' delivery reports and consumers' polls record
// from their own threads.
class history {
 public:
  history();
  void send(const std::string& value, int32_t partition, const std::string& txn = {});
  void ack(const std::string& value, int32_t partition, int64_t offset);
  void fail(const std::string& value, const std::string& error);
  void indeterminate(const std::string& value, const std::string& error);
  void rebalance(int consumer, int generation, std::vector<int32_t> assignment);
  void read(int consumer, int generation, int32_t partition, int64_t offset, const std::string& value,
            bool read_committed = false);
  void final_read(int32_t partition, int64_t offset, const std::string& value, batch_origin origin = {},
                  txn_status status = txn_status::none);
  void txn_end(const std::string& txn, txn_outcome outcome, const std::string& detail = {});
  void client_reset(int consumer, int32_t partition, int64_t offset, const std::string& why);
  void epoch_bump(int64_t producer_id, int16_t epoch, const std::string& why);
  // Consumer reads in this group (recorded once, before its first read).
  void member(int consumer, const std::string& group, bool read_committed);
  std::vector<event> events() const;
  // Every event, one line each, for a failed run's files.
  void write(std::ostream& out) const;

 private:
  void add(event e);
  mutable std::mutex mutex_;
  std::vector<event> events_;
  int64_t start_ms_;
  std::chrono::system_clock::time_point started_ = std::chrono::system_clock::now();
};

enum class finding_kind {
  lost,                 // acknowledged, absent from the final read
  duplicate,            // one value read at two positions
  out_of_order,         // a producer's values out of sequence order within a partition
  inconsistent_offset,  // one position holding two values across reads and acknowledgements
  position_backwards,   // a consumer read, within one generation, an offset at or below one it had read
  unknown_value,        // a value read that no producer sent
  aborted_read,         // a read_committed consumer read a value of an aborted or undecided transaction
  wrong_outcome,        // the final read decided a transaction's value otherwise than its producer was told
  partial_transaction,  // some values of one transaction committed, others not
  skipped,              // a record below what a group read in its partition, read by none of its members
};
const char* to_string(finding_kind k);

struct finding {
  finding_kind kind;
  int32_t partition = -1;
  int64_t offset = -1;
  std::string detail;  // the values, offsets, consumers and times involved
};

struct check_counts {
  int64_t sent = 0;
  int64_t acked = 0;
  int64_t failed = 0;         // definitely not written
  int64_t indeterminate = 0;  // timed out, or unresolved at the end
  int64_t consumer_reads = 0;
  int64_t rebalances = 0;
  int64_t final_read = 0;          // records in the final read
  int64_t unacked_present = 0;     // failed or indeterminate, yet in the final read
  int64_t client_resets = 0;       // consumers' resets on an out-of-range answer (see find_positions_backwards)
  int64_t client_resends = 0;      // values the client wrote again after its epoch bump (see find_duplicates)
  int64_t txn_committed = 0;       // transactions, by what their producer was told
  int64_t txn_aborted = 0;
  int64_t txn_unknown = 0;
  int64_t final_aborted = 0;       // records of the final read its markers abort
};

struct check_result {
  check_counts counts;
  std::vector<finding> findings;
  // The client resets that explained a consumer going back, one line each:
  // not findings, but reported.
  std::vector<std::string> explained_resets;
  // The duplicates a client's epoch bump explains (see find_duplicates):
  // not findings, but reported.
  std::vector<std::string> explained_duplicates;
  bool ok() const { return findings.empty(); }
  std::map<finding_kind, int64_t> by_kind() const;
  // The counts, then the findings: at most max_per_kind of each kind, with
  // how many more there were.
  std::string report(size_t max_per_kind = 20) const;
};

check_result check(const std::vector<event>& events);

// A consumer client's log line saying it reset its position because a
// fetch was answered OFFSET_OUT_OF_RANGE, as librdkafka writes it:
//   chaos [1]: offset reset (at offset 4871, broker 3) to BEGINNING: fetch
//   failed due to requested offset not available on the broker: Broker:
//   Offset out of range
// Nothing for any other line.
struct offset_reset_line {
  int32_t partition = -1;
  int64_t offset = -1;
  int32_t broker = -1;
};
std::optional<offset_reset_line> parse_offset_reset(std::string_view line);

// An idempotent producer's log lines about a drain and bump, as librdkafka
// writes them (facility DRAIN):
//   Beginning partition drain in state Assigned for PID{Id:0,Epoch:2} epoch
//   bump for 3 partition(s) with in-flight requests: skipped sequence numbers
//   All partitions drained, bumped epoch to PID{Id:0,Epoch:3}
// The first gives the reason (after the last ": "), the second the new
// producer id and epoch. Nothing for any other line.
std::optional<std::string> parse_epoch_bump_reason(std::string_view line);
struct epoch_bump_line {
  int64_t producer_id = -1;
  int16_t epoch = -1;
};
std::optional<epoch_bump_line> parse_epoch_bumped(std::string_view line);

}  // namespace hw::chaos
