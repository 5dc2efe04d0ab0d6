// The tables kafka-consumer-groups.sh prints, byte for byte as Kafka's tool
// prints them: column widths from the data (at least Kafka's minimums),
// "%-Ns" padding (the last column too, where Kafka pads it), the leading
// and trailing line breaks of each block.

#include <algorithm>
#include <map>
#include <sstream>

#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

const char* const k_missing = "-";

// One line from (value, width) cells joined by single spaces; width 0: the
// value as is.
std::string row(const std::vector<std::pair<std::string, size_t>>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += ' ';
    line += pad(cells[i].first, cells[i].second);
  }
  return line;
}

template <class T>
std::string or_missing(const std::optional<T>& v) {
  if (!v) return k_missing;
  if constexpr (std::is_same_v<T, std::string>) {
    return *v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return *v ? "true" : "false";
  } else {
    return std::to_string(*v);
  }
}

std::string type_name(const std::string& type) {
  static const char* const names[] = {"Consumer", "Classic", "Share", "Streams"};
  std::string lowered = type;
  for (auto& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* n : names) {
    std::string l = n;
    for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == lowered) return n;
  }
  return "Unknown";
}

}  // namespace

std::string format_group_list(const std::vector<group_listing>& groups, bool with_type, bool with_state) {
  size_t width = 15;
  for (const auto& g : groups) width = std::max(width, java::length(g.group_id));
  width += 10;
  auto line = [&](const std::string& group, const std::string& type, const std::string& state) {
    std::vector<std::pair<std::string, size_t>> cells{{group, width}};
    if (with_type) cells.emplace_back(type, 20);
    if (with_state) cells.emplace_back(state, 20);
    return row(cells) + "\n";
  };
  std::string out = line("GROUP", "TYPE", "STATE");
  for (const auto& g : groups) out += line(g.group_id, type_name(g.type), state_name(parse_state(g.state)));
  return out;
}

std::string format_offsets(const std::vector<offset_row>& rows, bool verbose) {
  size_t group = 15, topic = 15, consumer = 15, host = 15;
  for (const auto& r : rows) {
    group = std::max(group, java::length(r.group));
    topic = std::max(topic, java::length(or_missing(r.topic)));
    consumer = std::max(consumer, java::length(or_missing(r.consumer_id)));
    host = std::max(host, java::length(or_missing(r.host)));
  }
  auto line = [&](std::vector<std::string> v) {
    std::vector<std::pair<std::string, size_t>> cells{{v[0], group}, {v[1], topic}, {v[2], 10}};
    const size_t numeric = verbose ? 4 : 3;  // [LEADER-EPOCH] CURRENT-OFFSET LOG-END-OFFSET LAG
    for (size_t i = 0; i < numeric; ++i) cells.emplace_back(v[3 + i], 15);
    cells.emplace_back(v[3 + numeric], consumer);
    cells.emplace_back(v[4 + numeric], host);
    cells.emplace_back(v[5 + numeric], 0);
    return "\n" + row(cells);
  };
  std::vector<std::string> header{"GROUP", "TOPIC", "PARTITION"};
  if (verbose) header.push_back("LEADER-EPOCH");
  header.insert(header.end(), {"CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"});
  std::string out = line(header);
  for (const auto& r : rows) {
    std::vector<std::string> v{r.group, or_missing(r.topic), or_missing(r.partition)};
    if (verbose) v.push_back(or_missing(r.leader_epoch));
    v.insert(v.end(), {or_missing(r.offset), or_missing(r.log_end_offset), or_missing(r.lag),
                       or_missing(r.consumer_id), or_missing(r.host), or_missing(r.client_id)});
    out += line(v);
  }
  return out + "\n";
}

std::string assignment_string(const std::vector<topic_partition>& assignment) {
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : assignment) by_topic[tp.topic].push_back(tp.partition);
  std::vector<std::string> parts;
  for (auto& [topic, partitions] : by_topic) {
    std::sort(partitions.begin(), partitions.end());
    std::string s = topic + ":";
    for (size_t i = 0; i < partitions.size(); ++i) s += (i ? "," : "") + std::to_string(partitions[i]);
    parts.push_back(std::move(s));
  }
  std::sort(parts.begin(), parts.end(), [](const std::string& a, const std::string& b) { return java::less(a, b); });
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ";" : "") + parts[i];
  return out;
}

