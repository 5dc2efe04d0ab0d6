// kafka-acls.sh: Kafka's AclCommand. Reads the command line as
// AclCommandOptions does (same checks, same order, same messages), makes
// the admin client as Admin.create would (the command config, the
// bootstrap addresses), then adds, removes or lists ACLs through
// CreateAcls, DeleteAcls and DescribeAcls, printing what Kafka's tool
// prints, and ends each failure as AclCommand.main ends it.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <ostream>

#include "tools/client/connection.h"
#include "tools/commands/acls.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using acls::command_line;
using acls::failure;

const char* const k_banner = "This tool helps to manage acls on kafka.";

cli::option_parser acl_options() {
  cli::option_parser p = default_options();
  p.option("bootstrap-server", "String: server to connect to", "The broker(s) to connect to, HOST:PORT[,HOST:PORT].");
  p.option("bootstrap-controller", "String: controller to connect to",
           "The controller(s) to connect to instead of brokers, HOST:PORT[,HOST:PORT].");
  p.optional("command-config", "String: command-config", "A properties file with settings for the admin client.");
  p.flag("add", "Add the ACLs described.");
  p.flag("remove", "Remove the ACLs described (every ACL of the resources without principals).");
  p.flag("list", "Show the ACLs of the resources named, or of every resource.");
  p.option("topic", "String: topic", "A topic the ACLs are for ('*': every topic).");
  p.flag("cluster", "The ACLs are for the cluster.");
  p.option("group", "String: group", "A consumer group the ACLs are for ('*': every group).");
  p.option("transactional-id", "String: transactional-id",
           "A transactional id the ACLs are for ('*': every transactional id).");
  p.option("delegation-token", "String: delegation-token", "A delegation token the ACLs are for ('*': every token).");
  p.option("user-principal", "String: user-principal",
           "A user principal the ACLs are for (CreateTokens, DescribeTokens).");
  p.option("resource-pattern-type", "ANY|MATCH|LITERAL|PREFIXED",
           "How resource names match: LITERAL or PREFIXED to add; ANY (any pattern of that exact name) or MATCH\n"
           "(every pattern that applies to the name) too to list or remove; take care with MATCH and --remove.\n"
           "(default: LITERAL)");
  p.option("operation", "String",
           "An operation allowed or denied: All, Read, Write, Create, Delete, Alter, Describe, ClusterAction,\n"
           "DescribeConfigs, AlterConfigs, IdempotentWrite, CreateTokens, DescribeTokens, TwoPhaseCommit.\n"
           "(default: All)");
  p.option("allow-principal", "String: allow-principal", "A principal allowed, Type:name ('User:*': every user).");
  p.option("deny-principal", "String: deny-principal",
           "A principal denied, Type:name. Denials win over permissions.");
  p.optional("principal", "String: principal", "With --list: only the ACLs of this principal (repeatable).");
  p.option("allow-host", "String: allow-host", "A host the allowed principals may come from (default '*').");
  p.option("deny-host", "String: deny-host", "A host the denied principals are refused from (default '*').");
  p.flag("producer", "A producer's ACLs: WRITE, DESCRIBE and CREATE on the topics.");
  p.flag("consumer", "A consumer's ACLs: READ and DESCRIBE on the topics, READ on the groups.");
  p.flag("idempotent", "With --producer: IDEMPOTENT_WRITE on the cluster too.");
  p.flag("force", "Do not ask before removing.");
  return p;
}

// CommandLineUtils.checkInvalidArgs: the first of `others` given with `used`.
std::optional<failure> invalid_with(const cli::option_set& o, const char* used, std::initializer_list<const char*> others) {
  if (!o.has(used)) return std::nullopt;
  for (const char* other : others)
    if (o.has(other))
      return acls::usage(std::string("Option \"[") + used + "]\" can't be used with option \"[" + other + "]\"");
  return std::nullopt;
}

