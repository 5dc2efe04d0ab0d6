// kafka-delegation-tokens.sh: the four admin calls (delegation_tokens.h),
// each sent to the node the client bootstrapped from (Kafka's admin client
// sends them to the least loaded node) at the newest version both sides
// speak, failing as the futures DelegationTokenCommand waits on fail: an
// error code becomes its exception with Kafka's default message (the
// responses carry none).

#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/describe_delegation_token.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/renew_delegation_token.h"
#include "tools/client/connection.h"
#include "tools/commands/delegation_tokens.h"

namespace hw::tools::dtokens {
namespace {

namespace msg = protocol::msg;

failure node_timeout(const std::string& call) {
  return execution("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: " +
                   call);
}

failure error_of(int16_t code) { return execution(java_exception_class(code) + ": " + error_message(code)); }

}  // namespace

template <class Req, class Resp>
std::optional<failure> token_admin::call(const char* call_name, const char* api, const Req& req, Resp* resp) {
  if (!admin_) {
    std::string why;
    admin_ = connect_(&why);
    if (!admin_) {
      if (connection::authentication_failure(why)) return execution(why);  // the call fails with the login's error
      if (why.starts_with("Invalid value"))
        return thrown("org.apache.kafka.common.config.ConfigException", why);
      if (why.find("not supported by the native tools") != std::string::npos) return failure{false, why, {}};
      return node_timeout(call_name);
    }
  }
  std::string error;
  while (!admin_->call(admin_client::any_node, req, resp, &error)) {
    if (admin_client::unsupported(error))
      return execution(std::string("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not "
                                   "support ") + api);
    if (connection::authentication_failure(error)) return execution(error);
    if (!admin_->back_off()) return node_timeout(call_name);
  }
  return std::nullopt;
}

std::optional<failure> token_admin::create(const std::vector<principal>& renewers,
                                           const std::optional<principal>& owner, int64_t max_life_ms, token* out) {
  msg::create_delegation_token_request req;
  for (const auto& r : renewers) {
    auto& c = req.renewers.emplace_back();
    c.principal_type = r.type;
    c.principal_name = r.name;
  }
  req.max_lifetime_ms = max_life_ms;
  if (owner) {
    req.owner_principal_type = owner->type;
    req.owner_principal_name = owner->name;
  }
  msg::create_delegation_token_response resp;
  if (auto f = call("createDelegationToken", "CREATE_DELEGATION_TOKEN", req, &resp)) return f;
  if (resp.error_code != 0) return error_of(resp.error_code);
  out->token_id = resp.token_id;
  out->hmac = resp.hmac;
  out->owner = {resp.principal_type, resp.principal_name};
  out->requester = {resp.token_requester_principal_type, resp.token_requester_principal_name};
  out->renewers = renewers;
  out->issue = resp.issue_timestamp_ms;
  out->expiry = resp.expiry_timestamp_ms;
  out->max = resp.max_timestamp_ms;
  return std::nullopt;
}

std::optional<failure> token_admin::renew(const std::vector<uint8_t>& hmac, int64_t period_ms, int64_t* expiry) {
  msg::renew_delegation_token_request req;
  req.hmac = hmac;
  req.renew_period_ms = period_ms;
  msg::renew_delegation_token_response resp;
  if (auto f = call("renewDelegationToken", "RENEW_DELEGATION_TOKEN", req, &resp)) return f;
  if (resp.error_code != 0) return error_of(resp.error_code);
  *expiry = resp.expiry_timestamp_ms;
  return std::nullopt;
}

std::optional<failure> token_admin::expire(const std::vector<uint8_t>& hmac, int64_t period_ms, int64_t* expiry) {
  msg::expire_delegation_token_request req;
  req.hmac = hmac;
  req.expiry_time_period_ms = period_ms;
  msg::expire_delegation_token_response resp;
  if (auto f = call("expireDelegationToken", "EXPIRE_DELEGATION_TOKEN", req, &resp)) return f;
  if (resp.error_code != 0) return error_of(resp.error_code);
  *expiry = resp.expiry_timestamp_ms;
  return std::nullopt;
}

std::optional<failure> token_admin::describe(const std::vector<principal>& owners, std::vector<token>* out) {
  msg::describe_delegation_token_request req;
  req.owners.emplace();
  for (const auto& o : owners) {
    auto& d = req.owners->emplace_back();
    d.principal_type = o.type;
    d.principal_name = o.name;
  }
  msg::describe_delegation_token_response resp;
  if (auto f = call("describeDelegationToken", "DESCRIBE_DELEGATION_TOKEN", req, &resp)) return f;
  if (resp.error_code != 0) return error_of(resp.error_code);
  out->clear();
  for (const auto& d : resp.tokens) {
    token t;
    t.token_id = d.token_id;
    t.hmac = d.hmac;
    t.owner = {d.principal_type, d.principal_name};
    t.requester = {d.token_requester_principal_type, d.token_requester_principal_name};
    for (const auto& r : d.renewers) t.renewers.push_back({r.principal_type, r.principal_name});
    t.issue = d.issue_timestamp;
    t.expiry = d.expiry_timestamp;
    t.max = d.max_timestamp;
    out->push_back(std::move(t));
  }
  return std::nullopt;
}

}  // namespace hw::tools::dtokens
