#include "broker/coordinator_log/coordinator_log.h"

#include <limits>

#include <spdlog/spdlog.h>

#include "protocol/records/record_batch_builder.h"

namespace hw::broker {

namespace {

// Decompressed coordinator batches are bounded by this.
constexpr size_t k_max_records_bytes = 64u << 20;

}  // namespace

replay_result replay_partition(partition& p, int32_t buffer_bytes, const replayed_record_fn& on_record) {
  const storage::log& log = p.log().log();
  const int64_t end = p.log_end_offset().value;
  replay_result out;
  out.next_offset = log.log_start_offset().value;
  std::vector<uint8_t> buffer;
  std::vector<uint8_t> scratch;
  while (out.next_offset < end) {
    storage::log_read_result r;
    if (auto ec = log.read(storage::offset(out.next_offset), buffer_bytes, storage::offset(end), true, &r)) {
      out.error = ec;
      break;
    }
    if (r.length == 0 || !r.log_file) break;
    buffer.resize(r.length);
    size_t got = 0;
    if (auto ec = r.log_file->read_at(r.position, buffer, &got); ec || got == 0) {
      out.error = ec;
      break;
    }
    protocol::record_batch_walker walker(protocol::bytes_view(buffer.data(), got));
    protocol::record_batch_view batch;
    const int64_t before = out.next_offset;
    while (walker.next(batch)) {
      if (batch.last_offset() < out.next_offset) continue;
      out.next_offset = batch.next_offset();
      protocol::record_iterator it;
      if (batch.open_records(scratch, k_max_records_bytes, it) != protocol::batch_error::none) continue;
      protocol::record_view record;
      while (it.next(record)) on_record(batch, record);
    }
    if (out.next_offset == before) break;  // nothing readable moved us on
  }
  return out;
}

void durable_appender::append(token t, const std::vector<coordinator_append_record>& records, int64_t now_ms,
                              std::string_view what, std::optional<coordinator_producer> producer) {
  pending entry;
  entry.t = t;
  if (records.empty()) {
    pending_.push_back(entry);
    return;
  }
  protocol::record_batch_options options;
  options.partition_leader_epoch = part_->leader_epoch();
  if (producer) {
    // Kafka's coordinators write sequence 0; the partition does not check
    // sequences of coordinator writes.
    options.transactional = true;
    options.producer_id = producer->id;
    options.producer_epoch = producer->epoch;
    options.base_sequence = 0;
  }
  protocol::record_batch_builder builder(options);
  for (const auto& r : records) {
    std::optional<protocol::bytes_view> value;
    if (r.value) value = protocol::bytes_view(r.value->data(), r.value->size());
    builder.append(now_ms, protocol::bytes_view(r.key.data(), r.key.size()), value);
  }
  std::vector<uint8_t> batch = builder.finish();
  produce_limits limits;
  limits.max_message_bytes = std::numeric_limits<int32_t>::max();
  partition_produce_result result =
      part_->append_records(batch, -1, limits, storage::producer_origin::coordinator, now_ms, 0,
                            producer ? producer->verification : std::nullopt);
  if (result.error != protocol::error_code::none) {
    spdlog::warn("Appending {} to {}-{} failed: {} {}", what, part_->tp().topic, part_->tp().partition,
                 protocol::error_name(result.error), result.error_message);
    entry.error = result.error;
  } else {
    entry.end_offset = result.base_offset + static_cast<int64_t>(records.size());
  }
  pending_.push_back(entry);
}

void durable_appender::acknowledge_ready(const done_fn& done, const std::function<void()>& wake) {
  while (!pending_.empty()) {
    pending& front = pending_.front();
    if (front.error == protocol::error_code::none && part_->high_watermark().value < front.end_offset) {
      if (!part_->is_leader()) {
        front.error = protocol::error_code::not_leader_or_follower;
      } else {
        if (!hw_wake_) {
          hw_wake_ = std::make_shared<std::function<void()>>([this, wake] {
            hw_wake_.reset();
            wake();
          });
          part_->status().add_waiter(hw_wake_);
        }
        return;
      }
    }
    const token t = front.t;
    const protocol::error_code error = front.error;
    pending_.pop_front();
    done(t, error);
  }
}

}  // namespace hw::broker
