// tls_stores: key stores, trust stores and the context settings, from
// Kafka's ssl.* keys, on OpenSSL 3.
#include "protocol/tls/tls_stores.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hw::protocol::tls {
namespace {

struct free_bio {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct free_p12 {
  void operator()(PKCS12* p) const { PKCS12_free(p); }
};
using bio_ptr = std::unique_ptr<BIO, free_bio>;

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bio_ptr memory(const std::string& bytes) { return bio_ptr(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size()))); }

// A PEM pass phrase from the caller, never from a terminal.
int pem_password(char* buf, int size, int, void* user) {
  if (!user) return 0;
  const auto* password = static_cast<const std::string*>(user);
  const int n = static_cast<int>(std::min<size_t>(password->size(), static_cast<size_t>(size)));
  std::memcpy(buf, password->data(), static_cast<size_t>(n));
  return n;
}

int tls_version(const std::string& name) {
  if (name == "TLSv1") return TLS1_VERSION;
  if (name == "TLSv1.1") return TLS1_1_VERSION;
  if (name == "TLSv1.2") return TLS1_2_VERSION;
  if (name == "TLSv1.3") return TLS1_3_VERSION;
  return 0;
}

// "<where>: ", or nothing when the caller names no place (a client's own
// settings).
std::string prefix(const std::string& where) { return where.empty() ? std::string() : where + ": "; }

}  // namespace

void free_key::operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
void free_cert::operator()(X509* c) const { X509_free(c); }

// OpenSSL's reason for the last failure (no secret is ever in it), and the
// queue cleared.
std::string openssl_reason() {
  unsigned long e = ERR_peek_last_error();
  char text[256] = "unknown error";
  if (e) ERR_error_string_n(e, text, sizeof text);
  ERR_clear_error();
  return text;
}




std::vector<cert_ptr> pem_certificates(const std::string& text) {
  std::vector<cert_ptr> out;
  bio_ptr bio = memory(text);
  while (X509* c = PEM_read_bio_X509(bio.get(), nullptr, pem_password, nullptr)) out.emplace_back(c);
  ERR_clear_error();  // the end of the text reads as an error
  return out;
}

bool looks_like_jks(const std::string& bytes) {
  static const unsigned char jks[] = {0xFE, 0xED, 0xFE, 0xED}, jceks[] = {0xCE, 0xCE, 0xCE, 0xCE};
  return bytes.size() >= 4 && (std::memcmp(bytes.data(), jks, 4) == 0 || std::memcmp(bytes.data(), jceks, 4) == 0);
}

std::string convert_hint(const std::string& path) {
  return "it is a JKS store, which Highwater does not read; convert it to PKCS12 with `keytool -importkeystore "
         "-srckeystore " + path + " -destkeystore " + path + ".p12 -deststoretype PKCS12`, then set the type to PKCS12";
}

// A PKCS12 store's key, certificate and chain (or, for a trust store, its
// certificates), or why not.
std::variant<key_material, std::string> load_pkcs12(const std::string& bytes, const std::optional<std::string>& password,
                                                    bool need_key) {
  bio_ptr bio = memory(bytes);
  std::unique_ptr<PKCS12, free_p12> p12(d2i_PKCS12_bio(bio.get(), nullptr));
  if (!p12) {
    ERR_clear_error();
    return std::string("it is not a PKCS12 store");
  }
  const char* pass = password ? password->c_str() : nullptr;
  if (PKCS12_mac_present(p12.get()) && !PKCS12_verify_mac(p12.get(), pass, -1) &&
      !(pass == nullptr && PKCS12_verify_mac(p12.get(), "", 0))) {
    ERR_clear_error();
    return std::string("keystore password was incorrect");
  }
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* ca = nullptr;
  if (!PKCS12_parse(p12.get(), pass, &key, &cert, &ca)) return "cannot read it: " + openssl_reason();
  key_material m;
  m.key.reset(key);
  if (cert) m.chain.emplace_back(cert);
  if (ca) {
    for (int i = 0; i < sk_X509_num(ca); ++i) m.chain.emplace_back(X509_dup(sk_X509_value(ca, i)));
    sk_X509_pop_free(ca, X509_free);
  }
  if (need_key && (!m.key || m.chain.empty())) return std::string("it holds no private key with its certificate");
  return m;
}

// PEM text holding a private key (encrypted with key_password, or not) and
// its certificate chain; the key may come in another text.
std::variant<key_material, std::string> load_pem_keys(const std::string& key_text, const std::string& chain_text,
                                                      const std::optional<std::string>& key_password) {
  key_material m;
  bio_ptr bio = memory(key_text);
  const std::string* pass = key_password ? &*key_password : nullptr;
  m.key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, pem_password, const_cast<std::string*>(pass)));
  if (!m.key) {
    ERR_clear_error();
    return std::string(key_password ? "cannot read its private key (is ssl.key.password right?)"
                                    : "cannot read its private key (an encrypted key needs ssl.key.password)");
  }
  m.chain = pem_certificates(chain_text);
  if (m.chain.empty()) return std::string("it holds no certificate");
  return m;
}


