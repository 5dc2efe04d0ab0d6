// GSSAPI: sasl.kerberos.principal.to.local.rules as Kafka 4.3.1 applies
// them (the cases of its KerberosNameTest and KerberosRuleTest, and more
// whose answers were taken from kafka-clients-4.3.1.jar's
// KerberosShortNamer), the RFC 4752 security-layer messages, the keytab
// refusals a listener gives at start-up, and, against a KDC the test makes
// (tests/support/kdc.py), whole exchanges between the broker's client and
// server sides: the principal, authorization ids, the wrong service, a
// replayed token, tokens out of order.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "broker/security/gss_credential.h"
#include "broker/security/gssapi_client.h"
#include "broker/security/gssapi_server.h"
#include "broker/security/kerberos_rules.h"
#include "broker/security/sasl_listener.h"
#include "config/broker_config.h"
#include "config/listener_security.h"

namespace hw::broker {
namespace {

std::string short_name(const std::vector<std::string>& rules, const std::string& principal,
                       const std::string& realm = "REALM.COM") {
  std::string error;
  auto namer = kerberos_short_namer::parse(rules, realm, &error);
  if (!namer) return "PARSE " + error;
  auto name = kerberos_name::parse(principal, &error);
  if (!name) return "ERR " + error;
  auto shortened = namer->short_name(*name, &error);
  return shortened ? *shortened : "ERR " + error;
}

TEST(kerberos_name, parses_as_kafka_does) {
  std::string error;
  auto n = kerberos_name::parse("App.service-name/example.com@REALM.COM", &error);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->service, "App.service-name");
  EXPECT_EQ(n->host, "example.com");
  EXPECT_EQ(n->realm, "REALM.COM");
  n = kerberos_name::parse("App.service-name@REALM.COM", &error);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->host);
  EXPECT_EQ(n->str(), "App.service-name@REALM.COM");
  n = kerberos_name::parse("bare", &error);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->realm);
  EXPECT_FALSE(kerberos_name::parse("a/b/c@EXAMPLE.COM", &error));
  EXPECT_EQ(error, "Malformed Kerberos name: a/b/c@EXAMPLE.COM");
}

// KerberosNameTest.testParse.
TEST(kerberos_rules, kafkas_parse_cases) {
  const std::vector<std::string> rules{"RULE:[1:$1](App\\..*)s/App\\.(.*)/$1/g", "RULE:[2:$1](App\\..*)s/App\\.(.*)/$1/g",
                                       "DEFAULT"};
  EXPECT_EQ(short_name(rules, "App.service-name/example.com@REALM.COM"), "service-name");
  EXPECT_EQ(short_name(rules, "App.service-name@REALM.COM"), "service-name");
  EXPECT_EQ(short_name(rules, "user/host@REALM.COM"), "user");
}

// KerberosNameTest.testToLowerCase and testToUpperCase.
TEST(kerberos_rules, kafkas_case_cases) {
  for (const char* change : {"L", "U"}) {
    const std::string c = change;
    const std::vector<std::string> rules{"RULE:[1:$1]/" + c, "RULE:[2:$1](Test.*)s/ABC///" + c,
                                         "RULE:[2:$1](ABC.*)s/ABC/XYZ/g/" + c, "RULE:[2:$1](App\\..*)s/App\\.(.*)/$1/g/" + c,
                                         "RULE:[2:$1]/" + c, "DEFAULT"};
    const bool lower = c == "L";
    EXPECT_EQ(short_name(rules, "User@REALM.COM"), lower ? "user" : "USER");
    EXPECT_EQ(short_name(rules, "TestABC/host@FOO.COM"), lower ? "test" : "TEST");
    EXPECT_EQ(short_name(rules, "ABC_User_ABC/host@FOO.COM"), lower ? "xyz_user_xyz" : "XYZ_USER_XYZ");
    EXPECT_EQ(short_name(rules, "App.SERVICE-name/example.com@REALM.COM"), lower ? "service-name" : "SERVICE-NAME");
    EXPECT_EQ(short_name(rules, "User/root@REALM.COM"), lower ? "user" : "USER");
  }
}

