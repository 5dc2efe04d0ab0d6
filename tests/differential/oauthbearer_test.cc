// SASL/OAUTHBEARER: the same conversations with Kafka 4.3.1's and
// Highwater's two OAUTHBEARER listeners (twin_environment.cc), told as
// stories (sasl_story.h) as in security_test.cc: one line per step (an
// answer's error code, message, session lifetime and challenge, a close)
// and the two stories compared. Every story also states what Kafka
// answers, so that this file documents it.
//
// OAUTH runs the unsecured validator (tokens with alg none; the scope
// kafka-access required; a minute of clock skew). OIDC checks signatures
// against a JWKS file (an RS256 and an ES256 key), the audience
// highwater-test, the issuer https://issuer.test, the scope in "scp", a
// minute of clock skew; its logins last at most 10 minutes. The tokens are
// made here (oauth_tokens.h), signed with OpenSSL.
//
// Both brokers have the listeners and the stories are compared, unless
//   HW_DIFF_OAUTH=kafka  Kafka alone: each story runs twice on Kafka (the
//                        second run in Highwater's place: the stories do not
//                        depend on timing) and is printed
//   HW_DIFF_OAUTH=0      no OAUTHBEARER listeners; every test here skips.
//
// What Kafka's OAUTHBEARER server does, step by step:
// - the client's first message must match RFC 7628's form exactly
//   ("n,[a=<authzid>],^Aauth=Bearer <token>^A[<key>=<value>^A]...^A"); any
//   other fails with SASL_AUTHENTICATION_FAILED and the text for invalid
//   credentials, and the connection closes;
// - a token the validator refuses is not a failure yet: the answer has no
//   error and carries a JSON challenge ({"status":"invalid_token"}, or
//   insufficient_scope with the required scope); the client then sends the
//   single byte 0x01 and gets SASL_AUTHENTICATION_FAILED with that JSON as
//   the message, and the connection closes. A client that sends anything
//   else instead starts over with a new first message;
// - a token accepted logs the client in as User:<sub>; the session lasts
//   until the token's exp, or connections.max.reauth.ms if that is sooner
//   (0 ms for a token past its exp but within the clock skew: it logs in,
//   and its next request closes the connection);
// - three inputs are not refused but fail inside Kafka's code (a JWS header
//   without alg, a scheme other than Bearer, an OIDC scope list holding a
//   number): the connection closes without an answer.

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "oauth_tokens.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/sasl_authenticate.h"
#include "sasl_story.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_describe_cluster = 60;
constexpr const char* k_oauthbearer = "OAUTHBEARER";
constexpr const char* k_user = "oauth-user";  // a super user on both brokers
constexpr const char* k_scope = "kafka-access";  // OAUTH's required scope
constexpr const char* k_audience = "highwater-test";
constexpr const char* k_issuer = "https://issuer.test";
constexpr const char* k_none_header = R"({"alg":"none"})";
const std::string k_sep = "\x01";

// What Kafka answers when a first message does not parse: the reason stays
// on the broker.
constexpr const char* k_invalid_credentials =
    "Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER";
constexpr const char* k_invalid_token = R"({"status":"invalid_token"})";

// Where each run of a story goes: Kafka's listener first, then Highwater's,
// or Kafka's again with HW_DIFF_OAUTH=kafka.
uint16_t story_port(side s, const std::string& listener) {
  return listener_port(oauth_listeners_mode() == oauth_listeners::kafka_only ? side::kafka : s, listener);
}

// Runs the script on each broker's listener, expects the same story from
// both and Kafka's to be `kafka` (the steps this file documents).
void expect_story(const std::string& what, const std::string& listener, const script& run,
                  const std::vector<std::string>& kafka) {
  std::array<std::vector<std::string>, 2> stories;
  for (side s : k_sides) {
    const uint16_t port = story_port(s, listener);
    ASSERT_NE(port, 0) << side_name(s) << " has no " << listener << " listener";
    story_session sess(s, port);
    run(sess);
    stories[static_cast<int>(s)] = std::move(sess.story);
  }
  const bool kafka_only = oauth_listeners_mode() == oauth_listeners::kafka_only;
  if (kafka_only) std::printf("[story] %s on %s\n%s", what.c_str(), listener.c_str(), show(stories[0]).c_str());
  EXPECT_EQ(stories[0], kafka) << what << " on " << listener << ": Kafka's story is not the one documented\n"
                               << "  kafka:\n" << show(stories[0]) << "  documented:\n" << show(kafka);
  EXPECT_EQ(stories[0], stories[1]) << what << " on " << listener << "\n  kafka:\n"
                                    << show(stories[0]) << (kafka_only ? "  kafka again:\n" : "  highwater:\n")
                                    << show(stories[1]);
}

// ---- Steps -------------------------------------------------------------------

