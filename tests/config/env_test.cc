#include "config/env.h"

#include <gtest/gtest.h>

namespace hw::config {
namespace {

TEST(Env, ImageNamingConvention) {
  EXPECT_EQ(env_name_to_key("KAFKA_NODE_ID"), "node.id");
  EXPECT_EQ(env_name_to_key("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"), "listener.security.protocol.map");
  EXPECT_EQ(env_name_to_key("KAFKA_FOO__BAR"), "foo_bar");
  EXPECT_EQ(env_name_to_key("KAFKA_FOO___BAR"), "foo-bar");
  EXPECT_EQ(env_name_to_key("KAFKA_LISTENER_NAME_INTERNAL_SASL___MECH"), "listener.name.internal.sasl-mech");
}

TEST(Env, NotConfiguration) {
  for (const char* name : {"KAFKA_HEAP_OPTS", "KAFKA_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_LOG4J_OPTS",
                           "KAFKA_GC_LOG_OPTS", "KAFKA_JMX_OPTS", "KAFKA_DEBUG", "KAFKA_VERSION", "KAFKA_HOME",
                           "KAFKA_LOG4J_ROOT_LOGLEVEL", "KAFKA_", "PATH", "CLUSTER_ID", "kafka_node_id"})
    EXPECT_EQ(env_name_to_key(name), std::nullopt) << name;
}

TEST(Env, RoundTrip) {
  for (const char* key : {"node.id", "foo_bar", "a-b.c"})
    EXPECT_EQ(env_name_to_key(key_to_env_name(key)), key);
}

}  // namespace
}  // namespace hw::config
