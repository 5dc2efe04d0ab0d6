#include "broker/group/consumer/topic_regex.h"

#include <re2/re2.h>


namespace hw::broker::group::consumer {

namespace {

// What RE2/J (Kafka's regular expressions) calls each error RE2 reports:
// the same syntax errors under other names, and its own oddities (an
// unopened ")" is its "internal error").
std::string described(RE2::ErrorCode code, const std::string& re2_text) {
  switch (code) {
    case RE2::ErrorMissingParen: return "missing closing )";
    case RE2::ErrorMissingBracket: return "missing closing ]";
    case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize: return "invalid repeat count";
    case RE2::ErrorBadEscape: return "invalid escape sequence";
    case RE2::ErrorBadNamedCapture: return "invalid named capture";
    case RE2::ErrorBadCharRange: return "invalid character class range";
    case RE2::ErrorBadCharClass: return "invalid character class";
    case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8: return "invalid UTF-8";
    case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    default: break;
  }
  if (re2_text.rfind("unexpected )", 0) == 0) return "regexp/syntax: internal error";
  const auto colon = re2_text.find(": ");
  return colon == std::string::npos ? re2_text : re2_text.substr(0, colon);
}

// RE2/J's syntax where it differs from this RE2's: "(?<name>" is a named
// group there (written "(?P<name>" for RE2), and "\C" (any byte) does not
// exist. The expression to compile, or the error RE2/J reports.
std::variant<std::string, std::string> as_re2(const std::string& regex) {
  std::string out;
  out.reserve(regex.size() + 4);
  bool in_class = false;
  for (size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\\' && i + 1 < regex.size()) {
      if (regex[i + 1] == 'C') return std::variant<std::string, std::string>(std::in_place_index<1>, "invalid escape sequence");
      out += c;
      out += regex[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
      // A "]" right after "[" or "[^" is a member, not the end.
      out += c;
      if (i + 1 < regex.size() && regex[i + 1] == '^') out += regex[++i];
      if (i + 1 < regex.size() && regex[i + 1] == ']') out += regex[++i];
      continue;
    } else if (regex.compare(i, 3, "(?<") == 0 && i + 3 < regex.size() && regex[i + 3] != '=' && regex[i + 3] != '!') {
      out += "(?P<";
      i += 2;
      continue;
    }
    out += c;
  }
  return std::variant<std::string, std::string>(std::in_place_index<0>, std::move(out));
}

std::string invalid(const std::string& regex, const std::string& what) {
  return "SubscribedTopicRegex `" + regex + "` is not a valid regular expression: " + what + ".";
}

}  // namespace

std::variant<topic_regex, std::string> topic_regex::compile(const std::string& regex) {
  auto translated = as_re2(regex);
  if (translated.index() == 1) return invalid(regex, std::get<1>(translated));
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(std::get<0>(translated), options);
  if (!re->ok()) return invalid(regex, described(re->error_code(), re->error()));
  return topic_regex(regex, std::move(re));
}

bool topic_regex::matches(std::string_view topic) const { return RE2::FullMatch(topic, *re_); }

std::vector<std::string> topic_regex::resolve(const std::vector<std::string>& topics) const {
  std::vector<std::string> out;
  for (const auto& t : topics)
    if (matches(t)) out.push_back(t);
  return out;
}

}  // namespace hw::broker::group::consumer