// SaslAuthenticate; the story keeps the error, the message, the session
// lifetime (v1+) and the challenge, which for OAUTHBEARER is JSON text.
std::optional<msg::sasl_authenticate_response> authenticate(story_session& s, const std::vector<uint8_t>& token,
                                                            int16_t version = 2) {
  auto a = sasl_authenticate(s, token, version);
  if (!a) return std::nullopt;
  const auto& r = a->response;
  std::string line = "SaslAuthenticate v" + std::to_string(version) + ": error " + std::to_string(r.error_code) +
                     " message " + (r.error_message ? "'" + *r.error_message + "'" : std::string("null"));
  if (version >= 1) line += " lifetime " + told_lifetime(s, *a);
  line += r.auth_bytes.empty() ? ", no challenge" : ", challenge '" + text_of(r.auth_bytes) + "'";
  s.note(line);
  return r;
}

// Who the broker takes the client for, seen through the authorizer: the
// cluster operations DescribeCluster says it may do (every one for a super
// user such as oauth-user, none for a user without ACLs).
void cluster_operations(story_session& s) {
  msg::describe_cluster_request req;
  req.include_cluster_authorized_operations = true;
  if (auto r = s.call<msg::describe_cluster_response>("DescribeCluster", k_describe_cluster, 0, req))
    s.note("DescribeCluster: error " + std::to_string(r->error_code) + " cluster operations " +
           std::to_string(r->cluster_authorized_operations));
}

// The client's first message as Kafka's client writes it: the GS2 header
// with the authorization id, auth=Bearer, then extensions ("key=value"
// each), each followed by ^A, and a last ^A.
std::string client_first(const std::string& token, const std::string& authzid = "",
                         const std::vector<std::string>& extensions = {}) {
  std::string out = "n," + (authzid.empty() ? "" : "a=" + authzid) + "," + k_sep + "auth=Bearer " + token + k_sep;
  for (const auto& e : extensions) out += e + k_sep;
  return out + k_sep;
}

// The whole login: handshake, first message; then Metadata when it
// succeeded, the client's 0x01 after a challenge (and the close), or the
// close after a failure.
void login(story_session& s, const std::string& first_message) {
  handshake(s, k_oauthbearer);
  auto r = authenticate(s, bytes_of(first_message));
  if (!r) return;
  if (r->error_code == 0 && r->auth_bytes.empty()) return metadata(s);
  if (r->error_code == 0) authenticate(s, {0x01});
  s.note_close();
}

// A first message made at the start of each run, its token's times
// relative to `now` (seconds).
using first_message = std::function<std::string(long long now)>;

// The story of a login with this first message; exp_in: when the token's exp
// is that many seconds after now, so that a lifetime taken from it is told as
// "exp - now".
script login_with(first_message make, std::optional<double> exp_in = std::nullopt) {
  return [make = std::move(make), exp_in](story_session& s) {
    const long long now = now_seconds();
    if (exp_in) s.credential_expiry_ms = std::llround((now + *exp_in) * 1000);
    login(s, make(now));
  };
}

// The lines of a login that succeeds, told its lifetime, then served.
std::vector<std::string> logged_in(const std::string& lifetime) {
  return {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
          "SaslAuthenticate v2: error 0 message '' lifetime " + lifetime + ", no challenge", "Metadata: 1 broker(s)"};
}
// The lines of a token the validator refuses: the challenge, the 0x01 and
// the failure with the challenge as its message, the close.
std::vector<std::string> refused(const std::string& challenge = k_invalid_token) {
  return {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
          "SaslAuthenticate v2: error 0 message '' lifetime 0, challenge '" + challenge + "'",
          "SaslAuthenticate v2: error 58 message '" + challenge + "' lifetime 0, no challenge", "closed"};
}
// The lines of a first message refused outright with this message.
std::vector<std::string> failed(const std::string& message = k_invalid_credentials) {
  return {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
          "SaslAuthenticate v2: error 58 message '" + message + "' lifetime 0, no challenge", "closed"};
}
// The lines of a first message after which the broker closes the connection
// without answering.
std::vector<std::string> dropped() {
  return {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]", "SaslAuthenticate: no answer, closed"};
}

// ---- Tokens --------------------------------------------------------------------

// OAUTH's good claims: the subject, issued now, for an hour, the required scope.
claims unsecured_claims(long long now) {
  claims c;
  c.text("sub", k_user).number("iat", now).number("exp", now + 3600).text("scope", k_scope);
  return c;
}
std::string unsecured_token(const claims& c) { return unsecured_jws(k_none_header, c.json()); }

// OIDC's good claims: subject, issuer, audience, issued now, for an hour.
claims oidc_claims(long long now) {
  claims c;
  c.text("sub", k_user).text("iss", k_issuer).text("aud", k_audience).number("iat", now).number("exp", now + 3600);
  return c;
}

const signing_key& key(signing_key::kind k) {
  static std::unique_ptr<signing_key> rs, es;
  auto& slot = k == signing_key::kind::rs256 ? rs : es;
  if (!slot) slot = load_oauth_key(oauth_keys_dir(), k);
  EXPECT_NE(slot, nullptr) << "the OIDC keys are not in " << oauth_keys_dir();
  return *slot;
}
const signing_key& rs() { return key(signing_key::kind::rs256); }
const signing_key& es() { return key(signing_key::kind::es256); }

