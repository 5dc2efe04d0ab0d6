#pragma once
// How the broker's own connections to a listener of another node protect
// and identify themselves: TLS on SSL and SASL_SSL listeners, a SASL login
// on SASL_PLAINTEXT and SASL_SSL ones (both null on PLAINTEXT). Resolved
// once at start-up for the inter-broker and the controller listener
// (sasl_client.h, tls_context.h) and handed to every client of that kind.

#include <memory>

#include "broker/security/sasl_login.h"

namespace hw::broker {

struct tls_client_context;

struct client_security {
  std::shared_ptr<const sasl_login> sasl;
  std::shared_ptr<const tls_client_context> tls;
};

}  // namespace hw::broker
