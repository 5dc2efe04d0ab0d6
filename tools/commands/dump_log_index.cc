// kafka-dump-log.sh: .index and .timeindex files, listed and checked against
// their segment as Kafka's tool does. The entries are read as Kafka reads a
// read-only index (a torn last entry ignored; a missing file empty) rather
// than through storage's offset_index/time_index, which validate, create
// and truncate files as a broker must and a dump must not.

#include <ostream>

#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "tools/commands/dump_log.h"

namespace hw::tools::dump_log {
namespace {

int64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return static_cast<int64_t>(v);
}
int32_t be32(const uint8_t* p) {
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3]);
}

// An index file's bytes; a missing file is empty (Kafka creates it empty).
std::vector<uint8_t> index_bytes(storage::file_system& fs, const std::string& path) {
  std::unique_ptr<storage::file> f;
  uint64_t size = 0;
  if (fs.open(path, storage::open_mode::read_only, &f) || !f || f->size(&size)) return {};
  std::vector<uint8_t> out(size);
  size_t got = 0;
  if (size && f->read_at(0, {out.data(), out.size()}, &got))
    throw java_failure("java.io.IOException", "Failed to read " + path);
  out.resize(got);
  return out;
}

// A sibling of path with the same base name and another suffix, absolute
// (new File(file.getAbsoluteFile().getParent(), base + suffix)).
std::string sibling(const std::string& path, const std::string& suffix) {
  const std::string abs = java_absolute_path(path);
  const std::string name = java_file_name(path);
  const std::string dir = abs.substr(0, abs.rfind('/'));
  return (dir.empty() ? "" : dir) + "/" + name.substr(0, name.find('.')) + suffix;
}

struct offset_entries {
  std::vector<uint8_t> bytes;
  int64_t base = 0;
  size_t count() const { return bytes.size() / storage::offset_index::entry_bytes; }
  int64_t offset(size_t i) const { return base + be32(&bytes[i * 8]); }
  int32_t position(size_t i) const { return be32(&bytes[i * 8 + 4]); }
  // OffsetIndex.lookup: the last entry at or below target, else (base, 0).
  std::pair<int64_t, int32_t> lookup(int64_t target) const {
    size_t lo = 0, hi = count();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (offset(mid) <= target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) return {base, 0};
    return {offset(lo - 1), position(lo - 1)};
  }
};

struct time_entries {
  std::vector<uint8_t> bytes;
  int64_t base = 0;
  size_t count() const { return bytes.size() / storage::time_index::entry_bytes; }
  int64_t timestamp(size_t i) const { return be64(&bytes[i * 12]); }
  int64_t offset(size_t i) const { return base + be32(&bytes[i * 12 + 8]); }
};

// FileRecords.slice's checks of a start position.
void check_slice(const log_file& log, int64_t position, int64_t size) {
  if (position < 0)
    throw java_failure("java.lang.IllegalArgumentException",
                       "Invalid position: " + std::to_string(position) + " in read from " + log.describe());
  if (position > static_cast<int64_t>(log.size()))
    throw java_failure("java.lang.IllegalArgumentException", "Slice from position " + std::to_string(position) +
                                                                 " exceeds end position of " + log.describe());
  if (size < 0)
    throw java_failure("java.lang.IllegalArgumentException",
                       "Invalid size: " + std::to_string(size) + " in read from " + log.describe());
}

void offset_index_sanity(const offset_entries& index, const std::string& path) {
  const std::string abs = java_absolute_path(path);
  if (index.count() != 0 && index.offset(index.count() - 1) < index.base)
    throw java_failure("org.apache.kafka.common.errors.CorruptIndexException",
                       "Corrupt index found, index file " + abs + " has non-zero size but the last offset is " +
                           std::to_string(index.offset(index.count() - 1)) + " which is less than the base offset " +
                           std::to_string(index.base));
  if (index.bytes.size() % storage::offset_index::entry_bytes != 0)
    throw java_failure("org.apache.kafka.common.errors.CorruptIndexException",
                       "Index file " + abs + " is corrupt, found " + std::to_string(index.bytes.size()) +
                           " bytes which is neither positive nor a multiple of 8");
}

void time_index_sanity(const time_entries& index, const std::string& path) {
  const std::string abs = java_absolute_path(path);
  const size_t n = index.count();
  if (n != 0 && index.timestamp(n - 1) < index.timestamp(0))
    throw java_failure("org.apache.kafka.common.errors.CorruptIndexException",
                       "Corrupt time index found, time index file (" + abs +
                           ") has non-zero size but the last timestamp is " + std::to_string(index.timestamp(n - 1)) +
                           " which is less than the first timestamp " + std::to_string(index.timestamp(0)));
  if (n != 0 && index.offset(n - 1) < index.base)
    throw java_failure("org.apache.kafka.common.errors.CorruptIndexException",
                       "Corrupt time index found, time index file (" + abs +
                           ") has non-zero size but the last offset is " + std::to_string(index.offset(n - 1)) +
                           " which is less than the first offset " + std::to_string(index.base));
  if (index.bytes.size() % storage::time_index::entry_bytes != 0)
    throw java_failure("org.apache.kafka.common.errors.CorruptIndexException",
                       "Time index file " + abs + " is corrupt, found " + std::to_string(index.bytes.size()) +
                           " bytes which is neither positive nor a multiple of 12");
}

