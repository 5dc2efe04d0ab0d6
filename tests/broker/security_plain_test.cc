// PLAIN: Kafka's answers to every kind of PLAIN message.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "broker/security/plain_server.h"

namespace hw::broker {
namespace {

std::vector<uint8_t> b(std::string_view s) { return {s.begin(), s.end()}; }

plain_server server() {
  static const std::map<std::string, std::string> users{{"alice", "alice-secret"}, {"admin", "admin-secret"}};
  return plain_server([](const std::string& u) -> std::optional<std::string> {
    auto it = users.find(u);
    if (it == users.end()) return std::nullopt;
    return it->second;
  });
}

std::string plain(std::string_view authzid, std::string_view user, std::string_view password) {
  std::string m(authzid);
  m += '\0';
  m += user;
  m += '\0';
  m += password;
  return m;
}

TEST(plain, the_right_password_authenticates) {
  plain_server p = server();
  sasl_step step = p.evaluate(b(plain("", "alice", "alice-secret")));
  EXPECT_FALSE(step.failed) << step.reason;
  EXPECT_TRUE(step.token.empty());
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.user(), "alice");
  EXPECT_TRUE(p.evaluate(b(plain("", "alice", "alice-secret"))).failed) << "one message only";
}

TEST(plain, refusals_say_what_kafka_says) {
  struct refusal {
    std::string message;
    std::string told;
  };
  const std::string nul(1, '\0');
  for (const refusal& r : std::vector<refusal>{
           {plain("", "alice", "wrong"), "Authentication failed: Invalid username or password"},
           {plain("", "mallory", "alice-secret"), "Authentication failed: Invalid username or password"},
           {plain("", "", "x"), "Authentication failed: username not specified"},
           {plain("", "alice", ""), "Authentication failed: password not specified"},
           {plain("admin", "alice", "alice-secret"),
            "Authentication failed: Client requested an authorization id that is different from username"},
           {"alice" + nul + "alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 2"},
           {plain("", "alice", "alice-secret") + nul + "x", "Invalid SASL/PLAIN response: expected 3 tokens, got 4"},
           {"", "Invalid SASL/PLAIN response: expected 3 tokens, got 1"},
       }) {
    plain_server p = server();
    sasl_step step = p.evaluate(b(r.message));
    EXPECT_TRUE(step.failed);
    EXPECT_EQ(step.client_message, r.told);
    EXPECT_FALSE(p.complete());
    EXPECT_EQ(p.user(), "");
    EXPECT_EQ(step.reason.find("secret"), std::string::npos) << "no password in the log reason: " << step.reason;
  }
}

TEST(plain, an_authorization_id_equal_to_the_user_passes) {
  plain_server p = server();
  EXPECT_FALSE(p.evaluate(b(plain("alice", "alice", "alice-secret"))).failed);
}

}  // namespace
}  // namespace hw::broker
