// TLS contexts from a listener's ssl.* keys, with certificates made by
// scripts/make-certs.sh: each key store form loads (PKCS12, PKCS12 typed
// JKS, PEM file with an encrypted key, inline PEM) and each unusable one is
// refused with a message naming the file and never the password; an
// in-process mutual TLS handshake yields the client's subject as Java
// names it, and the mapping rules turn it into the principal's name.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "broker/security/tls_context.h"
#include "tests/support/test_certificates.h"

namespace hw::broker {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

constexpr const char* k_password = "unit-tls-secret";

const std::string& certs() {
  static const testing::test_certificates made(k_password, "localhost", "alice");
  static const std::string none;
  return made.ok() ? made.path() : none;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

config::listener_security keys() {
  config::listener_security k;
  k.listener = "SSL";
  k.protocol = "SSL";
  k.tls.keystore_type = "PKCS12";
  k.tls.keystore_location = certs() + "/localhost.keystore.p12";
  k.tls.keystore_password = k_password;
  k.tls.truststore_type = "JKS";
  k.tls.enabled_protocols = {"TLSv1.2", "TLSv1.3"};
  k.tls.protocol = "TLSv1.3";
  k.tls.client_auth = "none";
  k.tls.endpoint_identification = "https";
  k.tls.principal_mapping_rules = "DEFAULT";
  return k;
}

std::string error_of(const std::variant<std::shared_ptr<const tls_server_context>, std::string>& r) {
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

class TlsContext : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(certs().empty()) << "scripts/make-certs.sh failed"; }
};

TEST_F(TlsContext, EveryKeyStoreFormLoads) {
  EXPECT_EQ(error_of(make_tls_server_context(keys())), "");
  auto jks_typed = keys();
  jks_typed.tls.keystore_type = "JKS";  // Kafka's default type, a PKCS12 file
  EXPECT_EQ(error_of(make_tls_server_context(jks_typed)), "");
  auto pem = keys();
  pem.tls.keystore_type = "PEM";
  pem.tls.keystore_location = certs() + "/localhost.pem";
  pem.tls.key_password = k_password;
  EXPECT_EQ(error_of(make_tls_server_context(pem)), "");
  auto inline_pem = keys();
  inline_pem.tls.keystore_type = "PEM";
  inline_pem.tls.keystore_location.reset();
  inline_pem.tls.keystore_certificate_chain = slurp(certs() + "/localhost.chain.pem");
  inline_pem.tls.keystore_key = slurp(certs() + "/localhost.key.pem");
  inline_pem.tls.key_password = k_password;
  EXPECT_EQ(error_of(make_tls_server_context(inline_pem)), "");
}

TEST_F(TlsContext, UnusableKeyStoresAreRefusedByName) {
  auto wrong = keys();
  wrong.tls.keystore_password = "guess-5678";
  const std::string e = error_of(make_tls_server_context(wrong));
  EXPECT_EQ(e, "Listener SSL (SSL): Failed to load SSL keystore " + certs() +
                   "/localhost.keystore.p12 of type PKCS12: keystore password was incorrect");
  EXPECT_EQ(e.find("guess-5678"), std::string::npos);

  auto missing = keys();
  missing.tls.keystore_location = certs() + "/nope.p12";
  EXPECT_NE(error_of(make_tls_server_context(missing)).find("nope.p12 of type PKCS12: cannot read the file"),
            std::string::npos);

  auto no_key_password = keys();
  no_key_password.tls.keystore_type = "PEM";
  no_key_password.tls.keystore_location = certs() + "/localhost.pem";
  EXPECT_NE(error_of(make_tls_server_context(no_key_password)).find("an encrypted key needs ssl.key.password"),
            std::string::npos);

  auto jks = keys();
  const std::string fake = certs() + "/fake.jks";
  std::ofstream(fake, std::ios::binary) << std::string("\xFE\xED\xFE\xED\x00\x00\x00\x02", 8);
  jks.tls.keystore_location = fake;
  EXPECT_NE(error_of(make_tls_server_context(jks)).find("it is a JKS store"), std::string::npos);

  auto none = keys();
  none.tls.keystore_location.reset();
  EXPECT_NE(error_of(make_tls_server_context(none)).find("no key store"), std::string::npos);

  auto no_trust = keys();
  no_trust.tls.client_auth = "required";
  EXPECT_NE(error_of(make_tls_server_context(no_trust)).find("needs a trust store"), std::string::npos);

  auto bad_suite = keys();
  bad_suite.tls.cipher_suites = {"TLS_NOT_A_SUITE"};
  EXPECT_NE(error_of(make_tls_server_context(bad_suite)).find("unknown cipher suite TLS_NOT_A_SUITE"),
            std::string::npos);
  auto no_version = keys();
  no_version.tls.enabled_protocols = {"SSLv3"};
  EXPECT_NE(error_of(make_tls_server_context(no_version)).find("ssl.enabled.protocols"), std::string::npos);
  auto bad_rule = keys();
  bad_rule.tls.principal_mapping_rules = "RULE:oops";
  EXPECT_NE(error_of(make_tls_server_context(bad_rule)).find("ssl.principal.mapping.rules"), std::string::npos);
}

TEST_F(TlsContext, NamedStandardCipherSuitesAreAccepted) {
  auto k = keys();
  k.tls.cipher_suites = {"TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"};
  EXPECT_EQ(error_of(make_tls_server_context(k)), "");
}

// A mutual TLS handshake over loopback; the server side's view of the
// client's subject.
std::optional<std::string> handshake_subject(const tls_server_context& server, const tls_client_context& client,
                                             std::string* error) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket server_socket(io), client_socket(io);
  acceptor.async_accept(server_socket, [](boost::system::error_code) {});
  client_socket.connect(acceptor.local_endpoint());
  io.run();
  io.restart();
  asio::ssl::stream<tcp::socket&> s(server_socket, *server.context), c(client_socket, *client.context);
  boost::system::error_code server_ec, client_ec;
  SSL_set1_host(c.native_handle(), "localhost");
  s.async_handshake(asio::ssl::stream_base::server, [&](boost::system::error_code ec) { server_ec = ec; });
  c.async_handshake(asio::ssl::stream_base::client, [&](boost::system::error_code ec) { client_ec = ec; });
  io.run_for(std::chrono::seconds(10));
  if (server_ec || client_ec) {
    *error = "server: " + server_ec.message() + "; client: " + client_ec.message();
    return std::nullopt;
  }
  return tls_peer_subject(s.native_handle());
}