// KerberosNameTest.testInvalidRules.
TEST(kerberos_rules, kafkas_invalid_rules) {
  for (const char* rule : {"default", "DEFAUL", "DEFAULT/L", "DEFAULT/g", "rule:[1:$1]", "rule:[1:$1]/L/U",
                           "rule:[1:$1]/U/L", "rule:[1:$1]/LU", "RULE:[1:$1/L", "RULE:[1:$1]/l",
                           "RULE:[2:$1](ABC.*)s/ABC/XYZ/L/g"}) {
    std::string error;
    EXPECT_FALSE(kerberos_short_namer::parse({rule}, "REALM.COM", &error)) << rule;
    EXPECT_FALSE(error.empty()) << rule;
  }
  std::string error;
  kerberos_short_namer::parse({"DEFAULT/L"}, "R", &error);
  EXPECT_EQ(error, "Invalid rule: `DEFAULT/L`, unmatched substring: `/L`");
  kerberos_short_namer::parse({"rule:[1:$1]"}, "R", &error);
  EXPECT_EQ(error, "Invalid rule: rule:[1:$1]");
  kerberos_short_namer::parse({"RULE:[1:$1]/X"}, "R", &error);
  EXPECT_EQ(error, "Invalid rule: `RULE:[1:$1]/X`, unmatched substring: `X`");
  kerberos_short_namer::parse({"RULE:[:$1]"}, "R", &error);
  EXPECT_EQ(error, "For input string: \"\"");
  EXPECT_FALSE(kerberos_short_namer::parse({"RULE:[1:$1](a(b)"}, "R", &error));
}

// KerberosRuleTest.testReplaceParameters.
TEST(kerberos_rules, kafkas_parameter_cases) {
  std::string error;
  const std::vector<std::string> many{"too", "many", "parameters", "are", "ok"};
  EXPECT_EQ(kerberos_short_namer::replace_parameters("", {}, &error), "");
  EXPECT_EQ(kerberos_short_namer::replace_parameters("hello", {}, &error), "hello");
  EXPECT_EQ(kerberos_short_namer::replace_parameters("", many, &error), "");
  EXPECT_EQ(kerberos_short_namer::replace_parameters("hello", many, &error), "hello");
  EXPECT_EQ(kerberos_short_namer::replace_parameters("hello $0", many, &error), "hello too");
  EXPECT_EQ(kerberos_short_namer::replace_parameters("hello $0", {"no recursion $1"}, &error),
            "hello no recursion $1");
  EXPECT_FALSE(kerberos_short_namer::replace_parameters("$0", {}, &error));
  EXPECT_EQ(error, "index 0 from $0 is outside of the valid range 0 to -1");
  EXPECT_FALSE(kerberos_short_namer::replace_parameters("hello $a", {"does not matter"}, &error));
  EXPECT_EQ(error, "bad format in username mapping in ");
}

