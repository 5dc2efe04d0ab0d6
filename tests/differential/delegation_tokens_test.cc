// Delegation tokens (KIP-48): CreateDelegationToken (38),
// RenewDelegationToken (39), ExpireDelegationToken (40) and
// DescribeDelegationToken (41) sent to Kafka 4.3.1 and Highwater alike, as
// fresh SCRAM users with no rights (an owner, a renewer, a stranger) and as
// the super user admin, answers compared field by field, at the lowest and
// highest version of each API. Both brokers sign tokens with the same
// delegation.token.secret.key and bound them alike (a maximum lifetime of
// 2 h, an expiry of 1 h: twin_environment.cc), but each makes its own
// token ids, HMACs and timestamps. So a request that names a token's HMAC
// goes to each broker with its own (call_each), and the comparison sees
// token ids and HMACs by their length (an HMAC is the token's password:
// never shown) and a token's expiry and maximum relative to its issue;
// where an answer's time is the moment of the request plus a period (a
// renewal), each broker's is checked against the request's moment.
//
// What Kafka does, step by step (KafkaApis, ControllerApis,
// DelegationTokenControlManager, DelegationTokenManager):
// - the broker refuses on PLAINTEXT, one-way TLS and any connection logged
//   in with a token (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, timestamps -1);
//   a token for another owner needs CREATE_TOKENS on that User
//   (DELEGATION_TOKEN_AUTHORIZATION_FAILED), a renewer that is not a User is
//   INVALID_PRINCIPAL_TYPE; the rest is forwarded to the controller;
// - the controller: expiry = issue + min(max, expiry time), max = issue +
//   (the request's max_lifetime_ms when positive and smaller, else the
//   broker's); an HMAC of no token DELEGATION_TOKEN_NOT_FOUND, a renewal or
//   expiry by anyone but the owner or a renewer DELEGATION_TOKEN_OWNER_MISMATCH
//   (a super user and the token's requester included), a token past its
//   expiry DELEGATION_TOKEN_EXPIRED (but expiring it at once still works);
// - Describe answers from the broker's token cache: a token whose owner,
//   requester or renewer is the one asking, or that it may DESCRIBE, or
//   whose owner it may DESCRIBE_TOKENS, filtered by the owners asked about
//   (owner, requester or renewer again);
// - a SCRAM login with a token's id, its HMAC in base64 and tokenauth=true
//   is its owner's, for as long as the token's expiry.

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_delegation_token.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/renew_delegation_token.h"
#include "protocol/sasl/scram.h"
#include "protocol/sasl/scram_client.h"
#include "sasl_story.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using create_request = msg::create_delegation_token_request;
using create_response = msg::create_delegation_token_response;
using renew_request = msg::renew_delegation_token_request;
using renew_response = msg::renew_delegation_token_response;
using expire_request = msg::expire_delegation_token_request;
using expire_response = msg::expire_delegation_token_response;
using describe_request = msg::describe_delegation_token_request;
using describe_response = msg::describe_delegation_token_response;

constexpr int16_t k_create = 38, k_renew = 39, k_expire = 40, k_describe = 41;
constexpr int16_t k_describe_acls = 29, k_create_acls = 30, k_delete_acls = 31;
constexpr int16_t k_not_found = 62;
// twin_environment.cc's delegation.token.max.lifetime.ms and .expiry.time.ms.
constexpr int64_t k_max_lifetime_ms = 7'200'000, k_expiry_time_ms = 3'600'000;
constexpr const char* k_password = "dt-secret";  // every SCRAM user's here

// ---- What the comparison sees -------------------------------------------------

// A dump line's number ("-1", "1733...").
int64_t number(const std::string& value) { return std::stoll(value); }

// The answer as the comparison sees it: an HMAC as its length, a token id
// as its length (each broker makes its own), a token's expiry and maximum
// as "issue + <ms>" and its issue as "(issued)" (each broker's own clock).
// Refusals' -1s, zeros and empty ids stay as they are.
dump_lines comparable(const dump_lines& lines) {
  auto field = [](const std::string& path) { return path.substr(path.rfind('.') + 1); };
  auto parent = [](const std::string& path) { return path.substr(0, path.rfind('.') + 1); };  // "tokens[0]." or ""
  std::vector<std::pair<std::string, int64_t>> issued;  // (parent, issue)
  for (const auto& l : lines)
    if ((field(l.path) == "issue_timestamp_ms" || field(l.path) == "issue_timestamp") && number(l.value) > 0)
      issued.emplace_back(parent(l.path), number(l.value));
  auto issue_of = [&](const std::string& path) -> std::optional<int64_t> {
    for (const auto& [p, at] : issued)
      if (p == parent(path)) return at;
    return std::nullopt;
  };
  dump_lines out = lines;
  for (auto& l : out) {
    const std::string f = field(l.path);
    if (f == "hmac") {
      l.value = l.value.substr(l.value.rfind('('));  // "0x... (64 bytes)" → "(64 bytes)"
    } else if (f == "token_id" && l.value != "\"\"") {
      l.value = "(" + std::to_string(l.value.size() - 2) + " characters)";
    } else if (auto at = issue_of(l.path)) {
      if (f == "issue_timestamp_ms" || f == "issue_timestamp") l.value = "(issued)";
      if (f.starts_with("expiry_timestamp") || f.starts_with("max_timestamp"))
        l.value = "issue + " + std::to_string(number(l.value) - *at);
    }
  }
  return out;
}

