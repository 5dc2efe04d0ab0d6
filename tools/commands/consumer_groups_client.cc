// The group requests of kafka-consumer-groups.sh, each sent to the group's
// coordinator and answered as Kafka's admin client answers it: the
// coordinator looked up again when it moved, loading coordinators asked
// again, every wait bounded by the admin's deadline (--timeout).

#include <algorithm>
#include <set>

#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_protocol.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

constexpr int16_t k_load_in_progress = 14;
constexpr int16_t k_not_available = 15;
constexpr int16_t k_not_coordinator = 16;
constexpr int16_t k_unsupported_version = 35;
constexpr int16_t k_group_not_found = 69;

// The consumer protocol's assignment (version, then the struct): its
// partitions, each once.
bool decode_assignment(const std::vector<uint8_t>& bytes, std::vector<topic_partition>* out) {
  protocol::reader r(bytes);
  const int16_t version = r.read_int16();
  if (!r.ok() || version < 0) return false;
  protocol::msg::consumer_protocol_assignment a;
  a.decode(r, std::min<int16_t>(version, protocol::msg::consumer_protocol_assignment::schema.max_version));
  if (!r.ok()) return false;
  std::set<topic_partition> unique;
  for (const auto& t : a.assigned_partitions)
    for (int32_t p : t.partitions) unique.insert({t.topic, p});
  out->assign(unique.begin(), unique.end());
  return true;
}

template <class Assignment>
std::vector<topic_partition> partitions_of(const Assignment& a) {
  std::set<topic_partition> unique;
  for (const auto& t : a.topic_partitions)
    for (int32_t p : t.partitions) unique.insert({t.topic_name, p});
  return {unique.begin(), unique.end()};
}

// A retriable group error: true after forgetting a moved coordinator.
bool retry_group_error(int16_t code, std::map<std::string, node_info>* coordinators, const std::string& group) {
  if (code == k_not_coordinator || code == k_not_available) coordinators->erase(group);
  return code == k_load_in_progress || code == k_not_coordinator || code == k_not_available;
}

}  // namespace

bool group_client::coordinator(const std::string& group, const std::string& call, node_info* out,
                               kafka_error* error) {
  if (!admin_) {
    *error = timeout_error(call + "(api=FIND_COORDINATOR)");
    return false;
  }
  if (auto it = coordinators_.find(group); it != coordinators_.end()) {
    *out = it->second;
    return true;
  }
  protocol::msg::find_coordinator_request req;
  req.key = group;
  req.key_type = 0;
  req.coordinator_keys = {group};
  do {
    protocol::msg::find_coordinator_response resp;
    std::string why;
    int16_t version = 0;
    if (!admin_->call(admin_client::any_node, req, &resp, &why, &version)) continue;
    if (version >= 4 && !resp.coordinators.empty()) {
      const auto& c = resp.coordinators.front();
      resp.error_code = c.error_code;
      resp.error_message = c.error_message;
      resp.node_id = c.node_id;
      resp.host = c.host;
      resp.port = c.port;
    }
    if (resp.error_code == k_not_available || resp.error_code == k_load_in_progress) continue;
    if (resp.error_code != 0) {
      *error = error_of(resp.error_code, resp.error_message);
      return false;
    }
    *out = node_info{resp.node_id, {resp.host, static_cast<uint16_t>(resp.port)}, std::nullopt};
    coordinators_[group] = *out;
    return true;
  } while (admin_->back_off());
  *error = timeout_error(call + "(api=FIND_COORDINATOR)");
  return false;
}

