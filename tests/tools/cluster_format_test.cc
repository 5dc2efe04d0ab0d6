// kafka-cluster.sh's pure parts: list-endpoints' table (widths as Kafka
// 4.3.1's ClusterTool computes them, rows captured from its runs) and the
// command line's errors, as its argparse4j parser printed them.

#include <gtest/gtest.h>

#include <sstream>

#include "tools/commands/cluster.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

TEST(ClusterFormat, BrokersWithoutRacksAsKafkaPrintsThem) {
  // kafka-cluster.sh list-endpoints -b 127.0.0.1:19092 against Kafka 4.3.1.
  std::vector<cluster_endpoint> rows{{1, "127.0.0.1", 19092, std::nullopt, false}};
  EXPECT_EQ(format_endpoints(rows, false),
            "ID         HOST      PORT       RACK       STATE      ENDPOINT_TYPE  \n"
            "1          127.0.0.1 19092      null       unfenced   broker         \n");
}

TEST(ClusterFormat, ControllersHaveNoStateColumn) {
  std::vector<cluster_endpoint> rows{{1, "127.0.0.1", 19093, std::nullopt, false}};
  EXPECT_EQ(format_endpoints(rows, true),
            "ID         HOST      PORT       RACK       ENDPOINT_TYPE  \n"
            "1          127.0.0.1 19093      null       controller     \n");
}

TEST(ClusterFormat, ColumnsWidenToTheLongestHostAndRack) {
  std::vector<cluster_endpoint> rows{{4, "broker-four.example", 9092, std::string("r"), true},
                                     {5, "b5", 9093, std::nullopt, false}};
  // HOST as wide as "broker-four.example" (19), RACK as wide as "r" (1): a
  // wider "null" or heading overflows, as Java's %-1s lets it.
  EXPECT_EQ(format_endpoints(rows, false),
            "ID         HOST                PORT       RACK STATE      ENDPOINT_TYPE  \n"
            "4          broker-four.example 9092       r fenced     broker         \n"
            "5          b5                  9093       null unfenced   broker         \n");
  // No rows: HOST 100 wide, RACK 10.
  EXPECT_EQ(format_endpoints({}, true), "ID         HOST" + std::string(96, ' ') + " PORT       RACK       ENDPOINT_TYPE  \n");
}

struct run_result {
  int status;
  std::string out, err;
};

run_result run(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = kafka_cluster(args, {out, err});
  return {status, out.str(), err.str()};
}

TEST(ClusterCommandLine, ErrorsAsArgparse4jPrintsThem) {
  // Each captured from Kafka 4.3.1's ClusterTool with the same arguments.
  auto r = run({"unregister", "-b", "127.0.0.1:1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "usage: kafka-cluster unregister [-h] [--config CONFIG]\n"
            "                     [--command-config COMMAND_CONFIG] --id ID\n"
            "                     (--bootstrap-server BOOTSTRAP_SERVER |\n"
            "                     --bootstrap-controller BOOTSTRAP_CONTROLLER)\n"
            "kafka-cluster: error: argument --id/-i is required\n");
  r = run({"unregister", "-b", "x:1", "--id", "abc"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("kafka-cluster: error: argument --id/-i: could  not convert 'abc' to Integer\n"
                       "(For input string: \"abc\")\n"),
            std::string::npos)
      << r.err;
  r = run({"bogus"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "usage: kafka-cluster [-h] {cluster-id,unregister,list-endpoints} ...\n"
            "kafka-cluster: error: invalid  choice:  'bogus'  (choose from 'cluster-id',\n"
            "'unregister', 'list-endpoints')\n");
  r = run({"cluster-id"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("kafka-cluster:  error:  one  of   the  arguments  --bootstrap-server/-b  --\n"
                       "bootstrap-controller/-C is required\n"),
            std::string::npos)
      << r.err;
  r = run({});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "usage: kafka-cluster [-h] {cluster-id,unregister,list-endpoints} ...\n"
            "kafka-cluster: error: too few arguments\n");
}

TEST(ClusterCommandLine, HelpExitsOneAsParseArgsOrFailDoes) {
  auto r = run({"-h"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.starts_with("usage: kafka-cluster [-h] {cluster-id,unregister,list-endpoints} ...\n")) << r.out;
  r = run({"list-endpoints", "--help"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--include-fenced-brokers"), std::string::npos);
}

TEST(ClusterCommandLine, RefusalsBeforeAnyConnection) {
  auto r = run({"list-endpoints", "-C", "127.0.0.1:1", "--include-fenced-brokers"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "The option --include-fenced-brokers is only supported with --bootstrap-server option\n"
            "java.lang.IllegalArgumentException: The option --include-fenced-brokers is only supported with "
            "--bootstrap-server option\n\n");
  r = run({"cluster-id", "-b", "127.0.0.1:1", "--config", "a", "--command-config", "b"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.err.starts_with("--config and --command-config cannot be specified together.\n")) << r.err;
  r = run({"cluster-id", "-b", "127.0.0.1:1", "-c", "/nonexistent/admin.properties"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.err.starts_with("/nonexistent/admin.properties\njava.nio.file.NoSuchFileException")) << r.err;
}

}  // namespace
}  // namespace hw::tools
