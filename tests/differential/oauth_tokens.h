#pragma once
// Bearer tokens for the OAUTHBEARER differential tests (oauthbearer_test.cc):
// unsecured JWS (alg none) as the listener with the unsecured validator
// takes them, and JWS signed with OpenSSL (RS256: PKCS#1 v1.5 with SHA-256;
// ES256: P-256 with SHA-256, the signature as the raw r||s pair a JWS
// carries) for the listener that checks signatures against a JWKS file. The
// environment makes the keys once and writes that file (twin_environment.cc);
// the tests load the same keys from it. Headers and claims are JSON text the
// tests write themselves, so that they can be wrong in every way.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct evp_pkey_st;

namespace hw::testing::differential {

// RFC 4648 §5 without padding, as JWS uses it.
std::string base64url(std::string_view bytes);

// header_json and payload_json as a compact JWS with an empty signature
// ("<header>.<payload>.").
std::string unsecured_jws(const std::string& header_json, const std::string& payload_json);

// A token's claims, in the order set: each name with its JSON value as
// written ("\"text\"", "123", "[\"a\",\"b\"]").
class claims {
 public:
  claims& set(const std::string& name, const std::string& json_value);
  claims& text(const std::string& name, const std::string& value) { return set(name, "\"" + value + "\""); }
  claims& number(const std::string& name, long long value) { return set(name, std::to_string(value)); }
  claims& drop(const std::string& name);
  std::string json() const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Seconds since the epoch, now.
long long now_seconds();

// An RS256 or ES256 key pair with its key id.
class signing_key {
 public:
  enum class kind { rs256, es256 };
  ~signing_key();
  signing_key(const signing_key&) = delete;
  signing_key& operator=(const signing_key&) = delete;

  // A fresh key (RSA 2048 or P-256); null if OpenSSL failed.
  static std::unique_ptr<signing_key> generate(kind k, std::string kid);
  // A private key written by save(); null if it cannot be read.
  static std::unique_ptr<signing_key> load(const std::string& pem_file, kind k, std::string kid);
  bool save(const std::string& pem_file) const;

  kind type() const { return kind_; }
  const std::string& kid() const { return kid_; }
  const char* alg() const { return kind_ == kind::rs256 ? "RS256" : "ES256"; }
  // The public key as a JWK (kty, kid, alg, use and the key's numbers).
  std::string public_jwk() const;
  // {"alg":"<alg>","kid":"<kid>","typ":"JWT"}
  std::string header() const;

  // The raw signature of text: PKCS#1 v1.5 for RS256; for ES256 the JWS
  // form r||s (32 bytes each) or, when der, OpenSSL's DER ECDSA-Sig-Value
  // (what a JWS must not carry).
  std::string signature(std::string_view text, bool der = false) const;
  // header_json.payload_json signed: the compact JWS.
  std::string sign(const std::string& header_json, const std::string& payload_json, bool der = false) const;
  // The public key as PEM text (SubjectPublicKeyInfo).
  std::string public_pem() const;

 private:
  signing_key(kind k, std::string kid, evp_pkey_st* key) : kind_(k), kid_(std::move(kid)), key_(key) {}
  kind kind_;
  std::string kid_;
  evp_pkey_st* key_;
};

// header_json.payload_json with an HMAC-SHA256 signature keyed by secret:
// how a forger would try to pass off a public key as an HS256 secret.
std::string hs256_jws(const std::string& header_json, const std::string& payload_json, const std::string& secret);

// The keys of the OIDC listener, in dir: rs256.key.pem (kid "rs-key"),
// es256.key.pem (kid "es-key") and jwks.json holding both public keys.
// write_oauth_keys makes them (false if OpenSSL or the disk failed).
inline constexpr const char* k_rs_kid = "rs-key";
inline constexpr const char* k_es_kid = "es-key";
bool write_oauth_keys(const std::string& dir);
std::string jwks_file(const std::string& dir);
std::unique_ptr<signing_key> load_oauth_key(const std::string& dir, signing_key::kind k);

}  // namespace hw::testing::differential
