// kafka-leader-election.sh: Kafka's LeaderElectionCommand. Reads the
// command line with Kafka's checks, in Kafka's order (joptsimple's parse,
// help and version, the required and exclusive options, then each option's
// value as the tool first asks for it), collects the partitions (one, a JSON
// file's, or null for all), sends one ElectLeaders and prints the outcome.
// Every failure ends as Kafka's main ends one: the exception's message on
// stderr, then the first line of its stack trace, exit status 1.

#include <filesystem>
#include <ostream>

#include "tools/commands/get_offsets.h"
#include "tools/commands/leader_election.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using election::failure;
using election::topic_partition;

const char* const k_banner =
    "Elects new leaders for topic partitions: the preferred replica, or (unclean) any live replica when a "
    "partition has no leader.";
const char* const k_command_failed = "org.apache.kafka.tools.AdminCommandFailedException";

cli::option_parser election_options() {
  cli::option_parser p = default_options();
  p.option("bootstrap-server", "String: host:port",
           "REQUIRED. The broker(s) to connect to, host:port, several separated by commas.");
  p.option("admin.config", "String: config file",
           "(DEPRECATED, use --command-config) Properties file for the admin client.");
  p.option("command-config", "String: Config file", "Properties file with settings for the admin client.");
  p.option("path-to-json-file", "String: Path to JSON file",
           "A JSON file naming the partitions to elect leaders for, written\n"
           "{\"partitions\": [{\"topic\": \"t1\", \"partition\": 0}, {\"topic\": \"t2\", \"partition\": 3}]}\n"
           "Not together with --topic or --all-topic-partitions.");
  p.option("topic", "String: topic name",
           "The topic of the one partition to elect a leader for (with --partition). Not together with\n"
           "--path-to-json-file or --all-topic-partitions.");
  p.option("partition", "Integer: partition id", "The partition of --topic to elect a leader for. Needs --topic.");
  p.flag("all-topic-partitions",
         "Elect leaders for every partition that needs an election of the chosen type. Not together with\n"
         "--topic or --path-to-json-file.");
  p.option("election-type", "[PREFERRED,UNCLEAN]: election type",
           "REQUIRED. PREFERRED moves leadership to the first replica when it is not the leader already;\n"
           "UNCLEAN picks a leader, even outside the ISR, for partitions that have none. Any letter case.");
  return p;
}

int fail(const failure& e, tool_io io) {
  io.err << e.message << '\n';
  if (e.exception.empty()) return 1;
  io.err << e.exception << ": " << e.message << '\n';
  // A failed future's ExecutionException, and the error inside it, are the trace's causes.
  const std::string execution = "java.util.concurrent.ExecutionException: ";
  if (e.message.starts_with(execution))
    io.err << "Caused by: " << e.message << "\nCaused by: " << e.message.substr(execution.size()) << '\n';
  io.err << '\n';
  return 1;
}

failure command_failed(std::string message) { return {k_command_failed, std::move(message)}; }

failure multiple_values(const std::string& option) {
  return {"joptsimple.MultipleArgumentsForOptionException",
          "Found multiple arguments for option " + option + ", but you asked for only one"};
}

failure conversion_failed(const std::string& value, const std::string& option) {
  return {"joptsimple.OptionArgumentConversionException",
          "Cannot parse argument '" + value + "' of option " + option};
}

failure parse_failed(const std::string& message) {
  if (message.ends_with("is not a recognized option")) return {"joptsimple.UnrecognizedOptionException", message};
  if (message.ends_with("requires an argument")) return {"joptsimple.OptionMissingRequiredArgumentException", message};
  return {"joptsimple.OptionException", message};
}

// LeaderElectionCommandOptions.validate; the usage error ends the tool there.
bool validate(const cli::option_parser& parser, const cli::option_set& opts, tool_io io, int* status) {
  std::string missing;
  for (const char* required : {"bootstrap-server", "election-type"})
    if (!opts.has(required)) missing += (missing.empty() ? "" : ", ") + std::string(required);
  if (!missing.empty()) {
    *status = fail(command_failed("Missing required option(s): " + missing), io);
    return false;
  }
  if (opts.has("admin.config") && opts.has("command-config")) {
    *status = usage_error(parser, "Option \"[admin.config]\" can't be used with option \"[command-config]\"", io);
    return false;
  }
  const int chosen = opts.has("topic") + opts.has("all-topic-partitions") + opts.has("path-to-json-file");
  failure error;
  if (chosen != 1) {
    error = command_failed("One and only one of the following options is required: topic, all-topic-partitions, "
                           "path-to-json-file");
  } else if (opts.has("topic") && !opts.has("partition")) {
    error = command_failed("Missing required option(s): partition");
  } else if (!opts.has("topic") && opts.has("partition")) {
    error = command_failed("Option partition is only allowed if topic is used");
  } else {
    return true;
  }
  *status = fail(error, io);
  return false;
}