bool group_client::list_groups(const std::vector<std::string>& states, const std::vector<std::string>& types,
                               std::vector<group_listing>* out, kafka_error* error) {
  out->clear();
  if (!admin_) {
    *error = {"org.apache.kafka.common.KafkaException", "Failed to find brokers to send ListGroups", -1};
    return false;
  }
  std::optional<kafka_error> first_error;
  for (const auto& node : admin_->nodes()) {
    protocol::msg::list_groups_request req;
    req.states_filter = states;
    req.types_filter = types;
    protocol::msg::list_groups_response resp;
    bool answered = false;
    do {
      std::string why;
      if (!admin_->call(node.id, req, &resp, &why)) continue;
      if (resp.error_code == k_load_in_progress || resp.error_code == k_not_available) continue;
      answered = true;
      break;
    } while (admin_->back_off());
    if (!answered) {
      *error = timeout_error("listGroups");
      return false;
    }
    if (resp.error_code != 0 && !first_error) first_error = error_of(resp.error_code);
    for (const auto& g : resp.groups) {
      // ListGroupsOptions.forConsumerGroups(): consumer groups and groups that only hold offsets.
      if (!g.protocol_type.empty() && g.protocol_type != "consumer") continue;
      out->push_back({g.group_id, g.group_type, g.group_state});
    }
  }
  if (first_error) {
    *error = *first_error;
    return false;
  }
  // The admin client keeps the listings in a HashMap by group id.
  std::map<std::string, group_listing> by_id;
  std::vector<std::string> ids;
  for (auto& l : *out) {
    if (!by_id.count(l.group_id)) ids.push_back(l.group_id);
    by_id[l.group_id] = std::move(l);
  }
  out->clear();
  for (const auto& id : java_hash_order(ids)) out->push_back(std::move(by_id[id]));
  return true;
}

bool group_client::list_consumer_groups(std::vector<std::string>* out, kafka_error* error) {
  std::vector<group_listing> listings;
  if (!list_groups({}, {"Classic", "Consumer"}, &listings, error)) return false;
  out->clear();
  for (auto& l : listings) out->push_back(std::move(l.group_id));
  return true;
}

std::map<std::string, std::variant<group_info, kafka_error>> group_client::describe(
    const std::vector<std::string>& groups) {
  std::map<std::string, std::variant<group_info, kafka_error>> out;
  for (const auto& g : groups)
    if (!out.count(g)) out.emplace(g, describe_one(g));
  return out;
}

std::variant<group_info, kafka_error> group_client::describe_one(const std::string& group) {
  bool classic = false;
  std::optional<std::string> not_found_message;
  do {
    node_info coord;
    kafka_error error;
    if (!coordinator(group, "describeConsumerGroups", &coord, &error)) return error;
    std::string why;
    connection* c = admin_->connection_to(coord.id, &why);
    if (!c) continue;
    if (!classic && c->version_for(protocol::msg::consumer_group_describe_request::schema.api_key, 0, 1)) {
      protocol::msg::consumer_group_describe_request req;
      req.group_ids = {group};
      protocol::msg::consumer_group_describe_response resp;
      if (!admin_->call(coord.id, req, &resp, &why) || resp.groups.empty()) continue;
      const auto& d = resp.groups.front();
      if (d.error_code == k_group_not_found || d.error_code == k_unsupported_version) {
        // Not a group of the new protocol: the classic API describes it.
        if (d.error_code == k_group_not_found) not_found_message = d.error_message;
        classic = true;
        continue;
      }
      if (retry_group_error(d.error_code, &coordinators_, group)) continue;
      if (d.error_code != 0) return error_of(d.error_code, d.error_message);
      group_info info{group, true, parse_state(d.group_state), d.assignor_name, coord, {}, d.group_epoch,
                      d.assignment_epoch};
      for (const auto& m : d.members) {
        member_info mi{m.member_id, m.instance_id, m.client_id, m.client_host, partitions_of(m.assignment),
                       partitions_of(m.target_assignment), m.member_epoch, std::nullopt};
        if (m.member_type != -1) mi.upgraded = m.member_type == 1;
        info.members.push_back(std::move(mi));
      }
      return info;
    }
    protocol::msg::describe_groups_request req;
    req.groups = {group};
    protocol::msg::describe_groups_response resp;
    if (!admin_->call(coord.id, req, &resp, &why) || resp.groups.empty()) continue;
    const auto& d = resp.groups.front();
    if (retry_group_error(d.error_code, &coordinators_, group)) continue;
    if (d.error_code == k_group_not_found)
      return error_of(d.error_code, not_found_message ? not_found_message : d.error_message);
    if (d.error_code != 0) return error_of(d.error_code, d.error_message);
    if (!d.protocol_type.empty() && d.protocol_type != "consumer")
      return kafka_error{"java.lang.IllegalArgumentException",
                         "GroupId " + group + " is not a consumer group (" + d.protocol_type + ")."};
    group_info info{group, false, parse_state(d.group_state), d.protocol_data, coord, {}, std::nullopt, std::nullopt};
    for (const auto& m : d.members) {
      member_info mi{m.member_id, m.group_instance_id, m.client_id, m.client_host, {}, std::nullopt, std::nullopt,
                     std::nullopt};
      if (!m.member_assignment.empty() && !decode_assignment(m.member_assignment, &mi.assignment))
        return kafka_error{"org.apache.kafka.common.protocol.types.SchemaException",
                           "Error reading the assignment of member " + m.member_id};
      info.members.push_back(std::move(mi));
    }
    return info;
  } while (admin_->back_off());
  return timeout_error("describeConsumerGroups");
}

