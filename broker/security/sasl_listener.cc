#include "broker/security/sasl_listener.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "broker/security/gssapi_server.h"
#include "broker/security/oauthbearer_server.h"
#include "broker/security/plain_server.h"
#include "broker/security/scram_server.h"
#include "config/value_parse.h"

namespace hw::broker {
namespace {

// Kafka answers SaslHandshake with its enabled mechanisms in the order a
// java.util.HashSet made of the configured list iterates: by the bucket of
// each name's String hash (spread as HashMap spreads it, in a table sized
// for the list), in configuration order within a bucket, duplicates gone.
// Clients print the list in their errors; the differential tests compare it.
std::vector<std::string> in_kafka_answer_order(const std::vector<std::string>& names) {
  std::vector<std::string> unique;
  for (const auto& n : names)
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
  const size_t wanted = std::max<size_t>(static_cast<size_t>(static_cast<float>(names.size()) / 0.75f) + 1, 16);
  size_t table = 1;
  while (table < wanted) table <<= 1;
  auto bucket = [table](const std::string& s) {
    uint32_t h = 0;
    for (unsigned char c : s) h = 31 * h + c;  // mechanism names are ASCII: one UTF-16 unit per byte
    h ^= h >> 16;
    return h & (table - 1);
  };
  std::stable_sort(unique.begin(), unique.end(),
                   [&](const std::string& a, const std::string& b) { return bucket(a) < bucket(b); });
  return unique;
}

using config::lower;

bool supported(const std::string& mechanism) {
  return mechanism == "PLAIN" || mechanism == "OAUTHBEARER" || mechanism == "GSSAPI" ||
         parse_scram_mechanism(mechanism).has_value();
}

}  // namespace

std::variant<std::vector<jaas_entry>, std::string> server_jaas_entries(const config::listener_security& keys,
                                                                        const std::string& mechanism,
                                                                        const sasl_listener::jaas_source& jaas) {
  if (auto it = keys.sasl_jaas_config.find(mechanism); it != keys.sasl_jaas_config.end()) {
    jaas_parse_result parsed = parse_jaas_config(it->second);
    const std::string key = "listener.name." + lower(keys.listener) + "." + lower(mechanism) + ".sasl.jaas.config";
    if (!parsed.ok()) return "Invalid " + key + ": " + parsed.error;
    if (parsed.entries.empty()) return key + ": JAAS config property does not contain any login modules";
    if (parsed.entries.size() != 1)
      return key + ": JAAS config property contains " + std::to_string(parsed.entries.size()) +
             " login modules, should be 1 module";
    return std::move(parsed.entries);
  }
  const std::string listener_section = lower(keys.listener) + ".KafkaServer";
  if (jaas.file) {
    for (const std::string& name : {listener_section, std::string("KafkaServer")})
      if (auto it = jaas.file->sections.find(name); it != jaas.file->sections.end()) return it->second;
  }
  return "Could not find a 'KafkaServer' or '" + listener_section +
         "' entry in the JAAS configuration. System property 'java.security.auth.login.config' is " +
         (jaas.path ? *jaas.path : std::string("not set"));
}

std::variant<std::shared_ptr<const sasl_listener>, std::string> sasl_listener::make(
    const config::listener_security& keys, const jaas_source& jaas, scram_lookup scram, token_lookup tokens) {
  std::shared_ptr<sasl_listener> l(new sasl_listener());
  l->listener_ = keys.listener;
  l->mechanisms_ = in_kafka_answer_order(keys.sasl_enabled_mechanisms);
  l->scram_ = std::move(scram);
  l->tokens_ = std::move(tokens);
  l->max_receive_size_ = keys.sasl_server_max_receive_size;
  l->failed_delay_ms_ = keys.failed_authentication_delay_ms;
  l->max_reauth_ms_ = keys.connections_max_reauth_ms;
  const std::string where = "Listener " + keys.listener + " (" + keys.protocol + ")";
  if (l->mechanisms_.empty())
    return where + ": sasl.enabled.mechanisms is empty; a SASL listener needs at least one mechanism";
  auto users = std::make_shared<std::map<std::string, std::string>>();
  for (const std::string& mechanism : l->mechanisms_) {
    if (!supported(mechanism))
      return where + ": SASL mechanism " + mechanism +
             " is not supported (sasl.enabled.mechanisms may name PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER and "
             "GSSAPI)";
    auto entries = server_jaas_entries(keys, mechanism, jaas);
    if (auto* error = std::get_if<std::string>(&entries)) return where + ": " + *error;
    auto& list = std::get<std::vector<jaas_entry>>(entries);
    if (mechanism == "PLAIN") *users = plain_users(list);
    if (mechanism == "OAUTHBEARER") {
      auto validator = make_oauth_validator(keys, list);
      if (auto* error = std::get_if<std::string>(&validator)) return *error;
      l->oauth_ = std::get<oauth_validator>(std::move(validator));
    }
    if (mechanism == "GSSAPI") {
      if (auto error = l->setup_gssapi(keys, list)) return where + ": GSSAPI: " + *error;
    }
    l->jaas_.emplace(mechanism, std::move(list));
  }
  l->plain_users_ = std::move(users);
  return std::shared_ptr<const sasl_listener>(std::move(l));
}

std::optional<std::string> sasl_listener::setup_gssapi(const config::listener_security& keys,
                                                        const std::vector<jaas_entry>& entries) {
  auto login = krb5_login_from_jaas(entries);
  if (auto* error = std::get_if<std::string>(&login)) return *error;
  const auto& options = std::get<krb5_login_options>(login);
  if (auto service = kerberos_service_name(options, keys.kerberos_service_name); service.index() == 1)
    return std::get<1>(service);
  std::string error;
  if (!kerberos_name::parse(options.principal, &error)) return "Principal has name with unexpected format " + options.principal;
  auto credential = gss_credential::from_keytab(options.principal, options.keytab, gss_credential::usage::accept);
  if (auto* e = std::get_if<std::string>(&credential)) return *e;
  gssapi_acceptor_ = std::get<std::shared_ptr<const gss_credential>>(std::move(credential));
  auto names = kerberos_short_namer::parse(keys.kerberos_principal_to_local_rules, kerberos_default_realm().value_or(""),
                                           &error);
  if (!names) return "sasl.kerberos.principal.to.local.rules: " + error;
  kerberos_names_ = std::make_shared<const kerberos_short_namer>(std::move(*names));
  return std::nullopt;
}

std::variant<jaas_file, std::string> read_jaas_file(const std::string& path) {
  jaas_file file = protocol::read_jaas_file(path);
  if (!file.ok())
    return "Cannot use the JAAS file " + path + " (-Djava.security.auth.login.config in KAFKA_OPTS): " + file.error;
  return file;
}

std::variant<std::map<std::string, std::shared_ptr<const sasl_listener>>, std::string> make_sasl_listeners(
    const config::broker_config& c, const sasl_listener::scram_lookup& scram,
    const sasl_listener::token_lookup& tokens) {
  std::map<std::string, std::shared_ptr<const sasl_listener>> out;
  std::optional<jaas_file> file;
  sasl_listener::jaas_source jaas{nullptr, c.jaas_file};
  for (const config::listener_endpoint& ep : c.listeners) {
    if (ep.security_protocol != "SASL_PLAINTEXT" && ep.security_protocol != "SASL_SSL") continue;
    if (c.jaas_file && !file) {
      auto read = read_jaas_file(*c.jaas_file);
      if (auto* error = std::get_if<std::string>(&read)) return *error;
      file = std::get<jaas_file>(std::move(read));
      jaas.file = &*file;
    }
    auto keys = config::resolve_listener_security(c, ep);
    if (auto* error = std::get_if<std::string>(&keys)) return *error;
    auto made = sasl_listener::make(std::get<config::listener_security>(keys), jaas, scram, tokens);
    if (auto* error = std::get_if<std::string>(&made)) return *error;
    out.emplace(ep.name, std::get<std::shared_ptr<const sasl_listener>>(std::move(made)));
  }
  return out;
}

std::unique_ptr<sasl_server> sasl_listener::make_server(const std::string& mechanism) const {
  if (mechanism == "PLAIN") {
    return std::make_unique<plain_server>([users = plain_users_](const std::string& user) -> std::optional<std::string> {
      auto it = users->find(user);
      if (it == users->end()) return std::nullopt;
      return it->second;
    });
  }
  if (mechanism == "OAUTHBEARER" && oauth_) return std::make_unique<oauthbearer_server>(oauth_);
  if (mechanism == "GSSAPI" && gssapi_acceptor_)
    return std::make_unique<gssapi_server>(gssapi_acceptor_, kerberos_names_);
  if (auto m = parse_scram_mechanism(mechanism)) {
    scram_server::token_lookup tokens;
    if (tokens_)
      tokens = [lookup = tokens_, m = *m](const std::string& id) { return lookup(m, id); };
    return std::make_unique<scram_server>(
        *m, [lookup = scram_, m = *m](const std::string& user) { return lookup ? lookup(m, user) : std::nullopt; },
        scram::random_nonce, std::move(tokens));
  }
  return nullptr;
}

std::unique_ptr<sasl_session> sasl_listener::new_session() const {
  return std::make_unique<sasl_session>(
      mechanisms_, [self = shared_from_this()](const std::string& mechanism) { return self->make_server(mechanism); },
      max_reauth_ms_);
}

std::optional<sasl_listener::login> sasl_listener::own_login(const std::string& mechanism) const {
  auto it = jaas_.find(mechanism);
  if (it == jaas_.end()) return std::nullopt;
  for (const jaas_entry& e : it->second) {
    auto user = e.options.find("username");
    auto password = e.options.find("password");
    if (user != e.options.end() && password != e.options.end()) return login{user->second, password->second};
  }
  return std::nullopt;
}

}  // namespace hw::broker