// Answers of kafka-clients-4.3.1.jar's KerberosShortNamer (default realm
// EXAMPLE.COM).
TEST(kerberos_rules, answers_kafka_gives) {
  const std::string realm = "EXAMPLE.COM";
  EXPECT_EQ(short_name({"DEFAULT"}, "alice@EXAMPLE.COM", realm), "alice");
  EXPECT_EQ(short_name({"DEFAULT"}, "alice@OTHER.COM", realm),
            "ERR No rules apply to alice@OTHER.COM, rules [DEFAULT]");
  EXPECT_EQ(short_name({"DEFAULT"}, "kafka/localhost@EXAMPLE.COM", realm), "kafka");
  EXPECT_EQ(short_name({"DEFAULT"}, "bare", realm), "bare");
  EXPECT_EQ(short_name({"RULE:[1:$1@$0](.*@OTHER\\.COM)s/@.*//", "DEFAULT"}, "alice@OTHER.COM", realm), "alice");
  EXPECT_EQ(short_name({"RULE:[2:$1@$0](kafka@.*)s/.*/broker/"}, "kafka/localhost@EXAMPLE.COM", realm), "broker");
  EXPECT_EQ(short_name({"RULE:[2:$1/$2]"}, "kafka/localhost@EXAMPLE.COM", realm),
            "ERR Non-simple name kafka/localhost after auth_to_local rule RULE:[2:$1/$2]");
  EXPECT_EQ(short_name({"RULE:[1:$3]"}, "alice@EXAMPLE.COM", realm),
            "ERR index 3 from $3 is outside of the valid range 0 to 1");
  EXPECT_EQ(short_name({"RULE:[1:$1x$]"}, "alice@EXAMPLE.COM", realm), "ERR bad format in username mapping in ");
  EXPECT_EQ(short_name({"RULE:[1:$1](a.*)s/a/$2/"}, "alice@EXAMPLE.COM", realm), "ERR No group 2");
  EXPECT_EQ(short_name({"RULE:[1:$1]s/l/L/g"}, "lilly@EXAMPLE.COM", realm), "LiLLy");
  EXPECT_EQ(short_name({"RULE:[1:$1]s/l/L/"}, "lilly@EXAMPLE.COM", realm), "Lilly");
  EXPECT_EQ(short_name({"RULE:[1:$1](x.*)"}, "alice@EXAMPLE.COM", realm),
            "ERR No rules apply to alice@EXAMPLE.COM, rules [RULE:[1:$1](x.*)]");
  EXPECT_EQ(short_name({"RULE:[1:$1]s/(l+)/<$1>/g/U"}, "lilly@EXAMPLE.COM", realm), "<L>I<LL>Y");
  EXPECT_EQ(short_name({}, "alice@EXAMPLE.COM", realm), "ERR No rules apply to alice@EXAMPLE.COM, rules []");
}

TEST(sasl_gssapi, security_layer_messages) {
  using namespace sasl_gssapi;
  EXPECT_EQ(encode_layers({no_security_layer, server_max_message, {}}), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(encode_layers({no_security_layer, 0, "alice@EXAMPLE.COM"}).size(), 4u + 17u);
  auto m = decode_layers(std::vector<uint8_t>{7, 0x12, 0x34, 0x56, 'b', 'o', 'b'});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->layers, 7);
  EXPECT_EQ(m->max_message, 0x123456u);
  EXPECT_EQ(m->authorization_id, "bob");
  EXPECT_FALSE(decode_layers(std::vector<uint8_t>{1, 0, 0}));
}

TEST(sasl_gssapi, the_krb5_login_module_and_the_service_name) {
  auto entries = [](const std::string& options) {
    return parse_jaas_config("com.sun.security.auth.module.Krb5LoginModule required " + options + ";").entries;
  };
  auto login = krb5_login_from_jaas(
      entries("useKeyTab=true storeKey=true keyTab=\"/k/kafka.keytab\" principal=\"kafka/h@R\" serviceName=\"kafka\""));
  ASSERT_TRUE(std::holds_alternative<krb5_login_options>(login));
  const auto& options = std::get<krb5_login_options>(login);
  EXPECT_EQ(options.keytab, "/k/kafka.keytab");
  EXPECT_EQ(options.principal, "kafka/h@R");
  EXPECT_EQ(options.service_name, "kafka");
  EXPECT_TRUE(std::holds_alternative<std::string>(krb5_login_from_jaas(entries("useTicketCache=true"))));
  EXPECT_TRUE(std::holds_alternative<std::string>(
      krb5_login_from_jaas(parse_jaas_config("org.apache.kafka.common.security.plain.PlainLoginModule required;").entries)));

  EXPECT_EQ(std::get<0>(kerberos_service_name(options, std::nullopt)), "kafka");
  EXPECT_EQ(std::get<0>(kerberos_service_name(options, "kafka")), "kafka");
  EXPECT_EQ(std::get<1>(kerberos_service_name(options, "other")),
            "Conflicting serviceName values found in JAAS and Kafka configs value in JAAS file kafka, value in Kafka "
            "config other");
  krb5_login_options unnamed = options;
  unnamed.service_name.reset();
  EXPECT_EQ(std::get<0>(kerberos_service_name(unnamed, "kafka")), "kafka");
  EXPECT_EQ(std::get<1>(kerberos_service_name(unnamed, std::nullopt)),
            "No serviceName defined in either JAAS or Kafka config");
}

