#include "broker/group/group_shard.h"

#include "broker/group/lower_trimmed.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <variant>

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

namespace {

// A member id as Kafka makes one (Uuid.randomUuid().toString()).
std::function<std::string()> member_ids_from(group_shard::random_source random) {
  return [random = std::move(random)] {
    auto next = [&random] { return random(); };
    return protocol::uuid::random(next).to_string();
  };
}

}  // namespace

group_shard::group_shard(group_config config, random_source random, consumer::consumer_group_options consumer_options,
                         streams::streams_group_options streams_options)
    : ctx_(config),
      groups_(ctx_, committed_, random),
      consumers_(ctx_, std::move(consumer_options), member_ids_from(random)),
      streams_(ctx_, streams_options),
      offsets_(ctx_, groups_, consumers_, streams_, committed_, pending_) {
  consumers_.set_classic_side(
      [this](const consumer::downgrade& d, int64_t now_ms) { return groups_.adopt(d, consumers_.topics(), now_ms); },
      [this](const std::string& group_id) { groups_.dissolve(group_id, error_code::not_coordinator); });
}

void group_shard::set_topics(std::shared_ptr<const consumer::topic_image_view> topics,
                             const std::set<std::string>& changed, bool created) {
  streams_.set_topics(topics);
  consumers_.set_topics(std::move(topics), changed, created);
}

size_t group_shard::consumer_group_count() const { return consumers_.size(); }

group_counts group_shard::counts() const {
  group_counts c;
  c.classic = static_cast<int64_t>(groups_.groups().size());
  c.consumer = static_cast<int64_t>(consumers_.size());
  for (const auto& [id, g] : consumers_.groups()) ++c.consumer_by_state[static_cast<size_t>(g.state())];
  c.consumer_rebalances = consumers_.rebalances();
  c.streams = static_cast<int64_t>(streams_.size());
  for (const auto& [id, g] : streams_.groups()) ++c.streams_by_state[static_cast<size_t>(g.state())];
  c.streams_rebalances = streams_.rebalances();
  return c;
}

// --- load / unload -----------------------------------------------------------

void group_shard::begin_load() {
  assert(ctx_.mode() == shard_mode::inactive);
  groups_.clear();
  consumers_.clear();
  streams_.clear();
  offsets_.clear();
  ctx_.set_mode(shard_mode::loading);
}

bool group_shard::load(const loaded_record& record) {
  assert(ctx_.mode() == shard_mode::loading);
  auto decoded = decode_record(record.key, record.value);
  if (!decoded) return false;
  if (auto* g = std::get_if<group_record>(&*decoded)) groups_.replay(*g);
  if (auto* o = std::get_if<offset_record>(&*decoded)) offsets_.replay(*o, record.producer_id);
  // A record that breaks a group's invariants is left out (Kafka's replay
  // fails it the same way); the rest of the log still loads.
  if (auto* c = std::get_if<consumer::consumer_group_record>(&*decoded)) (void)consumers_.replay(*c);
  if (auto* sr = std::get_if<streams::streams_group_record>(&*decoded)) (void)streams_.replay(*sr);
  return true;
}

void group_shard::on_txn_marker(int64_t producer_id, bool commit) { offsets_.on_txn_marker(producer_id, commit); }

void group_shard::end_load(int64_t now_ms) {
  assert(ctx_.mode() == shard_mode::loading);
  ctx_.set_mode(shard_mode::active);
  groups_.activate(now_ms);
  consumers_.activate(now_ms);
  streams_.activate(now_ms);
  offsets_.start_retention(now_ms);
}

void group_shard::unload() {
  // From here on every answer, including those of parked and in-flight
  // requests, is NOT_COORDINATOR.
  ctx_.set_mode(shard_mode::inactive);
  groups_.answer_parked_not_coordinator();
  ctx_.fail_in_flight();
  groups_.clear();
  consumers_.clear();
  streams_.clear();
  offsets_.clear();
}

// --- requests ------------------------------------------------------------------

bool group_shard::consumer_group_with_members(const std::string& group_id) const {
  const auto* g = ctx_.active() ? consumers_.find(group_id) : nullptr;
  return g && !g->members().empty();
}

