// kafka-dump-log.sh: .log segments and .checkpoint snapshots. Batches are
// framed as Kafka's FileLogInputStream frames them (a partial batch at the
// end stops the walk and is reported as invalid bytes; a batch length below
// the smallest record fails the run), and printed with Kafka's batch and
// record lines.

#include <filesystem>
#include <ostream>
#include <sstream>

#include "protocol/json/json_out.h"
#include "protocol/records/compression.h"
#include "tools/commands/dump_log.h"

namespace hw::tools::dump_log {
namespace {

constexpr uint64_t k_header_up_to_magic = 17;  // base offset, length, leader epoch, magic
constexpr int32_t k_min_record_overhead = 14;  // Kafka's LegacyRecord.RECORD_OVERHEAD_V0
constexpr size_t k_max_records_bytes = size_t{1} << 31;

int64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return static_cast<int64_t>(v);
}
int32_t be32(const uint8_t* p) {
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3]);
}

const char* timestamp_type_name(const protocol::record_batch_view& v) {
  return v.ts_type() == protocol::timestamp_type::log_append_time ? "LogAppendTime" : "CreateTime";
}

// "Snapshot end offset: N, epoch: E" from a <offset>-<epoch>.checkpoint name.
std::string snapshot_title(const std::string& name) {
  if (name == "bootstrap.checkpoint") return "KRaft bootstrap snapshot";
  const auto cut = [&](size_t begin, size_t end) {
    if (name.size() < end)
      throw java_failure("java.lang.StringIndexOutOfBoundsException", "begin " + std::to_string(begin) + ", end " +
                                                                        std::to_string(end) + ", length " +
                                                                        std::to_string(name.size()));
    return name.substr(begin, end - begin);
  };
  const std::string offset_text = cut(0, 20);
  int64_t offset = 0;
  try {
    size_t used = 0;
    offset = std::stoll(offset_text, &used);
    if (used != offset_text.size() || offset_text[0] == ' ') throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw java_failure("java.lang.NumberFormatException", "For input string: \"" + offset_text + "\"");
  }
  const std::string epoch_text = cut(21, 31);
  int64_t epoch = 0;
  try {
    size_t used = 0;
    epoch = std::stoll(epoch_text, &used);
    if (used != epoch_text.size() || epoch > INT32_MAX || epoch < INT32_MIN) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw java_failure("java.lang.NumberFormatException", "For input string: \"" + epoch_text + "\"");
  }
  return "Snapshot end offset: " + std::to_string(offset) + ", epoch: " + std::to_string(epoch);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void print_batch(std::ostream& out, const file_batch& batch, uint64_t position) {
  const auto v = batch.view();
  out << "baseOffset: " << batch.base_offset << " lastOffset: " << batch.last_offset()
      << " count: " << v.record_count() << " baseSequence: " << v.base_sequence()
      << " lastSequence: "
      << (v.base_sequence() == -1 ? -1 : increment_sequence(v.base_sequence(), v.last_offset_delta()))
      << " producerId: " << v.producer_id() << " producerEpoch: " << v.producer_epoch()
      << " partitionLeaderEpoch: " << v.partition_leader_epoch()
      << " isTransactional: " << (v.is_transactional() ? "true" : "false")
      << " isControl: " << (v.is_control() ? "true" : "false") << " deleteHorizonMs: ";
  if (v.has_delete_horizon()) {
    out << "OptionalLong[" << v.base_timestamp() << "]";
  } else {
    out << "OptionalLong.empty";
  }
  const auto codec = v.codec();
  if (!codec)
    throw java_failure("java.lang.IllegalArgumentException",
                       "Unknown compression type id: " + std::to_string(v.compression_id()));
  const bool valid = batch.size_in_bytes() >= protocol::batch_layout::header_bytes &&
                     protocol::record_batch_view({batch.bytes.data(), batch.size_in_bytes()}).crc_ok();
  out << " position: " << position << ' ' << timestamp_type_name(v) << ": " << v.max_timestamp()
      << " size: " << batch.size_in_bytes() << " magic: " << int{batch.magic}
      << " compresscodec: " << protocol::compression_name(*codec) << " crc: " << v.crc()
      << " isvalid: " << (valid ? "true" : "false") << '\n';
}

void print_records(const file_batch& batch, const std::string& path, const options& opts, int64_t& last_offset,
                   findings& found, std::ostream& out) {
  batch_records records;
  read_records(batch, &records);
  const bool control = batch.view().is_control();
  for (const auto& record : records.records) {
    if (record.offset != last_offset + 1) {
      const std::string abs = java_absolute_path(path);
      auto [it, added] = found.non_consecutive.try_emplace(abs);
      if (added) found.non_consecutive_order.push_back(abs);
      it->second[last_offset] = record.offset;
    }
    last_offset = record.offset;
    std::string line;
    if (!opts.skip_record_metadata) {
      line = record_metadata(batch, record);
      if (control) line += control_record_text(record);
    }
    if (opts.print_data && !control) {
      std::string prefix = opts.skip_record_metadata ? "| " : " ";
      const parsed_record parsed = parse_record(opts.parser, record);
      if (parsed.key) {
        line += prefix + "key: " + *parsed.key;
        prefix = " ";
      }
      if (parsed.value) line += prefix + "payload: " + *parsed.value;
    }
    out << line << '\n';
  }
  if (records.failed)
    throw java_failure("org.apache.kafka.common.InvalidRecordException", "Found invalid record structure");
}

}  // namespace