// --- against a KDC -------------------------------------------------------------------------------------------

// A realm for the suite (tests/support/kdc.py), its environment set for
// every GSS-API call of this process; the tests skip when the KDC tools are
// not installed.
class GssapiExchange : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/hw-gssapi-unit-XXXXXX";
    if (!::mkdtemp(pattern)) return;
    dir_ = std::string(pattern) + "/kdc";
    const std::string command = "python3 " + std::string(HW_SOURCE_DIR) + "/tests/support/kdc.py start " + dir_ +
                                " --principal kafka/localhost --principal alice --principal bob --principal other/localhost";
    FILE* out = ::popen(command.c_str(), "r");
    if (!out) return;
    char line[4096];
    while (std::fgets(line, sizeof line, out)) {
      std::string l(line);
      if (!l.empty() && l.back() == '\n') l.pop_back();
      const size_t eq = l.find('=');
      if (eq != std::string::npos) ::setenv(l.substr(0, eq).c_str(), l.substr(eq + 1).c_str(), 1);
    }
    const int status = ::pclose(out);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
      skip_ = "the MIT KDC tools are not installed (scripts/install-deps.sh installs krb5-kdc)";
      return;
    }
    if (status != 0) {
      failed_ = "tests/support/kdc.py could not start a KDC";
      return;
    }
    ::setenv("KRB5RCACHEDIR", dir_.c_str(), 1);
    ready_ = true;
  }
  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    const std::string command = "python3 " + std::string(HW_SOURCE_DIR) + "/tests/support/kdc.py stop " + dir_;
    if (std::system(command.c_str()) != 0) std::fprintf(stderr, "kdc.py stop failed\n");
    std::filesystem::remove_all(std::filesystem::path(dir_).parent_path());
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(ready_) << failed_;
  }
  static std::string keytab(const std::string& principal) {
    std::string file = principal;
    for (char& c : file)
      if (c == '/') c = '_';
    return dir_ + "/" + file + ".keytab";
  }
  static std::shared_ptr<const gss_credential> credential(const std::string& principal, const std::string& file,
                                                          gss_credential::usage use) {
    auto made = gss_credential::from_keytab(principal, file, use);
    if (auto* e = std::get_if<std::string>(&made)) ADD_FAILURE() << *e;
    return std::holds_alternative<std::string>(made) ? nullptr : std::get<std::shared_ptr<const gss_credential>>(made);
  }
  static std::shared_ptr<const kerberos_short_namer> names(std::vector<std::string> rules = {"DEFAULT"}) {
    std::string error;
    auto n = kerberos_short_namer::parse(rules, "EXAMPLE.COM", &error);
    return std::make_shared<const kerberos_short_namer>(std::move(*n));
  }
  static std::shared_ptr<const gss_credential> acceptor() {
    return credential("kafka/localhost@EXAMPLE.COM", keytab("kafka/localhost"), gss_credential::usage::accept);
  }

  // Runs client against server until one of them stops: the server's last step.
  static sasl_step run(gssapi_client& client, gssapi_server& server, std::string* client_error) {
    auto token = client.first(client_error);
    sasl_step step = sasl_step::fail("the client made no first token");
    for (int round = 0; token && round < 10; ++round) {
      step = server.evaluate(*token);
      if (step.failed) return step;
      token = client.next(step.token, client_error);
    }
    return step;
  }

  static inline std::string dir_;
  static inline std::string skip_;
  static inline std::string failed_;
  static inline bool ready_ = false;
};

