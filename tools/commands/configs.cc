// kafka-configs.sh: Kafka's ConfigCommand. Reads the command line as
// ConfigCommandOptions does (same checks, same order, same messages), then
// describes or alters the configs of one kind of entity through
// DescribeConfigs and IncrementalAlterConfigs, printing what Kafka's tool
// prints, and ends each failure as ConfigCommand.main ends it.

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "tools/commands/configs.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using configs::command_line;
using configs::failure;

const char* const k_banner =
    "This tool helps to manipulate and describe entity config for a topic, client, user, broker, ip, client-metrics "
    "or group";

// The entity flags, in the order ConfigCommandOptions lists them, with the
// entity type each stands for.
const std::pair<const char*, std::string_view> k_entity_flags[] = {
    {"topic", configs::topics},   {"client", configs::clients},
    {"user", configs::users},     {"broker", configs::brokers},
    {"broker-logger", configs::broker_loggers}, {"ip", configs::ips},
    {"client-metrics", configs::client_metrics}, {"group", configs::groups}};
const std::pair<const char*, std::string_view> k_default_flags[] = {{"client-defaults", configs::clients},
                                                                    {"user-defaults", configs::users},
                                                                    {"broker-defaults", configs::brokers},
                                                                    {"ip-defaults", configs::ips}};

cli::option_parser configs_options() {
  cli::option_parser p = default_options();
  p.option("bootstrap-server", "String: server to connect to", "The broker(s) to connect to, HOST:PORT[,HOST:PORT].");
  p.option("bootstrap-controller", "String: controller to connect to",
           "The controller(s) to connect to instead of brokers, HOST:PORT[,HOST:PORT].");
  p.option("command-config", "String: command config property file",
           "A properties file with settings for the admin client.");
  p.flag("alter", "Change the configs of the entity.");
  p.flag("describe", "Show the configs of the entity.");
  p.flag("all", "With --describe: every config of the entity, static and default ones too.");
  p.option("entity-type", "String",
           "The kind of entity: topics, clients, users, brokers, broker-loggers, ips, client-metrics or groups.");
  p.option("entity-name", "String",
           "The entity's name: a topic, client id, user principal, broker id, ip, client-metrics resource or group id.");
  p.flag("entity-default", "The default entity of the type (clients, users, brokers, ips).");
  p.option("add-config", "String",
           "Configs to set, 'k1=v1,k2=[v1,v2],k3=v3': brackets keep a value's commas together.");
  p.option("add-config-file", "String", "A properties file of configs to set.");
  p.option("delete-config", "String", "Config keys to remove, 'k1,k2'.");
  p.option("topic", "String", "A topic's name (same as --entity-type topics --entity-name).");
  p.option("client", "String", "A client id.");
  p.flag("client-defaults", "The defaults of every client.");
  p.option("user", "String", "A user principal.");
  p.flag("user-defaults", "The defaults of every user.");
  p.option("broker", "String", "A broker id.");
  p.flag("broker-defaults", "The defaults of every broker.");
  p.option("broker-logger", "String", "A broker id, for its loggers.");
  p.flag("ip-defaults", "The defaults of every IP.");
  p.option("ip", "String", "An IP address.");
  p.option("group", "String", "A group id.");
  p.option("client-metrics", "String", "A client-metrics resource.");
  return p;
}

const std::vector<std::string>& options_with_values() {
  static const std::vector<std::string> names = {
      "bootstrap-server", "bootstrap-controller", "command-config", "entity-type", "entity-name", "add-config",
      "add-config-file",  "delete-config",        "topic",          "client",      "user",        "broker",
      "broker-logger",    "ip",                   "group",          "client-metrics"};
  return names;
}

std::string multiple_values(const std::string& option) {
  return "Found multiple arguments for option " + option + ", but you asked for only one";
}

// options.valueOf(spec): the one value, or joptsimple's complaint.
std::optional<failure> single(const cli::option_set& opts, const std::string& name, std::optional<std::string>* out) {
  auto values = opts.values(name);
  if (values.size() > 1) return configs::plain(multiple_values(name));
  if (!values.empty()) *out = values.front();
  return std::nullopt;
}

// entityTypes and entityNames as ConfigCommandOptions computes them.
void read_entities(const cli::option_set& opts, tool_args args, command_line* c) {
  c->entity_types = opts.values("entity-type");
  c->has_entity_type = opts.has("entity-type");
  c->has_entity_name = opts.has("entity-name");
  c->has_entity_default = opts.has("entity-default");
  c->entity_name_values = opts.values("entity-name");
  size_t next_name = 0;
  for (const auto& which : configs::names_in_order({args.begin(), args.end()}, options_with_values()))
    c->entity_names.push_back(which == "entity-name" && next_name < c->entity_name_values.size()
                                  ? c->entity_name_values[next_name++]
                                  : "");
  for (const auto& [flag, type] : k_entity_flags) {
    if (!opts.has(flag)) continue;
    c->has_entity_flag = true;
    c->entity_types.emplace_back(type);
    auto values = opts.values(flag);
    if (values.size() > 1 && !c->names_error) c->names_error = multiple_values(flag);
    c->entity_names.push_back(values.front());
  }
  for (const auto& [flag, type] : k_default_flags) {
    if (!opts.has(flag)) continue;
    c->has_entity_flag = true;
    c->entity_types.emplace_back(type);
    c->entity_names.emplace_back();
  }
}