std::string format_members(const std::vector<member_row>& rows, bool verbose, bool size_widths) {
  size_t group = 15, consumer = 15, instance = 17, host = 15, client = 15, current = 20, target = 20;
  bool with_instance = false, classic_member = false, consumer_member = false;
  auto assigned = [](const std::vector<topic_partition>& a) { return a.empty() ? k_missing : assignment_string(a); };
  if (size_widths) {
    for (const auto& r : rows) {
      group = std::max(group, java::length(r.group));
      consumer = std::max(consumer, java::length(r.consumer_id));
      instance = std::max(instance, java::length(r.instance_id));
      host = std::max(host, java::length(r.host));
      client = std::max(client, java::length(r.client_id));
      with_instance = with_instance || !r.instance_id.empty();
      current = std::max(current, java::length(assigned(r.assignment)));
      target = std::max(target, java::length(assigned(r.target_assignment)));
      classic_member = classic_member || (r.upgraded && !*r.upgraded);
      consumer_member = consumer_member || (r.upgraded && *r.upgraded);
    }
  }
  const bool with_upgraded = classic_member && consumer_member;
  auto line = [&](const std::vector<std::string>& member, const std::vector<std::string>& epochs) {
    std::vector<std::pair<std::string, size_t>> cells{{member[0], group}, {member[1], consumer}};
    if (with_instance) cells.emplace_back(member[2], instance);
    cells.insert(cells.end(), {{member[3], host}, {member[4], client}, {member[5], 15}});
    std::string out = row(cells) + " ";
    if (verbose) {
      std::vector<std::pair<std::string, size_t>> more{
          {epochs[0], 15}, {epochs[1], current}, {epochs[2], 15}, {epochs[3], target}};
      if (with_upgraded) more.emplace_back(epochs[4], 0);
      out += row(more);
    }
    return out;
  };
  std::string out = "\n" + line({"GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS"},
                                {"CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT", "UPGRADED"});
  out += "\n";
  for (const auto& r : rows) {
    out += line({r.group, r.consumer_id, r.instance_id, r.host, r.client_id, std::to_string(r.partitions)},
                         {or_missing(r.current_epoch), assigned(r.assignment), or_missing(r.target_epoch),
                          assigned(r.target_assignment), or_missing(r.upgraded)}) +
           "\n";
  }
  return out;
}

std::string format_state(const group_info& g, bool verbose) {
  const std::string coordinator = g.coordinator.address.host + ":" + std::to_string(g.coordinator.address.port) +
                                  "  (" + std::to_string(g.coordinator.id) + ")";
  const size_t coordinator_width = std::max<size_t>(25, java::length(coordinator));
  const size_t group_width = std::max<size_t>(15, java::length(g.group_id));
  const std::string strategy = g.assignor.empty() ? k_missing : g.assignor;
  auto line = [&](std::vector<std::string> v) {
    std::vector<std::pair<std::string, size_t>> cells{{v[0], group_width}, {v[1], coordinator_width}, {v[2], 20},
                                                      {v[3], 20}};
    if (verbose) cells.insert(cells.end(), {{v[4], 15}, {v[5], 25}});
    cells.emplace_back(v.back(), 0);
    return "\n" + row(cells);
  };
  std::string out = line({"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH",
                          "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"});
  out += line({g.group_id, coordinator, strategy, state_name(g.state), or_missing(g.group_epoch),
               or_missing(g.target_assignment_epoch), std::to_string(g.members.size())});
  return out + "\n";
}

std::string format_reset_plan(const reset_plan& plan) {
  size_t group = 15, topic = 15;
  for (const auto& [g, offsets] : plan) {
    group = std::max(group, java::length(g));
    for (const auto& [tp, offset] : offsets) topic = std::max(topic, java::length(tp.topic));
  }
  auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
    return "\n" + row({{a, group}, {b, topic}, {c, 10}, {d, 0}});
  };
  std::string out;
  if (!plan.empty()) out += line("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET");
  for (const auto& [g, offsets] : plan)
    for (const auto& [tp, offset] : offsets) out += line(g, tp.topic, std::to_string(tp.partition), std::to_string(offset));
  return out + "\n";
}

std::string format_reset_csv(const reset_plan& plan, bool with_group) {
  // Jackson's CSV writer quotes a value holding a character below '-' (the
  // separator, the quote, line breaks, ...), doubling quotes inside.
  auto csv = [](const std::string& v) {
    if (std::none_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < '-'; })) return v;
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out;
  for (const auto& [g, offsets] : plan) {
    for (const auto& [tp, offset] : offsets) {
      if (with_group) out += csv(g) + ",";
      out += csv(tp.topic) + "," + std::to_string(tp.partition) + "," + std::to_string(offset) + "\n";
    }
  }
  return out + "\n";
}

std::string format_delete_offsets(const std::vector<std::pair<topic_partition, std::string>>& results) {
  size_t topic = 15;
  for (const auto& [tp, error] : results) topic = std::max(topic, java::length(tp.topic));
  auto sorted = results;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return java::less(a.first.topic + std::to_string(a.first.partition), b.first.topic + std::to_string(b.first.partition));
  });
  auto line = [&](const std::string& a, const std::string& b, const std::string& c) {
    return "\n" + row({{a, topic}, {b, 10}, {c, 15}});
  };
  std::string out = line("TOPIC", "PARTITION", "STATUS");
  for (const auto& [tp, error] : sorted)
    out += line(tp.topic, tp.partition >= 0 ? std::to_string(tp.partition) : k_missing,
                error.empty() ? "Successful" : "Error: " + error);
  return out + "\n";
}

}  // namespace hw::tools::groups
