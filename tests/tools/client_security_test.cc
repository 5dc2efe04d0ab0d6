// The client security keys the native tools take (--command-config,
// --producer.config ...): security.protocol, sasl.mechanism, the JAAS login
// modules' username/password, the ssl.* keys, and the messages Kafka
// 4.3.1's client gives for bad values (checked by running kafka-topics.sh
// with the same properties); the stores loaded into a TLS context and into
// librdkafka's PEM settings, from files scripts/make-certs.sh writes.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tools/client/client_security.h"

namespace hw::tools {
namespace {

const char* const plain_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"alice-secret\";";

// No JAAS file unless a test names one, whatever KAFKA_OPTS says.
client_security parsed(const property_pairs& props, const std::optional<std::string>& login_config = std::nullopt) {
  auto r = client_security_from(props, login_config);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get_if<client_security>(&r) ? std::get<client_security>(r) : client_security{};
}

std::string refused(const property_pairs& props, const std::optional<std::string>& login_config = std::nullopt) {
  auto r = client_security_from(props, login_config);
  EXPECT_TRUE(std::holds_alternative<std::string>(r));
  return std::get_if<std::string>(&r) ? std::get<std::string>(r) : std::string();
}

TEST(ClientSecurity, DefaultsArePlaintextWithHostChecks) {
  client_security s = parsed({{"client.id", "x"}});
  EXPECT_EQ(s.protocol, "PLAINTEXT");
  EXPECT_FALSE(s.uses_tls());
  EXPECT_FALSE(s.uses_sasl());
  EXPECT_TRUE(s.verify_host);
  EXPECT_EQ(s.tls.truststore_type, "JKS");
  EXPECT_EQ(s.tls.keystore_type, "JKS");
}

TEST(ClientSecurity, ProtocolIsCaseInsensitiveAndChecked) {
  EXPECT_EQ(parsed({{"security.protocol", "ssl"}}).protocol, "SSL");
  EXPECT_TRUE(parsed({{"security.protocol", " SSL "}}).uses_tls());
  EXPECT_EQ(refused({{"security.protocol", "FOO"}}),
            "Invalid value FOO for configuration security.protocol: String must be one of (case insensitive): "
            "SASL_SSL, PLAINTEXT, SSL, SASL_PLAINTEXT");
}

TEST(ClientSecurity, SaslTakesTheJaasLogin) {
  client_security s = parsed({{"security.protocol", "SASL_SSL"}, {"sasl.mechanism", "PLAIN"}, {"sasl.jaas.config", plain_jaas}});
  EXPECT_TRUE(s.uses_tls());
  EXPECT_TRUE(s.uses_sasl());
  EXPECT_EQ(s.mechanism, "PLAIN");
  EXPECT_EQ(s.username, "alice");
  EXPECT_EQ(s.password, "alice-secret");

  s = parsed({{"security.protocol", "SASL_PLAINTEXT"},
              {"sasl.mechanism", "SCRAM-SHA-512"},
              {"sasl.jaas.config",
               "org.apache.kafka.common.security.scram.ScramLoginModule required username='bob' password=\"p=\\\"q\";"}});
  EXPECT_EQ(s.mechanism, "SCRAM-SHA-512");
  EXPECT_EQ(s.username, "bob");
  EXPECT_EQ(s.password, "p=\"q");
  EXPECT_FALSE(s.uses_tls());
}

// Without sasl.jaas.config the login is the KafkaClient section of the
// JAAS file named in KAFKA_OPTS; its refusals are the exceptions Kafka's
// client fails with (checked with kafka-topics.sh, tests/compat).
TEST(ClientSecurity, LoginFromTheJaasFileOfKafkaOpts) {
  const std::string dir = ::testing::TempDir() + "/client-jaas-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  auto file = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  const property_pairs sasl{{"security.protocol", "SASL_PLAINTEXT"}, {"sasl.mechanism", "SCRAM-SHA-256"}};
  const std::string good = file("good.conf",
                                "// the tools' login\nKafkaServer { x.Y required; };\nKafkaClient {\n"
                                "  org.apache.kafka.common.security.scram.ScramLoginModule required\n"
                                "    username=\"bob\" password=\"bob-secret\";\n};\n");
  client_security s = parsed(sasl, good);
  EXPECT_EQ(s.username, "bob");
  EXPECT_EQ(s.password, "bob-secret");
  // The JDK's "only this file" form.
  EXPECT_EQ(parsed(sasl, "=" + good).username, "bob");
  // sasl.jaas.config wins over the file.
  property_pairs with_property = sasl;
  with_property.emplace_back("sasl.jaas.config", plain_jaas);
  EXPECT_EQ(parsed(with_property, dir + "/missing.conf").username, "alice");

  EXPECT_EQ(refused(sasl, file("server.conf", "KafkaServer { x.Y required; };")),
            "java.lang.IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS configuration. "
            "System property 'java.security.auth.login.config' is " + dir + "/server.conf");
  EXPECT_EQ(refused(sasl, dir + "/missing.conf"),
            "java.lang.SecurityException: java.io.IOException: " + dir +
                "/missing.conf (No such file or directory)\nCaused by: java.io.IOException: " + dir +
                "/missing.conf (No such file or directory)");
  const std::string bad = refused(sasl, file("bad.conf", "KafkaClient {\n a.B required username=\"u\" password=\"p\"\n};"));
  EXPECT_EQ(bad,
            "java.lang.SecurityException: java.io.IOException: Configuration Error:\n\tLine 3: expected [option key]"
            "\nCaused by: java.io.IOException: Configuration Error:\n\tLine 3: expected [option key]");
  EXPECT_TRUE(login_context_failure(bad));
  EXPECT_FALSE(login_context_failure("Login module control flag not specified in JAAS config"));
  std::filesystem::remove_all(dir);
}

TEST(ClientSecurity, SaslRefusalsAreKafkasWords) {
  EXPECT_EQ(refused({{"security.protocol", "SASL_PLAINTEXT"}, {"sasl.mechanism", "PLAIN"}}),
            "java.lang.IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS configuration. "
            "System property 'java.security.auth.login.config' is not set");
  EXPECT_EQ(refused({{"security.protocol", "SASL_PLAINTEXT"}, {"sasl.mechanism", "PLAIN"}, {"sasl.jaas.config", "foo"}}),
            "Login module control flag not specified in JAAS config");
  EXPECT_EQ(refused({{"security.protocol", "SASL_PLAINTEXT"},
                     {"sasl.mechanism", "PLAIN"},
                     {"sasl.jaas.config", "a required; b required;"}}),
            "JAAS config property contains 2 login modules, should be 1 module");
  // GSSAPI, Kafka's default mechanism, and others the native tools lack.
  EXPECT_NE(refused({{"security.protocol", "SASL_SSL"}, {"sasl.jaas.config", plain_jaas}}).find("sasl.mechanism=GSSAPI"),
            std::string::npos);
  EXPECT_NE(refused({{"security.protocol", "SASL_SSL"},
                     {"sasl.mechanism", "PLAIN"},
                     {"sasl.jaas.config", "com.sun.security.auth.module.Krb5LoginModule required;"}})
                .find("Krb5LoginModule is not supported"),
            std::string::npos);
  const std::string no_password =
      refused({{"security.protocol", "SASL_SSL"},
               {"sasl.mechanism", "PLAIN"},
               {"sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\";"}});
  EXPECT_NE(no_password.find("username and password"), std::string::npos) << no_password;
  // With PLAINTEXT or SSL the SASL keys are not read, as in Kafka's client.
  EXPECT_EQ(parsed({{"security.protocol", "SSL"}, {"sasl.jaas.config", "garbage"}}).username, "");
}

// ScramLoginModule's tokenauth=true (any case) logs in with a delegation
// token: Kafka's client adds the SCRAM extension tokenauth=true to its
// first message, and so do the admin tools' connections. Another value, or
// PLAIN, is an ordinary login, as in Kafka's client.
TEST(ClientSecurity, DelegationTokenLoginsAreScramsTokenauth) {
  const std::string token_jaas =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"tokenid\" password=\"hmac\" "
      "tokenauth=";
  const property_pairs token_login{{"security.protocol", "SASL_PLAINTEXT"},
                                   {"sasl.mechanism", "SCRAM-SHA-512"},
                                   {"sasl.jaas.config", token_jaas + "\"TRUE\";"}};
  client_security s = parsed(token_login);
  EXPECT_TRUE(s.token_login);
  EXPECT_EQ(s.username, "tokenid");
  EXPECT_EQ(s.password, "hmac");
  auto connection = connection_security_from(token_login);
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<const connection_security>>(connection));
  EXPECT_TRUE(std::get<std::shared_ptr<const connection_security>>(connection)->token_auth);
  EXPECT_FALSE(parsed({{"security.protocol", "SASL_PLAINTEXT"},
                       {"sasl.mechanism", "SCRAM-SHA-512"},
                       {"sasl.jaas.config", token_jaas + "\"no\";"}})
                   .token_login);
  EXPECT_FALSE(parsed({{"security.protocol", "SASL_PLAINTEXT"},
                       {"sasl.mechanism", "PLAIN"},
                       {"sasl.jaas.config", token_jaas + "true;"}})
                   .token_login);
}

TEST(ClientSecurity, ErrorsNeverQuoteTheSecret) {
  const std::string e = refused({{"security.protocol", "SASL_SSL"},
                                 {"sasl.mechanism", "PLAIN"},
                                 {"sasl.jaas.config",
                                  "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" "
                                  "password=\"hunter2\""}});
  EXPECT_FALSE(e.empty());
  EXPECT_EQ(e.find("hunter2"), std::string::npos) << e;
}

TEST(ClientSecurity, SslKeys) {
  client_security s = parsed({{"security.protocol", "SSL"},
                              {"ssl.truststore.location", "/t.p12"},
                              {"ssl.truststore.password", "tp"},
                              {"ssl.truststore.type", "pkcs12"},
                              {"ssl.keystore.location", "/k.pem"},
                              {"ssl.keystore.type", "PEM"},
                              {"ssl.keystore.password", ""},
                              {"ssl.key.password", "kp"},
                              {"ssl.enabled.protocols", "TLSv1.3, TLSv1.2"},
                              {"ssl.endpoint.identification.algorithm", ""}});
  EXPECT_EQ(s.tls.truststore_location, "/t.p12");
  EXPECT_EQ(s.tls.truststore_password, "tp");
  EXPECT_EQ(s.tls.truststore_type, "PKCS12");
  EXPECT_EQ(s.tls.keystore_location, "/k.pem");
  EXPECT_EQ(s.tls.keystore_type, "PEM");
  EXPECT_FALSE(s.tls.keystore_password);  // empty: unset
  EXPECT_EQ(s.tls.key_password, "kp");
  EXPECT_EQ(s.tls.enabled_protocols, (std::vector<std::string>{"TLSv1.3", "TLSv1.2"}));
  EXPECT_FALSE(s.verify_host);
  EXPECT_TRUE(parsed({{"security.protocol", "SSL"}, {"ssl.endpoint.identification.algorithm", "HTTPS"}}).verify_host);

  s = parsed({{"security.protocol", "SSL"},
              {"ssl.truststore.type", "PEM"},
              {"ssl.truststore.certificates", "-----BEGIN CERTIFICATE-----"},
              {"ssl.keystore.certificate.chain", "chain"},
              {"ssl.keystore.key", "key"}});
  EXPECT_EQ(s.tls.truststore_certificates, "-----BEGIN CERTIFICATE-----");
  EXPECT_EQ(s.tls.keystore_certificate_chain, "chain");
  EXPECT_EQ(s.tls.keystore_key, "key");

  EXPECT_NE(refused({{"security.protocol", "SSL"}, {"ssl.endpoint.identification.algorithm", "ldaps"}})
                .find("ssl.endpoint.identification.algorithm=ldaps"),
            std::string::npos);
  EXPECT_NE(refused({{"security.protocol", "SSL"}, {"ssl.truststore.type", "BKS"}}).find("ssl.truststore.type=BKS"),
            std::string::npos);
}

// Certificates from scripts/make-certs.sh, once for the suite.
class ClientStores : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (std::filesystem::temp_directory_path() / ("hw-client-certs-" + std::to_string(getpid()))).string();
    const std::string cmd = std::string(HW_SOURCE_DIR) + "/scripts/make-certs.sh " + dir_ +
                            " --password store-pass --hosts localhost --clients alice >/dev/null 2>&1";
    made_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  void SetUp() override { ASSERT_TRUE(made_) << "scripts/make-certs.sh failed"; }

