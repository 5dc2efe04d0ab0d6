#include "protocol/sasl/oauthbearer.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "protocol/java_string.h"

namespace hw::protocol::oauthbearer {
namespace {

constexpr char k_separator = '\x01';

bool is_key_char(unsigned char c) { return std::isalpha(c) != 0 && c < 0x80; }
// A value character: printable ASCII, space, tab, CR, LF.
bool is_value_char(unsigned char c) { return (c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A SASL name (the authorization id): ASCII 0x01-0x7F but '=' and ',',
// or the escapes =2C and =3D; at least one.
bool is_sasl_name(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '=') {
      if (s.substr(i, 3) != "=2C" && s.substr(i, 3) != "=3D") return false;
      i += 2;
    } else if (c == ',' || c == 0 || c >= 0x80) {
      return false;
    }
  }
  return true;
}

// `<scheme> +<token>` where the scheme is word characters and the token
// base64-ish characters followed by any '='.
bool split_auth(std::string_view auth, std::string_view& scheme, std::string_view& token) {
  size_t i = 0;
  while (i < auth.size() && (std::isalnum(static_cast<unsigned char>(auth[i])) || auth[i] == '_') &&
         static_cast<unsigned char>(auth[i]) < 0x80)
    ++i;
  if (i == 0) return false;
  scheme = auth.substr(0, i);
  size_t spaces = i;
  while (spaces < auth.size() && auth[spaces] == ' ') ++spaces;
  if (spaces == i) return false;
  token = auth.substr(spaces);
  size_t j = 0;
  auto token_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '~' || c == '+' || c == '/' ||
           c == '.';
  };
  while (j < token.size() && token_char(token[j]) && static_cast<unsigned char>(token[j]) < 0x80) ++j;
  if (j == 0) return false;
  while (j < token.size() && token[j] == '=') ++j;
  return j == token.size();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool blank(std::string_view s) {
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

int base64url_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Jackson's text of a JSON value that is not a number or an array.
std::string text_of(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "null";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
    return buf;
  }
  return "";  // objects (and arrays inside arrays)
}

json_value convert(const nlohmann::json& v) {
  json_value out;
  if (v.is_array()) {
    out.type = json_value::kind::list;
    for (const auto& e : v) out.list.push_back(text_of(e));
  } else if (v.is_number()) {
    out.type = json_value::kind::number;
    out.number = v.get<double>();
    out.integral = !v.is_number_float();
  } else {
    out.text = text_of(v);
  }
  return out;
}

// A claim that must be a number when present.
struct number_claim {
  bool present = false;
  bool wrong_type = false;
  double value = 0;
};
number_claim number_of(const json_object& claims, std::string_view name) {
  number_claim n;
  auto it = claims.find(name);
  if (it == claims.end()) return n;
  n.present = true;
  if (it->second.type != json_value::kind::number) {
    n.wrong_type = true;
    return n;
  }
  n.value = it->second.number;
  return n;
}

std::string java_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

// java.lang.Integer.parseInt over a JAAS option (after trim, as Kafka).
std::optional<int32_t> parse_int(std::string_view s) {
  int32_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || b == e) return std::nullopt;
  return v;
}

std::string json_escape_quotes(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::variant<client_first, message_error> parse_client_first(std::string_view m) {
  const message_error invalid{"Invalid OAUTHBEARER client first message", false};
  if (!m.starts_with("n,")) return invalid;
  size_t pos = 2;
  client_first out;
  if (m.substr(pos).starts_with("a=")) {
    const size_t comma = m.find(',', pos + 2);
    if (comma == std::string_view::npos) return invalid;
    const std::string_view name = m.substr(pos + 2, comma - pos - 2);
    if (!is_sasl_name(name)) return invalid;
    out.authorization_id = std::string(name);
    pos = comma;
  }
  if (m.substr(pos, 2) != std::string_view(",\x01", 2)) return invalid;
  pos += 2;
  std::map<std::string, std::string> pairs;
  for (;;) {
    if (pos >= m.size()) return invalid;
    if (m[pos] == k_separator) {
      if (pos + 1 != m.size()) return invalid;
      break;
    }
    size_t k = pos;
    while (k < m.size() && is_key_char(static_cast<unsigned char>(m[k]))) ++k;
    if (k == pos || k >= m.size() || m[k] != '=') return invalid;
    size_t v = k + 1;
    while (v < m.size() && is_value_char(static_cast<unsigned char>(m[v]))) ++v;
    if (v == k + 1 || v >= m.size() || m[v] != k_separator) return invalid;
    pairs[std::string(m.substr(pos, k - pos))] = std::string(m.substr(k + 1, v - k - 1));
    pos = v + 1;
  }
  auto auth = pairs.find("auth");
  if (auth == pairs.end()) return message_error{"Invalid OAUTHBEARER client first message: 'auth' not specified", false};
  const std::string auth_value = auth->second;
  pairs.erase(auth);
  out.extensions = std::move(pairs);
  std::string_view scheme, token;
  if (!split_auth(auth_value, scheme, token))
    return message_error{"Invalid OAUTHBEARER client first message: invalid 'auth' format", false};
  // Kafka's message for a scheme other than Bearer reads a group its
  // pattern does not have and fails outside SASL: the connection closes.
  if (!iequals(scheme, "bearer")) return message_error{"Invalid scheme in OAUTHBEARER client first message", true};
  out.token = std::string(token);
  return out;
}

std::string client_first_message(std::string_view token, std::string_view authorization_id,
                                 const std::map<std::string, std::string>& extensions) {
  std::string m = "n,";
  if (!authorization_id.empty()) m += "a=" + std::string(authorization_id);
  m += ",";
  m += k_separator;
  m += "auth=Bearer ";
  m += token;
  for (const auto& [k, v] : extensions) {
    m += k_separator;
    m += k + "=" + v;
  }
  m += k_separator;
  m += k_separator;
  return m;
}

std::string error_challenge(std::string_view status, const std::optional<std::string>& scope) {
  std::string out = "{\"status\":\"" + std::string(status) + "\"";
  if (scope) out += ", \"scope\":\"" + *scope + "\"";
  return out + "}";
}

std::optional<std::string> base64url_decode(std::string_view text) {
  // Padding ends the data; what follows it may only be more padding.
  size_t end = text.find('=');
  if (end != std::string_view::npos) {
    const size_t pad = text.size() - end;
    for (size_t i = end; i < text.size(); ++i)
      if (text[i] != '=') return std::nullopt;
    const size_t rem = end % 4;
    if (rem == 0 || rem == 1 || (rem == 2 && pad != 2) || (rem == 3 && pad != 1)) return std::nullopt;
  } else {
    end = text.size();
  }
  if (end % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(end * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    const int v = base64url_value(text[i]);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  static constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += k_alphabet[(acc >> bits) & 0x3f];
    }
  }
  if (bits > 0) out += k_alphabet[(acc << (6 - bits)) & 0x3f];
  return out;
}

std::optional<json_object> parse_json_object(std::string_view text) {
  // Jackson reads the first value and leaves what follows it; nlohmann's
  // non-strict parse does the same.
  nlohmann::json doc;
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> sax(doc, false);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.begin(), text.end(), &sax, nlohmann::json::input_format_t::json, false);
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok || doc.is_discarded()) return std::nullopt;
  json_object out;
  if (!doc.is_object()) return out;
  for (const auto& [k, v] : doc.items()) out[k] = convert(v);
  return out;
}