template <typename List>
void note(std::map<std::string, List>& map, std::vector<std::string>& order, const std::string& file, int64_t a,
          int64_t b) {
  auto [it, added] = map.try_emplace(file);
  if (added) order.push_back(file);
  it->second.list.emplace_back(a, b);
}

// The largest record timestamp of a batch (Kafka iterates its records).
int64_t max_record_timestamp(const file_batch& batch) {
  batch_records records;
  read_records(batch, &records);
  if (records.failed)
    throw java_failure("org.apache.kafka.common.InvalidRecordException", "Found invalid record structure");
  int64_t max = -1;
  for (const auto& r : records.records) max = std::max(max, r.timestamp);
  return max;
}

}  // namespace

void dump_offset_index(storage::file_system& fs, const std::string& path, const options& opts, findings& found,
                       std::ostream& out) {
  offset_entries index;
  index.base = name_offset(path);
  const std::string log_path = sibling(path, ".log");
  const log_file log(fs, log_path, log_path);
  index.bytes = index_bytes(fs, path);
  const std::string shown = java_file_string(path);
  if (index.count() == 0) {
    out << shown << " is empty.\n";
    return;
  }
  if (opts.index_sanity_only) {
    offset_index_sanity(index, path);
    out << shown << " passed sanity check.\n";
    return;
  }
  for (size_t i = 0; i < index.count(); ++i) {
    const int64_t offset = index.offset(i);
    const int32_t position = index.position(i);
    // A sparse file cut short by a crash holds zero entries: stop at one.
    if (offset == index.base && i > 0) return;
    check_slice(log, position, opts.max_message_size);
    const uint64_t end = std::min<uint64_t>(log.size(), static_cast<uint64_t>(position) + opts.max_message_size);
    batch_reader reader(log, static_cast<uint64_t>(position), end);
    auto first = reader.next();
    if (!first) throw java_failure("java.util.NoSuchElementException", "null");
    if (first->last_offset() != offset) {
      const std::string abs = java_absolute_path(path);
      auto [it, added] = found.index_mismatches.try_emplace(abs);
      if (added) found.index_mismatch_order.push_back(abs);
      it->second[offset] = first->last_offset();
    }
    if (!opts.verify_only) out << "offset: " << offset << " position: " << position << '\n';
  }
}

void dump_time_index(storage::file_system& fs, const std::string& path, const options& opts, findings& found,
                     std::ostream& out) {
  time_entries index;
  index.base = name_offset(path);
  const std::string log_path = sibling(path, ".log");
  const log_file log(fs, log_path, log_path);
  offset_entries offsets;
  offsets.base = index.base;
  offsets.bytes = index_bytes(fs, sibling(path, ".index"));
  index.bytes = index_bytes(fs, path);
  if (opts.index_sanity_only) {
    time_index_sanity(index, path);
    out << java_file_string(path) << " passed sanity check.\n";
    return;
  }
  const std::string abs = java_absolute_path(path);
  int64_t previous = -1;
  for (size_t i = 0; i < index.count(); ++i) {
    const int64_t timestamp = index.timestamp(i);
    const int64_t offset = index.offset(i);
    if (offset == index.base && i > 0) return;
    const auto [unused, position] = offsets.lookup(offset);
    check_slice(log, position, INT32_MAX);
    std::vector<file_batch> batches;
    batch_reader reader(log, static_cast<uint64_t>(position), log.size());
    while (auto b = reader.next()) batches.push_back(std::move(*b));
    const file_batch* match = nullptr;
    for (const auto& b : batches) {
      if (b.last_offset() >= offset) {
        match = &b;
        break;
      }
    }
    if (!match) {
      note(found.time_not_found, found.time_not_found_order, abs, offset, -1);
    } else if (match->last_offset() != offset) {
      note(found.time_not_found, found.time_not_found_order, abs, offset, match->last_offset());
    } else {
      const int64_t max = max_record_timestamp(*match);
      if (max != timestamp) note(found.time_mismatches, found.time_mismatch_order, abs, timestamp, max);
      if (previous >= timestamp) note(found.time_out_of_order, found.time_out_of_order_order, abs, timestamp, previous);
    }
    if (!opts.verify_only) out << "timestamp: " << timestamp << " offset: " << offset << '\n';
    previous = timestamp;
  }
}

}  // namespace hw::tools::dump_log
