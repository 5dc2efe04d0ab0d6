// SASL_PLAINTEXT listeners against the real binary: the exchange as Kafka's
// SaslServerAuthenticator runs it, byte for byte over a socket (what is
// admitted before authentication, the handshake's answers, PLAIN through
// SaslAuthenticate and through v0 raw tokens, every refusal and the close
// that follows it, the size limit before authentication), then librdkafka
// producing and consuming as an authenticated user and being refused with
// Kafka's messages.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "broker_process.h"
#include "metrics_scrape.h"
#include "raw_requests.h"
#include "sasl_support.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"

namespace hw::testing {
namespace {

constexpr const char* k_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
    "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

class SaslIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new broker_process();
    const bool up = broker_->start({
        "--override", "listeners=SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
        "--override", "inter.broker.listener.name=SASL_PLAINTEXT",
        "--override", "sasl.enabled.mechanisms=PLAIN",
        "--override", "sasl.mechanism.inter.broker.protocol=PLAIN",
        "--override", std::string("listener.name.sasl_plaintext.plain.sasl.jaas.config=") + k_jaas,
        "--override", "connection.failed.authentication.delay.ms=300",
        "--override", "sasl.server.max.receive.size=4096",
        "--override", "group.initial.rebalance.delay.ms=0",
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

  static broker_process* broker_;
  static std::string start_error_;
};

broker_process* SaslIT::broker_ = nullptr;
std::string SaslIT::start_error_;

msg::sasl_handshake_response handshake(raw_client& c, const std::string& mechanism, int16_t version = 1) {
  msg::sasl_handshake_request req;
  req.mechanism = mechanism;
  auto r = c.call<msg::sasl_handshake_response>(17, version, req);
  return r.value_or(msg::sasl_handshake_response{});
}

std::optional<msg::sasl_authenticate_response> authenticate(raw_client& c, std::vector<uint8_t> token,
                                                            int16_t version = 2) {
  msg::sasl_authenticate_request req;
  req.auth_bytes = std::move(token);
  return c.call<msg::sasl_authenticate_response>(36, version, req);
}

bool metadata_answers(raw_client& c) {
  msg::metadata_request req;
  req.topics = std::vector<msg::metadata_request::metadata_request_topic>{};
  return c.call<msg::metadata_response>(3, k_metadata_version, req).has_value();
}

TEST_F(SaslIT, ApiVersionsThenPlainThenAnyRequest) {
  raw_client c(sasl_port());
  msg::api_versions_request versions;
  versions.client_software_name = "sasl-it";
  versions.client_software_version = "1.0";
  auto v = c.call<msg::api_versions_response>(18, 3, versions);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->error_code, 0);
  auto h = handshake(c, "PLAIN");
  EXPECT_EQ(h.error_code, 0);
  EXPECT_EQ(h.mechanisms, (std::vector<std::string>{"PLAIN"}));
  auto a = authenticate(c, plain_token("alice", "alice-secret"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error_code, 0);
  EXPECT_EQ(a->error_message, "");
  EXPECT_TRUE(a->auth_bytes.empty());
  EXPECT_EQ(a->session_lifetime_ms, 0);
  EXPECT_TRUE(metadata_answers(c));
  // A second exchange on an authenticated connection is out of place.
  EXPECT_EQ(handshake(c, "PLAIN").error_code, 34);  // ILLEGAL_SASL_STATE
  auto again = authenticate(c, plain_token("alice", "alice-secret"));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->error_code, 34);
  EXPECT_EQ(again->error_message, "SaslAuthenticate request received after successful authentication");
}

TEST_F(SaslIT, V0HandshakeThenRawTokens) {
  raw_client c(sasl_port());
  EXPECT_EQ(handshake(c, "PLAIN", 0).error_code, 0);
  ASSERT_TRUE(c.socket().send_raw(with_size(plain_token("admin", "admin-secret"))));
  auto answer = c.socket().read_frame();
  ASSERT_TRUE(answer);
  EXPECT_TRUE(answer->empty());  // PLAIN's empty final message
  EXPECT_TRUE(metadata_answers(c));
}

TEST_F(SaslIT, WrongPasswordAndUnknownUserFailWithKafkasTextThenClose) {
  for (const auto& [user, password] : {std::pair{"alice", "not-her-password-x9"}, std::pair{"mallory", "alice-secret"}}) {
    raw_client c(sasl_port());
    EXPECT_EQ(handshake(c, "PLAIN").error_code, 0);
    const auto sent = std::chrono::steady_clock::now();
    auto a = authenticate(c, plain_token(user, password));
    const auto waited = std::chrono::steady_clock::now() - sent;
    ASSERT_TRUE(a);
    EXPECT_EQ(a->error_code, 58);  // SASL_AUTHENTICATION_FAILED
    EXPECT_EQ(a->error_message, "Authentication failed: Invalid username or password");
    // connection.failed.authentication.delay.ms=300 holds the answer back.
    EXPECT_GE(waited, std::chrono::milliseconds(250));
    EXPECT_TRUE(c.socket().closed_by_peer());
  }
  // Nothing of the password reached the log.
  EXPECT_EQ(broker_->log().find("not-her-password-x9"), std::string::npos);
  EXPECT_NE(broker_->log().find("Failed authentication with /127.0.0.1"), std::string::npos);
}

TEST_F(SaslIT, UnknownMechanismListsTheEnabledOnesThenCloses) {
  raw_client c(sasl_port());
  auto h = handshake(c, "SCRAM-SHA-256");
  EXPECT_EQ(h.error_code, 33);  // UNSUPPORTED_SASL_MECHANISM
  EXPECT_EQ(h.mechanisms, (std::vector<std::string>{"PLAIN"}));
  EXPECT_TRUE(c.socket().closed_by_peer());
}

TEST_F(SaslIT, AnyOtherRequestBeforeAuthenticationCloses) {
  {
    raw_client c(sasl_port());
    ASSERT_TRUE(c.socket().send_frame(request_frame(3, k_metadata_version, 1, {0, 0, 0, 0, 0, 0})));
    EXPECT_TRUE(c.socket().closed_by_peer());
  }
  {  // after the handshake, only SaslAuthenticate
    raw_client c(sasl_port());
    EXPECT_EQ(handshake(c, "PLAIN").error_code, 0);
    ASSERT_TRUE(c.socket().send_frame(request_frame(3, k_metadata_version, 7, {0, 0, 0, 0, 0, 0})));
    EXPECT_TRUE(c.socket().closed_by_peer());
  }
  {  // an ApiVersions there is answered ILLEGAL_SASL_STATE first, as Kafka does
    raw_client c(sasl_port());
    EXPECT_EQ(handshake(c, "PLAIN").error_code, 0);
    msg::api_versions_request req;
    auto r = c.call<msg::api_versions_response>(18, 3, req);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->error_code, 34);
    EXPECT_TRUE(r->api_keys.empty());
    EXPECT_TRUE(c.socket().closed_by_peer());
  }
  {  // ApiVersions once only
    raw_client c(sasl_port());
    ASSERT_TRUE(c.socket().send_frame(api_versions_frame(3, 1)));
    ASSERT_TRUE(c.socket().read_frame());
    ASSERT_TRUE(c.socket().send_frame(api_versions_frame(3, 2)));
    EXPECT_TRUE(c.socket().closed_by_peer());
  }
}

TEST_F(SaslIT, AFrameOverTheUnauthenticatedLimitCloses) {
  raw_client c(sasl_port());
  // sasl.server.max.receive.size=4096: a bigger size prefix is refused
  // before anything is read.
  ASSERT_TRUE(c.socket().send_raw({0, 0, 0x10, 0x01, 0, 18}));
  EXPECT_TRUE(c.socket().closed_by_peer());
  // Once authenticated, the limit is socket.request.max.bytes again.
  raw_client ok(sasl_port());
  EXPECT_EQ(handshake(ok, "PLAIN").error_code, 0);
  ASSERT_TRUE(authenticate(ok, plain_token("alice", "alice-secret")));
  msg::metadata_request big;
  big.topics = std::vector<msg::metadata_request::metadata_request_topic>(1);
  big.topics->front().name = std::string(8000, 'x');
  EXPECT_TRUE(ok.call<msg::metadata_response>(3, k_metadata_version, big));
}

TEST_F(SaslIT, AuthenticationsAndConnectionsAreCountedPerListener) {
  const std::string ok = "kafka_server_socket_server_metrics_successful_authentication_total{listener=\"SASL_PLAINTEXT\",mechanism=\"PLAIN\"}";
  const std::string failed = "kafka_server_socket_server_metrics_failed_authentication_total{listener=\"SASL_PLAINTEXT\",mechanism=\"PLAIN\"}";
  const std::string open = "kafka_server_socket_server_metrics_connection_count{listener=\"SASL_PLAINTEXT\",security_protocol=\"SASL_PLAINTEXT\"}";
  const auto before = scrape_metrics(broker_->port("METRICS"));
  const double ok_before = metric_sample(before, ok).value_or(0), failed_before = metric_sample(before, failed).value_or(0);
  raw_client good(sasl_port());
  EXPECT_EQ(handshake(good, "PLAIN").error_code, 0);
  ASSERT_TRUE(authenticate(good, plain_token("alice", "alice-secret")));
  {
    raw_client bad(sasl_port());
    EXPECT_EQ(handshake(bad, "PLAIN").error_code, 0);
    ASSERT_TRUE(authenticate(bad, plain_token("alice", "not-it")));
    EXPECT_TRUE(bad.socket().closed_by_peer());
  }
  const auto after = scrape_metrics(broker_->port("METRICS"));
  EXPECT_EQ(metric_sample(after, ok).value_or(0), ok_before + 1) << after;
  EXPECT_EQ(metric_sample(after, failed).value_or(0), failed_before + 1) << after;
  EXPECT_GE(metric_sample(after, open).value_or(0), 1) << after;  // `good` is still open
}

TEST_F(SaslIT, PlaintextListenerBesideItNeedsNoAuthentication) {
  raw_client c(broker_->port("PLAINTEXT"));
  EXPECT_TRUE(metadata_answers(c));
  EXPECT_EQ(handshake(c, "PLAIN").error_code, 34);
}

TEST_F(SaslIT, LibrdkafkaProducesAsAnAuthenticatedUser) {
  auto r = produce_one(sasl_port(), "PLAIN", "alice", "alice-secret", "sasl-plain");
  EXPECT_TRUE(r.delivered) << r.error;
}

TEST_F(SaslIT, LibrdkafkaIsRefusedWithKafkasMessages) {
  auto wrong = produce_one(sasl_port(), "PLAIN", "alice", "nope", "sasl-refused");
  EXPECT_FALSE(wrong.delivered);
  EXPECT_NE(wrong.error.find("_AUTHENTICATION"), std::string::npos) << wrong.error;
  EXPECT_NE(wrong.error.find("Invalid username or password"), std::string::npos) << wrong.error;

  auto mechanism = produce_one(sasl_port(), "SCRAM-SHA-512", "alice", "alice-secret", "sasl-refused");
  EXPECT_FALSE(mechanism.delivered);
  EXPECT_NE(mechanism.error.find("SCRAM-SHA-512"), std::string::npos) << mechanism.error;
  EXPECT_NE(mechanism.error.find("PLAIN"), std::string::npos) << mechanism.error;
}

}  // namespace
}  // namespace hw::testing
