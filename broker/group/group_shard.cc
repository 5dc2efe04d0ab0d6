#include "broker/group/group_shard.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <variant>

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

group_shard::group_shard(group_config config, random_source random)
    : ctx_(config),
      groups_(ctx_, committed_, std::move(random)),
      offsets_(ctx_, groups_, committed_, pending_) {}

// --- load / unload -----------------------------------------------------------

void group_shard::begin_load() {
  assert(ctx_.mode() == shard_mode::inactive);
  groups_.clear();
  offsets_.clear();
  ctx_.set_mode(shard_mode::loading);
}

bool group_shard::load(const loaded_record& record) {
  assert(ctx_.mode() == shard_mode::loading);
  auto decoded = decode_record(record.key, record.value);
  if (!decoded) return false;
  if (auto* g = std::get_if<group_record>(&*decoded)) groups_.replay(*g);
  if (auto* o = std::get_if<offset_record>(&*decoded)) offsets_.replay(*o, record.producer_id);
  return true;
}

void group_shard::on_txn_marker(int64_t producer_id, bool commit) { offsets_.on_txn_marker(producer_id, commit); }

void group_shard::end_load(int64_t now_ms) {
  assert(ctx_.mode() == shard_mode::loading);
  ctx_.set_mode(shard_mode::active);
  groups_.activate(now_ms);
  offsets_.start_retention(now_ms);
}

void group_shard::unload() {
  // From here on every answer, including those of parked and in-flight
  // requests, is NOT_COORDINATOR.
  ctx_.set_mode(shard_mode::inactive);
  groups_.answer_parked_not_coordinator();
  ctx_.fail_in_flight();
  groups_.clear();
  offsets_.clear();
}

// --- requests ------------------------------------------------------------------

void group_shard::join_group(request_token token, int16_t version, const client_info& client,
                             const msg::join_group_request& request, int64_t now_ms) {
  groups_.join_group(token, version, client, request, now_ms);
}

void group_shard::sync_group(request_token token, int16_t version, const msg::sync_group_request& request,
                             int64_t now_ms) {
  groups_.sync_group(token, version, request, now_ms);
}

void group_shard::heartbeat(request_token token, int16_t version, const msg::heartbeat_request& request,
                            int64_t now_ms) {
  groups_.heartbeat(token, version, request, now_ms);
}

void group_shard::leave_group(request_token token, int16_t version, const msg::leave_group_request& request,
                              int64_t now_ms) {
  groups_.leave_group(token, version, request, now_ms);
}

void group_shard::commit_offsets(request_token token, int16_t version, const msg::offset_commit_request& request,
                                 int64_t now_ms) {
  offsets_.commit_offsets(token, version, request, now_ms);
}

void group_shard::commit_txn_offsets(request_token token, const msg::txn_offset_commit_request& request,
                                     int64_t now_ms, std::optional<uint64_t> verification) {
  offsets_.commit_txn_offsets(token, request, now_ms, verification);
}

void group_shard::fetch_offsets(request_token token, const msg::offset_fetch_request::offset_fetch_request_group& group,
                                bool require_stable) {
  offsets_.fetch_offsets(token, group, require_stable);
}

void group_shard::delete_groups(request_token token, const std::vector<std::string>& group_ids) {
  offsets_.delete_groups(token, group_ids);
}

void group_shard::delete_offsets(request_token token, const msg::offset_delete_request& request) {
  offsets_.delete_offsets(token, request);
}

std::vector<msg::describe_groups_response::described_group> group_shard::describe_groups(
    const std::vector<std::string>& group_ids) const {
  return groups_.describe_groups(group_ids);
}

error_code group_shard::list_groups(const std::vector<std::string>& states_filter,
                                    const std::vector<std::string>& types_filter,
                                    std::vector<msg::list_groups_response::listed_group>& out) const {
  return groups_.list_groups(states_filter, types_filter, out);
}

// --- time and durability ----------------------------------------------------------

void group_shard::tick(int64_t now_ms) {
  if (!ctx_.active()) return;
  groups_.tick(now_ms);
  offsets_.tick(now_ms);
}

std::optional<int64_t> group_shard::next_deadline_ms() const {
  if (!ctx_.active()) return std::nullopt;
  std::optional<int64_t> groups = groups_.next_deadline_ms();
  std::optional<int64_t> retention = offsets_.next_deadline_ms();
  if (groups && retention) return std::min(*groups, *retention);
  return groups ? groups : retention;
}

void group_shard::on_append_done(append_token token, error_code error, int64_t now_ms) {
  ctx_.on_append_done(token, error, now_ms);
}

shard_output group_shard::take_output() { return ctx_.take_output(); }

const classic_group* group_shard::find_group(std::string_view group_id) const {
  return groups_.find_group(group_id);
}

}  // namespace hw::broker::group
