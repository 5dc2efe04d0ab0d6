#include "broker/group/consumer_groups.h"

#include <algorithm>
#include <utility>

#include "broker/group/classic_group.h"
#include "broker/group/consumer/describe.h"
#include "broker/group/group_listing.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

namespace {

class no_topics final : public consumer::topic_image_view {
 public:
  std::optional<protocol::uuid> topic_id(std::string_view) const override { return std::nullopt; }
  std::optional<std::string> topic_name(const protocol::uuid&) const override { return std::nullopt; }
  std::vector<std::string> topic_names() const override { return {}; }
  int32_t partition_count(const protocol::uuid&) const override { return -1; }
};

}  // namespace

std::shared_ptr<const consumer::topic_image_view> empty_topic_image() {
  static const auto empty = std::make_shared<const no_topics>();
  return empty;
}

consumer_groups::consumer_groups(shard_context& ctx, consumer::consumer_group_options options,
                                 std::function<std::string()> new_member_id)
    : ctx_(ctx),
      options_(options),
      manager_(std::move(options)),
      new_member_id_(std::move(new_member_id)),
      topics_(empty_topic_image()) {
  manager_.set_config_source(topics_.get());
}

void consumer_groups::set_topics(std::shared_ptr<const consumer::topic_image_view> topics,
                                 const std::set<std::string>& changed, bool created) {
  topics_ = topics ? std::move(topics) : empty_topic_image();
  manager_.set_config_source(topics_.get());
  manager_.on_topics_changed(changed, created, topics_->version());
}

bool consumer_groups::heartbeat(request_token token, int16_t version, const client_info& client,
                                const msg::consumer_group_heartbeat_request& request, int64_t now_ms,
                                std::vector<coordinator_record> first, const consumer::topic_filter& may_describe) {
  if (!ctx_.active()) {
    msg::consumer_group_heartbeat_response r;
    r.error_code = static_cast<int16_t>(ctx_.unavailable_error());
    ctx_.reply(token, std::move(r));
    return false;
  }
  auto out = manager_.heartbeat(request, version, client.client_id, client.client_host, *topics_, now_ms,
                                new_member_id_, may_describe);
  return answer_heartbeat(token, std::move(out), request.group_id, std::move(first), now_ms);
}

bool consumer_groups::heartbeat_upgrading(request_token token, int16_t version, const client_info& client,
                                          const msg::consumer_group_heartbeat_request& request, int64_t now_ms,
                                          std::vector<coordinator_record> first,
                                          const consumer::topic_filter& may_describe,
                                          const std::vector<consumer::consumer_group_record>& upgraded) {
  auto out = manager_.heartbeat(request, version, client.client_id, client.client_host, *topics_, now_ms,
                                new_member_id_, may_describe, &upgraded);
  return answer_heartbeat(token, std::move(out), request.group_id, std::move(first), now_ms);
}

bool consumer_groups::answer_heartbeat(request_token token, consumer::heartbeat_outcome out,
                                       const std::string& group_id, std::vector<coordinator_record> first,
                                       int64_t now_ms) {
  if (out.response.error_code != 0) {
    ctx_.reply(token, std::move(out.response));
    return false;
  }
  if (out.records.empty() && first.empty()) {
    ctx_.reply(token, std::move(out.response));
    return true;
  }
  auto answer = [this, token, response = std::move(out.response)](error_code e) mutable {
    if (e == error_code::none) return ctx_.reply(token, std::move(response));
    msg::consumer_group_heartbeat_response failed;
    failed.error_code = static_cast<int16_t>(append_error_to_response_error(e));
    ctx_.reply(token, std::move(failed));
  };
  std::map<std::string, std::optional<consumer::consumer_group>> before;
  // Records of its own or not, the group as it stands is what a failed write puts back.
  before.emplace(group_id, out.records.empty() ? manager_.snapshot(group_id) : std::move(out.before));
  std::vector<consumer::downgrade> downgrades;
  if (out.downgraded) downgrades.push_back(std::move(*out.downgraded));
  write(std::move(first), std::move(out.records), std::move(before), std::move(answer), std::move(downgrades), now_ms);
  return true;
}

