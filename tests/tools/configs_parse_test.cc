// kafka-configs.sh's command line: --add-config's bracket syntax, the
// entity checks in ConfigCommandOptions.checkArgs' order with Kafka 4.3.1's
// messages (captured from kafka.admin.ConfigCommand), and the orders of
// Scala's collections that show in its messages.

#include <gtest/gtest.h>

#include <sstream>

#include "tools/commands/configs.h"
#include "tools/commands/tools.h"

namespace hw::tools::configs {
namespace {

properties parsed(const std::string& text) {
  properties p;
  std::string error;
  EXPECT_TRUE(parse_add_config(text, &p, &error)) << text << ": " << error;
  return p;
}

struct run_result {
  int status;
  std::string out, err;
};

run_result run(std::vector<std::string> args) {
  std::ostringstream out, err;
  int status = kafka_configs(args, {out, err});
  return {status, out.str(), err.str()};
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(ConfigsParse, AddConfigKeepsBracketedCommasAndDropsBrackets) {
  EXPECT_EQ(parsed("retention.ms=1000,cleanup.policy=[compact,delete]"),
            (properties{{"retention.ms", "1000"}, {"cleanup.policy", "compact,delete"}}));
  EXPECT_EQ(parsed(" a = 1 , b=[ x ]"), (properties{{"a", "1"}, {"b", "x"}}));
  EXPECT_EQ(parsed("k=[a=b,c]"), (properties{{"k", "a=b,c"}}));
  EXPECT_EQ(parsed("ssl.endpoint.identification.algorithm="),
            (properties{{"ssl.endpoint.identification.algorithm", ""}}));
  EXPECT_EQ(parsed("a=1,a=2,b=3"), (properties{{"a", "2"}, {"b", "3"}}));
  EXPECT_EQ(parsed("a=1,,"), (properties{{"a", "1"}}));
  EXPECT_EQ(parsed(","), properties{});  // String.split drops every empty piece
  const char* const bad[] = {"a", "", "k=v=w", ",a=1", "a=1,,b=2", "k=a]"};
  for (const char* text : bad) {
    properties p;
    std::string error;
    EXPECT_FALSE(parse_add_config(text, &p, &error)) << text;
    EXPECT_EQ(error,
              "requirement failed: Invalid entity config: all configs to be added must be in the format \"key=val\" "
              "or  \"key=[val1,val2]\" to group values which contain commas.");
  }
  EXPECT_EQ(invalid_key({{"ok.key", "1"}, {"a b", "2"}}), std::optional<std::string>("a b"));
  EXPECT_EQ(invalid_key({{"Logger$Inner", "1"}}), std::nullopt);
}

TEST(ConfigsParse, DeleteConfigValuesSplitAsJoptSimpleDoes) {
  EXPECT_EQ(separated_values("a,b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(separated_values("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(separated_values(","), std::vector<std::string>{","});
  EXPECT_EQ(separated_values(""), std::vector<std::string>{""});
}

TEST(ConfigsParse, ScalaCollectionsOrder) {
  // Up to four elements keep their order; more are a CHAMP trie's order,
  // as Kafka 4.3.1 printed "Set(e, a, b, c, d)" and these groups.
  EXPECT_EQ(scala_hash_order({"d", "c", "b", "a"}), (std::vector<std::string>{"d", "c", "b", "a"}));
  EXPECT_EQ(scala_hash_order({"a", "b", "c", "d", "e"}), (std::vector<std::string>{"e", "a", "b", "c", "d"}));
  EXPECT_EQ(scala_hash_order({"g1", "g2", "g3", "alpha", "zz-top"}),
            (std::vector<std::string>{"alpha", "g2", "g1", "zz-top", "g3"}));
  EXPECT_EQ(scala_string("Set", {"a", "b"}), "Set(a, b)");
  EXPECT_EQ(scala_string("ArrayBuffer", {}), "ArrayBuffer()");
}

TEST(ConfigsParse, TopicNamesAndIntegers) {
  EXPECT_EQ(invalid_topic_name("orders"), "");
  EXPECT_EQ(invalid_topic_name("a b"),
            "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' "
            "and '-'");
  EXPECT_EQ(invalid_topic_name("."), "Topic name is invalid: '.' is not allowed");
  EXPECT_EQ(invalid_topic_name(""), "Topic name is invalid: the empty string is not allowed");
  EXPECT_NE(invalid_topic_name(std::string(250, 'x')).find("longer than the max allowed length 249"), std::string::npos);
  int32_t v = 0;
  EXPECT_TRUE(java_int("+12", &v));
  EXPECT_EQ(v, 12);
  EXPECT_TRUE(java_int("-2147483648", &v));
  EXPECT_FALSE(java_int("2147483648"));
  EXPECT_FALSE(java_int(" 1"));
  EXPECT_FALSE(java_int(""));
  EXPECT_EQ(java_trim(" \t x y \n"), "x y");
}

TEST(ConfigsParse, EntityNamesFollowTheCommandLine) {
  const std::vector<std::string> with_values = {"entity-type", "entity-name", "bootstrap-server"};
  EXPECT_EQ(names_in_order({"--entity-type", "users", "--entity-default", "--entity-type", "clients",
                            "--entity-name=c", "--bootstrap-server", "--entity-name"},
                           with_values),
            (std::vector<std::string>{"entity-default", "entity-name"}));
}

// Command lines Kafka's tool refuses before it connects: stderr's first
// line and the exit status, as Kafka 4.3.1 printed them.
TEST(ConfigsParse, CommandLineChecksInKafkasOrder) {
  const std::string b = "127.0.0.1:1";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bootstrap-server", b}, "Command must include exactly one action: --describe, --alter"},
      {{"--bootstrap-server", b, "--describe", "--alter", "--topic", "t"},
       "Command must include exactly one action: --describe, --alter"},
      {{"--bootstrap-server", b, "--describe", "--topic", "t", "--add-config", "a=b"},
       "Option \"[describe]\" can't be used with option \"[add-config]\""},
      {{"--describe", "--topic", "t"}, "Either --bootstrap-server or --bootstrap-controller must be specified."},
      {{"--bootstrap-server", b, "--bootstrap-controller", b, "--describe", "--topic", "t"},
       "Only one of --bootstrap-server or --bootstrap-controller can be specified"},
      {{"--bootstrap-server", b, "--describe", "--entity-type", "foo"},
       "Invalid entity type foo, the entity type must be one of topics, clients, users, brokers, ips, "
       "client-metrics, groups, broker-loggers with a --bootstrap-server or --bootstrap-controller argument"},
      {{"--bootstrap-server", b, "--describe"}, "At least one entity type must be specified"},
      {{"--bootstrap-server", b, "--describe", "--entity-type", "topics", "--entity-type", "brokers"},
       "Only 'users' and 'clients' entity types may be specified together"},
      {{"--bootstrap-server", b, "--describe", "--entity-type", "topics", "--topic", "x"},
       "Duplicate entity type(s) specified: topics"},
      {{"--bootstrap-server", b, "--describe", "--entity-name", "x", "--topic", "t"},
       "--entity-{type,name,default} should not be used in conjunction with specific entity flags"},
      {{"--bootstrap-server", b, "--describe", "--topic", "a", "--topic", "b"},
       "Found multiple arguments for option topic, but you asked for only one"},
      {{"--bootstrap-server", b, "--describe", "--broker", "abc"},
       "The entity name for brokers must be a valid integer broker id, but it is: abc"},
      {{"--bootstrap-server", b, "--describe", "--entity-type", "topics", "--entity-default"},
       "--entity-default must not be specified with --describe of topics"},
      {{"--bootstrap-server", b, "--describe", "--entity-type", "broker-loggers"},
       "An entity name must be specified with --describe of broker-loggers"},
      {{"--bootstrap-server", b, "--alter", "--entity-type", "brokers", "--add-config", "a=b"},
       "An entity-name or default entity must be specified with --alter of users, clients, brokers or ips"},
      {{"--bootstrap-server", b, "--alter", "--entity-type", "topics", "--add-config", "x=y"},
       "An entity name must be specified with --alter of topics"},
      {{"--bootstrap-server", b, "--alter", "--topic", "t"},
       "At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter"},
      {{"--bootstrap-server", b, "--alter", "--topic", "t", "--add-config", "a=b", "--add-config-file", "f"},
       "Only one of --add-config or --add-config-file must be specified"},
      {{"--bootstrap-server", b, "--alter", "--entity-type", "users", "--entity-type", "clients", "--entity-name", "u",
        "--add-config", "consumer_byte_rate=10"},
       "An entity name must be specified for every entity type"},
      {{"--bootstrap-server", b, "--alter", "--topic", "t", "--add-config", "a b=c"},
       "Invalid character found for config key: a b"},
      // joptsimple reads "--describe=yes" as --describe.
      {{"--bootstrap-server", b, "--describe=yes", "--alter=no", "--topic", "t"},
       "Command must include exactly one action: --describe, --alter"},
      {{"--bootstrap-server", b, "--foo"}, "foo is not a recognized option"},
      {{"--bootstrap-server", b, "--describe", "--topic"}, "Option topic requires an argument"},
  };
  for (const auto& [args, message] : cases) {
    auto r = run(args);
    EXPECT_EQ(r.status, 1) << message;
    EXPECT_EQ(first_line(r.err), message);
    EXPECT_EQ(r.out, "") << message;
  }
  auto version = run({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out, "4.3.1\n");
}

TEST(ConfigsParse, UserAndClientConfigChecks) {
  const std::string b = "127.0.0.1:1";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--alter", "--user", "u", "--add-config", "a=1,b=2,c=3,d=4,e=5"},
       "Only quota and SCRAM credential configs can be added for 'users' using --bootstrap-server. Unexpected "
       "config names: Set(e, a, b, c, d)"},
      {{"--alter", "--user", "u", "--delete-config", "a,b"},
       "Only quota and SCRAM credential configs can be deleted for 'users' using --bootstrap-server. Unexpected "
       "config names: ArrayBuffer(a, b)"},
      {{"--alter", "--client", "c", "--add-config", "a=1,b=2,SCRAM-SHA-256=x"},
       "Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected config names: "
       "Set(a, b, SCRAM-SHA-256)"},
      {{"--alter", "--client", "c", "--delete-config", "a,SCRAM-SHA-256"},
       "Only quota configs can be deleted for 'clients' using --bootstrap-server. Unexpected config names: "
       "ArrayBuffer(a, SCRAM-SHA-256)"},
      {{"--alter", "--ip", "1.2.3.4", "--add-config", "a=1,b=2", "--delete-config", "c"},
       "Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config names: a,b,c"},
      {{"--alter", "--user-defaults", "--add-config", "SCRAM-SHA-256=[password=x]"},
       "The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using "
       "--bootstrap-server."},
      {{"--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[password=x],consumer_byte_rate=1"},
       "Cannot alter both quota and SCRAM credential configs simultaneously for 'users' using --bootstrap-server."},
  };
  // Each fails its checks before any request (the bootstrap is never reached).
  for (auto [args, message] : cases) {
    args.insert(args.begin(), {"--bootstrap-server", b});
    auto r = run(args);
    EXPECT_EQ(r.status, 1) << message;
    EXPECT_EQ(r.err, message + "\n");
  }
  properties p;
  std::string error;
  ASSERT_TRUE(parse_add_config("a=1,b=2,c=3,d=4,e=5", &p, &error));
  EXPECT_EQ(scala_map_keys(p), (std::vector<std::string>{"e", "a", "b", "c", "d"}));
}

}  // namespace
}  // namespace hw::tools::configs
