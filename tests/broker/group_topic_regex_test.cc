// Consumer groups' SubscribedTopicRegex: what compiles and what Kafka's
// coordinator (RE2/J 1.8, the jar Kafka 4.3.1 ships) says of what does not.
// The expected descriptions are RE2/J's own, observed with that jar.
#include "broker/group/consumer/topic_regex.h"

#include <gtest/gtest.h>

namespace hw::broker::group::consumer {
namespace {

std::string refusal(const std::string& regex) {
  auto compiled = topic_regex::compile(regex);
  if (auto* e = std::get_if<std::string>(&compiled)) return *e;
  return "compiled";
}

TEST(TopicRegex, RefusesWhatKafkaRefusesWithItsDescription) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(", "missing closing )"},
      {")", "regexp/syntax: internal error"},
      {"[a", "missing closing ]"},
      {"a**", "invalid nested repetition operator"},
      {"a++", "invalid nested repetition operator"},
      {"*", "missing argument to repetition operator"},
      {"a{2,1}", "invalid repeat count"},
      {"x{1001}", "invalid repeat count"},
      {"\\8", "invalid escape sequence"},
      {"\\Z", "invalid escape sequence"},
      {"\\C", "invalid escape sequence"},
      {"(?P<n", "invalid named capture"},
      {"\\p{Foo}", "invalid character class range"},
      {"[z-a]", "invalid character class range"},
  };
  for (const auto& [regex, what] : cases) {
    EXPECT_EQ(refusal(regex), "SubscribedTopicRegex `" + regex + "` is not a valid regular expression: " + what + ".")
        << regex;
  }
}

TEST(TopicRegex, CompilesWhatKafkaCompiles) {
  for (std::string regex : {"(?i)ok", "\\Q", "(?<n>a)", "a{,3}", "\\z", "^cap-.*", "[\\]a]+", "[]a]", "\\\\C"}) {
    EXPECT_EQ(refusal(regex), "compiled") << regex;
  }
}

TEST(TopicRegex, MatchesWholeTopicNames) {
  auto re = std::get<topic_regex>(topic_regex::compile("cap-.*"));
  EXPECT_TRUE(re.matches("cap-a"));
  EXPECT_FALSE(re.matches("xcap-a"));  // a match must cover the whole name
  auto part = std::get<topic_regex>(topic_regex::compile("cap"));
  EXPECT_FALSE(part.matches("cap-a"));
  EXPECT_EQ(re.resolve({"other", "cap-b", "cap-a", "capa"}), (std::vector<std::string>{"cap-b", "cap-a"}));
  auto named = std::get<topic_regex>(topic_regex::compile("(?<kind>orders|payments)-\\d+"));
  EXPECT_TRUE(named.matches("orders-12"));
  EXPECT_FALSE(named.matches("orders-"));
  EXPECT_EQ(named.pattern(), "(?<kind>orders|payments)-\\d+");
}

}  // namespace
}  // namespace hw::broker::group::consumer
