// One connection's SASL exchange: what is admitted when, the handshake's
// answers, a full PLAIN and SCRAM exchange, and every way it fails.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "broker/security/plain_server.h"
#include "broker/security/scram_client.h"
#include "broker/security/sasl_session.h"
#include "broker/security/scram_server.h"

namespace hw::broker {
namespace {

constexpr int16_t produce = 0, metadata = 3, handshake = 17, api_versions = 18, authenticate = 36;

std::vector<uint8_t> b(std::string_view s) { return {s.begin(), s.end()}; }

std::string plain(std::string_view user, std::string_view password) { return plain_client_token(user, password); }

sasl_session session(std::map<std::string, int64_t> max_reauth_ms = {}) {
  return sasl_session({"PLAIN", "SCRAM-SHA-256"}, [](const std::string& m) -> std::unique_ptr<sasl_server> {
    if (m == "PLAIN")
      return std::make_unique<plain_server>([](const std::string& u) -> std::optional<std::string> {
        if (u == "alice") return std::string("alice-secret");
        if (u == "bob") return std::string("bob-secret");
        return std::nullopt;
      });
    if (m == "SCRAM-SHA-256") {
      auto cred = scram::make_credential(scram_mechanism::sha256, "pencil", *scram::unbase64("W22ZaJ0SNY7soEsUEjb6gQ=="),
                                         4096);
      return std::make_unique<scram_server>(
          scram_mechanism::sha256,
          [cred](const std::string& u) -> std::optional<scram_credential> {
            if (u == "user") return cred;
            return std::nullopt;
          },
          [] { return std::string("%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"); });
    }
    return nullptr;
  }, std::move(max_reauth_ms));
}

// A PLAIN login of `user` through s: its last answer.
sasl_session::authenticate_answer plain_login(sasl_session& s, std::string_view user, std::string_view password) {
  std::string why;
  EXPECT_TRUE(s.admit(handshake, &why)) << why;
  EXPECT_EQ(s.handshake("PLAIN", 1).error, protocol::error_code::none);
  EXPECT_TRUE(s.admit(authenticate, &why)) << why;
  return s.authenticate(b(plain(user, password)));
}

TEST(sasl_session, api_versions_then_handshake_then_authenticate_then_anything) {
  sasl_session s = session();
  std::string why;
  EXPECT_TRUE(s.admit(api_versions, &why));
  EXPECT_TRUE(s.admit(handshake, &why));
  auto h = s.handshake("PLAIN", 1);
  EXPECT_EQ(h.error, protocol::error_code::none);
  EXPECT_EQ(h.mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256"}));
  EXPECT_FALSE(s.raw_tokens());
  EXPECT_TRUE(s.admit(authenticate, &why));
  auto a = s.authenticate(b(plain("alice", "alice-secret")));
  EXPECT_EQ(a.error, protocol::error_code::none);
  EXPECT_TRUE(s.authenticated());
  EXPECT_EQ(s.principal().to_string(), "User:alice");
  EXPECT_TRUE(s.admit(produce, &why));
  EXPECT_TRUE(s.admit(metadata, &why));
}

TEST(sasl_session, scram_takes_two_rounds_and_names_the_user) {
  sasl_session s = session();
  std::string why;
  ASSERT_TRUE(s.admit(handshake, &why)) << "ApiVersions is optional";
  ASSERT_EQ(s.handshake("SCRAM-SHA-256", 1).error, protocol::error_code::none);
  ASSERT_TRUE(s.admit(authenticate, &why));
  auto first = s.authenticate(b("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
  ASSERT_EQ(first.error, protocol::error_code::none) << first.log_reason;
  EXPECT_FALSE(s.authenticated());
  EXPECT_EQ(s.principal().to_string(), "User:ANONYMOUS");
  EXPECT_FALSE(s.admit(produce, &why)) << "nothing else mid-exchange";
}

TEST(sasl_session, requests_before_authentication_close_the_connection) {
  for (int16_t key : {produce, metadata, authenticate}) {
    sasl_session s = session();
    std::string why;
    EXPECT_FALSE(s.admit(key, &why)) << key;
    EXPECT_NE(why.find("during SASL handshake"), std::string::npos) << why;
    EXPECT_EQ(s.current(), sasl_session::state::failed);
  }
  sasl_session twice = session();
  std::string why;
  EXPECT_TRUE(twice.admit(api_versions, &why));
  EXPECT_FALSE(twice.admit(api_versions, &why)) << "ApiVersions only first, as Kafka";
}

TEST(sasl_session, an_unknown_mechanism_is_refused_with_the_enabled_list) {
  sasl_session s = session();
  auto h = s.handshake("SCRAM-SHA-512", 1);
  EXPECT_EQ(h.error, protocol::error_code::unsupported_sasl_mechanism);
  EXPECT_EQ(h.mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256"}));
  EXPECT_EQ(s.current(), sasl_session::state::failed);
  std::string why;
  EXPECT_FALSE(s.admit(authenticate, &why));
}

TEST(sasl_session, a_failed_authentication_answers_kafkas_text_and_fails_the_connection) {
  {
    sasl_session s = session();
    ASSERT_EQ(s.handshake("PLAIN", 1).error, protocol::error_code::none);
    auto a = s.authenticate(b(plain("alice", "nope")));
    EXPECT_EQ(a.error, protocol::error_code::sasl_authentication_failed);
    EXPECT_EQ(a.error_message, "Authentication failed: Invalid username or password");
    EXPECT_EQ(s.current(), sasl_session::state::failed);
    EXPECT_EQ(s.principal().to_string(), "User:ANONYMOUS");
  }
  {
    sasl_session s = session();
    ASSERT_EQ(s.handshake("SCRAM-SHA-256", 1).error, protocol::error_code::none);
    auto a = s.authenticate(b("n,,n=mallory,r=abc"));
    EXPECT_EQ(a.error, protocol::error_code::sasl_authentication_failed);
    EXPECT_EQ(a.error_message,
              "Authentication failed during authentication due to invalid credentials with SASL mechanism "
              "SCRAM-SHA-256");
    EXPECT_EQ(a.log_reason.find("pencil"), std::string::npos);
  }
}

TEST(sasl_session, a_v0_handshake_takes_raw_tokens_and_no_sasl_authenticate) {
  sasl_session s = session();
  ASSERT_EQ(s.handshake("PLAIN", 0).error, protocol::error_code::none);
  EXPECT_TRUE(s.raw_tokens());
  std::string why;
  EXPECT_FALSE(s.admit(authenticate, &why)) << "a v0 client sends raw tokens, not SaslAuthenticate";
}

TEST(sasl_session, a_login_lasts_connections_max_reauth_ms_of_its_mechanism) {
  sasl_session forever = session();
  ASSERT_EQ(plain_login(forever, "alice", "alice-secret").error, protocol::error_code::none);
  EXPECT_EQ(forever.session_lifetime_ms(), 0);
  sasl_session limited = session({{"PLAIN", 60000}});
  auto a = plain_login(limited, "alice", "alice-secret");
  ASSERT_EQ(a.error, protocol::error_code::none);
  EXPECT_EQ(limited.session_lifetime_ms(), 60000);
  sasl_session other = session({{"SCRAM-SHA-256", 60000}});
  ASSERT_EQ(plain_login(other, "alice", "alice-secret").error, protocol::error_code::none);
  EXPECT_EQ(other.session_lifetime_ms(), 0) << "the limit is per mechanism";
}

TEST(sasl_session, a_reauthentication_takes_a_handshake_first_and_keeps_the_principal) {
  sasl_session s = session({{"PLAIN", 60000}});
  s.reauthenticating("PLAIN", kafka_principal{"User", "alice"});
  EXPECT_TRUE(s.is_reauthentication());
  std::string why;
  {
    sasl_session versions_first = session({{"PLAIN", 60000}});
    versions_first.reauthenticating("PLAIN", kafka_principal{"User", "alice"});
    EXPECT_FALSE(versions_first.admit(api_versions, &why)) << "the client knows the versions already";
  }
  auto a = plain_login(s, "alice", "alice-secret");
  ASSERT_EQ(a.error, protocol::error_code::none) << a.error_message;
  EXPECT_TRUE(s.authenticated());
  EXPECT_EQ(s.session_lifetime_ms(), 60000);
  EXPECT_EQ(s.principal().to_string(), "User:alice");
}

TEST(sasl_session, a_reauthentication_as_another_user_fails_with_kafkas_text) {
  sasl_session s = session({{"PLAIN", 60000}});
  s.reauthenticating("PLAIN", kafka_principal{"User", "alice"});
  auto a = plain_login(s, "bob", "bob-secret");
  EXPECT_EQ(a.error, protocol::error_code::sasl_authentication_failed);
  EXPECT_EQ(a.error_message, "Cannot change principals during re-authentication from User.alice: User.bob");
  EXPECT_FALSE(a.close_unanswered);
  EXPECT_EQ(s.current(), sasl_session::state::failed);
  EXPECT_EQ(s.principal().to_string(), "User:ANONYMOUS");
}

TEST(sasl_session, a_reauthentication_with_another_mechanism_fails_unanswered) {
  sasl_session s = session({{"PLAIN", 60000}});
  s.reauthenticating("SCRAM-SHA-256", kafka_principal{"User", "user"});
  auto a = plain_login(s, "alice", "alice-secret");
  EXPECT_EQ(a.error, protocol::error_code::sasl_authentication_failed);
  EXPECT_TRUE(a.close_unanswered);
  EXPECT_EQ(a.log_reason,
            "SASL mechanism 'PLAIN' requested by client is not supported for re-authentication of mechanism "
            "'SCRAM-SHA-256'");
}

TEST(sasl_session, a_failed_reauthentication_says_re_authentication) {
  sasl_session s = session({{"SCRAM-SHA-256", 60000}});
  s.reauthenticating("SCRAM-SHA-256", kafka_principal{"User", "user"});
  std::string why;
  ASSERT_TRUE(s.admit(handshake, &why));
  ASSERT_EQ(s.handshake("SCRAM-SHA-256", 1).error, protocol::error_code::none);
  auto a = s.authenticate(b("n,,n=nobody,r=rOprNGfwEbeRWgbNEkqO"));
  EXPECT_EQ(a.error, protocol::error_code::sasl_authentication_failed);
  EXPECT_EQ(a.error_message,
            "Authentication failed during re-authentication due to invalid credentials with SASL mechanism "
            "SCRAM-SHA-256");
}

}  // namespace
}  // namespace hw::broker

namespace hw::broker {
namespace {

// A mechanism that authenticates a name of which no principal can be made
// (GSSAPI's Kerberos name that no rule maps).
class nameless_server final : public sasl_server {
 public:
  sasl_step evaluate(std::span<const uint8_t>) override {
    done_ = true;
    return sasl_step::challenge({});
  }
  bool complete() const override { return done_; }
  const std::string& user() const override { return user_; }
  std::optional<std::string> principal_error() const override { return "no rule maps it"; }

 private:
  bool done_ = false;
  std::string user_;
};

sasl_session nameless_session() {
  return sasl_session({"GSSAPI"}, [](const std::string&) { return std::make_unique<nameless_server>(); });
}

TEST(sasl_session, a_login_without_a_principal_is_answered_then_marked) {
  sasl_session s = nameless_session();
  std::string why;
  ASSERT_TRUE(s.admit(handshake, &why));
  ASSERT_EQ(s.handshake("GSSAPI", 1).error, protocol::error_code::none);
  auto a = s.authenticate(b("token"));
  EXPECT_EQ(a.error, protocol::error_code::none) << "Kafka answers it as a success";
  EXPECT_TRUE(s.authenticated());
  EXPECT_EQ(s.principal_error(), "no rule maps it");

  sasl_session again = nameless_session();
  again.reauthenticating("GSSAPI", kafka_principal{"User", "alice"});
  ASSERT_TRUE(again.admit(handshake, &why));
  ASSERT_EQ(again.handshake("GSSAPI", 1).error, protocol::error_code::none);
  a = again.authenticate(b("token"));
  EXPECT_EQ(a.error, protocol::error_code::sasl_authentication_failed);
  EXPECT_TRUE(a.close_unanswered) << "re-authenticating, the connection closes at once";
}

}  // namespace
}  // namespace hw::broker
