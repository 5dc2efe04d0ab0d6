#include "storage/transaction_index.h"

#include <algorithm>
#include <cassert>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::storage {
namespace {

constexpr int16_t aborted_txn_version = 0;
// Entries read per call while searching, so a search that completes early
// does not read the whole file.
constexpr size_t read_chunk_entries = 128;

aborted_txn decode(protocol::reader& r) {
  aborted_txn t;
  t.id = producer_id(r.read_int64());
  t.first_offset = offset(r.read_int64());
  t.last_offset = offset(r.read_int64());
  t.last_stable_offset = offset(r.read_int64());
  return t;
}

}  // namespace

std::array<uint8_t, aborted_txn_size> encode_aborted_txn(const aborted_txn& txn) {
  std::vector<uint8_t> bytes;
  protocol::writer w(bytes);
  w.write_int16(aborted_txn_version);
  w.write_int64(txn.id.value);
  w.write_int64(txn.first_offset.value);
  w.write_int64(txn.last_offset.value);
  w.write_int64(txn.last_stable_offset.value);
  std::array<uint8_t, aborted_txn_size> out;
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

storage_error transaction_index::open(file_system& fs, std::filesystem::path path, offset base_offset,
                                      std::unique_ptr<transaction_index>* out) {
  std::unique_ptr<transaction_index> index(new transaction_index(fs, std::move(path), base_offset));
  if (fs.exists(index->path_)) {
    if (auto err = index->load()) return err;
  }
  *out = std::move(index);
  return {};
}

storage_error transaction_index::io_error(std::error_code ec, const char* what) const {
  return {ec, std::string("cannot ") + what + " transaction index " + path_.string() + ": " + ec.message()};
}

storage_error transaction_index::load() {
  if (auto ec = fs_.open(path_, open_mode::read_write, &file_)) return io_error(ec, "open");
  uint64_t bytes = 0;
  if (auto ec = file_->size(&bytes)) return io_error(ec, "stat");
  size_t whole = bytes / aborted_txn_size;
  // A torn append at the end: drop it so the next append lands aligned.
  if (bytes % aborted_txn_size != 0) {
    if (auto ec = file_->truncate(whole * aborted_txn_size)) return io_error(ec, "truncate");
  }
  std::vector<uint8_t> raw(whole * aborted_txn_size);
  size_t got = 0;
  if (auto ec = file_->read_at(0, raw, &got)) return io_error(ec, "read");
  if (got != raw.size()) return io_error(std::make_error_code(std::errc::io_error), "fully read");
  protocol::reader r(raw);
  for (size_t i = 0; i < whole; ++i) {
    auto where = [&](const std::string& why) {
      return storage_error(make_error_code(storage_errc::malformed),
                           "corrupt transaction index " + path_.string() + ": entry " + std::to_string(i) +
                               " (byte " + std::to_string(i * aborted_txn_size) + ") " + why);
    };
    int16_t version = r.read_int16();
    aborted_txn t = decode(r);
    if (version != aborted_txn_version) return where("has version " + std::to_string(version));
    if (t.last_offset < base_offset_)
      return where("ends at " + std::to_string(t.last_offset.value) + ", below the segment base offset " +
                   std::to_string(base_offset_.value));
    if (last_offset_ && t.last_offset <= *last_offset_) return where("does not end after the previous entry");
    last_offset_ = t.last_offset;
  }
  count_.store(whole, std::memory_order_release);
  return {};
}

storage_error transaction_index::append(const aborted_txn& txn) {
  assert(!last_offset_ || txn.last_offset > *last_offset_);
  if (!file_) {
    if (auto ec = fs_.open(path_, open_mode::read_write, &file_)) return io_error(ec, "create");
  }
  size_t n = count_.load(std::memory_order_relaxed);
  auto bytes = encode_aborted_txn(txn);
  if (auto ec = file_->write_at(n * aborted_txn_size, bytes)) return io_error(ec, "append to");
  last_offset_ = txn.last_offset;
  count_.store(n + 1, std::memory_order_release);
  return {};
}

storage_error transaction_index::flush() {
  if (!file_) return {};
  if (auto ec = file_->sync()) return io_error(ec, "sync");
  return {};
}

storage_error transaction_index::truncate_to(offset o) {
  size_t n = count_.load(std::memory_order_relaxed);
  std::vector<aborted_txn> entries;
  if (auto err = read(0, n, &entries)) return err;
  auto first_dropped = std::find_if(entries.begin(), entries.end(), [&](const aborted_txn& t) { return t.last_offset >= o; });
  size_t keep = static_cast<size_t>(first_dropped - entries.begin());
  if (keep == n) return {};
  // Readers stop seeing the dropped entries before their bytes go.
  count_.store(keep, std::memory_order_release);
  last_offset_ = keep == 0 ? std::nullopt : std::optional<offset>(entries[keep - 1].last_offset);
  if (auto ec = file_->truncate(keep * aborted_txn_size)) return io_error(ec, "truncate");
  return {};
}

storage_error transaction_index::reset() {
  count_.store(0, std::memory_order_release);
  last_offset_.reset();
  if (!file_) return {};
  if (auto ec = file_->truncate(0)) return io_error(ec, "truncate");
  return {};
}

storage_error transaction_index::read(size_t first, size_t n, std::vector<aborted_txn>* out) const {
  out->clear();
  if (n == 0) return {};
  std::vector<uint8_t> raw(n * aborted_txn_size);
  size_t got = 0;
  if (auto ec = file_->read_at(first * aborted_txn_size, raw, &got)) return io_error(ec, "read");
  // Short only if a truncation raced this reader: keep the whole entries.
  protocol::reader r(std::span<const uint8_t>(raw).first(got - got % aborted_txn_size));
  for (size_t i = 0; i < got / aborted_txn_size; ++i) {
    r.read_int16();
    out->push_back(decode(r));
  }
  return {};
}

storage_error transaction_index::collect_aborted(offset fetch_start, offset fetch_upper, aborted_txn_search* out) const {
  out->aborted.clear();
  out->complete = false;
  size_t n = size();
  std::vector<aborted_txn> chunk;
  for (size_t first = 0; first < n; first += read_chunk_entries) {
    if (auto err = read(first, std::min(read_chunk_entries, n - first), &chunk)) return err;
    for (const auto& t : chunk) {
      if (t.last_offset >= fetch_start && t.first_offset < fetch_upper) out->aborted.push_back(t);
      if (t.last_stable_offset >= fetch_upper) {
        out->complete = true;
        return {};
      }
    }
  }
  return {};
}

storage_error transaction_index::all(std::vector<aborted_txn>* out) const { return read(0, size(), out); }

}  // namespace hw::storage
