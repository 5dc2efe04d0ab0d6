// kafka-consumer-groups.sh --list, --describe (offsets, --members, --state),
// --delete and --delete-offsets: the same requests Kafka's tool makes, its
// messages on the same streams, its tables in its order (groups sorted by
// id, partitions by topic and number, HashMap order where Kafka prints one).

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "protocol/error_code.h"
#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

const char* const k_missing = "-";
const char* const k_execution_exception = "java.util.concurrent.ExecutionException: ";

std::vector<std::string> unique_in_order(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const auto& s : v)
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

std::vector<std::string> sorted_java(std::vector<std::string> v) {
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return java::less(a, b); });
  return v;
}

// The groups an action applies to: --all-groups lists them.
std::vector<std::string> target_groups(group_client& client, const command& cmd) {
  if (!cmd.has("all-groups")) return cmd.groups;
  std::vector<std::string> ids;
  kafka_error error;
  if (!client.list_consumer_groups(&ids, &error)) throw command_failure{k_execution_exception + error.str()};
  return ids;
}

// describeConsumerGroups(...) then get() on each, in the order of the
// HashMap Kafka's admin returns: the first failure ends the command.
std::map<std::string, group_info> describe_all(group_client& client, const std::vector<std::string>& ids) {
  auto described = client.describe(ids);
  std::map<std::string, group_info> out;
  for (const auto& id : java_hash_order(unique_in_order(ids))) {
    auto& d = described.at(id);
    if (auto* e = std::get_if<kafka_error>(&d)) throw command_failure{e->str()};
    out.emplace(id, std::get<group_info>(d));
  }
  return out;
}

// Kafka's shouldPrintMemberState: its messages, and whether to print the table.
bool should_print(const std::string& group, group_state state, std::optional<size_t> rows, tool_io io) {
  if (!rows) {
    print_error(io.out, "The consumer group '" + group + "' does not exist.");
    return false;
  }
  switch (state) {
    case group_state::dead:
      print_error(io.out, "Consumer group '" + group + "' does not exist.");
      break;
    case group_state::empty:
      io.err << "\nConsumer group '" << group << "' has no active members.\n";
      break;
    case group_state::preparing_rebalance:
    case group_state::completing_rebalance:
    case group_state::assigning:
    case group_state::reconciling:
      io.err << "\nWarning: Consumer group '" << group << "' is rebalancing.\n";
      break;
    case group_state::stable:
      break;
    default:
      io.out.flush();
      throw command_failure{"Expected a valid consumer group state, but found '" + state_name(state) + "'."};
  }
  return state != group_state::dead && *rows > 0;
}

using committed_map = std::map<topic_partition, std::optional<std::pair<int64_t, int32_t>>>;

committed_map committed_of(group_client& client, const std::string& group) {
  group_client::committed list;
  kafka_error error;
  if (!client.committed_offsets(group, &list, &error)) throw command_failure{k_execution_exception + error.str()};
  return committed_map(list.begin(), list.end());
}

// The partitions among these that have no leader (filterNoneLeaderPartitions).
std::set<topic_partition> leaderless(group_client& client, const std::vector<topic_partition>& partitions) {
  std::set<std::string> topics;
  for (const auto& tp : partitions) topics.insert(tp.topic);
  std::set<topic_partition> out;
  for (const auto& [name, result] : client.describe_topics({topics.begin(), topics.end()})) {
    if (auto* e = std::get_if<kafka_error>(&result)) throw command_failure{k_execution_exception + e->str()};
    for (const auto& p : std::get<get_offsets::topic_info>(result).partitions)
      if (p.leader < 0) out.insert({name, p.partition});
  }
  return out;
}

// The rows of one member (or of the unassigned partitions): describePartitions.
std::vector<offset_row> partition_rows(group_client& client, const std::string& group,
                                       const std::vector<topic_partition>& partitions, const committed_map& committed,
                                       const std::string& consumer, const std::string& host, const std::string& client_id) {
  const auto no_leader = leaderless(client, partitions);
  std::vector<topic_partition> with_leader;
  for (const auto& tp : partitions)
    if (!no_leader.count(tp)) with_leader.push_back(tp);
  std::map<topic_partition, int64_t> ends;
  kafka_error error;
  if (!with_leader.empty() && !client.list_offsets(with_leader, -1, &ends, &error))
    throw command_failure{k_execution_exception + error.str()};
  std::vector<offset_row> rows;
  for (const auto& tp : partitions) {
    offset_row r{group, tp.topic, tp.partition, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                 consumer, host, client_id};
    if (auto it = committed.find(tp); it != committed.end() && it->second) {
      r.offset = it->second->first;
      if (it->second->second != -1) r.leader_epoch = it->second->second;
    }
    if (auto it = ends.find(tp); it != ends.end()) r.log_end_offset = it->second;
    if (r.offset && *r.offset != -1 && r.log_end_offset) r.lag = *r.log_end_offset - *r.offset;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const offset_row& a, const offset_row& b) {
    if (*a.topic != *b.topic) return java::less(*a.topic, *b.topic);
    return *a.partition < *b.partition;
  });
  return rows;
}

