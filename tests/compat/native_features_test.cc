// The native kafka-features.sh against Kafka 4.3.1's FeatureCommand on the
// same highwater broker: describe prints identical lines (nothing in it
// moves while the cluster is idle), the static tables are Kafka's, and
// upgrades, downgrades and their refusals print the same lines.

#include <gtest/gtest.h>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_feature_command = "org.apache.kafka.tools.FeatureCommand";

class NativeFeaturesIT : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = start_with_controller_listener(broker);
    ASSERT_TRUE(port) << broker.log();
    controller = "127.0.0.1:" + std::to_string(*port);
    server = "127.0.0.1:" + std::to_string(broker.port());
  }
  void expect_same(const std::vector<std::string>& args, bool compare_err = true) {
    SCOPED_TRACE(args.back());
    auto java = run_kafka_tool(broker.dir(), k_feature_command, args);
    auto native = run_native_tool(broker.dir(), "kafka-features.sh", args);
    EXPECT_EQ(native.exit_code, java.exit_code) << native.all() << java.all();
    EXPECT_EQ(lines_of(native.out), tool_lines(java)) << native.all() << java.all();
    if (compare_err) {
      EXPECT_EQ(native.err, java.err);
    }
  }
  std::string controller, server;
  broker_process broker;
};

TEST_F(NativeFeaturesIT, DescribePrintsKafkasLines) {
  // The feature levels are finalized by the first controller records: wait for them.
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = run_native_tool(broker.dir(), "kafka-features.sh", {"--bootstrap-server", server, "describe"});
        return r.exit_code == 0 && r.out.find("Feature: group.version") != std::string::npos &&
               r.out.find("FinalizedVersionLevel: 1 ") != std::string::npos;
      },
      30s));
  expect_same({"--bootstrap-server", server, "describe"});
  expect_same({"--bootstrap-controller", controller, "describe"});
  expect_same({"--bootstrap-server", server, "describe", "--node-id", "1"});
  auto native = run_native_tool(broker.dir(), "kafka-features.sh", {"--bootstrap-server", server, "describe"});
  EXPECT_EQ(lines_of(native.out).size(), 6u) << native.all();
}

TEST_F(NativeFeaturesIT, StaticTables) {
  expect_same({"version-mapping"});
  expect_same({"version-mapping", "--release-version", "3.9-IV0"});
  expect_same({"version-mapping", "--release-version", "9.9"});
  expect_same({"feature-dependencies", "--feature", "eligible.leader.replicas.version=1", "--feature", "kraft.version=0"});
  expect_same({"feature-dependencies", "--feature", "group.version=5"});
}

// Both tools against the same broker, one after the other: each update is
// asked twice, so the second finds the level already in force (an
// update to the level in force succeeds, as in Kafka).
TEST_F(NativeFeaturesIT, UpgradesDowngradesAndRefusals) {
  expect_same({"--bootstrap-server", server, "upgrade", "--feature", "group.version=1", "--dry-run"});
  expect_same({"--bootstrap-server", server, "downgrade", "--feature", "transaction.version=1"});
  expect_same({"--bootstrap-controller", controller, "disable", "--feature", "streams.version", "--dry-run"});
  expect_same({"--bootstrap-controller", controller, "disable", "--feature", "streams.version"});
  expect_same({"--bootstrap-server", server, "describe"});
  expect_same({"--bootstrap-server", server, "upgrade", "--feature", "transaction.version=2", "--feature",
               "streams.version=1"});
  // Refusals, with the controller's words.
  expect_same({"--bootstrap-server", server, "downgrade", "--metadata", "3.9-IV0"});
  expect_same({"--bootstrap-server", server, "upgrade", "--feature", "group.version=2"});
  expect_same({"--bootstrap-server", server, "upgrade", "--feature", "no.such.feature=1"});
  expect_same({"--bootstrap-controller", controller, "upgrade", "--feature", "group.version=0"});
  // share.version is Kafka's and not Highwater's: a release's upgrade asks for it.
  expect_same({"--bootstrap-server", server, "upgrade", "--release-version", "4.3-IV0"});
}

TEST_F(NativeFeaturesIT, BadArguments) {
  expect_same({"--bootstrap-server", server, "describe", "--foo"});
  expect_same({"describe"});
  expect_same({"--bootstrap-server", server, "frob"});
  expect_same({"--bootstrap-server", server, "describe", "--node-id", "-1"});
  expect_same({"--bootstrap-server", server, "upgrade"});
  expect_same({"--bootstrap-server", server, "downgrade", "--feature", "group.version=x"});
  expect_same({"--bootstrap-server", server, "upgrade", "--release-version", "4.3", "--feature", "a=1"});
}

}  // namespace
}  // namespace hw::testing
