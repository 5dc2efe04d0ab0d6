#pragma once
// The server side of one GSSAPI (Kerberos V5) exchange, as Kafka's broker
// answers it through Java's GSSAPI mechanism (RFC 4752):
//   1. the client's GSS-API tokens are accepted with the listener's
//      credentials (its JAAS principal, "kafka/host@REALM", from its keytab)
//      until the context is set up, each answer token sent back;
//   2. then, after the client's empty message (or at once when the last
//      accept produced no token), the server offers its security layers,
//      wrapped: "no security layer" only, as Kafka's brokers offer;
//   3. the client's wrapped reply picks one and may carry an authorization
//      id. Kafka authorizes every client as the principal it authenticated,
//      whatever id it asks for, so the id is ignored (logged only).
// The principal's short name (kerberos_rules.h) is the user: User:<short>.
// A failure is answered with Kafka's generic text; a replayed
// authenticator ("Request is a replay", which Kafka's clients retry) closes
// the connection unanswered, as Kafka treats it as an I/O error; a name no
// rule maps completes the exchange with principal_error() set: Kafka
// answers it as a success and closes the connection at the next request,
// when it fails to build the principal.
//
// Owner/thread: the connection's authenticator, on its strand. Never logs
// or returns a key or a ticket.

#include <memory>
#include <string>

#include "broker/security/gss_credential.h"
#include "broker/security/kerberos_rules.h"
#include "broker/security/sasl_server.h"

namespace hw::broker {

class gssapi_server final : public sasl_server {
 public:
  gssapi_server(std::shared_ptr<const gss_credential> acceptor, std::shared_ptr<const kerberos_short_namer> names);
  ~gssapi_server() override;

  sasl_step evaluate(std::span<const uint8_t> response) override;
  bool complete() const override { return stage_ == stage::complete; }
  const std::string& user() const override { return user_; }
  // The authenticated Kerberos principal ("alice@EXAMPLE.COM"), once the
  // context is set up.
  const std::string& kerberos_principal() const { return peer_; }
  // The authorization id the client asked for (may be empty).
  const std::string& requested_authorization_id() const { return authorization_id_; }
  std::optional<std::string> principal_error() const override { return principal_error_; }

 private:
  enum class stage { accept, offer, reply, complete, failed };
  sasl_step accept(std::span<const uint8_t> token);
  sasl_step offer();
  sasl_step reply(std::span<const uint8_t> token);
  sasl_step fail(std::string why);

  std::shared_ptr<const gss_credential> acceptor_;
  std::shared_ptr<const kerberos_short_namer> names_;
  void* context_ = nullptr;  // gss_ctx_id_t
  stage stage_ = stage::accept;
  std::string peer_;
  std::string authorization_id_;
  std::string user_;
  std::optional<std::string> principal_error_;
};

}  // namespace hw::broker