TEST_F(TlsContext, MutualTlsGivesTheSubjectAndTheRulesNameIt) {
  auto server_keys = keys();
  server_keys.tls.client_auth = "required";
  server_keys.tls.truststore_type = "PEM";
  server_keys.tls.truststore_location = certs() + "/ca.crt";
  server_keys.tls.principal_mapping_rules = "RULE:^CN=(.*?),OU=(.*?),O=(.*)$/$1@$3/L,DEFAULT";
  auto server = make_tls_server_context(server_keys);
  ASSERT_EQ(error_of(server), "");
  auto client_keys = keys();
  client_keys.tls.keystore_location = certs() + "/alice.keystore.p12";
  client_keys.tls.truststore_type = "PKCS12";
  client_keys.tls.truststore_location = certs() + "/truststore.p12";
  client_keys.tls.truststore_password = k_password;
  auto client = make_tls_client_context(client_keys);
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<const tls_client_context>>(client)) << std::get<std::string>(client);

  const auto& s = *std::get<std::shared_ptr<const tls_server_context>>(server);
  std::string error;
  auto subject = handshake_subject(s, *std::get<std::shared_ptr<const tls_client_context>>(client), &error);
  ASSERT_TRUE(subject) << error;
  EXPECT_EQ(*subject, "CN=alice,OU=test,O=Highwater");
  EXPECT_EQ(s.mapping.map(*subject, &error), "alice@highwater");
  EXPECT_TRUE(s.wants_client_certificate);

  // Without a certificate the handshake fails when one is required.
  auto anonymous_keys = client_keys;
  anonymous_keys.tls.keystore_location.reset();
  auto anonymous = make_tls_client_context(anonymous_keys);
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<const tls_client_context>>(anonymous));
  EXPECT_FALSE(handshake_subject(s, *std::get<std::shared_ptr<const tls_client_context>>(anonymous), &error));
}

}  // namespace
}  // namespace hw::broker
