// kafka-acls.sh: DescribeAcls, CreateAcls and DeleteAcls (acls.h), sent
// where Kafka's admin client sends them (any broker, or any controller
// under --bootstrap-controller) and failing as the futures AclCommand
// waits on fail.

#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "tools/client/connection.h"
#include "tools/commands/acls.h"

namespace hw::tools::acls {
namespace {

namespace msg = protocol::msg;

int8_t id(auto e) { return static_cast<int8_t>(e); }

// The exception Kafka's admin client raises for an error code: the
// broker's message when it sent one, else the code's default.
std::string kafka_exception(int16_t code, const std::optional<std::string>& message) {
  return java_exception_class(code) + ": " + (message ? *message : error_message(code));
}

template <class Filter>
void set_filter(Filter* f, const resource& r, const std::optional<entry>& e) {
  f->resource_type_filter = id(r.type);
  f->resource_name_filter = r.name;
  f->pattern_type_filter = id(r.pattern);
  f->principal_filter = e ? std::optional<std::string>(e->principal) : std::nullopt;
  f->host_filter = e ? std::optional<std::string>(e->host) : std::nullopt;
  f->operation = id(e ? e->operation : acl_operation::any);
  f->permission_type = id(e ? e->permission : acl_permission::any);
}

}  // namespace

admin_client* acl_admin::client(const std::string& call, std::optional<failure>* f) {
  if (admin_) return admin_.get();
  std::string why;
  admin_ = connect_(&why);
  if (admin_) return admin_.get();
  if (connection::authentication_failure(why))
    *f = execution(why);  // the call fails with the authentication error
  else if (why.find("not supported by the native tools") != std::string::npos || why.starts_with("Invalid value"))
    *f = failure{failure::kind::executing, why, {"org.apache.kafka.common.config.ConfigException: " + why}};
  else
    *f = execution("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: " +
                   call);
  return nullptr;
}

// Sends req to any node until it answers or the call's deadline passes.
template <class Req, class Resp>
std::optional<failure> acl_admin::call(const std::string& call, const char* api, const Req& req, Resp* resp) {
  std::optional<failure> f;
  if (!client(call, &f)) return f;
  std::string error;
  while (!admin_->call(admin_client::any_node, req, resp, &error)) {
    if (admin_client::unsupported(error))
      return execution(std::string("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not "
                                   "support ") + api);
    if (connection::authentication_failure(error)) return execution(error);
    if (!admin_->back_off())
      return execution("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. "
                       "Call: " + call);
  }
  return std::nullopt;
}

std::optional<failure> acl_admin::describe(const std::optional<resource>& filter, std::vector<acl_entry>* out) {
  msg::describe_acls_request req;
  if (filter) {
    set_filter(&req, *filter, std::nullopt);
  } else {  // AclBindingFilter.ANY
    set_filter(&req, {acl_resource_type::any, "", acl_pattern_type::any}, std::nullopt);
    req.resource_name_filter.reset();
  }
  msg::describe_acls_response resp;
  if (auto f = call("describeAcls", "DESCRIBE_ACLS", req, &resp)) return f;
  if (resp.error_code != 0) return execution(kafka_exception(resp.error_code, resp.error_message));
  out->clear();
  for (const auto& r : resp.resources)
    for (const auto& a : r.acls)
      out->push_back(protocol::acl_entry_of(r.resource_type, r.resource_name, r.pattern_type, a.principal, a.host,
                                            a.operation, a.permission_type));
  return std::nullopt;
}

std::optional<failure> acl_admin::create(const std::vector<acl_entry>& bindings) {
  msg::create_acls_request req;
  for (const auto& b : bindings) {
    auto& c = req.creations.emplace_back();
    c.resource_type = id(b.resource_type);
    c.resource_name = b.resource_name;
    c.resource_pattern_type = id(b.pattern_type);
    c.principal = b.principal;
    c.host = b.host;
    c.operation = id(b.operation);
    c.permission_type = id(b.permission);
  }
  msg::create_acls_response resp;
  if (auto f = call("createAcls", "CREATE_ACLS", req, &resp)) return f;
  for (const auto& r : resp.results)  // all(): the first binding that failed
    if (r.error_code != 0) return execution(kafka_exception(r.error_code, r.error_message));
  return std::nullopt;
}

std::optional<failure> acl_admin::remove(const resource& filter, const std::vector<std::optional<entry>>& entries) {
  msg::delete_acls_request req;
  for (const auto& e : entries) set_filter(&req.filters.emplace_back(), filter, e);
  msg::delete_acls_response resp;
  if (auto f = call("deleteAcls", "DELETE_ACLS", req, &resp)) return f;
  for (const auto& r : resp.filter_results) {
    if (r.error_code != 0) return execution(kafka_exception(r.error_code, r.error_message));
    for (const auto& m : r.matching_acls)
      if (m.error_code != 0) return execution(kafka_exception(m.error_code, m.error_message));
  }
  return std::nullopt;
}

}  // namespace hw::tools::acls
