// kafka-delegation-tokens.sh: Kafka's DelegationTokenCommand. Reads the
// command line as its options class does (joptsimple's parse, the help and
// version, exactly one action, the required and the forbidden options, in
// that order), makes the admin client as Admin.create would (the command
// config, the bootstrap address, the security keys, checked before anything
// is sent), then creates, renews, expires or describes tokens through
// CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken and
// DescribeDelegationToken, printing what Kafka's tool prints. Each option's
// value is read when the command first asks for it, so that a bad one fails
// where Kafka's fails (some after the "Calling ..." line).

#include <filesystem>
#include <ostream>
#include <vector>

#include "tools/client/client_security.h"
#include "tools/client/connection.h"
#include "tools/commands/delegation_tokens.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using dtokens::failure;

const char* const k_banner = "This tool helps to create, renew, expire, or describe delegation tokens.";

cli::option_parser token_options() {
  cli::option_parser p = default_options();
  p.option("bootstrap-server", "String: server(s)", "REQUIRED. The broker(s) to connect to, HOST:PORT[,HOST:PORT].");
  p.option("command-config", "String: config file",
           "REQUIRED. A properties file with the admin client's settings. Tokens are managed over\n"
           "authenticated connections only (SASL, or TLS with client certificates): the file carries the\n"
           "security settings.");
  p.flag("create", "Create a token (its renewers with --renewer-principal, its owner with --owner-principal).");
  p.flag("renew", "Renew the token of --hmac for --renew-time-period.");
  p.flag("expire", "Expire the token of --hmac after --expiry-time-period.");
  p.flag("describe",
         "List the tokens of the owners or renewers given with --owner-principal; without it, Kafka's\n"
         "tool sends an empty owner list.");
  p.optional("owner-principal", "String: principal",
             "A principal, Type:name. With --create the token's owner (the first given); with --describe\n"
             "an owner or renewer whose tokens are listed (repeatable).");
  p.optional("renewer-principal", "String: principal",
             "With --create, a principal that may renew the token, Type:name (repeatable).");
  p.optional_long("max-life-time-period", "Long",
                  "With --create, the token's longest life in milliseconds; -1: the broker's\n"
                  "delegation.token.max.lifetime.ms.");
  p.optional_long("renew-time-period", "Long",
                  "With --renew, how long the token lives on in milliseconds; -1: the broker's\n"
                  "delegation.token.expiry.time.ms.");
  p.optional_long("expiry-time-period", "Long",
                  "With --expire, how long the token has left in milliseconds; -1: it ends now.");
  p.optional("hmac", "String: hmac", "The token's HMAC, as printed when it was created (base64).");
  return p;
}

int report(const failure& f, const cli::option_parser& parser, tool_io io) {
  io.out.flush();
  if (f.usage) return usage_error(parser, f.message, io);
  io.err << dtokens::failure_text(f);
  return 1;
}

// joptsimple's exception for a command line it cannot read.
failure parse_failed(const std::string& message) {
  if (message.ends_with("is not a recognized option"))
    return dtokens::thrown("joptsimple.UnrecognizedOptionException", message);
  if (message.ends_with("requires an argument"))
    return dtokens::thrown("joptsimple.OptionMissingRequiredArgumentException", message);
  return failure{false, message, {}};
}

// DelegationTokenCommandOptions.checkArgs. Where several forbidden options
// are given Kafka names any one of them (its Set.of iterates in a
// per-run order); this names the first in the option list's order.
std::optional<failure> check_args(const cli::option_set& o) {
  auto required = [&](std::initializer_list<const char*> names) -> std::optional<failure> {
    for (const char* n : names)
      if (!o.has(n)) return dtokens::usage(std::string("Missing required argument \"[") + n + "]\"");
    return std::nullopt;
  };
  if (auto f = required({"bootstrap-server", "command-config"})) return f;
  if (o.has("create"))
    if (auto f = required({"max-life-time-period"})) return f;
  if (o.has("renew"))
    if (auto f = required({"hmac", "renew-time-period"})) return f;
  if (o.has("expire"))
    if (auto f = required({"hmac", "expiry-time-period"})) return f;
  struct rule {
    const char* used;
    std::vector<const char*> invalid;
  };
  const rule rules[] = {
      {"create", {"hmac", "renew-time-period", "expiry-time-period"}},
      {"renew", {"renewer-principal", "max-life-time-period", "expiry-time-period", "owner-principal"}},
      {"expire", {"renew", "max-life-time-period", "renew-time-period", "owner-principal"}},
      {"describe", {"renew-time-period", "max-life-time-period", "hmac", "expiry-time-period"}},
  };
  for (const rule& r : rules) {
    if (!o.has(r.used)) continue;
    for (const char* other : r.invalid)
      if (o.has(other))
        return dtokens::usage(std::string("Option \"[") + r.used + "]\" can't be used with option \"[" + other + "]\"");
  }
  return std::nullopt;
}

