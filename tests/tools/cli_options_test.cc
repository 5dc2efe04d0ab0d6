#include <gtest/gtest.h>

#include "tools/cli/options.h"

namespace hw::tools::cli {
namespace {

option_parser sample() {
  option_parser p;
  p.flag("describe", "Describe.");
  p.option("topic", "topic", "The topic.");
  p.option("config", "name=value", "A config.");
  p.unsupported("topic-id", true);
  return p;
}

bool parse(const std::vector<std::string>& args, option_set* out, std::string* error) {
  return sample().parse(args, out, error);
}

TEST(CliOptions, ValuesBySpaceOrEqualsAndRepeatedOptionsCollect) {
  option_set set;
  std::string error;
  ASSERT_TRUE(parse({"--describe", "--topic", "a", "--config=x=1", "--config", "y=2", "rest"}, &set, &error)) << error;
  EXPECT_TRUE(set.has("describe"));
  EXPECT_EQ(set.value("topic"), "a");
  EXPECT_EQ(set.values("config"), (std::vector<std::string>{"x=1", "y=2"}));
  EXPECT_EQ(set.non_options(), (std::vector<std::string>{"rest"}));
  EXPECT_FALSE(set.has("topic-id"));
}

TEST(CliOptions, UnknownMissingAndUnsupportedAreNamed) {
  option_set set;
  std::string error;
  EXPECT_FALSE(parse({"--bogus"}, &set, &error));
  EXPECT_EQ(error, "bogus is not a recognized option");
  EXPECT_FALSE(parse({"--desc"}, &set, &error));  // no abbreviations, as Kafka's parsers
  EXPECT_EQ(error, "desc is not a recognized option");
  EXPECT_FALSE(parse({"--topic"}, &set, &error));
  EXPECT_EQ(error, "Option topic requires an argument");
  EXPECT_FALSE(parse({"--topic-id", "x"}, &set, &error));
  EXPECT_NE(error.find("--topic-id"), std::string::npos);
  EXPECT_NE(error.find("not supported"), std::string::npos);
}

TEST(CliOptions, AFlagWrittenWithAValueIsTheFlag) {
  // joptsimple (and so Kafka's tools) drops the value: --describe=yes is --describe.
  cli::option_set set;
  std::string error;
  ASSERT_TRUE(parse({"--describe=yes", "--topic", "t"}, &set, &error)) << error;
  EXPECT_TRUE(set.has("describe"));
  EXPECT_EQ(set.value("topic"), "t");
}

// withOptionalArg().ofType(Long.class), as DelegationTokenCommand's periods:
// joptsimple takes the next word when it converts to a long, a negative
// one included; a word that does not convert (a word, a number out of
// range) stays a word of its own and the option has no value; "=" always
// gives the value, converted (and refused) later.
TEST(CliOptions, OptionalLongTakesTheNextWordWhenItIsALong) {
  option_parser p;
  p.flag("create", "Create.");
  p.optional_long("period", "Long", "A period.");
  p.optional("name", "String", "A name.");
  using args = std::vector<std::string>;
  option_set set;
  std::string error;
  EXPECT_FALSE(p.parse(args{"--period", "-1", "--name", "-1"}, &set, &error));
  EXPECT_EQ(error, "1 is not a recognized option");  // a String option leaves "-1": an option
  ASSERT_TRUE(p.parse(args{"--period", "-1", "--create"}, &set, &error)) << error;
  EXPECT_EQ(set.values("period"), std::vector<std::string>{"-1"});
  ASSERT_TRUE(p.parse(args{"--period", "+5", "--period", "abc", "--period", "99999999999999999999"}, &set, &error)) << error;
  EXPECT_EQ(set.values("period"), std::vector<std::string>{"+5"});
  EXPECT_EQ(set.non_options(), (std::vector<std::string>{"abc", "99999999999999999999"}));
  ASSERT_TRUE(p.parse(args{"--period", "-9223372036854775808", "--period", "9223372036854775807"}, &set, &error)) << error;
  EXPECT_EQ(set.values("period").size(), 2u);
  ASSERT_TRUE(p.parse(args{"--period", "--create"}, &set, &error)) << error;
  EXPECT_TRUE(set.has("period"));
  EXPECT_TRUE(set.values("period").empty());
  EXPECT_TRUE(set.has("create"));
  ASSERT_TRUE(p.parse(args{"--period=abc", "--period", ""}, &set, &error)) << error;
  EXPECT_EQ(set.values("period"), (std::vector<std::string>{"abc", ""}));
  ASSERT_TRUE(p.parse(args{"--period"}, &set, &error)) << error;
  EXPECT_TRUE(set.has("period"));
  EXPECT_NE(p.usage().find("--period [Long]"), std::string::npos);
}

TEST(CliOptions, UsageListsSupportedOptionsSorted) {
  std::string usage = sample().usage();
  EXPECT_LT(usage.find("--config <name=value>"), usage.find("--describe"));
  EXPECT_LT(usage.find("--describe"), usage.find("--topic <topic>"));
  EXPECT_EQ(usage.find("topic-id"), std::string::npos);
}

TEST(CliOptions, KeyValueSplitsAtTheFirstEquals) {
  std::string k, v;
  ASSERT_TRUE(split_key_value("a=b=c", &k, &v));
  EXPECT_EQ(k, "a");
  EXPECT_EQ(v, "b=c");
  EXPECT_FALSE(split_key_value("novalue", &k, &v));
}

}  // namespace
}  // namespace hw::tools::cli