// --- classic members -----------------------------------------------------------

void consumer_groups::classic_join(request_token token, int16_t version, const client_info& client,
                                   const msg::join_group_request& request, int64_t now_ms) {
  auto reply = [this, token, version](msg::join_group_response r) {
    // No protocol chosen: null from v7 (nullable there), "" before.
    if (r.error_code != 0) r.protocol_name = version >= 7 ? std::nullopt : std::optional<std::string>("");
    ctx_.reply(token, std::move(r));
  };
  if (request.session_timeout_ms < ctx_.config().min_session_timeout_ms ||
      request.session_timeout_ms > ctx_.config().max_session_timeout_ms) {
    msg::join_group_response r;
    r.error_code = static_cast<int16_t>(error_code::invalid_session_timeout);
    r.member_id = request.member_id;
    return reply(std::move(r));
  }
  auto out = manager_.classic_join(request, version, client.client_id, client.client_host, *topics_, now_ms,
                                   new_member_id_);
  if (out.response.error_code != 0 || out.records.empty()) return reply(std::move(out.response));
  auto answer = [reply, response = std::move(out.response)](error_code e) mutable {
    if (e != error_code::none) {
      msg::join_group_response failed;
      failed.error_code = static_cast<int16_t>(append_error_to_response_error(e));
      failed.member_id = response.member_id;
      return reply(std::move(failed));
    }
    reply(std::move(response));
  };
  std::map<std::string, std::optional<consumer::consumer_group>> before;
  before.emplace(request.group_id, std::move(out.before));
  std::vector<consumer::downgrade> downgrades;
  if (out.downgraded) downgrades.push_back(std::move(*out.downgraded));
  write({}, std::move(out.records), std::move(before), std::move(answer), std::move(downgrades), now_ms);
}

void consumer_groups::classic_sync(request_token token, const msg::sync_group_request& request, int64_t now_ms) {
  auto response = manager_.classic_sync(request, *topics_, now_ms);
  if (response.error_code != 0) return ctx_.reply(token, std::move(response));
  // What it is told must be durable first.
  ctx_.after_appends([this, token, response = std::move(response)]() mutable {
    if (!ctx_.active()) response = sync_error(ctx_.unavailable_error());
    ctx_.reply(token, std::move(response));
  });
}

void consumer_groups::classic_heartbeat(request_token token, const msg::heartbeat_request& request, int64_t now_ms) {
  ctx_.reply(token, manager_.classic_heartbeat(request, now_ms));
}

void consumer_groups::classic_leave(request_token token, const msg::leave_group_request& request, int64_t now_ms) {
  auto out = manager_.classic_leave(request, *topics_);
  if (out.records.empty()) return ctx_.reply(token, std::move(out.response));
  auto answer = [this, token, response = std::move(out.response)](error_code e) mutable {
    if (e != error_code::none) {
      msg::leave_group_response failed;
      failed.error_code = static_cast<int16_t>(append_error_to_response_error(e));
      return ctx_.reply(token, std::move(failed));
    }
    ctx_.reply(token, std::move(response));
  };
  std::map<std::string, std::optional<consumer::consumer_group>> before;
  before.emplace(request.group_id, std::move(out.before));
  std::vector<consumer::downgrade> downgrades;
  if (out.downgraded) downgrades.push_back(std::move(*out.downgraded));
  write({}, std::move(out.records), std::move(before), std::move(answer), std::move(downgrades), now_ms);
}

bool consumer_groups::remove_empty(const std::string& group_id) {
  const auto* group = manager_.group(group_id);
  if (!group || !group->members().empty()) return false;
  std::map<std::string, std::optional<consumer::consumer_group>> before;
  before.emplace(group_id, *group);
  auto records = manager_.delete_group(group_id);
  if (records.empty()) return false;
  write({}, std::move(records), std::move(before), nullptr);
  return true;
}

