#include "broker/security/sasl_client.h"

#include "broker/security/sasl_listener.h"
#include "config/listener_security.h"
#include "config/value_parse.h"

namespace hw::broker {

sasl_client_exchange::sasl_client_exchange(const sasl_login& login) : login_(login) {
  if (auto m = parse_scram_mechanism(login.mechanism)) scram_.emplace(*m, login.username, login.password);
}

std::vector<uint8_t> sasl_client_exchange::first() {
  round_ = 1;
  std::string token = scram_ ? scram_->client_first() : plain_client_token(login_.username, login_.password);
  return {token.begin(), token.end()};
}

std::optional<std::vector<uint8_t>> sasl_client_exchange::next(std::span<const uint8_t> server_token,
                                                               std::string* error) {
  const std::string_view text(reinterpret_cast<const char*>(server_token.data()), server_token.size());
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
  if (mechanism != "PLAIN" && !parse_scram_mechanism(mechanism))
    return mechanism_key + " is " + mechanism + ", which is not supported (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)";
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
