// kerberos_rules: Kafka's sasl.kerberos.principal.to.local.rules.
#include "broker/security/kerberos_rules.h"

#include <cctype>
#include <charconv>

#include "broker/security/java_regex.h"

namespace hw::broker {

namespace {

// One rule, as Kafka's rule parser reads it (groups numbered as there):
// DEFAULT, or RULE:[<n>:<format>](<match>)s/<from>/<to>/g/L|U with the
// match, the substitution, its g and the case change optional.
const std::regex& rule_parser() {
  static const std::regex parser(
      R"(((DEFAULT)|((RULE:\[(\d*):([^\]]*)\](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?/?(L|U)?))))");
  return parser;
}

std::optional<std::regex> compile(const std::string& pattern, const std::string& rule_text, std::string* error) {
  if (java_only_regex_syntax(pattern)) {
    *error = "Invalid rule: " + rule_text + " (Java-only regular expression syntax)";
    return std::nullopt;
  }
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& e) {
    *error = "Invalid rule: " + rule_text + " (" + e.what() + ")";
    return std::nullopt;
  }
}

}  // namespace

std::optional<kerberos_name> kerberos_name::parse(std::string_view text, std::string* error) {
  static const std::regex name_parser(R"(([^/@]*)(/([^/@]*))?@([^/@]*))");
  const std::string s(text);
  std::smatch m;
  if (!std::regex_match(s, m, name_parser)) {
    if (s.find('@') != std::string::npos) {
      *error = "Malformed Kerberos name: " + s;
      return std::nullopt;
    }
    return kerberos_name{s, std::nullopt, std::nullopt};
  }
  kerberos_name n;
  n.service = m[1].str();
  if (m[3].matched) n.host = m[3].str();
  n.realm = m[4].str();
  return n;
}

std::string kerberos_name::str() const {
  std::string out = service;
  if (host) out += "/" + *host;
  if (realm) out += "@" + *realm;
  return out;
}

std::string kerberos_short_namer::rule::text() const {
  if (is_default) return "DEFAULT";
  std::string out = "RULE:[" + std::to_string(components) + ":" + format + "]";
  if (match_text) out += "(" + *match_text + ")";
  if (from_text) out += "s/" + *from_text + "/" + to + "/" + (repeat ? "g" : "");
  if (lower) out += "/L";
  if (upper) out += "/U";
  return out;
}

std::optional<kerberos_short_namer> kerberos_short_namer::parse(const std::vector<std::string>& rules,
                                                                std::string default_realm, std::string* error) {
  kerberos_short_namer out;
  out.default_realm_ = std::move(default_realm);
  for (const std::string& text : rules) {
    std::smatch m;
    if (!std::regex_search(text, m, rule_parser(), std::regex_constants::match_continuous)) {
      *error = "Invalid rule: " + text;
      return std::nullopt;
    }
    const size_t end = static_cast<size_t>(m.length(0));
    if (end != text.size()) {
      *error = "Invalid rule: `" + text + "`, unmatched substring: `" + text.substr(end) + "`";
      return std::nullopt;
    }
    rule r;
    if (!m[2].matched) {
      r.is_default = false;
      const std::string n = m[5].str();
      int components = 0;
      auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), components);
      if (n.empty() || ec != std::errc() || ptr != n.data() + n.size()) {
        *error = "For input string: \"" + n + "\"";
        return std::nullopt;
      }
      r.components = components;
      r.format = m[6].str();
      if (m[8].matched) {
        r.match_text = m[8].str();
        auto compiled = compile(*r.match_text, text, error);
        if (!compiled) return std::nullopt;
        r.match = std::move(*compiled);
      }
      if (m[10].matched) {
        r.from_text = m[10].str();
        auto compiled = compile(*r.from_text, text, error);
        if (!compiled) return std::nullopt;
        r.from = std::move(*compiled);
        r.to = m[11].str();
        r.repeat = m[12].str() == "g";
      }
      r.lower = m[13].str() == "L";
      r.upper = m[13].str() == "U";
    }
    out.rules_.push_back(std::move(r));
  }
  return out;
}

std::optional<std::string> kerberos_short_namer::replace_parameters(const std::string& format,
                                                                    const std::vector<std::string>& params,
                                                                    std::string* error) {
  // Literal text up to a '$', then the parameter its digits name.
  std::string out;
  size_t i = 0;
  while (i < format.size()) {
    const size_t dollar = format.find('$', i);
    out.append(format, i, (dollar == std::string::npos ? format.size() : dollar) - i);
    if (dollar == std::string::npos) break;
    size_t digits_end = dollar + 1;
    while (digits_end < format.size() && std::isdigit(static_cast<unsigned char>(format[digits_end]))) ++digits_end;
    const std::string digits = format.substr(dollar + 1, digits_end - dollar - 1);
    long long index = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || ec != std::errc() || index > 2147483647LL) {
      *error = "bad format in username mapping in " + digits;
      return std::nullopt;
    }
    if (index < 0 || index >= static_cast<long long>(params.size())) {
      *error = "index " + std::to_string(index) + " from " + format + " is outside of the valid range 0 to " +
               std::to_string(static_cast<long long>(params.size()) - 1);
      return std::nullopt;
    }
    out += params[static_cast<size_t>(index)];
    i = digits_end;
  }
  return out;
}

std::optional<std::string> kerberos_short_namer::apply(const rule& r, const std::vector<std::string>& params,
                                                       std::string* error) const {
  std::optional<std::string> result;
  if (r.is_default) {
    if (params[0] == default_realm_) result = params[1];
  } else if (static_cast<long long>(params.size()) - 1 == r.components) {
    auto base = replace_parameters(r.format, params, error);
    if (!base) return std::nullopt;
    if (!r.match_text || std::regex_match(*base, r.match)) {
      if (!r.from_text) {
        result = std::move(base);
      } else {
        result = java_replace(*base, r.from, r.to, r.repeat, error);
        if (!result) return std::nullopt;
      }
    }
  }
  if (result && result->find_first_of("/@") != std::string::npos) {
    *error = "Non-simple name " + *result + " after auth_to_local rule " + r.text();
    return std::nullopt;
  }
  if (result)
    for (char& c : *result) {
      if (r.lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (r.upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  return result;
}

std::optional<std::string> kerberos_short_namer::short_name(const kerberos_name& name, std::string* error) const {
  std::vector<std::string> params;
  if (!name.host) {
    if (!name.realm) return name.service;
    params = {*name.realm, name.service};
  } else {
    params = {name.realm.value_or(""), name.service, *name.host};
  }
  for (const rule& r : rules_) {
    std::string why;
    auto result = apply(r, params, &why);
    if (!why.empty()) {
      *error = why;
      return std::nullopt;
    }
    if (result) return result;
  }
  std::string listed;
  for (const rule& r : rules_) listed += (listed.empty() ? "" : ", ") + r.text();
  *error = "No rules apply to " + name.str() + ", rules [" + listed + "]";
  return std::nullopt;
}

}  // namespace hw::broker
