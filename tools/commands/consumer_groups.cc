// kafka-consumer-groups.sh: Kafka's ConsumerGroupCommand. Reads the command
// line with Kafka's checks in Kafka's order, then runs the one action asked
// for; failures print as Kafka prints them ("Error: Executing consumer group
// command failed due to ...", exit status 0 as Kafka's, or a message with the
// usage, exit status 1).

#include <ostream>

#include "tools/client/connection.h"
#include "tools/commands/consumer_groups.h"
#include "tools/commands/get_offsets.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using groups::command;

const char* const k_banner =
    "List, describe or delete consumer groups, or reset their committed offsets.";
// --state and --type take an optional value; without one they carry this.
const char* const k_no_value = "\x01";

cli::option_parser consumer_groups_options() {
  cli::option_parser p = default_options();
  p.flag("all-groups", "Act on every consumer group.");
  p.flag("all-topics", "With --reset-offsets, include every topic the group has offsets for.");
  p.option("bootstrap-server", "String: server to connect to",
           "Broker address(es) to contact. Needed by everything except --validate-regex.");
  p.option("by-duration", "String: duration",
           "Reset to the offset at this long before now, written 'PnDTnHnMnS'.");
  p.option("command-config", "String: command config property file",
           "Properties file with settings for the admin client and the consumer.");
  p.flag("delete", "Remove the named groups, with their committed offsets and member data, e.g.\n"
                   "--group g1 --group g2");
  p.flag("delete-offsets", "Remove committed offsets of one group, for one or more topics.");
  p.flag("describe", "Show a group's committed offsets and lag (messages not yet consumed) per\n"
                     "partition.");
  p.flag("dry-run", "Print the outcome without changing any group. Works with:\n"
                    "reset-offsets.");
  p.flag("execute", "Apply the change. Works with: reset-offsets.");
  p.flag("export", "Write the planned result as CSV. Works with: reset-offsets.");
  p.unsupported("from-file", true);
  p.option("group", "String: consumer group", "Consumer group to operate on.");
  p.flag("list", "Print the names of the consumer groups.");
  p.flag("members", "List the group's members. Only together with '--describe' and\n"
                    "'--bootstrap-server'.");
  p.flag("offsets", "List each partition of the group with its offsets and lag. This is what\n"
                    "'--describe' shows by default; only together with '--describe' and\n"
                    "'--bootstrap-server'.");
  p.flag("reset-offsets", "Move a group's committed offsets. One group at a time, with no active\n"
                          "members. Use --dry-run (default) or --execute; a target: --to-datetime,\n"
                          "--by-duration, --to-earliest, --to-latest, --shift-by, --to-current or --to-offset;\n"
                          "and a scope: --all-topics or --topic.");
  p.option("shift-by", "Long: number-of-offsets",
           "Reset by moving the current offset n positions forward (n > 0) or back (n < 0).");
  p.option("state", "String", "With '--describe', add the group state. With '--list', print each group's\n"
                              "state, or only groups in the given states.");
  p.option("timeout", "Long: timeout (ms)",
           "Time limit for operations that wait. (default: 30000)");
  p.flag("to-current", "Reset to the current committed offset.");
  p.option("to-datetime", "String: datetime", "Reset to the first offset at this time, written 'YYYY-MM-DDThh:mm:ss.sss'");
  p.flag("to-earliest", "Reset to the oldest available offset.");
  p.flag("to-latest", "Reset to the newest offset.");
  p.option("to-offset", "Long: offset", "Reset to the given offset.");
  p.option("topic", "String: topic",
           "Topic to delete group offsets for, or to include when resetting. With --reset-offsets,\n"
           "partitions may be listed as `topic1:0,1,2`, limiting the reset to partitions 0, 1 and 2.");
  p.option("type", "String", "With '--list', print each group's type, or only groups of the given\n"
                             "types.");
  p.unsupported("validate-regex", true);
  p.flag("verbose", "Print extra detail, where available, with --describe.");
  return p;
}

// joptsimple reads --state and --type with an optional value: the next
// argument unless it looks like an option. Rewritten here as --state=value,
// or --state=<k_no_value>, for a parser of required values.
std::vector<std::string> with_optional_values(tool_args args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (a != "--state" && a != "--type") {
      out.push_back(a);
      continue;
    }
    const bool value = i + 1 < args.size() && !(args[i + 1].size() >= 2 && args[i + 1][0] == '-');
    out.push_back(a + "=" + (value ? args[++i] : std::string(k_no_value)));
  }
  return out;
}

