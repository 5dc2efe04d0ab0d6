// kafka-consumer-groups.sh --reset-offsets: the partitions in scope (--topic
// or --all-topics), validated as Kafka validates them, the new offset of each
// by the chosen specification (clamped to the log as Kafka clamps it), then
// printed as a plan (--dry-run, the default) or committed (--execute) while
// the group is inactive.

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

const char* const k_execution_exception = "java.util.concurrent.ExecutionException: ";

using offsets = std::vector<std::pair<topic_partition, int64_t>>;

// A WARN line as Kafka's log4j setup writes it to stderr.
void log_warning(std::ostream& err, const std::string& message) {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&t, &local);
  err << '[' << std::put_time(&local, "%Y-%m-%d %H:%M:%S") << ',' << std::setw(3) << std::setfill('0') << ms
      << "] WARN " << message << " (org.apache.kafka.tools.OffsetsUtils)\n";
}

std::vector<topic_partition> keys_of(const offsets& v) {
  std::vector<topic_partition> out;
  for (const auto& [tp, o] : v) out.push_back(tp);
  return out;
}

// A map built from these entries, iterated as Kafka's HashMap iterates it
// (capacity 0: filled one put at a time).
offsets in_hash_order(const offsets& v, size_t capacity = 0) {
  std::map<topic_partition, int64_t> by_key(v.begin(), v.end());
  offsets out;
  for (const auto& tp : java_hash_order(keys_of(v), capacity)) out.emplace_back(tp, by_key[tp]);
  return out;
}

class resetter {
 public:
  resetter(group_client& client, const command& cmd, tool_io io) : client_(client), cmd_(cmd), io_(io) {}

  // resetOffsetsForInactiveGroup: the plan, committed unless a dry run.
  offsets reset_inactive(const std::string& group) {
    const auto partitions = partitions_to_reset(group);
    check_valid(partitions);
    offsets plan = prepare(group, partitions);
    const bool dry_run = cmd_.has("dry-run") || !cmd_.has("execute");
    kafka_error error;
    if (!dry_run && !plan.empty() && !client_.commit_offsets(group, plan, &error)) throw command_failure{error.message};
    return plan;
  }

 private:
  std::map<topic_partition, std::optional<std::pair<int64_t, int32_t>>> committed(const std::string& group) {
    group_client::committed list;
    kafka_error error;
    if (!client_.committed_offsets(group, &list, &error)) throw command_failure{k_execution_exception + error.str()};
    return {list.begin(), list.end()};
  }

  std::vector<topic_partition> partitions_to_reset(const std::string& group) {
    if (cmd_.has("all-topics")) {
      group_client::committed list;
      kafka_error error;
      if (!client_.committed_offsets(group, &list, &error)) throw command_failure{k_execution_exception + error.str()};
      std::vector<topic_partition> out;
      for (const auto& [tp, v] : list) out.push_back(tp);
      return java_hash_order(out);
    }
    if (!cmd_.has("topic")) throw usage_failure{"One of the reset scopes should be defined: --all-topics, --topic."};
    std::vector<topic_partition> out;
    std::vector<std::string> whole;
    for (const auto& arg : cmd_.opts.values("topic")) {
      std::string bad;
      if (arg.find(':') == std::string::npos) {
        whole.push_back(arg);
      } else if (!parse_topic_with_partitions(arg, &out, &bad)) {
        throw usage_failure{bad};
      }
    }
    if (!whole.empty()) {
      const auto described = client_.describe_topics(whole);
      for (const auto& [name, result] : described)
        if (auto* e = std::get_if<kafka_error>(&result)) throw command_failure{e->message};
      std::vector<std::string> names;
      for (const auto& [name, result] : described) names.push_back(name);
      for (const auto& name : java_hash_order(names))
        for (const auto& p : std::get<get_offsets::topic_info>(described.at(name)).partitions)
          out.push_back({name, p.partition});
    }
    std::vector<topic_partition> unique;
    std::set<topic_partition> seen;
    for (const auto& tp : out)
      if (seen.insert(tp).second) unique.push_back(tp);
    return unique;
  }

