// Re-authentication (KIP-368) on a SASL_PLAINTEXT listener whose logins
// last 1.5 s (listener.name.<l>.connections.max.reauth.ms), against the
// real binary over a socket: the lifetime told in SaslAuthenticate, a
// re-authentication on the same connection that renews it, at most one a
// second, a request after the expiry closing the connection unanswered,
// and the two refusals (another user, another mechanism). The waits past
// an expiry are the behaviour under test: the broker's clock decides.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "metrics_scrape.h"
#include "raw_requests.h"
#include "sasl_support.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr int64_t k_lifetime_ms = 1500;
constexpr const char* k_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
    "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

class SaslReauthIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new broker_process();
    const bool up = broker_->start({
        "--override", "listeners=SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
        "--override", "inter.broker.listener.name=PLAINTEXT",
        "--override", "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256",
        "--override", std::string("listener.name.sasl_plaintext.plain.sasl.jaas.config=") + k_jaas,
        "--override", "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config="
                      "org.apache.kafka.common.security.scram.ScramLoginModule required;",
        "--override", "listener.name.sasl_plaintext.connections.max.reauth.ms=" + std::to_string(k_lifetime_ms),
        "--override", "connection.failed.authentication.delay.ms=0",
        "--override", "highwater.metrics.port=0",
        "--override", "highwater.metrics.host=127.0.0.1",
    });
    if (!up) start_error_ = broker_->log();
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(start_error_.empty()) << start_error_; }
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log:\n" << broker_->log();
  }
  static uint16_t sasl_port() { return broker_->port("SASL_PLAINTEXT"); }
  static double metric(const std::string& sample) {
    return metric_sample(scrape_metrics(broker_->port("METRICS")), sample).value_or(0);
  }

  static broker_process* broker_;
  static std::string start_error_;
};

broker_process* SaslReauthIT::broker_ = nullptr;
std::string SaslReauthIT::start_error_;

int16_t handshake(raw_client& c, const std::string& mechanism) {
  msg::sasl_handshake_request req;
  req.mechanism = mechanism;
  auto r = c.call<msg::sasl_handshake_response>(17, 1, req);
  return r ? r->error_code : int16_t{-1};
}

std::optional<msg::sasl_authenticate_response> authenticate(raw_client& c, const std::string& user,
                                                            const std::string& password) {
  msg::sasl_authenticate_request req;
  req.auth_bytes = plain_token(user, password);
  return c.call<msg::sasl_authenticate_response>(36, 2, req);
}

// A PLAIN login (or re-login) on c: the lifetime the broker told, or -1.
int64_t login(raw_client& c, const std::string& user = "alice", const std::string& password = "alice-secret") {
  if (handshake(c, "PLAIN") != 0) return -1;
  auto a = authenticate(c, user, password);
  if (!a || a->error_code != 0) return -1;
  return a->session_lifetime_ms;
}

bool metadata_answers(raw_client& c) {
  msg::metadata_request req;
  req.topics = std::vector<msg::metadata_request::metadata_request_topic>{};
  return c.call<msg::metadata_response>(3, k_metadata_version, req).has_value();
}

TEST_F(SaslReauthIT, TheLoginsLifetimeIsToldAndARequestAfterItClosesUnanswered) {
  const double killed_before = metric(
      "kafka_server_socket_server_metrics_expired_connections_killed_count{listener=\"SASL_PLAINTEXT\"}");
  raw_client c(sasl_port());
  const auto logged_in = clock_type::now();
  EXPECT_EQ(login(c), k_lifetime_ms);
  EXPECT_TRUE(metadata_answers(c));
  std::this_thread::sleep_until(logged_in + std::chrono::milliseconds(k_lifetime_ms) + 300ms);
  ASSERT_TRUE(c.socket().send_frame(request_frame(3, k_metadata_version, 99, {0, 0, 0, 0, 0, 0})));
  EXPECT_TRUE(c.socket().closed_by_peer());
  EXPECT_EQ(metric("kafka_server_socket_server_metrics_expired_connections_killed_count{listener=\"SASL_PLAINTEXT\"}"),
            killed_before + 1);
  EXPECT_NE(broker_->log().find("its SASL login expired"), std::string::npos);
}