  static client_security ssl(property_pairs more) {
    more.insert(more.begin(), {"security.protocol", "SSL"});
    return parsed(more);
  }
  static std::string dir_;
  static bool made_;
};
std::string ClientStores::dir_;
bool ClientStores::made_ = false;

TEST_F(ClientStores, Pkcs12TrustStoreAndKeyStore) {
  auto pem = tls_pem_material(ssl({{"ssl.truststore.location", dir_ + "/truststore.p12"},
                                   {"ssl.truststore.password", "store-pass"},
                                   {"ssl.truststore.type", "PKCS12"},
                                   {"ssl.keystore.location", dir_ + "/alice.keystore.p12"},
                                   {"ssl.keystore.password", "store-pass"},
                                   {"ssl.keystore.type", "PKCS12"}}));
  ASSERT_TRUE(std::holds_alternative<tls_pem>(pem)) << std::get<std::string>(pem);
  const tls_pem& p = std::get<tls_pem>(pem);
  EXPECT_TRUE(p.trusted.starts_with("-----BEGIN CERTIFICATE-----"));
  EXPECT_TRUE(p.chain.starts_with("-----BEGIN CERTIFICATE-----"));
  EXPECT_TRUE(p.key.starts_with("-----BEGIN PRIVATE KEY-----"));
  std::ifstream ca(dir_ + "/ca.crt");
  std::string ca_text((std::istreambuf_iterator<char>(ca)), std::istreambuf_iterator<char>());
  EXPECT_EQ(p.trusted, ca_text);
}

