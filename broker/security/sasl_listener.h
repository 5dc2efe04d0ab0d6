#pragma once
// What one SASL_PLAINTEXT or SASL_SSL listener offers: its enabled
// mechanisms, each with the JAAS entries Kafka would load for it
// (JaasContext.loadServerContext: `listener.name.<l>.<mechanism>.sasl.jaas.config`,
// else the JAAS file's `<l>.KafkaServer` section, else `KafkaServer`), PLAIN's
// users from PlainLoginModule's `user_<name>` options, SCRAM's credentials
// from the metadata (a lookup the node passes in), GSSAPI's credentials
// from the Krb5LoginModule's keytab (a listener whose keytab is missing,
// unreadable or holds no key for its principal is refused), and the limits a
// connection keeps before it has authenticated. Built once at start-up;
// then immutable and shared by the listener's connections, each of which
// asks it for a fresh sasl_session.
//
// Holds secrets (the JAAS passwords): never log it.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker/security/gss_credential.h"
#include "broker/security/jaas.h"
#include "broker/security/kerberos_rules.h"
#include "broker/security/oauth_validation.h"
#include "broker/security/sasl_session.h"
#include "broker/security/scram.h"
#include "broker/security/scram_server.h"
#include "config/listener_security.h"

namespace hw::broker {

class sasl_listener : public std::enable_shared_from_this<sasl_listener> {
 public:
  using scram_lookup = std::function<std::optional<scram_credential>(scram_mechanism, const std::string& user)>;
  // A delegation token's SCRAM login by token id (none: tokens refused).
  using token_lookup =
      std::function<std::optional<scram_server::token_login>(scram_mechanism, const std::string& token_id)>;

  // The JAAS file (parsed) and its path, when KAFKA_OPTS names one.
  struct jaas_source {
    const jaas_file* file = nullptr;
    std::optional<std::string> path;
  };

  // An error names the listener and says what is wrong with its keys, in
  // Kafka's words where Kafka has them (a missing JAAS section, a JAAS value
  // with no or several login modules); never quotes a secret.
  static std::variant<std::shared_ptr<const sasl_listener>, std::string> make(const config::listener_security& keys,
                                                                              const jaas_source& jaas,
                                                                              scram_lookup scram,
                                                                              token_lookup tokens = {});

  std::unique_ptr<sasl_session> new_session() const;
  const std::vector<std::string>& enabled_mechanisms() const { return mechanisms_; }
  int32_t max_receive_size() const { return max_receive_size_; }
  int32_t failed_authentication_delay_ms() const { return failed_delay_ms_; }
  // The `username`/`password` the mechanism's login module names (what the
  // broker authenticates with on its own connections), when it names them.
  struct login {
    std::string username;
    std::string password;
  };
  std::optional<login> own_login(const std::string& mechanism) const;

 private:
  sasl_listener() = default;
  std::unique_ptr<sasl_server> make_server(const std::string& mechanism) const;
  // GSSAPI's acceptor credentials (the Krb5LoginModule's keytab and
  // principal) and principal rules; an error says what is wrong.
  std::optional<std::string> setup_gssapi(const config::listener_security& keys, const std::vector<jaas_entry>& entries);

  std::string listener_;
  std::vector<std::string> mechanisms_;
  std::map<std::string, std::vector<jaas_entry>> jaas_;  // by mechanism
  std::shared_ptr<const std::map<std::string, std::string>> plain_users_;
  scram_lookup scram_;
  token_lookup tokens_;
  int32_t max_receive_size_ = 524288;
  int32_t failed_delay_ms_ = 100;
  std::map<std::string, int64_t> max_reauth_ms_;  // connections.max.reauth.ms by mechanism
  oauth_validator oauth_;                          // OAUTHBEARER's, when enabled
  std::shared_ptr<const gss_credential> gssapi_acceptor_;          // GSSAPI's, when enabled
  std::shared_ptr<const kerberos_short_namer> kerberos_names_;     // GSSAPI's principal rules
};

// A sasl_listener for each SASL listener of the configuration, by name,
// reading the JAAS file KAFKA_OPTS names if any; or the first error.
std::variant<std::map<std::string, std::shared_ptr<const sasl_listener>>, std::string> make_sasl_listeners(
    const config::broker_config& c, const sasl_listener::scram_lookup& scram,
    const sasl_listener::token_lookup& tokens = {});

// The JAAS file at path, read and parsed; or what is wrong with it.
std::variant<jaas_file, std::string> read_jaas_file(const std::string& path);

// The JAAS entries Kafka loads for a mechanism on a listener, or Kafka's
// error.
std::variant<std::vector<jaas_entry>, std::string> server_jaas_entries(const config::listener_security& keys,
                                                                        const std::string& mechanism,
                                                                        const sasl_listener::jaas_source& jaas);

}  // namespace hw::broker
