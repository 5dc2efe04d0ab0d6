// JAAS: sasl.jaas.config values and JAAS files as Kafka reads them.
#include <gtest/gtest.h>

#include <vector>

#include "broker/security/jaas.h"

namespace hw::broker {
namespace {

TEST(jaas, a_plain_login_module_with_its_users) {
  auto r = parse_jaas_config(
      "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
      "  username=\"admin\" password=\"admin-secret\"\n"
      "  user_admin=\"admin-secret\" user_alice='alice secret';");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
  EXPECT_EQ(r.entries[0].flag, "required");
  EXPECT_EQ(r.entries[0].options.at("username"), "admin");
  auto users = plain_users(r.entries);
  EXPECT_EQ(users.size(), 2u);
  EXPECT_EQ(users.at("alice"), "alice secret");
  EXPECT_EQ(users.at("admin"), "admin-secret");
}

TEST(jaas, bare_words_escapes_comments_and_several_entries) {
  auto r = parse_jaas_config(
      "// a comment\n"
      "org.apache.kafka.common.security.scram.ScramLoginModule Required username=alice /* inline */ "
      "password=\"a\\\"b\\\\c\\n\";\n"
      "com.example.Other optional;");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].flag, "required");
  EXPECT_EQ(r.entries[0].options.at("username"), "alice");
  EXPECT_EQ(r.entries[0].options.at("password"), "a\"b\\c\n");
  EXPECT_TRUE(r.entries[1].options.empty());
  EXPECT_TRUE(plain_users(r.entries).empty());
}

// The cases below were run through Kafka 4.3.1's own JaasConfig (by
// reflection, kafka-clients-4.3.1.jar): the same entries, the same errors.
TEST(jaas, words_take_what_javas_tokenizer_takes) {
  auto r = parse_jaas_config("org.M required user_al-ice=x.y-z$_1 k=\"\xc3\xa9\";");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.entries[0].options.at("user_al-ice"), "x.y-z$_1");
  EXPECT_EQ(r.entries[0].options.at("k"), "\xc3\xa9");
}

TEST(jaas, malformed_values_get_kafkas_messages) {
  struct bad {
    std::string text, error;
  };
  for (const bad& b : std::vector<bad>{
           {"", "Login module not specified in JAAS config"},
           {"   // nothing\n", "Login module not specified in JAAS config"},
           {"org.Module", "Login module control flag not specified in JAAS config"},
           {"org.Module mandatory;", "Invalid login module control flag 'mandatory' in JAAS config"},
           {"org.Module required username=\"a\"", "JAAS config entry not terminated by semi-colon"},
           {"org.Module required username;", "Value not specified for key 'username' in JAAS config"},
           {"org.Module required iterations=4096;", "Value not specified for key 'iterations' in JAAS config"},
           {"org.Module required password=-x;", "Value not specified for key 'password' in JAAS config"},
       }) {
    auto r = parse_jaas_config(b.text);
    EXPECT_EQ(r.error, b.error) << b.text;
  }
}

TEST(jaas, a_file_with_the_sections_kafka_reads) {
  auto f = parse_jaas_file(
      "KafkaServer {\n"
      "  org.apache.kafka.common.security.plain.PlainLoginModule required\n"
      "    username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\";\n"
      "};\n"
      "Client { org.apache.zookeeper.Whatever required; };\n");
  ASSERT_TRUE(f.ok()) << f.error;
  ASSERT_EQ(f.sections.count("KafkaServer"), 1u);
  EXPECT_EQ(plain_users(f.sections.at("KafkaServer")).at("admin"), "admin-secret");
  EXPECT_EQ(f.sections.count("Client"), 1u);
}

// The JDK's messages for a file that does not parse (Kafka 4.3.1's tools on
// Java 17 print them), with the line of the token found. What stands where
// an option's value is expected is not quoted: it may be a password.
TEST(jaas, a_file_refused_with_the_jdks_messages) {
  struct bad {
    const char* text;
    const char* error;
  };
  for (const bad& b : std::vector<bad>{
           {"KafkaServer { org.M required; }", "Configuration Error:\n\texpected [;], read [end of file]"},
           {"KafkaServer org.M required; };", "Configuration Error:\n\tLine 1: expected [{], found [org.M]"},
           {"KafkaServer { org.M required;", "Configuration Error:\n\texpected [module class name], read [end of file]"},
           {"KafkaClient {\n a.B required username=\"u\" password=\"p\"\n};",
            "Configuration Error:\n\tLine 3: expected [option key]"},
           {"A {\n a.B maybe;\n};", "Configuration Error:\n\tInvalid control flag, MAYBE"},
           {"A {\n /* two\n lines */ a.B required password 'secret';\n};",
            "Configuration Error:\n\tLine 2: expected [=], found [(hidden)]"},
           {"A {\n a.B required password='secret';\n};",
            "Configuration Error:\n\tLine 2: expected [option value], found [(hidden)]"},
           {"A { a.B required n=42; };", "Configuration Error:\n\tLine 1: expected [option value], found [null]"},
           {"A { a.B required; };\nA { c.D optional; };", "Configuration Error:\n\tCan not specify multiple entries for A"},
       }) {
    auto f = parse_jaas_file(b.text);
    EXPECT_EQ(f.error, b.error) << b.text;
    EXPECT_TRUE(f.sections.empty()) << b.text;
  }
  auto quoted = parse_jaas_file("\"KafkaClient\" { \"a.B\" \"Optional\" * = \"x\" *-$_=y; };");
  ASSERT_TRUE(quoted.ok()) << quoted.error;
  EXPECT_EQ(quoted.sections.at("KafkaClient").at(0).flag, "optional");
  EXPECT_EQ(quoted.sections.at("KafkaClient").at(0).options.at("*-$_"), "y");
}

}  // namespace
}  // namespace hw::broker
