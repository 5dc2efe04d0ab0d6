#pragma once
// kafka-configs.sh (Kafka 4.3's kafka.admin.ConfigCommand), split by concern:
//   configs.cc           options, the command line's checks, the flow, errors
//   configs_parse.cc     pure parts: entity types and names, --add-config's
//                        bracket syntax, topic names, Scala collection orders
//   configs_client.cc    the requests (DescribeConfigs, IncrementalAlterConfigs,
//                        Metadata, ListGroups, ListConfigResources) routed as
//                        Kafka's admin client routes them
//   configs_describe.cc  --describe
//   configs_alter.cc     --alter
//   configs_scram.cc     SCRAM credentials of users
//   configs_quotas.cc    client quotas of users, clients and ips
// Declarations here are internal to the tool (and its unit tests).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/sasl/scram.h"
#include "tools/commands/command.h"

namespace hw::tools::configs {

// Entity types as written on the command line (ConfigType's values).
inline constexpr std::string_view topics = "topics";
inline constexpr std::string_view clients = "clients";
inline constexpr std::string_view users = "users";
inline constexpr std::string_view brokers = "brokers";
inline constexpr std::string_view ips = "ips";
inline constexpr std::string_view client_metrics = "client-metrics";
inline constexpr std::string_view groups = "groups";
inline constexpr std::string_view broker_loggers = "broker-loggers";

// How a failed command ends, as ConfigCommand.main reports it (exit 1 in
// every case).
struct failure {
  enum class kind {
    message,    // IllegalArgument/InvalidConfiguration/Option/UnsupportedVersion: the message alone
    usage,      // CommandLineUtils.printUsageAndExit: the message, then the option table
    executing,  // anything else: "Error while executing config command with args '...'" and the exception
  };
  kind how = kind::message;
  std::string message;  // message/usage: the line printed
  // executing: the exception's lines as Java prints them (without frames).
  std::vector<std::string> trace;
};

failure plain(std::string message);
// An exception thrown by a future: ExecutionException wrapping `cause`
// ("org.apache...SomeException: message").
failure execution(const std::string& cause);
// What a call the controllers do not serve fails with under
// --bootstrap-controller (UnsupportedEndpointTypeException).
failure unsupported_endpoint();
// An exception thrown directly (java.nio.file.NoSuchFileException: path).
failure thrown(std::string exception);

// "<class>: <message>" of an error code as Kafka's admin client raises it:
// the broker's message when it sent one (even an empty one), else Errors'
// default message.
std::string kafka_exception(int16_t code, const std::optional<std::string>& broker_message);

// ---- the command line (configs_parse.cc) ----

// What ConfigCommandOptions derives from the options given.
struct command_line {
  bool alter = false, describe = false, all = false;
  std::optional<std::string> bootstrap_server, bootstrap_controller, command_config;
  std::optional<std::string> add_config, add_config_file;
  size_t add_config_count = 0, add_config_file_count = 0;  // joptsimple's valueOf wants one
  bool has_delete_config = false;
  std::vector<std::string> delete_config;  // trimmed, split on ','
  // entityTypes / entityNames: --entity-type values then the entity flags
  // (--topic ... --group, then --client-defaults ... --ip-defaults); names
  // of --entity-name / --entity-default in command-line order ("" for a
  // default), then the flags' values.
  std::vector<std::string> entity_types, entity_names;
  // What reading entityNames throws (an entity flag given twice), met
  // where checkArgs first reads the names.
  std::optional<std::string> names_error;
  bool has_entity_type = false, has_entity_name = false, has_entity_default = false;
  bool has_entity_flag = false;  // any of --topic ... --ip-defaults
  // Values of --entity-name and of --broker, --broker-logger, --ip as given
  // (checkArgs validates them).
  std::vector<std::string> entity_name_values;
  std::optional<std::string> broker, broker_logger, ip;
  std::string joined_args;  // args.mkString(" ")
};

// The occurrences of --entity-name and --entity-default, in order (the
// options that take a value named, to walk the arguments as the parser does).
std::vector<std::string> names_in_order(const std::vector<std::string>& args,
                                        const std::vector<std::string>& options_with_values);

// ConfigCommandOptions.checkArgs past the action checks: the first failure.
std::optional<failure> check_entities(const command_line& c);

// IP address or resolvable host name (InetAddress.getByName).
bool valid_ip_entity(const std::string& ip);

// Topic.validate: empty, or "Topic name is invalid: ...".
std::string invalid_topic_name(const std::string& name);

// joptsimple's withValuesSeparatedBy(','): the non-empty pieces, or the
// value itself when it has none.
std::vector<std::string> separated_values(const std::string& value);

// Integer.parseInt.
bool java_int(std::string_view text, int32_t* out = nullptr);
// String.trim().
std::string java_trim(std::string_view text);

// ---- --add-config ----

// Properties in the order ConfigCommand meets them: a java Properties
// (iteration in its hash order), keys unique, later values replacing.
using properties = std::vector<std::pair<std::string, std::string>>;

// Splits "k1=v1,k2=[a,b]" as parseConfigsToBeAdded does (commas and '='
// inside brackets kept, brackets dropped, keys and values trimmed) and
// sets each pair into *props. False with the message.
bool parse_add_config(const std::string& text, properties* props, std::string* error);
void set_property(properties* props, const std::string& key, const std::string& value);
// validatePropsKey: the first key with a character other than [$a-zA-Z0-9._-].
std::optional<std::string> invalid_key(const properties& props);

// The order Scala's immutable Map/Set (Map1..4 / Set1..4 keep insertion
// order; larger ones are CHAMP tries) iterates distinct strings.
std::vector<std::string> scala_hash_order(const std::vector<std::string>& items);
// The keys of `props` in the order props.asScala.toMap iterates them.
std::vector<std::string> scala_map_keys(const properties& props);
// Scala's toString of a Set or ArrayBuffer: "Set(a, b)".
std::string scala_string(std::string_view prefix, const std::vector<std::string>& items);
std::string join(const std::vector<std::string>& items, std::string_view separator);

// ---- printed lines ----

struct synonym {
  std::string name;
  std::optional<std::string> value;
  int8_t source = 0;
};
struct config_entry {
  std::string name;
  std::optional<std::string> value;
  int8_t source = 0;  // DescribeConfigs' ConfigSource id
  bool sensitive = false;
  std::vector<synonym> synonyms;
};

// ConfigEntry.ConfigSource's name for a DescribeConfigs source id.
std::string source_name(int8_t id);
// "  name=value sensitive=false synonyms={SOURCE:name=value, ...}".
std::string entry_line(const config_entry& e);
// The header of one entity's configs.
std::string describe_header(std::string_view entity_type, const std::string& name, bool all);
// "The topic 'x' doesn't exist and doesn't have dynamic config."
std::string missing_line(std::string_view entity_type, const std::string& name);
// Entries with the given source (none: every entry), sorted by name.
std::vector<config_entry> filter_and_sort(std::vector<config_entry> entries, std::optional<int8_t> source);

// ---- requests (configs_client.cc) ----

// ConfigResource.Type ids.
enum class resource_type : int8_t { topic = 2, broker = 4, broker_logger = 8, client_metrics = 16, group = 32 };

// One SCRAM credential to set (kafka-configs' SCRAM-SHA-256=[iterations=..,password=..]).
struct scram_upsert {
  protocol::scram_mechanism mechanism = protocol::scram_mechanism::sha256;
  int32_t iterations = 4096;
  std::string password;
};

struct alter_op {
  std::string name;
  bool remove = false;  // DELETE, else SET
  std::string value;
};

// A component of a client quota filter: an entity type ("user",
// "client-id", "ip") and a name, the default (no name), or any entity of
// the type.
struct quota_component {
  std::string entity_type;
  std::optional<std::string> name;
  bool any = false;
};
// One entity's client quotas as describeClientQuotas returns them: its
// (type, name) pairs and its values, each in the admin client's order.
struct quota_description {
  std::vector<std::pair<std::string, std::optional<std::string>>> entity;
  std::vector<std::pair<std::string, double>> values;
};

// getAllClientQuotasConfigs' filter: each --entity-type with the name in
// its place ("" the default), or any entity of the types without one.
std::vector<quota_component> quota_components(const command_line& c);
// "Quota configs for user-principal 'alice', client-id 'app' are
// producer_byte_rate=1024.0".
std::string quota_line(const quota_description& d);
// Double.parseDouble (Scala's toDouble): false where it throws.
bool java_parse_double(const std::string& text, double* out);

// Kafka's admin client calls as ConfigCommand makes them, each failing as
// the future ConfigCommand waits on fails.
class config_admin {
 public:
  // Connects on first use, as Kafka's admin client does: a command that
  // fails its own checks first never waits for the cluster.
  using connector = std::function<std::unique_ptr<admin_client>(std::string* error)>;
  explicit config_admin(connector connect) : connect_(std::move(connect)) {}