class OAuthBearerTest : public DifferentialTest {
 protected:
  void SetUp() override {
    if (oauth_listeners_mode() == oauth_listeners::none)
      GTEST_SKIP() << "the OAUTHBEARER listeners are off (HW_DIFF_OAUTH=0)";
    DifferentialTest::SetUp();
  }
};

// ---- OAUTH: the unsecured validator ------------------------------------------

// The good unsecured token of `at`, with these changes to its claims.
std::string good_unsecured(long long at, const std::function<void(claims&)>& change = {}) {
  claims c = unsecured_claims(at);
  if (change) change(c);
  return unsecured_token(c);
}

TEST_F(OAuthBearerTest, UnsecuredLogin) {
  // No connections.max.reauth.ms on OAUTH: the session lasts until exp.
  expect_story("a good unsecured token", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at));
  }, 3600), logged_in("exp - now"));
  // The principal is User:<sub>: oauth-user is a super user, someone else
  // has no ACLs.
  for (const auto& [sub, operations] : std::vector<std::pair<std::string, std::string>>{
           {k_user, "8096"}, {"someone-else", "0"}}) {
    expect_story("the principal of a token for " + sub, "OAUTH", [sub](story_session& s) {
      const long long at = now_seconds();
      s.credential_expiry_ms = (at + 3600) * 1000;
      handshake(s, k_oauthbearer);
      authenticate(s, bytes_of(client_first(good_unsecured(at, [&](claims& c) { c.text("sub", sub); }))));
      cluster_operations(s);
    }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
        "SaslAuthenticate v2: error 0 message '' lifetime exp - now, no challenge",
        "DescribeCluster: error 0 cluster operations " + operations});
  }
  // SaslAuthenticate v0 has no lifetime; v1 does.
  for (int16_t v : {0, 1}) {
    expect_story("a good unsecured token in SaslAuthenticate v" + std::to_string(v), "OAUTH", [v](story_session& s) {
      const long long at = now_seconds();
      s.credential_expiry_ms = (at + 3600) * 1000;
      handshake(s, k_oauthbearer);
      authenticate(s, bytes_of(client_first(good_unsecured(at))), v);
      metadata(s);
    }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
        v == 0 ? "SaslAuthenticate v0: error 0 message '', no challenge"
               : "SaslAuthenticate v1: error 0 message '' lifetime exp - now, no challenge",
        "Metadata: 1 broker(s)"});
  }
  // The scope as a list holding the required one; claims Kafka does not
  // know are ignored.
  expect_story("the scope as a list", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [](claims& c) {
      c.set("scope", R"(["other","kafka-access"])").text("custom", "x");
    }));
  }, 3600), logged_in("exp - now"));
  // nbf is not a claim the unsecured validator reads; iat is optional.
  expect_story("nbf in an hour", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.number("nbf", at + 3600); }));
  }, 3600), logged_in("exp - now"));
  expect_story("no iat", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [](claims& c) { c.drop("iat"); }));
  }, 3600), logged_in("exp - now"));
  // exp in fractions of a second.
  expect_story("exp with a fraction", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.set("exp", std::to_string(at + 3600) + ".25"); }));
  }, 3600.25), logged_in("exp - now"));
  // The scheme is case-insensitive, spaces before the token may be several.
  expect_story("auth=bearer in lower case", "OAUTH", login_with([](long long at) {
    return "n,," + k_sep + "auth=bearer   " + good_unsecured(at) + k_sep + k_sep;
  }, 3600), logged_in("exp - now"));
}

TEST_F(OAuthBearerTest, UnsecuredClockSkew) {
  // OAUTH allows 60 s of skew: a token that expired 30 s ago still logs
  // in, for a session of 0 ms, so the next request finds it over.
  expect_story("exp 30 s ago (within the skew)", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.number("iat", at - 600).number("exp", at - 30); }));
  }), {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
       "SaslAuthenticate v2: error 0 message '' lifetime 0, no challenge", "Metadata: no answer, closed"});
  expect_story("exp 120 s ago (beyond the skew)", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.number("iat", at - 600).number("exp", at - 120); }));
  }), refused());
  expect_story("iat 30 s ahead (within the skew)", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.number("iat", at + 30); }));
  }, 3600), logged_in("exp - now"));
  expect_story("iat 120 s ahead (beyond the skew)", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.number("iat", at + 120); }));
  }), refused());
  expect_story("exp before iat", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [at](claims& c) { c.number("iat", at + 10).number("exp", at + 5); }));
  }), refused());
}

TEST_F(OAuthBearerTest, UnsecuredSessionEndsAtTheTokensExp) {
  // The token's exp alone bounds the session on OAUTH, and a request after
  // it closes the connection.
  expect_story("a token for 3 s, a request after 4 s", "OAUTH", [](story_session& s) {
    const long long at = now_seconds();
    s.credential_expiry_ms = (at + 3) * 1000;
    handshake(s, k_oauthbearer);
    authenticate(s, bytes_of(client_first(good_unsecured(at, [at](claims& c) { c.number("exp", at + 3); }))));
    metadata(s);
    std::this_thread::sleep_for(4s);
    metadata(s);
  }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime exp - now, no challenge", "Metadata: 1 broker(s)",
      "Metadata: no answer, closed"});
}