std::string java_file_string(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string java_file_name(const std::string& path) {
  const std::string f = java_file_string(path);
  const auto slash = f.rfind('/');
  return slash == std::string::npos ? f : f.substr(slash + 1);
}

std::string java_absolute_path(const std::string& path) {
  const std::string f = java_file_string(path);
  if (!f.empty() && f[0] == '/') return f;
  std::string cwd = std::filesystem::current_path().string();
  if (f.empty()) return cwd;
  return cwd == "/" ? "/" + f : cwd + "/" + f;
}

int64_t name_offset(const std::string& path) {
  const std::string name = java_file_name(path);
  const std::string head = name.substr(0, name.find('.'));
  int64_t v = 0;
  bool ok = !head.empty();
  size_t i = (ok && (head[0] == '-' || head[0] == '+')) ? 1 : 0;
  ok = ok && i < head.size();
  for (; ok && i < head.size(); ++i) ok = head[i] >= '0' && head[i] <= '9';
  if (ok) {
    try {
      v = std::stoll(head);
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok) throw java_failure("java.lang.NumberFormatException", "For input string: \"" + head + "\"");
  return v;
}

int32_t increment_sequence(int32_t sequence, int32_t increment) {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

int32_t decrement_sequence(int32_t sequence, int32_t decrement) {
  if (sequence < decrement) return INT32_MAX - (decrement - sequence) + 1;
  return sequence - decrement;
}

log_file::log_file(storage::file_system& fs, const std::string& path, const std::string& shown_path)
    : shown_(shown_path) {
  if (fs.open(path, storage::open_mode::read_only, &file_) || !file_ || file_->size(&size_))
    throw java_failure("java.nio.file.NoSuchFileException", shown_path);
  if (size_ > INT32_MAX) size_ = INT32_MAX;
}

std::vector<uint8_t> log_file::read(uint64_t position, size_t n) const {
  std::vector<uint8_t> out(n);
  size_t got = 0;
  if (position < size_) {
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - position));
    if (file_->read_at(position, {out.data(), n}, &got))
      throw java_failure("java.io.IOException", "Failed to read " + shown_);
  }
  out.resize(got);
  return out;
}

std::string log_file::describe() const {
  return "FileRecords(size=" + std::to_string(size_) + ", file=" + shown_ + ", start=0, end=2147483647)";
}

int64_t file_batch::last_offset() const { return view().last_offset(); }

std::optional<file_batch> batch_reader::next() {
  if (end_ < k_header_up_to_magic || position_ >= end_ - k_header_up_to_magic) return std::nullopt;
  const std::vector<uint8_t> head = file_.read(position_, k_header_up_to_magic);
  const int32_t size = be32(head.data() + 8);
  if (size < k_min_record_overhead)
    throw java_failure("org.apache.kafka.common.errors.CorruptRecordException",
                       "Found record size " + std::to_string(size) + " smaller than minimum record overhead (" +
                           std::to_string(k_min_record_overhead) + ") in file " + file_.shown_path() + ".");
  if (static_cast<int64_t>(position_) > static_cast<int64_t>(end_) - 12 - size) return std::nullopt;
  file_batch b;
  b.position = position_;
  b.base_offset = be64(head.data());
  b.magic = static_cast<int8_t>(head[16]);
  if (b.magic < 2)
    throw unsupported_input("Message format v" + std::to_string(b.magic) + " batches (at position " +
                            std::to_string(position_) + " of " + file_.shown_path() +
                            ") are not supported by the native tool");
  const size_t total = 12 + static_cast<size_t>(size);
  b.bytes = file_.read(position_, std::max(total, protocol::batch_layout::header_bytes));
  if (b.bytes.size() < protocol::batch_layout::header_bytes)
    throw java_failure("org.apache.kafka.common.KafkaException", "Failed to load record batch at position " +
                                                                     std::to_string(position_) + " from " +
                                                                     file_.describe());
  b.bytes.resize(std::max(total, protocol::batch_layout::header_bytes));
  b.size = static_cast<uint32_t>(total);
  position_ += total;
  return b;
}

void read_records(const file_batch& batch, batch_records* out) {
  if (batch.size < protocol::batch_layout::header_bytes)
    throw unsupported_input("Records of a batch shorter than its header (at position " +
                            std::to_string(batch.position) + ") are not supported by the native tool");
  const protocol::record_batch_view v({batch.bytes.data(), batch.size});
  if (v.record_count() == 0) return;
  if (v.record_count() < 0)
    throw java_failure("org.apache.kafka.common.InvalidRecordException",
                       "Found invalid record count " + std::to_string(v.record_count()) + " in magic v" +
                           std::to_string(int{v.magic()}) + " batch");
  protocol::bytes_view payload = v.records_bytes();
  const bool compressed = v.compression_id() != 0;
  if (compressed) {
    if (protocol::batch_error e = v.decompress_records(out->payload, k_max_records_bytes);
        e != protocol::batch_error::none)
      throw unsupported_input("A batch whose records do not decompress (at position " +
                              std::to_string(batch.position) + ") is not supported by the native tool");
    payload = {out->payload.data(), out->payload.size()};
  }
  protocol::record_iterator it = v.iterate(payload);
  protocol::record_view r;
  while (it.next(r)) out->records.push_back(r);
  if (it.error() != protocol::batch_error::none) {
    // Kafka reads a compressed batch whole before printing, an uncompressed
    // one record by record.
    if (compressed) out->records.clear();
    out->failed = true;
  }
}

std::string record_metadata(const file_batch& batch, const protocol::record_view& record) {
  const auto v = batch.view();
  std::ostringstream s;
  s << "| offset: " << record.offset << ' ' << timestamp_type_name(v) << ": " << record.timestamp
    << " keySize: " << (record.key ? static_cast<int64_t>(record.key->size()) : -1)
    << " valueSize: " << (record.value ? static_cast<int64_t>(record.value->size()) : -1) << " sequence: "
    << (v.base_sequence() >= 0 ? increment_sequence(v.base_sequence(), record.offset_delta) : -1)
    << " headerKeys: [";
  bool first = true;
  for (const auto& h : record.headers()) {
    s << (first ? "" : ",") << protocol::json::java_utf8(h.key);
    first = false;
  }
  s << ']';
  return s.str();
}

void dump_log_file(storage::file_system& fs, const std::string& path, const options& opts, findings& found,
                   std::ostream& out) {
  const std::string name = java_file_name(path);
  if (ends_with(name, ".log")) {
    const int64_t start = name_offset(path);
    out << "Log starting offset: " << start << '\n';
  } else {
    const std::string title = snapshot_title(name);
    out << title << '\n';
  }
  const log_file file(fs, path, java_file_string(path));
  if (opts.max_bytes < 0)
    throw java_failure("java.lang.IllegalArgumentException",
                       "Invalid size: " + std::to_string(opts.max_bytes) + " in read from " + file.describe());
  const uint64_t end = std::min<uint64_t>(static_cast<uint64_t>(opts.max_bytes), file.size());
  batch_reader reader(file, 0, end);
  uint64_t valid_bytes = 0;
  int64_t last_offset = -1;
  while (auto batch = reader.next()) {
    print_batch(out, *batch, valid_bytes);
    if (opts.deep_iteration) print_records(*batch, path, opts, last_offset, found, out);
    valid_bytes += batch->size_in_bytes();
  }
  if (end > valid_bytes && opts.max_bytes == INT32_MAX)
    out << "Found " << (end - valid_bytes) << " invalid bytes at the end of " << name << '\n';
}

}  // namespace hw::tools::dump_log