bool group_client::committed_offsets(const std::string& group, committed* out, kafka_error* error) {
  do {
    node_info coord;
    if (!coordinator(group, "listConsumerGroupOffsets", &coord, error)) return false;
    protocol::msg::offset_fetch_request req;
    req.group_id = group;
    req.topics.reset();  // every partition the group committed
    auto& g = req.groups.emplace_back();
    g.group_id = group;
    g.topics.reset();
    protocol::msg::offset_fetch_response resp;
    std::string why;
    int16_t version = 0;
    // Version 10 names topics by id; the admin client asks by name.
    if (!admin_->call(coord.id, req, &resp, &why, &version, 9)) continue;
    int16_t code = resp.error_code;
    std::vector<std::pair<std::string, std::vector<protocol::msg::offset_fetch_response::offset_fetch_response_partitions>>> topics;
    if (version >= 8) {
      if (resp.groups.empty()) continue;
      code = resp.groups.front().error_code;
      for (const auto& t : resp.groups.front().topics) topics.emplace_back(t.name, t.partitions);
    } else {
      for (const auto& t : resp.topics) {
        auto& parts = topics.emplace_back(t.name, std::vector<protocol::msg::offset_fetch_response::offset_fetch_response_partitions>{}).second;
        for (const auto& p : t.partitions)
          parts.push_back({p.partition_index, p.committed_offset, p.committed_leader_epoch, p.metadata, p.error_code, {}});
      }
    }
    if (retry_group_error(code, &coordinators_, group)) continue;
    if (code != 0) {
      *error = error_of(code);
      return false;
    }
    out->clear();
    for (const auto& [name, partitions] : topics) {
      for (const auto& p : partitions) {
        if (p.error_code != 0) continue;  // Kafka skips (and logs) a partition it could not read
        std::optional<std::pair<int64_t, int32_t>> value;
        if (p.committed_offset >= 0) value = std::make_pair(p.committed_offset, p.committed_leader_epoch);
        out->emplace_back(topic_partition{name, p.partition_index}, value);
      }
    }
    return true;
  } while (admin_->back_off());
  *error = timeout_error("listConsumerGroupOffsets");
  return false;
}

bool group_client::commit_offsets(const std::string& group, const std::vector<std::pair<topic_partition, int64_t>>& offsets,
                                  kafka_error* error) {
  do {
    node_info coord;
    if (!coordinator(group, "alterConsumerGroupOffsets", &coord, error)) return false;
    protocol::msg::offset_commit_request req;
    req.group_id = group;
    req.generation_id_or_member_epoch = -1;
    for (const auto& [tp, offset] : offsets) {
      auto it = std::find_if(req.topics.begin(), req.topics.end(), [&](const auto& t) { return t.name == tp.topic; });
      if (it == req.topics.end()) {
        it = req.topics.emplace(req.topics.end());
        it->name = tp.topic;
      }
      auto& p = it->partitions.emplace_back();
      p.partition_index = tp.partition;
      p.committed_offset = offset;
    }
    protocol::msg::offset_commit_response resp;
    std::string why;
    // Version 10 names topics by id; the admin client commits by name.
    if (!admin_->call(coord.id, req, &resp, &why, nullptr, 9)) continue;
    std::map<topic_partition, int16_t> errors;
    bool retry = false;
    for (const auto& t : resp.topics) {
      for (const auto& p : t.partitions) {
        errors[{t.name, p.partition_index}] = p.error_code;
        retry = retry || retry_group_error(p.error_code, &coordinators_, group);
      }
    }
    if (retry) continue;
    for (const auto& [tp, offset] : offsets) {
      if (int16_t code = errors[tp]; code != 0) {
        *error = error_of(code);
        return false;
      }
    }
    return true;
  } while (admin_->back_off());
  *error = timeout_error("alterConsumerGroupOffsets");
  return false;
}

