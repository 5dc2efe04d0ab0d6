#pragma once
// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) on OpenSSL 3: the
// primitives the exchange needs, the credential a password (or a salted
// password) makes, and the escaping of user names in SCRAM messages. Pure:
// nothing here does I/O or keeps state; the only randomness is OpenSSL's
// RAND_bytes.
//
// Here, low in protocol/, because the controller (which turns an
// AlterUserScramCredentials upsertion's salted password into the stored and
// server keys), the broker (the SASL server) and the tools (kafka-configs'
// client-side PBKDF2, kafka-storage --add-scram) all derive credentials, and
// none of them may include another (ARCHITECTURE.md §1). The broker's code
// reaches it through broker/security/scram.h.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hw::protocol {

enum class scram_mechanism { sha256, sha512 };

// "SCRAM-SHA-256", "SCRAM-SHA-512" (exact).
std::optional<scram_mechanism> parse_scram_mechanism(std::string_view name);
const std::string& scram_mechanism_name(scram_mechanism m);
// Kafka's ScramMechanism type as the wire and the metadata records carry it:
// 1 SCRAM-SHA-256, 2 SCRAM-SHA-512 (0 is UNKNOWN, never a mechanism).
int8_t scram_mechanism_type(scram_mechanism m);
std::optional<scram_mechanism> scram_mechanism_from_type(int8_t type);

// Kafka's bounds: a credential below the minimum is refused at login; an
// alter outside [min, max] is refused.
inline constexpr int32_t scram_min_iterations = 4096;
inline constexpr int32_t scram_max_iterations = 16384;

// What UserScramCredentialRecord holds for one user and mechanism: never
// the password.
struct scram_credential {
  std::vector<uint8_t> salt;
  std::vector<uint8_t> stored_key;
  std::vector<uint8_t> server_key;
  int32_t iterations = 0;
  bool operator==(const scram_credential&) const = default;
};

// Every credential of a cluster, by mechanism then user name (the metadata
// image's and the broker's credential store's shape).
using scram_credential_table =
    std::map<scram_mechanism, std::map<std::string, scram_credential, std::less<>>>;

namespace scram {

using bytes = std::vector<uint8_t>;

// Hi(password, salt, i): PBKDF2 with the mechanism's HMAC, one hash long.
bytes salted_password(scram_mechanism m, std::string_view password, std::span<const uint8_t> salt,
                      int32_t iterations);
bytes hmac(scram_mechanism m, std::span<const uint8_t> key, std::string_view data);
bytes hash(scram_mechanism m, std::span<const uint8_t> data);
// A credential for `password` with a given salt (tests, format-time
// bootstrap with an explicit salt) or a fresh random one.
scram_credential make_credential(scram_mechanism m, std::string_view password, std::span<const uint8_t> salt,
                                 int32_t iterations);
scram_credential make_credential(scram_mechanism m, std::string_view password, int32_t iterations);
// The credential a client's salted password (Hi(password, salt, i), what
// AlterUserScramCredentials and kafka-storage's saltedpassword= carry) makes.
scram_credential credential_from_salted(scram_mechanism m, std::span<const uint8_t> salted,
                                        std::span<const uint8_t> salt, int32_t iterations);

// Equal length and bytes, in time that depends on the length only.
bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

std::string base64(std::span<const uint8_t> data);
// Standard alphabet with padding, as SCRAM writes it; none when malformed.
std::optional<bytes> unbase64(std::string_view text);

// A nonce of printable characters without a comma, from RAND_bytes.
std::string random_nonce();
bytes random_salt();

// SCRAM's saslname: "=" and "," escaped as "=3D" and "=2C".
std::string escape_user(std::string_view user);
// Back; none when an "=" starts anything but "=2C" or "=3D".
std::optional<std::string> unescape_user(std::string_view sasl_name);

}  // namespace scram
}  // namespace hw::protocol
