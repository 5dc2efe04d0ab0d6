// kafka-topics.sh: Kafka's TopicCommand, native. Its options and their
// checks (TopicCommandOptions.checkArgs, with the same messages, in the same
// order), then one of --create, --list, --alter, --delete (here) or
// --describe (kafka_topics_describe.cc).

#include <netdb.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <ostream>

#include "config/topic_configs.h"
#include "tools/commands/kafka_topics_admin.h"
#include "tools/commands/tools.h"

namespace hw::tools::topics {

// TopicCommand.getTopics: every topic (internal ones unless excluded),
// sorted, through the --topic filter when there is one.
bool get_topics(const cli::option_set& opts, topic_admin& admin, std::vector<std::string>* out, topic_error* error) {
  const bool exclude_internal = opts.has("exclude-internal");
  std::vector<topic_listing> listed;
  if (!admin.list_topics(!exclude_internal, &listed, error)) return false;
  std::vector<std::string> names;
  for (const auto& t : listed) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  out->clear();
  if (auto topic = opts.value("topic")) {
    include_list filter;
    if (!include_list::make(*topic, &filter, &error->message)) {
      error->java_class = "java.lang.RuntimeException";
      return false;
    }
    for (const auto& n : names)
      if (filter.allowed(n, exclude_internal)) out->push_back(n);
  } else {
    for (const auto& n : names)
      if (!(is_internal_topic(n) && exclude_internal)) out->push_back(n);
  }
  return true;
}

bool matching_topics(const cli::option_set& opts, topic_admin& admin, std::vector<std::string>* out,
                     topic_error* error) {
  if (!get_topics(opts, admin, out, error)) return false;
  const std::string topic = opts.value_or("topic", "");
  if (!topic.empty() && !opts.has("if-exists") && out->empty()) {
    *error = {"java.lang.IllegalArgumentException", "Topic '" + topic + "' does not exist as expected"};
    return false;
  }
  return true;
}

bool option_int(const std::string& text, const std::string& option, int32_t* out, topic_error* error) {
  // joptsimple converts with Integer.valueOf.
  auto v = java_parse_int(text);
  if (!v) {
    *error = {"joptsimple.OptionArgumentConversionException",
              "Cannot parse argument '" + text + "' of option " + option};
    return false;
  }
  *out = *v;
  return true;
}

}  // namespace hw::tools::topics