void consumer_groups::write(std::vector<coordinator_record> first, std::vector<consumer::consumer_group_record> records,
                            std::map<std::string, std::optional<consumer::consumer_group>> before,
                            std::function<void(error_code)> answer, std::vector<consumer::downgrade> downgrades,
                            int64_t now_ms) {
  std::vector<coordinator_record> encoded = std::move(first);
  encoded.reserve(encoded.size() + records.size() + downgrades.size());
  for (const auto& r : records) encoded.push_back(consumer::encode_record(r));
  std::vector<std::string> downgraded;
  for (const auto& d : downgrades) {
    if (!make_classic_) continue;
    // The classic group exists from now on; its record follows the tombstones.
    encoded.push_back(make_classic_(d, now_ms));
    downgraded.push_back(d.group.group_id);
  }
  const append_token token = ctx_.appends_issued() + 1;
  pending_.emplace(token, pending_write{std::move(before), std::move(records), std::move(downgraded)});
  ctx_.append(std::move(encoded), [this, token, answer = std::move(answer)](error_code e, int64_t now_ms) {
    if (e != error_code::none) {
      // The classic groups it made go; the consumer groups come back.
      if (auto it = pending_.find(token); it != pending_.end() && drop_classic_)
        for (const auto& id : it->second.downgraded) drop_classic_(id);
      roll_back(token, now_ms);
    }
    pending_.erase(token);
    if (answer) answer(e);
  });
}

void consumer_groups::roll_back(append_token token, int64_t now_ms) {
  auto failed = pending_.find(token);
  if (failed == pending_.end()) return;
  for (auto& [group_id, was] : failed->second.before) {
    manager_.restore(group_id, was, now_ms);
    // Writes after this one may still succeed: the group is what they leave.
    bool replayed = false;
    for (auto later = std::next(failed); later != pending_.end(); ++later) {
      bool touches = false;
      for (const auto& r : later->second.records) {
        if (consumer::group_of(r) != group_id) continue;
        if (!touches) later->second.before[group_id] = manager_.snapshot(group_id);
        touches = replayed = true;
        (void)manager_.replay(r);
      }
    }
    if (replayed) manager_.restore(group_id, manager_.snapshot(group_id), now_ms);
  }
}

std::vector<msg::consumer_group_describe_response::described_group> consumer_groups::describe(
    const std::vector<std::string>& group_ids) const {
  const std::string default_assignor = options_.assignors.empty() ? "uniform" : options_.assignors.front();
  return describe_each<msg::consumer_group_describe_response::described_group>(
      ctx_, group_ids, [this](const std::string& id) { return manager_.group(id); },
      [&](const consumer::consumer_group& g) { return consumer::describe(g, default_assignor, *topics_); });
}

void consumer_groups::list(const std::vector<std::string>& states,
                           std::vector<msg::list_groups_response::listed_group>& out) const {
  list_groups_of(manager_.groups(), states, "consumer",
                 [](const consumer::consumer_group& g) { return consumer::to_string(g.state()); }, out);
}

std::optional<std::string> consumer_groups::replay(const consumer::consumer_group_record& record) {
  return manager_.replay(record);
}

void consumer_groups::activate(int64_t now_ms) { manager_.activate(now_ms); }

void consumer_groups::tick(int64_t now_ms) {
  if (!ctx_.active()) return;
  const auto ended = manager_.groups_with_ended_sessions(now_ms);
  if (ended.empty()) return;
  std::map<std::string, std::optional<consumer::consumer_group>> before;
  for (const auto& id : ended) before.emplace(id, manager_.snapshot(id));
  auto expired = manager_.expire_sessions(now_ms, *topics_);
  if (expired.records.empty()) return;
  write({}, std::move(expired.records), std::move(before), nullptr, std::move(expired.downgrades), now_ms);
}

std::optional<int64_t> consumer_groups::next_deadline_ms() const { return manager_.next_deadline_ms(); }

void consumer_groups::clear() {
  manager_.clear();
  pending_.clear();
}

}  // namespace hw::broker::group
