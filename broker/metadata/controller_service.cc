#include "broker/metadata/controller_service.h"

#include <spdlog/spdlog.h>

namespace hw::broker {
controller_service::controller_service(asio::any_io_executor executor, storage::file_system& fs,
                                       controller_service_options options, clock_fn now_ms)
    : strand_(asio::make_strand(executor)), fs_(fs), options_(std::move(options)), now_ms_(std::move(now_ms)) {}

controller_service::~controller_service() = default;

storage::storage_error controller_service::replay_log() {
  // The whole committed log goes out as one batch: a broker must not act
  // on an intermediate state (a partition's leadership of an old epoch)
  // that later records already replaced.
  committed_batch all;
  std::string decode_error;
  storage::storage_error failure;
  auto ec = log_->read_committed(storage::offset(0), [&](const controller::metadata_log_entry& e) {
    all.last = e.offset;
    all.epoch = e.epoch;
    if (e.control) return true;  // leader changes, snapshot markers: nothing to replay
    controller::metadata_record record;
    if (!controller::decode_record_value(e.value, &record, &decode_error)) {
      failure = {std::make_error_code(std::errc::illegal_byte_sequence),
                 "Cannot decode the metadata record at offset " + std::to_string(e.offset.value) + ": " +
                     decode_error};
      return false;
    }
    if (all.records.empty()) all.base_offset = e.offset;
    if (auto error = controller_->replay(record)) {
      failure = {std::make_error_code(std::errc::illegal_byte_sequence),
                 "Cannot replay the metadata record at offset " + std::to_string(e.offset.value) + ": " + *error};
      return false;
    }
    all.records.push_back(std::move(record));
    return true;
  });
  if (failure) return failure;
  if (ec) return {ec, "Cannot read the metadata log: " + ec.message()};
  if (!all.records.empty()) publish(all);
  return {};
}

asio::awaitable<storage::storage_error> controller_service::start() {
  co_return co_await run_on(strand_, [this] { return start_on_strand(); });
}

storage::storage_error controller_service::start_on_strand() {
  controller::metadata_log_options lo;
  lo.metadata_log_dir = options_.metadata_log_dir;
  lo.config = options_.log_config;
  lo.now_ms = now_ms_();
  if (auto err = controller::metadata_log::open(fs_, lo, &log_)) return err;
  controller_ = std::make_unique<controller::quorum_controller>(options_.controller);

  // One voter: this node wins every election it holds. The new epoch is
  // durable in quorum-state before anything is written in it.
  const int32_t epoch = std::max(log_->state().leader_epoch, log_->last_epoch()) + 1;
  if (auto ec = log_->write_state({options_.node_id, epoch, options_.node_id}))
    return storage::storage_error{ec, "Cannot write the quorum state: " + ec.message()};
  if (auto ec = log_->append_leader_change(options_.node_id, options_.voters, epoch, now_ms_()))
    return storage::storage_error{ec, "Cannot append to the metadata log: " + ec.message()};
  if (auto ec = log_->flush()) return storage::storage_error{ec, "Cannot flush the metadata log: " + ec.message()};
  log_->set_high_watermark(log_->end_offset());
  high_watermark_.store(log_->high_watermark().value, std::memory_order_release);

  if (auto err = replay_log()) return err;
  spdlog::info("Controller {} is the leader of the metadata quorum at epoch {} (metadata log end offset {})",
               options_.node_id, epoch, log_->end_offset().value);

  if (controller_->image().features.empty()) {
    // A new cluster: its first records set the feature levels.
    if (auto ec = commit(controller::bootstrap_records(controller::latest_production_metadata_version, options_.controller.min_insync_replicas)))
      return storage::storage_error{ec, "Cannot write the bootstrap records: " + ec.message()};
    spdlog::info("Wrote the bootstrap metadata records of a new cluster");
  }
  return storage::storage_error{};
}

asio::awaitable<void> controller_service::stop() {
  co_await run_on(strand_, [this] {
    if (log_) {
      if (auto ec = log_->close()) spdlog::error("Cannot close the metadata log: {}", ec.message());
      log_.reset();
    }
  });
}

std::error_code controller_service::commit(std::vector<controller::metadata_record> records) {
  if (records.empty()) return {};
  const auto mv = controller_->image().version();
  std::vector<std::vector<uint8_t>> values;
  values.reserve(records.size());
  for (const auto& r : records) values.push_back(controller::encode_record_value(r, controller::record_version_for(r, mv)));
  committed_batch batch;
  batch.epoch = log_->state().leader_epoch;
  if (auto ec = log_->append(values, batch.epoch, now_ms_(), &batch.base_offset)) {
    spdlog::error("Cannot append to the metadata log: {}", ec.message());
    return ec;
  }
  if (auto ec = log_->flush()) {
    spdlog::error("Cannot flush the metadata log: {}", ec.message());
    return ec;
  }
  log_->set_high_watermark(log_->end_offset());
  high_watermark_.store(log_->high_watermark().value, std::memory_order_release);
  for (const auto& r : records) {
    if (auto error = controller_->replay(r)) spdlog::error("The controller cannot replay its own record: {}", *error);
  }
  batch.last = storage::offset(batch.base_offset.value + static_cast<int64_t>(records.size()) - 1);
  batch.records = std::move(records);
  publish(batch);
  return {};
}

void controller_service::publish(const committed_batch& batch) {
  for (auto& l : listeners_) l(batch);
}

asio::awaitable<void> controller_service::tick() {
  co_await run_on(strand_, [this] {
    if (!controller_ || !log_) return;
    auto records = controller_->tick(now_ms_());
    if (auto ec = commit(std::move(records))) spdlog::error("Controller tick failed: {}", ec.message());
  });
}

}  // namespace hw::broker
