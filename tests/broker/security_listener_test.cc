// What a SASL listener offers: the JAAS entries Kafka would load per
// mechanism (and its messages when there are none, or too many), PLAIN's
// users, SCRAM through the credential lookup, the broker's own login.
#include <gtest/gtest.h>

#include "broker/security/sasl_listener.h"
#include "broker/security/scram_client.h"

namespace hw::broker {
namespace {

constexpr const char* plain_module =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-secret\" "
    "user_admin=\"admin-secret\" user_alice=\"alice-secret\";";
constexpr const char* scram_module =
    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"admin-secret\";";

config::listener_security keys(std::vector<std::string> mechanisms, std::map<std::string, std::string> jaas = {}) {
  config::listener_security k;
  k.listener = "SASL_PLAINTEXT";
  k.protocol = "SASL_PLAINTEXT";
  k.sasl_enabled_mechanisms = std::move(mechanisms);
  k.sasl_jaas_config = std::move(jaas);
  return k;
}

std::string error_of(const std::variant<std::shared_ptr<const sasl_listener>, std::string>& r) {
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

std::vector<uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(SaslListener, NoJaasAnywhereIsKafkasError) {
  auto r = sasl_listener::make(keys({"PLAIN"}), {}, nullptr);
  EXPECT_EQ(error_of(r),
            "Listener SASL_PLAINTEXT (SASL_PLAINTEXT): Could not find a 'KafkaServer' or "
            "'sasl_plaintext.KafkaServer' entry in the JAAS configuration. System property "
            "'java.security.auth.login.config' is not set");
  jaas_file empty;
  r = sasl_listener::make(keys({"PLAIN"}), {&empty, "/etc/kafka/jaas.conf"}, nullptr);
  EXPECT_NE(error_of(r).find("System property 'java.security.auth.login.config' is /etc/kafka/jaas.conf"),
            std::string::npos)
      << error_of(r);
}

TEST(SaslListener, AJaasValueHoldsExactlyOneModule) {
  auto two = sasl_listener::make(keys({"PLAIN"}, {{"PLAIN", std::string(plain_module) + " " + scram_module}}), {},
                                 nullptr);
  EXPECT_NE(error_of(two).find("listener.name.sasl_plaintext.plain.sasl.jaas.config: JAAS config property contains 2 "
                               "login modules, should be 1 module"),
            std::string::npos)
      << error_of(two);
  auto bad = sasl_listener::make(keys({"PLAIN"}, {{"PLAIN", "not a module"}}), {}, nullptr);
  EXPECT_NE(error_of(bad).find("Invalid listener.name.sasl_plaintext.plain.sasl.jaas.config"), std::string::npos);
  // No secret in any message.
  EXPECT_EQ(error_of(two).find("secret"), std::string::npos);
}

TEST(SaslListener, UnsupportedOrNoMechanismIsRefused) {
  EXPECT_NE(error_of(sasl_listener::make(keys({"FOO"}), {}, nullptr)).find("SASL mechanism FOO is not supported"),
            std::string::npos);
  // GSSAPI is served: without a JAAS entry it is Kafka's missing-section error.
  EXPECT_NE(error_of(sasl_listener::make(keys({"GSSAPI"}), {}, nullptr)).find("Could not find a 'KafkaServer'"),
            std::string::npos);
  EXPECT_NE(error_of(sasl_listener::make(keys({}), {}, nullptr)).find("sasl.enabled.mechanisms is empty"),
            std::string::npos);
}

TEST(SaslListener, JaasFileSectionsListenerFirstThenKafkaServer) {
  jaas_file file = parse_jaas_file(std::string("KafkaServer { ") + plain_module +
                                   " };\nsasl_plaintext.KafkaServer { "
                                   "org.apache.kafka.common.security.plain.PlainLoginModule required user_bob=\"b\"; };");
  ASSERT_TRUE(file.ok()) << file.error;
  auto e = server_jaas_entries(keys({"PLAIN"}), "PLAIN", {&file, "/x"});
  ASSERT_TRUE(std::holds_alternative<std::vector<jaas_entry>>(e));
  EXPECT_EQ(plain_users(std::get<std::vector<jaas_entry>>(e)), (std::map<std::string, std::string>{{"bob", "b"}}));
  auto other = keys({"PLAIN"});
  other.listener = "INTERNAL";
  e = server_jaas_entries(other, "PLAIN", {&file, "/x"});
  ASSERT_TRUE(std::holds_alternative<std::vector<jaas_entry>>(e));
  EXPECT_EQ(plain_users(std::get<std::vector<jaas_entry>>(e)).count("alice"), 1u);
}

TEST(SaslListener, SessionsAuthenticatePlainUsersAndScramThroughTheLookup) {
  const scram_credential alice = scram::make_credential(scram_mechanism::sha512, "alice-scram", 4096);
  int lookups = 0;
  auto made = sasl_listener::make(keys({"PLAIN", "SCRAM-SHA-512"}, {{"PLAIN", plain_module}, {"SCRAM-SHA-512", scram_module}}),
                                  {}, [&](scram_mechanism m, const std::string& user) -> std::optional<scram_credential> {
                                    ++lookups;
                                    if (m == scram_mechanism::sha512 && user == "alice") return alice;
                                    return std::nullopt;
                                  });
  ASSERT_EQ(error_of(made), "");
  auto listener = std::get<std::shared_ptr<const sasl_listener>>(made);

  auto plain = listener->new_session();
  ASSERT_EQ(plain->handshake("PLAIN", 1).error, protocol::error_code::none);
  auto bad = plain->authenticate(bytes(plain_client_token("alice", "wrong")));
  EXPECT_EQ(bad.error, protocol::error_code::sasl_authentication_failed);
  plain = listener->new_session();
  plain->handshake("PLAIN", 1);
  EXPECT_EQ(plain->authenticate(bytes(plain_client_token("alice", "alice-secret"))).error, protocol::error_code::none);
  EXPECT_EQ(plain->principal().to_string(), "User:alice");

  auto scram = listener->new_session();
  ASSERT_EQ(scram->handshake("SCRAM-SHA-512", 1).error, protocol::error_code::none);
  scram_client client(scram_mechanism::sha512, "alice", "alice-scram");
  auto first = scram->authenticate(bytes(client.client_first()));
  ASSERT_EQ(first.error, protocol::error_code::none);
  std::string why;
  auto final_message = client.client_final(std::string(first.auth_bytes.begin(), first.auth_bytes.end()), &why);
  ASSERT_TRUE(final_message) << why;
  auto last = scram->authenticate(bytes(*final_message));
  ASSERT_EQ(last.error, protocol::error_code::none);
  EXPECT_TRUE(client.verify_server_final(std::string(last.auth_bytes.begin(), last.auth_bytes.end()), &why)) << why;
  EXPECT_EQ(scram->principal().to_string(), "User:alice");
  EXPECT_EQ(lookups, 1);

  // A SCRAM-SHA-256 handshake is not enabled here.
  auto off = listener->new_session();
  EXPECT_EQ(off->handshake("SCRAM-SHA-256", 1).error, protocol::error_code::unsupported_sasl_mechanism);
}

TEST(SaslListener, OwnLoginFromTheMechanismsModule) {
  auto made = sasl_listener::make(keys({"PLAIN"}, {{"PLAIN", plain_module}}), {}, nullptr);
  auto listener = std::get<std::shared_ptr<const sasl_listener>>(made);
  auto login = listener->own_login("PLAIN");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->username, "admin");
  EXPECT_EQ(login->password, "admin-secret");
  EXPECT_FALSE(listener->own_login("SCRAM-SHA-256"));
}

}  // namespace
}  // namespace hw::broker
