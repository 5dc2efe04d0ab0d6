#include "storage/cleaner_filter.h"

#include <string_view>

#include "protocol/records/record_batch_builder.h"

namespace hw::storage {
namespace {

// Bound on one batch's decompressed records.
constexpr size_t max_records_bytes = 256 * 1024 * 1024;

enum class batch_retention { keep_empty, drop, drop_if_empty };

std::string_view as_chars(protocol::bytes_view b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

bool has_producer_id(const protocol::record_batch_view& b) { return b.producer_id() >= 0; }

bool is_last_batch_of_producer(const protocol::record_batch_view& b, const active_producer_records& producers) {
  auto it = producers.find(b.producer_id());
  if (it == producers.end()) return false;
  const auto& last = it->second;
  if (last.last_data_offset) return b.last_offset() == last.last_data_offset->value;
  return b.is_control() && b.producer_epoch() == last.epoch.value;
}

bool retain_record(const protocol::record_batch_view& b, const protocol::record_view& r,
                   const cleaner_filter_context& ctx, cleaner_filter_stats* stats) {
  if (r.offset > ctx.map->latest_offset().value) return true;
  if (!r.key) {
    ++stats->keyless_records;
    return false;
  }
  auto found = ctx.map->get(as_chars(*r.key));
  bool latest = !found || r.offset >= found->value;
  auto horizon = b.delete_horizon_ms();
  bool keep_tombstone = !horizon || ctx.now_ms < *horizon;
  return latest && (r.value.has_value() || keep_tombstone);
}

protocol::record_batch_options rebuild_options(const protocol::record_batch_view& b) {
  protocol::record_batch_options o;
  o.base_offset = b.base_offset();
  o.partition_leader_epoch = b.partition_leader_epoch();
  o.codec = b.codec().value_or(protocol::compression::none);
  o.ts_type = b.ts_type();
  if (o.ts_type == protocol::timestamp_type::log_append_time) o.log_append_time_ms = b.max_timestamp();
  o.transactional = b.is_transactional();
  o.control = b.is_control();
  o.producer_id = b.producer_id();
  o.producer_epoch = b.producer_epoch();
  o.base_sequence = b.base_sequence();
  o.last_offset_delta = b.last_offset_delta();
  return o;
}

// Kafka's DefaultRecordBatch.writeEmptyHeader: no records, no codec, no
// base timestamp, the original max timestamp and last offset.
void append_empty_header(const protocol::record_batch_view& b, std::vector<uint8_t>& out) {
  protocol::record_batch_options o = rebuild_options(b);
  o.codec = protocol::compression::none;
  size_t start = out.size();
  protocol::record_batch_builder(o).finish_into(out);
  protocol::mutable_record_batch_view m(std::span<uint8_t>(out.data() + start, out.size() - start));
  m.set_max_timestamp(b.max_timestamp());
  m.update_crc();
}

// Kafka's buildRetainedRecordsInto: the kept records in a batch with the
// original's header fields, codec and last offset delta.
void append_rebuilt(const protocol::record_batch_view& b, const std::vector<protocol::record_view>& kept,
                    std::optional<int64_t> delete_horizon_ms, std::vector<uint8_t>& out) {
  protocol::record_batch_options o = rebuild_options(b);
  o.delete_horizon_ms = delete_horizon_ms;
  protocol::record_batch_builder builder(o);
  std::vector<protocol::record_header> headers;
  for (const auto& k : kept) {
    headers.clear();
    for (const auto& h : k.headers()) headers.push_back({h.key, h.value});
    builder.append_at(k.offset_delta, k.timestamp, k.key, k.value, headers);
  }
  builder.finish_into(out);
}

struct batch_decision {
  batch_retention retention = batch_retention::drop_if_empty;
  bool discard_records = false;       // only the batch (empty) may stay
  bool marker_for_empty_txn = false;  // a discardable marker: stamp its horizon
};

// Kafka's checkBatchRetention: the transaction tracker sees every batch in order.
batch_decision decide(const protocol::record_batch_view& b, const cleaner_filter_context& ctx,
                      std::vector<aborted_txn>* index_entries) {
  batch_decision d;
  bool can_discard = b.is_control() ? ctx.txns->on_control_batch_read(b, index_entries) : ctx.txns->on_batch_read(b);
  d.discard_records = can_discard;
  if (b.is_control()) {
    auto horizon = b.delete_horizon_ms();
    d.discard_records = can_discard && horizon && *horizon <= ctx.now_ms;
  }
  d.marker_for_empty_txn = can_discard && b.is_control();
  if (has_producer_id(b) && is_last_batch_of_producer(b, *ctx.producers))
    d.retention = batch_retention::keep_empty;
  else if (b.next_offset() == ctx.upper_bound_offset.value || b.next_offset() == ctx.group_end_offset.value)
    d.retention = batch_retention::keep_empty;
  else if (d.discard_records)
    d.retention = batch_retention::drop;
  return d;
}

}  // namespace

active_producer_records last_records_of(const producer_state& state) {
  active_producer_records out;
  for (const auto& [id, entry] : state.producers()) {
    last_producer_record r;
    offset last = entry.last_data_offset();
    if (last.value >= 0) r.last_data_offset = last;
    r.epoch = entry.epoch;
    out.emplace(id.value, r);
  }
  return out;
}

protocol::batch_error filter_batch(const protocol::record_batch_view& b, const cleaner_filter_context& ctx,
                                   std::vector<uint8_t>& out, std::vector<aborted_txn>* index_entries,
                                   cleaner_filter_stats* stats) {
  if (auto e = b.validate_header(); e != protocol::batch_error::none) return e;
  ++stats->batches_read;
  stats->bytes_read += b.size_bytes();
  batch_decision d = decide(b, ctx, index_entries);
  if (d.retention == batch_retention::drop) return protocol::batch_error::none;

  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  if (auto e = b.open_records(scratch, max_records_bytes, it); e != protocol::batch_error::none) return e;
  std::vector<protocol::record_view> kept;
  bool all_kept = true, tombstones = false;
  protocol::record_view r;
  while (it.next(r)) {
    ++stats->records_read;
    bool keep = !d.discard_records && (b.is_control() || retain_record(b, r, ctx, stats));
    if (!keep) {
      all_kept = false;
      continue;
    }
    if (!r.value) tombstones = true;
    kept.push_back(r);
  }
  if (it.error() != protocol::batch_error::none) return it.error();

  size_t before = out.size();
  if (!kept.empty()) {
    bool set_horizon = (tombstones || d.marker_for_empty_txn) && !b.has_delete_horizon();
    if (all_kept && !set_horizon) {
      out.insert(out.end(), b.data(), b.data() + b.size_bytes());
    } else {
      std::optional<int64_t> horizon = b.delete_horizon_ms();
      if (set_horizon) horizon = ctx.now_ms + ctx.delete_retention_ms;
      append_rebuilt(b, kept, horizon, out);
    }
    stats->records_retained += kept.size();
  } else if (d.retention == batch_retention::keep_empty) {
    append_empty_header(b, out);
  }
  stats->bytes_retained += out.size() - before;
  return protocol::batch_error::none;
}

}  // namespace hw::storage
