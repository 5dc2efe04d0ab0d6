#include "controller/acl_control.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace hw::controller {

namespace {

using create_result = msg::create_acls_response::acl_creation_result;
using filter_result = msg::delete_acls_response::delete_acls_filter_result;
using matching_acl = msg::delete_acls_response::delete_acls_matching_acl;

// What Kafka's AclApis refuses before its AclControlManager looks.
std::optional<std::string> refused_by_front(const acl_entry& acl) {
  if (acl.resource_type == acl_resource_type::cluster && acl.resource_name != acl_cluster_name)
    return "The only valid name for the CLUSTER resource is " + std::string(acl_cluster_name);
  if (acl.resource_name.empty()) return std::string("Invalid empty resource name");
  return std::nullopt;
}

matching_acl matching_of(const acl_entry& acl) {
  matching_acl m;
  m.error_message = std::nullopt;  // Kafka's ApiError.NONE carries no message
  write_binding(acl, m);
  return m;
}

}  // namespace

acl_entry acl_of(const msg::create_acls_request::acl_creation& c) {
  return protocol::acl_entry_of(c.resource_type, c.resource_name, c.resource_pattern_type, c.principal, c.host,
                                c.operation, c.permission_type);
}

acl_filter filter_of(const msg::delete_acls_request::delete_acls_filter& f) {
  acl_filter filter;
  filter.resource_type = acl_resource_type_of(f.resource_type_filter);
  filter.resource_name = f.resource_name_filter;
  filter.pattern_type = acl_pattern_type_of(f.pattern_type_filter);
  filter.principal = f.principal_filter;
  filter.host = f.host_filter;
  filter.operation = acl_operation_of(f.operation);
  filter.permission = acl_permission_of(f.permission_type);
  return filter;
}

acl_control::acl_control(uint64_t random_seed) : random_(random_seed) {}

controller_result<msg::create_acls_response> acl_control::create_acls(const metadata_image& image,
                                                                     const msg::create_acls_request& request) {
  controller_result<msg::create_acls_response> out;
  std::vector<acl_entry> asked;
  for (const auto& c : request.creations) asked.push_back(acl_of(c));
  // A filter's value (ANY, MATCH) in a binding cannot be made into one in
  // Kafka (ResourcePattern and AccessControlEntry refuse it): the whole
  // request fails, every creation UNKNOWN_SERVER_ERROR without a message.
  const bool unmakeable = std::any_of(asked.begin(), asked.end(), [](const acl_entry& acl) {
    return acl.resource_type == acl_resource_type::any || acl.pattern_type == acl_pattern_type::any ||
           acl.pattern_type == acl_pattern_type::match || acl.operation == acl_operation::any ||
           acl.permission == acl_permission::any;
  });
  if (unmakeable) {
    create_result failed;
    failed.error_code = static_cast<int16_t>(error_code::unknown_server_error);
    failed.error_message = std::nullopt;
    out.response.results.assign(asked.size(), failed);
    return out;
  }
  std::set<acl_entry> existing;
  for (const auto& [id, acl] : image.acls) existing.insert(acl);
  std::set<protocol::uuid> taken;
  for (const acl_entry& acl : asked) {
    create_result result;
    auto why = refused_by_front(acl);
    if (!why) why = invalid_new_acl(acl);
    if (why) {
      result.error_code = static_cast<int16_t>(error_code::invalid_request);
      result.error_message = *why;
    } else if (existing.insert(acl).second) {
      if (out.records.size() >= max_records_per_operation) {
        result.error_code = static_cast<int16_t>(error_code::invalid_request);
        result.error_message = "Cannot create more than " + std::to_string(max_records_per_operation) +
                               " acls in a single operation.";
        existing.erase(acl);
      } else {
        protocol::uuid id;
        do {
          id = protocol::uuid::random(random_);
        } while (image.acls.count(id) || taken.count(id));
        taken.insert(id);
        out.records.emplace_back(acl_record(id, acl));
      }
    }
    out.response.results.push_back(std::move(result));
  }
  return out;
}

controller_result<msg::delete_acls_response> acl_control::delete_acls(const metadata_image& image,
                                                                     const msg::delete_acls_request& request) {
  controller_result<msg::delete_acls_response> out;
  std::set<protocol::uuid> removed;
  for (const auto& f : request.filters) {
    filter_result result;
    result.error_message = std::nullopt;
    const acl_filter filter = filter_of(f);
    if (auto why = invalid_delete_filter(filter)) {
      result.error_code = static_cast<int16_t>(error_code::invalid_request);
      result.error_message = *why;
      out.response.filter_results.push_back(std::move(result));
      continue;
    }
    std::vector<protocol::uuid> ids;
    for (const auto& [id, acl] : image.acls) {
      if (!filter.matches(acl)) continue;
      ids.push_back(id);
      result.matching_acls.push_back(matching_of(acl));
    }
    if (ids.size() > max_records_per_operation) {
      result = {};
      result.error_code = static_cast<int16_t>(error_code::unknown_server_error);
      result.error_message = "Cannot remove more than " + std::to_string(max_records_per_operation) +
                             " acls in a single delete operation.";
    } else {
      for (const auto& id : ids) {
        if (!removed.insert(id).second) continue;
        msg::remove_access_control_entry_record r;
        r.id = id;
        out.records.emplace_back(std::move(r));
      }
    }
    out.response.filter_results.push_back(std::move(result));
  }
  return out;
}

}  // namespace hw::controller
