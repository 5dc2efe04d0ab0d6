// principal_mapping: Kafka's ssl.principal.mapping.rules.
#include "broker/security/principal_mapping.h"

#include <cctype>

#include "broker/security/java_regex.h"
#include "protocol/java_string.h"

namespace hw::broker {

namespace {

// Kafka's RULE_PATTERN: DEFAULT, RULE:<pattern>/<replacement>/[LU] (then
// anything, lazily), or anything else (an invalid rule), lazily.
const char* const rule_pattern = R"((DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?))";

// Java's escapeLiteralBackReferences, as Kafka has it: a "$n" naming a
// group the pattern lacks (after dropping trailing digits while n >= 10)
// gets a backslash so that replaceAll takes it literally. Positions come
// from the original text while the backslashes go into the copy, as there.
std::string escape_literal_back_references(const std::string& unescaped, size_t groups) {
  if (groups == 0) return unescaped;
  std::string value = unescaped;
  static const std::regex back_reference(R"(\$(\d+))");
  for (std::sregex_iterator it(unescaped.begin(), unescaped.end(), back_reference), end; it != end; ++it) {
    const std::string number = (*it)[1].str();
    if (number[0] == '0') continue;
    unsigned long long index = 0;
    for (char c : number) index = index > 1'000'000'000ULL ? index : index * 10 + static_cast<unsigned>(c - '0');
    while (index > groups && index >= 10) index /= 10;
    if (index > groups) {
      const size_t group_start = static_cast<size_t>(it->position(1));
      if (group_start - 1 <= value.size()) value.insert(group_start - 1, "\\");
    }
  }
  return value;
}

}  // namespace

principal_mapping::principal_mapping() { rules_.push_back(rule{}); }

std::optional<principal_mapping> principal_mapping::parse(std::string_view rules_text, std::string* error) {
  static const std::regex splitter(std::string(R"(\s*()") + rule_pattern + R"()\s*(,\s*|$))");
  static const std::regex parser(rule_pattern);
  const std::string text(protocol::java_trim(rules_text));
  principal_mapping out;
  out.rules_.clear();
  for (std::sregex_iterator it(text.begin(), text.end(), splitter), end; it != end; ++it) {
    const std::string item = (*it)[1].str();
    std::smatch m;
    if (!std::regex_search(item, m, parser, std::regex_constants::match_continuous)) {
      *error = "Invalid rule: " + item;
      return std::nullopt;
    }
    if (static_cast<size_t>(m.length(0)) != item.size()) {
      *error = "Invalid rule: `" + item + "`, unmatched substring: `" + item.substr(static_cast<size_t>(m.length(0))) +
               "`";
      return std::nullopt;
    }
    if (m[1].matched) {
      out.rules_.push_back(rule{});
    } else if (m[2].matched) {
      rule r;
      r.is_default = false;
      r.pattern_text = m[2].str();
      r.replacement = m[4].str();
      r.lower = m[6].str() == "L";
      r.upper = m[6].str() == "U";
      if (java_only_regex_syntax(r.pattern_text)) {
        *error = "Invalid rule: " + item + " (Java-only regular expression syntax)";
        return std::nullopt;
      }
      try {
        r.pattern = std::regex(r.pattern_text);
      } catch (const std::regex_error& e) {
        *error = "Invalid rule: " + item + " (" + e.what() + ")";
        return std::nullopt;
      }
      r.text = "RULE:" + r.pattern_text + "/" + r.replacement + (r.lower ? "/L" : r.upper ? "/U" : "");
      out.rules_.push_back(std::move(r));
    }
    // An empty rule is ignored, as Kafka ignores it.
  }
  return out;
}

std::optional<std::string> principal_mapping::apply(const rule& r, const std::string& subject, std::string* error) {
  if (r.is_default) return subject;
  if (!std::regex_match(subject, r.pattern)) return std::nullopt;
  const std::string replacement = escape_literal_back_references(r.replacement, r.pattern.mark_count());
  // replaceAll: every match of the pattern in the subject.
  auto replaced = java_replace(subject, r.pattern, replacement, true, error);
  if (!replaced) return std::nullopt;
  std::string out = std::move(*replaced);
  for (char& c : out) {
    if (r.lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (r.upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

std::optional<std::string> principal_mapping::map(const std::string& subject, std::string* error) const {
  for (const rule& r : rules_) {
    std::string why;
    auto name = apply(r, subject, &why);
    if (!why.empty()) {
      *error = why;
      return std::nullopt;
    }
    if (name) return name;
  }
  std::string listed;
  for (const rule& r : rules_) listed += (listed.empty() ? "" : ", ") + (r.is_default ? std::string("DEFAULT") : r.text);
  *error = "No rules apply to " + subject + ", rules [" + listed + "]";
  return std::nullopt;
}

}  // namespace hw::broker
