// The native kafka-configs.sh against Kafka 4.3.1's ConfigCommand: the same
// arguments against the same highwater print the same stdout, line by line,
// exit the same way, and print the same message on stderr; where Kafka's
// tool ends with "Error while executing config command", the exception
// lines it prints (frames aside) are the native tool's too. An --alter is
// run by both tools with the same arguments (setting a config twice leaves
// it as once), then both describe the result.
//
// One broker for the suite, with a controller listener for
// --bootstrap-controller; each test uses entities of its own. Kafka's tool
// runs 45 times in all.

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <sstream>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_config_command = "kafka.admin.ConfigCommand";

// Kafka's messages on stderr: without log4j's lines, the exception lines and
// their frames, and the JVM's own lines.
std::vector<std::string> stderr_messages(const std::string& err) {
  static const std::regex log_line(R"(^\[\d{4}-\d\d-\d\d .*)");
  static const std::regex trace_line(
      R"(^(\s+at |\s*\.\.\. \d+ more|Caused by: |(java|javax|org\.apache|joptsimple)\.[\w.$]+(Exception|Error)\b).*)");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!std::regex_match(line, log_line) && !std::regex_match(line, trace_line) && !jvm_log_line(line))
      out.push_back(line);
  return out;
}

// The exception lines of a stack trace: the exception and its causes.
std::vector<std::string> exception_lines(const std::string& err) {
  static const std::regex exception(R"(^(Caused by: )?(java|org\.apache)\.[\w.$]+(Exception|Error)\b.*)");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, exception)) out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += " " + a;
  return s;
}

class NativeConfigsIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker = std::make_unique<broker_process>();
    controller_port = start_with_controller_listener(*broker).value_or(0);
  }
  static void TearDownTestSuite() { broker.reset(); }
  void SetUp() override { ASSERT_NE(controller_port, 0) << broker->log(); }

  static std::string bootstrap() { return "127.0.0.1:" + std::to_string(broker->port()); }
  static std::string controller() { return "127.0.0.1:" + std::to_string(controller_port); }

  // Both tools, same arguments (--bootstrap-server first unless the
  // arguments name how to connect), same state; `usage_follows` when Kafka
  // prints its option table after the message (the texts differ).
  void same(std::vector<std::string> args, bool usage_follows = false) {
    if (args.empty() || (args[0] != "--bootstrap-controller" && args[0] != "--bootstrap-server"))
      args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    auto java = run_kafka_tool(broker->dir(), k_config_command, args);
    auto native = run_native_tool(broker->dir(), "kafka-configs.sh", args);
    const std::string what = joined(args) + "\njava:\n" + java.all() + "native:\n" + native.all();
    EXPECT_EQ(tool_lines(native), tool_lines(java)) << what;
    EXPECT_EQ(native.exit_code, java.exit_code) << what;
    auto java_messages = stderr_messages(java.err), native_messages = stderr_messages(native.err);
    if (usage_follows) {
      java_messages.resize(std::min<size_t>(java_messages.size(), 1));
      native_messages.resize(std::min<size_t>(native_messages.size(), 1));
    }
    EXPECT_EQ(native_messages, java_messages) << what;
    EXPECT_EQ(exception_lines(native.err), exception_lines(java.err)) << what;
  }

  void native_only(std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    auto r = run_native_tool(broker->dir(), "kafka-configs.sh", args);
    ASSERT_EQ(r.exit_code, 0) << joined(args) << "\n" << r.all();
  }

  static void create_topic(const std::string& name) {
    auto r = run_native_tool(broker->dir(), "kafka-topics.sh",
                             {"--bootstrap-server", bootstrap(), "--create", "--topic", name, "--partitions", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.all();
  }

  static std::unique_ptr<broker_process> broker;
  static uint16_t controller_port;
};

std::unique_ptr<broker_process> NativeConfigsIT::broker;
uint16_t NativeConfigsIT::controller_port = 0;

// Refused before any request, with Kafka's words (and its Scala
// collections' orders).
TEST_F(NativeConfigsIT, CommandLinesKafkaRefuses) {
  same({"--describe", "--entity-type", "foo"});
  same({"--alter", "--topic", "t"});
  same({"--describe", "--topic", "t", "--add-config", "a=b"}, true);
  same({"--alter", "--topic", "t", "--add-config", "a"});
  same({"--alter", "--user", "u", "--add-config", "a=1,b=2,c=3,d=4,e=5"});
  same({"--alter", "--client", "c", "--delete-config", "a,SCRAM-SHA-256"});
}

TEST_F(NativeConfigsIT, TopicConfigs) {
  for (const char* t : {"orders", "payments", "t1", "events", "logs-2024", "zeta"}) create_topic(t);
  same({"--describe", "--entity-type", "topics"});
  same({"--alter", "--topic", "orders", "--add-config", "retention.ms=1000,cleanup.policy=[compact,delete]"});
  same({"--describe", "--topic", "orders"});
  same({"--describe", "--entity-type", "topics", "--entity-name", "orders", "--all"});
  same({"--describe", "--topic", "nope"});
  same({"--alter", "--topic", "nope", "--add-config", "retention.ms=5"});
  same({"--alter", "--topic", "orders", "--add-config", "retention.ms=abc"});
}

TEST_F(NativeConfigsIT, BrokerAndLoggerConfigs) {
  same({"--alter", "--broker", "1", "--add-config", "log.cleaner.threads=2"});
  same({"--alter", "--broker-defaults", "--add-config", "log.cleaner.threads=3"});
  same({"--describe", "--entity-type", "brokers"});
  same({"--describe", "--broker", "1", "--all"});
  same({"--describe", "--broker-logger", "1"});
  same({"--alter", "--broker-logger", "1", "--add-config", "kafka.server=DEBUG"});
}

// Groups with configs and no members are found through
// ListConfigResources; five of them print in a Scala HashSet's order.
TEST_F(NativeConfigsIT, GroupConfigs) {
  for (const char* g : {"g1", "g2", "g3", "alpha"})
    native_only({"--alter", "--group", g, "--add-config", "consumer.heartbeat.interval.ms=6000"});
  same({"--alter", "--group", "zz-top", "--add-config", "consumer.heartbeat.interval.ms=6000"});
  same({"--describe", "--entity-type", "groups"});
}

// What --bootstrap-controller can and cannot do (client quotas are
// described by brokers only).
TEST_F(NativeConfigsIT, QuotasAndControllers) {
  same({"--bootstrap-controller", controller(), "--describe", "--entity-type", "brokers"});
  same({"--bootstrap-controller", controller(), "--describe", "--topic", "orders"});
  same({"--bootstrap-controller", controller(), "--describe", "--client", "alice"});
}

// Client quotas of users, clients and ips: set by both tools, described by
// both (several entities print in the admin client's HashMap order, values
// as Java's Double.toString), refused as Kafka's tool and broker refuse them.
TEST_F(NativeConfigsIT, ClientQuotas) {
  same({"--alter", "--user", "qa", "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048"});
  same({"--alter", "--user", "qa", "--client", "app", "--add-config", "request_percentage=50.5"});
  native_only({"--alter", "--user-defaults", "--add-config", "producer_byte_rate=100000000"});
  native_only({"--alter", "--entity-type", "clients", "--entity-default", "--add-config", "consumer_byte_rate=20"});
  native_only({"--alter", "--ip", "10.0.0.1", "--add-config", "connection_creation_rate=5"});
  native_only({"--alter", "--user", "qb", "--add-config", "controller_mutation_rate=0.5"});
  same({"--describe", "--entity-type", "users"});
  same({"--describe", "--entity-type", "users", "--entity-type", "clients"});
  same({"--describe", "--user", "qa"});
  same({"--describe", "--entity-type", "clients", "--entity-default"});
  same({"--describe", "--entity-type", "ips"});
  // Refusals: a value that is no number, one the controller refuses, a
  // deletion of a key the entity does not hold.
  same({"--alter", "--user", "qa", "--add-config", "producer_byte_rate=lots"});
  same({"--alter", "--user", "qa", "--add-config", "producer_byte_rate=1.5"});
  same({"--alter", "--client", "app", "--delete-config", "request_percentage"});
  // A deletion by each tool in turn, then what is left.
  same({"--alter", "--user", "qa", "--add-config", "request_percentage=10"});
  for (bool java : {true, false}) {
    native_only({"--alter", "--user", "qa", "--add-config", "request_percentage=10"});
    std::vector<std::string> args{"--bootstrap-server", bootstrap(), "--alter", "--user", "qa", "--delete-config",
                                  "request_percentage"};
    auto r = java ? run_kafka_tool(broker->dir(), k_config_command, args)
                  : run_native_tool(broker->dir(), "kafka-configs.sh", args);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    EXPECT_EQ(tool_lines(r), std::vector<std::string>{"Completed updating config for user qa."}) << r.all();
  }
  same({"--describe", "--user", "qa"});
}

// SCRAM credentials (KIP-554): set, refused as the controller refuses them
// (the same exception lines from both tools), deleted, and described after
// the user's client quotas (none here), in ConfigCommand's words.
TEST_F(NativeConfigsIT, ScramCredentials) {
  same({"--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[password=x]"});
  same({"--alter", "--user", "u", "--add-config", "SCRAM-SHA-512=[iterations=8192,password=y]"});
  same({"--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[iterations=16385,password=x]"});
  same({"--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[password=]"});
  same({"--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[password=x],SCRAM-SHA-512=[password=y]"});
  same({"--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[password=x]", "--delete-config", "SCRAM-SHA-512"});
  same({"--alter", "--user", "nobody", "--delete-config", "SCRAM-SHA-512"});
  auto described = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap(), "--describe"});
    auto r = run_native_tool(broker->dir(), "kafka-configs.sh", args);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    return r.out;
  };
  EXPECT_EQ(described({"--user", "u"}),
            "SCRAM credential configs for user-principal 'u' are SCRAM-SHA-256=iterations=4096, "
            "SCRAM-SHA-512=iterations=8192\n");
  same({"--describe", "--user", "u"});
  EXPECT_EQ(described({"--user", "nobody"}), "");
  native_only({"--alter", "--user", "u", "--delete-config", "SCRAM-SHA-512"});  // a second deletion is refused
  EXPECT_EQ(described({"--user", "u"}),
            "SCRAM credential configs for user-principal 'u' are SCRAM-SHA-256=iterations=4096\n");
}

}  // namespace
}  // namespace hw::testing
