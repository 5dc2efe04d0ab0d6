#include "broker/security/sasl_client.h"

#include "broker/security/gssapi_client.h"
#include "broker/security/oauth_login.h"
#include "broker/wall_clock.h"
#include "protocol/sasl/oauthbearer.h"

#include "broker/security/sasl_listener.h"
#include "config/listener_security.h"
#include "config/value_parse.h"

namespace hw::broker {

sasl_client_exchange::sasl_client_exchange(const sasl_login& login, const std::string& host) : login_(login) {
  if (auto m = parse_scram_mechanism(login.mechanism)) scram_.emplace(*m, login.username, login.password);
  if (login.mechanism == "GSSAPI" && login.gssapi_credential)
    gssapi_ = std::make_unique<gssapi_client>(login.gssapi_credential, login.kerberos_service_name, host,
                                              login.username);
}

sasl_client_exchange::~sasl_client_exchange() = default;

std::optional<std::vector<uint8_t>> sasl_client_exchange::first(std::string* error) {
  round_ = 1;
  if (gssapi_) return gssapi_->first(error);
  if (login_.mechanism == "OAUTHBEARER" && login_.oauth_tokens) {
    const std::string message = protocol::oauthbearer::client_first_message(login_.oauth_tokens->token());
    return std::vector<uint8_t>(message.begin(), message.end());
  }
  if (login_.mechanism == "OAUTHBEARER") {
    const int64_t now = wall_clock_ms();
    auto made = protocol::oauthbearer::make_unsecured_login_token(login_.oauth_options, now);
    // own_sasl_login made one at start-up, so the options are good.
    std::string message;
    if (auto* t = std::get_if<protocol::oauthbearer::login_token>(&made))
      message = protocol::oauthbearer::client_first_message(t->token, "", t->extensions);
    return std::vector<uint8_t>(message.begin(), message.end());
  }
  std::string token = scram_ ? scram_->client_first() : plain_client_token(login_.username, login_.password);
  return std::vector<uint8_t>(token.begin(), token.end());
}

std::optional<std::vector<uint8_t>> sasl_client_exchange::next(std::span<const uint8_t> server_token,
                                                               std::string* error) {
  const std::string_view text(reinterpret_cast<const char*>(server_token.data()), server_token.size());
  if (gssapi_) {
    auto token = gssapi_->next(server_token, error);
    done_ = gssapi_->done();
    return token;
  }
  if (login_.mechanism == "OAUTHBEARER") {
    // An empty answer completes the login; an error challenge is
    // acknowledged, and the server then refuses with it.
    if (server_token.empty() || round_ > 1) {
      done_ = server_token.empty();
      if (!done_) *error = std::string(text);
      return std::nullopt;
    }
    round_ = 2;
    return std::vector<uint8_t>{0x01};
  }
  if (!scram_) {
    // PLAIN: the server's answer to the one message ends it.
    done_ = true;
    return std::nullopt;
  }
  if (round_ == 1) {
    round_ = 2;
    auto final_message = scram_->client_final(text, error);
    if (!final_message) return std::nullopt;
    return std::vector<uint8_t>(final_message->begin(), final_message->end());
  }
  if (!scram_->verify_server_final(text, error)) return std::nullopt;
  done_ = true;
  return std::nullopt;
}

namespace {

// GSSAPI: the Krb5LoginModule's keytab and principal as initiator
// credentials, the service name as Kafka's KerberosLogin finds it.
std::variant<std::shared_ptr<const sasl_login>, std::string> own_gssapi_login(const config::broker_config& c,
                                                                             const std::string& listener,
                                                                             const std::vector<jaas_entry>& entries) {
  const std::string where = "Listener " + listener + ": GSSAPI login: ";
  auto options = krb5_login_from_jaas(entries);
  if (auto* e = std::get_if<std::string>(&options)) return where + *e;
  const auto& krb5 = std::get<krb5_login_options>(options);
  std::optional<std::string> configured = listener_override(c, listener, "sasl.kerberos.service.name");
  if (!configured)
    if (auto it = c.values.find("sasl.kerberos.service.name"); it != c.values.end())
      if (auto* text = std::get_if<std::string>(&it->second)) configured = *text;
  auto service = kerberos_service_name(krb5, configured);
  if (service.index() == 1) return where + std::get<1>(service);
  auto credential = gss_credential::from_keytab(krb5.principal, krb5.keytab, gss_credential::usage::initiate);
  if (auto* e = std::get_if<std::string>(&credential)) return where + *e;
  auto login = std::make_shared<sasl_login>();
  login->mechanism = "GSSAPI";
  // Kafka's clients ask to be authorized as their own principal, in full.
  login->username = krb5.principal;
  if (login->username.find('@') == std::string::npos)
    if (auto realm = kerberos_default_realm()) login->username += "@" + *realm;
  login->gssapi_credential = std::get<std::shared_ptr<const gss_credential>>(std::move(credential));
  login->kerberos_service_name = std::get<0>(service);
  return std::shared_ptr<const sasl_login>(std::move(login));
}

}  // namespace

std::variant<std::shared_ptr<const sasl_login>, std::string> own_sasl_login(const config::broker_config& c,
                                                                           const std::string& listener,
                                                                           const std::string& mechanism_key) {
  std::string protocol;
  for (const auto& [name, proto] : c.listener_security_protocols)
    if (name == listener) protocol = proto;
  if (protocol != "SASL_PLAINTEXT" && protocol != "SASL_SSL") return std::shared_ptr<const sasl_login>();
  config::listener_endpoint endpoint{listener, protocol, "", 0};
  auto resolved = config::resolve_listener_security(c, endpoint);
  if (auto* e = std::get_if<std::string>(&resolved)) return *e;
  auto keys = std::get<config::listener_security>(std::move(resolved));
  const std::string mechanism = listener_override(c, listener, mechanism_key).value_or(c.get_string(mechanism_key));
  if (mechanism != "PLAIN" && mechanism != "OAUTHBEARER" && mechanism != "GSSAPI" && !parse_scram_mechanism(mechanism))
    return mechanism_key + " is " + mechanism +
           ", which is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or GSSAPI)";
  // Its JAAS value is read even when this node does not enable the
  // mechanism on that listener (or does not have the listener at all).
  if (auto jaas = listener_override(c, listener, config::lower(mechanism) + ".sasl.jaas.config"))
    keys.sasl_jaas_config[mechanism] = *jaas;
  std::optional<jaas_file> file;
  sasl_listener::jaas_source source{nullptr, c.jaas_file};
  if (c.jaas_file) {
    auto read = read_jaas_file(*c.jaas_file);
    if (auto* error = std::get_if<std::string>(&read)) return *error;
    file = std::get<jaas_file>(std::move(read));
    source.file = &*file;
  }
  auto entries = server_jaas_entries(keys, mechanism, source);
  if (auto* e = std::get_if<std::string>(&entries)) return "Listener " + listener + ": " + *e;
  if (mechanism == "OAUTHBEARER") {
    const auto& list = std::get<std::vector<jaas_entry>>(entries);
    std::map<std::string, std::string> options = list.empty() ? std::map<std::string, std::string>{} : list.front().options;
    config::listener_security::oauth_keys oauth;
    if (auto error = config::resolve_oauth_keys(c, listener, oauth)) return *error;
    if (oauth.login_callback_handler_class || oauth.token_endpoint_url) {
      auto tokens = start_oauth_token_source(listener, oauth, options);
      if (auto* e = std::get_if<std::string>(&tokens)) return *e;
      auto login = std::make_shared<sasl_login>();
      login->mechanism = mechanism;
      login->oauth_tokens = std::get<std::shared_ptr<const oauth_token_source>>(std::move(tokens));
      return std::shared_ptr<const sasl_login>(std::move(login));
    }
    const int64_t now = wall_clock_ms();
    auto made = protocol::oauthbearer::make_unsecured_login_token(options, now);
    if (auto* e = std::get_if<std::string>(&made)) return "Listener " + listener + ": OAUTHBEARER login: " + *e;
    auto login = std::make_shared<sasl_login>();
    login->mechanism = mechanism;
    login->username = std::get<protocol::oauthbearer::login_token>(made).principal;
    login->oauth_options = std::move(options);
    return std::shared_ptr<const sasl_login>(std::move(login));
  }
  if (mechanism == "GSSAPI") return own_gssapi_login(c, listener, std::get<std::vector<jaas_entry>>(entries));
  for (const jaas_entry& entry : std::get<std::vector<jaas_entry>>(entries)) {
    auto user = entry.options.find("username");
    auto password = entry.options.find("password");
    if (user != entry.options.end() && password != entry.options.end())
      return std::make_shared<const sasl_login>(sasl_login{mechanism, user->second, password->second});
  }
  return "Listener " + listener + ": the JAAS login module for " + mechanism +
         " names no username and password for this broker's own connections";
}

}  // namespace hw::broker