std::variant<unsecured_validator_options, std::string> unsecured_validator_options_from(
    const std::map<std::string, std::string>& jaas) {
  unsecured_validator_options o;
  auto option = [&](const char* name) -> const std::string* {
    auto it = jaas.find(name);
    return it == jaas.end() ? nullptr : &it->second;
  };
  if (auto* v = option("unsecuredValidatorPrincipalClaimName"); v && !blank(*v)) o.principal_claim = java_trim(*v);
  if (auto* v = option("unsecuredValidatorScopeClaimName"); v && !blank(*v)) o.scope_claim = java_trim(*v);
  if (auto* v = option("unsecuredValidatorRequiredScope"); v && !blank(*v)) {
    const std::string scope(java_trim(*v));
    size_t start = 0;
    while (start <= scope.size()) {
      size_t sp = scope.find(' ', start);
      if (sp == std::string::npos) sp = scope.size();
      const std::string item = scope.substr(start, sp - start);
      if (!item.empty()) {
        for (unsigned char c : item)
          if (!(c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e)))
            return "Invalid scope value: " + item;
        o.required_scope.push_back(item);
      }
      start = sp + 1;
    }
  }
  if (auto* v = option("unsecuredValidatorAllowableClockSkewMs"); v && !blank(*v)) {
    auto ms = parse_int(java_trim(*v));
    if (!ms) return "For input string: \"" + std::string(java_trim(*v)) + "\"";
    if (*ms < 0) return "Allowable clock skew millis must not be negative: " + *v;
    o.allowable_clock_skew_ms = *ms;
  }
  return o;
}

