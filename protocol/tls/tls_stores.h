#pragma once
// Key stores, trust stores and the protocol and cipher settings of a TLS
// context, on OpenSSL 3, from Kafka's ssl.* keys as plain values (as Kafka's
// DefaultSslEngineFactory reads them), shared by the broker (its listeners
// and its own connections, broker/security/tls_context.*) and the native
// tools (tools/client/):
//   - key store: PKCS12 file (ssl.keystore.location + ssl.keystore.password),
//     PEM file (key and chain; the key may be encrypted with ssl.key.password)
//     or inline PEM (ssl.keystore.certificate.chain + ssl.keystore.key); a
//     store typed JKS (Kafka's default type) is read when it is in fact
//     PKCS12, as Java does, and a real JKS store is refused with the keytool
//     command that converts it;
//   - trust store: PKCS12 or PEM file, or inline PEM certificates;
//   - ssl.enabled.protocols (the range of TLS versions), ssl.cipher.suites
//     (standard names).
// Every error starts with the caller's `where` (when not empty) and names the file and the
// key, never a password or a key.
//
// Reads the store files it is named; otherwise pure. The settings and the
// loaded material hold secrets: never log them.

#include <openssl/ossl_typ.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hw::protocol::tls {

struct store_settings {
  std::string keystore_type = "JKS";  // upper case: JKS (Kafka's default), PKCS12, PEM
  std::optional<std::string> keystore_location;
  std::optional<std::string> keystore_password;
  std::optional<std::string> key_password;
  std::optional<std::string> keystore_certificate_chain;  // inline PEM
  std::optional<std::string> keystore_key;                // inline PEM
  std::string truststore_type = "JKS";
  std::optional<std::string> truststore_location;
  std::optional<std::string> truststore_password;
  std::optional<std::string> truststore_certificates;  // inline PEM
  std::vector<std::string> enabled_protocols{"TLSv1.2", "TLSv1.3"};
  std::vector<std::string> cipher_suites;
};

struct free_key {
  void operator()(EVP_PKEY* k) const;
};
struct free_cert {
  void operator()(X509* c) const;
};
using key_ptr = std::unique_ptr<EVP_PKEY, free_key>;
using cert_ptr = std::unique_ptr<X509, free_cert>;

// What a key store holds: the key, its certificate and the rest of the chain.
struct key_material {
  key_ptr key;
  std::vector<cert_ptr> chain;  // leaf first
};

// OpenSSL's reason for the last failure (no secret is ever in it); the
// error queue is cleared.
std::string openssl_reason();

// The certificates of PEM text, in order (none when it holds none).
std::vector<cert_ptr> pem_certificates(const std::string& text);
// Whether a store's bytes are a JKS or JCEKS store (their magic numbers).
bool looks_like_jks(const std::string& bytes);
// Why a JKS store at path is refused and the keytool command converting it.
std::string convert_hint(const std::string& path);
// A PKCS12 store's key, certificate and chain (or, for a trust store,
// need_key false, its certificates), or why not ("keystore password was
// incorrect" for a wrong password).
std::variant<key_material, std::string> load_pkcs12(const std::string& bytes, const std::optional<std::string>& password,
                                                    bool need_key);
// PEM text holding a private key (encrypted with key_password, or not) and
// its certificate chain; the key may come in another text.
std::variant<key_material, std::string> load_pem_keys(const std::string& key_text, const std::string& chain_text,
                                                      const std::optional<std::string>& key_password);

// The key store the settings name; none when no key store is set.
std::variant<std::optional<key_material>, std::string> key_store(const store_settings& s, const std::string& where);
// The trusted certificates the settings name (none set: an empty list).
std::variant<std::vector<cert_ptr>, std::string> trust_store(const store_settings& s, const std::string& where);

// Versions, cipher suites, key store and trust store onto the context; the
// error when one of them cannot be applied.
std::optional<std::string> configure(SSL_CTX* ctx, const store_settings& s, const std::optional<key_material>& own,
                                     const std::vector<cert_ptr>& trusted, const std::string& where);

// The certificates as PEM text (what librdkafka takes as ssl.ca.pem).
std::string to_pem(const std::vector<cert_ptr>& certs);

}  // namespace hw::protocol::tls
