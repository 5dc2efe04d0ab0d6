// GSSAPI: sasl.kerberos.principal.to.local.rules as Kafka 4.3.1 applies
// them (the cases of its KerberosNameTest and KerberosRuleTest, and more
// whose answers were taken from kafka-clients-4.3.1.jar's
// KerberosShortNamer), the RFC 4752 security-layer messages, the keytab
// refusals a listener gives at start-up, and, against a KDC the test makes
// (tests/support/kdc.py), whole exchanges between the broker's client and
// server sides: the principal, authorization ids, the wrong service, a
// replayed token, tokens out of order.
#include <gtest/gtest.h>
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

}  // namespace
}  // namespace hw::broker
