// Delegation tokens (KIP-48) end to end on one node: a SCRAM user creates a
// token over SASL, logs in with it (SCRAM, the token id as user name, its
// HMAC as password, tokenauth=true) as its owner, the login lasting no
// longer than the token; a token login may not ask for tokens; renewers
// renew, strangers may not; Describe shows a token to its owner and
// renewers; an expired token logs in no more; PLAINTEXT may not ask; and a
// broker without delegation.token.secret.key answers DELEGATION_TOKEN_AUTH_DISABLED.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/describe_delegation_token.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/renew_delegation_token.h"
#include "protocol/sasl/scram.h"
#include "raw_requests.h"
#include "sasl_login.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;
using protocol::scram_mechanism;

const char* const k_scram_login =
    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"admin-secret\";";

std::vector<std::string> token_broker_args(bool with_secret = true) {
  std::vector<std::string> args{
      "--override", "listeners=SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
      "--override", "inter.broker.listener.name=PLAINTEXT",
      "--override", "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512",
      "--override", std::string("listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=") + k_scram_login,
      "--override", std::string("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=") + k_scram_login,
      "--override", "connection.failed.authentication.delay.ms=100",
      "--override", "delegation.token.expiry.check.interval.ms=1000",
      // With an authorizer, a token is shown only to its owner, its renewers
      // and whoever may describe it (without one, Kafka shows every token).
      "--override", "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
      "--override", "super.users=User:ANONYMOUS;User:admin"};
  if (with_secret) {
    args.push_back("--override");
    args.push_back("delegation.token.secret.key=token-signing-secret");
  }
  return args;
}

class DelegationTokensIT : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log:\n" << broker.log();
  }
  uint16_t sasl_port() { return broker.port("SASL_PLAINTEXT"); }
  uint16_t plain_port() { return broker.port("PLAINTEXT"); }

  // SCRAM credentials of both mechanisms (one request each: a user named
  // twice in one request is refused).
  void add_user(const std::string& user, const std::string& password) {
    for (scram_mechanism m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
      msg::alter_user_scram_credentials_request req;
      auto& u = req.upsertions.emplace_back();
      u.name = user;
      u.mechanism = protocol::scram_mechanism_type(m);
      u.iterations = 4096;
      u.salt = protocol::scram::random_salt();
      u.salted_password = protocol::scram::salted_password(m, password, u.salt, 4096);
      raw_client c(plain_port());
      auto r = c.call<msg::alter_user_scram_credentials_response>(51, 0, req);
      ASSERT_TRUE(r && !r->results.empty() && r->results[0].error_code == 0);
    }
  }

  // A client logged in on the SASL listener (nullptr when refused; *why says why).
  std::unique_ptr<raw_client> login(const sasl_credentials& who, std::string* why = nullptr) {
    auto c = std::make_unique<raw_client>(sasl_port());
    auto result = sasl_login(c->socket(), who);
    if (why) *why = result.error;
    if (!result) return nullptr;
    return c;
  }

  msg::create_delegation_token_response create(raw_client& c, std::vector<std::string> renewers = {},
                                               int64_t max_life = -1) {
    msg::create_delegation_token_request req;
    for (const auto& r : renewers) {
      auto& x = req.renewers.emplace_back();
      x.principal_type = "User";
      x.principal_name = r;
    }
    req.max_lifetime_ms = max_life;
    auto r = c.call<msg::create_delegation_token_response>(38, 3, req);
    return r.value_or(msg::create_delegation_token_response{});
  }

  // Logs in with the token until `ok` says the login is as wanted, or 10 s.
  bool token_login_becomes(const std::string& id, const std::vector<uint8_t>& hmac, bool wanted) {
    return wait_until(
        [&] {
          return static_cast<bool>(login({"SCRAM-SHA-512", id, protocol::scram::base64(hmac), true})) == wanted;
        },
        10s);
  }

  broker_process broker;
};