  // checkAllTopicPartitionsValid: every partition exists and has a leader.
  void check_valid(const std::vector<topic_partition>& partitions) {
    std::set<std::string> topics;
    for (const auto& tp : partitions) topics.insert(tp.topic);
    const auto described = client_.describe_topics({topics.begin(), topics.end()});
    std::map<topic_partition, int32_t> leaders;
    std::vector<std::string> names;
    for (const auto& [name, result] : described) {
      if (auto* e = std::get_if<kafka_error>(&result)) throw command_failure{k_execution_exception + e->str()};
      names.push_back(name);
      for (const auto& p : std::get<get_offsets::topic_info>(result).partitions) leaders[{name, p.partition}] = p.leader;
    }
    std::string missing, leaderless;
    for (const auto& tp : partitions)
      if (!leaders.count(tp)) missing += (missing.empty() ? "" : ",") + tp.str();
    if (!missing.empty()) throw command_failure{"The partitions \"" + missing + "\" do not exist"};
    std::set<topic_partition> wanted(partitions.begin(), partitions.end());
    for (const auto& name : java_hash_order(names))
      for (const auto& p : std::get<get_offsets::topic_info>(described.at(name)).partitions)
        if (p.leader < 0 && wanted.count({name, p.partition}))
          leaderless += (leaderless.empty() ? "" : ",") + topic_partition{name, p.partition}.str();
    if (!leaderless.empty()) throw command_failure{"The partitions \"" + leaderless + "\" have no leader"};
  }

  std::map<topic_partition, int64_t> log_offsets(const std::vector<topic_partition>& partitions, int64_t spec) {
    std::map<topic_partition, int64_t> out;
    kafka_error error;
    if (!partitions.empty() && !client_.list_offsets(partitions, spec, &out, &error))
      throw command_failure{k_execution_exception + error.str()};
    return out;
  }

  offsets at_spec(const std::vector<topic_partition>& partitions, int64_t spec) {
    auto found = log_offsets(partitions, spec);
    offsets out;
    for (const auto& tp : partitions) out.emplace_back(tp, found[tp]);
    return in_hash_order(out);
  }

  // checkOffsetsRange: offsets past the log end or before its start are
  // moved to them, with Kafka's warning.
  offsets clamp(const offsets& requested) {
    const auto keys = keys_of(requested);
    auto starts = log_offsets(keys, -2);
    auto ends = log_offsets(keys, -1);
    offsets out;
    for (const auto& [tp, offset] : in_hash_order(requested)) {
      int64_t value = offset;
      if (offset > ends[tp]) {
        value = ends[tp];
        log_warning(io_.err, "New offset (" + std::to_string(offset) + ") is higher than latest offset for topic partition " +
                                 tp.str() + ". Value will be set to " + std::to_string(value) + ".");
      } else if (offset < starts[tp]) {
        value = starts[tp];
        log_warning(io_.err, "New offset (" + std::to_string(offset) + ") is lower than earliest offset for topic partition " +
                                 tp.str() + ". Value will be set to " + std::to_string(value) + ".");
      }
      out.emplace_back(tp, value);
    }
    return in_hash_order(out);
  }

  // getLogTimestampOffsets: partitions without a record at or after the
  // time fall back to their log end, with Kafka's warning on stdout.
  offsets at_time(const std::vector<topic_partition>& partitions, int64_t timestamp) {
    auto found = log_offsets(partitions, timestamp);
    offsets out;
    std::vector<topic_partition> empty;
    for (const auto& tp : java_hash_order(partitions)) {
      if (found[tp] != -1) {
        out.emplace_back(tp, found[tp]);
      } else {
        empty.push_back(tp);
      }
    }
    empty = java_hash_order(empty);
    for (const auto& tp : empty)
      io_.out << "\nWarn: Partition " << tp.partition << " from topic " << tp.topic
              << " is empty. Falling back to latest known offset.\n";
    auto ends = log_offsets(empty, -1);
    for (const auto& tp : empty) out.emplace_back(tp, ends[tp]);
    std::map<topic_partition, int64_t> by_key(out.begin(), out.end());
    offsets ordered;
    for (const auto& tp : partitions) ordered.emplace_back(tp, by_key[tp]);
    return in_hash_order(ordered);
  }

