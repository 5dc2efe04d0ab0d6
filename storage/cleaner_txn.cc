#include "storage/cleaner_txn.h"

#include "protocol/records/control_record.h"

namespace hw::storage {
namespace {

// The control record type of a control batch's first record, or nothing
// when the batch is empty (or unreadable).
std::optional<int16_t> control_type(const protocol::record_batch_view& batch) {
  if (batch.record_count() == 0 || batch.validate_header() != protocol::batch_error::none) return std::nullopt;
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  if (batch.open_records(scratch, 1 << 20, it) != protocol::batch_error::none) return std::nullopt;
  protocol::record_view r;
  if (!it.next(r)) return std::nullopt;
  auto key = protocol::parse_control_key(r);
  // An unreadable key is an unknown type: kept, as Kafka's UNKNOWN.
  return key ? key->type : int16_t{-1};
}

}  // namespace

void cleaner_txn_tracker::add_aborted_transactions(std::span<const aborted_txn> aborted) {
  for (const auto& txn : aborted) aborted_.push(txn);
}

void cleaner_txn_tracker::consume_aborted_up_to(offset o) {
  while (!aborted_.empty() && aborted_.top().first_offset <= o) {
    aborted_txn txn = aborted_.top();
    aborted_.pop();
    ongoing_aborted_.try_emplace(txn.id.value, ongoing_abort{txn, std::nullopt});
  }
}

bool cleaner_txn_tracker::on_control_batch_read(const protocol::record_batch_view& batch,
                                                std::vector<aborted_txn>* index_entries) {
  consume_aborted_up_to(offset(batch.last_offset()));
  auto type = control_type(batch);
  if (!type) return true;  // emptied by an earlier cleaning: safe to discard
  int64_t pid = batch.producer_id();
  if (*type == static_cast<int16_t>(protocol::control_record_type::abort)) {
    auto it = ongoing_aborted_.find(pid);
    if (it == ongoing_aborted_.end()) return true;
    bool saw_data = it->second.last_observed_batch_offset.has_value();
    if (saw_data) index_entries->push_back(it->second.txn);
    ongoing_aborted_.erase(it);
    return !saw_data;
  }
  if (*type == static_cast<int16_t>(protocol::control_record_type::commit)) {
    return ongoing_committed_.erase(pid) == 0;
  }
  return false;
}

bool cleaner_txn_tracker::on_batch_read(const protocol::record_batch_view& batch) {
  consume_aborted_up_to(offset(batch.last_offset()));
  if (!batch.is_transactional()) return false;
  auto it = ongoing_aborted_.find(batch.producer_id());
  if (it != ongoing_aborted_.end()) {
    it->second.last_observed_batch_offset = offset(batch.last_offset());
    return true;
  }
  ongoing_committed_.insert(batch.producer_id());
  return false;
}

}  // namespace hw::storage