// collectGroupsOffsets for one group: members with partitions (most first),
// then the committed partitions no member holds.
std::vector<offset_row> offset_rows(group_client& client, const group_info& g) {
  const committed_map committed = committed_of(client, g.group_id);
  std::vector<const member_info*> members;
  for (const auto& m : g.members)
    if (!m.assignment.empty()) members.push_back(&m);
  std::stable_sort(members.begin(), members.end(),
                   [](const member_info* a, const member_info* b) { return a->assignment.size() > b->assignment.size(); });
  std::vector<offset_row> rows;
  std::set<topic_partition> assigned;
  for (const member_info* m : members) {
    assigned.insert(m->assignment.begin(), m->assignment.end());
    auto more = partition_rows(client, g.group_id, m->assignment, committed, m->consumer_id, m->host, m->client_id);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  std::vector<topic_partition> unassigned;
  for (const auto& [tp, value] : committed)
    if (!assigned.count(tp)) unassigned.push_back(tp);
  if (!unassigned.empty()) {
    auto more = partition_rows(client, g.group_id, unassigned, committed, k_missing, k_missing, k_missing);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  return rows;
}

std::vector<member_row> member_rows(const group_info& g) {
  std::vector<member_row> rows;
  for (const auto& m : g.members) {
    member_row r;
    r.group = g.group_id;
    r.consumer_id = m.consumer_id;
    r.host = m.host;
    r.client_id = m.client_id;
    r.instance_id = m.instance_id.value_or("");
    r.partitions = m.assignment.size();
    r.assignment = m.assignment;
    r.target_assignment = m.target_assignment.value_or(std::vector<topic_partition>{});
    r.current_epoch = m.member_epoch;
    r.target_epoch = g.target_assignment_epoch;
    r.upgraded = m.upgraded;
    rows.push_back(std::move(r));
  }
  return rows;
}

void describe_offsets(group_client& client, const std::map<std::string, group_info>& groups, bool verbose,
                      tool_io io) {
  std::vector<std::string> ids;
  for (const auto& [id, g] : groups) ids.push_back(id);
  // Kafka collects every group's rows (in its HashMap's order) before printing any.
  std::map<std::string, std::vector<offset_row>> rows;
  for (const auto& id : java_hash_order(ids)) rows[id] = offset_rows(client, groups.at(id));
  for (const auto& id : sorted_java(ids))
    if (should_print(id, groups.at(id).state, rows[id].size(), io)) io.out << format_offsets(rows[id], verbose);
}

}  // namespace

void print_error(std::ostream& out, const std::string& message) { out << "\nError: " << message << '\n'; }

void list_groups(group_client& client, const command& cmd, tool_io io) {
  const bool with_type = cmd.has("type"), with_state = cmd.has("state");
  if (!with_type && !with_state) {
    std::vector<std::string> ids;
    kafka_error error;
    if (!client.list_consumer_groups(&ids, &error)) throw command_failure{k_execution_exception + error.str()};
    for (const auto& id : ids) io.out << id << '\n';
    return;
  }
  std::vector<std::string> types, states;
  std::string bad;
  if (const auto& t = cmd.type_value; t && !t->empty() && !parse_type_list(*t, &types, &bad)) throw usage_failure{bad};
  if (const auto& s = cmd.state_value; s && !s->empty()) {
    std::vector<group_state> parsed;
    if (!parse_state_list(*s, &parsed, &bad)) throw usage_failure{bad};
    for (auto st : parsed) states.push_back(state_name(st));
  }
  std::vector<group_listing> listings;
  kafka_error error;
  if (!client.list_groups(states, types, &listings, &error)) throw command_failure{error.str()};
  io.out << format_group_list(listings, with_type, with_state);
}

void describe_groups(group_client& client, const command& cmd, tool_io io) {
  const auto groups = describe_all(client, target_groups(client, cmd));
  const bool verbose = cmd.has("verbose");
  if (cmd.has("offsets") || (!cmd.has("members") && !cmd.has("state"))) {
    describe_offsets(client, groups, verbose, io);
    return;
  }
  std::vector<std::string> ids;
  for (const auto& [id, g] : groups) ids.push_back(id);
  for (const auto& id : sorted_java(ids)) {
    const group_info& g = groups.at(id);
    if (cmd.has("members")) {
      const auto rows = member_rows(g);
      const bool sized = should_print(id, g.state, rows.size(), io);
      io.out << format_members(rows, verbose, sized);
    } else if (should_print(id, g.state, 1, io)) {
      io.out << format_state(g, verbose);
    }
  }
}

void delete_groups(group_client& client, const command& cmd, tool_io io) {
  const auto ids = java_hash_order(unique_in_order(target_groups(client, cmd)));
  const auto results = client.delete_groups(ids);
  std::vector<std::string> deleted, failed;
  for (const auto& id : ids) (results.at(id) ? failed : deleted).push_back(id);
  auto quoted = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", '" : "'") + v[i] + "'";
    return s;
  };
  if (failed.empty()) {
    io.out << "Deletion of requested consumer groups (" << quoted(java_hash_order(deleted)) << ") was successful.\n";
    return;
  }
  print_error(io.out, "Deletion of some consumer groups failed:");
  for (const auto& id : java_hash_order(failed))
    io.out << "* Group '" << id << "' could not be deleted due to: " << results.at(id)->str() << '\n';
  if (!deleted.empty())
    io.out << "\nThese consumer groups were deleted successfully: " << quoted(java_hash_order(deleted)) << '\n';
}

