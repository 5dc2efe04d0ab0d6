#pragma once
// kafka-dump-log.sh (Kafka's DumpLogSegments), split by concern:
//   dump_log.cc          options, the loop over --files, the reports printed last
//   dump_log_records.cc  .log segments and .checkpoint snapshots: batches as
//                        Kafka's FileRecords frames them, batch and record lines
//   dump_log_index.cc    .index and .timeindex checks and listings
//   dump_log_state.cc    .txnindex and producer .snapshot files
//   dump_log_parsers.cc  what a record's key and value print as: strings,
//                        cluster metadata, __consumer_offsets, __transaction_state,
//                        and KRaft control records
// Declarations here are internal to the tool (and its unit tests).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/records/record.h"
#include "protocol/records/record_batch.h"
#include "storage/io/file_system.h"

namespace hw::tools::dump_log {

// An exception Kafka's tool would have raised: it ends the run, reported as
// the JVM reports an uncaught exception ("Exception in thread "main"
// <java_class>: <message>"; Java's stack trace is not imitated).
struct java_failure : std::runtime_error {
  java_failure(std::string java_class, const std::string& message)
      : std::runtime_error(message), java_class(std::move(java_class)) {}
  std::string java_class;
};

// What the native tool cannot show faithfully: ends the run naming it.
struct unsupported_input : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class decoder { strings, offsets, transaction_log, cluster_metadata };

struct options {
  std::vector<std::string> files;
  bool print_data = false;
  bool deep_iteration = false;
  bool skip_record_metadata = false;
  bool verify_only = false;
  bool index_sanity_only = false;
  int32_t max_message_size = 5 * 1024 * 1024;
  int32_t max_bytes = INT32_MAX;
  decoder parser = decoder::strings;
};

// What DumpLogSegments collects while it reads and prints on stderr at the
// end, keyed by absolute file path (Java HashMaps: printed in their order).
struct findings {
  // .index: index offset -> the log's last offset there (printed descending).
  std::map<std::string, std::map<int64_t, int64_t, std::greater<>>> index_mismatches;
  std::vector<std::string> index_mismatch_order;
  struct pairs {
    std::vector<std::pair<int64_t, int64_t>> list;
  };
  std::map<std::string, pairs> time_mismatches, time_out_of_order, time_not_found;
  std::vector<std::string> time_mismatch_order, time_out_of_order_order, time_not_found_order;
  // .log with --deep-iteration: previous offset -> the next one (ascending).
  std::map<std::string, std::map<int64_t, int64_t>> non_consecutive;
  std::vector<std::string> non_consecutive_order;

  void print(std::ostream& err) const;
};

// java.io.File's view of a path argument: toString() (duplicate and trailing
// separators dropped), getName(), getAbsolutePath().
std::string java_file_string(const std::string& path);
std::string java_file_name(const std::string& path);
std::string java_absolute_path(const std::string& path);
// The offset a file name starts with (Long.parseLong of the part before the
// first '.'), or a NumberFormatException.
int64_t name_offset(const std::string& path);

// A file opened for reading as Kafka's FileRecords reads it.
class log_file {
 public:
  // Throws NoSuchFileException (the path) when it cannot be opened.
  log_file(storage::file_system& fs, const std::string& path, const std::string& shown_path);
  uint64_t size() const { return size_; }
  // Reads [position, position + n) (short at the end of the file).
  std::vector<uint8_t> read(uint64_t position, size_t n) const;
  // FileRecords.toString() of the whole file, as in Kafka's messages.
  std::string describe() const;
  const std::string& shown_path() const { return shown_; }

 private:
  std::unique_ptr<storage::file> file_;
  std::string shown_;
  uint64_t size_ = 0;
};

// One batch as FileLogInputStream frames it: where it starts and its bytes.
struct file_batch {
  uint64_t position = 0;
  int64_t base_offset = 0;
  int8_t magic = 0;
  uint32_t size = 0;           // log overhead + batch length
  std::vector<uint8_t> bytes;  // the batch, at least a header's worth (Kafka reads that much)

  protocol::record_batch_view view() const { return protocol::record_batch_view({bytes.data(), bytes.size()}); }
  int64_t last_offset() const;
  uint32_t size_in_bytes() const { return size; }
};

// Kafka's FileLogInputStream over [start, end) of a file: the next batch, or
// nothing at the end or before a partial batch. A batch length below 14
// throws CorruptRecordException; a v0/v1 batch is unsupported.
class batch_reader {
 public:
  batch_reader(const log_file& file, uint64_t start, uint64_t end) : file_(file), position_(start), end_(end) {}
  std::optional<file_batch> next();

 private:
  const log_file& file_;
  uint64_t position_;
  uint64_t end_;
};

// The records of a batch as Kafka's DefaultRecordBatch iterates them
// (decompressed); throws java_failure for records it cannot read.
struct batch_records {
  std::vector<uint8_t> payload;  // decompressed records, when compressed
  std::vector<protocol::record_view> records;
  bool failed = false;  // a record did not decode after these
};
void read_records(const file_batch& batch, batch_records* out);

// DefaultRecordBatch.lastSequence / DefaultRecord.sequence arithmetic.
int32_t increment_sequence(int32_t sequence, int32_t increment);
int32_t decrement_sequence(int32_t sequence, int32_t decrement);

// The batch line: "baseOffset: ... isvalid: true".
std::string batch_line(const file_batch& batch, uint64_t position);
// The record's metadata ("| offset: ... headerKeys: [...]") without the
// control record part.
std::string record_metadata(const file_batch& batch, const protocol::record_view& record);
// " endTxnMarker: COMMIT coordinatorEpoch: 0", " LeaderChange: {...}", ...
std::string control_record_text(const protocol::record_view& record);

// What a record's key and value print as under the chosen decoder: the
// optional key text and the optional payload text.
struct parsed_record {
  std::optional<std::string> key;
  std::optional<std::string> value;
};
parsed_record parse_record(decoder d, const protocol::record_view& record);

// The dumps of each file kind; output on out, findings collected.
void dump_log_file(storage::file_system& fs, const std::string& path, const options& opts, findings& found,
                   std::ostream& out);
void dump_offset_index(storage::file_system& fs, const std::string& path, const options& opts, findings& found,
                       std::ostream& out);
void dump_time_index(storage::file_system& fs, const std::string& path, const options& opts, findings& found,
                     std::ostream& out);
void dump_txn_index(storage::file_system& fs, const std::string& path, std::ostream& out);
void dump_producer_snapshot(storage::file_system& fs, const std::string& path, std::ostream& out,
                            std::ostream& err);

}  // namespace hw::tools::dump_log