// checkArgs: a failure, or nothing when the command line is good.
std::optional<failure> read_command_line(const cli::option_set& opts, tool_args args, command_line* c) {
  c->alter = opts.has("alter");
  c->describe = opts.has("describe");
  c->all = opts.has("all");
  if (c->alter == c->describe)
    return failure{failure::kind::usage, "Command must include exactly one action: --describe, --alter", {}};
  if (c->describe)
    for (const char* other : {"alter", "add-config", "delete-config"})
      if (opts.has(other))
        return failure{failure::kind::usage,
                       "Option \"[describe]\" can't be used with option \"[" + std::string(other) + "]\"", {}};
  c->bootstrap_server = opts.value("bootstrap-server");
  c->bootstrap_controller = opts.value("bootstrap-controller");
  c->add_config = opts.value("add-config");
  c->add_config_file = opts.value("add-config-file");
  c->add_config_count = opts.values("add-config").size();
  c->add_config_file_count = opts.values("add-config-file").size();
  c->has_delete_config = opts.has("delete-config");
  for (const auto& v : opts.values("delete-config"))
    for (const auto& key : configs::separated_values(v)) c->delete_config.push_back(configs::java_trim(key));
  c->broker = opts.value("broker");
  c->broker_logger = opts.value("broker-logger");
  c->ip = opts.value("ip");
  read_entities(opts, args, c);
  return configs::check_entities(*c);
}

void report(const failure& f, const command_line& c, const cli::option_parser& parser, tool_io io) {
  switch (f.how) {
    case failure::kind::message:
      io.err << f.message << '\n';
      break;
    case failure::kind::usage:
      io.err << f.message << '\n' << parser.usage();
      break;
    case failure::kind::executing:
      io.err << "Error while executing config command with args '" << c.joined_args << "'\n";
      for (const auto& line : f.trace) io.err << line << '\n';
      break;
  }
}

// Utils.loadProps of --command-config.
std::optional<failure> command_config(const cli::option_set& opts,
                                      std::vector<std::pair<std::string, std::string>>* out) {
  std::optional<std::string> path;
  if (auto f = single(opts, "command-config", &path)) return f;
  if (!path) return std::nullopt;
  if (!std::filesystem::exists(*path)) return configs::thrown("java.nio.file.NoSuchFileException: " + *path);
  std::string error;
  if (!load_properties_file(*path, out, &error)) return configs::thrown("java.io.IOException: " + error);
  return std::nullopt;
}

int run(const cli::option_set& opts, const command_line& c, const cli::option_parser& parser, tool_io io) {
  auto fail = [&](const failure& f) {
    report(f, c, parser, io);
    return 1;
  };
  std::vector<std::pair<std::string, std::string>> client_config;
  if (auto f = command_config(opts, &client_config)) return fail(*f);
  std::optional<std::string> server, controller;
  if (auto f = single(opts, "bootstrap-server", &server)) return fail(*f);
  if (!server)
    if (auto f = single(opts, "bootstrap-controller", &controller)) return fail(*f);
  if (c.alter && c.entity_types.size() != c.entity_names.size())
    return fail(configs::plain("An entity name must be specified for every entity type"));
  configs::properties added;
  if (c.alter)
    if (auto f = configs::configs_to_add(c, &added)) return fail(*f);
  configs::config_admin calls([&](std::string* why) {
    return connect_admin(server ? server : controller, !server, client_config, why);
  });
  auto f = c.alter ? configs::alter_configs(calls, c, added, io.out) : configs::describe_configs(calls, c, io.out);
  return f ? fail(*f) : 0;
}

}  // namespace

int kafka_configs(tool_args args, tool_io io) {
  const cli::option_parser parser = configs_options();
  cli::option_set opts;
  int status = 1;
  if (!parse_command_line(parser, args, k_banner, &opts, io, &status)) return status;
  command_line c;
  for (const auto& a : args) c.joined_args += (c.joined_args.empty() ? "" : " ") + a;  // args.mkString(" ")
  if (auto f = read_command_line(opts, args, &c)) {
    report(*f, c, parser, io);
    return 1;
  }
  return run(opts, c, parser, io);
}

}  // namespace hw::tools