TEST_F(DelegationTokensIT, CreateLogInRenewDescribeExpire) {
  ASSERT_TRUE(broker.start(token_broker_args()));
  add_user("alice", "alice-secret");
  add_user("bob", "bob-secret");
  add_user("mallory", "mallory-secret");
  auto alice = login({"SCRAM-SHA-256", "alice", "alice-secret"});
  ASSERT_TRUE(alice);

  auto token = create(*alice, {"bob"});
  ASSERT_EQ(token.error_code, 0);
  EXPECT_EQ(token.principal_name, "alice");
  EXPECT_EQ(token.token_requester_principal_name, "alice");
  EXPECT_EQ(token.hmac.size(), 64u);
  EXPECT_GT(token.expiry_timestamp_ms, token.issue_timestamp_ms);

  // The token logs in (both SCRAM mechanisms) as alice; a wrong HMAC and
  // an unknown token id do not.
  ASSERT_TRUE(token_login_becomes(token.token_id, token.hmac, true));
  auto as_token = login({"SCRAM-SHA-256", token.token_id, protocol::scram::base64(token.hmac), true});
  ASSERT_TRUE(as_token);
  std::vector<uint8_t> wrong = token.hmac;
  wrong[0] ^= 1;
  std::string why;
  EXPECT_FALSE(login({"SCRAM-SHA-512", token.token_id, protocol::scram::base64(wrong), true}, &why));
  EXPECT_NE(why.find("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                     "SCRAM-SHA-512"),
            std::string::npos)
      << why;
  EXPECT_FALSE(login({"SCRAM-SHA-512", "no-such-token", protocol::scram::base64(token.hmac), true}));
  // Without tokenauth the token id is just an unknown user.
  EXPECT_FALSE(login({"SCRAM-SHA-512", token.token_id, protocol::scram::base64(token.hmac), false}));

  // A token login may not ask for, renew or describe tokens.
  EXPECT_EQ(create(*as_token).error_code,
            static_cast<int16_t>(protocol::error_code::delegation_token_request_not_allowed));
  msg::describe_delegation_token_request all;
  all.owners.reset();
  auto described_by_token = as_token->call<msg::describe_delegation_token_response>(41, 3, all);
  ASSERT_TRUE(described_by_token);
  EXPECT_EQ(described_by_token->error_code,
            static_cast<int16_t>(protocol::error_code::delegation_token_request_not_allowed));

  // Describe: alice and bob (a renewer) see it, mallory does not.
  auto seen_by = [&](const std::string& user, const std::string& password) {
    auto c = login({"SCRAM-SHA-256", user, password});
    if (!c) return -1;
    auto r = c->call<msg::describe_delegation_token_response>(41, 3, all);
    if (!r || r->error_code != 0) return -2;
    int n = 0;
    for (const auto& t : r->tokens)
      if (t.token_id == token.token_id) {
        ++n;
        EXPECT_EQ(t.hmac, token.hmac);
        EXPECT_EQ(t.principal_name, "alice");
        EXPECT_EQ(t.token_requester_principal_name, "alice");
        EXPECT_EQ(t.renewers.size(), 1u);
      }
    return n;
  };
  EXPECT_EQ(seen_by("alice", "alice-secret"), 1);
  EXPECT_EQ(seen_by("bob", "bob-secret"), 1);
  EXPECT_EQ(seen_by("mallory", "mallory-secret"), 0);

  // Renew: bob may, mallory may not.
  auto bob = login({"SCRAM-SHA-256", "bob", "bob-secret"});
  ASSERT_TRUE(bob);
  msg::renew_delegation_token_request renew;
  renew.hmac = token.hmac;
  renew.renew_period_ms = 60'000;
  auto renewed = bob->call<msg::renew_delegation_token_response>(39, 2, renew);
  ASSERT_TRUE(renewed);
  EXPECT_EQ(renewed->error_code, 0);
  EXPECT_GT(renewed->expiry_timestamp_ms, 0);
  auto mallory = login({"SCRAM-SHA-256", "mallory", "mallory-secret"});
  ASSERT_TRUE(mallory);
  auto refused = mallory->call<msg::renew_delegation_token_response>(39, 2, renew);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error_code, static_cast<int16_t>(protocol::error_code::delegation_token_owner_mismatch));

  // PLAINTEXT may not ask.
  raw_client plain(plain_port());
  EXPECT_EQ(create(plain).error_code, static_cast<int16_t>(protocol::error_code::delegation_token_request_not_allowed));

  // Expire at once: the token logs in no more, and renewing it finds nothing.
  msg::expire_delegation_token_request expire;
  expire.hmac = token.hmac;
  expire.expiry_time_period_ms = -1;
  auto expired = alice->call<msg::expire_delegation_token_response>(40, 2, expire);
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->error_code, 0);
  EXPECT_TRUE(token_login_becomes(token.token_id, token.hmac, false));
  auto gone = bob->call<msg::renew_delegation_token_response>(39, 2, renew);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->error_code, static_cast<int16_t>(protocol::error_code::delegation_token_not_found));
}

TEST_F(DelegationTokensIT, TokenLoginEndsWithTheTokenAndExpiredTokensAreSwept) {
  ASSERT_TRUE(broker.start(token_broker_args()));
  add_user("alice", "alice-secret");
  auto alice = login({"SCRAM-SHA-256", "alice", "alice-secret"});
  ASSERT_TRUE(alice);
  auto token = create(*alice, {}, 3000);  // lives 3 s
  ASSERT_EQ(token.error_code, 0);
  ASSERT_TRUE(token_login_becomes(token.token_id, token.hmac, true));
  // The login's lifetime is the token's: a request after it closes the connection.
  auto as_token = std::make_unique<raw_client>(sasl_port());
  ASSERT_TRUE(sasl_login(as_token->socket(), {"SCRAM-SHA-512", token.token_id, protocol::scram::base64(token.hmac), true}));
  EXPECT_TRUE(wait_until(
      [&] {
        if (std::chrono::system_clock::now() <
            std::chrono::system_clock::time_point(std::chrono::milliseconds(token.expiry_timestamp_ms)) + 200ms)
          return false;
        return !as_token->socket().send_frame(request_frame(18, 0, 1, {}, "it")) ||
               !as_token->socket().read_frame(2s);
      },
      15s));
  // The controller's sweep (every second here) removes the expired token.
  msg::describe_delegation_token_request all;
  all.owners.reset();
  EXPECT_TRUE(wait_until(
      [&] {
        auto fresh = login({"SCRAM-SHA-256", "alice", "alice-secret"});
        auto r = fresh ? fresh->call<msg::describe_delegation_token_response>(41, 3, all) : std::nullopt;
        return r && r->error_code == 0 && r->tokens.empty();
      },
      15s));
  EXPECT_TRUE(token_login_becomes(token.token_id, token.hmac, false));
}

TEST_F(DelegationTokensIT, WithoutASecretTokensAreDisabled) {
  ASSERT_TRUE(broker.start(token_broker_args(false)));
  add_user("alice", "alice-secret");
  auto alice = login({"SCRAM-SHA-256", "alice", "alice-secret"});
  ASSERT_TRUE(alice);
  EXPECT_EQ(create(*alice).error_code, static_cast<int16_t>(protocol::error_code::delegation_token_auth_disabled));
  msg::describe_delegation_token_request all;
  all.owners.reset();
  auto r = alice->call<msg::describe_delegation_token_response>(41, 3, all);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, static_cast<int16_t>(protocol::error_code::delegation_token_auth_disabled));
}

}  // namespace
}  // namespace hw::testing
