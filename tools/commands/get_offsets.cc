// kafka-get-offsets.sh: Kafka's GetOffsetShell. Lists the topics, keeps the
// partitions the filters allow, asks each partition's leader for the offset
// of --time, and prints "topic:partition:offset" in Kafka's order.

#include <ostream>

#include "tools/client/connection.h"
#include "tools/commands/get_offsets.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using get_offsets::tool_error;
using get_offsets::topic_partition;

const char* const k_usage_text = "Look up offsets of topic partitions.";

cli::option_parser get_offsets_options() {
  cli::option_parser p = default_options();
  p.option("bootstrap-server", "String: HOST1:PORT1,...,HOST3:PORT3",
           "REQUIRED. Broker addresses, written HOST1:PORT1,HOST2:PORT2.");
  p.option("topic-partitions", "String: topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3",
           "Comma-separated topic-partition patterns to look up, each matching\n"
           "'([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?'. The part before ':' is a regex on the topic\n"
           "name (empty: every topic). The part after ':' selects partitions: one number, a range\n"
           "'NUMBER-NUMBER' (start included, end excluded), 'NUMBER-' (from NUMBER on), '-NUMBER' (below\n"
           "NUMBER), or nothing for all partitions.");
  p.option("topic", "String: topic",
           "Topic (or regular expression) to look up. Without it every topic you may see is queried. Not\n"
           "allowed together with --topic-partitions.");
  p.option("partitions", "String: partition ids",
           "Comma-separated partition ids to look up. Without it every partition of the chosen topics is\n"
           "queried. Not allowed together with --topic-partitions.");
  p.option("time",
           "String: <timestamp> / -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / "
           "-5 or latest-tiered / -6 or earliest-pending-upload",
           "Which offset to return: one of the special values above, or a timestamp in ms to get the first\n"
           "offset at or after it. [A timestamp past the newest record gives no offset.] (default: latest)");
  p.option("command-config", "String: config file", "Properties file with settings for the admin client.");
  p.flag("exclude-internal-topics", "Skip internal topics, which are otherwise part of the result.");
  return p;
}

int fail(const tool_error& e, tool_io io) {
  io.err << "Error occurred: " << e.message << '\n';
  // Kafka prints the stack trace, then an empty line.
  if (!e.trace.empty()) io.err << e.trace << "\n\n";
  return 1;
}

// Command line checks in GetOffsetShellOptions' order; false with the exit status.
bool read_command_line(const cli::option_parser& parser, tool_args args, cli::option_set* opts, tool_io io,
                       int* status) {
  *status = 1;
  if (args.empty()) {
    io.err << k_usage_text << '\n' << parser.usage();
    return false;
  }
  std::string error;
  if (!parser.parse(args, opts, &error)) {
    io.err << "Error occurred: " << error << '\n';
    return false;
  }
  if (opts->has("help")) {
    io.err << k_usage_text << '\n' << parser.usage();
    return false;
  }
  if (opts->has("version")) {
    io.out << kafka_tools_version << '\n';
    *status = 0;
    return false;
  }
  if (!opts->has("bootstrap-server")) {
    io.err << "Missing required argument \"[bootstrap-server]\"\n" << parser.usage();
    return false;
  }
  if (std::string bad = get_offsets::validate_bootstrap_server(*opts->value("bootstrap-server")); !bad.empty()) {
    io.err << bad << '\n' << parser.usage();
    return false;
  }
  return true;
}

