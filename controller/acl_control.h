#pragma once
// ACL control: the ACLs of the image, written by AccessControlEntryRecord
// and RemoveAccessControlEntryRecord, and CreateAcls and DeleteAcls as
// Kafka's controller answers them (its AclApis checks, then its
// AclControlManager).
//
// CreateAcls: a creation naming a filter's value (resource type ANY,
// pattern type ANY or MATCH, operation ANY, permission ANY) fails the whole
// request, as Kafka's binding constructors do: every creation
// UNKNOWN_SERVER_ERROR without a message. Otherwise each creation on its
// own. A CLUSTER resource not named
// "kafka-cluster" and an empty name are refused as Kafka's AclApis refuses
// them, the rest by controller/metadata/acls.h's invalid_new_acl; all with
// INVALID_REQUEST. A binding the image already holds, or one named twice in
// the request, is answered with success and written once.
//
// DeleteAcls: each filter removes every ACL it matches (controller/metadata
// /acls.h's acl_filter) and lists them; an ACL matched by several filters
// is listed by each and removed once. A filter matching more than 10,000
// ACLs is refused whole (Kafka's bound on a user operation).
//
// Requests whose bindings or filters have UNKNOWN fields never get here:
// Kafka cannot parse them and closes the connection; so does the handler.
//
// Owner: the controller strand, through quorum_controller. Soft state:
// the random source of new ACL ids.

#include <cstdint>
#include <random>

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"

namespace hw::controller {

class acl_control {
 public:
  static constexpr size_t max_records_per_operation = 10000;  // Kafka's MAX_RECORDS_PER_USER_OP

  explicit acl_control(uint64_t random_seed);

  controller_result<msg::create_acls_response> create_acls(const metadata_image& image,
                                                           const msg::create_acls_request& request);
  static controller_result<msg::delete_acls_response> delete_acls(const metadata_image& image,
                                                                   const msg::delete_acls_request& request);

 private:
  std::mt19937_64 random_;
};

// The binding a creation names, and the filter a DeleteAcls or
// DescribeAcls filter names (the handlers and the controller share them).
acl_entry acl_of(const msg::create_acls_request::acl_creation& creation);
acl_filter filter_of(const msg::delete_acls_request::delete_acls_filter& filter);

}  // namespace hw::controller
