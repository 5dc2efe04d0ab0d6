#pragma once
// kafka-storage.sh format --add-scram (KIP-900): Kafka's ScramParser.
// 'SCRAM-SHA-256=[name=alice,password=alice-secret]' (or with salt=,
// iterations= and saltedpassword= instead of password=) becomes a
// UserScramCredentialRecord of the bootstrap metadata: the salt given or a
// random one, iterations 4096 unless given, the stored and server keys
// derived through protocol/sasl/scram.h (OpenSSL). Refusals carry Kafka's
// messages, except that a salted password that does not decode is not
// quoted: no password, salted password or key is ever printed. Pure but for
// the random salt.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages/metadata_records.h"
#include "protocol/sasl/scram.h"

namespace hw::tools {

// One argument as the parser reads it, before any key is derived.
struct scram_argument {
  protocol::scram_mechanism mechanism = protocol::scram_mechanism::sha256;
  std::string name;
  std::optional<std::vector<uint8_t>> salt;
  std::optional<int32_t> iterations;
  std::optional<std::string> password;
  std::optional<std::vector<uint8_t>> salted_password;
};

// Kafka's checks in Kafka's order; false with its message.
bool parse_scram_argument(std::string_view text, scram_argument* out, std::string* error);

// The record: the iterations checked against the mechanism's bounds, the
// keys derived from the password (salted here) or the salted password.
bool scram_argument_record(const scram_argument& arg, protocol::msg::user_scram_credential_record* out,
                           std::string* error);

// Every argument in turn, each parsed and turned into its record before
// the next is read (Kafka stops at the first failure the same way).
bool scram_records(const std::vector<std::string>& arguments,
                   std::vector<protocol::msg::user_scram_credential_record>* out, std::string* error);

// The record in the bootstrap line, as Kafka's generated toString shows it
// but with the stored and server keys replaced by "[redacted]":
// "UserScramCredentialRecord(name='alice', mechanism=1, salt=[55, 113],
// storedKey=[redacted], serverKey=[redacted], iterations=8192)".
std::string scram_record_string(const protocol::msg::user_scram_credential_record& record);

}  // namespace hw::tools