// The key store the keys name, if any: none when no key store is set.
std::variant<std::optional<key_material>, std::string> key_store(const store_settings& t, const std::string& where) {
  if (t.keystore_certificate_chain || t.keystore_key) {
    if (!t.keystore_certificate_chain || !t.keystore_key)
      return prefix(where) + "ssl.keystore.certificate.chain and ssl.keystore.key must be set together";
    if (t.keystore_type != "PEM") return prefix(where) + "an inline key store needs ssl.keystore.type=PEM";
    auto m = load_pem_keys(*t.keystore_key, *t.keystore_certificate_chain, t.key_password);
    if (auto* e = std::get_if<std::string>(&m)) return prefix(where) + "Invalid PEM keystore configs (ssl.keystore.key): " + *e;
    return std::optional<key_material>(std::get<key_material>(std::move(m)));
  }
  if (!t.keystore_location) return std::optional<key_material>();
  const std::string& path = *t.keystore_location;
  const std::string failed = prefix(where) + "Failed to load SSL keystore " + path + " of type " + t.keystore_type + ": ";
  auto bytes = read_file(path);
  if (!bytes) return failed + "cannot read the file";
  std::variant<key_material, std::string> m;
  if (t.keystore_type == "PEM") {
    m = load_pem_keys(*bytes, *bytes, t.key_password);
  } else if (t.keystore_type == "PKCS12" || t.keystore_type == "JKS") {
    if (looks_like_jks(*bytes)) return failed + convert_hint(path);
    // Java reads a PKCS12 file typed JKS too (keystore.type.compat).
    m = load_pkcs12(*bytes, t.keystore_password, true);
  } else {
    return failed + "the type must be PKCS12 or PEM";
  }
  if (auto* e = std::get_if<std::string>(&m)) return failed + *e;
  return std::optional<key_material>(std::get<key_material>(std::move(m)));
}

// The trusted certificates the keys name (none set: an empty list).
std::variant<std::vector<cert_ptr>, std::string> trust_store(const store_settings& t, const std::string& where) {
  if (t.truststore_certificates) {
    if (t.truststore_type != "PEM") return prefix(where) + "inline trusted certificates need ssl.truststore.type=PEM";
    auto certs = pem_certificates(*t.truststore_certificates);
    if (certs.empty()) return prefix(where) + "ssl.truststore.certificates holds no certificate";
    return certs;
  }
  if (!t.truststore_location) return std::vector<cert_ptr>();
  const std::string& path = *t.truststore_location;
  const std::string failed = prefix(where) + "Failed to load SSL truststore " + path + " of type " + t.truststore_type + ": ";
  auto bytes = read_file(path);
  if (!bytes) return failed + "cannot read the file";
  if (t.truststore_type == "PEM") {
    auto certs = pem_certificates(*bytes);
    if (certs.empty()) return failed + "it holds no certificate";
    return certs;
  }
  if (t.truststore_type != "PKCS12" && t.truststore_type != "JKS") return failed + "the type must be PKCS12 or PEM";
  if (looks_like_jks(*bytes)) return failed + convert_hint(path);
  auto m = load_pkcs12(*bytes, t.truststore_password, false);
  if (auto* e = std::get_if<std::string>(&m)) return failed + *e;
  auto certs = std::move(std::get<key_material>(m).chain);
  if (certs.empty()) return failed + "it holds no certificate";
  return certs;
}


// Versions, cipher suites, key store and trust store onto the context.
std::optional<std::string> configure(SSL_CTX* ctx, const store_settings& s, const std::optional<key_material>& own,
                                     const std::vector<cert_ptr>& trusted, const std::string& where) {
  int lowest = 0, highest = 0;
  for (const std::string& p : s.enabled_protocols) {
    const int v = tls_version(p);
    if (!v) continue;  // Java leaves out what it does not offer, too
    lowest = lowest ? std::min(lowest, v) : v;
    highest = std::max(highest, v);
  }
  if (!lowest) return prefix(where) + "ssl.enabled.protocols names no TLS version Highwater offers (TLSv1.2, TLSv1.3)";
  SSL_CTX_set_min_proto_version(ctx, lowest);
  SSL_CTX_set_max_proto_version(ctx, highest);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);

  if (!s.cipher_suites.empty()) {
    std::string tls13, tls12;
    for (const std::string& suite : s.cipher_suites) {
      if (suite.starts_with("TLS_AES_") || suite.starts_with("TLS_CHACHA20_")) {
        tls13 += (tls13.empty() ? "" : ":") + suite;
      } else if (const char* name = OPENSSL_cipher_name(suite.c_str()); name && std::strcmp(name, "(NONE)") != 0) {
        tls12 += (tls12.empty() ? "" : ":") + std::string(name);
      } else {
        return prefix(where) + "ssl.cipher.suites names an unknown cipher suite " + suite;
      }
    }
    // Only the suites named: the other version's list is emptied.
    if (SSL_CTX_set_ciphersuites(ctx, tls13.c_str()) != 1 ||
        (!tls12.empty() && SSL_CTX_set_cipher_list(ctx, tls12.c_str()) != 1)) {
      ERR_clear_error();
      return prefix(where) + "ssl.cipher.suites leaves no cipher suite Highwater offers";
    }
    if (tls12.empty()) SSL_CTX_set_cipher_list(ctx, "");
    ERR_clear_error();
  }

  if (own) {
    if (SSL_CTX_use_certificate(ctx, own->chain.front().get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx, own->key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
      ERR_clear_error();
      return prefix(where) + "the key store's private key does not belong to its certificate";
    }
    for (size_t i = 1; i < own->chain.size(); ++i) SSL_CTX_add1_chain_cert(ctx, own->chain[i].get());
  }
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (const cert_ptr& c : trusted) {
    X509_STORE_add_cert(store, c.get());
  }
  ERR_clear_error();
  return std::nullopt;
}

std::string to_pem(const std::vector<cert_ptr>& certs) {
  bio_ptr bio(BIO_new(BIO_s_mem()));
  for (const cert_ptr& c : certs) PEM_write_bio_X509(bio.get(), c.get());
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

}  // namespace hw::protocol::tls