TEST_F(GssapiExchange, a_login_completes_as_the_principals_short_name) {
  auto alice = credential("alice@EXAMPLE.COM", keytab("alice"), gss_credential::usage::initiate);
  gssapi_client client(alice, "kafka", "localhost", "alice@EXAMPLE.COM");
  gssapi_server server(acceptor(), names());
  std::string error;
  sasl_step last = run(client, server, &error);
  EXPECT_FALSE(last.failed) << last.reason;
  EXPECT_TRUE(client.done()) << error;
  EXPECT_TRUE(server.complete());
  EXPECT_EQ(server.user(), "alice");
  EXPECT_EQ(server.kerberos_principal(), "alice@EXAMPLE.COM");
  EXPECT_EQ(server.requested_authorization_id(), "alice@EXAMPLE.COM");
}

TEST_F(GssapiExchange, the_rules_name_the_user) {
  auto bob = credential("bob@EXAMPLE.COM", keytab("bob"), gss_credential::usage::initiate);
  gssapi_client client(bob, "kafka", "localhost", "");
  gssapi_server server(acceptor(), names({"RULE:[1:$1@$0](bob@EXAMPLE\\.COM)s/.*/robert/", "DEFAULT"}));
  std::string error;
  EXPECT_FALSE(run(client, server, &error).failed);
  EXPECT_EQ(server.user(), "robert");
  // A name no rule maps: the exchange completes (Kafka answers it as a
  // success) without a principal, which closes the connection next.
  gssapi_client again(bob, "kafka", "localhost", "");
  gssapi_server strict(acceptor(), names({"RULE:[1:$1](alice)"}));
  sasl_step last = run(again, strict, &error);
  EXPECT_FALSE(last.failed);
  EXPECT_TRUE(strict.complete());
  ASSERT_TRUE(strict.principal_error());
  EXPECT_EQ(*strict.principal_error(),
            "Failed to set name for 'bob@EXAMPLE.COM' based on Kerberos authentication rules: No rules apply to "
            "bob@EXAMPLE.COM, rules [RULE:[1:$1](alice)]");
}

TEST_F(GssapiExchange, another_authorization_id_is_ignored_as_kafka_ignores_it) {
  auto alice = credential("alice@EXAMPLE.COM", keytab("alice"), gss_credential::usage::initiate);
  gssapi_client client(alice, "kafka", "localhost", "bob@EXAMPLE.COM");
  gssapi_server server(acceptor(), names());
  std::string error;
  EXPECT_FALSE(run(client, server, &error).failed);
  EXPECT_EQ(server.user(), "alice");
  EXPECT_EQ(server.requested_authorization_id(), "bob@EXAMPLE.COM");
}

TEST_F(GssapiExchange, a_ticket_for_another_service_is_refused) {
  auto alice = credential("alice@EXAMPLE.COM", keytab("alice"), gss_credential::usage::initiate);
  gssapi_client client(alice, "other", "localhost", "");
  gssapi_server server(acceptor(), names());
  std::string error;
  sasl_step last = run(client, server, &error);
  EXPECT_TRUE(last.failed);
  EXPECT_FALSE(last.close_unanswered);
  EXPECT_FALSE(last.client_message) << "Kafka's generic text";
  // A service the KDC does not know: the client gives up before sending anything.
  gssapi_client unknown(alice, "nosuch", "localhost", "");
  EXPECT_FALSE(unknown.first(&error));
  EXPECT_NE(error.find("nosuch"), std::string::npos) << error;
}

