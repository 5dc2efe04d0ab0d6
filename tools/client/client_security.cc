// client_security: a client's security.protocol, sasl.* and ssl.* keys, and
// the JAAS file KAFKA_OPTS names for a login without sasl.jaas.config.
#include "tools/client/client_security.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "config/env.h"
#include "protocol/sasl/jaas.h"

namespace hw::tools {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A comma-separated list as Kafka's ConfigDef.Type.LIST reads it.
std::vector<std::string> list_value(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    std::string item = trimmed(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

constexpr const char* plain_module = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr const char* scram_module = "org.apache.kafka.common.security.scram.ScramLoginModule";

const char* const security_keys[] = {
    "security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.location", "ssl.truststore.password",
    "ssl.truststore.type", "ssl.truststore.certificates", "ssl.keystore.location", "ssl.keystore.password",
    "ssl.keystore.type", "ssl.key.password", "ssl.keystore.certificate.chain", "ssl.keystore.key",
    "ssl.endpoint.identification.algorithm", "ssl.enabled.protocols", "ssl.cipher.suites", "ssl.protocol"};

// The username and password of the login module (PlainLoginModule or
// ScramLoginModule: Kafka's client takes them from either); the error otherwise.
std::optional<std::string> login_of(const protocol::jaas_entry& entry, client_security* out) {
  if (entry.login_module != plain_module && entry.login_module != scram_module)
    return "sasl.jaas.config: the login module " + entry.login_module +
           " is not supported by the native tools (PlainLoginModule or ScramLoginModule)";
  auto user = entry.options.find("username");
  auto pass = entry.options.find("password");
  if (user == entry.options.end() || pass == entry.options.end())
    return "sasl.jaas.config: the login module needs the options username and password";
  out->username = user->second;
  out->password = pass->second;
  // ScramLoginModule's tokenauth=true (any case) adds the SCRAM extension
  // that makes the login a delegation token's.
  auto token = entry.options.find("tokenauth");
  out->token_login =
      entry.login_module == scram_module && token != entry.options.end() && upper(token->second) == "TRUE";
  return std::nullopt;
}

std::optional<std::string> login_from_property(const std::string& jaas, client_security* out) {
  protocol::jaas_parse_result parsed = protocol::parse_jaas_config(jaas);
  if (!parsed.ok()) return parsed.error;
  if (parsed.entries.empty()) return "JAAS config property does not contain any login modules";
  if (parsed.entries.size() != 1)
    return "JAAS config property contains " + std::to_string(parsed.entries.size()) +
           " login modules, should be 1 module";
  return login_of(parsed.entries.front(), out);
}

// Without sasl.jaas.config Kafka's client logs in with the KafkaClient
// section of the JVM's JAAS file; its errors are the exceptions under
// "Failed to create new NetworkClient" (login_context_failure).
std::optional<std::string> login_from_file(const std::optional<std::string>& login_config, client_security* out) {
  if (login_config) {
    protocol::jaas_file file = protocol::read_jaas_file(*login_config);
    if (!file.ok())
      return "java.lang.SecurityException: java.io.IOException: " + file.error +
             "\nCaused by: java.io.IOException: " + file.error;
    auto section = file.sections.find("KafkaClient");
    if (section != file.sections.end() && !section->second.empty()) return login_of(section->second.front(), out);
  }
  return "java.lang.IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS configuration. "
         "System property 'java.security.auth.login.config' is " +
         login_config.value_or("not set");
}

}  // namespace

std::optional<std::string> login_config_from_environment() {
  const char* opts = std::getenv("KAFKA_OPTS");
  return opts ? config::jaas_login_config(opts) : std::nullopt;
}

bool login_context_failure(const std::string& error) {
  return error.starts_with("java.lang.IllegalArgumentException: Could not find a 'KafkaClient' entry") ||
         error.starts_with("java.lang.SecurityException: java.io.IOException: ");
}

bool is_security_key(const std::string& key) {
  return std::any_of(std::begin(security_keys), std::end(security_keys), [&](const char* k) { return key == k; });
}

std::variant<client_security, std::string> client_security_from(const property_pairs& props,
                                                                const std::optional<std::string>& login_config) {
  std::map<std::string, std::string> v;
  for (const auto& [key, value] : props)
    if (is_security_key(key)) v[key] = value;
  auto get = [&](const char* key) -> std::optional<std::string> {
    auto it = v.find(key);
    if (it == v.end()) return std::nullopt;
    return it->second;
  };
  // Java's ConfigDef trims the values of STRING, LIST and PASSWORD keys.
  for (auto& [key, value] : v) value = trimmed(value);

  client_security out;
  if (auto p = get("security.protocol")) {
    const std::string name = upper(*p);
    if (name != "PLAINTEXT" && name != "SSL" && name != "SASL_PLAINTEXT" && name != "SASL_SSL")
      return "Invalid value " + *p +
             " for configuration security.protocol: String must be one of (case insensitive): SASL_SSL, PLAINTEXT, "
             "SSL, SASL_PLAINTEXT";
    out.protocol = name;
  }
  if (auto m = get("sasl.mechanism")) out.mechanism = *m;

  if (out.uses_sasl()) {
    if (out.mechanism != "PLAIN" && out.mechanism != "SCRAM-SHA-256" && out.mechanism != "SCRAM-SHA-512")
      return "sasl.mechanism=" + out.mechanism +
             " is not supported by the native tools (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)";
    // sasl.jaas.config wins over the JAAS file, as in Kafka.
    auto jaas = get("sasl.jaas.config");
    auto login = jaas ? login_from_property(*jaas, &out) : login_from_file(login_config, &out);
    if (login) return *login;
    if (out.mechanism == "PLAIN") out.token_login = false;  // an extension of SCRAM's only
  }

  auto& t = out.tls;
  if (auto x = get("ssl.keystore.type")) t.keystore_type = upper(*x);
  if (auto x = get("ssl.truststore.type")) t.truststore_type = upper(*x);
  // Kafka takes an empty location as unset.
  auto set = [&](const char* key, std::optional<std::string>* field) {
    if (auto x = get(key); x && !x->empty()) *field = *x;
  };
  set("ssl.keystore.location", &t.keystore_location);
  set("ssl.keystore.password", &t.keystore_password);
  set("ssl.key.password", &t.key_password);
  set("ssl.keystore.certificate.chain", &t.keystore_certificate_chain);
  set("ssl.keystore.key", &t.keystore_key);
  set("ssl.truststore.location", &t.truststore_location);
  set("ssl.truststore.password", &t.truststore_password);
  set("ssl.truststore.certificates", &t.truststore_certificates);
  if (auto x = get("ssl.enabled.protocols")) t.enabled_protocols = list_value(*x);
  if (auto x = get("ssl.cipher.suites")) t.cipher_suites = list_value(*x);
  if (auto x = get("ssl.endpoint.identification.algorithm")) {
    if (x->empty()) {
      out.verify_host = false;
    } else if (upper(*x) != "HTTPS") {
      return "ssl.endpoint.identification.algorithm=" + *x + " is not supported by the native tools (https or empty)";
    }
  }
  if (out.uses_tls()) {
    for (const auto& [type, key] : {std::pair{t.keystore_type, "ssl.keystore.type"},
                                    std::pair{t.truststore_type, "ssl.truststore.type"}})
      if (type != "JKS" && type != "PKCS12" && type != "PEM")
        return std::string(key) + "=" + type + " is not supported by the native tools (PKCS12, PEM, or JKS for a PKCS12 file)";
  }
  return out;
}

std::variant<std::shared_ptr<ssl_ctx_st>, std::string> make_tls_context(const client_security& s) {
  auto own = protocol::tls::key_store(s.tls, "");
  if (auto* e = std::get_if<std::string>(&own)) return *e;
  auto trusted = protocol::tls::trust_store(s.tls, "");
  if (auto* e = std::get_if<std::string>(&trusted)) return *e;
  std::shared_ptr<ssl_ctx_st> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) return "cannot make a TLS context: " + protocol::tls::openssl_reason();
  const auto& certs = std::get<std::vector<protocol::tls::cert_ptr>>(trusted);
  if (auto e = protocol::tls::configure(ctx.get(), s.tls, std::get<std::optional<protocol::tls::key_material>>(own),
                                        certs, ""))
    return *e;
  if (certs.empty()) SSL_CTX_set_default_verify_paths(ctx.get());  // the system's CAs, as Java uses its own
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  ERR_clear_error();
  return ctx;
}

std::variant<tls_pem, std::string> tls_pem_material(const client_security& s) {
  auto own = protocol::tls::key_store(s.tls, "");
  if (auto* e = std::get_if<std::string>(&own)) return *e;
  auto trusted = protocol::tls::trust_store(s.tls, "");
  if (auto* e = std::get_if<std::string>(&trusted)) return *e;
  tls_pem out;
  out.trusted = protocol::tls::to_pem(std::get<std::vector<protocol::tls::cert_ptr>>(trusted));
  if (const auto& material = std::get<std::optional<protocol::tls::key_material>>(own)) {
    out.chain = protocol::tls::to_pem(material->chain);
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    if (PEM_write_bio_PrivateKey(bio.get(), material->key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
      return "cannot hand the key store's private key on: " + protocol::tls::openssl_reason();
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    out.key.assign(data, static_cast<size_t>(n));
    OPENSSL_cleanse(data, static_cast<size_t>(n));
  }
  return out;
}

std::variant<std::shared_ptr<const connection_security>, std::string> connection_security_from(
    const property_pairs& props) {
  auto parsed = client_security_from(props);
  if (auto* e = std::get_if<std::string>(&parsed)) return *e;
  const client_security& s = std::get<client_security>(parsed);
  if (s.protocol == "PLAINTEXT") return std::shared_ptr<const connection_security>();
  auto out = std::make_shared<connection_security>();
  if (s.uses_tls()) {
    auto ctx = make_tls_context(s);
    if (auto* e = std::get_if<std::string>(&ctx)) return *e;
    out->tls = std::get<std::shared_ptr<ssl_ctx_st>>(std::move(ctx));
    out->verify_host = s.verify_host;
  }
  if (s.uses_sasl()) {
    out->sasl_mechanism = s.mechanism;
    out->username = s.username;
    out->password = s.password;
    out->token_auth = s.token_login;
  }
  return std::shared_ptr<const connection_security>(std::move(out));
}

}  // namespace hw::tools
