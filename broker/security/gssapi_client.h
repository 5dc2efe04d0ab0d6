#pragma once
// The client side of one GSSAPI (Kerberos V5) exchange, for the broker's
// own connections to a GSSAPI listener of another node, as Kafka's clients
// run it through Java's GSSAPI mechanism (RFC 4752): GSS-API tokens for the
// service principal <service>/<peer host> (a host-based name, mutual
// authentication) until the context is set up, an empty message after the
// last one, then the server's wrapped security-layer offer answered with
// "no security layer", no maximum size and the broker's own principal as
// authorization id; the server's empty answer completes it.
//
// The first token asks the KDC for tickets (through the credential's
// keytab): a blocking call of a few milliseconds to the KDC, as Kafka's
// client makes it on its network thread.
//
// Owner/thread: one connection attempt, on its strand. Never logs or
// returns a key or a ticket.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/security/gss_credential.h"

namespace hw::broker {

class gssapi_client {
 public:
  gssapi_client(std::shared_ptr<const gss_credential> credential, std::string service, std::string host,
                std::string authorization_id);
  ~gssapi_client();
  gssapi_client(const gssapi_client&) = delete;
  gssapi_client& operator=(const gssapi_client&) = delete;

  // The first token; none with *error when GSS-API cannot make one (no
  // ticket for the service, no KDC).
  std::optional<std::vector<uint8_t>> first(std::string* error);
  // The answer to the server's token: the next token, or none when the
  // exchange is complete (done()) or failed (*error).
  std::optional<std::vector<uint8_t>> next(std::span<const uint8_t> server_token, std::string* error);
  bool done() const { return stage_ == stage::complete; }

 private:
  enum class stage { context, offer, final_answer, complete, failed };
  std::optional<std::vector<uint8_t>> step(std::span<const uint8_t> input, std::string* error);

  std::shared_ptr<const gss_credential> credential_;
  std::string service_;
  std::string host_;
  std::string authorization_id_;
  void* context_ = nullptr;  // gss_ctx_id_t
  void* target_ = nullptr;   // gss_name_t
  stage stage_ = stage::context;
};

}  // namespace hw::broker