  // describeConfigs of one resource (.all.get(30, SECONDS)).
  std::optional<failure> describe(resource_type type, const std::string& name, bool synonyms,
                                  std::vector<config_entry>* out);
  // incrementalAlterConfigs of one resource (timeoutMs 30000). *unsupported
  // when the node lacks IncrementalAlterConfigs.
  std::optional<failure> alter(resource_type type, const std::string& name, const std::vector<alter_op>& ops,
                               bool* unsupported);
  // listTopics(listInternal): the names in the HashMap order it returns them.
  std::optional<failure> topic_names(std::vector<std::string>* out);
  // describeCluster().nodes(): the ids in HashMap order.
  std::optional<failure> node_ids(std::vector<std::string>* out);
  // listGroups().all: the group ids in HashMap order.
  std::optional<failure> group_ids(std::vector<std::string>* out);
  // listConfigResources of one type; *unsupported when the broker cannot list it.
  std::optional<failure> config_resources(resource_type type, std::vector<std::string>* out, bool* unsupported);
  // describeClientQuotas(ClientQuotaFilter.containsOnly(components))
  // (.entities.get(30, SECONDS)): the entities in the order the admin
  // client's HashMap iterates them (configs_quotas.cc).
  std::optional<failure> describe_quotas(const std::vector<quota_component>& components,
                                         std::vector<quota_description>* out);
  // alterClientQuotas of one entity (all().get(60, SECONDS)): ops with a
  // value set it, the others remove the key.
  std::optional<failure> alter_quotas(const std::vector<std::pair<std::string, std::optional<std::string>>>& entity,
                                      const std::vector<std::pair<std::string, std::optional<double>>>& ops);
  // alterUserScramCredentials of one user (all().get(60, SECONDS)): the
  // deletions, then the upsertions, salted here as Kafka's admin client
  // salts them (a random salt, PBKDF2 on OpenSSL), never the password sent.
  std::optional<failure> alter_scram(const std::string& user, const std::vector<protocol::scram_mechanism>& deletions,
                                     const std::vector<scram_upsert>& upsertions);
  // describeUserScramCredentials(users) as ConfigCommand prints it: a line
  // per user described ("SCRAM credential configs for user-principal ...").
  std::optional<failure> describe_scram(const std::vector<std::string>& users, std::vector<std::string>* lines);

 private:
  // The connected client, or how `call` fails without one.
  admin_client* client(const std::string& call, std::optional<failure>* f);
  // The node a call goes to: -1 for any (the bootstrap one).
  int32_t any_or_controller() const;
  bool wait_for_node(int32_t node, clock::time_point deadline);
  connector connect_;
  std::unique_ptr<admin_client> admin_;
};

// ---- the two actions (configs_describe.cc, configs_alter.cc) ----

std::optional<failure> describe_configs(config_admin& admin, const command_line& c, std::ostream& out);
std::optional<failure> alter_configs(config_admin& admin, const command_line& c, const properties& added,
                                     std::ostream& out);
// parseConfigsToBeAdded: --add-config-file then --add-config.
std::optional<failure> configs_to_add(const command_line& c, properties* out);

}  // namespace hw::tools::configs
