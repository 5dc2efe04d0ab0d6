// kafka-transactions.sh's command line: what Kafka 4.3.1's
// TransactionsCommand printed (stderr, exit status) for the same
// arguments, each caught before the tool sends anything.

#include <gtest/gtest.h>

#include <sstream>

#include "tools/commands/tools.h"
#include "tools/commands/transactions.h"

namespace hw::tools {
namespace {

struct run_result {
  int status = -1;
  std::string out, err;
};

run_result run(std::vector<std::string> args) {
  std::ostringstream out, err;
  run_result r;
  r.status = kafka_transactions(args, tool_io{out, err});
  r.out = out.str();
  r.err = err.str();
  return r;
}

constexpr const char* k_main_usage =
    "usage: kafka-transactions.sh [-h] [-v] [--command-config FILE]\n"
    "                             --bootstrap-server host:port COMMAND ...\n";
constexpr const char* k_producers_usage =
    "usage: kafka-transactions.sh --bootstrap-server host:port\n"
    "                             describe-producers [-h]\n"
    "                             [--broker-id BROKER_ID] --topic TOPIC\n"
    "                             --partition PARTITION\n";
constexpr const char* k_abort_usage =
    "usage: kafka-transactions.sh --bootstrap-server host:port abort [-h]\n"
    "                             --topic TOPIC --partition PARTITION\n"
    "                             [--start-offset START_OFFSET]\n"
    "                             [--producer-id PRODUCER_ID]\n"
    "                             [--producer-epoch PRODUCER_EPOCH]\n"
    "                             [--coordinator-epoch COORDINATOR_EPOCH]\n";
constexpr const char* k_list_usage =
    "usage: kafka-transactions.sh --bootstrap-server host:port list [-h]\n"
    "                             [--duration-filter DURATION_FILTER]\n"
    "                             [--transactional-id-pattern TRANSACTIONAL_ID_PATTERN]\n";

const std::string k_bootstrap = "127.0.0.1:1";

TEST(TransactionsParse, MissingCommandAndBootstrap) {
  auto r = run({});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::string(k_main_usage) + "kafka-transactions.sh: error: too few arguments\n");
  r = run({"describe"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::string(k_main_usage) + "kafka-transactions.sh: error: argument --bootstrap-server is required\n");
}

TEST(TransactionsParse, VersionAndHelp) {
  auto r = run({"--bootstrap-server", k_bootstrap, "-v", "list"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "4.3.1 (Commit:26b251a451ce941d)\n");
  r = run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "4.3.1 (Commit:26b251a451ce941d)\n");
  // argparse4j prints the help, and TransactionsCommand exits 1 after it.
  r = run({"-h"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.starts_with(k_main_usage)) << r.out;
  r = run({"--bootstrap-server", k_bootstrap, "abort", "-h"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.starts_with(k_abort_usage)) << r.out;
  // -v belongs to the main parser only.
  r = run({"--bootstrap-server", k_bootstrap, "list", "-v"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::string(k_list_usage) + "kafka-transactions.sh: error: unrecognized arguments: '-v'\n");
}

TEST(TransactionsParse, InvalidCommand) {
  auto r = run({"--bootstrap-server", k_bootstrap, "bogus"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::string(k_main_usage) +
                       "kafka-transactions.sh: error: invalid choice:  'bogus' (choose from 'list',\n"
                       "'describe',      'describe-producers',       'abort',       'find-hanging',\n"
                       "'forceTerminateTransaction')\n");
}

TEST(TransactionsParse, NumbersAsJavaConvertsThem) {
  auto r = run({"--bootstrap-server", k_bootstrap, "describe-producers", "--topic", "x", "--partition", "a"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::string(k_producers_usage) +
                       "kafka-transactions.sh: error: argument --partition:  could  not convert 'a'\n"
                       "to Integer (For input string: \"a\")\n");
  r = run({"--bootstrap-server", k_bootstrap, "describe-producers", "--topic", "x", "--partition", "99999999999"});
  EXPECT_EQ(r.err, std::string(k_producers_usage) +
                       "kafka-transactions.sh:  error:  argument  --partition:  could  not  convert\n"
                       "'99999999999' to Integer (For input string: \"99999999999\")\n");
  r = run({"--bootstrap-server", k_bootstrap, "abort", "--topic", "x", "--partition", "0", "--producer-id", "5",
           "--producer-epoch", "70000"});
  EXPECT_EQ(r.err, std::string(k_abort_usage) +
                       "kafka-transactions.sh: error: argument --producer-epoch:  could not convert\n"
                       "'70000' to Short (Value out of range. Value:\"70000\" Radix:10)\n");
  r = run({"--bootstrap-server", k_bootstrap, "abort", "--topic", "x", "--partition", "0", "--producer-id", "5",
           "--producer-epoch", "99999999999"});
  EXPECT_EQ(r.err, std::string(k_abort_usage) +
                       "kafka-transactions.sh: error: argument --producer-epoch:  could not convert\n"
                       "'99999999999' to Short (For input string: \"99999999999\")\n");
  r = run({"--bootstrap-server", k_bootstrap, "list", "--duration-filter", "x"});
  EXPECT_EQ(r.err, std::string(k_list_usage) +
                       "kafka-transactions.sh:  error:   argument   --duration-filter:   could  not\n"
                       "convert 'x' to Long (For input string: \"x\")\n");
}

TEST(TransactionsParse, RequiredSubCommandOption) {
  auto r = run({"--bootstrap-server", k_bootstrap, "describe-producers", "--topic", "x"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::string(k_producers_usage) + "kafka-transactions.sh: error: argument --partition is required\n");
}

// The checks TransactionsCommand's sub-commands make before their first
// request: nothing is sent to the (unreachable) bootstrap address.
TEST(TransactionsParse, CommandChecksBeforeAnyRequest) {
  auto r = run({"--bootstrap-server", k_bootstrap, "abort", "--topic", "x", "--partition", "0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) or "
            "with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)\n");
  r = run({"--bootstrap-server", k_bootstrap, "abort", "--topic", "x", "--partition", "0", "--producer-id", "5"});
  EXPECT_EQ(r.err, "Missing required argument --producer-epoch\n");
  r = run({"--bootstrap-server", k_bootstrap, "abort", "--topic", "x", "--partition", "0", "--producer-id", "5",
           "--producer-epoch", "1"});
  EXPECT_EQ(r.err, "Missing required argument --coordinator-epoch\n");
  r = run({"--bootstrap-server", k_bootstrap, "find-hanging", "--partition", "1"});
  EXPECT_EQ(r.err,
            "The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search\n");
  r = run({"--bootstrap-server", k_bootstrap, "find-hanging", "--broker-id", "1", "--partition", "1"});
  EXPECT_EQ(r.err, "The --partition argument requires --topic to be provided\n");
}

TEST(TransactionsParse, AdminClientSettings) {
  auto r = run({"--bootstrap-server", "foo", "list"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "Exception in thread \"main\" org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient\n"
            "Caused by: org.apache.kafka.common.config.ConfigException: Invalid url in bootstrap.servers: foo\n");
  r = run({"--bootstrap-server", k_bootstrap, "--command-config", "/nonexistent/admin.properties", "list"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "Failed to load admin client properties: /nonexistent/admin.properties. Enable debug logging for "
            "additional detail.\n");
}

}  // namespace
}  // namespace hw::tools
