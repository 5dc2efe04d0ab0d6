#include "broker/txn/txn_state_manager.h"

#include <algorithm>
#include <utility>

#include "broker/txn/txn_records.h"

namespace hw::broker::txn {

using protocol::error_code;

error_code txn_state_manager::not_serving() const {
  switch (mode_) {
    case mode::active:
      return error_code::none;
    case mode::loading:
      return error_code::coordinator_load_in_progress;
    case mode::inactive:
      break;
  }
  return error_code::not_coordinator;
}

// --- load and unload -----------------------------------------------------------

void txn_state_manager::begin_load(int32_t coordinator_epoch) {
  unload();
  mode_ = mode::loading;
  coordinator_epoch_ = coordinator_epoch;
}

bool txn_state_manager::load(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value,
                             std::string* error) {
  auto record = decode_txn_record(key, value, error);
  if (!record) return false;
  auto it = ids_.find(record->transactional_id);
  const txn_state before = it == ids_.end() ? txn_state::empty : it->second.state();
  if (!record->value) {
    if (it != ids_.end()) ids_.erase(it);
    note_state_change(before, txn_state::empty);
    return true;
  }
  txn_metadata loaded(record->transactional_id, *record->value);
  note_state_change(before, loaded.state());
  ids_.insert_or_assign(record->transactional_id, std::move(loaded));
  return true;
}

void txn_state_manager::unload() {
  ids_.clear();
  open_ = 0;
  mode_ = mode::inactive;
}

// --- the ids -------------------------------------------------------------------

const txn_metadata* txn_state_manager::find(std::string_view transactional_id) const {
  auto it = ids_.find(transactional_id);
  return it == ids_.end() ? nullptr : &it->second;
}

txn_metadata* txn_state_manager::find_mutable(std::string_view transactional_id) {
  auto it = ids_.find(transactional_id);
  return it == ids_.end() ? nullptr : &it->second;
}

txn_metadata& txn_state_manager::create(const std::string& transactional_id, txn_metadata metadata) {
  note_state_change(txn_state::empty, metadata.state());
  return ids_.insert_or_assign(transactional_id, std::move(metadata)).first->second;
}

void txn_state_manager::erase(const std::string& transactional_id) {
  auto it = ids_.find(transactional_id);
  if (it == ids_.end()) return;
  note_state_change(it->second.state(), txn_state::empty);
  ids_.erase(it);
}

void txn_state_manager::note_state_change(txn_state before, txn_state after) {
  const auto open = [](txn_state s) {
    return s == txn_state::ongoing || s == txn_state::prepare_commit || s == txn_state::prepare_abort ||
           s == txn_state::prepare_epoch_fence;
  };
  open_ += static_cast<int>(open(after)) - static_cast<int>(open(before));
}

// --- reads ---------------------------------------------------------------------

std::optional<txn_description> txn_state_manager::describe(std::string_view transactional_id) const {
  const txn_metadata* m = find(transactional_id);
  if (!m || m->state() == txn_state::dead || m->pending() == txn_state::dead) return std::nullopt;
  txn_description d;
  d.transactional_id = m->transactional_id();
  d.producer_id = m->producer_id();
  d.producer_epoch = m->producer_epoch();
  d.state = m->state();
  d.timeout_ms = m->timeout_ms();
  d.start_ms = m->start_ms();
  d.partitions = m->partitions();
  return d;
}

std::vector<txn_description> txn_state_manager::list(const list_filter& filter, int64_t now_ms) const {
  std::vector<txn_description> out;
  for (const auto& [id, m] : ids_) {
    if (m.state() == txn_state::dead) continue;
    if (!filter.states.empty() &&
        std::find(filter.states.begin(), filter.states.end(), m.state()) == filter.states.end())
      continue;
    if (!filter.producer_ids.empty() &&
        std::find(filter.producer_ids.begin(), filter.producer_ids.end(), m.producer_id()) == filter.producer_ids.end())
      continue;
    if (filter.min_duration_ms >= 0 && now_ms - m.start_ms() <= filter.min_duration_ms) continue;
    if (auto d = describe(id)) out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace hw::broker::txn