TEST_F(SaslReauthIT, AReauthenticationRenewsTheLoginOnTheSameConnection) {
  const std::string ok =
      "kafka_server_socket_server_metrics_successful_reauthentication_total{listener=\"SASL_PLAINTEXT\","
      "mechanism=\"PLAIN\"}";
  const double ok_before = metric(ok);
  raw_client c(sasl_port());
  const auto logged_in = clock_type::now();
  ASSERT_EQ(login(c), k_lifetime_ms);
  // Half way through the first login's life, then past its end.
  std::this_thread::sleep_until(logged_in + std::chrono::milliseconds(k_lifetime_ms / 2));
  EXPECT_EQ(login(c), k_lifetime_ms);
  std::this_thread::sleep_until(logged_in + std::chrono::milliseconds(k_lifetime_ms) + 300ms);
  EXPECT_TRUE(metadata_answers(c)) << "the second login runs until 2.25 s";
  // Another handshake within a second of the last re-authentication is out
  // of place, as on a connection whose logins do not expire (a login takes
  // milliseconds here; the elapsed time is in the message if not).
  const auto third = clock_type::now();
  ASSERT_EQ(login(c), k_lifetime_ms);
  EXPECT_EQ(handshake(c, "PLAIN"), 34)  // ILLEGAL_SASL_STATE
      << std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - third).count()
      << " ms after the re-authentication began";
  EXPECT_EQ(metric(ok), ok_before + 2);
}

TEST_F(SaslReauthIT, AReauthenticationAsAnotherUserFailsWithKafkasText) {
  const std::string failed =
      "kafka_server_socket_server_metrics_failed_reauthentication_total{listener=\"SASL_PLAINTEXT\","
      "mechanism=\"PLAIN\"}";
  const double failed_before = metric(failed);
  raw_client c(sasl_port());
  ASSERT_EQ(login(c), k_lifetime_ms);
  ASSERT_EQ(handshake(c, "PLAIN"), 0);
  auto a = authenticate(c, "admin", "admin-secret");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error_code, 58);  // SASL_AUTHENTICATION_FAILED
  EXPECT_EQ(a->error_message, "Cannot change principals during re-authentication from User.alice: User.admin");
  EXPECT_TRUE(c.socket().closed_by_peer());
  EXPECT_EQ(metric(failed), failed_before + 1);
}

TEST_F(SaslReauthIT, AReauthenticationWithAnotherMechanismClosesUnanswered) {
  raw_client c(sasl_port());
  ASSERT_EQ(login(c), k_lifetime_ms);
  EXPECT_EQ(handshake(c, "SCRAM-SHA-256"), 0) << "Kafka answers the handshake";
  msg::sasl_authenticate_request req;
  const std::string first = "n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL";
  req.auth_bytes.assign(first.begin(), first.end());
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, 2);
  ASSERT_TRUE(c.socket().send_frame(request_frame(36, 2, 99, body)));
  EXPECT_TRUE(c.socket().closed_by_peer());
  EXPECT_NE(broker_->log().find("is not supported for re-authentication of mechanism 'PLAIN'"), std::string::npos);
}

TEST_F(SaslReauthIT, AWrongPasswordOnReauthenticationFailsAndCloses) {
  raw_client c(sasl_port());
  ASSERT_EQ(login(c), k_lifetime_ms);
  ASSERT_EQ(handshake(c, "PLAIN"), 0);
  auto a = authenticate(c, "alice", "not-it-5521");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error_code, 58);
  EXPECT_EQ(a->error_message, "Authentication failed: Invalid username or password");
  EXPECT_TRUE(c.socket().closed_by_peer());
  EXPECT_EQ(broker_->log().find("not-it-5521"), std::string::npos);
}

}  // namespace
}  // namespace hw::testing