namespace hw::tools {
namespace {

using topics::topic_admin;
using topics::topic_error;

constexpr const char* alter_configs_hint = " (To alter topic configurations, the kafka-configs tool can be used.)";
constexpr const char* configs_tool_note = " (Topic configs are changed with kafka-configs.)";

std::string config_help() {
  std::string names;
  for (const auto& k : config::topic_config_keys()) names += "\t" + std::string(k.name) + "\n";
  return "Config override (name=value) for the new topic. Accepted names: \n" + names +
         "The Kafka documentation describes each of them. Only valid together with --create." + configs_tool_note;
}

cli::option_parser topic_options() {
  cli::option_parser p = default_options();
  p.option("bootstrap-server", "String: server to connect to", "REQUIRED: Broker address(es) to contact.");
  p.option("command-config", "String: command config property file",
           "Properties file with settings for the admin client.");
  p.flag("list", "Print the names of the topics.");
  p.flag("create", "Make a new topic.");
  p.flag("delete", "Remove a topic.");
  p.flag("alter", std::string("Change a topic's partition count or replica placement.") + configs_tool_note);
  p.flag("describe", "Print partition and configuration details of the chosen topics.");
  p.option("topic", "String: topic",
           "Topic to act on. Outside --create the name may be a regular expression.");
  p.option("topic-id", "String: topic-id", "Id of the topic to describe.");
  p.option("config", "String: name=value", config_help());
  p.option("delete-config", "String: name", "Not supported any more (deprecated since 4.0).");
  p.option("partitions", "Integer: # of partitions",
           "Partition count for a new or altered topic; without it, --create uses the cluster's default. "
           "(Caution: adding partitions to a keyed topic changes which partition a key maps to, and so message "
           "order.)");
  p.option("replication-factor", "Integer: replication factor",
           "Number of replicas per partition of a new topic; without it the cluster's default applies.");
  p.option("replica-assignment",
           "String: broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , broker_id_for_part2_replica1 : "
           "broker_id_for_part2_replica2 , ...",
           "Explicit broker list for each partition of a new or altered topic.");
  p.flag("under-replicated-partitions", "With --describe, list only partitions missing some replicas from the ISR.");
  p.flag("unavailable-partitions",
         "With --describe, list only partitions that have no available leader.");
  p.flag("under-min-isr-partitions",
         "With --describe, list only partitions whose ISR is smaller than min.insync.replicas.");
  p.flag("at-min-isr-partitions",
         "With --describe, list only partitions whose ISR size equals min.insync.replicas.");
  p.flag("topics-with-overrides", "With --describe, list only topics carrying non-default configs.");
  p.flag("if-exists",
         "With --alter, --delete or --describe, do nothing unless the topic is present.");
  p.flag("if-not-exists",
         "With --create, do not report an error when the topic is already there (the request is sent anyway).");
  p.flag("exclude-internal",
         "Leave internal topics out of --list and --describe; they are shown by default.");
  p.option("partition-size-limit-per-response", "Integer: maximum number of partitions per response",
           "Upper bound on the partitions returned by a single DescribeTopicPartitions call.");
  return p;
}

// checkInvalidArgs: an option and the ones it cannot be combined with, in
// the order TopicCommand checks them (the action first: exactly one is given).
struct invalid_combination {
  const char* used;
  std::vector<const char*> invalid;
};

const std::vector<invalid_combination>& invalid_combinations() {
  static const std::vector<const char*> report_excludes{"alter", "create", "list", "delete", "topics-with-overrides"};
  static const std::vector<invalid_combination> rules{
      {"config", {"describe", "list", "delete"}},
      {"partitions", {"describe", "list", "delete"}},
      {"replication-factor", {"alter", "describe", "list", "delete"}},
      {"replica-assignment", {"describe", "list", "delete"}},
      {"under-replicated-partitions", report_excludes},
      {"under-min-isr-partitions", report_excludes},
      {"at-min-isr-partitions", report_excludes},
      {"unavailable-partitions", report_excludes},
      {"topics-with-overrides",
       {"alter", "create", "list", "delete", "under-replicated-partitions", "under-min-isr-partitions",
        "at-min-isr-partitions", "unavailable-partitions"}},
      {"if-exists", {"create", "list"}},
      {"if-not-exists", {"alter", "describe", "list", "delete"}},
      {"exclude-internal", {"alter", "create", "delete"}},
  };
  return rules;
}

std::optional<std::string> combination_error(const cli::option_set& opts, const char* used,
                                             const std::vector<const char*>& invalid) {
  if (!opts.has(used)) return std::nullopt;
  for (const char* other : invalid)
    if (opts.has(other)) return std::string("Option \"[") + used + "]\" can't be used with option \"[" + other + "]\"";
  return std::nullopt;
}

// TopicCommandOptions.checkArgs after the help and version: the message of
// the first failed check (usage_error prints it with the usage), or nothing.
// *plain: printed alone, without the usage.
std::optional<std::string> check_args(const cli::option_set& opts, tool_io io, bool* plain) {
  const char* actions[] = {"create", "list", "alter", "describe", "delete"};
  if (std::count_if(std::begin(actions), std::end(actions), [&](const char* a) { return opts.has(a); }) != 1)
    return "Command must include exactly one action: --list, --describe, --create, --alter or --delete";
  if (opts.has("delete-config"))
    io.err << "delete-config option is no longer supported and deprecated since version 4.0. The config will be "
              "fully removed in future releases.\n";
  if (!opts.has("bootstrap-server")) {
    *plain = true;  // an IllegalArgumentException out of the constructor, not a usage error
    return "--bootstrap-server must be specified";
  }
  if (opts.has("describe") && opts.has("if-exists")) {
    if (!opts.has("topic") && !opts.has("topic-id")) return "--topic or --topic-id is required to describe a topic";
    if (opts.has("topic") && opts.has("topic-id"))
      io.out << "Only topic id will be used when both --topic and --topic-id are specified and topicId is not "
                "Uuid.ZERO_UUID\n";
  }
  if (!opts.has("list") && !opts.has("describe") && !opts.has("topic")) return "Missing required argument \"[topic]\"";
  if (opts.has("alter")) {
    // Kafka names the pair as a Set prints it, in an order that varies from run to run.
    if (opts.has("bootstrap-server") && opts.has("config"))
      return std::string("Option combination \"[[bootstrap-server], [config]]\" can't be used with option \"[alter]\"") +
             alter_configs_hint;
    if (!opts.has("partitions")) return "Missing required argument \"[partitions]\"";
  }
  for (const auto& rule : invalid_combinations()) {
    if (auto e = combination_error(opts, rule.used, rule.invalid)) return e;
    if (std::string_view(rule.used) == "replica-assignment" && opts.has("create"))
      if (auto e2 = combination_error(opts, "replica-assignment", {"partitions", "replication-factor"})) return e2;
  }
  return std::nullopt;
}

// "[2024-10-01 12:00:00,123] ERROR <exception>: <message>\n (class)": the log
// line Kafka's tool writes to stderr for what it prints on stdout.
void log_error(const topic_error& e, std::ostream& err) {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  char millis[8];
  std::snprintf(millis, sizeof millis, ",%03d", static_cast<int>(ms));
  err << '[' << stamp << millis << "] ERROR " << e.java_class << ": " << e.message
      << "\n (org.apache.kafka.tools.TopicCommand)\n";
}

bool create_command(const cli::option_set& opts, topic_admin& admin, std::ostream& out, topic_error* error) {
  topics::new_topic t;
  t.name = opts.value_or("topic", "");
  int32_t n = 0;
  if (opts.has("partitions")) {
    if (!topics::option_int(*opts.value("partitions"), "partitions", &n, error)) return false;
    t.partitions = n;
  }
  std::optional<int32_t> rf;
  if (opts.has("replication-factor")) {
    if (!topics::option_int(*opts.value("replication-factor"), "replication-factor", &n, error)) return false;
    rf = n;
  }
  if (auto text = opts.value("replica-assignment"); text && !text->empty())
    if (!topics::parse_replica_assignment(*text, &t.assignment, error)) return false;
  if (!topics::parse_topic_configs(opts.values("config"), &t.configs, error)) return false;
  if (topics::has_collision_chars(t.name))
    out << "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could "
           "collide. To avoid issues it is best to use either, but not both.\n";
  if (rf && (*rf > 32767 || *rf < 1)) {
    *error = {"java.lang.IllegalArgumentException", "The replication factor must be between 1 and 32767 inclusive"};
    return false;
  }
  if (t.partitions && *t.partitions < 1) {
    *error = {"java.lang.IllegalArgumentException", "The partitions must be greater than 0"};
    return false;
  }
  if (rf) t.replication_factor = static_cast<int16_t>(*rf);
  if (t.name.empty()) {
    *error = {"org.apache.kafka.common.errors.InvalidTopicException",
              "The given topic name '' cannot be represented in a request."};
    return false;
  }
  if (!admin.create_topic(t, error)) {
    // --if-not-exists: an existing topic is no error, and nothing prints.
    return error->java_class.ends_with(".TopicExistsException") && opts.has("if-not-exists");
  }
  out << "Created topic " << t.name << ".\n";
  return true;
}

bool list_command(const cli::option_set& opts, topic_admin& admin, std::ostream& out, topic_error* error) {
  std::vector<std::string> names;
  if (!topics::get_topics(opts, admin, &names, error)) return false;
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i ? "\n" : "") + names[i];
  out << text << '\n';  // no topics still print one empty line
  return true;
}

// The partitions --alter adds: the --replica-assignment entries past the
// topic's current partitions, in the order TopicCommand's HashMap<Integer>
// hands them over.
std::vector<std::vector<int32_t>> added_assignments(const std::vector<std::vector<int32_t>>& assignment,
                                                    size_t current) {
  java::hash_order map;
  for (size_t i = current; i < assignment.size(); ++i) map.put(static_cast<int32_t>(i), i);
  std::vector<std::vector<int32_t>> out;
  for (size_t i : map.order()) out.push_back(assignment[i]);
  return out;
}

bool alter_command(const cli::option_set& opts, topic_admin& admin, topic_error* error) {
  int32_t count = 0;
  if (!topics::option_int(*opts.value("partitions"), "partitions", &count, error)) return false;
  std::vector<std::vector<int32_t>> assignment;
  if (auto text = opts.value("replica-assignment"); text && !text->empty())
    if (!topics::parse_replica_assignment(*text, &assignment, error)) return false;
  std::vector<std::pair<std::string, std::string>> configs;
  if (!topics::parse_topic_configs(opts.values("config"), &configs, error)) return false;
  std::vector<std::string> names;
  if (!topics::matching_topics(opts, admin, &names, error)) return false;
  if (names.empty()) return true;
  std::vector<topics::new_partitions> requests;
  std::map<std::string, topics::topic_description> described;
  std::map<std::string, topic_error> failed;
  if (!assignment.empty() && !admin.describe_topics_each(names, 2000, &described, &failed, error)) return false;
  for (const auto& name : names) {
    topics::new_partitions np{name, count, std::nullopt};
    if (!assignment.empty()) {
      if (auto f = failed.find(name); f != failed.end()) {
        // TopicCommand wraps the failed future's ExecutionException.
        *error = {"java.lang.RuntimeException", "java.util.concurrent.ExecutionException: " + f->second.java_class +
                                                    ": " + f->second.message};
        return false;
      }
      np.assignments = added_assignments(assignment, described[name].partitions.size());
    }
    requests.push_back(std::move(np));
  }
  return admin.create_partitions(requests, error);
}

bool delete_command(const cli::option_set& opts, topic_admin& admin, topic_error* error) {
  std::vector<std::string> names;
  if (!topics::matching_topics(opts, admin, &names, error)) return false;
  return names.empty() || admin.delete_topics(names, error);
}

// Admin.create's checks of bootstrap.servers: a malformed entry, or no
// host that resolves, fails before any request.
std::optional<std::string> bootstrap_problem(const std::string& servers) {
  std::vector<host_port> parsed;
  std::string why;
  if (!parse_host_ports(servers, &parsed, &why)) return why;
  for (const auto& hp : parsed) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(hp.host.c_str(), nullptr, &hints, &found) == 0) {
      freeaddrinfo(found);
      return std::nullopt;
    }
  }
  return "No resolvable bootstrap urls given in bootstrap.servers";
}