// expect_same on what the comparison sees of both answers.
bool expect_same_tokens(exchange e, const allowlist& extra = {}) {
  for (auto& a : e.answers)
    if (a.error.empty()) a.lines = comparable(a.lines);
  return expect_same(e, extra);
}

// A Renew or Expire answer's expiry: the moment of the request plus a
// period, each broker's own (checked by expect_expiry).
const allowlist& expiry_allowed() {
  static const allowlist k = {
      {"expiry_timestamp_ms", allowed::rule::any_value,
       "the broker's clock at the request plus a period: checked alone (expect_expiry)"}};
  return k;
}

// ---- Tokens ---------------------------------------------------------------------

// The token each broker made for the same request (Kafka's first).
struct twin_token {
  std::array<create_response, 2> made;
  const create_response& of(side s) const { return made[static_cast<int>(s)]; }
  const std::vector<uint8_t>& hmac(side s) const { return of(s).hmac; }
};

create_request creating(const std::vector<std::string>& renewers = {}, int64_t max_lifetime_ms = -1) {
  create_request r;
  r.owner_principal_type.reset();  // none, as Kafka's admin client sends for the requester's own
  r.owner_principal_name.reset();
  for (const auto& name : renewers) {
    auto& renewer = r.renewers.emplace_back();
    renewer.principal_type = "User";
    renewer.principal_name = name;
  }
  r.max_lifetime_ms = max_lifetime_ms;
  return r;
}

create_request for_owner(create_request r, const std::string& type, const std::string& name) {
  r.owner_principal_type = type;
  r.owner_principal_name = name;
  return r;
}

// Describe every token the asker may see (owners null).
describe_request all_tokens() {
  describe_request r;
  r.owners.reset();
  return r;
}

// Describe the tokens of these Users (as owner, requester or renewer).
describe_request owned_by(const std::vector<std::string>& users) {
  describe_request r;
  r.owners.emplace();
  for (const auto& name : users) {
    auto& owner = r.owners->emplace_back();
    owner.principal_type = "User";
    owner.principal_name = name;
  }
  return r;
}

// Whether side s's Describe, asked by the super user admin (who sees every
// token), lists this token id.
bool described(twin& admin, side s, const std::string& token_id) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  all_tokens().encode(w, 3);
  auto a = admin.send(s, k_describe, 3, body);
  if (!a.error.empty()) return false;
  const auto r = a.as<describe_response>(3);
  return std::any_of(r.tokens.begin(), r.tokens.end(), [&](const auto& t) { return t.token_id == token_id; });
}

// Setup: waits until each broker's Describe lists the token (wanted) or no
// longer does: Kafka applies a token's record to its cache a moment after
// answering.
void wait_described(const twin_token& token, bool wanted) {
  twin admin("SASL_PLAINTEXT", "admin", "admin-secret");
  ASSERT_TRUE(admin.connected());
  for (side s : k_sides) {
    const bool settled =
        wait_until([&] { return described(admin, s, token.of(s).token_id) == wanted; }, 20s);
    ASSERT_TRUE(settled) << side_name(s) << (wanted ? " never listed the token" : " still lists the token");
  }
}

// How long a token lasts from its issue: until its expiry (unless
// renewed), and at most.
struct lifetimes {
  int64_t expiry_ms;
  int64_t max_ms;
};
constexpr lifetimes k_broker_lifetimes{k_expiry_time_ms, k_max_lifetime_ms};

// Creates a token with this request, compares the answers, checks that
// each broker issued it during the request for the lifetimes expected
// (what Kafka gives), and waits until both list it.
twin_token create_token(twin& as, const std::string& what, const create_request& req, lifetimes expected,
                        int16_t version = 3) {
  const int64_t before = now_ms();
  auto e = as.call(what, k_create, version, req);
  const int64_t after = now_ms();
  expect_same_tokens(e);
  twin_token token;
  bool made = true;
  for (side s : k_sides) {
    made = made && e.of(s).error.empty();
    if (!e.of(s).error.empty()) continue;
    token.made[static_cast<int>(s)] = e.as<create_response>(s);
    const auto& r = token.of(s);
    made = made && r.error_code == 0;
    EXPECT_EQ(r.error_code, 0) << side_name(s) << ": " << what;
    EXPECT_TRUE(r.issue_timestamp_ms >= before && r.issue_timestamp_ms <= after)
        << side_name(s) << ": " << what << " issued " << r.issue_timestamp_ms - before << " ms after the request";
    EXPECT_EQ(r.expiry_timestamp_ms - r.issue_timestamp_ms, expected.expiry_ms) << side_name(s) << ": " << what;
    EXPECT_EQ(r.max_timestamp_ms - r.issue_timestamp_ms, expected.max_ms) << side_name(s) << ": " << what;
  }
  if (made) wait_described(token, true);
  return token;
}

