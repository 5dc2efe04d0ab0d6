#include <algorithm>
#include <map>
#include <set>

#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "tools/commands/command.h"
#include "tools/commands/get_offsets_client.h"

namespace hw::tools::get_offsets {
namespace {

// Partition errors the Java client answers by looking the leader up again
// and retrying (ListOffsetsHandler): the leader moved or is not there yet.
bool retriable(int16_t code) {
  switch (code) {
    case 3:   // UNKNOWN_TOPIC_OR_PARTITION
    case 5:   // LEADER_NOT_AVAILABLE
    case 6:   // NOT_LEADER_OR_FOLLOWER
    case 9:   // REPLICA_NOT_AVAILABLE
    case 56:  // KAFKA_STORAGE_ERROR
    case 74:  // FENCED_LEADER_EPOCH
    case 76:  // UNKNOWN_LEADER_EPOCH
    case 78:  // OFFSET_NOT_AVAILABLE
      return true;
    default:
      return false;
  }
}

using leader_map = std::map<topic_partition, int32_t>;

// Leaders of the partitions' topics; partitions of an existing topic that
// the metadata lacks fail at once, as the Java client fails them.
bool find_leaders(admin_client& admin, const std::vector<topic_partition>& pending, leader_map* leaders,
                  std::map<topic_partition, offset_answer>* out, std::string* error) {
  std::set<std::string> names;
  for (const auto& tp : pending) names.insert(tp.topic);
  std::vector<topic_info> topics;
  if (!fetch_topics(admin, std::vector<std::string>(names.begin(), names.end()), &topics, error)) return false;
  std::map<std::string, const topic_info*> by_name;
  for (const auto& t : topics) by_name[t.name] = &t;
  leaders->clear();
  for (const auto& tp : pending) {
    auto it = by_name.find(tp.topic);
    if (it == by_name.end() || it->second->error != 0) continue;  // not known yet: retried
    const auto& parts = it->second->partitions;
    auto p = std::find_if(parts.begin(), parts.end(), [&](const partition_info& i) { return i.partition == tp.partition; });
    if (p == parts.end()) {
      (*out)[tp] = offset_answer{3, std::nullopt, -1};
      continue;
    }
    if (p->leader >= 0) (*leaders)[tp] = p->leader;
  }
  return true;
}

// One ListOffsets round to each leader; answers the partitions it settles.
void ask_leaders(admin_client& admin, const leader_map& leaders, int64_t timestamp,
                 std::map<topic_partition, offset_answer>* out) {
  std::map<int32_t, std::map<std::string, std::vector<int32_t>>> by_leader;
  for (const auto& [tp, leader] : leaders) by_leader[leader][tp.topic].push_back(tp.partition);
  for (const auto& [leader, topics] : by_leader) {
    protocol::msg::list_offsets_request req;
    req.replica_id = -1;
    req.isolation_level = 0;
    for (const auto& [name, partitions] : topics) {
      auto& t = req.topics.emplace_back();
      t.name = name;
      for (int32_t p : partitions) {
        auto& part = t.partitions.emplace_back();
        part.partition_index = p;
        part.timestamp = timestamp;
      }
    }
    protocol::msg::list_offsets_response resp;
    std::string error;
    int16_t version = 0;
    if (!admin.call(leader, req, &resp, &error, &version)) continue;  // retried while time is left
    for (const auto& t : resp.topics) {
      for (const auto& p : t.partitions) {
        topic_partition tp{t.name, p.partition_index};
        if (!leaders.count(tp) || retriable(p.error_code)) continue;
        offset_answer a;
        a.error = p.error_code;
        a.offset = p.offset;
        if (version == 0) a.offset = p.old_style_offsets.empty() ? -1 : p.old_style_offsets.front();
        (*out)[tp] = a;
      }
    }
  }
}

}  // namespace

std::string exception_class(int16_t code) { return java_exception_class(code); }

std::string exception_string(int16_t code, const std::optional<std::string>& broker_message) {
  return exception_class(code) + ": " + error_message(code, broker_message);
}

bool fetch_topics(admin_client& admin, const std::optional<std::vector<std::string>>& names,
                  std::vector<topic_info>* out, std::string* error) {
  protocol::msg::metadata_request req;
  if (names) {
    for (const auto& n : *names) req.topics->emplace_back().name = n;
  } else {
    req.topics.reset();
  }
  req.allow_auto_topic_creation = false;
  protocol::msg::metadata_response resp;
  // Versions from 10 name topics by id too; 1..12 all carry names.
  if (!admin.call(admin_client::any_node, req, &resp, error, nullptr, 12)) return false;
  std::set<int32_t> brokers;
  for (const auto& b : resp.brokers) brokers.insert(b.node_id);
  out->clear();
  for (const auto& t : resp.topics) {
    topic_info info;
    info.name = t.name.value_or("");
    info.error = t.error_code;
    info.internal = t.is_internal;
    for (const auto& p : t.partitions)
      info.partitions.push_back({p.partition_index, brokers.count(p.leader_id) ? p.leader_id : -1});
    std::sort(info.partitions.begin(), info.partitions.end(),
              [](const partition_info& a, const partition_info& b) { return a.partition < b.partition; });
    out->push_back(std::move(info));
  }
  return true;
}

bool list_offsets(admin_client& admin, const std::vector<topic_partition>& partitions, int64_t timestamp,
                  std::map<topic_partition, offset_answer>* out, std::string* error) {
  out->clear();
  std::set<topic_partition> wanted(partitions.begin(), partitions.end());
  auto pending = [&] {
    std::vector<topic_partition> left;
    for (const auto& tp : wanted)
      if (!out->count(tp)) left.push_back(tp);
    return left;
  };
  for (auto left = pending(); !left.empty(); left = pending()) {
    leader_map leaders;
    if (!find_leaders(admin, left, &leaders, out, error)) return false;
    ask_leaders(admin, leaders, timestamp, out);
    if (pending().empty()) break;
    if (!admin.back_off()) {
      for (const auto& tp : pending())
        (*out)[tp] = offset_answer{7, "Timed out waiting for a node assignment. Call: listOffsets", -1};
      break;
    }
  }
  return true;
}

}  // namespace hw::tools::get_offsets
