#pragma once
// What each API asks the authorizer, as data: for every request Kafka's
// KafkaApis (and ControllerApis, AclApis) authorizes, the checks it makes,
// in the order it makes them: on which kind of resource, which operation,
// and what a refusal answers. Handlers take their checks from here
// (`api_acl(key, check)`), so the table is what the broker does, and the
// differential tests walk it against Kafka 4.3.1.
//
// A check's scope says where the refusal lands: the whole request (one
// error for everything it asks), each resource it names (that resource's
// error, the others served), or a filter (resources not allowed are left
// out of the answer, as Metadata lists only the topics a principal may
// describe). Some checks are alternatives: `or_check` names the one that
// also allows (CreateTopics: CREATE on the cluster, else on each topic).
//
// Pure data; any thread.

#include <cstdint>
#include <span>
#include <string_view>

#include "controller/metadata/acls.h"
#include "protocol/error_code.h"

namespace hw::broker {

enum class acl_scope {
  request,   // a refusal answers the whole request with `refusal`
  resource,  // each resource named is refused on its own
  filter,    // resources not allowed are left out of the answer
};

struct api_acl_check {
  int16_t api_key;
  std::string_view check;  // the check's name within its API ("topic", "transactional_id", "follower")
  controller::acl_resource_type resource_type;
  controller::acl_operation operation;
  protocol::error_code refusal;
  acl_scope scope;
  std::string_view or_check;  // another check of the same API that allows as well (empty: none)
  std::string_view when;      // when Kafka makes it, in a few words
};

// Every check, by API key, in Kafka's order within an API.
std::span<const api_acl_check> api_acl_table();

// The check `check` of API `api_key`; asserts that the table has it.
const api_acl_check& api_acl(int16_t api_key, std::string_view check);

}  // namespace hw::broker