// Renew or Expire of each broker's token (its own HMAC) with this period.
template <class Request>
exchange with_hmac(twin& as, const std::string& what, int16_t key, int16_t version, const twin_token& token,
                   int64_t period) {
  return as.call_each(what, key, version, [&](side s) {
    Request r;
    r.hmac = token.hmac(s);
    if constexpr (std::is_same_v<Request, renew_request>)
      r.renew_period_ms = period;
    else
      r.expiry_time_period_ms = period;
    return r;
  });
}

// Each broker's expiry in a successful Renew or Expire: `period` after the
// moment it was asked (between before and after), or the token's maximum
// when that comes first; a period of 0 is the moment itself.
template <class Response>
void expect_expiry(const exchange& e, const twin_token& token, int64_t period, int64_t before, int64_t after) {
  for (side s : k_sides) {
    if (!e.of(s).error.empty()) continue;
    const int64_t got = e.as<Response>(s).expiry_timestamp_ms, max = token.of(s).max_timestamp_ms;
    const int64_t low = std::min(before + period, max), high = std::min(after + period, max);
    EXPECT_TRUE(got >= low && got <= high) << side_name(s) << ": " << e.what << ": expiry " << got - before
                                           << " ms after the request, expected " << period << " (or the maximum, "
                                           << max - before << ")";
  }
}

// ---- Users ---------------------------------------------------------------------

// A test's SCRAM users: fresh names, no ACLs, not super users.
struct users {
  std::string owner, renewer, stranger;
};

users make_users(twin& t) {
  const std::string p = fresh_name("dt");
  users u{p + "-owner", p + "-renewer", p + "-stranger"};
  for (const auto& name : {u.owner, u.renewer, u.stranger}) add_scram_user(t, name, k_password);
  return u;
}

// A twin logged in as this SCRAM user on SASL_PLAINTEXT of both brokers.
std::unique_ptr<twin> logged_in(const std::string& user) {
  const sasl_credentials who{"SCRAM-SHA-256", user, k_password};
  auto t = std::make_unique<twin>("SASL_PLAINTEXT", std::array{who, who});
  EXPECT_TRUE(t->connected()) << user << " could not log in";
  return t;
}

// A twin logged in with each broker's token (SCRAM-SHA-512, tokenauth=true).
std::unique_ptr<twin> logged_in_with(const twin_token& token) {
  auto who = [&](side s) {
    return sasl_credentials{"SCRAM-SHA-512", token.of(s).token_id, protocol::scram::base64(token.hmac(s)), true};
  };
  auto t = std::make_unique<twin>("SASL_PLAINTEXT", std::array{who(side::kafka), who(side::highwater)});
  EXPECT_TRUE(t->connected()) << "the token login failed";
  return t;
}

