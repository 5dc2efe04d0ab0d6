// The tests' own SASL login (sasl_login.h) over kafka_socket's TLS against
// a SASL_SSL listener that offers PLAIN and SCRAM-SHA-256/512: each
// mechanism logs in and the socket then takes requests; a wrong password,
// an unknown user and a mechanism the listener does not offer are refused
// with the broker's answer; a server name (or address) the certificate
// does not carry fails the handshake.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker_process.h"
#include "kafka_socket.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/metadata.h"
#include "protocol/sasl/scram.h"
#include "raw_requests.h"
#include "sasl_login.h"
#include "tests/support/test_certificates.h"

namespace hw::testing {
namespace {

namespace msg = protocol::msg;
using protocol::scram_mechanism;

constexpr const char* k_store_password = "login-store-secret";
constexpr const char* k_plain_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";";
constexpr const char* k_scram_jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;";

// One broker for the suite: its start is most of each test's time.
class SaslLoginIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new test_certificates(k_store_password, "localhost", "");
    broker_ = new broker_process();
    if (!certs_->ok()) return;
    started_ = broker_->start({
        "--override", "listeners=SASL_SSL://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
        "--override", "listener.security.protocol.map=SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT",
        "--override", "inter.broker.listener.name=PLAINTEXT",
        "--override", "ssl.keystore.type=PKCS12",
        "--override", "ssl.keystore.location=" + certs_->path() + "/localhost.keystore.p12",
        "--override", std::string("ssl.keystore.password=") + k_store_password,
        "--override", "listener.name.sasl_ssl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "--override", std::string("listener.name.sasl_ssl.plain.sasl.jaas.config=") + k_plain_jaas,
        "--override", std::string("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=") + k_scram_jaas,
        "--override", std::string("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=") + k_scram_jaas,
        "--override", "connection.failed.authentication.delay.ms=0",
    });
  }
  static void TearDownTestSuite() {
    delete broker_;
    delete certs_;
  }
  void SetUp() override {
    ASSERT_TRUE(certs_->ok()) << "scripts/make-certs.sh failed";
    ASSERT_TRUE(started_) << broker_->log();
  }
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log:\n" << broker_->log();
  }

  static endpoint secured() { return broker_->port("SASL_SSL"); }
  static tls_client tls(const std::string& server_name = "localhost") {
    return tls_client{certs_->path() + "/ca.crt", "", "", "", server_name};
  }
  // A Metadata request on an authenticated socket: answered.
  static bool answers(kafka_socket& socket) {
    msg::metadata_request req;
    req.topics.emplace();
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, k_metadata_version);
    return socket.send_frame(request_frame(3, k_metadata_version, 100, body)) && socket.read_frame(10s).has_value();
  }

  static inline test_certificates* certs_ = nullptr;
  static inline broker_process* broker_ = nullptr;
  static inline bool started_ = false;
};

TEST_F(SaslLoginIT, EveryMechanismLogsInOverTls) {
  {
    kafka_socket socket(secured(), tls());
    ASSERT_TRUE(socket.connected()) << socket.tls_error();
    auto in = sasl_login(socket, {"PLAIN", "admin", "admin-secret"});
    ASSERT_TRUE(in) << in.error;
    // Authenticated, the socket sets the SCRAM credentials the next logins use.
    for (auto m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
      msg::alter_user_scram_credentials_request req;
      auto& u = req.upsertions.emplace_back();
      u.name = "alice";
      u.mechanism = protocol::scram_mechanism_type(m);
      u.iterations = 4096;
      u.salt = protocol::scram::random_salt();
      u.salted_password = protocol::scram::salted_password(m, "alice-secret", u.salt, u.iterations);
      std::vector<uint8_t> body;
      protocol::writer w(body);
      req.encode(w, 0);
      ASSERT_TRUE(socket.send_frame(request_frame(51, 0, 200 + static_cast<int>(m), body)));
      auto frame = socket.read_frame(10s);
      ASSERT_TRUE(frame);
      protocol::reader r(*frame);
      msg::response_header h;
      h.decode(r, protocol::response_header_version(51, 0));
      msg::alter_user_scram_credentials_response resp;
      resp.decode(r, 0);
      ASSERT_TRUE(r.ok() && resp.results.size() == 1);
      ASSERT_EQ(resp.results[0].error_code, 0) << resp.results[0].error_message.value_or("");
    }
  }
  // The server name as an address, checked against the certificate's IP name.
  for (const char* mechanism : {"SCRAM-SHA-256", "SCRAM-SHA-512"}) {
    kafka_socket socket(secured(), tls("127.0.0.1"));
    ASSERT_TRUE(socket.connected()) << socket.tls_error();
    auto in = sasl_login(socket, {mechanism, "alice", "alice-secret"});
    EXPECT_TRUE(in) << mechanism << ": " << in.error;
    EXPECT_TRUE(answers(socket)) << mechanism;
  }
}

TEST_F(SaslLoginIT, RefusalsCarryTheBrokersAnswer) {
  struct refusal {
    sasl_credentials who;
    std::string said;
  };
  for (const auto& [who, said] : std::vector<refusal>{
           {{"PLAIN", "admin", "not-the-secret"}, "SASL_AUTHENTICATION_FAILED"},
           {{"SCRAM-SHA-512", "mallory", "mallory-secret"}, "SASL_AUTHENTICATION_FAILED"},
           {{"GSSAPI", "admin", "admin-secret"}, "UNSUPPORTED_SASL_MECHANISM"}}) {
    kafka_socket socket(secured(), tls());
    ASSERT_TRUE(socket.connected()) << socket.tls_error();
    auto in = sasl_login(socket, who);
    EXPECT_FALSE(in.authenticated) << who.mechanism;
    EXPECT_TRUE(in.refused) << who.mechanism << ": " << in.error;
    EXPECT_NE(in.error.find(said), std::string::npos) << in.error;
    EXPECT_EQ(in.error.find(who.password), std::string::npos) << in.error;
  }
  // The certificate names localhost and 127.0.0.1, not these.
  for (const char* name : {"broker.example", "127.0.0.2"}) {
    kafka_socket wrong_name(secured(), tls(name));
    EXPECT_FALSE(wrong_name.connected()) << name;
    EXPECT_NE(wrong_name.tls_error().find("certificate verify failed"), std::string::npos) << wrong_name.tls_error();
  }
}

}  // namespace
}  // namespace hw::testing