TEST_F(OAuthBearerTest, UnsecuredTokenRefusals) {
  const auto b64 = [](const std::string& s) { return base64url(s); };
  const auto c = [](long long at) { return unsecured_claims(at).json(); };
  for (const auto& [what, make] : std::vector<std::pair<std::string, first_message>>{
           {"two parts", [&](long long at) { return b64(k_none_header) + "." + b64(c(at)); }},
           {"four parts", [&](long long at) { return good_unsecured(at) + "."; }},
           {"an empty payload part (..)", [&](long long) { return b64(k_none_header) + ".."; }},
           {"a header that is not base64url", [&](long long at) { return "eyJhbGciOiJub25lIn0+." + b64(c(at)) + "."; }},
           {"a header that is not JSON", [&](long long at) { return b64("alg none") + "." + b64(c(at)) + "."; }},
           {"a payload that is not JSON", [&](long long) { return b64(k_none_header) + "." + b64("{\"sub\":") + "."; }},
           {"a payload that is a JSON array", [&](long long) { return b64(k_none_header) + "." + b64("[1,2]") + "."; }},
           {"alg HS256", [&](long long at) { return unsecured_jws(R"({"alg":"HS256"})", c(at)); }},
           {"alg None", [&](long long at) { return unsecured_jws(R"({"alg":"None"})", c(at)); }},
           {"alg none with a signature", [&](long long at) { return good_unsecured(at) + b64("signature"); }},
           {"no exp", [](long long at) { return good_unsecured(at, [](claims& x) { x.drop("exp"); }); }},
           {"exp as text", [](long long at) {
              return good_unsecured(at, [at](claims& x) { x.set("exp", "\"" + std::to_string(at + 3600) + "\""); });
            }},
           {"no sub", [](long long at) { return good_unsecured(at, [](claims& x) { x.drop("sub"); }); }},
           {"an empty sub", [](long long at) { return good_unsecured(at, [](claims& x) { x.text("sub", ""); }); }},
           {"a blank sub", [](long long at) { return good_unsecured(at, [](claims& x) { x.text("sub", "  "); }); }},
           {"sub as a number", [](long long at) { return good_unsecured(at, [](claims& x) { x.number("sub", 42); }); }},
           {"iat as text", [](long long at) { return good_unsecured(at, [](claims& x) { x.text("iat", "now"); }); }},
       }) {
    expect_story("unsecured token: " + what, "OAUTH",
                 login_with([make](long long at) { return client_first(make(at)); }), refused());
  }
  // A header without alg is not refused: it fails inside Kafka's validator,
  // and the connection closes without an answer.
  for (const auto& [what, header] : std::vector<std::pair<std::string, std::string>>{
           {"a header without alg", R"({"typ":"JWT"})"},
           {"a header that is a JSON array", R"(["none"])"},
       }) {
    expect_story("unsecured token: " + what, "OAUTH", login_with([header](long long at) {
      return client_first(unsecured_jws(header, unsecured_claims(at).json()));
    }), dropped());
  }
}

TEST_F(OAuthBearerTest, UnsecuredRequiredScope) {
  const std::string insufficient = R"({"status":"insufficient_scope", "scope":"[kafka-access]"})";
  for (const auto& [what, scope] : std::vector<std::pair<std::string, std::optional<std::string>>>{
           {"no scope", std::nullopt},
           {"another scope", R"("other")"},
           // A scope given as text is one item, spaces and all.
           {"the scope in a text of two", R"("kafka-access other")"},
           {"a list without it", R"(["read","write"])"},
           {"an empty list", "[]"},
       }) {
    expect_story("unsecured token: " + what, "OAUTH", login_with([scope](long long at) {
      return client_first(good_unsecured(at, [&](claims& c) {
        if (scope)
          c.set("scope", *scope);
        else
          c.drop("scope");
      }));
    }), refused(insufficient));
  }
}