validation validate_unsecured(std::string_view token, const unsecured_validator_options& o, int64_t now_ms) {
  auto fail = [](std::string why) { return token_failure{std::move(why), std::nullopt, false}; };
  if (token.find("..") != std::string_view::npos) return fail("Malformed compact serialization contains '..'");
  // Three dot-separated parts, the last possibly empty.
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = token.find('.', start);
    if (dot == std::string_view::npos) {
      parts.push_back(token.substr(start));
      break;
    }
    parts.push_back(token.substr(start, dot - start));
    start = dot + 1;
  }
  if (parts.size() != 3)
    return fail("Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values");
  auto decode = [](std::string_view part) -> std::variant<json_object, std::string> {
    auto bytes = base64url_decode(part);
    if (!bytes) return std::string("malformed Base64 URL encoded value");
    auto json = parse_json_object(*bytes);
    if (!json) return std::string("malformed JSON");
    return std::move(*json);
  };
  auto header = decode(parts[0]);
  if (auto* e = std::get_if<std::string>(&header)) return fail(*e);
  auto claims_or = decode(parts[1]);
  if (auto* e = std::get_if<std::string>(&claims_or)) return fail(*e);
  const json_object& claims = std::get<json_object>(claims_or);
  const json_object& head = std::get<json_object>(header);
  auto alg = head.find("alg");
  if (alg == head.end()) return token_failure{"JWS header must have an Algorithm value", std::nullopt, true};
  if (alg->second.type != json_value::kind::text || alg->second.text != "none")
    return fail("Unsecured JWS must have 'none' for an algorithm");
  if (!parts[2].empty()) return fail("Unsecured JWS must not contain a digital signature");

  validated_token t;
  if (auto s = claims.find(o.scope_claim); s != claims.end()) {
    if (s->second.type == json_value::kind::text) {
      if (!blank(s->second.text)) t.scope.insert(std::string(java_trim(s->second.text)));
    } else if (s->second.type == json_value::kind::list) {
      for (const auto& item : s->second.list)
        if (!blank(item)) t.scope.insert(std::string(java_trim(item)));
    } else {
      return fail("The '" + o.scope_claim + "' claim was not of type List");
    }
  }
  const number_claim exp = number_of(claims, "exp");
  if (exp.wrong_type) return fail("The 'exp' claim was not of type Number");
  if (!exp.present) return fail("No expiration time in JWT");
  t.lifetime_ms = static_cast<int64_t>(std::llround(exp.value * 1000));
  auto principal = claims.find(o.principal_claim);
  if (principal != claims.end() && principal->second.type != json_value::kind::text)
    return fail("The '" + o.principal_claim + "' claim was not of type String");
  if (principal == claims.end() || blank(principal->second.text))
    return fail("No principal name in JWT claim: " + o.principal_claim);
  t.principal = principal->second.text;
  const number_claim iat = number_of(claims, "iat");
  if (iat.wrong_type) return fail("The 'iat' claim was not of type Number");
  if (iat.present) t.start_time_ms = static_cast<int64_t>(std::llround(iat.value * 1000));

  const double skew = o.allowable_clock_skew_ms;
  if (iat.present && 1000 * iat.value > static_cast<double>(now_ms) + skew)
    return fail("The Issued At value was after the indicated time plus allowable clock skew");
  if (static_cast<double>(now_ms) - skew >= 1000 * exp.value)
    return fail("The indicated time minus allowable clock skew was on or after the Expiration Time value");
  if (iat.present && exp.value <= iat.value) return fail("The Expiration Time time was not after the Issued At time");
  for (const auto& required : o.required_scope)
    if (!t.scope.contains(required)) {
      std::vector<std::string> had(t.scope.begin(), t.scope.end());
      return token_failure{"The provided scope " + java_list(had) + " was missing a required scope (" + required + ")",
                           java_list(o.required_scope), false};
    }
  return t;
}