TEST_F(ClientStores, PemStoresAndAContext) {
  client_security s = ssl({{"ssl.truststore.location", dir_ + "/ca.crt"},
                           {"ssl.truststore.type", "PEM"},
                           {"ssl.keystore.location", dir_ + "/alice.pem"},
                           {"ssl.keystore.type", "PEM"},
                           {"ssl.key.password", "store-pass"}});
  auto ctx = make_tls_context(s);
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<ssl_ctx_st>>(ctx)) << std::get<std::string>(ctx);
  EXPECT_NE(std::get<std::shared_ptr<ssl_ctx_st>>(ctx), nullptr);
  // The PEM key store's encrypted key needs ssl.key.password.
  s.tls.key_password.reset();
  auto refused_ctx = make_tls_context(s);
  ASSERT_TRUE(std::holds_alternative<std::string>(refused_ctx));
  EXPECT_NE(std::get<std::string>(refused_ctx).find("ssl.key.password"), std::string::npos);
}

TEST_F(ClientStores, WrongPasswordMissingFileAndJks) {
  auto wrong = make_tls_context(ssl({{"ssl.truststore.location", dir_ + "/truststore.p12"},
                                     {"ssl.truststore.password", "not-it"},
                                     {"ssl.truststore.type", "PKCS12"}}));
  ASSERT_TRUE(std::holds_alternative<std::string>(wrong));
  const std::string w = std::get<std::string>(wrong);
  EXPECT_TRUE(w.starts_with("Failed to load SSL truststore " + dir_ + "/truststore.p12 of type PKCS12")) << w;
  EXPECT_NE(w.find("password was incorrect"), std::string::npos) << w;
  EXPECT_EQ(w.find("not-it"), std::string::npos) << w;

  auto missing = make_tls_context(ssl({{"ssl.truststore.location", dir_ + "/nonexistent.p12"}}));
  ASSERT_TRUE(std::holds_alternative<std::string>(missing));
  EXPECT_TRUE(std::get<std::string>(missing).starts_with("Failed to load SSL truststore " + dir_ +
                                                         "/nonexistent.p12 of type JKS"));

  const std::string jks = dir_ + "/fake.jks";
  std::ofstream(jks) << std::string("\xFE\xED\xFE\xED\x00\x00\x00\x02", 8);
  auto refused_jks = make_tls_context(ssl({{"ssl.truststore.location", jks}, {"ssl.truststore.password", "x"}}));
  ASSERT_TRUE(std::holds_alternative<std::string>(refused_jks));
  EXPECT_NE(std::get<std::string>(refused_jks).find("keytool -importkeystore -srckeystore " + jks), std::string::npos);
}

TEST_F(ClientStores, PlaintextNeedsNoConnectionSecurity) {
  auto none = connection_security_from({{"security.protocol", "PLAINTEXT"}, {"ssl.truststore.location", "/nowhere"}});
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<const connection_security>>(none));
  EXPECT_EQ(std::get<std::shared_ptr<const connection_security>>(none), nullptr);
  auto sasl = connection_security_from({{"security.protocol", "SASL_SSL"},
                                        {"sasl.mechanism", "SCRAM-SHA-256"},
                                        {"sasl.jaas.config", plain_jaas},
                                        {"ssl.truststore.location", dir_ + "/ca.crt"},
                                        {"ssl.truststore.type", "PEM"}});
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<const connection_security>>(sasl)) << std::get<std::string>(sasl);
  const auto& c = *std::get<std::shared_ptr<const connection_security>>(sasl);
  EXPECT_NE(c.tls, nullptr);
  EXPECT_EQ(c.sasl_mechanism, "SCRAM-SHA-256");
  EXPECT_EQ(c.username, "alice");
}

}  // namespace
}  // namespace hw::tools