// Sorted rows of the tokens a Describe lists whose owner's name starts with
// prefix (a super user sees other tests' tokens too): what both brokers
// share of each, in an order of their own (Kafka lists its cache in hash
// order).
using token_row = std::tuple<std::string, std::string, std::vector<std::string>, int64_t, int64_t, size_t, size_t>;
std::vector<token_row> rows(const describe_response& r, const std::string& prefix) {
  std::vector<token_row> out;
  for (const auto& t : r.tokens) {
    if (!t.principal_name.starts_with(prefix)) continue;
    std::vector<std::string> renewers;
    for (const auto& x : t.renewers) renewers.push_back(x.principal_type + ":" + x.principal_name);
    out.emplace_back(t.principal_type + ":" + t.principal_name,
                     t.token_requester_principal_type + ":" + t.token_requester_principal_name, renewers,
                     t.expiry_timestamp - t.issue_timestamp, t.max_timestamp - t.issue_timestamp, t.hmac.size(),
                     t.token_id.size());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_same_rows(const exchange& e, const std::string& prefix, size_t count) {
  ASSERT_TRUE(e.of(side::kafka).error.empty() && e.of(side::highwater).error.empty()) << e.what;
  const auto k = e.as<describe_response>(side::kafka), h = e.as<describe_response>(side::highwater);
  EXPECT_EQ(h.error_code, k.error_code) << e.what;
  EXPECT_EQ(rows(h, prefix), rows(k, prefix)) << e.what;
  EXPECT_EQ(rows(k, prefix).size(), count) << e.what << ": Kafka's tokens";
}

// ---- Stories on the TLS listeners and of token logins ----------------------------

// What both brokers share of a CreateDelegationToken answer.
std::string told(const create_response& r) {
  std::string line = "error " + std::to_string(r.error_code) + " owner " + r.principal_type + ":" + r.principal_name +
                     " requester " + r.token_requester_principal_type + ":" + r.token_requester_principal_name;
  if (r.issue_timestamp_ms > 0)
    line += ", expiry issue + " + std::to_string(r.expiry_timestamp_ms - r.issue_timestamp_ms) + ", max issue + " +
            std::to_string(r.max_timestamp_ms - r.issue_timestamp_ms);
  else
    line += ", issue " + std::to_string(r.issue_timestamp_ms) + " expiry " + std::to_string(r.expiry_timestamp_ms) +
            " max " + std::to_string(r.max_timestamp_ms);
  return line + ", a token id of " + std::to_string(r.token_id.size()) + " characters, an HMAC of " +
         std::to_string(r.hmac.size()) + " bytes";
}

// CreateDelegationToken v3 for the requester; then, if the broker made
// one, ExpireDelegationToken v2 of it at once (none is left behind).
// Kafka's controller knows a token a moment after answering its creation
// (its cache follows the record): until then it answers
// DELEGATION_TOKEN_NOT_FOUND, and the expiry is asked again.
void create_then_expire(story_session& s) {
  auto made = s.call<create_response>("CreateDelegationToken", k_create, 3, creating());
  if (!made) return;
  s.note("CreateDelegationToken v3: " + told(*made));
  if (made->error_code != 0) return;
  expire_request req;
  req.hmac = made->hmac;
  req.expiry_time_period_ms = -1;
  std::optional<expire_response> gone;
  int64_t before = 0, after = 0;
  wait_until(
      [&] {
        before = now_ms();
        gone = s.call<expire_response>("ExpireDelegationToken", k_expire, 2, req);
        after = now_ms();
        return !gone || gone->error_code != k_not_found;
      },
      10s);
  if (!gone) return;
  const int64_t at = gone->expiry_timestamp_ms;
  s.note("ExpireDelegationToken v2: error " + std::to_string(gone->error_code) + ", expiry " +
         (at >= before && at <= after ? std::string("now") : std::to_string(at - before) + " ms after the request"));
}

// A SCRAM login, told: the server-first's iterations (nonce and salt are
// random), each answer's error, message and lifetime ("exp - now" when it
// is the credential's remaining time), the server-final checked. With
// token, user is a token id and password its HMAC in base64.
void scram_login(story_session& s, const std::string& user, const std::string& password, bool token,
                 protocol::scram_mechanism mechanism = protocol::scram_mechanism::sha512) {
  handshake(s, protocol::scram_mechanism_name(mechanism));
  protocol::scram_client client(mechanism, user, password);
  client.set_token_auth(token);
  auto note = [&](const sasl_answer& a) {
    const auto& r = a.response;
    s.note("SaslAuthenticate: error " + std::to_string(r.error_code) + " message " +
           (r.error_message ? "'" + *r.error_message + "'" : std::string("null")) + " lifetime " +
           told_lifetime(s, a));
  };
  auto first = sasl_authenticate(s, bytes_of(client.client_first()));
  if (!first) return;
  note(*first);
  if (first->response.error_code != 0) return s.note_close();
  const std::string server_first = text_of(first->response.auth_bytes);
  const auto i = server_first.find(",i=");
  s.note("server-first with " + (i == std::string::npos ? std::string("no iterations") : server_first.substr(i + 1)));
  std::string why;
  auto final_message = client.client_final(server_first, &why);
  if (!final_message) return s.note("client refuses server-first: " + why);
  auto last = sasl_authenticate(s, bytes_of(*final_message));
  if (!last) return;
  note(*last);
  if (last->response.error_code != 0) return s.note_close();
  s.note(client.verify_server_final(text_of(last->response.auth_bytes), &why) ? "server-final verifies"
                                                                             : "server-final refused: " + why);
}

// Both brokers' token logins as a script: each uses its own token.
script token_login(const twin_token& token, const std::function<std::string(side)>& password,
                   protocol::scram_mechanism mechanism = protocol::scram_mechanism::sha512) {
  return [&token, password, mechanism](story_session& s) {
    s.credential_expiry_ms = token.of(s.turn()).expiry_timestamp_ms;
    scram_login(s, token.of(s.turn()).token_id, password(s.turn()), true, mechanism);
  };
}

// ---- ACLs on the User resource -----------------------------------------------

constexpr int8_t k_user_resource = 7, k_literal = 3, k_create_tokens = 13, k_describe_tokens = 14, k_allow = 3;

msg::describe_acls_request acls_of(const std::string& principal) {
  msg::describe_acls_request r;
  r.resource_type_filter = k_user_resource;
  r.resource_name_filter = std::nullopt;
  r.pattern_type_filter = k_literal;
  r.principal_filter = principal;
  r.host_filter = std::nullopt;
  r.operation = 1;  // ANY
  r.permission_type = 1;
  return r;
}

// Setup: lets principal CREATE_TOKENS or DESCRIBE_TOKENS for owner (on
// both brokers, through the twin's PLAINTEXT connection of a super user)
// and waits until both authorizers have it.
void allow(twin& t, const std::string& principal, int8_t operation, const std::string& owner) {
  msg::create_acls_request req;
  auto& c = req.creations.emplace_back();
  c.resource_type = k_user_resource;
  c.resource_name = owner;
  c.resource_pattern_type = k_literal;
  c.principal = principal;
  c.host = "*";
  c.operation = operation;
  c.permission_type = k_allow;
  auto e = t.call("allow", k_create_acls, 3, req);
  for (side s : k_sides) {
    ASSERT_TRUE(e.of(s).error.empty()) << side_name(s) << ": " << e.of(s).error;
    const auto r = e.as<msg::create_acls_response>(s);
    ASSERT_TRUE(r.results.size() == 1 && r.results[0].error_code == 0) << side_name(s) << " refused the ACL";
    const bool applied = wait_until(
        [&] {
          std::vector<uint8_t> body;
          protocol::writer w(body);
          acls_of(principal).encode(w, 3);
          auto a = t.send(s, k_describe_acls, 3, body);
          if (!a.error.empty()) return false;
          for (const auto& resource : a.as<msg::describe_acls_response>(3).resources)
            for (const auto& acl : resource.acls)
              if (resource.resource_name == owner && acl.operation == operation) return true;
          return false;
        },
        20s);
    ASSERT_TRUE(applied) << side_name(s) << " never applied the ACL";
  }
}

void remove_acls(twin& t, const std::string& principal) {
  msg::delete_acls_request req;
  const auto f = acls_of(principal);
  auto& d = req.filters.emplace_back();
  d.resource_type_filter = f.resource_type_filter;
  d.resource_name_filter = f.resource_name_filter;
  d.pattern_type_filter = f.pattern_type_filter;
  d.principal_filter = f.principal_filter;
  d.host_filter = f.host_filter;
  d.operation = f.operation;
  d.permission_type = f.permission_type;
  t.call("remove the ACLs", k_delete_acls, 3, req);
}

class DelegationTokenTest : public DifferentialTest {};

// ---- Where tokens may be asked for -------------------------------------------

TEST_F(DelegationTokenTest, RefusedWithoutAuthentication) {
  // The twin's PLAINTEXT connection: every API at its lowest and highest
  // version, refused before anything is looked up.
  for (int16_t v : {1, 3}) expect_same_tokens(t().call("Create on PLAINTEXT", k_create, v, creating()));
  renew_request renew;
  renew.hmac = bytes_of("not a token's HMAC");
  expire_request expire;
  expire.hmac = renew.hmac;
  for (int16_t v : {1, 2}) {
    expect_same(t().call("Renew on PLAINTEXT", k_renew, v, renew));
    expect_same(t().call("Expire on PLAINTEXT", k_expire, v, expire));
  }
  for (int16_t v : {1, 3}) expect_same(t().call("Describe on PLAINTEXT", k_describe, v, all_tokens()));
  // An owner's name without a type fails Kafka's handler before anything.
  auto untyped = for_owner(creating(), "User", "someone");
  untyped.owner_principal_type.reset();
  expect_same_tokens(t().call("Create on PLAINTEXT for an owner without a type", k_create, 3, untyped));
  // One-way TLS is as anonymous; a client certificate (alice's) or a SASL
  // login over TLS (admin) may ask.
  tls_client tls;
  tls.ca_file = certificates_dir() + "/ca.crt";
  expect_same_story("a token on SSL", "SSL", create_then_expire, tls);
  tls_client alice = tls;
  alice.chain_file = certificates_dir() + "/alice.chain.pem";
  alice.key_file = certificates_dir() + "/alice.key.pem";
  alice.key_password = "differential-secret";
  expect_same_story("a token on MTLS", "MTLS", create_then_expire, alice);
  expect_same_story("a token on SASL_SSL", "SASL_SSL", [](story_session& s) {
    handshake(s, "PLAIN");
    if (auto a = sasl_authenticate(s, bytes_of(protocol::plain_client_token("admin", "admin-secret"))))
      s.note("SaslAuthenticate: error " + std::to_string(a->response.error_code));
    create_then_expire(s);
  }, tls);
}

// ---- CreateDelegationToken -----------------------------------------------------

TEST_F(DelegationTokenTest, CreateAsAScramUser) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  // The broker's bounds: an hour's expiry within two hours' life.
  create_token(*owner, "Create v3 with a renewer", creating({u.renewer}), k_broker_lifetimes);
  create_token(*owner, "Create v1", creating({}), k_broker_lifetimes, 1);
  // A shorter life bounds both; a longer one, or none (0), the broker's.
  create_token(*owner, "Create v3 for a minute", creating({}, 60'000), {60'000, 60'000});
  create_token(*owner, "Create v1 for a minute", creating({u.renewer, u.stranger}, 60'000), {60'000, 60'000}, 1);
  create_token(*owner, "Create v3 for ten days", creating({}, 10LL * 24 * 3600 * 1000), k_broker_lifetimes);
  create_token(*owner, "Create v3 with max_lifetime_ms 0", creating({}, 0), k_broker_lifetimes);
  // The requester named as the owner, or an empty owner name: the
  // requester's own.
  create_token(*owner, "Create v3 for the requester by name", for_owner(creating(), "User", u.owner),
               k_broker_lifetimes);
  create_token(*owner, "Create v3 with an empty owner name", for_owner(creating(), "User", ""), k_broker_lifetimes);
  // Refused by the broker (timestamps -1, no token).
  auto grouped = creating({u.renewer});
  grouped.renewers[0].principal_type = "Group";
  for (int16_t v : {1, 3}) expect_same_tokens(owner->call("Create with a Group renewer", k_create, v, grouped));
  // Describe as the owner: every one of them (eight), as sets.
  for (int16_t v : {1, 3})
    expect_same_rows(owner->call("Describe as the owner", k_describe, v, all_tokens()), u.owner, 8);
}

TEST_F(DelegationTokenTest, CreateForAnotherOwner) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  // Without CREATE_TOKENS on User:<stranger>, or on a principal that is no
  // User.
  expect_same_tokens(owner->call("Create for another user", k_create, 3, for_owner(creating(), "User", u.stranger)));
  expect_same_tokens(owner->call("Create for a group", k_create, 3, for_owner(creating(), "Group", u.owner)));
  // An owner's name without a type: Kafka's principal cannot be made, and
  // its handler fails (UNKNOWN_SERVER_ERROR, as from User:ANONYMOUS).
  auto untyped = for_owner(creating(), "User", u.stranger);
  untyped.owner_principal_type.reset();
  expect_same_tokens(owner->call("Create for an owner without a type", k_create, 3, untyped));
  // The super user may: the token is the owner's, admin its requester.
  twin admin("SASL_PLAINTEXT", "admin", "admin-secret");
  ASSERT_TRUE(admin.connected());
  create_token(admin, "Create by admin for the owner", for_owner(creating(), "User", u.owner), k_broker_lifetimes);
  for (int16_t v : {1, 3}) expect_same_tokens(owner->call("Describe as the owner", k_describe, v, all_tokens()));
  // Its requester is one of the principals a token is described for.
  expect_same_rows(admin.call("Describe admin's as admin", k_describe, 3, owned_by({"admin"})), u.owner, 1);
  // With CREATE_TOKENS on User:<owner> the stranger may too, and as its
  // requester sees it, but may not renew it (only the owner and renewers
  // may).
  allow(t(), "User:" + u.stranger, k_create_tokens, "User:" + u.owner);
  auto stranger = logged_in(u.stranger);
  const twin_token by_stranger =
      create_token(*stranger, "Create by the stranger for the owner", for_owner(creating(), "User", u.owner),
                   k_broker_lifetimes);
  remove_acls(t(), "User:" + u.stranger);
  expect_same_tokens(stranger->call("Describe as the stranger", k_describe, 3, all_tokens()));
  expect_same_tokens(stranger->call("Describe the stranger's as the stranger", k_describe, 3, owned_by({u.stranger})));
  expect_same(with_hmac<renew_request>(*stranger, "Renew by its requester", k_renew, 2, by_stranger, -1));
  // The owner sees both, the one admin asked for and the stranger's.
  expect_same_rows(owner->call("Describe as the owner", k_describe, 3, all_tokens()), u.owner, 2);
  expect_same_rows(admin.call("Describe the owner's as admin", k_describe, 3, owned_by({u.owner})), u.owner, 2);
}

// ---- DescribeDelegationToken ----------------------------------------------------

TEST_F(DelegationTokenTest, DescribeShowsATokenToWhomItConcerns) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  create_token(*owner, "Create with a renewer", creating({u.renewer}), k_broker_lifetimes);
  auto renewer = logged_in(u.renewer);
  auto stranger = logged_in(u.stranger);
  for (int16_t v : {1, 3}) {
    const std::string at = " v" + std::to_string(v);
    expect_same_tokens(owner->call("all, as the owner" + at, k_describe, v, all_tokens()));
    expect_same_tokens(owner->call("none, as the owner" + at, k_describe, v, owned_by({})));
    expect_same_tokens(owner->call("the owner's, as the owner" + at, k_describe, v, owned_by({u.owner})));
    expect_same_tokens(owner->call("the stranger's, as the owner" + at, k_describe, v, owned_by({u.stranger})));
    expect_same_tokens(renewer->call("all, as the renewer" + at, k_describe, v, all_tokens()));
    expect_same_tokens(renewer->call("the renewer's, as the renewer" + at, k_describe, v, owned_by({u.renewer})));
    expect_same_tokens(stranger->call("all, as the stranger" + at, k_describe, v, all_tokens()));
    expect_same_tokens(stranger->call("the owner's, as the stranger" + at, k_describe, v, owned_by({u.owner})));
  }
  twin admin("SASL_PLAINTEXT", "admin", "admin-secret");
  ASSERT_TRUE(admin.connected());
  expect_same_tokens(admin.call("the owner's, as admin", k_describe, 3, owned_by({u.owner})));
  // DESCRIBE_TOKENS on User:<owner> shows the stranger the owner's tokens.
  allow(t(), "User:" + u.stranger, k_describe_tokens, "User:" + u.owner);
  expect_same_tokens(stranger->call("all, as the stranger who may DESCRIBE_TOKENS", k_describe, 3, all_tokens()));
  expect_same_tokens(stranger->call("the owner's, as the stranger who may DESCRIBE_TOKENS", k_describe, 1,
                                    owned_by({u.owner})));
  remove_acls(t(), "User:" + u.stranger);
}

// ---- RenewDelegationToken ------------------------------------------------------------

TEST_F(DelegationTokenTest, RenewByTheOwnerAndARenewerOnly) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  auto renewer = logged_in(u.renewer);
  auto stranger = logged_in(u.stranger);
  const twin_token token = create_token(*owner, "Create with a renewer", creating({u.renewer}), k_broker_lifetimes);
  // A period of its own, the broker's expiry time (none asked, or a longer
  // one asked), each from the moment of the request.
  for (const auto& [what, as, period, expected, v] :
       std::vector<std::tuple<std::string, twin*, int64_t, int64_t, int16_t>>{
           {"Renew v1 by the owner for a minute", owner.get(), 60'000, 60'000, 1},
           {"Renew v2 by the renewer for the default", renewer.get(), -1, k_expiry_time_ms, 2},
           {"Renew v2 by the owner for three hours", owner.get(), 3 * 3'600'000, k_expiry_time_ms, 2},
           {"Renew v2 by the renewer for 0 ms", renewer.get(), 0, k_expiry_time_ms, 2},
       }) {
    const int64_t before = now_ms();
    auto e = with_hmac<renew_request>(*as, what, k_renew, v, token, period);
    const int64_t after = now_ms();
    expect_same(e, expiry_allowed());
    expect_expiry<renew_response>(e, token, expected, before, after);
  }
  // Neither the owner nor a renewer, a super user included.
  twin admin("SASL_PLAINTEXT", "admin", "admin-secret");
  ASSERT_TRUE(admin.connected());
  for (int16_t v : {1, 2}) {
    expect_same(with_hmac<renew_request>(*stranger, "Renew by a stranger", k_renew, v, token, -1));
    expect_same(with_hmac<renew_request>(admin, "Renew by admin", k_renew, v, token, -1));
  }
  // An HMAC of no token.
  twin_token wrong = token;
  for (auto& made : wrong.made) made.hmac[0] ^= 1;
  twin_token empty = token;
  for (auto& made : empty.made) made.hmac.clear();
  for (int16_t v : {1, 2}) {
    expect_same(with_hmac<renew_request>(*owner, "Renew with a wrong HMAC", k_renew, v, wrong, -1));
    expect_same(with_hmac<renew_request>(*owner, "Renew with an empty HMAC", k_renew, v, empty, -1));
  }
  // A token whose maximum comes before the broker's expiry time: renewed
  // up to its maximum.
  const twin_token brief = create_token(*owner, "Create for ten minutes", creating({}, 600'000), {600'000, 600'000});
  const int64_t before = now_ms();
  auto e = with_hmac<renew_request>(*owner, "Renew past the maximum", k_renew, 2, brief, -1);
  const int64_t after = now_ms();
  expect_same(e, expiry_allowed());
  expect_expiry<renew_response>(e, brief, k_expiry_time_ms, before, after);
}

// ---- ExpireDelegationToken --------------------------------------------------------

TEST_F(DelegationTokenTest, ExpireSoonerOrAtOnce) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  auto renewer = logged_in(u.renewer);
  auto stranger = logged_in(u.stranger);
  const twin_token token = create_token(*owner, "Create with a renewer", creating({u.renewer}), k_broker_lifetimes);
  for (int16_t v : {1, 2})
    expect_same(with_hmac<expire_request>(*stranger, "Expire by a stranger", k_expire, v, token, -1));
  twin_token wrong = token;
  for (auto& made : wrong.made) made.hmac.back() ^= 0x80;
  expect_same(with_hmac<expire_request>(*owner, "Expire with a wrong HMAC", k_expire, 2, wrong, -1));
  // Sooner: ten minutes from now (by the renewer), then three hours, past
  // its maximum (by the owner, at v1), then 0 ms: now.
  for (const auto& [what, as, period, v] : std::vector<std::tuple<std::string, twin*, int64_t, int16_t>>{
           {"Expire v2 by the renewer in ten minutes", renewer.get(), 600'000, 2},
           {"Expire v1 by the owner in three hours", owner.get(), 3 * 3'600'000, 1},
       }) {
    const int64_t before = now_ms();
    auto e = with_hmac<expire_request>(*as, what, k_expire, v, token, period);
    const int64_t after = now_ms();
    expect_same(e, expiry_allowed());
    expect_expiry<expire_response>(e, token, period, before, after);
  }
  // At once (a negative period): the token is gone.
  const int64_t before = now_ms();
  auto e = with_hmac<expire_request>(*owner, "Expire v1 at once", k_expire, 1, token, -1);
  const int64_t after = now_ms();
  expect_same(e, expiry_allowed());
  expect_expiry<expire_response>(e, token, 0, before, after);
  wait_described(token, false);
  expect_same_tokens(owner->call("Describe after", k_describe, 3, all_tokens()));
  for (int16_t v : {1, 2}) {
    expect_same(with_hmac<renew_request>(*owner, "Renew after", k_renew, v, token, -1));
    expect_same(with_hmac<expire_request>(*owner, "Expire again", k_expire, v, token, -1));
  }
  expect_same_story("a login with the expired token", "SASL_PLAINTEXT", token_login(token, [&](side s) {
    return protocol::scram::base64(token.hmac(s));
  }));
}

TEST_F(DelegationTokenTest, PastItsMaximum) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  const twin_token token = create_token(*owner, "Create for two seconds", creating({}, 2'000), {2'000, 2'000});
  // The controllers sweep expired tokens hourly: until then the token is
  // there, expired.
  const int64_t end = std::max(token.of(side::kafka).max_timestamp_ms, token.of(side::highwater).max_timestamp_ms);
  ASSERT_TRUE(wait_until([&] { return now_ms() > end + 10; }, 10s));
  for (int16_t v : {1, 2}) {
    expect_same(with_hmac<renew_request>(*owner, "Renew after its maximum", k_renew, v, token, -1));
    expect_same(with_hmac<expire_request>(*owner, "Expire in a minute after its maximum", k_expire, v, token, 60'000));
  }
  expect_same_tokens(owner->call("Describe after its maximum", k_describe, 3, all_tokens()));
  // A login with it: for no time at all.
  expect_same_story("a login with a token past its expiry", "SASL_PLAINTEXT", [&](story_session& s) {
    token_login(token, [&](side x) { return protocol::scram::base64(token.hmac(x)); })(s);
    metadata(s);
  });
  expect_same(with_hmac<expire_request>(*owner, "Expire at once after its maximum", k_expire, 2, token, -1),
              expiry_allowed());
}

// ---- Logins with a token ------------------------------------------------------------

TEST_F(DelegationTokenTest, ATokenLoginIsTheOwnersButMayNotAskForTokens) {
  const users u = make_users(t());
  auto owner = logged_in(u.owner);
  const twin_token token = create_token(*owner, "Create", creating({u.renewer}), k_broker_lifetimes);
  auto hmac_password = [&](side s) { return protocol::scram::base64(token.hmac(s)); };
  // Kafka's SCRAM credentials of a token follow its record a moment later.
  for (side s : k_sides) {
    const bool in = wait_until(
        [&] {
          kafka_socket socket(listener_port(s, "SASL_PLAINTEXT"));
          return socket.connected() &&
                 sasl_login(socket, {"SCRAM-SHA-512", token.of(s).token_id, hmac_password(s), true});
        },
        20s);
    ASSERT_TRUE(in) << side_name(s) << " never accepted the token login";
  }
  for (auto mechanism : {protocol::scram_mechanism::sha256, protocol::scram_mechanism::sha512}) {
    expect_same_story("a login with the token", "SASL_PLAINTEXT", [&](story_session& s) {
      token_login(token, hmac_password, mechanism)(s);
      metadata(s);
    });
  }
  expect_same_story("a login with a wrong HMAC", "SASL_PLAINTEXT", token_login(token, [&](side s) {
    auto wrong = token.hmac(s);
    wrong[0] ^= 1;
    return protocol::scram::base64(wrong);
  }));
  expect_same_story("a login with the token's id without tokenauth", "SASL_PLAINTEXT", [&](story_session& s) {
    scram_login(s, token.of(s.turn()).token_id, hmac_password(s.turn()), false);
  });
  expect_same_story("a token login with an unknown id", "SASL_PLAINTEXT", [&](story_session& s) {
    scram_login(s, "no-such-token", hmac_password(s.turn()), true);
  });
  // Logged in with the token: no API of tokens at all, at any version.
  auto as_token = logged_in_with(token);
  for (int16_t v : {1, 3}) {
    expect_same_tokens(as_token->call("Create with a token login", k_create, v, creating()));
    expect_same_tokens(as_token->call("Describe with a token login", k_describe, v, all_tokens()));
  }
  for (int16_t v : {1, 2}) {
    expect_same(with_hmac<renew_request>(*as_token, "Renew with a token login", k_renew, v, token, -1));
    expect_same(with_hmac<expire_request>(*as_token, "Expire with a token login", k_expire, v, token, -1));
  }
}

}  // namespace
}  // namespace hw::testing::differential