// A parse error as joptsimple throws it out of Kafka's main.
std::string parse_exception(const std::string& message) {
  if (message.find("is not a recognized option") != std::string::npos)
    return "Exception in thread \"main\" joptsimple.UnrecognizedOptionException: " + message;
  if (message.find("requires an argument") != std::string::npos)
    return "Exception in thread \"main\" joptsimple.OptionMissingRequiredArgumentException: " + message;
  if (message.find("is not supported") != std::string::npos) return message;
  return "Exception in thread \"main\" joptsimple.OptionException: " + message;
}

// joptsimple's availableIf: --members, --verbose, --offsets need --describe,
// --state --describe or --list, --type --list.
std::string unavailable_options(const cli::option_set& o) {
  std::string names;
  auto check = [&](const char* name, bool available) {
    if (o.has(name) && !available) names += (names.empty() ? "" : ", ") + std::string(name);
  };
  check("members", o.has("describe"));
  check("verbose", o.has("describe"));
  check("offsets", o.has("describe"));
  check("state", o.has("describe") || o.has("list"));
  check("type", o.has("list"));
  if (names.empty()) return "";
  return "Exception in thread \"main\" joptsimple.UnavailableOptionException: Option(s) [" + names +
         "] are unavailable given other options on the command line";
}

// The reset specifications, in the order Kafka checks them, and the order
// it names the conflicting one in (its Set's, which varies between runs).
const char* const k_scenarios[] = {"to-offset", "to-datetime", "by-duration", "to-earliest",
                                   "to-latest", "to-current", "shift-by", "from-file"};
const char* const k_scenario_set_order[] = {"to-current", "to-latest", "by-duration", "to-datetime",
                                            "from-file", "shift-by", "to-offset", "to-earliest"};

// ConsumerGroupCommandOptions.checkArgs and the action count of main: the
// usage error's message, or "".
std::string check_args(const cli::option_set& o, tool_io io) {
  auto group_scope = [&] { return o.has("group") || o.has("all-groups"); };
  if (!o.has("bootstrap-server")) return "Missing required argument \"[bootstrap-server]\"";
  if (o.has("describe")) {
    if (!group_scope()) return "Option [describe] takes one of these options: [all-groups], [group]";
    if (o.has("members") + o.has("offsets") + o.has("state") > 1)
      return "Option [describe] takes at most one of these options: [members], [offsets], [state]";
    if (o.has("state") && o.value("state") != k_no_value) return "Option [describe] does not take a value for [state]";
  }
  if (o.has("delete")) {
    if (!group_scope()) return "Option [delete] takes one of these options: [all-groups], [group]";
    if (o.has("topic")) return "The consumer does not support topic-specific offset deletion from a consumer group.";
  }
  if (o.has("delete-offsets") && (!o.has("group") || !o.has("topic")))
    return "Option [delete-offsets] takes the following options: [topic], [group]";
  if (o.has("reset-offsets")) {
    if (o.has("dry-run") && o.has("execute")) return "Option [reset-offsets] only accepts one of [execute] and [dry-run]";
    if (!o.has("dry-run") && !o.has("execute"))
      io.err << "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
                "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
                "explicitly if you are scripting this command and want to keep the current default behavior "
                "without prompting.\n";
    if (!group_scope()) return "Option [reset-offsets] takes one of these options: [all-groups], [group]";
    for (const char* used : k_scenarios) {
      if (!o.has(used)) continue;
      for (const char* other : k_scenario_set_order)
        if (std::string(other) != used && o.has(other))
          return std::string("Option \"[") + used + "]\" can't be used with option \"[" + other + "]\"";
    }
  }
  if (o.has("group") && o.has("all-groups")) return "Option \"[group]\" can't be used with option \"[all-groups]\"";
  if (o.has("group") && o.has("list")) return "Option \"[group]\" can't be used with option \"[list]\"";
  if (o.has("topic") && o.has("list")) return "Option \"[topic]\" can't be used with option \"[list]\"";
  if (o.has("topic") && o.has("describe")) return "Option \"[topic]\" can't be used with option \"[describe]\"";
  const int actions = o.has("list") + o.has("describe") + o.has("delete") + o.has("reset-offsets") + o.has("delete-offsets");
  if (actions != 1)
    return "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets, "
           "--validate-regex";
  return "";
}