bool load_command_config(const cli::option_set& opts, std::vector<std::pair<std::string, std::string>>* out,
                         topic_error* error) {
  auto path = opts.value("command-config");
  if (!path) return true;
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) {
    *error = {"java.nio.file.NoSuchFileException", *path, true};  // its message is the path alone
    return false;
  }
  std::string why;
  if (!load_properties_file(*path, out, &why)) {
    *error = {"java.io.IOException", why, true};
    return false;
  }
  return true;
}

bool run_action(const cli::option_set& opts, topic_admin& admin, tool_io io, topic_error* error) {
  if (opts.has("create")) return create_command(opts, admin, io.out, error);
  if (opts.has("alter")) return alter_command(opts, admin, error);
  if (opts.has("list")) return list_command(opts, admin, io.out, error);
  if (opts.has("describe")) return topics::describe_command(opts, admin, io.out, error);
  return delete_command(opts, admin, error);
}

}  // namespace

int kafka_topics(tool_args args, tool_io io) {
  const cli::option_parser parser = topic_options();
  if (args.empty()) return usage_error(parser, "Create, delete, describe, or change a topic.", io);
  cli::option_set opts;
  int status = 0;
  if (!parse_command_line(parser, args, "Create, list, describe, alter or delete Kafka topics.", &opts, io,
                          &status))
    return status;
  bool plain = false;
  if (auto problem = check_args(opts, io, &plain)) {
    if (!plain) return usage_error(parser, *problem, io);
    io.err << *problem << '\n';
    return 1;
  }
  topic_error error;
  std::vector<std::pair<std::string, std::string>> command_config;
  if (!load_command_config(opts, &command_config, &error)) {
    io.err << error.message << '\n';
    return 1;
  }
  if (auto problem = bootstrap_problem(*opts.value("bootstrap-server"))) {
    io.err << "Failed to create new KafkaAdminClient\n" << *problem << '\n';
    return 1;
  }
  topic_admin admin(opts.value("bootstrap-server"), command_config);
  if (run_action(opts, admin, io, &error)) return 0;
  if (error.uncaught) {
    io.err << error.message << '\n';
    return 1;
  }
  io.out << "Error while executing topic command : " << error.message << '\n';
  log_error(error, io.err);
  return 1;
}

}  // namespace hw::tools
