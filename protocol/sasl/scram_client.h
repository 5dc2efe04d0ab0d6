#pragma once
// The client side of one SCRAM exchange (RFC 5802, RFC 7677), for the
// broker's own connections (replica fetchers, the controller channel, the
// raft traffic, transaction markers) and the native tools when the listener
// they reach asks for SCRAM: client-first, then the client-final answering
// the server-first (the salted password computed with the server's salt and
// iterations), then the server-final checked against the server signature
// in constant time. It refuses a server nonce that does not extend its own,
// fewer iterations than Kafka's minimum and a server signature that does not
// verify (a server that does not know the password).
//
// Owner/thread: the connection that authenticates, on its strand. Holds the
// password until the exchange ends.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/sasl/scram.h"

namespace hw::protocol {

class scram_client {
 public:
  scram_client(scram_mechanism mechanism, std::string user, std::string password,
               std::string nonce = scram::random_nonce());

  // "n,,n=<user>,r=<nonce>" (",tokenauth=true" after it for a delegation
  // token's login: the user is the token id, the password its HMAC in base64).
  std::string client_first();
  void set_token_auth(bool token) { token_auth_ = token; }
  // The client-final for the server-first, or none (*error says why).
  std::optional<std::string> client_final(std::string_view server_first, std::string* error);
  // Whether the server-final proves the server knows the credential.
  bool verify_server_final(std::string_view server_final, std::string* error);

 private:
  scram_mechanism mechanism_;
  std::string user_;
  std::string password_;
  std::string nonce_;
  std::string client_first_bare_;
  scram::bytes expected_server_signature_;
  bool token_auth_ = false;
};

// PLAIN's one message: "\0<user>\0<password>".
std::string plain_client_token(std::string_view user, std::string_view password);

}  // namespace hw::protocol
