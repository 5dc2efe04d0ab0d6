#pragma once
// ssl.principal.mapping.rules: how a client certificate's subject
// (X500Principal.getName(), RFC 2253: "CN=alice,OU=eng,O=acme") becomes the
// principal's name, with Kafka's syntax and semantics (SslPrincipalMapper):
// a comma-separated list of "DEFAULT" (the subject as it is) and
// "RULE:<pattern>/<replacement>/[L|U]" (when the pattern matches the whole
// subject, every match is replaced, Java's replaceAll, group references
// beyond the pattern's groups taken literally, then lower or upper case);
// the first rule that applies names the principal.
//
// Patterns are ECMAScript regular expressions (std::regex), which agree
// with Java's on what certificate rules use (groups, classes, lazy and
// greedy quantifiers, anchors); Java-only syntax (possessive quantifiers,
// \Q..\E, named groups) is refused when the rules are parsed. Case changes
// are ASCII (Locale.ENGLISH on ASCII names).
//
// Pure; built once per listener when its configuration is read.

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace hw::broker {

class principal_mapping {
 public:
  // Kafka's default: "DEFAULT".
  principal_mapping();

  // Parses the rules; on failure returns none and sets *error to Kafka's
  // message ("Invalid rule: ...").
  static std::optional<principal_mapping> parse(std::string_view rules, std::string* error);

  // The principal name for `subject`, or none when no rule applies (*error:
  // Kafka's "No rules apply to <subject>, rules [...]").
  std::optional<std::string> map(const std::string& subject, std::string* error) const;

 private:
  struct rule {
    bool is_default = true;
    std::string text;  // as Kafka prints it
    std::string pattern_text;
    std::regex pattern;
    std::string replacement;
    bool lower = false;
    bool upper = false;
  };
  static std::optional<std::string> apply(const rule& r, const std::string& subject, std::string* error);

  std::vector<rule> rules_;
};

}  // namespace hw::broker
