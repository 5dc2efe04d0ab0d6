#pragma once
// How often the broker's background storage work runs, read once at
// start-up from Kafka's settings (names and defaults as in Kafka 4.3). A
// plain value; "never" is INT64_MAX.

#include <cstdint>

#include "storage/cleaner.h"

namespace hw::config {
struct broker_config;
}

namespace hw::broker {

struct maintenance_options {
  // log.flush.scheduler.interval.ms: how often logs are held against
  // log.flush.interval.messages / log.flush.interval.ms (default: never).
  int64_t flush_check_interval_ms = INT64_MAX;
  // The recovery-point and log-start checkpoints are written together, at
  // the shorter of log.flush.offset.checkpoint.interval.ms and
  // log.flush.start.offset.checkpoint.interval.ms.
  int64_t offset_checkpoint_interval_ms = 60'000;
  // replica.high.watermark.checkpoint.interval.ms: replication-offset-checkpoint.
  int64_t high_watermark_checkpoint_interval_ms = 5'000;
  // log.retention.check.interval.ms.
  int64_t retention_check_interval_ms = 300'000;
  // log.segment.delete.delay.ms: how long a deleted partition's `-delete`
  // directory stays (Kafka's file.delete.delay.ms for whole logs).
  int64_t deleted_dir_delay_ms = 60'000;
  // How often `.deleted` segment files are checked for their
  // file.delete.delay.ms (Kafka schedules one task per segment; one poll
  // here bounds the work and the lateness).
  int64_t segment_deletion_check_interval_ms = 1'000;
  // producer.id.expiration.check.interval.ms.
  int64_t producer_expiration_check_interval_ms = 600'000;
  // log.cleaner.enable (and log.cleaner.threads > 0).
  bool cleaner_enabled = true;
  storage::cleaner_config cleaner;
  // Threads of the blocking pool (fsync, checkpoints, file removal).
  int blocking_threads = 1;
};

maintenance_options make_maintenance_options(const config::broker_config& c);

}  // namespace hw::broker
