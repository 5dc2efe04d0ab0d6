// OAUTHBEARER's pure parts: the client-first message as Kafka parses it,
// base64url as Java decodes it, unsecured tokens as Kafka's default
// validator checks them and its login makes them, signed tokens (keys made
// and tokens signed here with OpenSSL) as Kafka's broker validator checks
// them, the server's error challenge and its acknowledgement, and the
// session lifetime a token bounds.

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "broker/security/oauth_validation.h"
#include "broker/security/oauthbearer_server.h"
#include "broker/security/sasl_session.h"
#include "protocol/sasl/jws.h"
#include "protocol/sasl/oauthbearer.h"

namespace hw::broker {
namespace {

namespace oauth = protocol::oauthbearer;
namespace jws = protocol::jws;

std::span<const uint8_t> bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
std::string text(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

oauth::client_first first_of(const std::variant<oauth::client_first, oauth::message_error>& v) {
  if (auto* f = std::get_if<oauth::client_first>(&v)) return *f;
  ADD_FAILURE() << std::get<oauth::message_error>(v).reason;
  return {};
}
oauth::message_error error_of(const std::variant<oauth::client_first, oauth::message_error>& v) {
  if (auto* e = std::get_if<oauth::message_error>(&v)) return *e;
  ADD_FAILURE() << "parsed";
  return {};
}

TEST(OAuthBearerMessage, ClientFirstWithAuthorizationIdAndExtensions) {
  const std::string m = oauth::client_first_message("abc.def.", "alice", {{"traceId", "x y=1"}, {"zone", "eu"}});
  EXPECT_EQ(m, "n,a=alice,\x01" "auth=Bearer abc.def.\x01traceId=x y=1\x01zone=eu\x01\x01");
  const auto f = first_of(oauth::parse_client_first(m));
  EXPECT_EQ(f.token, "abc.def.");
  EXPECT_EQ(f.authorization_id, "alice");
  EXPECT_EQ(f.extensions, (std::map<std::string, std::string>{{"traceId", "x y=1"}, {"zone", "eu"}}));
  // The scheme in any case, several spaces, padding after the token.
  EXPECT_EQ(first_of(oauth::parse_client_first("n,,\x01" "auth=bEaReR   tok==\x01\x01")).token, "tok==");
  // An escaped comma is a SASL name; the id is kept as sent.
  EXPECT_EQ(first_of(oauth::parse_client_first("n,a=a=2Cb,\x01" "auth=Bearer t\x01\x01")).authorization_id, "a=2Cb");
}

TEST(OAuthBearerMessage, RefusalsWithKafkasTexts) {
  const std::string invalid = "Invalid OAUTHBEARER client first message";
  for (std::string bad : {std::string("y,,\x01" "auth=Bearer t\x01\x01"), std::string("n,,auth=Bearer t\x01\x01"),
                          std::string("n,,\x01" "auth=Bearer t\x01"), std::string("n,,\x01" "auth=Bearer t\x01\x01x"),
                          std::string("n,a=,\x01" "auth=Bearer t\x01\x01"), std::string("n,a=a=b,\x01" "auth=Bearer t\x01\x01"),
                          std::string("n,,\x01" "k1=v\x01" "auth=Bearer t\x01\x01"),
                          std::string("n,,\x01" "ext=caf\xc3\xa9\x01" "auth=Bearer t\x01\x01"), std::string("")}) {
    auto e = error_of(oauth::parse_client_first(bad));
    EXPECT_EQ(e.reason, invalid) << bad;
    EXPECT_FALSE(e.unanswered);
  }
  EXPECT_EQ(error_of(oauth::parse_client_first("n,,\x01" "ext=v\x01\x01")).reason,
            "Invalid OAUTHBEARER client first message: 'auth' not specified");
  EXPECT_EQ(error_of(oauth::parse_client_first("n,,\x01" "auth=Bearer\x01\x01")).reason,
            "Invalid OAUTHBEARER client first message: invalid 'auth' format");
  EXPECT_EQ(error_of(oauth::parse_client_first("n,,\x01" "auth=Bearer a b\x01\x01")).reason,
            "Invalid OAUTHBEARER client first message: invalid 'auth' format");
  // Another scheme fails outside SASL in Kafka: the connection closes.
  EXPECT_TRUE(error_of(oauth::parse_client_first("n,,\x01" "auth=Basic abc\x01\x01")).unanswered);
}

TEST(OAuthBearerMessage, Base64UrlAsJavaDecodesIt) {
  EXPECT_EQ(oauth::base64url_decode("aGk"), "hi");
  EXPECT_EQ(oauth::base64url_decode("aGk="), "hi");
  EXPECT_EQ(oauth::base64url_decode("-_8"), std::string("\xfb\xff"));
  EXPECT_FALSE(oauth::base64url_decode("+/8"));    // the standard alphabet's characters
  EXPECT_FALSE(oauth::base64url_decode("aGk=="));  // too much padding
  EXPECT_FALSE(oauth::base64url_decode("aGk=a"));  // data after padding
  EXPECT_FALSE(oauth::base64url_decode("a"));      // a last group of one
  EXPECT_EQ(oauth::base64url_encode("hi?"), "aGk_");
  EXPECT_EQ(oauth::base64url_decode(""), "");
}

std::string unsecured(const std::string& claims, const std::string& header = R"({"alg":"none"})",
                      const std::string& signature = "") {
  return oauth::base64url_encode(header) + "." + oauth::base64url_encode(claims) + "." + signature;
}

std::string claims_at(int64_t exp_s, int64_t iat_s, const std::string& more = "") {
  return R"({"sub":"alice","exp":)" + std::to_string(exp_s) + R"(,"iat":)" + std::to_string(iat_s) + more + "}";
}

oauth::validated_token accepted(const oauth::validation& v) {
  if (auto* t = std::get_if<oauth::validated_token>(&v)) return *t;
  ADD_FAILURE() << "refused: " << std::get<oauth::token_failure>(v).reason;
  return {};
}
oauth::token_failure refused(const oauth::validation& v) {
  if (auto* f = std::get_if<oauth::token_failure>(&v)) return *f;
  ADD_FAILURE() << "accepted as " << std::get<oauth::validated_token>(v).principal;
  return {};
}

TEST(OAuthBearerUnsecured, AcceptsAGoodTokenAndReadsItsClaims) {
  const int64_t now = 1'700'000'000'000;
  oauth::unsecured_validator_options o;
  auto v = oauth::validate_unsecured(unsecured(claims_at(1'700'000'100, 1'699'999'990, R"(,"scope":["read"," write ",""])")),
                                     o, now);
  const auto good = accepted(v);
  EXPECT_EQ(good.principal, "alice");
  EXPECT_EQ(good.lifetime_ms, 1'700'000'100'000);
  EXPECT_EQ(good.start_time_ms, 1'699'999'990'000);
  EXPECT_EQ(good.scope, (std::set<std::string>{"read", "write"}));
  // A scope string is one scope, not split.
  auto one = oauth::validate_unsecured(unsecured(claims_at(1'700'000'100, 1'699'999'990, R"(,"scope":"a b")")), o, now);
  EXPECT_EQ(accepted(one).scope, (std::set<std::string>{"a b"}));
  // Another principal claim, and JSON after the document is ignored as Jackson does.
  o.principal_claim = "client";
  auto other = oauth::validate_unsecured(
      oauth::base64url_encode(R"({"alg":"none"} trailing)") + "." +
          oauth::base64url_encode(R"({"client":"svc","exp":1700000100})") + ".",
      o, now);
  EXPECT_EQ(accepted(other).principal, "svc");
}

TEST(OAuthBearerUnsecured, RefusesAsKafka) {
  const int64_t now = 1'700'000'000'000;
  oauth::unsecured_validator_options o;
  auto invalid = [&](const std::string& token) {
    auto f = refused(oauth::validate_unsecured(token, o, now));
    EXPECT_EQ(f.status(), "invalid_token") << f.reason;
    EXPECT_FALSE(f.unanswered) << f.reason;
    return f.reason;
  };
  EXPECT_EQ(invalid(unsecured(claims_at(1'700'000'000, 1'600'000'000))),
            "The indicated time minus allowable clock skew was on or after the Expiration Time value");
  EXPECT_EQ(invalid(unsecured(claims_at(1'700'000'100, 1'700'000'001))),
            "The Issued At value was after the indicated time plus allowable clock skew");
  EXPECT_EQ(invalid(unsecured(R"({"sub":"alice"})")), "No expiration time in JWT");
  EXPECT_EQ(invalid(unsecured(R"({"exp":1700000100})")), "No principal name in JWT claim: sub");
  EXPECT_EQ(invalid(unsecured(R"({"sub":" ","exp":1700000100})")), "No principal name in JWT claim: sub");
  EXPECT_EQ(invalid(unsecured(R"({"sub":"a","exp":"1700000100"})")), "The 'exp' claim was not of type Number");
  EXPECT_EQ(invalid(unsecured(claims_at(1'700'000'100, 1'600'000'000), R"({"alg":"RS256"})")),
            "Unsecured JWS must have 'none' for an algorithm");
  EXPECT_EQ(invalid(unsecured(claims_at(1'700'000'100, 1'600'000'000), R"({"alg":"none"})", "c2ln")),
            "Unsecured JWS must not contain a digital signature");
  EXPECT_EQ(invalid("a..b"), "Malformed compact serialization contains '..'");
  EXPECT_EQ(invalid("abc.def"), "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values");
  EXPECT_EQ(invalid("a+b.e30.x"), "malformed Base64 URL encoded value");
  EXPECT_EQ(invalid(oauth::base64url_encode("{nope") + ".e30."), "malformed JSON");
  // The clock skew lets an expired token pass for that long.
  o.allowable_clock_skew_ms = 5000;
  EXPECT_EQ(accepted(oauth::validate_unsecured(unsecured(claims_at(1'699'999'996, 1'600'000'000)), o, now)).principal,
            "alice");
  // No "alg" at all: Kafka's handler throws outside its checks.
  EXPECT_TRUE(refused(oauth::validate_unsecured(unsecured(claims_at(1'700'000'100, 1), R"({"typ":"JWT"})"), o, now))
                  .unanswered);
}

TEST(OAuthBearerUnsecured, RequiredScopeIsInsufficientScope) {
  auto options = oauth::unsecured_validator_options_from({{"unsecuredValidatorRequiredScope", " write  read "}});
  ASSERT_TRUE(std::holds_alternative<oauth::unsecured_validator_options>(options));
  const auto& o = std::get<oauth::unsecured_validator_options>(options);
  auto f = refused(oauth::validate_unsecured(unsecured(claims_at(1'700'000'100, 1, R"(,"scope":["read"])")), o,
                                             1'700'000'000'000));
  EXPECT_EQ(f.status(), "insufficient_scope");
  EXPECT_EQ(f.insufficient_scope, "[write, read]");
  EXPECT_EQ(oauth::error_challenge(f.status(), f.insufficient_scope),
            R"({"status":"insufficient_scope", "scope":"[write, read]"})");
  EXPECT_EQ(oauth::error_challenge("invalid_token"), R"({"status":"invalid_token"})");
  accepted(oauth::validate_unsecured(unsecured(claims_at(1'700'000'100, 1, R"(,"scope":["read","write"])")), o,
                                     1'700'000'000'000));
  // Bad options, with Kafka's messages.
  EXPECT_EQ(std::get<std::string>(oauth::unsecured_validator_options_from({{"unsecuredValidatorRequiredScope", "a\"b"}})),
            "Invalid scope value: a\"b");
  EXPECT_EQ(
      std::get<std::string>(oauth::unsecured_validator_options_from({{"unsecuredValidatorAllowableClockSkewMs", "-1"}})),
      "Allowable clock skew millis must not be negative: -1");
}

TEST(OAuthBearerUnsecured, LoginTokensReadBackAsTheValidatorReadsThem) {
  const int64_t now = now_ms();
  auto made = oauth::make_unsecured_login_token({{"unsecuredLoginStringClaim_sub", "broker"},
                                                 {"unsecuredLoginListClaim_scope", ",a,b"},
                                                 {"unsecuredLoginNumberClaim_n", "2.5"},
                                                 {"unsecuredLoginLifetimeSeconds", "600"},
                                                 {"unsecuredLoginExtension_traceId", "t1"}},
                                                now);
  ASSERT_TRUE(std::holds_alternative<oauth::login_token>(made)) << std::get<std::string>(made);
  const auto& t = std::get<oauth::login_token>(made);
  EXPECT_EQ(t.principal, "broker");
  EXPECT_EQ(t.lifetime_ms, now + 600'000);
  EXPECT_EQ(t.extensions, (std::map<std::string, std::string>{{"traceId", "t1"}}));
  const auto read = accepted(oauth::validate_unsecured(t.token, {}, now));
  EXPECT_EQ(read.principal, "broker");
  EXPECT_EQ(read.scope, (std::set<std::string>{"a", "b"}));
  EXPECT_NEAR(static_cast<double>(read.lifetime_ms), static_cast<double>(now + 600'000), 1.0);
  EXPECT_EQ(std::get<std::string>(oauth::make_unsecured_login_token({{"unsecuredLoginStringClaim_exp", "1"}}, now)),
            "Cannot explicitly set the 'exp' claim");
  EXPECT_EQ(std::get<std::string>(oauth::make_unsecured_login_token({{"unsecuredLoginExtension_a", "b"}}, now)),
            "Extensions provided in login context without a token");
  EXPECT_EQ(std::get<std::string>(oauth::make_unsecured_login_token({{"unsecuredLoginStringClaim_x", "y"}}, now)),
            "No principal name in JWT claim: sub");
}

// --- signed tokens -----------------------------------------------------------

struct keypair {
  std::shared_ptr<EVP_PKEY> key;
  std::string jwk;  // the public half as a JWK
};

std::string bn_bytes(EVP_PKEY* k, const char* name) {
  BIGNUM* bn = nullptr;
  EVP_PKEY_get_bn_param(k, name, &bn);
  std::string out(static_cast<size_t>(BN_num_bytes(bn)), '\0');
  BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
  BN_free(bn);
  return out;
}

keypair rsa(int bits, const std::string& kid, const std::string& extra = "") {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits));
  keypair p{std::shared_ptr<EVP_PKEY>(k, EVP_PKEY_free), ""};
  p.jwk = R"({"kty":"RSA","kid":")" + kid + R"(","n":")" + oauth::base64url_encode(bn_bytes(k, OSSL_PKEY_PARAM_RSA_N)) +
          R"(","e":")" + oauth::base64url_encode(bn_bytes(k, OSSL_PKEY_PARAM_RSA_E)) + "\"" + extra + "}";
  return p;
}

keypair ec(const std::string& kid) {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  keypair p{std::shared_ptr<EVP_PKEY>(k, EVP_PKEY_free), ""};
  unsigned char point[65];
  size_t len = 0;
  EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof point, &len);
  const std::string x(reinterpret_cast<char*>(point) + 1, 32), y(reinterpret_cast<char*>(point) + 33, 32);
  p.jwk = R"({"kty":"EC","crv":"P-256","kid":")" + kid + R"(","use":"sig","x":")" + oauth::base64url_encode(x) +
          R"(","y":")" + oauth::base64url_encode(y) + "\"}";
  return p;
}

std::string sign(const keypair& k, const std::string& alg, const std::string& header, const std::string& claims) {
  const std::string input = oauth::base64url_encode(header) + "." + oauth::base64url_encode(claims);
  const EVP_MD* md = alg.ends_with("256") ? EVP_sha256() : alg.ends_with("384") ? EVP_sha384() : EVP_sha512();
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  EVP_DigestSignInit(ctx, &pctx, md, nullptr, k.key.get());
  if (alg.starts_with("PS")) {
    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  size_t len = 0;
  EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
  std::string sig(len, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                 reinterpret_cast<const unsigned char*>(input.data()), input.size());
  sig.resize(len);
  EVP_MD_CTX_free(ctx);
  if (alg.starts_with("ES")) {  // DER to the JWS form r||s
    const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* s = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(s), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(s), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(s);
    sig = raw;
  }
  return input + "." + oauth::base64url_encode(sig);
}

class SignedTokens : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = jws::parse_key_set(R"({"keys":[)" + rsa_key.jwk + "," + ec_key.jwk + "," + small.jwk +
                                     R"(,{"kty":"oct","k":"c2VjcmV0"}]})");
    ASSERT_TRUE(std::holds_alternative<jws::key_set>(parsed)) << std::get<std::string>(parsed);
    keys = std::get<jws::key_set>(parsed);
    options.expected_audience = {"kafka"};
    options.expected_issuer = "https://idp.test";
  }
  std::string claims(const std::string& more = "", int64_t exp = now + 300, int64_t iat = now - 10) const {
    return R"({"sub":" svc ","aud":["other","kafka"],"iss":"https://idp.test","exp":)" + std::to_string(exp) +
           R"(,"iat":)" + std::to_string(iat) + more + "}";
  }
  jws::outcome check(const std::string& token) const { return jws::validate(token, keys, options, now * 1000); }

  static constexpr int64_t now = 1'700'000'000;
  keypair rsa_key = rsa(2048, "r1");
  keypair ec_key = ec("e1");
  keypair small = rsa(1024, "small");
  jws::key_set keys;
  jws::validator_options options;
};

TEST_F(SignedTokens, RsaPssAndEcSignaturesOfTheRightKey) {
  EXPECT_EQ(keys.size(), 3u);  // the symmetric key is left out
  const auto t = accepted(check(sign(rsa_key, "RS256", R"({"alg":"RS256","kid":"r1"})", claims())).result);
  EXPECT_EQ(t.principal, "svc");
  EXPECT_EQ(t.lifetime_ms, (now + 300) * 1000);
  accepted(check(sign(rsa_key, "PS256", R"({"alg":"PS256","kid":"r1"})", claims())).result);
  accepted(check(sign(rsa_key, "RS512", R"({"alg":"RS512"})", claims())).result);  // no kid: the first RSA key
  const auto e = accepted(check(sign(ec_key, "ES256", R"({"alg":"ES256","kid":"e1"})",
                                      claims(R"(,"scope":["read","write"])")))
                               .result);
  EXPECT_EQ(e.scope, (std::set<std::string>{"read", "write"}));
}

TEST_F(SignedTokens, RefusedTokens) {
  auto invalid = [&](const std::string& token) {
    auto out = check(token);
    auto f = refused(out.result);
    EXPECT_EQ(f.status(), "invalid_token");
    EXPECT_FALSE(f.unanswered);
    return f.reason;
  };
  // Signed by another key than the one its kid names.
  keypair stranger = rsa(2048, "r1");
  EXPECT_NE(invalid(sign(stranger, "RS256", R"({"alg":"RS256","kid":"r1"})", claims())).find("signature is invalid"),
            std::string::npos);
  // A key id the set does not have: flagged so that the keys are fetched again.
  auto unknown = check(sign(stranger, "RS256", R"({"alg":"RS256","kid":"r9"})", claims()));
  EXPECT_EQ(unknown.unknown_kid, "r9");
  // alg none, a key too small, an algorithm of another key type.
  EXPECT_NE(invalid(oauth::base64url_encode(R"({"alg":"none"})") + "." + oauth::base64url_encode(claims()) + ".eHg")
                .find("'none'"),
            std::string::npos);
  EXPECT_NE(invalid(sign(small, "RS256", R"({"alg":"RS256","kid":"small"})", claims())).find("2048"),
            std::string::npos);
  EXPECT_NE(invalid(sign(ec_key, "ES256", R"({"alg":"ES256","kid":"r1"})", claims())).find("verification key"),
            std::string::npos);
  // Times: expired beyond the skew (within it passes), not yet valid, iat missing.
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", claims("", now - 31)));
  accepted(check(sign(rsa_key, "RS256", R"({"alg":"RS256"})", claims("", now - 29))).result);
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", claims(R"(,"nbf":1700000031)")));
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", R"({"sub":"a","aud":"kafka","iss":"https://idp.test","exp":1700000300})"));
  // Audience and issuer.
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})",
               R"({"sub":"a","aud":"other","iss":"https://idp.test","exp":1700000300,"iat":1})"));
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", R"({"sub":"a","iss":"https://idp.test","exp":1700000300,"iat":1})"));
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", R"({"sub":"a","aud":"kafka","iss":"https://evil","exp":1700000300,"iat":1})"));
  // Subject and scope.
  EXPECT_EQ(invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})",
                         R"({"aud":"kafka","iss":"https://idp.test","exp":1700000300,"iat":1})")),
            "sub value must be non-null");
  EXPECT_EQ(invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", claims(R"(,"scope":["a","a"])"))),
            "scope value must not contain duplicates - a already present");
  // Malformed.
  EXPECT_EQ(invalid("abc.def"), "Malformed JWT provided; expected three sections (header, payload, and signature)");
  // Without an expected audience, a token naming one is refused.
  options.expected_audience.clear();
  invalid(sign(rsa_key, "RS256", R"({"alg":"RS256"})", claims()));
  accepted(check(sign(rsa_key, "RS256", R"({"alg":"RS256"})",
                      R"({"sub":"a","iss":"https://idp.test","exp":1700000300,"iat":1})"))
               .result);
}

TEST(OAuthBearerKeySet, WhatIsNotAKeySet) {
  EXPECT_TRUE(std::holds_alternative<std::string>(jws::parse_key_set("[]")));
  EXPECT_TRUE(std::holds_alternative<std::string>(jws::parse_key_set(R"({"keys":{}})")));
  EXPECT_TRUE(std::holds_alternative<std::string>(jws::parse_key_set("garbage")));
  auto none = jws::parse_key_set(R"({"keys":[{"kty":"RSA","n":"!!","e":"AQAB"},{"kty":"EC","crv":"P-999"}]})");
  ASSERT_TRUE(std::holds_alternative<jws::key_set>(none));
  EXPECT_TRUE(std::get<jws::key_set>(none).empty());
}

// --- the server ---------------------------------------------------------------

oauthbearer_server unsecured_server() {
  return oauthbearer_server([](std::string_view t) { return oauth::validate_unsecured(t, {}, now_ms()); });
}

TEST(OAuthBearerServer, GoodTokenCompletesAndBoundsTheLogin) {
  const int64_t exp_s = now_ms() / 1000 + 120;
  auto server = unsecured_server();
  sasl_step step = server.evaluate(bytes(oauth::client_first_message(
      unsecured(claims_at(exp_s, now_ms() / 1000 - 1)), "alice", {{"trace", "1"}})));
  EXPECT_FALSE(step.failed);
  EXPECT_TRUE(step.token.empty());
  EXPECT_TRUE(server.complete());
  EXPECT_EQ(server.user(), "alice");
  EXPECT_EQ(server.credential_expiry_ms(), exp_s * 1000);
  EXPECT_EQ(server.extensions().at("trace"), "1");
}

TEST(OAuthBearerServer, RefusedTokenIsAChallengeThenTheFailure) {
  auto server = unsecured_server();
  const std::string expired = oauth::client_first_message(unsecured(claims_at(1000, 1)));
  sasl_step step = server.evaluate(bytes(expired));
  EXPECT_FALSE(step.failed);
  EXPECT_EQ(text(step.token), R"({"status":"invalid_token"})");
  EXPECT_FALSE(server.complete());
  step = server.evaluate(bytes("\x01"));
  EXPECT_TRUE(step.failed);
  EXPECT_EQ(step.client_message, R"({"status":"invalid_token"})");
  // A new first message instead of the acknowledgement is a new attempt.
  auto again = unsecured_server();
  again.evaluate(bytes(expired));
  step = again.evaluate(bytes(oauth::client_first_message(unsecured(claims_at(now_ms() / 1000 + 60, 1)))));
  EXPECT_FALSE(step.failed);
  EXPECT_TRUE(again.complete());
  // 0x01 with no challenge before it is a malformed first message.
  auto fresh = unsecured_server();
  step = fresh.evaluate(bytes("\x01"));
  EXPECT_TRUE(step.failed);
  EXPECT_FALSE(step.client_message);  // Kafka's generic failure
}

TEST(OAuthBearerServer, AuthorizationIdMustBeThePrincipal) {
  auto server = unsecured_server();
  sasl_step step = server.evaluate(
      bytes(oauth::client_first_message(unsecured(claims_at(now_ms() / 1000 + 60, 1)), "bob")));
  EXPECT_TRUE(step.failed);
  EXPECT_EQ(step.client_message,
            "Authentication failed: Client requested an authorization id (bob) that is different from the token's "
            "principal name (alice)");
  auto scheme = unsecured_server();
  EXPECT_TRUE(scheme.evaluate(bytes("n,,\x01" "auth=Basic abc\x01\x01")).close_unanswered);
}

TEST(OAuthBearerServer, SessionLifetimeIsTheTokensOrTheReauthLimit) {
  auto session_with = [](std::map<std::string, int64_t> limits, int64_t exp_s) {
    auto s = std::make_unique<sasl_session>(
        std::vector<std::string>{"OAUTHBEARER"},
        [](const std::string&) -> std::unique_ptr<sasl_server> {
          return std::make_unique<oauthbearer_server>(
              [](std::string_view t) { return oauth::validate_unsecured(t, {}, now_ms()); });
        },
        std::move(limits));
    std::string why;
    s->admit(17, &why);
    s->handshake("OAUTHBEARER", 1);
    s->authenticate(bytes(oauth::client_first_message(unsecured(claims_at(exp_s, 1)))));
    return s;
  };
  const int64_t exp_s = now_ms() / 1000 + 100;
  auto by_token = session_with({}, exp_s);
  ASSERT_TRUE(by_token->authenticated());
  EXPECT_TRUE(by_token->session_expires());
  EXPECT_LE(by_token->session_lifetime_ms(), 100'000);
  EXPECT_GT(by_token->session_lifetime_ms(), 90'000);
  auto by_limit = session_with({{"OAUTHBEARER", 5000}}, exp_s);
  EXPECT_EQ(by_limit->session_lifetime_ms(), 5000);
  auto token_sooner = session_with({{"OAUTHBEARER", 500'000}}, exp_s);
  EXPECT_LE(token_sooner->session_lifetime_ms(), 100'000);
}

}  // namespace
}  // namespace hw::broker

namespace hw::broker {
namespace {

TEST(OAuthBearerAllowList, EntriesAreTrimmedAndExact) {
  EXPECT_TRUE(oauth_url_allowed(std::string(" https://a/keys , file:/tmp/j.json"), "file:/tmp/j.json"));
  EXPECT_TRUE(oauth_url_allowed(std::string("https://a/keys"), "https://a/keys"));
  EXPECT_FALSE(oauth_url_allowed(std::string("https://a/keys"), "https://a/keys?x=1"));
  EXPECT_FALSE(oauth_url_allowed(std::nullopt, "https://a/keys"));
}

}  // namespace
}  // namespace hw::broker
