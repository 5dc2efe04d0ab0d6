#include "config/listener_security.h"

#include <algorithm>
#include <type_traits>

#include "config/value_parse.h"

namespace hw::config {
namespace {

// The key's value for this listener, typed as the broker key is, from the
// first that is set of: the mechanism's own
// `listener.name.<listener>.<mechanism>.<key>` (when a mechanism is named;
// in lower case), the listener's `listener.name.<listener>.<key>`, the
// broker's `<key>`. An error when the override found does not parse (the
// message names the key as written; a password key's text is not repeated).
std::variant<config_value, std::string> typed_value(const broker_config& c, std::string_view listener,
                                                    std::string_view key, std::string_view mechanism = {}) {
  std::string written;
  std::optional<std::string> text;
  if (!mechanism.empty()) {
    written = lower(mechanism) + "." + std::string(key);
    text = listener_override(c, listener, written);
  }
  if (!text) {
    written = std::string(key);
    text = listener_override(c, listener, written);
  }
  if (!text) return c.values.at(std::string(key));
  // Parsed as the broker key, under the name that was written, so the
  // message names it (and hides a password as Kafka does).
  const std::string name = "listener.name." + lower(listener) + "." + written;
  config_key prefixed = *find_broker_key(key);
  prefixed.name = name;
  parse_result parsed = parse_value(prefixed, *text);
  if (auto* err = std::get_if<std::string>(&parsed)) return *err;
  return std::get<config_value>(parsed);
}

// A string (or password) key's value for the listener: none when null.
std::variant<std::optional<std::string>, std::string> text_value(const broker_config& c, std::string_view listener,
                                                                std::string_view key) {
  auto v = typed_value(c, listener, key);
  if (auto* err = std::get_if<std::string>(&v)) return *err;
  if (auto* text = std::get_if<std::string>(&std::get<config_value>(v))) return std::optional<std::string>(*text);
  return std::optional<std::string>();
}

std::optional<std::string> resolve_tls(const broker_config& c, std::string_view listener,
                                       listener_security::tls_keys& t) {
  std::optional<std::string> error;
  auto text = [&](std::string_view key, std::optional<std::string>& out) {
    if (error) return;
    auto v = text_value(c, listener, key);
    if (auto* e = std::get_if<std::string>(&v)) error = *e;
    else out = std::get<std::optional<std::string>>(std::move(v));
  };
  auto string = [&](std::string_view key, std::string& out) {
    std::optional<std::string> v;
    text(key, v);
    out = v.value_or("");
  };
  auto list = [&](std::string_view key, std::vector<std::string>& out) {
    if (error) return;
    auto v = typed_value(c, listener, key);
    if (auto* e = std::get_if<std::string>(&v)) error = *e;
    else if (auto* l = std::get_if<std::vector<std::string>>(&std::get<config_value>(v))) out = *l;
  };
  string("ssl.keystore.type", t.keystore_type);
  t.keystore_type = upper(t.keystore_type);
  text("ssl.keystore.location", t.keystore_location);
  text("ssl.keystore.password", t.keystore_password);
  text("ssl.key.password", t.key_password);
  text("ssl.keystore.certificate.chain", t.keystore_certificate_chain);
  text("ssl.keystore.key", t.keystore_key);
  string("ssl.truststore.type", t.truststore_type);
  t.truststore_type = upper(t.truststore_type);
  text("ssl.truststore.location", t.truststore_location);
  text("ssl.truststore.password", t.truststore_password);
  text("ssl.truststore.certificates", t.truststore_certificates);
  string("ssl.protocol", t.protocol);
  list("ssl.enabled.protocols", t.enabled_protocols);
  list("ssl.cipher.suites", t.cipher_suites);
  string("ssl.client.auth", t.client_auth);
  string("ssl.endpoint.identification.algorithm", t.endpoint_identification);
  string("ssl.principal.mapping.rules", t.principal_mapping_rules);
  return error;
}

// OAUTHBEARER's keys for a listener: the mechanism's own value
// (listener.name.<l>.oauthbearer.<key>), else the listener's, else the
// broker's, as Kafka's OAuth configuration reads them.
std::optional<std::string> resolve_oauth(const broker_config& c, std::string_view listener,
                                         listener_security::oauth_keys& o) {
  std::optional<std::string> error;
  auto value = [&](std::string_view key) -> std::optional<config_value> {
    if (error) return std::nullopt;
    auto v = typed_value(c, listener, key, "OAUTHBEARER");
    if (auto* e = std::get_if<std::string>(&v)) {
      error = *e;
      return std::nullopt;
    }
    return std::get<config_value>(v);
  };
  auto text = [&](std::string_view key, std::optional<std::string>& out) {
    auto v = value(key);
    if (v)
      if (auto* t = std::get_if<std::string>(&*v)) out = *t;
  };
  auto number = [&](std::string_view key, auto& out) {
    auto v = value(key);
    if (v)
      if (auto* n = std::get_if<int64_t>(&*v)) out = static_cast<std::remove_reference_t<decltype(out)>>(*n);
  };
  text("sasl.server.callback.handler.class", o.server_callback_handler_class);
  text("sasl.login.callback.handler.class", o.login_callback_handler_class);
  text("sasl.oauthbearer.jwks.endpoint.url", o.jwks_endpoint_url);
  number("sasl.oauthbearer.jwks.endpoint.refresh.ms", o.jwks_refresh_ms);
  number("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", o.jwks_retry_backoff_ms);
  number("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", o.jwks_retry_backoff_max_ms);
  number("sasl.oauthbearer.clock.skew.seconds", o.clock_skew_seconds);
  if (auto v = value("sasl.oauthbearer.expected.audience"))
    if (auto* l = std::get_if<std::vector<std::string>>(&*v)) o.expected_audience = *l;
  text("sasl.oauthbearer.expected.issuer", o.expected_issuer);
  std::optional<std::string> sub, scope;
  text("sasl.oauthbearer.sub.claim.name", sub);
  text("sasl.oauthbearer.scope.claim.name", scope);
  if (sub) o.sub_claim_name = *sub;
  if (scope) o.scope_claim_name = *scope;
  text("sasl.oauthbearer.token.endpoint.url", o.token_endpoint_url);
  text("sasl.oauthbearer.scope", o.scope);
  text("sasl.oauthbearer.client.credentials.client.id", o.client_id);
  text("sasl.oauthbearer.client.credentials.client.secret", o.client_secret);
  number("sasl.login.retry.backoff.ms", o.login_retry_backoff_ms);
  number("sasl.login.retry.backoff.max.ms", o.login_retry_backoff_max_ms);
  o.allowed_urls = c.oauthbearer_allowed_urls;
  o.allowed_files = c.oauthbearer_allowed_files;
  o.jvm_truststore = c.jvm_truststore;
  o.jvm_truststore_password = c.jvm_truststore_password;
  o.jvm_truststore_type = c.jvm_truststore_type;
  return error;
}

}  // namespace

std::optional<std::string_view> listener_base_key(std::string_view key) {
  constexpr std::string_view prefix = "listener.name.";
  if (!key.starts_with(prefix)) return std::nullopt;
  const size_t dot = key.find('.', prefix.size());
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view rest = key.substr(dot + 1);
  for (std::string_view per_mechanism : {"sasl.jaas.config", "sasl.login.class", "sasl.login.callback.handler.class",
                                         "sasl.server.callback.handler.class", "connections.max.reauth.ms"})
    if (rest.ends_with(per_mechanism)) return rest.substr(rest.size() - per_mechanism.size());
  // A mechanism's own value of a SASL key (listener.name.<l>.oauthbearer.sasl.oauthbearer.jwks.endpoint.url).
  if (const size_t sasl = rest.find(".sasl."); sasl != std::string_view::npos &&
                                                rest.substr(0, sasl).find('.') == std::string_view::npos)
    return rest.substr(sasl + 1);
  return rest;
}

bool listener_tls_reconfigurable(std::string_view key) {
  constexpr std::string_view prefix = "listener.name.";
  if (!key.starts_with(prefix)) return false;
  const size_t dot = key.find('.', prefix.size());
  if (dot == std::string_view::npos) return false;
  const std::string_view rest = key.substr(dot + 1);
  for (std::string_view k : {"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
                             "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.type",
                             "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates"})
    if (rest == k) return true;
  return false;
}

broker_config with_dynamic_listener_tls(const broker_config& c, const std::map<std::string, std::string>& dynamic) {
  broker_config out = c;
  for (const auto& [key, value] : dynamic)
    if (listener_tls_reconfigurable(key)) out.listener_prefixed[key] = value;
  return out;
}

std::optional<std::string> listener_override(const broker_config& c, std::string_view listener, std::string_view key) {
  auto it = c.listener_prefixed.find("listener.name." + lower(listener) + "." + std::string(key));
  if (it == c.listener_prefixed.end()) return std::nullopt;
  return it->second;
}

std::variant<listener_security, std::string> resolve_listener_security(const broker_config& c,
                                                                       const listener_endpoint& listener) {
  listener_security s;
  s.listener = listener.name;
  s.protocol = listener.security_protocol;
  s.failed_authentication_delay_ms = static_cast<int32_t>(c.get_int("connection.failed.authentication.delay.ms"));

  auto mechanisms = typed_value(c, listener.name, "sasl.enabled.mechanisms");
  if (auto* err = std::get_if<std::string>(&mechanisms)) return *err;
  if (auto* list = std::get_if<std::vector<std::string>>(&std::get<config_value>(mechanisms)))
    s.sasl_enabled_mechanisms = *list;

  auto max_receive = typed_value(c, listener.name, "sasl.server.max.receive.size");
  if (auto* err = std::get_if<std::string>(&max_receive)) return *err;
  s.sasl_server_max_receive_size = static_cast<int32_t>(std::get<int64_t>(std::get<config_value>(max_receive)));

  if (auto error = resolve_tls(c, listener.name, s.tls)) return *error;

  // The listener's own limit is checked even where every enabled mechanism
  // sets its own, or none is enabled.
  if (auto reauth = typed_value(c, listener.name, "connections.max.reauth.ms");
      auto* err = std::get_if<std::string>(&reauth))
    return *err;
  for (const std::string& mechanism : s.sasl_enabled_mechanisms) {
    // A mechanism's JAAS value is read from its own key only, never from the
    // listener's or the broker's sasl.jaas.config (Kafka's JaasContext; the
    // JAAS file is the fallback, in sasl_listener).
    if (auto jaas = listener_override(c, listener.name, lower(mechanism) + ".sasl.jaas.config"))
      s.sasl_jaas_config.emplace(mechanism, std::move(*jaas));
    auto reauth = typed_value(c, listener.name, "connections.max.reauth.ms", mechanism);
    if (auto* err = std::get_if<std::string>(&reauth)) return *err;
    const int64_t ms = std::get<int64_t>(std::get<config_value>(reauth));
    if (ms > 0) s.connections_max_reauth_ms.emplace(mechanism, ms);
  }
  if (std::find(s.sasl_enabled_mechanisms.begin(), s.sasl_enabled_mechanisms.end(), "GSSAPI") !=
      s.sasl_enabled_mechanisms.end()) {
    auto rules = typed_value(c, listener.name, "sasl.kerberos.principal.to.local.rules");
    if (auto* err = std::get_if<std::string>(&rules)) return *err;
    if (auto* list = std::get_if<std::vector<std::string>>(&std::get<config_value>(rules)))
      s.kerberos_principal_to_local_rules = *list;
    auto service = text_value(c, listener.name, "sasl.kerberos.service.name");
    if (auto* err = std::get_if<std::string>(&service)) return *err;
    s.kerberos_service_name = std::get<std::optional<std::string>>(std::move(service));
  }
  if (std::find(s.sasl_enabled_mechanisms.begin(), s.sasl_enabled_mechanisms.end(), "OAUTHBEARER") !=
      s.sasl_enabled_mechanisms.end())
    if (auto error = resolve_oauth(c, listener.name, s.oauth)) return *error;
  return s;
}

std::optional<std::string> resolve_oauth_keys(const broker_config& c, std::string_view listener,
                                              listener_security::oauth_keys& o) {
  return resolve_oauth(c, listener, o);
}

}  // namespace hw::config