// AclCommandOptions.checkArgs after the help and version.
std::optional<failure> check_args(const cli::option_set& o) {
  const bool server = o.has("bootstrap-server"), controller = o.has("bootstrap-controller");
  if (server && controller) return acls::usage("Only one of --bootstrap-server or --bootstrap-controller must be specified");
  if (!server && !controller) return acls::usage("One of --bootstrap-server or --bootstrap-controller must be specified");
  if (o.has("add") + o.has("remove") + o.has("list") != 1)
    return acls::usage("Command must include exactly one action: --list, --add, --remove. ");
  if (auto f = invalid_with(o, "list", {"producer", "consumer", "allow-host", "allow-principal", "deny-host", "deny-principal"}))
    return f;
  if (auto f = invalid_with(o, "producer", {"operation", "deny-principal", "deny-host"})) return f;
  if (auto f = invalid_with(o, "consumer", {"operation", "deny-principal", "deny-host"})) return f;
  if (o.has("principal") && !o.has("list")) return acls::usage("The --principal option is only available if --list is set");
  if (o.has("producer") && !o.has("topic")) return acls::usage("With --producer you must specify a --topic");
  if (o.has("idempotent") && !o.has("producer"))
    return acls::usage("The --idempotent option is only available if --producer is set");
  if (o.has("consumer") && (!o.has("topic") || !o.has("group") ||
                            (!o.has("producer") && (o.has("cluster") || o.has("transactional-id")))))
    return acls::usage(
        "With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option "
        "should be specified.");
  return std::nullopt;
}

command_line read_command_line(const cli::option_set& o) {
  command_line c;
  c.add = o.has("add");
  c.remove = o.has("remove");
  c.list = o.has("list");
  c.producer = o.has("producer");
  c.consumer = o.has("consumer");
  c.idempotent = o.has("idempotent");
  c.cluster = o.has("cluster");
  c.force = o.has("force");
  c.topics = o.values("topic");
  c.groups = o.values("group");
  c.transactional_ids = o.values("transactional-id");
  c.delegation_tokens = o.values("delegation-token");
  c.user_principals = o.values("user-principal");
  c.operations = o.has("operation") ? o.values("operation") : std::vector<std::string>{"All"};
  c.allow_principals = o.values("allow-principal");
  c.deny_principals = o.values("deny-principal");
  c.allow_hosts = o.values("allow-host");
  c.deny_hosts = o.values("deny-host");
  c.has_allow_principal = o.has("allow-principal");
  c.has_deny_principal = o.has("deny-principal");
  c.has_allow_host = o.has("allow-host");
  c.has_deny_host = o.has("deny-host");
  c.has_list_principal = o.has("principal");
  c.list_principals = o.values("principal");
  c.pattern_type_values = o.values("resource-pattern-type");
  return c;
}

// joptsimple's valueOf: the one value, or its complaint.
std::optional<failure> single(const cli::option_set& o, const std::string& name, std::optional<std::string>* out) {
  auto values = o.values(name);
  if (values.size() > 1)
    return acls::thrown("joptsimple.MultipleArgumentsForOptionException: Found multiple arguments for option " + name +
                        ", but you asked for only one");
  if (!values.empty()) *out = values.front();
  return std::nullopt;
}

// Admin.create(adminConfigs(opts)): the command config and the bootstrap
// addresses, read before anything else runs.
std::optional<failure> admin_settings(const cli::option_set& o, std::optional<std::string>* server,
                                      std::optional<std::string>* controller,
                                      std::vector<std::pair<std::string, std::string>>* config) {
  if (o.has("command-config")) {
    std::optional<std::string> path;
    if (auto f = single(o, "command-config", &path)) return f;
    if (!path) return acls::thrown("java.lang.NullPointerException");
    if (!std::filesystem::exists(*path)) return acls::thrown("java.nio.file.NoSuchFileException: " + *path);
    std::string error;
    if (!load_properties_file(*path, config, &error)) return acls::thrown("java.io.IOException: " + error);
  }
  if (auto f = single(o, "bootstrap-server", server)) return f;
  if (!*server)
    if (auto f = single(o, "bootstrap-controller", controller)) return f;
  std::vector<host_port> addresses;
  std::string why;
  if (!parse_host_ports(server->value_or(controller->value_or("")), &addresses, &why))
    return acls::thrown("org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient",
                        {"org.apache.kafka.common.config.ConfigException: " + why});
  return std::nullopt;
}

