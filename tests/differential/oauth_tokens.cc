#include "oauth_tokens.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <span>

#include "protocol/sasl/scram.h"

namespace hw::testing::differential {

std::string base64url(std::string_view bytes) {
  std::string s =
      protocol::scram::base64(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return s;
}

std::string unsecured_jws(const std::string& header_json, const std::string& payload_json) {
  return base64url(header_json) + "." + base64url(payload_json) + ".";
}

claims& claims::set(const std::string& name, const std::string& json_value) {
  for (auto& [n, v] : entries_)
    if (n == name) {
      v = json_value;
      return *this;
    }
  entries_.emplace_back(name, json_value);
  return *this;
}

claims& claims::drop(const std::string& name) {
  std::erase_if(entries_, [&](const auto& e) { return e.first == name; });
  return *this;
}

std::string claims::json() const {
  std::string out = "{";
  for (const auto& [n, v] : entries_) out += (out.size() > 1 ? "," : "") + ("\"" + n + "\":" + v);
  return out + "}";
}

long long now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

std::string bytes_of_bn(const BIGNUM* bn, int pad) {
  std::string out(pad > 0 ? static_cast<size_t>(pad) : static_cast<size_t>(BN_num_bytes(bn)), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  if (pad > 0)
    BN_bn2binpad(bn, p, pad);
  else
    BN_bn2bin(bn, p);
  return out;
}

// The key's numeric parameter name as unpadded big-endian base64url.
std::string param(EVP_PKEY* key, const char* name, int pad = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return {};
  std::string out = base64url(bytes_of_bn(bn, pad));
  BN_free(bn);
  return out;
}

}  // namespace

signing_key::~signing_key() { EVP_PKEY_free(key_); }

std::unique_ptr<signing_key> signing_key::generate(kind k, std::string kid) {
  EVP_PKEY* key = k == kind::rs256 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
  if (!key) return nullptr;
  return std::unique_ptr<signing_key>(new signing_key(k, std::move(kid), key));
}

std::unique_ptr<signing_key> signing_key::load(const std::string& pem_file, kind k, std::string kid) {
  FILE* f = std::fopen(pem_file.c_str(), "r");
  if (!f) return nullptr;
  EVP_PKEY* key = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!key) return nullptr;
  return std::unique_ptr<signing_key>(new signing_key(k, std::move(kid), key));
}

bool signing_key::save(const std::string& pem_file) const {
  FILE* f = std::fopen(pem_file.c_str(), "w");
  if (!f) return false;
  const bool ok = PEM_write_PrivateKey(f, key_, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  return std::fclose(f) == 0 && ok;
}

std::string signing_key::public_jwk() const {
  std::string common = "\"kid\":\"" + kid_ + "\",\"alg\":\"" + alg() + "\",\"use\":\"sig\"";
  if (kind_ == kind::rs256)
    return "{\"kty\":\"RSA\"," + common + ",\"n\":\"" + param(key_, OSSL_PKEY_PARAM_RSA_N) + "\",\"e\":\"" +
           param(key_, OSSL_PKEY_PARAM_RSA_E) + "\"}";
  return "{\"kty\":\"EC\"," + common + ",\"crv\":\"P-256\",\"x\":\"" + param(key_, OSSL_PKEY_PARAM_EC_PUB_X, 32) +
         "\",\"y\":\"" + param(key_, OSSL_PKEY_PARAM_EC_PUB_Y, 32) + "\"}";
}

std::string signing_key::header() const {
  return std::string("{\"alg\":\"") + alg() + "\",\"kid\":\"" + kid_ + "\",\"typ\":\"JWT\"}";
}

std::string signing_key::signature(std::string_view text, bool der) const {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  std::string sig;
  size_t len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  if (ctx && EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key_) == 1 &&
      EVP_DigestSign(ctx, nullptr, &len, data, text.size()) == 1) {
    sig.resize(len);
    if (EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len, data, text.size()) == 1)
      sig.resize(len);
    else
      sig.clear();
  }
  EVP_MD_CTX_free(ctx);
  if (kind_ == kind::rs256 || der || sig.empty()) return sig;
  // DER ECDSA-Sig-Value → r||s, each left-padded to the curve's 32 bytes.
  const auto* p = reinterpret_cast<const unsigned char*>(sig.data());
  ECDSA_SIG* parsed = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
  if (!parsed) return {};
  const BIGNUM *r = nullptr, *s = nullptr;
  ECDSA_SIG_get0(parsed, &r, &s);
  std::string raw = bytes_of_bn(r, 32) + bytes_of_bn(s, 32);
  ECDSA_SIG_free(parsed);
  return raw;
}

std::string signing_key::sign(const std::string& header_json, const std::string& payload_json, bool der) const {
  const std::string input = base64url(header_json) + "." + base64url(payload_json);
  return input + "." + base64url(signature(input, der));
}

std::string signing_key::public_pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  std::string out;
  if (bio && PEM_write_bio_PUBKEY(bio, key_) == 1) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    out.assign(data, static_cast<size_t>(n));
  }
  BIO_free(bio);
  return out;
}

std::string hs256_jws(const std::string& header_json, const std::string& payload_json, const std::string& secret) {
  const std::string input = base64url(header_json) + "." + base64url(payload_json);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
            reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &len))
    len = 0;
  return input + "." + base64url(std::string_view(reinterpret_cast<const char*>(mac), len));
}

std::string jwks_file(const std::string& dir) { return dir + "/jwks.json"; }

namespace {
std::string key_file(const std::string& dir, signing_key::kind k) {
  return dir + (k == signing_key::kind::rs256 ? "/rs256.key.pem" : "/es256.key.pem");
}
}  // namespace

bool write_oauth_keys(const std::string& dir) {
  auto rs = signing_key::generate(signing_key::kind::rs256, k_rs_kid);
  auto es = signing_key::generate(signing_key::kind::es256, k_es_kid);
  if (!rs || !es || !rs->save(key_file(dir, rs->type())) || !es->save(key_file(dir, es->type()))) return false;
  std::ofstream out(jwks_file(dir));
  out << "{\"keys\":[" << rs->public_jwk() << "," << es->public_jwk() << "]}\n";
  return static_cast<bool>(out.flush());
}

std::unique_ptr<signing_key> load_oauth_key(const std::string& dir, signing_key::kind k) {
  return signing_key::load(key_file(dir, k), k, k == signing_key::kind::rs256 ? k_rs_kid : k_es_kid);
}

}  // namespace hw::testing::differential
