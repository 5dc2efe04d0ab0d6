#include "broker/group/consumer_groups.h"

#include <algorithm>
#include <utility>

#include "broker/group/consumer/describe.h"
#include "broker/group/lower_trimmed.h"

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
  before.emplace(request.group_id, std::move(out.before));
  write(std::move(first), std::move(out.records), std::move(before), std::move(answer));
  return true;
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
                            std::function<void(error_code)> answer) {
  std::vector<coordinator_record> encoded = std::move(first);
  encoded.reserve(encoded.size() + records.size());
  for (const auto& r : records) encoded.push_back(consumer::encode_record(r));
  const append_token token = ctx_.appends_issued() + 1;
  pending_.emplace(token, pending_write{std::move(before), std::move(records)});
  ctx_.append(std::move(encoded), [this, token, answer = std::move(answer)](error_code e, int64_t now_ms) {
    if (e != error_code::none) roll_back(token, now_ms);
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
  std::vector<msg::consumer_group_describe_response::described_group> out;
  const std::string default_assignor = options_.assignors.empty() ? "uniform" : options_.assignors.front();
  for (const auto& id : group_ids) {
    if (!ctx_.active()) {
      auto& d = out.emplace_back();
      d.group_id = id;
      d.error_code = static_cast<int16_t>(ctx_.unavailable_error());
      continue;
    }
    if (const auto* g = manager_.group(id)) {
      out.push_back(consumer::describe(*g, default_assignor, *topics_));
      continue;
    }
    auto& d = out.emplace_back();
    d.group_id = id;
    d.error_code = static_cast<int16_t>(error_code::group_id_not_found);
    d.error_message = "Group " + id + " not found.";
  }
  return out;
}

void consumer_groups::list(const std::vector<std::string>& states,
                           std::vector<msg::list_groups_response::listed_group>& out) const {
  std::vector<std::string> wanted;
  for (const auto& s : states) wanted.push_back(lower_trimmed(s));
  for (const auto& [id, g] : manager_.groups()) {
    const std::string state(consumer::to_string(g.state()));
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), lower_trimmed(state)) == wanted.end()) continue;
    msg::list_groups_response::listed_group l;
    l.group_id = id;
    l.protocol_type = "consumer";
    l.group_state = state;
    l.group_type = "consumer";
    out.push_back(std::move(l));
  }
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
  auto records = manager_.expire_sessions(now_ms, *topics_);
  if (records.empty()) return;
  write({}, std::move(records), std::move(before), nullptr);
}

std::optional<int64_t> consumer_groups::next_deadline_ms() const { return manager_.next_deadline_ms(); }

void consumer_groups::clear() {
  manager_.clear();
  pending_.clear();
}

}  // namespace hw::broker::group