std::optional<failure> add_acls(acls::acl_admin& admin, const command_line& c, std::ostream& out) {
  acls::acl_pattern_type pattern{};
  if (auto f = acls::pattern_type(c, &pattern)) return f;
  if (pattern != acls::acl_pattern_type::literal && pattern != acls::acl_pattern_type::prefixed)
    return acls::usage("A '--resource-pattern-type' value of '" + std::string(to_string(pattern)) +
                       "' is not valid when adding acls.");
  acls::resource_map to_add;
  if (auto f = acls::filters_to_entries(c, &to_add)) return f;
  for (const auto& [r, entries] : to_add)
    if (entries.empty())
      return acls::usage("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.");
  for (const auto& [r, entries] : to_add) {
    std::vector<acls::acl_entry> existing, bindings;
    if (auto f = admin.describe(r, &existing)) return f;
    std::vector<acls::entry> added;
    for (const auto& e : entries) {
      const auto b = acls::binding(r, e);
      if (std::find(existing.begin(), existing.end(), b) != existing.end()) {
        out << acls::exists_text(b) << '\n';
      } else {
        added.push_back(e);
        bindings.push_back(b);
      }
    }
    if (bindings.empty()) continue;
    out << acls::adding_text(r, added) << '\n';
    out.flush();
    if (auto f = admin.create(bindings)) return f;
  }
  return std::nullopt;
}

std::optional<failure> remove_acls(acls::acl_admin& admin, const command_line& c, std::ostream& out) {
  acls::resource_map to_remove;
  if (auto f = acls::filters_to_entries(c, &to_remove)) return f;
  for (const auto& [filter, entries] : to_remove) {
    bool yes = true;
    if (!c.force)
      if (auto f = acls::confirm(acls::removal_question(filter, entries), std::cin, out, &yes)) return f;
    if (!yes) continue;
    std::vector<std::optional<acls::entry>> entry_filters;
    if (entries.empty()) entry_filters.emplace_back();
    for (const auto& e : entries) entry_filters.emplace_back(e);
    if (auto f = admin.remove(filter, entry_filters)) return f;
  }
  return std::nullopt;
}

void print_resources(const acls::resource_map& m, std::ostream& out) {
  for (const auto& [r, entries] : m) out << acls::current_text(r, entries) << '\n';
}

std::optional<failure> list_acls(acls::acl_admin& admin, const command_line& c, std::ostream& out) {
  std::vector<acls::resource> filters;
  if (auto f = acls::resource_filters(c, false, &filters)) return f;
  std::vector<std::string> principals;
  if (auto f = acls::principals(c.list_principals, &principals)) return f;
  std::vector<acls::acl_entry> bindings;
  if (filters.empty()) {
    if (auto f = admin.describe(std::nullopt, &bindings)) return f;
  }
  for (const auto& filter : filters) {
    std::vector<acls::acl_entry> some;
    if (auto f = admin.describe(filter, &some)) return f;
    bindings.insert(bindings.end(), some.begin(), some.end());
  }
  acls::resource_map all;
  for (const auto& b : bindings) acls::add_distinct(acls::entries_of(all, acls::resource_of(b)), acls::entry_of(b));
  if (principals.empty()) {
    print_resources(all, out);
    return std::nullopt;
  }
  for (const auto& principal : acls::principal_order(principals)) {
    out << "ACLs for principal `" << principal << "`\n";
    acls::resource_map theirs;
    for (const auto& [r, entries] : all)
      for (const auto& e : entries)
        if (e.principal == principal) acls::entries_of(theirs, r).push_back(e);
    print_resources(theirs, out);
  }
  return std::nullopt;
}

int report(const failure& f, const cli::option_parser& parser, tool_io io) {
  if (f.how == failure::kind::usage) return usage_error(parser, f.message, io);
  io.out << "Error while executing ACL command: " << f.message << '\n';
  for (const auto& line : f.trace) io.out << line << '\n';
  io.out << '\n';
  return 1;
}

}  // namespace

int kafka_acls(tool_args args, tool_io io) {
  const cli::option_parser parser = acl_options();
  cli::option_set opts;
  std::string error;
  if (!parser.parse(args, &opts, &error)) return usage_error(parser, error, io);
  if (args.empty() || opts.has("help")) return usage_error(parser, k_banner, io);
  if (opts.has("version")) {
    io.out << kafka_tools_version << '\n';
    return 0;
  }
  if (auto f = check_args(opts)) return report(*f, parser, io);
  std::optional<std::string> server, controller;
  std::vector<std::pair<std::string, std::string>> config;
  if (auto f = admin_settings(opts, &server, &controller, &config)) return report(*f, parser, io);
  acls::acl_admin admin([&](std::string* why) { return connect_admin(server ? server : controller, !server, config, why); });
  const command_line c = read_command_line(opts);
  std::optional<failure> f = c.add ? add_acls(admin, c, io.out) : c.remove ? remove_acls(admin, c, io.out)
                                                                            : list_acls(admin, c, io.out);
  return f ? report(*f, parser, io) : 0;
}

}  // namespace hw::tools
