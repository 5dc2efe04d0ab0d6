// kafka-topics.sh --describe: the topics matching --topic (or the one
// --topic-id names), each as a topic line and its partition lines, or only
// the partitions a report flag asks for, or only the topics with overrides.

#include <algorithm>
#include <ostream>

#include "tools/commands/kafka_topics_admin.h"

namespace hw::tools::topics {
namespace {

// What the report flags ask for (TopicCommand's DescribeOptions).
struct report {
  bool under_replicated = false;
  bool unavailable = false;
  bool under_min_isr = false;
  bool at_min_isr = false;
  bool with_overrides = false;
  // Without a partition report flag, topics and all their partitions print.
  bool describe_configs() const { return !under_replicated && !unavailable && !under_min_isr && !at_min_isr; }
  bool describe_partitions() const { return !with_overrides; }
};

// min.insync.replicas as PartitionDescription.minIsrCount reads it.
bool min_isr_count(const topic_config& config, int* out, topic_error* error) {
  const config_entry* e = config.get("min.insync.replicas");
  if (!e) {
    *error = {"java.lang.NullPointerException",
              "Cannot invoke \"org.apache.kafka.clients.admin.ConfigEntry.value()\" because the return value of "
              "\"org.apache.kafka.clients.admin.Config.get(String)\" is null"};
    return false;
  }
  auto v = e->value ? java_parse_int(*e->value) : std::nullopt;
  if (!v) {
    *error = {"java.lang.NumberFormatException",
              e->value ? number_format_message(*e->value) : "Cannot parse null string: null"};
    return false;
  }
  *out = *v;
  return true;
}

// Whether a partition prints, in the order TopicCommand asks (it reads
// min.insync.replicas only where a flag needs it).
bool should_print(const report& r, const partition_view& p, const topic_config& config,
                  const std::vector<int32_t>& live, bool* print, topic_error* error) {
  int min_isr = 0;
  *print = r.describe_configs() || (r.under_replicated && under_replicated(p)) ||
           (r.unavailable && unavailable(p, live));
  if (!*print && r.under_min_isr) {
    if (!p.leader) {
      *print = true;
    } else {
      if (!min_isr_count(config, &min_isr, error)) return false;
      *print = under_min_isr(p, min_isr);
    }
  }
  if (!*print && r.at_min_isr) {
    if (!min_isr_count(config, &min_isr, error)) return false;
    *print = at_min_isr(p, min_isr);
  }
  return true;
}

bool print_topic(const report& r, const topic_description& td, const topic_config& config,
                 const reassignment_map& reassignments, const std::vector<int32_t>& live, std::ostream& out,
                 topic_error* error) {
  std::vector<partition_view> sorted = td.partitions;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.partition < b.partition; });
  for (auto& p : sorted)
    if (auto it = reassignments.find({td.name, p.partition}); it != reassignments.end()) p.reassigning = it->second;
  if (r.describe_configs()) {
    std::vector<std::pair<std::string, std::optional<std::string>>> overrides;
    for (const auto& e : config.entries)
      if (!e.is_default) overrides.emplace_back(e.name, e.value);
    if (!r.with_overrides || !overrides.empty()) {
      if (sorted.empty()) {
        *error = {"java.lang.IndexOutOfBoundsException", "Index 0 out of bounds for length 0"};
        return false;
      }
      out << topic_line(td.name, td.id, td.partitions.size(), replication_factor(sorted.front()), overrides) << '\n';
    }
  }
  if (!r.describe_partitions()) return true;
  for (const auto& p : sorted) {
    bool print = false;
    if (!should_print(r, p, config, live, &print, error)) return false;
    if (print) out << partition_line(td.name, p) << '\n';
  }
  return true;
}

// The topics to describe: by --topic-id when it names a non-zero id, else
// by --topic (all topics without one).
bool select_topics(const cli::option_set& opts, topic_admin& admin, std::vector<topic_description>* out,
                   topic_error* error) {
  const bool exclude_internal = opts.has("exclude-internal");
  const bool if_exists = opts.has("if-exists");
  std::optional<protocol::uuid> id;
  if (auto text = opts.value("topic-id")) {
    protocol::uuid parsed;
    if (!java_uuid_from_string(*text, &parsed, &error->message)) {
      error->java_class = "java.lang.IllegalArgumentException";
      return false;
    }
    if (!parsed.is_zero()) id = parsed;
  }
  if (id) {
    std::vector<topic_listing> listed;
    if (!admin.list_topics(!exclude_internal, &listed, error)) return false;
    const bool found = std::any_of(listed.begin(), listed.end(), [&](const auto& t) { return t.id == *id; });
    if (!found) {
      if (if_exists) return true;
      *error = {"java.lang.IllegalArgumentException", "TopicId '" + id->to_string() + "' does not exist as expected"};
      return false;
    }
    topic_description d;
    if (!admin.describe_topic_id(*id, &d, error)) return false;
    out->push_back(std::move(d));
    return true;
  }
  std::vector<std::string> names;
  if (!matching_topics(opts, admin, &names, error)) return false;
  if (names.empty()) return true;
  int32_t limit = 2000;
  if (auto text = opts.value("partition-size-limit-per-response")) {
    if (!option_int(*text, "partition-size-limit-per-response", &limit, error)) return false;
  }
  return admin.describe_topics(names, limit, out, error);
}

}  // namespace

bool describe_command(const cli::option_set& opts, topic_admin& admin, std::ostream& out, topic_error* error) {
  std::vector<topic_description> topics;
  if (!select_topics(opts, admin, &topics, error)) return false;
  if (topics.empty()) return true;
  std::vector<std::string> names;
  for (const auto& t : topics) names.push_back(t.name);
  std::map<std::string, topic_config> configs;
  std::vector<int32_t> live;
  reassignment_map reassignments;
  if (!admin.describe_configs(names, &configs, error) || !admin.live_brokers(&live, error) ||
      !admin.list_reassignments(topics, &reassignments, error))
    return false;
  report r;
  r.under_replicated = opts.has("under-replicated-partitions");
  r.unavailable = opts.has("unavailable-partitions");
  r.under_min_isr = opts.has("under-min-isr-partitions");
  r.at_min_isr = opts.has("at-min-isr-partitions");
  r.with_overrides = opts.has("topics-with-overrides");
  for (const auto& td : topics) {
    const topic_config& config = configs[td.name];
    if (config.error) {
      *error = *config.error;
      return false;
    }
    if (!print_topic(r, td, config, reassignments, live, out, error)) return false;
  }
  return true;
}

}  // namespace hw::tools::topics