// createAdminClient: Utils.loadProps of --command-config, bootstrap.servers
// set from --bootstrap-server, then what Admin.create checks before it
// sends anything, in its order: the config's values, the bootstrap
// addresses, the login.
std::optional<failure> admin_settings(const cli::option_set& o, std::string* bootstrap, property_pairs* config) {
  std::optional<std::string> path;
  if (auto f = dtokens::string_value(o.values("command-config"), "command-config", &path)) return f;
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) return dtokens::thrown("java.nio.file.NoSuchFileException", *path);
  if (std::filesystem::is_directory(*path, ec)) return dtokens::thrown("java.io.IOException", "Is a directory");
  std::string error;
  if (!load_properties_file(*path, config, &error)) return dtokens::thrown("java.io.IOException", error);
  std::optional<std::string> server;
  if (auto f = dtokens::string_value(o.values("bootstrap-server"), "bootstrap-server", &server)) return f;
  *bootstrap = *server;

  const char* const k_admin_failed = "Failed to create new KafkaAdminClient";
  auto admin_failed = [&](std::vector<std::string> causes) {
    return dtokens::thrown("org.apache.kafka.common.KafkaException", k_admin_failed, std::move(causes));
  };
  std::optional<failure> login;
  auto security = client_security_from(*config);
  if (auto* why = std::get_if<std::string>(&security)) {
    if (why->starts_with("Invalid value"))
      return dtokens::thrown("org.apache.kafka.common.config.ConfigException", *why);
    if (why->find("not supported by the native tools") != std::string::npos || why->starts_with("sasl.jaas.config:")) {
      login = failure{false, *why, {}};
    } else {
      std::vector<std::string> causes{"org.apache.kafka.common.KafkaException: Failed to create new NetworkClient"};
      if (login_context_failure(*why)) {
        for (size_t start = 0; start <= why->size();) {  // the exception and its causes, one a line
          const size_t end = why->find('\n', start);
          std::string line = why->substr(start, end == std::string::npos ? std::string::npos : end - start);
          causes.push_back(line.starts_with("Caused by: ") ? line.substr(11) : line);
          if (end == std::string::npos) break;
          start = end + 1;
        }
      } else {
        causes.push_back("java.lang.IllegalArgumentException: " + *why);
      }
      login = admin_failed(std::move(causes));
    }
  }
  std::vector<host_port> addresses;
  if (!parse_host_ports(*bootstrap, &addresses, &error))
    return admin_failed({"org.apache.kafka.common.config.ConfigException: " + error});
  return login;
}

std::optional<failure> create_token(dtokens::token_admin& admin, const cli::option_set& o, std::ostream& out) {
  std::vector<dtokens::principal> renewers, owners;
  if (auto f = dtokens::principals(o.values("renewer-principal"), &renewers)) return f;
  int64_t max_life = 0;
  if (auto f = dtokens::long_value(o.values("max-life-time-period"), "max-life-time-period", &max_life)) return f;
  out << dtokens::create_calling_line(renewers, max_life) << '\n';
  out.flush();
  if (auto f = dtokens::principals(o.values("owner-principal"), &owners)) return f;
  dtokens::token t;
  const auto owner = owners.empty() ? std::nullopt : std::optional<dtokens::principal>(owners.front());
  if (auto f = admin.create(renewers, owner, max_life, &t)) return f;
  out << "Created delegation token with tokenId : " << t.token_id << '\n' << dtokens::token_table({t});
  return std::nullopt;
}

// --renew and --expire: the same steps, their own words.
std::optional<failure> renew_or_expire(dtokens::token_admin& admin, const cli::option_set& o, bool renew,
                                       std::ostream& out) {
  std::optional<std::string> hmac_text;
  if (auto f = dtokens::string_value(o.values("hmac"), "hmac", &hmac_text)) return f;
  const char* const period_option = renew ? "renew-time-period" : "expiry-time-period";
  int64_t period = 0;
  if (auto f = dtokens::long_value(o.values(period_option), period_option, &period)) return f;
  out << (renew ? dtokens::renew_calling_line(hmac_text, period) : dtokens::expire_calling_line(hmac_text, period))
      << '\n';
  out.flush();
  std::vector<uint8_t> hmac;
  if (auto f = dtokens::decode_hmac(hmac_text, &hmac)) return f;
  int64_t expiry = 0;
  if (auto f = renew ? admin.renew(hmac, period, &expiry) : admin.expire(hmac, period, &expiry)) return f;
  // printf without a line break, as Kafka's tool ends it.
  out << (renew ? "Completed renew operation." : "Completed expire operation.")
      << " New expiry date : " << dtokens::date_text(expiry);
  return std::nullopt;
}

std::optional<failure> describe_tokens(dtokens::token_admin& admin, const cli::option_set& o, std::ostream& out) {
  std::vector<dtokens::principal> owners;
  if (auto f = dtokens::principals(o.values("owner-principal"), &owners)) return f;
  out << dtokens::describe_calling_line(owners) << '\n';
  out.flush();
  std::vector<dtokens::token> tokens;
  if (auto f = admin.describe(owners, &tokens)) return f;
  out << "Total number of tokens : " << tokens.size() << dtokens::token_table(tokens);
  return std::nullopt;
}

}  // namespace

int kafka_delegation_tokens(tool_args args, tool_io io) {
  const cli::option_parser parser = token_options();
  cli::option_set opts;
  std::string error;
  if (!parser.parse(args, &opts, &error)) return report(parse_failed(error), parser, io);
  if (args.empty() || opts.has("help")) return usage_error(parser, k_banner, io);
  if (opts.has("version")) {
    io.out << kafka_tools_version << '\n';
    return 0;
  }
  if (opts.has("create") + opts.has("renew") + opts.has("expire") + opts.has("describe") != 1)
    return usage_error(parser, "Command must include exactly one action: --create, --renew, --expire or --describe",
                       io);
  if (auto f = check_args(opts)) return report(*f, parser, io);
  std::string bootstrap;
  property_pairs config;
  if (auto f = admin_settings(opts, &bootstrap, &config)) return report(*f, parser, io);
  dtokens::token_admin admin([&](std::string* why) { return connect_admin(bootstrap, false, config, why); });
  std::optional<failure> f = opts.has("create")  ? create_token(admin, opts, io.out)
                             : opts.has("renew") ? renew_or_expire(admin, opts, true, io.out)
                             : opts.has("expire") ? renew_or_expire(admin, opts, false, io.out)
                                                  : describe_tokens(admin, opts, io.out);
  return f ? report(*f, parser, io) : 0;
}

}  // namespace hw::tools