TEST_F(GssapiExchange, tokens_that_are_not_the_exchanges) {
  gssapi_server server(acceptor(), names());
  const std::vector<uint8_t> garbage{'n', 'o', 't', ' ', 'g', 's', 's'};
  sasl_step step = server.evaluate(garbage);
  EXPECT_TRUE(step.failed);
  EXPECT_FALSE(step.client_message);
  EXPECT_TRUE(server.evaluate(garbage).failed) << "and it stays failed";

  // Data where the client owes an empty message after the context is set up.
  auto alice = credential("alice@EXAMPLE.COM", keytab("alice"), gss_credential::usage::initiate);
  gssapi_client client(alice, "kafka", "localhost", "");
  gssapi_server second(acceptor(), names());
  std::string error;
  auto first = client.first(&error);
  ASSERT_TRUE(first) << error;
  step = second.evaluate(*first);
  ASSERT_FALSE(step.failed) << step.reason;
  ASSERT_FALSE(step.token.empty()) << "the server's mutual-authentication token";
  EXPECT_TRUE(second.evaluate(garbage).failed);
}

TEST_F(GssapiExchange, a_replayed_token_closes_the_connection_unanswered) {
  auto alice = credential("alice@EXAMPLE.COM", keytab("alice"), gss_credential::usage::initiate);
  gssapi_client client(alice, "kafka", "localhost", "");
  std::string error;
  auto first = client.first(&error);
  ASSERT_TRUE(first) << error;
  gssapi_server once(acceptor(), names());
  ASSERT_FALSE(once.evaluate(*first).failed);
  gssapi_server twice(acceptor(), names());
  sasl_step step = twice.evaluate(*first);
  EXPECT_TRUE(step.failed);
  EXPECT_TRUE(step.close_unanswered) << step.reason;
}

TEST_F(GssapiExchange, a_listener_needs_its_key) {
  auto listener_keys = [](const std::string& file) {
    config::listener_security k;
    k.listener = "SASL_PLAINTEXT";
    k.protocol = "SASL_PLAINTEXT";
    k.sasl_enabled_mechanisms = {"GSSAPI"};
    k.kerberos_service_name = "kafka";
    k.sasl_jaas_config["GSSAPI"] =
        "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab=\"" + file +
        "\" principal=\"kafka/localhost@EXAMPLE.COM\";";
    return k;
  };
  auto error_of = [](const std::variant<std::shared_ptr<const sasl_listener>, std::string>& r) {
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
  };
  const std::string missing = dir_ + "/missing.keytab";
  EXPECT_EQ(error_of(sasl_listener::make(listener_keys(missing), {}, nullptr)),
            "Listener SASL_PLAINTEXT (SASL_PLAINTEXT): GSSAPI: the keytab " + missing +
                " cannot be read: No such file or directory");
  const std::string error = error_of(sasl_listener::make(listener_keys(keytab("alice")), {}, nullptr));
  EXPECT_EQ(error.rfind("Listener SASL_PLAINTEXT (SASL_PLAINTEXT): GSSAPI: no key for kafka/localhost@EXAMPLE.COM in "
                        "the keytab " + keytab("alice") + ": ", 0),
            0u)
      << error;
  auto no_service = listener_keys(keytab("kafka/localhost"));
  no_service.kerberos_service_name.reset();
  EXPECT_EQ(error_of(sasl_listener::make(no_service, {}, nullptr)),
            "Listener SASL_PLAINTEXT (SASL_PLAINTEXT): GSSAPI: No serviceName defined in either JAAS or Kafka config");
  auto made = sasl_listener::make(listener_keys(keytab("kafka/localhost")), {}, nullptr);
  ASSERT_EQ(error_of(made), "");
  auto session = std::get<std::shared_ptr<const sasl_listener>>(made)->new_session();
  EXPECT_EQ(session->handshake("GSSAPI", 1).error, protocol::error_code::none);
}

}  // namespace
}  // namespace hw::broker
