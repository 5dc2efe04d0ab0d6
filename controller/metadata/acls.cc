#include "controller/metadata/acls.h"

namespace hw::controller {
namespace {

bool pattern_matches(const acl_filter& f, const acl_entry& acl) {
  if (f.resource_type != acl_resource_type::any && f.resource_type != acl.resource_type) return false;
  if (f.pattern_type != acl_pattern_type::any && f.pattern_type != acl_pattern_type::match &&
      f.pattern_type != acl.pattern_type)
    return false;
  if (!f.resource_name) return true;
  const std::string& name = *f.resource_name;
  if (f.pattern_type == acl_pattern_type::any || f.pattern_type == acl.pattern_type)
    return name == acl.resource_name;
  // MATCH
  switch (acl.pattern_type) {
    case acl_pattern_type::literal: return name == acl.resource_name || acl.resource_name == acl_wildcard;
    case acl_pattern_type::prefixed: return name.starts_with(acl.resource_name);
    default: return false;
  }
}

bool entry_matches(const acl_filter& f, const acl_entry& acl) {
  if (f.principal && *f.principal != acl.principal) return false;
  if (f.host && *f.host != acl.host) return false;
  if (f.operation != acl_operation::any && f.operation != acl.operation) return false;
  return f.permission == acl_permission::any || f.permission == acl.permission;
}

}  // namespace

bool acl_filter::matches(const acl_entry& acl) const { return pattern_matches(*this, acl) && entry_matches(*this, acl); }

std::optional<std::string> invalid_new_acl(const acl_entry& acl) {
  if (acl.resource_type == acl_resource_type::unknown || acl.resource_type == acl_resource_type::any)
    return "Invalid resourceType " + std::string(to_string(acl.resource_type));
  if (acl.pattern_type != acl_pattern_type::literal && acl.pattern_type != acl_pattern_type::prefixed)
    return "Invalid patternType " + std::string(to_string(acl.pattern_type));
  if (acl.operation == acl_operation::unknown || acl.operation == acl_operation::any)
    return "Invalid operation " + std::string(to_string(acl.operation));
  if (acl.permission != acl_permission::deny && acl.permission != acl_permission::allow)
    return "Invalid permissionType " + std::string(to_string(acl.permission));
  if (acl.resource_name.empty()) return std::string("Resource name should not be empty");
  if (acl.principal.find(':') == std::string::npos)
    return "Could not parse principal from `" + acl.principal +
           "` (no colon is present separating the principal type from the principal name)";
  return std::nullopt;
}

std::optional<std::string> invalid_delete_filter(const acl_filter& filter) {
  if (filter.resource_type == acl_resource_type::unknown || filter.pattern_type == acl_pattern_type::unknown)
    return std::string("Unknown patternFilter.");
  if (filter.operation == acl_operation::unknown || filter.permission == acl_permission::unknown)
    return std::string("Unknown entryFilter.");
  return std::nullopt;
}

protocol::msg::access_control_entry_record acl_record(const protocol::uuid& id, const acl_entry& acl) {
  protocol::msg::access_control_entry_record r;
  r.id = id;
  write_binding(acl, r);
  return r;
}

}  // namespace hw::controller
