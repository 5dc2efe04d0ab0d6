#pragma once
// What the principal rules (ssl.principal.mapping.rules,
// sasl.kerberos.principal.to.local.rules) need of Java's regular
// expressions, on std::regex (ECMAScript, which agrees with Java on what
// such rules use: groups, classes, lazy and greedy quantifiers, anchors):
// the refusal of Java-only syntax, and Matcher.replaceAll / replaceFirst
// with Java's replacement syntax ($n group references, backslash escapes)
// and its messages.
//
// Pure.

#include <optional>
#include <regex>
#include <string>

namespace hw::broker {

// Whether the pattern uses syntax std::regex would read otherwise than
// Java does (\Q..\E, named groups, possessive quantifiers).
bool java_only_regex_syntax(const std::string& pattern);

// Matcher.replaceAll (all) or replaceFirst of pattern in subject by
// replacement; none on a bad replacement (*error: Java's message, e.g. "No
// group 3", "Illegal group reference").
std::optional<std::string> java_replace(const std::string& subject, const std::regex& pattern,
                                        const std::string& replacement, bool all, std::string* error);

}  // namespace hw::broker
