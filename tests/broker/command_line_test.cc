#include "broker/command_line.h"

#include <gtest/gtest.h>

namespace hw::broker {
namespace {

command_line parse(std::vector<const char*> args) { return parse_command_line(args); }

TEST(CommandLine, Empty) {
  auto cl = parse({});
  EXPECT_TRUE(cl.errors.empty());
  EXPECT_FALSE(cl.config_path);
  EXPECT_TRUE(cl.overrides.empty());
}

TEST(CommandLine, AllOptions) {
  auto cl = parse({"--config", "a.properties", "--override", "x=1", "--override=y=2", "--port-file", "/tmp/p"});
  EXPECT_TRUE(cl.errors.empty());
  EXPECT_EQ(cl.config_path, "a.properties");
  EXPECT_EQ(cl.overrides, (std::vector<std::string>{"x=1", "y=2"}));
  EXPECT_EQ(cl.port_file, "/tmp/p");
}

TEST(CommandLine, KafkaServerStartStyle) {
  auto cl = parse({"config/server.properties", "--override", "node.id=2"});
  EXPECT_TRUE(cl.errors.empty());
  EXPECT_EQ(cl.config_path, "config/server.properties");
}

TEST(CommandLine, Errors) {
  EXPECT_FALSE(parse({"--override"}).errors.empty());
  EXPECT_FALSE(parse({"--bogus"}).errors.empty());
  EXPECT_FALSE(parse({"a.properties", "--config", "b.properties"}).errors.empty());
  EXPECT_TRUE(parse({"--help"}).help);
}

}  // namespace
}  // namespace hw::broker