// OptionSet.valueOf: every value converted, then at most one allowed.
bool single_value(const cli::option_set& opts, const std::string& option, std::optional<std::string>* out,
                  failure* error) {
  const auto values = opts.values(option);
  if (values.size() > 1) {
    *error = multiple_values(option);
    return false;
  }
  *out = values.empty() ? std::nullopt : std::optional<std::string>(values.front());
  return true;
}

// --election-type: joptsimple's EnumConverter, case-insensitive.
bool election_type(const cli::option_set& opts, int8_t* type, std::string* name, failure* error) {
  const auto values = opts.values("election-type");
  for (const auto& v : values) {
    std::string upper = v;
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
    if (upper != "PREFERRED" && upper != "UNCLEAN") {
      *error = conversion_failed(v, "election-type");
      return false;
    }
    if (values.size() == 1) {
      *name = upper;
      *type = upper == "PREFERRED" ? 0 : 1;
    }
  }
  if (values.size() > 1) {
    *error = multiple_values("election-type");
    return false;
  }
  return true;
}

// The partitions to elect: the JSON file's, --topic's one, or null (all).
bool chosen_partitions(const cli::option_set& opts, std::optional<std::vector<topic_partition>>* out,
                       failure* error) {
  std::optional<std::string> path, topic;
  if (!single_value(opts, "path-to-json-file", &path, error)) return false;
  if (path) {
    out->emplace();
    if (!election::read_election_data(*path, &**out, error)) return false;
  }
  if (!single_value(opts, "topic", &topic, error)) return false;
  const auto ids = opts.values("partition");
  int32_t partition = 0;
  for (const auto& id : ids) {
    if (!get_offsets::java_parse_int(id, &partition)) {
      *error = conversion_failed(id, "partition");
      return false;
    }
  }
  if (ids.size() > 1) {
    *error = multiple_values("partition");
    return false;
  }
  if (!path && topic && !ids.empty()) *out = std::vector<topic_partition>{{*topic, partition}};
  return true;
}

// The admin client's properties: --admin.config (with its deprecation
// notice) or --command-config, as Utils.loadProps reads the file.
bool admin_properties(const cli::option_set& opts, std::vector<std::pair<std::string, std::string>>* out,
                      failure* error, tool_io io) {
  std::optional<std::string> path;
  if (opts.has("admin.config")) {
    io.out << "Option --admin.config has been deprecated and will be removed in a future version. Use "
              "--command-config instead.\n";
    if (!single_value(opts, "admin.config", &path, error)) return false;
  } else if (!single_value(opts, "command-config", &path, error)) {
    return false;
  }
  if (!path) return true;
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) {
    *error = {"java.nio.file.NoSuchFileException", *path};
    return false;
  }
  std::string why;
  if (!load_properties_file(*path, out, &why)) {
    *error = {"java.io.IOException", why};
    return false;
  }
  return true;
}

int elect_and_print(const cli::option_set& opts, tool_io io) {
  failure error;
  int8_t type = 0;
  std::string type_name;
  std::optional<std::vector<topic_partition>> partitions;
  std::vector<std::pair<std::string, std::string>> config;
  std::optional<std::string> bootstrap;
  if (!election_type(opts, &type, &type_name, &error) || !chosen_partitions(opts, &partitions, &error) ||
      !admin_properties(opts, &config, &error, io) || !single_value(opts, "bootstrap-server", &bootstrap, &error))
    return fail(error, io);

  auto outcome = election::elect_leaders(*bootstrap, config, type, partitions);
  if (!outcome.stdout_line.empty()) io.out << outcome.stdout_line << '\n';
  if (!outcome.ok) return fail(outcome.error, io);
  const auto printed = election::report(type_name, outcome.results);
  for (const auto& line : printed.lines) io.out << line << '\n';
  if (printed.failed == 0) return 0;
  return fail(command_failed(std::to_string(printed.failed) + " replica(s) could not be elected"), io);
}

}  // namespace

int kafka_leader_election(tool_args args, tool_io io) {
  const cli::option_parser parser = election_options();
  cli::option_set opts;
  std::string message;
  if (!parser.parse(args, &opts, &message)) return fail(parse_failed(message), io);
  if (args.empty() || opts.has("help")) {
    io.err << k_banner << '\n' << parser.usage();
    return 1;
  }
  if (opts.has("version")) {
    io.out << kafka_tools_version << '\n';
    return 0;
  }
  int status = 1;
  if (!validate(parser, opts, io, &status)) return status;
  return elect_and_print(opts, io);
}

}  // namespace hw::tools