std::optional<std::string> group_shard::held_by_other_kind(const std::string& group_id, std::string_view kind) const {
  if (!ctx_.active()) return std::nullopt;
  const classic_group* classic = groups_.find_group(group_id);
  const bool held = (kind != "classic" && classic && !classic->in(group_state::dead)) ||
                    (kind != "consumer" && consumers_.find(group_id)) || (kind != "streams" && streams_.find(group_id));
  if (!held) return std::nullopt;
  return "Group " + group_id + " is not a " + std::string(kind) + " group.";
}

void group_shard::join_group(request_token token, int16_t version, const client_info& client,
                             const msg::join_group_request& request, int64_t now_ms) {
  // A classic member joins a consumer group with members as one of them;
  // an empty consumer or streams group gives way to a classic group; one
  // with members refuses it.
  if (consumer_group_with_members(request.group_id))
    return consumers_.classic_join(token, version, client, request, now_ms);
  if (ctx_.active() && consumers_.find(request.group_id)) consumers_.remove_empty(request.group_id);
  if (const auto* sg = ctx_.active() ? streams_.find(request.group_id) : nullptr) {
    if (!sg->members().empty()) {
      msg::join_group_response r;
      r.error_code = static_cast<int16_t>(error_code::inconsistent_group_protocol);
      r.protocol_name = version >= 7 ? std::nullopt : std::optional<std::string>("");
      return ctx_.reply(token, std::move(r));
    }
    streams_.remove_empty(request.group_id);
  }
  groups_.join_group(token, version, client, request, now_ms);
}

void group_shard::consumer_group_heartbeat(request_token token, int16_t version, const client_info& client,
                                           const msg::consumer_group_heartbeat_request& request, int64_t now_ms,
                                           const consumer::topic_filter& may_describe) {
  if (ctx_.active() && streams_.find(request.group_id)) {
    msg::consumer_group_heartbeat_response r;
    r.error_code = static_cast<int16_t>(error_code::group_id_not_found);
    r.error_message = "Group " + request.group_id + " is not a consumer group.";
    return ctx_.reply(token, std::move(r));
  }
  std::vector<coordinator_record> first;
  const classic_group* classic = ctx_.active() ? groups_.find_group(request.group_id) : nullptr;
  if (!classic || classic->in(group_state::dead))
    return (void)consumers_.heartbeat(token, version, client, request, now_ms, {}, may_describe);
  auto refuse = [&](std::string message) {
    msg::consumer_group_heartbeat_response r;
    r.error_code = static_cast<int16_t>(error_code::group_id_not_found);
    r.error_message = std::move(message);
    ctx_.reply(token, std::move(r));
  };
  if (request.member_epoch != 0) return refuse("Group " + request.group_id + " is not a consumer group.");
  // The classic group's tombstone comes first either way (its offsets stay).
  first.push_back(group_tombstone_record(request.group_id));
  const bool empty = classic->in(group_state::empty) && classic->members().pending_members().empty();
  if (empty) {
    // An empty classic group gives way to the consumer group.
    if (consumers_.heartbeat(token, version, client, request, now_ms, std::move(first), may_describe))
      groups_.erase(request.group_id);
    return;
  }
  // One with members is upgraded: its members become the consumer
  // group's, holding what they were assigned.
  auto upgraded = consumers_.upgrade_records(groups_.upgrade_snapshot(*classic));
  if (auto* refused = std::get_if<consumer::heartbeat_refusal>(&upgraded)) return refuse(refused->message);
  const auto& records = std::get<std::vector<consumer::consumer_group_record>>(upgraded);
  if (consumers_.heartbeat_upgrading(token, version, client, request, now_ms, std::move(first), may_describe, records))
    groups_.dissolve(request.group_id, error_code::rebalance_in_progress);
}

void group_shard::streams_group_heartbeat(request_token token, const client_info& client,
                                          const msg::streams_group_heartbeat_request& request, int64_t now_ms) {
  std::vector<coordinator_record> first;
  const classic_group* classic = ctx_.active() ? groups_.find_group(request.group_id) : nullptr;
  // A joining member replaces an empty classic group (its offsets stay).
  const bool replaces_classic = classic && request.member_epoch == 0 && classic->in(group_state::empty) &&
                                classic->members().pending_members().empty();
  if (replaces_classic) {
    first.push_back(group_tombstone_record(request.group_id));
  } else if (auto other = held_by_other_kind(request.group_id, "streams")) {
    streams_heartbeat_answer a;
    a.response.error_code = static_cast<int16_t>(error_code::group_id_not_found);
    a.response.error_message = std::move(*other);
    return ctx_.reply(token, std::move(a));
  }
  if (streams_.heartbeat(token, client, request, now_ms, std::move(first)) && replaces_classic)
    groups_.erase(request.group_id);
}