  offsets prepare(const std::string& group, const std::vector<topic_partition>& partitions) {
    if (cmd_.has("to-offset")) {
      offsets requested;
      for (const auto& tp : partitions) requested.emplace_back(tp, *cmd_.to_offset);
      return clamp(requested);
    }
    if (cmd_.has("to-earliest")) return at_spec(partitions, -2);
    if (cmd_.has("to-latest")) return at_spec(partitions, -1);
    if (cmd_.has("shift-by")) {
      const auto current = committed(group);
      offsets requested;
      for (const auto& tp : partitions) {
        auto it = current.find(tp);
        if (it == current.end() || !it->second)
          throw usage_failure{"Cannot shift offset for partition " + tp.str() + " since there is no current committed offset"};
        requested.emplace_back(tp, it->second->first + *cmd_.shift_by);
      }
      return clamp(requested);
    }
    if (cmd_.has("to-datetime")) {
      int64_t timestamp = 0;
      std::string bad;
      if (!parse_datetime(*cmd_.opts.value("to-datetime"), &timestamp, &bad)) throw command_failure{bad};
      return at_time(partitions, timestamp);
    }
    if (cmd_.has("by-duration")) {
      __int128 nanos = 0;
      if (!parse_duration(*cmd_.opts.value("by-duration"), &nanos)) throw command_failure{"Text cannot be parsed to a Duration"};
      const __int128 now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count();
      __int128 at = now - nanos;
      const __int128 ms = at >= 0 ? at / 1000000 : -((-at + 999999) / 1000000);
      return at_time(partitions, static_cast<int64_t>(ms));
    }
    if (cmd_.has("to-current")) {
      const auto current = committed(group);
      offsets out;
      std::vector<topic_partition> without;
      for (const auto& tp : partitions) {
        auto it = current.find(tp);
        if (it != current.end() && it->second) {
          out.emplace_back(tp, it->second->first);
        } else {
          without.push_back(tp);
        }
      }
      // Kafka puts the log ends into the map of committed ones with putAll,
      // which sizes the table differently when that map is empty.
      const size_t capacity = java_put_all_capacity(out.size(), without.size());
      without = java_hash_order(without);
      auto ends = log_offsets(without, -1);
      for (const auto& tp : without) out.emplace_back(tp, ends[tp]);
      return in_hash_order(out, capacity);
    }
    // Kafka names the scenarios from a Set whose order varies from run to run; this is one of them.
    throw usage_failure{"Option '[reset-offsets]' requires one of the following scenarios: [[to-current], [to-latest], "
                        "[by-duration], [to-datetime], [from-file], [shift-by], [to-offset], [to-earliest]]"};
  }

  group_client& client_;
  const command& cmd_;
  tool_io io_;
};

}  // namespace

void reset_offsets(group_client& client, const command& cmd, tool_io io) {
  std::vector<std::string> ids = cmd.groups;
  if (cmd.has("all-groups")) {
    kafka_error error;
    if (!client.list_consumer_groups(&ids, &error)) throw command_failure{k_execution_exception + error.str()};
  }
  std::vector<std::string> unique;
  for (const auto& id : ids)
    if (std::find(unique.begin(), unique.end(), id) == unique.end()) unique.push_back(id);
  unique = java_hash_order(unique);
  auto described = client.describe(unique);
  resetter r(client, cmd, io);
  reset_plan plan;
  for (const auto& id : unique) {
    const auto& d = described.at(id);
    if (const auto* e = std::get_if<kafka_error>(&d)) {
      if (e->code != 69) throw command_failure{k_execution_exception + e->str()};
      plan.emplace_back(id, r.reset_inactive(id));  // no such group: it can take offsets
      continue;
    }
    const group_state state = std::get<group_info>(d).state;
    if (state == group_state::empty || state == group_state::dead) {
      plan.emplace_back(id, r.reset_inactive(id));
    } else {
      print_error(io.out, "Assignments can only be reset if the group '" + id +
                              "' is inactive, but the current state is " + state_name(state) + ".");
      plan.emplace_back(id, offsets{});
    }
  }
  if (cmd.has("export")) {
    io.out << format_reset_csv(plan, cmd.groups.size() != 1);
  } else {
    io.out << format_reset_plan(plan);
  }
}

}  // namespace hw::tools::groups
