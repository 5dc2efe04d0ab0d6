#include "broker/group/streams_groups.h"

#include <utility>

#include "broker/group/consumer_groups.h"
#include "broker/group/group_metadata_manager.h"
#include "broker/group/group_listing.h"
#include "broker/group/streams/describe.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

streams_groups::streams_groups(shard_context& ctx, streams::streams_group_options options)
    : ctx_(ctx), options_(options), manager_(options), topics_(empty_topic_image()) {
  manager_.set_config_source(topics_.get());
}

void streams_groups::set_topics(std::shared_ptr<const consumer::topic_image_view> topics) {
  topics_ = topics ? std::move(topics) : empty_topic_image();
  manager_.set_config_source(topics_.get());
}

bool streams_groups::heartbeat(request_token token, const client_info& client,
                               const msg::streams_group_heartbeat_request& request, int64_t now_ms,
                               std::vector<coordinator_record> first) {
  auto refuse = [&](error_code e) {
    streams_heartbeat_answer a;
    a.response.error_code = static_cast<int16_t>(e);
    ctx_.reply(token, std::move(a));
    return false;
  };
  if (!ctx_.active()) return refuse(ctx_.unavailable_error());
  auto out = manager_.heartbeat(request, client.client_id, client.client_host, *topics_, now_ms);
  streams_heartbeat_answer answer{std::move(out.response), std::move(out.to_create)};
  if (answer.response.error_code != 0 || (out.records.empty() && first.empty())) {
    const bool accepted = answer.response.error_code == 0;
    ctx_.reply(token, std::move(answer));
    return accepted;
  }
  auto reply = [this, token, answer = std::move(answer)](error_code e) mutable {
    if (e == error_code::none) return ctx_.reply(token, std::move(answer));
    streams_heartbeat_answer failed;
    failed.response.error_code = static_cast<int16_t>(append_error_to_response_error(e));
    ctx_.reply(token, std::move(failed));
  };
  // Records of its own or not, the group as it stands is what a failed write puts back.
  auto before = out.records.empty() ? manager_.snapshot(request.group_id) : std::move(out.before);
  write(std::move(first), request.group_id, std::move(before), std::move(out.records), std::move(reply));
  return true;
}

bool streams_groups::remove_empty(const std::string& group_id) {
  const auto* group = manager_.group(group_id);
  if (!group || !group->members().empty()) return false;
  auto before = manager_.snapshot(group_id);
  auto records = manager_.delete_group(group_id);
  if (records.empty()) return false;
  write({}, group_id, std::move(before), std::move(records), nullptr);
  return true;
}

void streams_groups::write(std::vector<coordinator_record> first, const std::string& group_id,
                           std::optional<streams::streams_group> before,
                           std::vector<streams::streams_group_record> records,
                           std::function<void(error_code)> answer) {
  std::vector<coordinator_record> encoded = std::move(first);
  encoded.reserve(encoded.size() + records.size());
  for (const auto& r : records) encoded.push_back(streams::encode_record(r));
  const append_token token = ctx_.appends_issued() + 1;
  pending_.emplace(token, pending_write{group_id, std::move(before), std::move(records)});
  ctx_.append(std::move(encoded), [this, token, answer = std::move(answer)](error_code e, int64_t now_ms) {
    if (e != error_code::none) roll_back(token, now_ms);
    pending_.erase(token);
    if (answer) answer(e);
  });
}

void streams_groups::roll_back(append_token token, int64_t now_ms) {
  auto failed = pending_.find(token);
  if (failed == pending_.end()) return;
  const std::string& group_id = failed->second.group_id;
  manager_.restore(group_id, failed->second.before, now_ms);
  // Writes after this one may still succeed: the group is what they leave.
  for (auto later = std::next(failed); later != pending_.end(); ++later) {
    if (later->second.group_id != group_id) continue;
    later->second.before = manager_.snapshot(group_id);
    for (const auto& r : later->second.records) (void)manager_.replay(r);
  }
  manager_.restore(group_id, manager_.snapshot(group_id), now_ms);
}

std::vector<msg::streams_group_describe_response::described_group> streams_groups::describe(
    const std::vector<std::string>& group_ids) const {
  return describe_each<msg::streams_group_describe_response::described_group>(
      ctx_, group_ids, [this](const std::string& id) { return manager_.group(id); },
      [](const streams::streams_group& g) { return streams::describe(g); });
}

void streams_groups::list(const std::vector<std::string>& states,
                          std::vector<msg::list_groups_response::listed_group>& out) const {
  list_groups_of(manager_.groups(), states, "streams",
                 [](const streams::streams_group& g) { return streams::to_string(g.state()); }, out);
}

void streams_groups::tick(int64_t now_ms) {
  if (!ctx_.active()) return;
  for (auto& t : manager_.delayed_targets(now_ms)) write({}, t.group_id, std::move(t.before), std::move(t.records), nullptr);
  for (const auto& id : manager_.groups_with_ended_sessions(now_ms)) {
    auto before = manager_.snapshot(id);
    auto expired = manager_.expire_sessions_of(id, now_ms);
    if (!expired.empty()) write({}, id, std::move(before), std::move(expired), nullptr);
  }
}

void streams_groups::clear() {
  manager_.clear();
  pending_.clear();
}

}  // namespace hw::broker::group
