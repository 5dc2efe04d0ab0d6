#pragma once
// What the consumer and streams groups of a shard answer alike: a describe
// of each group id (the shard's error while it cannot answer, Kafka's
// GROUP_ID_NOT_FOUND for an id it does not hold) and their ListGroups
// entries under a states filter. Header-only; on the shard's strand.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/lower_trimmed.h"
#include "broker/group/shard_context.h"
#include "protocol/messages/list_groups.h"

namespace hw::broker::group {

// `find(id)` gives the group or null; `describe(group)` its description.
template <class Described, class Find, class Describe>
std::vector<Described> describe_each(const shard_context& ctx, const std::vector<std::string>& group_ids, Find find,
                                     Describe describe) {
  std::vector<Described> out;
  for (const auto& id : group_ids) {
    const auto* g = ctx.active() ? find(id) : nullptr;
    if (g) {
      out.push_back(describe(*g));
      continue;
    }
    auto& d = out.emplace_back();
    d.group_id = id;
    if (!ctx.active()) {
      d.error_code = static_cast<int16_t>(ctx.unavailable_error());
      continue;
    }
    d.error_code = static_cast<int16_t>(protocol::error_code::group_id_not_found);
    d.error_message = "Group " + id + " not found.";
  }
  return out;
}

// The groups (a map of id to group) whose state (`state_of(group)`, Kafka's
// name) the filter names (empty: all), as ListGroups lists them; `type` is
// both their protocol type and group type.
template <class Groups, class StateOf>
void list_groups_of(const Groups& groups, const std::vector<std::string>& states, std::string_view type,
                    StateOf state_of, std::vector<protocol::msg::list_groups_response::listed_group>& out) {
  std::vector<std::string> wanted;
  for (const auto& s : states) wanted.push_back(lower_trimmed(s));
  for (const auto& [id, g] : groups) {
    const std::string state(state_of(g));
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), lower_trimmed(state)) == wanted.end()) continue;
    protocol::msg::list_groups_response::listed_group l;
    l.group_id = id;
    l.protocol_type = std::string(type);
    l.group_state = state;
    l.group_type = std::string(type);
    out.push_back(std::move(l));
  }
}

}  // namespace hw::broker::group
