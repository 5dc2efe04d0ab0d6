// Fuzzes the records read path: walk the input as a records field, validate
// each batch, decompress (bounded at 4 MiB) and decode every record. The CRC
// is checked but not required, or the fuzzer would never get past it. Every
// batch whose records all decode is re-encoded and must read back the same.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"

namespace {

using namespace hw::protocol;

constexpr size_t kMaxRecordsBytes = 4 * 1024 * 1024;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

bool same(const std::optional<bytes_view>& a, const std::optional<bytes_view>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || std::equal(a->begin(), a->end(), b->begin(), b->end());
}

// Reads every byte a consumer would, so out-of-bounds spans show up under ASan.
uint64_t touch(const record_view& r) {
  uint64_t sum = static_cast<uint64_t>(r.offset) ^ static_cast<uint64_t>(r.timestamp);
  if (r.key) for (uint8_t b : *r.key) sum += b;
  if (r.value) for (uint8_t b : *r.value) sum += b;
  for (const record_header_view& h : r.headers()) {
    for (char c : h.key) sum += static_cast<uint8_t>(c);
    if (h.value) for (uint8_t b : *h.value) sum += b;
  }
  if (auto marker = parse_end_txn_marker(r)) sum += static_cast<uint64_t>(marker->coordinator_epoch);
  return sum;
}

std::vector<record_view> decode_all(const record_batch_view& batch, std::vector<uint8_t>& scratch) {
  std::vector<record_view> records;
  record_iterator it;
  if (batch.open_records(scratch, kMaxRecordsBytes, it) != batch_error::none) return {};
  record_view r;
  uint64_t sum = 0;
  while (it.next(r)) {
    sum += touch(r);
    records.push_back(r);
  }
  check(it.records_read() <= batch.record_count());
  if (it.error() != batch_error::none) return {};
  check(static_cast<int32_t>(records.size()) == batch.record_count());
  asm volatile("" : : "r"(sum));
  return records;
}

// Re-encodes decoded records uncompressed; reading them back must agree.
void check_round_trip(const record_batch_view& batch, const std::vector<record_view>& records) {
  record_batch_options o;
  o.base_offset = batch.base_offset();
  o.last_offset_delta = batch.last_offset_delta();
  record_batch_builder builder(o);
  for (const record_view& r : records) {
    std::vector<record_header> headers;
    for (const record_header_view& h : r.headers()) headers.push_back({h.key, h.value});
    builder.append_at(r.offset_delta, r.timestamp, r.key, r.value, headers);
  }
  std::vector<uint8_t> rebuilt = builder.finish();
  batch_parse_result parsed = parse_record_batch(rebuilt);
  check(parsed.ok() && parsed.batch.validate() == batch_error::none);
  std::vector<uint8_t> scratch;
  record_iterator it;
  check(parsed.batch.open_records(scratch, kMaxRecordsBytes, it) == batch_error::none);
  record_view again;
  for (const record_view& r : records) {
    check(it.next(again));
    check(again.offset == r.offset && again.timestamp == r.timestamp);
    check(same(again.key, r.key) && same(again.value, r.value));
    check(again.header_count == r.header_count);
    // Compared decoded: the input may spell a length as an overlong varint,
    // which Kafka accepts and the builder writes canonically.
    auto h = again.headers().begin();
    for (const record_header_view& original : r.headers()) {
      check(h->key == original.key && same(h->value, original.value));
      ++h;
    }
  }
  check(!it.next(again) && it.error() == batch_error::none);
}

void exercise(const record_batch_view& batch, std::vector<uint8_t>& scratch) {
  batch_error full = batch.validate();
  batch_error header = batch.validate_header();
  check(full == batch_error::none ? header == batch_error::none
                                  : full == batch_error::crc_mismatch || full == header);
  if (header != batch_error::none) return;
  check(batch.size_bytes() >= batch_layout::header_bytes);
  std::vector<record_view> records = decode_all(batch, scratch);
  if (static_cast<int32_t>(records.size()) == batch.record_count() && !records.empty()) {
    check_round_trip(batch, records);
  }
  if (full == batch_error::none) (void)batch.validate_records(scratch, kMaxRecordsBytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bytes_view input(data, size);
  std::vector<uint8_t> scratch;
  record_batch_walker walker(input);
  record_batch_view batch;
  size_t batches_bytes = 0;
  while (walker.next(batch)) {
    batches_bytes += batch.size_bytes();
    exercise(batch, scratch);
  }
  check(walker.position() == batches_bytes);
  check(walker.position() + walker.partial_tail_bytes() <= size);
  batch_parse_result single = parse_record_batch(input);
  check(!single.ok() || single.batch.size_bytes() <= size);
  return 0;
}
