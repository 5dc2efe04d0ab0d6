#include "config/listeners.h"

#include <gtest/gtest.h>

namespace hw::config {
namespace {

protocol_map default_map() {
  return std::get<protocol_map>(
      parse_protocol_map("PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"));
}

std::vector<listener_endpoint> ok(std::string_view text, const protocol_map& m = default_map()) {
  auto r = parse_listeners(text, m);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get_if<std::vector<listener_endpoint>>(&r) ? std::get<std::vector<listener_endpoint>>(r)
                                                          : std::vector<listener_endpoint>{};
}

std::string error(std::string_view text, const protocol_map& m = default_map()) {
  auto r = parse_listeners(text, m);
  auto* e = std::get_if<std::string>(&r);
  return e ? *e : "";
}

TEST(Listeners, Basic) {
  auto eps = ok("PLAINTEXT://localhost:9092");
  ASSERT_EQ(eps.size(), 1u);
  EXPECT_EQ(eps[0], (listener_endpoint{"PLAINTEXT", "PLAINTEXT", "localhost", 9092}));
  EXPECT_EQ(eps[0].to_string(), "PLAINTEXT://localhost:9092");
}

TEST(Listeners, EmptyHostPortZeroAndIpv6) {
  auto eps = ok("PLAINTEXT://:9092,SSL://[::1]:0");
  ASSERT_EQ(eps.size(), 2u);
  EXPECT_EQ(eps[0].host, "");
  EXPECT_EQ(eps[1].host, "::1");
  EXPECT_EQ(eps[1].port, 0);
  EXPECT_EQ(eps[1].security_protocol, "SSL");
  EXPECT_EQ(eps[1].to_string(), "SSL://[::1]:0");
}

TEST(Listeners, NamesMappedThroughTheProtocolMap) {
  auto m = std::get<protocol_map>(parse_protocol_map("internal:plaintext, EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT"));
  auto eps = ok("internal://0.0.0.0:9092,EXTERNAL://host.example:9094,CONTROLLER://:9093", m);
  ASSERT_EQ(eps.size(), 3u);
  EXPECT_EQ(eps[0].name, "INTERNAL");
  EXPECT_EQ(eps[0].security_protocol, "PLAINTEXT");
  EXPECT_EQ(eps[1].security_protocol, "SASL_SSL");
  EXPECT_EQ(error("PLAINTEXT://:9092", m), "No security protocol defined for listener PLAINTEXT");
}

TEST(Listeners, Errors) {
  EXPECT_EQ(error("localhost:9092"), "Unable to parse localhost:9092 to a broker endpoint");
  EXPECT_EQ(error("FOO://:9092"), "No security protocol defined for listener FOO");
  EXPECT_NE(error("PLAINTEXT://:70000").find("between 0 and 65535"), std::string::npos);
  EXPECT_NE(error("PLAINTEXT://:-1").find("between 0 and 65535"), std::string::npos);
  EXPECT_NE(error("PLAINTEXT://:9092,plaintext://:9093").find("different name"), std::string::npos);
  EXPECT_NE(error("PLAINTEXT://:9092,SSL://:9092").find("different port"), std::string::npos);
}

TEST(Listeners, SamePortAllowedForPortZeroAndIpv4PlusIpv6) {
  EXPECT_EQ(ok("PLAINTEXT://:0,SSL://:0").size(), 2u);
  EXPECT_EQ(ok("PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092").size(), 2u);
}

TEST(ProtocolMap, Errors) {
  EXPECT_TRUE(std::holds_alternative<std::string>(parse_protocol_map("A:B")));
  EXPECT_TRUE(std::holds_alternative<std::string>(parse_protocol_map("A")));
  EXPECT_TRUE(std::holds_alternative<std::string>(parse_protocol_map("A:SSL:X")));
}

}  // namespace
}  // namespace hw::config
