// broker/admin/broker_config_checks: what a broker refuses itself before
// forwarding a BROKER config change, with Kafka 4.3.1's messages (captured
// from a Kafka broker by tests/differential).

#include "broker/admin/broker_config_checks.h"

#include <gtest/gtest.h>

namespace hw::broker {
namespace {

using protocol::error_code;

TEST(BrokerConfigChecks, ANamedBrokerMustBeThisOne) {
  auto other = check_broker_config_change(1, "7", {{"log.cleaner.threads", "2"}});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->first, error_code::invalid_request);
  EXPECT_EQ(other->second, "Unexpected broker id, expected 1, but received 7");
  auto junk = check_broker_config_change(1, "x1", {});
  ASSERT_TRUE(junk);
  EXPECT_EQ(junk->second, "Node id must be an integer, but it is: x1");
  EXPECT_FALSE(check_broker_config_change(1, "1", {{"log.cleaner.threads", "2"}}));
  EXPECT_FALSE(check_broker_config_change(1, "", {{"log.retention.bytes", "1000"}}));
}

TEST(BrokerConfigChecks, KeysThatCannotChangeAtRuntimeAreRefused) {
  auto r = check_broker_config_change(1, "1", {{"log.dirs", "/tmp/x"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, error_code::invalid_request);
  EXPECT_EQ(r->second, "Cannot update these configs dynamically: [log.dirs]");
}

TEST(BrokerConfigChecks, ValuesMustParse) {
  auto r = check_broker_config_change(1, "1", {{"message.max.bytes", "big"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, error_code::invalid_request);
  EXPECT_EQ(r->second, "Invalid value big for configuration message.max.bytes: Not a number of type INT");
}

TEST(BrokerConfigChecks, PerBrokerKeysNeedABrokerId) {
  auto r = check_broker_config_change(1, "", {{"listeners", "PLAINTEXT://:9092"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->second,
            "Cannot update these configs at default cluster level, broker id must be specified: [listeners]");
  EXPECT_FALSE(check_broker_config_change(1, "1", {{"listeners", "PLAINTEXT://:9092"}}));
}

TEST(BrokerConfigChecks, KeysUnknownHereAreLeftToTheController) {
  EXPECT_FALSE(check_broker_config_change(1, "1", {{"some.custom.key", "anything"}}));
}

}  // namespace
}  // namespace hw::broker