// The partitions of the listed topics that the filter allows, in the
// broker's topic order.
bool matching_partitions(admin_client& admin, const get_offsets::partition_filter& filter, bool exclude_internal,
                         std::vector<topic_partition>* out, tool_error* error) {
  std::vector<get_offsets::topic_info> topics;
  std::string why;
  if (!get_offsets::fetch_topics(admin, std::nullopt, &topics, &why)) {
    error->message = "org.apache.kafka.common.errors.TimeoutException: " + why;
    error->trace = "java.util.concurrent.ExecutionException: " + error->message;
    return false;
  }
  for (const auto& t : topics) {
    if ((t.internal && exclude_internal) || !filter.topic_allowed(t.name)) continue;
    if (t.error != 0) {
      error->message = get_offsets::exception_string(t.error, t.error_message);
      error->trace = "java.util.concurrent.ExecutionException: " + error->message;
      return false;
    }
    for (const auto& p : t.partitions) {
      topic_partition tp{t.name, p.partition};
      if (filter.allowed(tp)) out->push_back(tp);
    }
  }
  return true;
}

int fetch_and_print(const cli::option_set& opts, tool_io io) {
  tool_error error;
  if (opts.has("topic-partitions") && (opts.has("topic") || opts.has("partitions")))
    return fail({"--topic-partitions cannot be used with --topic or --partitions", ""}, io);
  int64_t timestamp = -1;
  if (!get_offsets::parse_time(opts.value_or("time", "latest"), &timestamp, &error)) return fail(error, io);
  get_offsets::partition_filter filter;
  const bool filtered = opts.has("topic-partitions")
                            ? get_offsets::parse_topic_partitions(*opts.value("topic-partitions"), &filter, &error)
                            : get_offsets::parse_topic_and_partitions(opts.value("topic"), opts.value("partitions"),
                                                                      &filter, &error);
  if (!filtered) return fail(error, io);
  std::vector<std::pair<std::string, std::string>> config;
  if (auto path = opts.value("command-config"); path && !load_properties_file(*path, &config, &error.message))
    return fail({error.message, "java.io.FileNotFoundException: " + error.message}, io);
  std::string why;
  auto admin = connect_admin(opts.value("bootstrap-server"), false, config, &why);
  if (!admin && why.find("not supported by the native tools") != std::string::npos) {
    io.err << why << '\n';
    return 1;
  }
  // A refused login fails the first call (listTopics) with the login's error.
  if (!admin && connection::authentication_failure(why))
    return fail({why, "java.util.concurrent.ExecutionException: " + why + "\nCaused by: " + why}, io);
  if (!admin && why.rfind("Timed out", 0) != 0)
    return fail({"Failed to create new KafkaAdminClient", "org.apache.kafka.common.KafkaException: Failed to create new "
                                                          "KafkaAdminClient"},
                io);
  if (!admin)
    return fail({"org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listTopics",
                 "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: Timed out "
                 "waiting for a node assignment. Call: listTopics"},
                io);

  std::vector<topic_partition> partitions;
  if (!matching_partitions(*admin, filter, opts.has("exclude-internal-topics"), &partitions, &error))
    return fail(error, io);
  if (partitions.empty()) return fail({"Could not match any topic-partitions with the specified filters", ""}, io);
  std::map<topic_partition, get_offsets::offset_answer> answers;
  if (!get_offsets::list_offsets(*admin, partitions, timestamp, &answers, &why))
    return fail({"org.apache.kafka.common.errors.TimeoutException: " + why, ""}, io);
  std::vector<std::pair<topic_partition, int64_t>> found;
  for (const auto& tp : partitions) {
    const auto& a = answers[tp];
    if (a.error != 0) {
      io.err << "Skip getting offsets for topic-partition " << tp.str()
             << " due to error: " << get_offsets::exception_string(a.error, a.error_message) << '\n';
    } else if (a.offset != -1) {
      found.emplace_back(tp, a.offset);
    }
  }
  for (const auto& line : get_offsets::offset_lines(found)) io.out << line << '\n';
  return 0;
}

}  // namespace

int kafka_get_offsets(tool_args args, tool_io io) {
  const cli::option_parser parser = get_offsets_options();
  cli::option_set opts;
  int status = 1;
  if (!read_command_line(parser, args, &opts, io, &status)) return status;
  return fetch_and_print(opts, io);
}

}  // namespace hw::tools