void delete_offsets(group_client& client, const command& cmd, tool_io io) {
  const std::string group = cmd.groups.front();
  std::vector<std::string> with_partitions, whole_topics;
  for (const auto& t : unique_in_order(cmd.opts.values("topic")))
    (t.find(':') != std::string::npos ? with_partitions : whole_topics).push_back(t);
  std::vector<topic_partition> partitions;
  for (const auto& arg : java_hash_order(with_partitions)) {
    std::string bad;
    if (!parse_topic_with_partitions(arg, &partitions, &bad)) throw usage_failure{bad};
  }
  std::vector<std::pair<topic_partition, std::string>> results;
  for (const auto& [name, result] : client.describe_topics(whole_topics)) {
    if (auto* e = std::get_if<kafka_error>(&result)) {
      results.push_back({{name, -1}, e->str()});
      continue;
    }
    for (const auto& p : std::get<get_offsets::topic_info>(result).partitions) partitions.push_back({name, p.partition});
  }
  std::sort(partitions.begin(), partitions.end());
  partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
  partitions = java_hash_order(partitions);

  int16_t top = 0;
  std::map<topic_partition, int16_t> codes;
  kafka_error failure;
  const bool answered = client.delete_offsets(group, partitions, &top, &codes, &failure);
  if (!answered) top = failure.code;
  // all() fails with the group's error, else with the first failed partition's.
  int16_t reported = top;
  for (const auto& tp : partitions) {
    const int16_t code = top != 0 ? top : codes[tp];
    if (reported == 0) reported = code;
    std::string error;
    if (code != 0) error = answered ? error_of(code).str() : failure.str();
    results.emplace_back(tp, error);
  }
  switch (reported) {
    case 0:
      io.out << "Request succeeded for deleting offsets from group " << group << ".\n";
      break;
    case 24:  // INVALID_GROUP_ID
    case 69:  // GROUP_ID_NOT_FOUND
    case 30:  // GROUP_AUTHORIZATION_FAILED
    case 68:  // NON_EMPTY_GROUP
      print_error(io.out, error_message(reported));
      break;
    case 86:  // GROUP_SUBSCRIBED_TO_TOPIC
    case 29:  // TOPIC_AUTHORIZATION_FAILED
    case 3:   // UNKNOWN_TOPIC_OR_PARTITION
      print_error(io.out, "Encountered some partition-level error, see the follow-up details.");
      break;
    default:
      print_error(io.out, "Encountered some unknown error: " +
                              std::string(protocol::error_name(static_cast<protocol::error_code>(reported))));
  }
  io.out << format_delete_offsets(results);
}

}  // namespace hw::tools::groups
