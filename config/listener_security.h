#pragma once
// What a listener's security keys resolve to, as Kafka resolves them
// (KafkaConfig.valuesWithPrefixOverride, JaasContext.loadServerContext): a
// `listener.name.<listener>.<key>` entry (the listener name in lower case)
// wins over the broker-wide `<key>`; a SASL mechanism's JAAS configuration
// is read only from `listener.name.<listener>.<mechanism>.sasl.jaas.config`
// (mechanism in lower case) or, when that is unset, from the JAAS file's
// `<listener>.KafkaServer` or `KafkaServer` section.
//
// Pure. The JAAS values are secrets: never log them, and no error message
// here quotes one.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/broker_config.h"

namespace hw::config {

struct listener_security {
  std::string listener;  // upper case, as in `listeners`
  std::string protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
  std::vector<std::string> sasl_enabled_mechanisms;
  // listener.name.<l>.<mechanism>.sasl.jaas.config for the enabled
  // mechanisms that set one, by mechanism as enabled (upper case).
  std::map<std::string, std::string> sasl_jaas_config;
  int32_t sasl_server_max_receive_size = 524288;
  int32_t failed_authentication_delay_ms = 100;
  // connections.max.reauth.ms by enabled mechanism (upper case), for those
  // above 0: listener.name.<l>.<mechanism>.connections.max.reauth.ms, else
  // the listener's or the broker's connections.max.reauth.ms.
  std::map<std::string, int64_t> connections_max_reauth_ms;
  // GSSAPI (listeners that enable it): sasl.kerberos.principal.to.local.rules
  // and sasl.kerberos.service.name.
  std::vector<std::string> kerberos_principal_to_local_rules{"DEFAULT"};
  std::optional<std::string> kerberos_service_name;

  // TLS (SSL and SASL_SSL listeners; the same keys for the broker's own
  // connections to such a listener). Secrets: never log them.
  struct tls_keys {
    std::string keystore_type;  // upper case: JKS (Kafka's default), PKCS12, PEM
    std::optional<std::string> keystore_location;
    std::optional<std::string> keystore_password;
    std::optional<std::string> key_password;
    std::optional<std::string> keystore_certificate_chain;  // inline PEM
    std::optional<std::string> keystore_key;                // inline PEM
    std::string truststore_type;
    std::optional<std::string> truststore_location;
    std::optional<std::string> truststore_password;
    std::optional<std::string> truststore_certificates;  // inline PEM
    std::string protocol;                                // ssl.protocol
    std::vector<std::string> enabled_protocols;
    std::vector<std::string> cipher_suites;
    std::string client_auth;              // none, requested, required
    std::string endpoint_identification;  // https or empty
    std::string principal_mapping_rules;
  } tls;

  // OAUTHBEARER (listeners that enable it): how tokens are validated and
  // how the broker gets its own. Each key is read as the mechanism's
  // (listener.name.<l>.oauthbearer.<key>), else the listener's, else the
  // broker's. The client secret is a secret: never log it.
  struct oauth_keys {
    std::optional<std::string> server_callback_handler_class;
    std::optional<std::string> login_callback_handler_class;
    std::optional<std::string> jwks_endpoint_url;
    int64_t jwks_refresh_ms = 3600000;
    int64_t jwks_retry_backoff_ms = 100;
    int64_t jwks_retry_backoff_max_ms = 10000;
    int32_t clock_skew_seconds = 30;
    std::vector<std::string> expected_audience;
    std::optional<std::string> expected_issuer;
    std::string sub_claim_name = "sub";
    std::string scope_claim_name = "scope";
    std::optional<std::string> token_endpoint_url;
    std::optional<std::string> scope;
    std::optional<std::string> client_id;
    std::optional<std::string> client_secret;
    int64_t login_retry_backoff_ms = 100;
    int64_t login_retry_backoff_max_ms = 10000;
    // What KAFKA_OPTS allows OAUTHBEARER to read (broker_config's
    // oauthbearer_allowed_urls and _files).
    std::optional<std::string> allowed_urls;
    std::optional<std::string> allowed_files;
    // The JVM trust store KAFKA_OPTS names (broker_config's jvm_truststore*).
    std::optional<std::string> jvm_truststore;
    std::optional<std::string> jvm_truststore_password;
    std::optional<std::string> jvm_truststore_type;
  } oauth;
};

// The OAUTHBEARER keys of a listener (for the broker's own login towards a
// listener that this node may not enable OAUTHBEARER on); an error names
// the key that does not parse.
std::optional<std::string> resolve_oauth_keys(const broker_config& c, std::string_view listener,
                                              listener_security::oauth_keys& o);

// The listener-prefixed text of key for listener, when set.
std::optional<std::string> listener_override(const broker_config& c, std::string_view listener, std::string_view key);

// The key a listener-prefixed key overrides, as Kafka finds its synonym:
// `listener.name.<l>.<key>` → key, and a mechanism's
// `listener.name.<l>.<mechanism>.sasl.jaas.config` → sasl.jaas.config (the
// same for the other per-mechanism SASL keys); none for other names.
std::optional<std::string_view> listener_base_key(std::string_view key);

// Whether key is one of a listener's TLS stores as Kafka reconfigures them
// at runtime (per broker): listener.name.<l>.ssl.keystore.* / key.password /
// truststore.*.
bool listener_tls_reconfigurable(std::string_view key);

// c with the reconfigurable listener TLS keys among `dynamic` (this broker's
// dynamic configs) laid over its own.
broker_config with_dynamic_listener_tls(const broker_config& c, const std::map<std::string, std::string>& dynamic);

// The resolved security keys of one listener; an error names the key (never
// a value that may be secret).
std::variant<listener_security, std::string> resolve_listener_security(const broker_config& c,
                                                                       const listener_endpoint& listener);

}  // namespace hw::config
