#include "broker/maintenance/maintenance_options.h"

#include <algorithm>

#include "config/broker_config.h"

namespace hw::broker {

maintenance_options make_maintenance_options(const config::broker_config& c) {
  maintenance_options o;
  o.flush_check_interval_ms = c.get_int("log.flush.scheduler.interval.ms");
  o.offset_checkpoint_interval_ms = std::min(c.get_int("log.flush.offset.checkpoint.interval.ms"),
                                             c.get_int("log.flush.start.offset.checkpoint.interval.ms"));
  o.high_watermark_checkpoint_interval_ms = c.get_int("replica.high.watermark.checkpoint.interval.ms");
  o.retention_check_interval_ms = c.get_int("log.retention.check.interval.ms");
  o.deleted_dir_delay_ms = c.get_int("log.segment.delete.delay.ms");
  o.segment_deletion_check_interval_ms = std::clamp<int64_t>(o.deleted_dir_delay_ms, 10, 1'000);
  o.producer_expiration_check_interval_ms = c.get_int("producer.id.expiration.check.interval.ms");
  o.cleaner_enabled = c.get_bool("log.cleaner.enable") && c.get_int("log.cleaner.threads") > 0;
  o.cleaner.dedupe_buffer_bytes = static_cast<uint64_t>(std::max<int64_t>(c.get_int("log.cleaner.dedupe.buffer.size"), 0));
  o.cleaner.dedupe_buffer_load_factor = c.get_double("log.cleaner.io.buffer.load.factor");
  // Kafka splits log.cleaner.io.buffer.size between a read and a write buffer.
  o.cleaner.io_buffer_bytes = static_cast<uint32_t>(std::max<int64_t>(c.get_int("log.cleaner.io.buffer.size") / 2, 1024));
  o.cleaner.backoff_ms = c.get_int("log.cleaner.backoff.ms");
  return o;
}

}  // namespace hw::broker
