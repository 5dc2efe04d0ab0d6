#include "broker/security/tls_context.h"

#include <arpa/inet.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio/ssl.hpp>
#include <cstdint>
#include <set>
#include <vector>

#include "config/value_parse.h"
#include "protocol/tls/tls_stores.h"

namespace hw::broker {
namespace {

namespace ssl = boost::asio::ssl;

using protocol::tls::cert_ptr;
using protocol::tls::key_material;

struct free_bio {
  void operator()(BIO* b) const { BIO_free(b); }
};
using bio_ptr = std::unique_ptr<BIO, free_bio>;

// Kafka's server answers a client certificate it cannot verify (expired,
// of an authority it does not trust, ...) with the alert
// certificate_unknown whatever the reason, so its clients learn no more
// than that. OpenSSL derives the alert from the verification error; this
// callback keeps the real error on the connection for the log and leaves
// one that OpenSSL maps to no specific alert (OpenSSL itself no longer
// raises it), which makes the alert certificate_unknown. The differential
// tests check the alerts against Kafka's.
int verify_failure_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

int verify_client_as_kafka(int ok, X509_STORE_CTX* store) {
  if (ok) return 1;
  auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  if (ssl && SSL_get_ex_data(ssl, verify_failure_index()) == nullptr)
    SSL_set_ex_data(ssl, verify_failure_index(),
                    reinterpret_cast<void*>(static_cast<intptr_t>(X509_STORE_CTX_get_error(store))));
  X509_STORE_CTX_set_error(store, X509_V_ERR_AKID_ISSUER_SERIAL_MISMATCH);
  return 0;
}

std::string listener_text(const config::listener_security& keys) {
  return "Listener " + keys.listener + " (" + keys.protocol + ")";
}

// The listener's ssl.* keys as the store loader takes them.
protocol::tls::store_settings store_settings(const config::listener_security& keys) {
  const auto& t = keys.tls;
  protocol::tls::store_settings s;
  s.keystore_type = t.keystore_type;
  s.keystore_location = t.keystore_location;
  s.keystore_password = t.keystore_password;
  s.key_password = t.key_password;
  s.keystore_certificate_chain = t.keystore_certificate_chain;
  s.keystore_key = t.keystore_key;
  s.truststore_type = t.truststore_type;
  s.truststore_location = t.truststore_location;
  s.truststore_password = t.truststore_password;
  s.truststore_certificates = t.truststore_certificates;
  s.enabled_protocols = t.enabled_protocols;
  s.cipher_suites = t.cipher_suites;
  return s;
}

std::variant<std::optional<key_material>, std::string> key_store(const config::listener_security& keys) {
  return protocol::tls::key_store(store_settings(keys), listener_text(keys));
}

std::variant<std::vector<cert_ptr>, std::string> trust_store(const config::listener_security& keys) {
  return protocol::tls::trust_store(store_settings(keys), listener_text(keys));
}

std::optional<std::string> configure(SSL_CTX* ctx, const config::listener_security& keys,
                                     const std::optional<key_material>& own, const std::vector<cert_ptr>& trusted) {
  return protocol::tls::configure(ctx, store_settings(keys), own, trusted, listener_text(keys));
}

}  // namespace

std::variant<std::shared_ptr<const tls_server_context>, std::string> make_tls_server_context(
    const config::listener_security& keys) {
  const std::string where = listener_text(keys);
  auto own = key_store(keys);
  if (auto* e = std::get_if<std::string>(&own)) return *e;
  auto& material = std::get<std::optional<key_material>>(own);
  if (!material)
    return where + ": no key store: set ssl.keystore.location (PKCS12 or PEM), or ssl.keystore.certificate.chain "
                   "and ssl.keystore.key with ssl.keystore.type=PEM";
  auto trusted = trust_store(keys);
  if (auto* e = std::get_if<std::string>(&trusted)) return *e;
  auto& certs = std::get<std::vector<cert_ptr>>(trusted);

  auto out = std::make_shared<tls_server_context>();
  out->context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* ctx = out->context->native_handle();
  if (auto e = configure(ctx, keys, material, certs)) return *e;
  std::string error;
  auto mapping = principal_mapping::parse(keys.tls.principal_mapping_rules, &error);
  if (!mapping) return where + ": ssl.principal.mapping.rules: " + error;
  out->mapping = std::move(*mapping);
  const std::string& auth = keys.tls.client_auth;
  if (auth == "required" || auth == "requested") {
    if (certs.empty()) return where + ": ssl.client.auth=" + auth + " needs a trust store to check certificates against";
    out->wants_client_certificate = true;
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | (auth == "required" ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
                       verify_client_as_kafka);
    for (const cert_ptr& c : certs) SSL_CTX_add_client_CA(ctx, c.get());
    // Sessions resumed with a client certificate need an id context.
    static const unsigned char id[] = "highwater";
    SSL_CTX_set_session_id_context(ctx, id, sizeof id - 1);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  ERR_clear_error();
  return std::shared_ptr<const tls_server_context>(std::move(out));
}

std::variant<std::map<std::string, std::shared_ptr<const tls_server_context>>, std::string> make_tls_listeners(
    const config::broker_config& c) {
  std::map<std::string, std::shared_ptr<const tls_server_context>> out;
  for (const config::listener_endpoint& ep : c.listeners) {
    if (ep.security_protocol != "SSL" && ep.security_protocol != "SASL_SSL") continue;
    auto keys = config::resolve_listener_security(c, ep);
    if (auto* error = std::get_if<std::string>(&keys)) return *error;
    auto made = make_tls_server_context(std::get<config::listener_security>(keys));
    if (auto* error = std::get_if<std::string>(&made)) return *error;
    out.emplace(ep.name, std::get<std::shared_ptr<const tls_server_context>>(std::move(made)));
  }
  return out;
}

std::variant<std::shared_ptr<const tls_client_context>, std::string> make_tls_client_context(
    const config::listener_security& keys) {
  auto own = key_store(keys);
  if (auto* e = std::get_if<std::string>(&own)) return *e;
  auto trusted = trust_store(keys);
  if (auto* e = std::get_if<std::string>(&trusted)) return *e;
  auto out = std::make_shared<tls_client_context>();
  out->context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* ctx = out->context->native_handle();
  const auto& certs = std::get<std::vector<cert_ptr>>(trusted);
  if (auto e = configure(ctx, keys, std::get<std::optional<key_material>>(own), certs)) return *e;
  if (certs.empty()) SSL_CTX_set_default_verify_paths(ctx);  // the system's CAs, as Java uses its own
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  out->verify_host = config::lower(keys.tls.endpoint_identification) == "https";
  ERR_clear_error();
  return std::shared_ptr<const tls_client_context>(std::move(out));
}

std::variant<std::shared_ptr<const tls_client_context>, std::string> own_tls_context(const config::broker_config& c,
                                                                                    const std::string& listener) {
  std::string protocol;
  for (const auto& [name, proto] : c.listener_security_protocols)
    if (name == listener) protocol = proto;
  if (protocol != "SSL" && protocol != "SASL_SSL") return std::shared_ptr<const tls_client_context>();
  auto keys = config::resolve_listener_security(c, config::listener_endpoint{listener, protocol, "", 0});
  if (auto* error = std::get_if<std::string>(&keys)) return *error;
  return make_tls_client_context(std::get<config::listener_security>(keys));
}

void keep_tls_buffers(ssl_st* ssl) { SSL_clear_mode(ssl, SSL_MODE_RELEASE_BUFFERS); }

std::optional<std::string> tls_peer_subject(ssl_st* ssl) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (!peer) return std::nullopt;
  cert_ptr owned(peer);
  bio_ptr bio(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(bio.get(), X509_get_subject_name(peer), 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::optional<std::string> tls_client_verify_failure(ssl_st* ssl) {
  const auto error = reinterpret_cast<intptr_t>(SSL_get_ex_data(ssl, verify_failure_index()));
  if (error == 0) return std::nullopt;
  return X509_verify_cert_error_string(static_cast<long>(error));
}

namespace {

X509* leaf_of(const tls_server_context& c) { return SSL_CTX_get0_certificate(c.context->native_handle()); }

// A subject as Java's X500Principal prints it: "CN=localhost, OU=test, O=Highwater".
std::string java_dn(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                     (XN_FLAG_RFC2253 & ~XN_FLAG_SEP_MASK & ~ASN1_STRFLGS_ESC_MSB) | XN_FLAG_SEP_CPLUS_SPC);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

// The key store entry's name: its PKCS12 friendly name; Kafka calls a PEM
// store's only entry "kafka".
std::string alias_of(X509* cert) {
  int len = 0;
  const unsigned char* a = X509_alias_get0(cert, &len);
  return a ? std::string(reinterpret_cast<const char*>(a), static_cast<size_t>(len)) : std::string("kafka");
}

// Subject alternative names as Java lists them: "[2, localhost]" (DNS), "[7, 127.0.0.1]" (IP).
std::set<std::string> alt_names(X509* cert) {
  std::set<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (!names) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS || n->type == GEN_EMAIL || n->type == GEN_URI) {
      const ASN1_STRING* s = n->d.ia5;
      out.insert("[" + std::to_string(n->type) + ", " +
                 std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                             static_cast<size_t>(ASN1_STRING_length(s))) + "]");
    } else if (n->type == GEN_IPADD) {
      const int len = ASN1_STRING_length(n->d.ip);
      char text[INET6_ADDRSTRLEN] = "";
      if (len == 4 || len == 16)
        inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(n->d.ip), text, sizeof text);
      out.insert("[7, " + std::string(text) + "]");
    } else {
      out.insert("[" + std::to_string(n->type) + ", ?]");
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

std::string listed(const std::set<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", " : "") + n;
  return out + "]";
}

}  // namespace

std::optional<std::string> tls_keystore_change_refusal(const tls_server_context& serving,
                                                       const tls_server_context& next, bool allow_dn_changes,
                                                       bool allow_san_changes) {
  X509* old_cert = leaf_of(serving);
  X509* new_cert = leaf_of(next);
  if (!old_cert || !new_cert) return std::nullopt;
  const std::string prefix = "org.apache.kafka.common.config.ConfigException: ";
  if (!allow_dn_changes && X509_NAME_cmp(X509_get_subject_name(old_cert), X509_get_subject_name(new_cert)) != 0)
    return prefix + "Keystore DistinguishedName does not match:  existing={alias=" + alias_of(old_cert) +
           ", DN=" + java_dn(old_cert) + "}, new={alias=" + alias_of(new_cert) + ", DN=" + java_dn(new_cert) + "}";
  if (!allow_san_changes) {
    const auto old_names = alt_names(old_cert), new_names = alt_names(new_cert);
    if (!std::includes(new_names.begin(), new_names.end(), old_names.begin(), old_names.end()))
      return prefix + "Keystore SubjectAltNames do not match:  existing={alias=" + alias_of(old_cert) +
             ", SAN=" + listed(old_names) + "}, new={alias=" + alias_of(new_cert) + ", SAN=" + listed(new_names) + "}";
  }
  return std::nullopt;
}

}  // namespace hw::broker
