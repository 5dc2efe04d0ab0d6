#include "broker/txn/txn_coordinator.h"

#include <spdlog/spdlog.h>

#include "broker/coordinator_log/coordinator_runtime_impl.h"
#include "broker/txn/txn_partition.h"

namespace hw::broker {
template class coordinator_runtime<txn::txn_shard, txn::txn_answer>;
}  // namespace hw::broker

namespace hw::broker::txn {

namespace {

coordinator_runtime_options runtime_options_of(const txn_coordinator_options& o) {
  coordinator_runtime_options r;
  r.topic = std::string(transaction_state_topic);
  r.num_partitions = o.num_partitions;
  r.load_buffer_bytes = o.load_buffer_bytes;
  r.reload_on_new_epoch = true;  // the coordinator epoch is the leader epoch
  r.what = "transaction state";
  r.entries = "transactional ids";
  return r;
}

}  // namespace

txn_coordinator::txn_coordinator(replica_manager& replicas, txn_coordinator_options options, clock now_ms,
                                 marker_writer markers)
    : coordinator_runtime(replicas, runtime_options_of(options), std::move(now_ms)),
      config_(options.txn),
      markers_(std::move(markers)),
      level_(options.txn.transaction_version_level) {}

int32_t txn_coordinator::partition_for(std::string_view transactional_id) const {
  return txn_partition(transactional_id, num_partitions());
}

void txn_coordinator::set_transaction_version_level(int16_t level) {
  if (level_.exchange(level, std::memory_order_relaxed) == level) return;
  post_to_each([level](txn_shard& shard) { shard.set_transaction_version_level(level); });
}

bool txn_coordinator::still_coordinates(const marker_job& job) const {
  return shard_epoch(partition_for(job.transactional_id)) == job.coordinator_epoch;
}

std::unique_ptr<txn_shard> txn_coordinator::make_shard(int32_t partition, int32_t epoch) {
  txn_config config = config_;
  config.transaction_version_level = transaction_version_level();
  auto shard = std::make_unique<txn_shard>(partition, config);
  shard->begin_load(epoch);
  bad_records_.store(0, std::memory_order_relaxed);  // up to five logged per load
  return shard;
}

bool txn_coordinator::replay(txn_shard& shard, const protocol::record_batch_view& batch,
                             const protocol::record_view& record, int32_t partition) {
  if (batch.is_control() || !record.key) return false;
  std::optional<std::span<const uint8_t>> value;
  if (record.value) value = std::span<const uint8_t>(*record.value);
  std::string error;
  if (shard.load(std::span<const uint8_t>(*record.key), value, &error)) return true;
  if (bad_records_.fetch_add(1, std::memory_order_relaxed) < 5)
    spdlog::error("Skipping a record of {}-{} that does not decode: {}", transaction_state_topic, partition, error);
  return false;
}

bool txn_coordinator::handle_output(slot& s, output& out) {
  const bool any = !out.appends.empty() || !out.markers.empty() || !out.illegal.empty();
  for (const auto& line : out.illegal) spdlog::error("Transaction coordinator: {}", line);
  for (auto& a : out.appends) {
    std::vector<coordinator_append_record> records{{a.record.key, std::nullopt}};
    if (a.record.value) records[0].value = std::span<const uint8_t>(*a.record.value);
    append(s, a.token, records, "a transaction record");
  }
  for (auto& job : out.markers) {
    auto report = later(s);
    std::string id = job.transactional_id;
    const int32_t epoch = job.coordinator_epoch;
    markers_(std::move(job), [report, id = std::move(id), epoch] {
      report([id, epoch](txn_shard& shard, int64_t now_ms) { shard.on_markers_written(id, epoch, now_ms); });
    });
  }
  return any;
}

}  // namespace hw::broker::txn