// joptsimple's Long conversion, done where Kafka's tool first reads the value.
std::optional<int64_t> long_option(const cli::option_set& o, const char* name) {
  auto v = o.value(name);
  if (!v) return std::nullopt;
  for (const auto& each : o.values(name)) {
    int64_t parsed = 0;
    if (!get_offsets::java_parse_long(each, &parsed))
      throw groups::command_failure{"Cannot parse argument '" + each + "' of option " + name};
  }
  int64_t parsed = 0;
  get_offsets::java_parse_long(*v, &parsed);
  return parsed;
}

// A client setting the native tool cannot honour (SASL, SSL): named on
// stderr, exit status 1.
struct unsupported_setting {
  std::string message;
};

void run(command& cmd, tool_io io) {
  std::vector<std::pair<std::string, std::string>> config;
  std::string why;
  if (auto path = cmd.opts.value("command-config"); path && !load_properties_file(*path, &config, &why))
    throw groups::command_failure{"java.nio.file.NoSuchFileException: " + *path};
  cmd.to_offset = long_option(cmd.opts, "to-offset");
  cmd.shift_by = long_option(cmd.opts, "shift-by");
  cmd.timeout_ms = long_option(cmd.opts, "timeout").value_or(30000);
  // --timeout bounds every call, over default.api.timeout.ms.
  config.emplace_back("default.api.timeout.ms", std::to_string(std::max<int64_t>(1, cmd.timeout_ms)));
  auto admin = connect_admin(cmd.opts.value("bootstrap-server"), false, config, &why);
  if (!admin && why.find("not supported by the native tools") != std::string::npos) throw unsupported_setting{why};
  // A bad bootstrap list fails creating Kafka's admin client; a cluster that
  // does not answer, or refuses the login, fails each call as Kafka's admin
  // client fails it (no brokers known: "Failed to find brokers to send ListGroups").
  if (!admin && why.rfind("Timed out", 0) != 0 && !connection::authentication_failure(why))
    throw groups::command_failure{"Failed to create new KafkaAdminClient"};
  groups::group_client client(admin.get());
  if (cmd.has("list")) {
    groups::list_groups(client, cmd, io);
  } else if (cmd.has("describe")) {
    groups::describe_groups(client, cmd, io);
  } else if (cmd.has("delete")) {
    groups::delete_groups(client, cmd, io);
  } else if (cmd.has("reset-offsets")) {
    groups::reset_offsets(client, cmd, io);
  } else {
    groups::delete_offsets(client, cmd, io);
  }
}

}  // namespace

int kafka_consumer_groups(tool_args args, tool_io io) {
  const cli::option_parser parser = consumer_groups_options();
  const std::vector<std::string> rewritten = with_optional_values(args);
  command cmd;
  std::string error;
  if (!parser.parse(rewritten, &cmd.opts, &error)) {
    io.err << parse_exception(error) << '\n';
    return 1;
  }
  if (args.empty() || cmd.has("help")) {
    io.err << k_banner << '\n' << parser.usage();
    return 1;
  }
  if (cmd.has("version")) {
    io.out << kafka_tools_version << '\n';
    return 0;
  }
  if (std::string unavailable = unavailable_options(cmd.opts); !unavailable.empty()) {
    io.err << unavailable << '\n';
    return 1;
  }
  if (std::string bad = check_args(cmd.opts, io); !bad.empty()) return usage_error(parser, bad, io);
  cmd.groups = cmd.opts.values("group");
  for (auto [name, slot] : {std::pair{"state", &cmd.state_value}, std::pair{"type", &cmd.type_value}})
    if (auto v = cmd.opts.value(name); v && *v != k_no_value) *slot = *v;
  try {
    run(cmd, io);
  } catch (const groups::usage_failure& f) {
    return usage_error(parser, f.message, io);
  } catch (const unsupported_setting& f) {
    io.err << f.message << '\n';
    return 1;
  } catch (const groups::command_failure& f) {
    groups::print_error(io.out, "Executing consumer group command failed due to " + f.message);
  }
  return 0;
}

}  // namespace hw::tools