std::variant<login_token, std::string> make_unsecured_login_token(const std::map<std::string, std::string>& jaas,
                                                                  int64_t now_ms) {
  static constexpr std::string_view k_extension = "unsecuredLoginExtension_";
  static constexpr std::string_view k_string = "unsecuredLoginStringClaim_";
  static constexpr std::string_view k_number = "unsecuredLoginNumberClaim_";
  static constexpr std::string_view k_list = "unsecuredLoginListClaim_";
  if (jaas.empty()) return std::string("No unsecuredLogin options: this login cannot make a token");
  bool only_extensions = true;
  for (const auto& [k, v] : jaas)
    if (!k.starts_with(k_extension)) only_extensions = false;
  if (only_extensions) return std::string("Extensions provided in login context without a token");
  auto option = [&](const char* name) -> std::optional<std::string> {
    auto it = jaas.find(name);
    if (it == jaas.end()) return std::nullopt;
    return it->second;
  };
  std::string principal_claim = "sub";
  if (auto v = option("unsecuredLoginPrincipalClaimName"); v && !blank(*v)) principal_claim = java_trim(*v);
  int64_t lifetime_s = 3600;
  if (auto v = option("unsecuredLoginLifetimeSeconds")) {
    int64_t parsed = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), parsed);
    if (ec != std::errc() || p != v->data() + v->size()) return "For input string: \"" + *v + "\"";
    lifetime_s = parsed;
  }
  char times[128];
  std::snprintf(times, sizeof times, "\"exp\":%.3f,\"iat\":%.3f", static_cast<double>(now_ms) / 1000.0 + lifetime_s,
                static_cast<double>(now_ms) / 1000.0);
  std::string claims = std::string("{") + times;
  login_token out;
  for (const auto& [k, v] : jaas) {
    std::string_view key = k;
    auto reserved = [](std::string_view name) { return name == "iat" || name == "exp"; };
    if (key.starts_with(k_string) && key.size() > k_string.size()) {
      const std::string name(key.substr(k_string.size()));
      if (reserved(name)) return "Cannot explicitly set the '" + name + "' claim";
      claims += ",\"" + json_escape_quotes(name) + "\":\"" + json_escape_quotes(v) + "\"";
    } else if (key.starts_with(k_number) && key.size() > k_number.size()) {
      const std::string name(key.substr(k_number.size()));
      if (reserved(name)) return "Cannot explicitly set the '" + name + "' claim";
      double d = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      if (ec != std::errc() || p != v.data() + v.size()) return "For input string: \"" + v + "\"";
      char num[64];
      std::snprintf(num, sizeof num, "%.17g", d);
      claims += ",\"" + json_escape_quotes(name) + "\":" + num;
    } else if (key.starts_with(k_list) && key.size() > k_list.size()) {
      const std::string name(key.substr(k_list.size()));
      if (reserved(name)) return "Cannot explicitly set the '" + name + "' claim";
      // The first character is the delimiter of the rest.
      std::string list = "[";
      if (v.size() > 1) {
        const char delimiter = v[0];
        const std::string rest = v.substr(1);
        size_t s = 0;
        bool first = true;
        std::vector<std::string> items;
        for (;;) {
          size_t d = rest.find(delimiter, s);
          items.push_back(rest.substr(s, d == std::string::npos ? std::string::npos : d - s));
          if (d == std::string::npos) break;
          s = d + 1;
        }
        while (!items.empty() && items.back().empty()) items.pop_back();  // Java's split drops trailing empties
        for (const auto& item : items) {
          list += std::string(first ? "" : ",") + "\"" + json_escape_quotes(item) + "\"";
          first = false;
        }
        if (rest.front() == delimiter || rest.back() == delimiter ||
            rest.find(std::string(2, delimiter)) != std::string::npos)
          list += ",\"\"";
      }
      claims += ",\"" + json_escape_quotes(name) + "\":" + list + "]";
    } else if (key.starts_with(k_extension)) {
      const std::string name(key.substr(k_extension.size()));
      if (name == "auth" || name.empty()) return "Extension name " + name + " is invalid";
      for (unsigned char c : name)
        if (!is_key_char(c)) return "Extension name " + name + " is invalid";
      for (unsigned char c : v)
        if (!is_value_char(c)) return "Extension value for extension " + name + " is invalid";
      if (v.empty()) return "Extension value for extension " + name + " is invalid";
      out.extensions[name] = v;
    }
  }
  claims += "}";
  auto parsed = parse_json_object(claims);
  if (!parsed) return std::string("malformed JSON");
  auto principal = parsed->find(principal_claim);
  if (principal == parsed->end() || principal->second.type != json_value::kind::text || blank(principal->second.text))
    return "No principal name in JWT claim: " + principal_claim;
  out.principal = principal->second.text;
  out.lifetime_ms = now_ms + lifetime_s * 1000;
  out.token = base64url_encode("{\"alg\":\"none\"}") + "." + base64url_encode(claims) + ".";
  return out;
}

}  // namespace hw::protocol::oauthbearer
