#include "broker/admin/acl_requests.h"

#include <set>
#include <tuple>

#include "controller/acl_control.h"

namespace hw::broker {

namespace {

using controller::acl_entry;
using controller::acl_filter;

bool unknown(int8_t resource_type, int8_t pattern_type, int8_t operation, int8_t permission) {
  using namespace controller;
  return acl_resource_type_of(resource_type) == acl_resource_type::unknown ||
         acl_pattern_type_of(pattern_type) == acl_pattern_type::unknown ||
         acl_operation_of(operation) == acl_operation::unknown ||
         acl_permission_of(permission) == acl_permission::unknown;
}

acl_filter filter_of(const msg::describe_acls_request& r) {
  msg::delete_acls_request::delete_acls_filter f;
  f.resource_type_filter = r.resource_type_filter;
  f.resource_name_filter = r.resource_name_filter;
  f.pattern_type_filter = r.pattern_type_filter;
  f.principal_filter = r.principal_filter;
  f.host_filter = r.host_filter;
  f.operation = r.operation;
  f.permission_type = r.permission_type;
  return controller::filter_of(f);
}

// n results, each with the code and message.
template <class Result>
std::vector<Result> each_refused(size_t n, protocol::error_code code, const std::optional<std::string>& message) {
  Result r;
  r.error_code = static_cast<int16_t>(code);
  r.error_message = message;
  return std::vector<Result>(n, r);
}

}  // namespace

msg::describe_acls_response describe_acls(const std::map<protocol::uuid, acl_entry>& acls,
                                          const msg::describe_acls_request& request) {
  const acl_filter filter = filter_of(request);
  using pattern = std::tuple<int8_t, std::string, int8_t>;
  using entry = std::tuple<std::string, std::string, int8_t, int8_t>;
  std::map<pattern, std::set<entry>> found;
  for (const auto& [id, acl] : acls) {
    if (!filter.matches(acl)) continue;
    found[{static_cast<int8_t>(acl.resource_type), acl.resource_name, static_cast<int8_t>(acl.pattern_type)}].insert(
        {acl.principal, acl.host, static_cast<int8_t>(acl.operation), static_cast<int8_t>(acl.permission)});
  }
  msg::describe_acls_response out;  // error_message "", as Kafka's default
  for (const auto& [p, entries] : found) {
    msg::describe_acls_response::describe_acls_resource resource;
    resource.resource_type = std::get<0>(p);
    resource.resource_name = std::get<1>(p);
    resource.pattern_type = std::get<2>(p);
    for (const auto& [principal, host, operation, permission] : entries) {
      msg::describe_acls_response::acl_description d;
      d.principal = principal;
      d.host = host;
      d.operation = operation;
      d.permission_type = permission;
      resource.acls.push_back(std::move(d));
    }
    out.resources.push_back(std::move(resource));
  }
  return out;
}

msg::create_acls_response create_acls_refused(const msg::create_acls_request& request, protocol::error_code code,
                                              std::optional<std::string> message) {
  msg::create_acls_response out;
  out.results = each_refused<msg::create_acls_response::acl_creation_result>(request.creations.size(), code, message);
  return out;
}

msg::delete_acls_response delete_acls_refused(const msg::delete_acls_request& request, protocol::error_code code,
                                              std::optional<std::string> message) {
  msg::delete_acls_response out;
  out.filter_results =
      each_refused<msg::delete_acls_response::delete_acls_filter_result>(request.filters.size(), code, message);
  return out;
}

std::optional<std::string> unreadable(const msg::create_acls_request& request) {
  for (const auto& c : request.creations)
    if (unknown(c.resource_type, c.resource_pattern_type, c.operation, c.permission_type))
      return std::string("CreateAcls names an UNKNOWN resource type, pattern type, operation or permission");
  return std::nullopt;
}

std::optional<std::string> unreadable(const msg::delete_acls_request& request) {
  for (const auto& f : request.filters)
    if (unknown(f.resource_type_filter, f.pattern_type_filter, f.operation, f.permission_type))
      return std::string("DeleteAcls names an UNKNOWN resource type, pattern type, operation or permission");
  return std::nullopt;
}

std::optional<std::string> unreadable(const msg::describe_acls_request& request) {
  if (unknown(request.resource_type_filter, request.pattern_type_filter, request.operation, request.permission_type))
    return std::string("DescribeAcls names an UNKNOWN resource type, pattern type, operation or permission");
  return std::nullopt;
}

}  // namespace hw::broker