TEST_F(OAuthBearerTest, ChallengeThenSomethingElse) {
  const auto no_sub = [](long long at) {
    return bytes_of(client_first(good_unsecured(at, [](claims& c) { c.drop("sub"); })));
  };
  // After the challenge Kafka waits for 0x01; anything else is a new first
  // message, so a good token logs in.
  expect_story("a refused token, then a good one", "OAUTH", [&](story_session& s) {
    const long long at = now_seconds();
    handshake(s, k_oauthbearer);
    authenticate(s, no_sub(at));
    s.credential_expiry_ms = (at + 3600) * 1000;
    authenticate(s, bytes_of(client_first(good_unsecured(at))));
    metadata(s);
  }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime 0, challenge '{\"status\":\"invalid_token\"}'",
      "SaslAuthenticate v2: error 0 message '' lifetime exp - now, no challenge", "Metadata: 1 broker(s)"});
  expect_story("a refused token, then another refused one, then 0x01", "OAUTH", [&](story_session& s) {
    const long long at = now_seconds();
    handshake(s, k_oauthbearer);
    authenticate(s, no_sub(at));
    authenticate(s, bytes_of(client_first(good_unsecured(at, [](claims& c) { c.drop("scope"); }))));
    authenticate(s, {0x01});
    s.note_close();
  }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime 0, challenge '{\"status\":\"invalid_token\"}'",
      "SaslAuthenticate v2: error 0 message '' lifetime 0, challenge '{\"status\":\"insufficient_scope\", "
      "\"scope\":\"[kafka-access]\"}'",
      "SaslAuthenticate v2: error 58 message '{\"status\":\"insufficient_scope\", \"scope\":\"[kafka-access]\"}' "
      "lifetime 0, no challenge",
      "closed"});
  for (const auto& [what, reply] : std::vector<std::pair<std::string, std::vector<uint8_t>>>{
           {"garbage", bytes_of("garbage")},
           {"nothing", {}},
           {"0x01 0x01", {0x01, 0x01}},
           {"0x02", {0x02}},
       }) {
    expect_story("a refused token, then " + what, "OAUTH", [&](story_session& s) {
      handshake(s, k_oauthbearer);
      authenticate(s, no_sub(now_seconds()));
      authenticate(s, reply);
      s.note_close();
    }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
        "SaslAuthenticate v2: error 0 message '' lifetime 0, challenge '{\"status\":\"invalid_token\"}'",
        std::string("SaslAuthenticate v2: error 58 message '") + k_invalid_credentials + "' lifetime 0, no challenge",
        "closed"});
  }
  // 0x01 before any challenge is a first message, and not a valid one.
  expect_story("0x01 as the first message", "OAUTH", [](story_session& s) {
    handshake(s, k_oauthbearer);
    authenticate(s, {0x01});
    s.note_close();
  }, failed());
}

TEST_F(OAuthBearerTest, MalformedFirstMessages) {
  const std::string a = k_sep;
  const auto tok = [](long long at) { return good_unsecured(at); };
  for (const auto& [what, make] : std::vector<std::pair<std::string, first_message>>{
           {"no GS2 header", [&](long long at) { return a + "auth=Bearer " + tok(at) + a + a; }},
           {"GS2 header y", [&](long long at) { return "y,," + a + "auth=Bearer " + tok(at) + a + a; }},
           {"GS2 header with channel binding",
            [&](long long at) { return "p=tls-unique,," + a + "auth=Bearer " + tok(at) + a + a; }},
           {"GS2 header without its second comma",
            [&](long long at) { return "n," + a + "auth=Bearer " + tok(at) + a + a; }},
           {"an authzid with a bad escape",
            [&](long long at) { return "n,a=oauth=user," + a + "auth=Bearer " + tok(at) + a + a; }},
           {"an empty authzid", [&](long long at) { return "n,a=," + a + "auth=Bearer " + tok(at) + a + a; }},
           {"no auth", [&](long long) { return "n,," + a + a; }},
           {"only an extension", [&](long long) { return "n,," + a + "traceId=1" + a + a; }},
           {"auth spelled Auth", [&](long long at) { return "n,," + a + "Auth=Bearer " + tok(at) + a + a; }},
           {"a key with a digit", [&](long long at) { return client_first(tok(at), "", {"trace1=x"}); }},
           {"a key with an underscore", [&](long long at) { return client_first(tok(at), "", {"trace_id=x"}); }},
           {"an empty key", [&](long long at) { return client_first(tok(at), "", {"=x"}); }},
           {"an empty value", [&](long long at) { return client_first(tok(at), "", {"trace="}); }},
           {"a value with a control character",
            [&](long long at) { return client_first(tok(at), "", {"trace=a\x02z"}); }},
           {"a value that is not ASCII",
            [&](long long at) { return client_first(tok(at), "", {"trace=\xc3\xa9t\xc3\xa9"}); }},
           {"bytes that are not UTF-8", [&](long long at) { return client_first(tok(at), "", {"trace=\xff"}); }},
           {"auth=Bearer without a token", [&](long long) { return "n,," + a + "auth=Bearer" + a + a; }},
           {"auth=Bearer and a space", [&](long long) { return "n,," + a + "auth=Bearer " + a + a; }},
           {"a token with a character outside the token alphabet",
            [&](long long at) { return "n,," + a + "auth=Bearer " + tok(at) + "!" + a + a; }},
           {"padding inside the token", [&](long long) { return "n,," + a + "auth=Bearer ab=.cd." + a + a; }},
           {"no final separator", [&](long long at) { return "n,," + a + "auth=Bearer " + tok(at) + a; }},
           {"trailing garbage", [&](long long at) { return client_first(tok(at)) + "x"; }},
           {"three final separators", [&](long long at) { return client_first(tok(at)) + a; }},
           {"leading garbage", [&](long long at) { return "x" + client_first(tok(at)); }},
           {"an empty message", [&](long long) { return std::string(); }},
       }) {
    expect_story("first message: " + what, "OAUTH", login_with(make), failed());
  }
  // A scheme other than Bearer fails inside Kafka's parser (as it words the
  // refusal): no answer, the connection closes.
  expect_story("first message: auth=Basic", "OAUTH", login_with([&](long long at) {
    return "n,," + a + "auth=Basic " + tok(at) + a + a;
  }), dropped());
}

