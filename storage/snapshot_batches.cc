// snapshot_batches: a KRaft batch file's bytes (snapshots, bootstrap.checkpoint).

#include "storage/snapshot_batches.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/writer.h"

namespace hw::storage {

namespace {

using protocol::control_record_type;

// The bytes a data record takes in a batch at offset delta d: length varint,
// then attributes, timestamp delta 0, offset delta, null key, the value,
// no headers (what Kafka's BatchBuilder counts when it decides to cut).
size_t data_record_bytes(int64_t offset_delta, size_t value_bytes) {
  const size_t body = 1 + protocol::varlong_size(0) + protocol::varint_size(static_cast<int32_t>(offset_delta)) +
                      protocol::varint_size(-1) + protocol::varint_size(static_cast<int32_t>(value_bytes)) +
                      value_bytes + protocol::varint_size(0);
  return protocol::varint_size(static_cast<int32_t>(body)) + body;
}

template <class Message>
std::vector<uint8_t> control_value(const Message& m) {
  std::vector<uint8_t> out;
  protocol::writer w(out);
  m.encode(w, 0);
  return out;
}

// One control batch at base_offset of these records.
void append_control_batch(std::vector<uint8_t>& out, int64_t base_offset, int32_t epoch, int64_t time_ms,
                          const std::vector<std::pair<control_record_type, std::vector<uint8_t>>>& records) {
  protocol::record_batch_options o;
  o.base_offset = base_offset;
  o.partition_leader_epoch = epoch;
  o.control = true;
  protocol::record_batch_builder builder(o);
  for (const auto& [type, value] : records) {
    const auto key = protocol::encode_control_key(type);
    builder.append(time_ms, protocol::bytes_view(key.data(), key.size()), protocol::bytes_view(value.data(), value.size()));
  }
  builder.finish_into(out);
}

// Cuts the values into Kafka's batches: whole groups of records_per_append
// while they fit in max_batch_bytes.
class batch_cutter {
 public:
  batch_cutter(int32_t epoch, const snapshot_write_options& o, std::vector<uint8_t>& out)
      : epoch_(epoch), options_(o), out_(out) {}

  int64_t next_offset() const { return next_offset_; }
  void set_next_offset(int64_t offset) { next_offset_ = offset; }

  void add_group(std::span<const std::vector<uint8_t>> group) {
    if (!fits(group)) {
      finish();
      if (!fits(group)) {  // too big for any batch: Kafka would refuse it
        for (size_t i = 0; i < group.size(); ++i) add_group(group.subspan(i, 1));
        return;
      }
    }
    if (!builder_) start();
    for (const auto& v : group) {
      builder_->append(options_.write_time_ms, std::nullopt, protocol::bytes_view(v.data(), v.size()));
      batch_bytes_ += data_record_bytes(next_offset_ - batch_base_, v.size());
      ++next_offset_;
    }
  }

  void finish() {
    if (!builder_) return;
    builder_->finish_into(out_);
    builder_.reset();
  }

 private:
  void start() {
    protocol::record_batch_options o;
    o.base_offset = next_offset_;
    o.partition_leader_epoch = epoch_;
    builder_.emplace(o);
    batch_base_ = next_offset_;
    batch_bytes_ = protocol::batch_layout::header_bytes;
  }

  // Whether the group fits in the open batch (or in a new one when none is
  // open). A single record always fits an empty batch.
  bool fits(std::span<const std::vector<uint8_t>> group) const {
    const int64_t base = builder_ ? batch_base_ : next_offset_;
    size_t bytes = builder_ ? batch_bytes_ : protocol::batch_layout::header_bytes;
    int64_t offset = next_offset_;
    for (const auto& v : group) bytes += data_record_bytes(offset++ - base, v.size());
    if (bytes <= options_.max_batch_bytes) return true;
    return !builder_ && group.size() == 1;
  }

  int32_t epoch_;
  const snapshot_write_options& options_;
  std::vector<uint8_t>& out_;
  std::optional<protocol::record_batch_builder> builder_;
  int64_t next_offset_ = 0;
  int64_t batch_base_ = 0;
  size_t batch_bytes_ = 0;
};

}  // namespace

std::vector<uint8_t> encode_snapshot_batches(int32_t partition_leader_epoch,
                                             std::span<const std::vector<uint8_t>> record_values,
                                             const snapshot_write_options& options) {
  assert(options.records_per_append > 0);
  std::vector<uint8_t> out;
  protocol::msg::snapshot_header_record header;
  header.version = 0;
  header.last_contained_log_timestamp = options.last_contained_log_timestamp_ms;
  std::vector<std::pair<control_record_type, std::vector<uint8_t>>> first{
      {control_record_type::snapshot_header, control_value(header)}};
  if (options.voters_record) {
    protocol::msg::k_raft_version_record kraft;
    kraft.version = 0;
    kraft.k_raft_version = 1;
    first.emplace_back(control_record_type::kraft_version, control_value(kraft));
    first.emplace_back(control_record_type::kraft_voters, *options.voters_record);
  }
  append_control_batch(out, 0, partition_leader_epoch, options.write_time_ms, first);

  batch_cutter cutter(partition_leader_epoch, options, out);
  cutter.set_next_offset(static_cast<int64_t>(first.size()));
  for (size_t i = 0; i < record_values.size(); i += options.records_per_append) {
    cutter.add_group(record_values.subspan(i, std::min(options.records_per_append, record_values.size() - i)));
  }
  cutter.finish();

  protocol::msg::snapshot_footer_record footer;
  footer.version = 0;
  append_control_batch(out, cutter.next_offset(), partition_leader_epoch, options.write_time_ms,
                       {{control_record_type::snapshot_footer, control_value(footer)}});
  return out;
}

}  // namespace hw::storage
