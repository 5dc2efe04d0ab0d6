#include "broker/group/legacy_forms.h"

namespace hw::broker::group {

namespace msg = protocol::msg;

msg::offset_fetch_request::offset_fetch_request_group legacy_offset_fetch_group(const msg::offset_fetch_request& request) {
  msg::offset_fetch_request::offset_fetch_request_group g;
  g.group_id = request.group_id;
  g.topics.reset();
  if (request.topics) {
    g.topics = std::vector<msg::offset_fetch_request::offset_fetch_request_topics>{};
    for (const auto& t : *request.topics) {
      msg::offset_fetch_request::offset_fetch_request_topics gt;
      gt.name = t.name;
      gt.partition_indexes = t.partition_indexes;
      g.topics->push_back(std::move(gt));
    }
  }
  return g;
}

void fill_legacy_offset_fetch(msg::offset_fetch_response& out, const offset_fetch_group_response& group,
                              int16_t version) {
  out.error_code = group.error_code;
  for (const auto& t : group.topics) {
    msg::offset_fetch_response::offset_fetch_response_topic lt;
    lt.name = t.name;
    for (const auto& p : t.partitions) {
      msg::offset_fetch_response::offset_fetch_response_partition lp;
      lp.partition_index = p.partition_index;
      if (version < 2 && group.error_code != 0) {
        lp.error_code = group.error_code;
        lp.committed_offset = -1;
        lp.committed_leader_epoch = -1;
        lp.metadata = "";
      } else {
        lp.error_code = p.error_code;
        lp.committed_offset = p.committed_offset;
        lp.committed_leader_epoch = p.committed_leader_epoch;
        lp.metadata = p.metadata;
      }
      lt.partitions.push_back(std::move(lp));
    }
    out.topics.push_back(std::move(lt));
  }
}

msg::leave_group_request leave_group_members(const msg::leave_group_request& request, int16_t version) {
  if (version >= 3) return request;
  msg::leave_group_request out;
  out.group_id = request.group_id;
  msg::leave_group_request::member_identity who;
  who.member_id = request.member_id;
  out.members.push_back(std::move(who));
  return out;
}

void fold_legacy_leave(msg::leave_group_response& response, int16_t version) {
  if (version >= 3) return;
  if (response.error_code == 0 && !response.members.empty()) response.error_code = response.members.front().error_code;
  response.members.clear();
}

}  // namespace hw::broker::group
