// scram: the SCRAM primitives on OpenSSL's EVP, HMAC, PBKDF2 and RAND.
#include "protocol/sasl/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace hw::protocol {

namespace {

const EVP_MD* digest(scram_mechanism m) { return m == scram_mechanism::sha256 ? EVP_sha256() : EVP_sha512(); }

void random_bytes(std::span<uint8_t> out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
    throw std::runtime_error("OpenSSL's RAND_bytes failed: no randomness for SCRAM");
}

}  // namespace

std::optional<scram_mechanism> parse_scram_mechanism(std::string_view name) {
  if (name == "SCRAM-SHA-256") return scram_mechanism::sha256;
  if (name == "SCRAM-SHA-512") return scram_mechanism::sha512;
  return std::nullopt;
}

const std::string& scram_mechanism_name(scram_mechanism m) {
  static const std::string sha256 = "SCRAM-SHA-256";
  static const std::string sha512 = "SCRAM-SHA-512";
  return m == scram_mechanism::sha256 ? sha256 : sha512;
}

int8_t scram_mechanism_type(scram_mechanism m) { return m == scram_mechanism::sha256 ? 1 : 2; }

std::optional<scram_mechanism> scram_mechanism_from_type(int8_t type) {
  if (type == 1) return scram_mechanism::sha256;
  if (type == 2) return scram_mechanism::sha512;
  return std::nullopt;
}

namespace scram {

bytes salted_password(scram_mechanism m, std::string_view password, std::span<const uint8_t> salt,
                      int32_t iterations) {
  const EVP_MD* md = digest(m);
  bytes out(static_cast<size_t>(EVP_MD_get_size(md)));
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(),
                        static_cast<int>(salt.size()), iterations, md, static_cast<int>(out.size()),
                        out.data()) != 1)
    throw std::runtime_error("OpenSSL's PKCS5_PBKDF2_HMAC failed");
  return out;
}

bytes hmac(scram_mechanism m, std::span<const uint8_t> key, std::string_view data) {
  bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (!HMAC(digest(m), key.data(), static_cast<int>(key.size()), reinterpret_cast<const uint8_t*>(data.data()),
            data.size(), out.data(), &n))
    throw std::runtime_error("OpenSSL's HMAC failed");
  out.resize(n);
  return out;
}

bytes hash(scram_mechanism m, std::span<const uint8_t> data) {
  bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, digest(m), nullptr) != 1)
    throw std::runtime_error("OpenSSL's EVP_Digest failed");
  out.resize(n);
  return out;
}

scram_credential make_credential(scram_mechanism m, std::string_view password, std::span<const uint8_t> salt,
                                 int32_t iterations) {
  return credential_from_salted(m, salted_password(m, password, salt, iterations), salt, iterations);
}

scram_credential credential_from_salted(scram_mechanism m, std::span<const uint8_t> salted,
                                        std::span<const uint8_t> salt, int32_t iterations) {
  scram_credential c;
  c.salt.assign(salt.begin(), salt.end());
  c.stored_key = hash(m, hmac(m, salted, "Client Key"));
  c.server_key = hmac(m, salted, "Server Key");
  c.iterations = iterations;
  return c;
}

scram_credential make_credential(scram_mechanism m, std::string_view password, int32_t iterations) {
  return make_credential(m, password, random_salt(), iterations);
}

bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string base64(std::span<const uint8_t> data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data.data(), static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<bytes> unbase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                          c == '/';
    // Padding only at the end, at most two.
    const bool padding = c == '=' && i + 2 >= text.size() && (i + 1 == text.size() || text[i + 1] == '=');
    if (!alphabet && !padding) return std::nullopt;
  }
  bytes out(text.size() / 4 * 3);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string random_nonce() {
  // 24 random bytes as base64 (32 characters, no comma, no padding).
  uint8_t raw[24];
  random_bytes(raw);
  return base64(raw);
}

bytes random_salt() {
  bytes salt(32);
  random_bytes(salt);
  return salt;
}

std::string escape_user(std::string_view user) {
  std::string out;
  for (char c : user) {
    if (c == '=') {
      out += "=3D";
    } else if (c == ',') {
      out += "=2C";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> unescape_user(std::string_view sasl_name) {
  std::string out;
  for (size_t i = 0; i < sasl_name.size(); ++i) {
    if (sasl_name[i] != '=') {
      out += sasl_name[i];
      continue;
    }
    const std::string_view code = sasl_name.substr(i + 1, 2);
    if (code == "2C") {
      out += ',';
    } else if (code == "3D") {
      out += '=';
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  return out;
}

}  // namespace scram
}  // namespace hw::protocol
