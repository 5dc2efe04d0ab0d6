#pragma once
// The delegation tokens a broker serves (KIP-48): the metadata image's
// (DelegationTokenRecord), each with its HMAC under this node's
// delegation.token.secret.key and the SCRAM credentials (both mechanisms,
// Kafka's minimum 4096 iterations, a fresh salt) that its HMAC, in base64,
// makes as a password, so that a client logs in with SCRAM, the token id as
// user name, the HMAC as password and the tokenauth=true extension, as
// the owner. An immutable table swapped whole when the metadata publisher
// applies a batch that changed the tokens; a token that did not change
// keeps its credentials. Without a secret the store is disabled and empty.
//
// Owner: the metadata publisher (update); any strand (find, snapshot).
// Holds HMACs (a token's password): never log them.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/security/scram.h"
#include "broker/security/scram_server.h"
#include "controller/metadata/image.h"

namespace hw::broker {

class delegation_token_store {
 public:
  struct entry {
    controller::delegation_token info;
    std::vector<uint8_t> hmac;
    std::map<scram_mechanism, scram_credential> credentials;
  };
  using table = std::map<std::string, entry, std::less<>>;

  explicit delegation_token_store(std::optional<std::string> secret_key);

  bool enabled() const { return secret_.has_value(); }
  std::shared_ptr<const table> snapshot() const { return table_.load(); }
  // A token's SCRAM login, when the token exists (expired or not: the
  // controller removes expired ones).
  std::optional<scram_server::token_login> login(scram_mechanism mechanism, const std::string& token_id) const;

  // Takes the image's tokens (the publisher's strand).
  void update(const std::map<std::string, controller::delegation_token, std::less<>>& tokens);

 private:
  std::optional<std::string> secret_;
  std::atomic<std::shared_ptr<const table>> table_;
};

}  // namespace hw::broker
