#pragma once
// What the delegation token handlers (38-41) share: whether a connection
// may ask for tokens at all (Kafka's allowTokenRequests: not a login made
// with a token, not PLAINTEXT, not one-way TLS; a request forwarded by a
// broker in an envelope was checked there and may come over PLAINTEXT).

#include "broker/request_context.h"
#include "broker/security/principal.h"

namespace hw::broker {

inline bool allow_token_requests(const request_context& ctx) {
  if (ctx.principal->token_authenticated()) return false;
  if (ctx.forwarded) return true;
  if (ctx.protocol == security_protocol::plaintext) return false;
  if (ctx.protocol == security_protocol::ssl && *ctx.principal == kafka_principal::anonymous()) return false;
  return true;
}

}  // namespace hw::broker