TEST_F(OAuthBearerTest, AuthorizationIdsAndExtensions) {
  expect_story("authzid of the token's subject", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at), k_user);
  }, 3600), logged_in("exp - now"));
  expect_story("authzid of another user", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at), "admin");
  }), failed("Authentication failed: Client requested an authorization id (admin) that is different from "
             "the token's principal name (oauth-user)"));
  // The authzid is compared as written: Kafka does not unescape =2C.
  expect_story("an escaped authzid of a subject with a comma", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [](claims& c) { c.text("sub", "oauth,user"); }), "oauth=2Cuser");
  }), failed("Authentication failed: Client requested an authorization id (oauth=2Cuser) that is different from "
             "the token's principal name (oauth,user)"));
  // Extensions: any the grammar allows are accepted (the unsecured
  // validator takes them all), before or after auth.
  expect_story("extensions", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at), "",
                        {"traceId=abc-123", "logicalCluster=lkc-1 with spaces\tand tab", "eq=a=b"});
  }, 3600), logged_in("exp - now"));
  expect_story("an extension before auth", "OAUTH", login_with([](long long at) {
    return "n,," + k_sep + "traceId=1" + k_sep + "auth=Bearer " + good_unsecured(at) + k_sep + k_sep;
  }, 3600), logged_in("exp - now"));
  // auth given twice: the last one counts.
  expect_story("auth twice, the refused token last", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at), "",
                        {"auth=Bearer " + good_unsecured(at, [](claims& c) { c.drop("sub"); })});
  }), refused());
  expect_story("auth twice, the good token last", "OAUTH", login_with([](long long at) {
    return client_first(good_unsecured(at, [](claims& c) { c.drop("sub"); }), "",
                        {"auth=Bearer " + good_unsecured(at)});
  }, 3600), logged_in("exp - now"));
}

// SaslHandshake v0: the tokens go as bare frames, the answers too.
void raw_exchange(story_session& s, const std::string& message) {
  s.socket().send_frame(bytes_of(message));
  auto answer = s.socket().read_frame(10s);
  s.note(!answer ? "no raw answer, " + std::string(s.socket().closed_by_peer(1s) ? "closed" : "open")
                 : "raw answer of " + std::to_string(answer->size()) + " bytes" +
                       (answer->empty() ? "" : ": '" + text_of(*answer) + "'"));
}

TEST_F(OAuthBearerTest, HandshakeV0RawTokens) {
  expect_story("v0 handshake, a good raw token", "OAUTH", [](story_session& s) {
    handshake(s, k_oauthbearer, 0);
    raw_exchange(s, client_first(good_unsecured(now_seconds())));
    metadata(s);
  }, {"SaslHandshake v0 OAUTHBEARER: error 0 enabled [OAUTHBEARER]", "raw answer of 0 bytes", "Metadata: 1 broker(s)"});
  expect_story("v0 handshake, a refused raw token, then 0x01", "OAUTH", [](story_session& s) {
    handshake(s, k_oauthbearer, 0);
    raw_exchange(s, client_first(good_unsecured(now_seconds(), [](claims& c) { c.drop("sub"); })));
    s.socket().send_frame({0x01});
    s.note_close();
  }, {"SaslHandshake v0 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "raw answer of 26 bytes: '{\"status\":\"invalid_token\"}'", "closed"});
  expect_story("v0 handshake, a malformed raw first message", "OAUTH", [](story_session& s) {
    handshake(s, k_oauthbearer, 0);
    raw_exchange(s, "garbage");
  }, {"SaslHandshake v0 OAUTHBEARER: error 0 enabled [OAUTHBEARER]", "no raw answer, closed"});
}

TEST_F(OAuthBearerTest, OAuthListenerOffersOnlyOAuthBearer) {
  expect_story("PLAIN on OAUTH", "OAUTH", [](story_session& s) {
    handshake(s, "PLAIN");
    s.note_close();
  }, {"SaslHandshake v1 PLAIN: error 33 enabled [OAUTHBEARER]", "closed"});
}

// ---- OIDC: signed tokens checked against the JWKS file ---------------------

// OIDC's good claims of `at`, with these changes, signed with the RS256 key.
std::string good_rs(long long at, const std::function<void(claims&)>& change = {}) {
  claims c = oidc_claims(at);
  if (change) change(c);
  return rs().sign(rs().header(), c.json());
}

TEST_F(OAuthBearerTest, OidcLogins) {
  // An hour's token: the session lasts connections.max.reauth.ms (10 minutes).
  expect_story("a good RS256 token", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at));
  }), logged_in("600000"));
  expect_story("the principal of a good RS256 token", "OIDC", [](story_session& s) {
    handshake(s, k_oauthbearer);
    authenticate(s, bytes_of(client_first(good_rs(now_seconds()))));
    cluster_operations(s);
  }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime 600000, no challenge",
      "DescribeCluster: error 0 cluster operations 8096"});
  expect_story("a good ES256 token", "OIDC", login_with([](long long at) {
    return client_first(es().sign(es().header(), oidc_claims(at).json()));
  }), logged_in("600000"));
  // A token for 2 minutes: its exp bounds the session.
  expect_story("an RS256 token for 2 minutes", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [at](claims& c) { c.number("exp", at + 120); }));
  }, 120), logged_in("exp - now"));
  // Without a kid: the JWKS's key for the algorithm.
  expect_story("an RS256 token without kid", "OIDC", login_with([](long long at) {
    return client_first(rs().sign(R"({"alg":"RS256"})", oidc_claims(at).json()));
  }), logged_in("600000"));
  expect_story("an ES256 token without kid", "OIDC", login_with([](long long at) {
    return client_first(es().sign(R"({"alg":"ES256"})", oidc_claims(at).json()));
  }), logged_in("600000"));
  // The audience one of several.
  expect_story("aud a list holding highwater-test", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [](claims& c) { c.set("aud", R"(["other","highwater-test"])"); }));
  }), logged_in("600000"));
  // The scope in "scp", as text (one item, spaces and all) or as a list;
  // "scope" is not the claim OIDC reads.
  for (const auto& [what, name, value] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"scp as text", "scp", R"("read write")"},
           {"scp as a list", "scp", R"(["read","write"])"},
           {"scp an empty list", "scp", "[]"},
           {"scp a number", "scp", "7"},
           {"scope a list with duplicates (not OIDC's claim)", "scope", R"(["read","read"])"},
       }) {
    expect_story("OIDC token with " + what, "OIDC", login_with([name, value](long long at) {
      return client_first(good_rs(at, [&](claims& c) { c.set(name, value); }));
    }), logged_in("600000"));
  }
  expect_story("OIDC token with nbf 30 s ahead (within the skew)", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [at](claims& c) { c.number("nbf", at + 30); }));
  }), logged_in("600000"));
  expect_story("OIDC token with iat an hour ahead", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [at](claims& c) { c.number("iat", at + 3600).number("exp", at + 7200); }));
  }), logged_in("600000"));
  expect_story("OIDC token with the authzid of its subject and an extension", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at), k_user, {"traceId=1"});
  }), logged_in("600000"));
}