std::map<std::string, std::optional<kafka_error>> group_client::delete_groups(const std::vector<std::string>& groups) {
  std::map<std::string, std::optional<kafka_error>> out;
  for (const auto& group : groups) {
    if (out.count(group)) continue;
    std::optional<kafka_error> result = timeout_error("deleteConsumerGroups");
    do {
      node_info coord;
      kafka_error error;
      if (!coordinator(group, "deleteConsumerGroups", &coord, &error)) {
        result = error;
        break;
      }
      protocol::msg::delete_groups_request req;
      req.groups_names = {group};
      protocol::msg::delete_groups_response resp;
      std::string why;
      if (!admin_->call(coord.id, req, &resp, &why) || resp.results.empty()) continue;
      const int16_t code = resp.results.front().error_code;
      if (retry_group_error(code, &coordinators_, group)) continue;
      result = code == 0 ? std::nullopt : std::optional<kafka_error>(error_of(code));
      break;
    } while (admin_->back_off());
    out.emplace(group, result);
  }
  return out;
}

bool group_client::delete_offsets(const std::string& group, const std::vector<topic_partition>& partitions,
                                  int16_t* group_error, std::map<topic_partition, int16_t>* partition_errors,
                                  kafka_error* error) {
  do {
    node_info coord;
    if (!coordinator(group, "deleteConsumerGroupOffsets", &coord, error)) return false;
    protocol::msg::offset_delete_request req;
    req.group_id = group;
    for (const auto& tp : partitions) {
      auto it = std::find_if(req.topics.begin(), req.topics.end(), [&](const auto& t) { return t.name == tp.topic; });
      if (it == req.topics.end()) {
        it = req.topics.emplace(req.topics.end());
        it->name = tp.topic;
      }
      it->partitions.emplace_back().partition_index = tp.partition;
    }
    protocol::msg::offset_delete_response resp;
    std::string why;
    if (!admin_->call(coord.id, req, &resp, &why)) continue;
    if (retry_group_error(resp.error_code, &coordinators_, group)) continue;
    *group_error = resp.error_code;
    partition_errors->clear();
    for (const auto& t : resp.topics)
      for (const auto& p : t.partitions) (*partition_errors)[{t.name, p.partition_index}] = p.error_code;
    return true;
  } while (admin_->back_off());
  *error = timeout_error("deleteConsumerGroupOffsets");
  return false;
}

std::map<std::string, std::variant<get_offsets::topic_info, kafka_error>> group_client::describe_topics(
    const std::vector<std::string>& topics) {
  std::map<std::string, std::variant<get_offsets::topic_info, kafka_error>> out;
  if (topics.empty()) return out;
  std::vector<get_offsets::topic_info> infos;
  std::string why;
  if (!admin_ || !get_offsets::fetch_topics(*admin_, topics, &infos, &why)) {
    for (const auto& t : topics) out.emplace(t, timeout_error("listNodes"));
    return out;
  }
  for (auto& info : infos) {
    if (info.error != 0) {
      out.emplace(info.name, error_of(info.error, info.error_message));
    } else {
      out.emplace(info.name, std::move(info));
    }
  }
  for (const auto& t : topics)
    if (!out.count(t)) out.emplace(t, error_of(3));
  return out;
}

bool group_client::list_offsets(const std::vector<topic_partition>& partitions, int64_t timestamp,
                                std::map<topic_partition, int64_t>* out, kafka_error* error) {
  std::map<topic_partition, get_offsets::offset_answer> answers;
  std::string why;
  if (!admin_ || !get_offsets::list_offsets(*admin_, partitions, timestamp, &answers, &why)) {
    *error = timeout_error("listOffsets");
    return false;
  }
  out->clear();
  for (const auto& tp : partitions) {
    const auto& a = answers[tp];
    if (a.error != 0) {
      *error = error_of(a.error, a.error_message);
      return false;
    }
    (*out)[tp] = a.offset;
  }
  return true;
}

}  // namespace hw::tools::groups
