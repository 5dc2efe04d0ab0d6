#pragma once
// The server side of one SCRAM exchange (RFC 5802, RFC 7677), as Kafka's
// ScramSaslServer answers it:
//   client-first  "n,[a=<authzid>],n=<user>,r=<client nonce>[,ext=value...]"
//   server-first  "r=<client nonce><server nonce>,s=<salt>,i=<iterations>"
//   client-final  "c=<base64 gs2 header>,r=<nonce>[,ext=value...],p=<proof>"
//   server-final  "v=<server signature>"
// Only the "n" gs2 header (no channel binding) is taken, as Kafka does.
// Unknown users, malformed messages, a wrong nonce and a wrong proof all
// fail with Kafka's generic text; an authorization id other than the user
// fails with Kafka's own. The proof is checked by recomputing the stored key
// and comparing it in constant time; the AuthMessage is built from the
// bytes the client sent, as the RFC has it.
//
// Owner/thread: the connection's authenticator, on its strand. The
// credential lookup is called once, on the client-first message.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "broker/security/sasl_server.h"
#include "broker/security/scram.h"

namespace hw::broker {

class scram_server final : public sasl_server {
 public:
  using credential_lookup = std::function<std::optional<scram_credential>(const std::string& user)>;
  using nonce_source = std::function<std::string()>;
  // A delegation token's login (tokenauth=true): the credential its HMAC
  // makes, its owner's name and its expiry.
  struct token_login {
    scram_credential credential;
    std::string owner;
    int64_t expiry_ms = 0;
  };
  using token_lookup = std::function<std::optional<token_login>(const std::string& token_id)>;

  scram_server(scram_mechanism mechanism, credential_lookup credentials, nonce_source nonce = scram::random_nonce,
               token_lookup tokens = {});

  sasl_step evaluate(std::span<const uint8_t> response) override;
  bool complete() const override { return state_ == state::complete; }
  const std::string& user() const override { return complete() ? user_ : empty_; }
  std::optional<int64_t> credential_expiry_ms() const override {
    return complete() && token_ ? std::optional<int64_t>(token_expiry_ms_) : std::nullopt;
  }
  bool token_authenticated() const override { return complete() && token_; }

 private:
  enum class state { client_first, client_final, complete, failed };
  sasl_step on_client_first(std::string_view message);
  sasl_step on_client_final(std::string_view message);
  sasl_step fail(std::string why, std::optional<std::string> told = std::nullopt);

  scram_mechanism mechanism_;
  credential_lookup credentials_;
  nonce_source make_nonce_;
  token_lookup tokens_;
  bool token_ = false;
  int64_t token_expiry_ms_ = 0;
  state state_ = state::client_first;
  std::string user_;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;  // client's and ours
  scram_credential credential_;
  const std::string empty_;
};

}  // namespace hw::broker
