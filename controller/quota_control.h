#pragma once
// Quota control: the client quotas of the image, written by
// ClientQuotaRecord, and AlterClientQuotas as Kafka's controller answers it
// (its ClientQuotaControlManager: checks, texts and order).
//
// Each entry (an entity and its ops) is checked on its own: entity types
// user, client-id and ip, each at most once, no empty name; ip alone, user
// and client-id alone or together; an ip name that is an address or a host
// name that resolves (Kafka asks InetAddress.getByName, so a name is looked
// up: the only blocking step here). Keys per kind: producer_byte_rate,
// consumer_byte_rate (LONG), request_percentage, controller_mutation_rate
// (DOUBLE) for users and client ids, connection_creation_rate (INT) for
// ips; a value must be > 0, integral for LONG and INT keys (within 1e-6)
// and not above the type's bound. An entry with a refused op writes
// nothing; the others write a record per value that changes (a removal of
// a key the entity does not hold, or the value it already has, writes
// nothing). validate_only answers the same and writes nothing.
//
// Kafka keys its answers by entity in a HashMap, and this keeps its quirks:
// an entity named by two entries is answered once, "Ignoring duplicate
// entity ..." (after its first entry's records were kept), and a key named
// twice in an entry answers that entry the same way; answers come in the
// HashMap's order.
//
// Owner: the controller strand, through quorum_controller. No soft state.

#include <cstddef>
#include <functional>
#include <string>

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "protocol/messages/alter_client_quotas.h"

namespace hw::controller {

class quota_control {
 public:
  static constexpr size_t max_records_per_operation = 10000;  // Kafka's MAX_RECORDS_PER_USER_OP

  // Whether an ip entity's name is an address or a host name that resolves.
  using host_check = std::function<bool(const std::string&)>;

  static controller_result<msg::alter_client_quotas_response> alter_client_quotas(
      const metadata_image& image, const msg::alter_client_quotas_request& request,
      const host_check& resolves = resolvable_host);

  // An IPv4 or IPv6 literal (IPv6 in brackets too), or a name getaddrinfo
  // resolves.
  static bool resolvable_host(const std::string& name);
};

}  // namespace hw::controller
