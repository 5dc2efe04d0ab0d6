// ssl.principal.mapping.rules: every rule form, and the subject → name
// results Kafka 4.3.1's own SslPrincipalMapper gives for the same rules
// (run from kafka-clients-4.3.1.jar; its unit test's cases and more).
#include <gtest/gtest.h>

#include <string>

#include "broker/security/principal_mapping.h"

namespace hw::broker {
namespace {

std::string name(std::string_view rules, const std::string& subject) {
  std::string error;
  auto m = principal_mapping::parse(rules, &error);
  if (!m) return "ERR " + error;
  auto n = m->map(subject, &error);
  return n ? *n : "ERR " + error;
}

const std::string many =
    "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,"
    "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
    "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U,"
    "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U,"
    "DEFAULT";

TEST(principal_mapping, the_default_is_the_subject_itself) {
  principal_mapping m;
  std::string error;
  EXPECT_EQ(m.map("CN=alice,OU=eng", &error), "CN=alice,OU=eng");
  EXPECT_EQ(name("DEFAULT", "CN=alice"), "CN=alice");
}

TEST(principal_mapping, the_first_rule_that_applies_names_the_principal) {
  EXPECT_EQ(name(many, "CN=Duke,OU=ServiceUsers,O=Org,C=US"), "duke");
  EXPECT_EQ(name(many, "CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"), "duke@sme");
  EXPECT_EQ(name(many, "cn=duke,ou=sme,dc=mycp,dc=com"), "DUKE@SME");
  EXPECT_EQ(name(many, "cN=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
  EXPECT_EQ(name(many, "OU=JavaSoft,O=Sun Microsystems,C=US"), "OU=JavaSoft,O=Sun Microsystems,C=US");
}

TEST(principal_mapping, an_escaped_comma_in_a_common_name) {
  EXPECT_EQ(name("RULE:^CN=((\\\\, *|\\w)+)(,.*|$)/$1/,DEFAULT", "CN=Tkac\\, Adam,OU=ITZ,DC=geodis,DC=cz"),
            "Tkac\\, Adam");
}

TEST(principal_mapping, replacements_as_javas_replace_all_makes_them) {
  EXPECT_EQ(name("RULE:^CN=(.*?),OU=(.*)$/$1-$3-$12/", "CN=a,OU=b"), "a-$3-a2")
      << "a group the pattern lacks is literal; $12 is $1 then 2";
  EXPECT_EQ(name("RULE:^CN=(.*)$/x\\$1/", "CN=a"), "x$1") << "a backslash escapes";
  EXPECT_EQ(name("RULE:.*/x/", "CN=a"), "xx") << "replaceAll also replaces the empty match at the end";
  EXPECT_EQ(name("RULE:^(.*)$/$0$1/U", "cn=a"), "CN=ACN=A");
}

TEST(principal_mapping, no_rule_applies) {
  EXPECT_EQ(name("RULE:^CN=(.*)$/$1/", "OU=a"), "ERR No rules apply to OU=a, rules [RULE:^CN=(.*)$/$1]");
}

TEST(principal_mapping, rules_split_at_commas_and_skip_empty_ones) {
  EXPECT_EQ(name("  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  ", "abc"), "abc");
  EXPECT_EQ(name(",,RULE://,,,DEFAULT,,", "abc"), "abc");
}

TEST(principal_mapping, invalid_rules_get_kafkas_messages) {
  EXPECT_EQ(name("DEFAULT/L", "CN=a"), "ERR Invalid rule: `DEFAULT/L`, unmatched substring: `/L`");
  EXPECT_EQ(name("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/LX", "CN=a"),
            "ERR Invalid rule: `RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/LX`, unmatched substring: `X`");
  EXPECT_EQ(name("RULE:CN=(.*?),OU=ServiceUsers.*/$1", "CN=a"),
            "ERR Invalid rule: `RULE:CN=(.*?)`, unmatched substring: `RULE:CN=(.*?)`");
  for (std::string bad : {"DEFAULT/U", "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U", "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
                          "RULE:^CN=(.*?),OU=ServiceUsers.*$/U", "RULE:^CN=(.*?),OU=ServiceUsers.*$/LU"}) {
    std::string error;
    EXPECT_FALSE(principal_mapping::parse(bad, &error)) << bad;
  }
  std::string error;
  EXPECT_FALSE(principal_mapping::parse("RULE:^CN=(?<n>.*)$/$1/", &error)) << "Java-only syntax is refused";
}

}  // namespace
}  // namespace hw::broker
