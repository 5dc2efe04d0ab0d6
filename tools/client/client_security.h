#pragma once
// Kafka's client security keys, as the tools take them from --command-config
// (--producer.config, --consumer-property ...): security.protocol,
// sasl.mechanism, sasl.jaas.config (PlainLoginModule or ScramLoginModule with
// username/password, read with the broker's JAAS grammar,
// protocol/sasl/jaas.h) or else the JAAS file named in KAFKA_OPTS (its
// KafkaClient section), and the ssl.* keys of a client (trust store, key
// store for mutual TLS, ssl.endpoint.identification.algorithm, enabled
// protocols, cipher suites). Parsing is pure but for the JAAS file (client_security_from);
// make_tls_context loads the stores (files) into an OpenSSL context.
//
// Errors are the messages Kafka's client gives for the same value (its
// ConfigException and JaasContext texts) or, for what the native tools do
// not support, a message naming the key. The parsed form holds secrets
// (passwords, the JAAS text's): never print it; no error quotes one.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "protocol/tls/tls_stores.h"
#include "tools/client/connection.h"

struct ssl_ctx_st;

namespace hw::tools {

using property_pairs = std::vector<std::pair<std::string, std::string>>;

struct client_security {
  std::string protocol = "PLAINTEXT";  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
  // SASL (SASL_PLAINTEXT and SASL_SSL only).
  std::string mechanism = "GSSAPI";  // Kafka's default; the native tools log in with PLAIN or SCRAM-SHA-256/512
  std::string username, password;    // the JAAS login module's options
  bool token_login = false;          // ScramLoginModule's tokenauth=true with SCRAM: a delegation token's login
  // TLS (SSL and SASL_SSL only).
  protocol::tls::store_settings tls;
  bool verify_host = true;  // ssl.endpoint.identification.algorithm=https (the default)

  bool uses_tls() const { return protocol == "SSL" || protocol == "SASL_SSL"; }
  bool uses_sasl() const { return protocol == "SASL_PLAINTEXT" || protocol == "SASL_SSL"; }
};

// The -Djava.security.auth.login.config value in the KAFKA_OPTS
// environment variable, which Kafka's scripts hand to the JVM (config/env.h);
// nullopt when it sets none.
std::optional<std::string> login_config_from_environment();

// The security settings of a client's properties (later entries win, as in
// a properties file); the error Kafka's client gives otherwise. Keys that
// are not security keys are left alone. A SASL login without
// sasl.jaas.config comes from the KafkaClient section of the JAAS file
// login_config names (read here), as Kafka's client takes it.
std::variant<client_security, std::string> client_security_from(
    const property_pairs& props, const std::optional<std::string>& login_config = login_config_from_environment());

// Whether an error of client_security_from is one Kafka's client fails to
// build its network client with (no KafkaClient entry, a JAAS file that is
// missing or does not parse): the exception and its causes, one a line
// ("java.lang.SecurityException: java.io.IOException: ...\nCaused by: ..."),
// which the tools print under "Failed to create new NetworkClient".
bool login_context_failure(const std::string& error);

// Whether key is one of the security keys client_security_from reads.
bool is_security_key(const std::string& key);

// An OpenSSL client context for the settings (its trust store, or the
// system's certificates when none is set; its key store for mutual TLS;
// the enabled protocols and cipher suites), or the error (Kafka's "Failed
// to load SSL keystore ..." with the reason).
std::variant<std::shared_ptr<ssl_ctx_st>, std::string> make_tls_context(const client_security& s);

// The stores as PEM text, for librdkafka (ssl.ca.pem, ssl.certificate.pem,
// ssl.key.pem): the trusted certificates, the key store's chain and its
// private key (unencrypted, in memory only); empty what is not set.
struct tls_pem {
  std::string trusted, chain, key;
};
std::variant<tls_pem, std::string> tls_pem_material(const client_security& s);

// What the admin client's connections need of the properties: null for
// PLAINTEXT, else the TLS context and the SASL login; or the error.
std::variant<std::shared_ptr<const connection_security>, std::string> connection_security_from(
    const property_pairs& props);

}  // namespace hw::tools