namespace {

// A group of another kind described as not found: Kafka's message names its kind.
template <class Described>
void name_other_kinds(std::vector<Described>& out,
                      const std::function<std::optional<std::string>(const std::string&)>& other) {
  for (auto& d : out)
    if (d.error_code == static_cast<int16_t>(error_code::group_id_not_found))
      if (auto message = other(d.group_id)) d.error_message = std::move(*message);
}

}  // namespace

std::vector<msg::consumer_group_describe_response::described_group> group_shard::describe_consumer_groups(
    const std::vector<std::string>& group_ids) const {
  auto out = consumers_.describe(group_ids);
  name_other_kinds(out, [this](const std::string& id) { return held_by_other_kind(id, "consumer"); });
  return out;
}

std::vector<msg::streams_group_describe_response::described_group> group_shard::describe_streams_groups(
    const std::vector<std::string>& group_ids) const {
  auto out = streams_.describe(group_ids);
  name_other_kinds(out, [this](const std::string& id) { return held_by_other_kind(id, "streams"); });
  return out;
}

void group_shard::sync_group(request_token token, int16_t version, const msg::sync_group_request& request,
                             int64_t now_ms) {
  if (ctx_.active() && consumers_.find(request.group_id)) return consumers_.classic_sync(token, request, now_ms);
  groups_.sync_group(token, version, request, now_ms);
}

void group_shard::heartbeat(request_token token, int16_t version, const msg::heartbeat_request& request,
                            int64_t now_ms) {
  if (ctx_.active() && consumers_.find(request.group_id)) return consumers_.classic_heartbeat(token, request, now_ms);
  groups_.heartbeat(token, version, request, now_ms);
}

void group_shard::leave_group(request_token token, int16_t version, const msg::leave_group_request& request,
                              int64_t now_ms) {
  if (ctx_.active() && consumers_.find(request.group_id)) return consumers_.classic_leave(token, request, now_ms);
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
  auto out = groups_.describe_groups(group_ids);
  for (auto& d : out)
    if (d.error_code == 0)
      if (auto other = held_by_other_kind(d.group_id, "classic")) d.error_message = std::move(*other);
  return out;
}

error_code group_shard::list_groups(const std::vector<std::string>& states_filter,
                                    const std::vector<std::string>& types_filter,
                                    std::vector<msg::list_groups_response::listed_group>& out) const {
  const error_code e = groups_.list_groups(states_filter, types_filter, out);
  if (e != error_code::none) return e;
  bool consumer_wanted = types_filter.empty();
  bool streams_wanted = types_filter.empty();
  for (const auto& t : types_filter) {
    consumer_wanted |= lower_trimmed(t) == "consumer";
    streams_wanted |= lower_trimmed(t) == "streams";
  }
  if (consumer_wanted) consumers_.list(states_filter, out);
  if (streams_wanted) streams_.list(states_filter, out);
  return e;
}

// --- time and durability ----------------------------------------------------------

void group_shard::tick(int64_t now_ms) {
  if (!ctx_.active()) return;
  groups_.tick(now_ms);
  consumers_.tick(now_ms);
  streams_.tick(now_ms);
  offsets_.tick(now_ms);
}

std::optional<int64_t> group_shard::next_deadline_ms() const {
  if (!ctx_.active()) return std::nullopt;
  std::optional<int64_t> next;
  for (auto d : {groups_.next_deadline_ms(), consumers_.next_deadline_ms(), streams_.next_deadline_ms(),
                 offsets_.next_deadline_ms()})
    if (d && (!next || *d < *next)) next = d;
  return next;
}

void group_shard::on_append_done(append_token token, error_code error, int64_t now_ms) {
  ctx_.on_append_done(token, error, now_ms);
}

shard_output group_shard::take_output() { return ctx_.take_output(); }

const classic_group* group_shard::find_group(std::string_view group_id) const {
  return groups_.find_group(group_id);
}

}  // namespace hw::broker::group
