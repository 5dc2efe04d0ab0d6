#pragma once
// A consumer's SubscribedTopicRegex (KIP-848): RE2 syntax, as Kafka's
// coordinator compiles it with RE2/J, matched against whole topic names.
// Pure; any thread (a compiled expression is immutable).

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace re2 {
class RE2;
}

namespace hw::broker::group::consumer {

class topic_regex {
 public:
  // The compiled expression, or the INVALID_REGULAR_EXPRESSION message Kafka
  // answers: "SubscribedTopicRegex `<regex>` is not a valid regular
  // expression: <what RE2 found wrong>."
  static std::variant<topic_regex, std::string> compile(const std::string& regex);

  const std::string& pattern() const { return pattern_; }
  // Whether the whole name matches (RE2/J's matcher(name).matches()).
  bool matches(std::string_view topic) const;
  // The names that match, in the order given.
  std::vector<std::string> resolve(const std::vector<std::string>& topics) const;

 private:
  topic_regex(std::string pattern, std::shared_ptr<const re2::RE2> re) : pattern_(std::move(pattern)), re_(std::move(re)) {}

  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace hw::broker::group::consumer
