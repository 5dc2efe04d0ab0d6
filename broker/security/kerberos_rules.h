#pragma once
// sasl.kerberos.principal.to.local.rules: how an authenticated Kerberos
// principal ("alice@EXAMPLE.COM", "kafka/host@EXAMPLE.COM") becomes the
// short name of a GSSAPI login's principal (User:<short name>), with
// Kafka's syntax, semantics and messages (KerberosName, KerberosShortNamer,
// KerberosRule):
//   - DEFAULT: the first component, when the realm is the default realm;
//   - RULE:[n:format](match)s/from/to/g/L|U: applies to names of n
//     components; format makes the base ($0 the realm, $1.. the
//     components); the base must match `match` (whole, when given); then
//     `from` is replaced by `to` (the first match, every one with g; Java's
//     replacement syntax), then lower or upper case;
// the first rule that applies names the user; a result with '/' or '@' is
// refused. A name without realm and host is its own short name.
//
// Patterns are ECMAScript regular expressions (std::regex) refused where
// they would mean something other than in Java (see java_regex.h). Case
// changes are ASCII (Locale.ENGLISH on ASCII names).
//
// Pure; built once per listener when its configuration is read.

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace hw::broker {

// A Kerberos principal's name in Kafka's three parts.
struct kerberos_name {
  std::string service;                // the first component
  std::optional<std::string> host;    // the second, if any
  std::optional<std::string> realm;   // none for a name without '@'

  // Kafka's parse: "a/b@R", "a@R", or a bare name; a name with '@' that is
  // not of those forms is refused ("Malformed Kerberos name: ...").
  static std::optional<kerberos_name> parse(std::string_view text, std::string* error);
  std::string str() const;
};

class kerberos_short_namer {
 public:
  // Parses the rules (each item of the list one rule); none and *error set
  // to Kafka's message ("Invalid rule: ...") when one does not parse.
  static std::optional<kerberos_short_namer> parse(const std::vector<std::string>& rules, std::string default_realm,
                                                   std::string* error);

  // The short name of `name`, or none with *error: "No rules apply to
  // <name>, rules [...]", "Non-simple name ... after auth_to_local rule
  // ...", or a format or replacement that fails on it.
  std::optional<std::string> short_name(const kerberos_name& name, std::string* error) const;

  // Kafka's "$n"-substitution of format by params (exposed for tests):
  // none with *error for an index out of range or a '$' without a number.
  static std::optional<std::string> replace_parameters(const std::string& format,
                                                       const std::vector<std::string>& params, std::string* error);

 private:
  struct rule {
    bool is_default = true;
    int components = 0;
    std::string format;
    std::optional<std::string> match_text;
    std::regex match;
    std::optional<std::string> from_text;
    std::regex from;
    std::string to;
    bool repeat = false;
    bool lower = false;
    bool upper = false;
    std::string text() const;  // as Kafka prints it
  };
  // The rule's result for params ({realm, components...}): none when it
  // does not apply; *error set when it fails.
  std::optional<std::string> apply(const rule& r, const std::vector<std::string>& params, std::string* error) const;

  std::string default_realm_;
  std::vector<rule> rules_;
};

}  // namespace hw::broker