TEST_F(OAuthBearerTest, OidcClockSkew) {
  // OIDC allows 60 s of skew.
  expect_story("OIDC token that expired 30 s ago (within the skew)", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [at](claims& c) { c.number("iat", at - 600).number("exp", at - 30); }));
  }), {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
       "SaslAuthenticate v2: error 0 message '' lifetime 0, no challenge", "Metadata: no answer, closed"});
  expect_story("OIDC token that expired 120 s ago (beyond the skew)", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [at](claims& c) { c.number("iat", at - 600).number("exp", at - 120); }));
  }), refused());
  expect_story("OIDC token with nbf 120 s ahead (beyond the skew)", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [at](claims& c) { c.number("nbf", at + 120); }));
  }), refused());
}

TEST_F(OAuthBearerTest, OidcRefusals) {
  const auto change = [](std::function<void(claims&)> f) {
    return first_message([f = std::move(f)](long long at) { return good_rs(at, f); });
  };
  for (const auto& [what, make] : std::vector<std::pair<std::string, first_message>>{
           {"a signature of another key", [](long long at) {
              auto rogue = signing_key::generate(signing_key::kind::rs256, k_rs_kid);
              return rogue->sign(rogue->header(), oidc_claims(at).json());
            }},
           {"a payload changed after signing", [](long long at) {
              const std::string good = good_rs(at);
              return good.substr(0, good.find('.') + 1) + base64url(oidc_claims(at).text("sub", "admin").json()) +
                     good.substr(good.rfind('.'));
            }},
           {"an unknown kid",
            [](long long at) { return rs().sign(R"({"alg":"RS256","kid":"nope"})", oidc_claims(at).json()); }},
           {"the EC key's kid on an RS256 token",
            [](long long at) { return rs().sign(R"({"alg":"RS256","kid":"es-key"})", oidc_claims(at).json()); }},
           {"alg ES256 with the RSA key's kid",
            [](long long at) { return es().sign(R"({"alg":"ES256","kid":"rs-key"})", oidc_claims(at).json()); }},
           {"an ES256 signature in DER form",
            [](long long at) { return es().sign(es().header(), oidc_claims(at).json(), true); }},
           {"alg none", [](long long at) { return unsecured_jws(k_none_header, oidc_claims(at).json()); }},
           {"alg none with a signature",
            [](long long at) { return unsecured_jws(k_none_header, oidc_claims(at).json()) + base64url("x"); }},
           {"alg none with the RSA key's kid",
            [](long long at) { return unsecured_jws(R"({"alg":"none","kid":"rs-key"})", oidc_claims(at).json()); }},
           {"HS256 keyed with the RSA public key", [](long long at) {
              return hs256_jws(R"({"alg":"HS256","kid":"rs-key"})", oidc_claims(at).json(), rs().public_pem());
            }},
           {"another audience", change([](claims& c) { c.text("aud", "elsewhere"); })},
           {"no audience", change([](claims& c) { c.drop("aud"); })},
           {"another issuer", change([](claims& c) { c.text("iss", "https://elsewhere.test"); })},
           {"no issuer", change([](claims& c) { c.drop("iss"); })},
           {"no exp", change([](claims& c) { c.drop("exp"); })},
           {"exp as text", change([](claims& c) { c.text("exp", "tomorrow"); })},
           {"no iat", change([](claims& c) { c.drop("iat"); })},
           {"no sub", change([](claims& c) { c.drop("sub"); })},
           {"an empty sub", change([](claims& c) { c.text("sub", ""); })},
           {"a blank sub", change([](claims& c) { c.text("sub", "  "); })},
           {"sub as a number", change([](claims& c) { c.number("sub", 42); })},
           {"scp a list with duplicates", change([](claims& c) { c.set("scp", R"(["read","read"])"); })},
           {"scp a list with an empty item", change([](claims& c) { c.set("scp", R"(["read",""])"); })},
           {"two parts", [](long long at) {
              const std::string t = good_rs(at);
              return t.substr(0, t.rfind('.'));
            }},
           {"four parts", [](long long at) { return good_rs(at) + ".x"; }},
           {"an empty signature", [](long long at) {
              const std::string t = good_rs(at);
              return t.substr(0, t.rfind('.') + 1);
            }},
           {"a header that is not base64url", [](long long at) {
              const std::string t = good_rs(at);
              return "e30+" + t.substr(t.find('.'));
            }},
           {"a payload that is not JSON", [](long long) { return rs().sign(rs().header(), "{\"sub\":"); }},
       }) {
    expect_story("OIDC token: " + what, "OIDC",
                 login_with([make](long long at) { return client_first(make(at)); }), refused());
  }
  // A scope list holding a number fails inside Kafka's validator: no
  // answer, the connection closes.
  expect_story("OIDC token: scp a list holding a number", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at, [](claims& c) { c.set("scp", R"(["read",7])"); }));
  }), dropped());
  expect_story("OIDC: the authzid of another user", "OIDC", login_with([](long long at) {
    return client_first(good_rs(at), "admin");
  }), failed("Authentication failed: Client requested an authorization id (admin) that is different from the "
             "token's principal name (oauth-user)"));
  expect_story("OIDC: a first message without its last separator", "OIDC", login_with([](long long at) {
    return "n,," + k_sep + "auth=Bearer " + good_rs(at) + k_sep;
  }), failed());
}

TEST_F(OAuthBearerTest, OidcHandshakeV0) {
  expect_story("v0 handshake, a good raw RS256 token", "OIDC", [](story_session& s) {
    handshake(s, k_oauthbearer, 0);
    raw_exchange(s, client_first(good_rs(now_seconds())));
    metadata(s);
  }, {"SaslHandshake v0 OAUTHBEARER: error 0 enabled [OAUTHBEARER]", "raw answer of 0 bytes", "Metadata: 1 broker(s)"});
  expect_story("v0 handshake, a raw RS256 token for another audience, then 0x01", "OIDC", [](story_session& s) {
    handshake(s, k_oauthbearer, 0);
    raw_exchange(s, client_first(good_rs(now_seconds(), [](claims& c) { c.text("aud", "elsewhere"); })));
    s.socket().send_frame({0x01});
    s.note_close();
  }, {"SaslHandshake v0 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "raw answer of 26 bytes: '{\"status\":\"invalid_token\"}'", "closed"});
}

TEST_F(OAuthBearerTest, OidcReauthentication) {
  // On the same connection a new handshake and token renew the login; the
  // principal may not change.
  expect_story("re-authentication with a token of the same subject", "OIDC", [](story_session& s) {
    handshake(s, k_oauthbearer);
    authenticate(s, bytes_of(client_first(good_rs(now_seconds()))));
    metadata(s);
    handshake(s, k_oauthbearer);
    authenticate(s, bytes_of(client_first(es().sign(es().header(), oidc_claims(now_seconds()).json()))));
    metadata(s);
  }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime 600000, no challenge", "Metadata: 1 broker(s)",
      "SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime 600000, no challenge", "Metadata: 1 broker(s)"});
  expect_story("re-authentication with a token of another subject", "OIDC", [](story_session& s) {
    handshake(s, k_oauthbearer);
    authenticate(s, bytes_of(client_first(good_rs(now_seconds()))));
    handshake(s, k_oauthbearer);
    authenticate(s, bytes_of(client_first(good_rs(now_seconds(), [](claims& c) { c.text("sub", "admin"); }))));
    s.note_close();
  }, {"SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 0 message '' lifetime 600000, no challenge",
      "SaslHandshake v1 OAUTHBEARER: error 0 enabled [OAUTHBEARER]",
      "SaslAuthenticate v2: error 58 message 'Cannot change principals during re-authentication from User.oauth-user: "
      "User.admin' lifetime 0, no challenge",
      "closed"});
}

}  // namespace
}  // namespace hw::testing::differential
