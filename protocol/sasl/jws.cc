#include "protocol/sasl/jws.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace hw::protocol::jws {
namespace {

using oauthbearer::token_failure;
using oauthbearer::validated_token;

using pkey_ptr = std::shared_ptr<void>;

pkey_ptr wrap(EVP_PKEY* k) {
  return pkey_ptr(k, [](void* p) { EVP_PKEY_free(static_cast<EVP_PKEY*>(p)); });
}

std::optional<std::string> member(const nlohmann::json& o, const char* name) {
  auto it = o.find(name);
  if (it == o.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

EVP_PKEY* from_params(const char* type, OSSL_PARAM_BLD* bld) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY* out = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  if (params && ctx && EVP_PKEY_fromdata_init(ctx) == 1) EVP_PKEY_fromdata(ctx, &out, EVP_PKEY_PUBLIC_KEY, params);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return out;
}

EVP_PKEY* rsa_key(const std::string& n, const std::string& e) {
  BIGNUM* bn_n = BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr);
  BIGNUM* bn_e = BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr);
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  EVP_PKEY* out = nullptr;
  if (bn_n && bn_e && bld && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) == 1 &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e) == 1)
    out = from_params("RSA", bld);
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn_n);
  BN_free(bn_e);
  return out;
}

// The curve's OpenSSL name and coordinate size.
std::optional<std::pair<const char*, size_t>> curve(const std::string& crv) {
  if (crv == "P-256") return std::make_pair("prime256v1", size_t{32});
  if (crv == "P-384") return std::make_pair("secp384r1", size_t{48});
  if (crv == "P-521") return std::make_pair("secp521r1", size_t{66});
  return std::nullopt;
}

EVP_PKEY* ec_key(const std::string& crv, const std::string& x, const std::string& y) {
  auto c = curve(crv);
  if (!c || x.size() != c->second || y.size() != c->second) return nullptr;
  std::string point = "\x04" + x + y;
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  EVP_PKEY* out = nullptr;
  if (bld && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, c->first, 0) == 1 &&
      OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) == 1)
    out = from_params("EC", bld);
  OSSL_PARAM_BLD_free(bld);
  return out;
}

// What an algorithm needs: key type, digest, padding, EC curve.
struct algorithm {
  const char* kty;
  const EVP_MD* (*md)();
  bool pss = false;
  const char* crv = nullptr;
};
std::optional<algorithm> algorithm_of(std::string_view alg) {
  if (alg == "RS256") return algorithm{"RSA", EVP_sha256};
  if (alg == "RS384") return algorithm{"RSA", EVP_sha384};
  if (alg == "RS512") return algorithm{"RSA", EVP_sha512};
  if (alg == "PS256") return algorithm{"RSA", EVP_sha256, true};
  if (alg == "PS384") return algorithm{"RSA", EVP_sha384, true};
  if (alg == "PS512") return algorithm{"RSA", EVP_sha512, true};
  if (alg == "ES256") return algorithm{"EC", EVP_sha256, false, "P-256"};
  if (alg == "ES384") return algorithm{"EC", EVP_sha384, false, "P-384"};
  if (alg == "ES512") return algorithm{"EC", EVP_sha512, false, "P-521"};
  return std::nullopt;
}

// A JWS signature of ES* is r||s; OpenSSL verifies DER.
std::optional<std::string> ecdsa_der(const std::string& raw, size_t coordinate) {
  if (raw.size() != 2 * coordinate) return std::nullopt;
  ECDSA_SIG* sig = ECDSA_SIG_new();
  BIGNUM* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(coordinate), nullptr);
  BIGNUM* s =
      BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data() + coordinate), static_cast<int>(coordinate), nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (len <= 0) return std::nullopt;
  std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

bool verify(const algorithm& a, EVP_PKEY* pkey, std::string_view input, const std::string& signature) {
  std::string sig = signature;
  if (a.crv) {
    auto der = ecdsa_der(signature, curve(a.crv)->second);
    if (!der) return false;
    sig = std::move(*der);
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = ctx && EVP_DigestVerifyInit(ctx, &pctx, a.md(), nullptr, pkey) == 1;
  if (ok && a.pss)
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1;
  ok = ok && EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                              reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

token_failure fail(std::string why) { return token_failure{std::move(why), std::nullopt, false}; }

// A NumericDate claim (seconds): absent, malformed, or its whole seconds.
struct date_claim {
  bool present = false;
  bool malformed = false;
  int64_t seconds = 0;
};
date_claim date_of(const nlohmann::json& claims, const char* name) {
  date_claim d;
  auto it = claims.find(name);
  if (it == claims.end() || it->is_null()) return d;
  d.present = true;
  if (!it->is_number()) {
    d.malformed = true;
    return d;
  }
  d.seconds = it->is_number_float() ? static_cast<int64_t>(it->get<double>()) : it->get<int64_t>();
  return d;
}

std::optional<std::string> string_check(const std::string& name, const std::optional<std::string>& value,
                                        std::string& out) {
  if (!value) return name + " value must be non-null";
  if (value->empty()) return name + " value must be non-empty";
  size_t b = 0, e = value->size();
  while (b < e && static_cast<unsigned char>((*value)[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>((*value)[e - 1]) <= ' ') --e;
  if (b == e) return name + " value must not contain only whitespace";
  out = value->substr(b, e - b);
  return std::nullopt;
}

}  // namespace

std::variant<key_set, std::string> parse_key_set(std::string_view json) {
  nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::string("The JWKS is not a JSON object");
  auto keys = doc.find("keys");
  if (keys == doc.end() || !keys->is_array()) return std::string("The JWKS has no \"keys\" array");
  key_set out;
  for (const auto& k : *keys) {
    if (!k.is_object()) continue;
    key one;
    one.kty = member(k, "kty").value_or("");
    one.kid = member(k, "kid").value_or("");
    one.alg = member(k, "alg").value_or("");
    one.use = member(k, "use").value_or("");
    EVP_PKEY* pkey = nullptr;
    if (one.kty == "RSA") {
      auto n = oauthbearer::base64url_decode(member(k, "n").value_or(""));
      auto e = oauthbearer::base64url_decode(member(k, "e").value_or(""));
      if (n && e && !n->empty() && !e->empty()) pkey = rsa_key(*n, *e);
    } else if (one.kty == "EC") {
      one.crv = member(k, "crv").value_or("");
      auto x = oauthbearer::base64url_decode(member(k, "x").value_or(""));
      auto y = oauthbearer::base64url_decode(member(k, "y").value_or(""));
      if (x && y) pkey = ec_key(one.crv, *x, *y);
    }
    if (!pkey) continue;
    one.pkey = wrap(pkey);
    out.push_back(std::move(one));
  }
  return out;
}

outcome validate(std::string_view raw, const key_set& keys, const validator_options& o, int64_t now_ms) {
  outcome out{fail(""), std::nullopt};
  auto refuse = [&](std::string why) {
    out.result = fail(std::move(why));
    return out;
  };
  // Three non-blank sections.
  size_t b = 0, e = raw.size();
  while (b < e && static_cast<unsigned char>(raw[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(raw[e - 1]) <= ' ') --e;
  const std::string_view token = raw.substr(b, e - b);
  const size_t d1 = token.find('.');
  const size_t d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
  if (token.empty() || d2 == std::string_view::npos || token.find('.', d2 + 1) != std::string_view::npos ||
      d1 == 0 || d2 == d1 + 1 || d2 + 1 == token.size())
    return refuse("Malformed JWT provided; expected three sections (header, payload, and signature)");
  const std::string_view header_part = token.substr(0, d1);
  const std::string_view payload_part = token.substr(d1 + 1, d2 - d1 - 1);
  const std::string_view signature_part = token.substr(d2 + 1);

  auto header_text = oauthbearer::base64url_decode(header_part);
  auto payload_text = oauthbearer::base64url_decode(payload_part);
  auto signature = oauthbearer::base64url_decode(signature_part);
  if (!header_text || !payload_text || !signature) return refuse("Could not validate the access token: not base64url");
  nlohmann::json header = nlohmann::json::parse(*header_text, nullptr, false);
  if (header.is_discarded() || !header.is_object())
    return refuse("Could not validate the access token: the JOSE header is not a JSON object");
  const std::string alg = member(header, "alg").value_or("");
  if (alg.empty()) return refuse("Could not validate the access token: no alg header");
  if (alg == "none") return refuse("Could not validate the access token: 'none' is not a permitted algorithm");
  auto a = algorithm_of(alg);
  if (!a) return refuse("Could not validate the access token: algorithm " + alg + " is not supported");
  if (header.contains("crit")) return refuse("Could not validate the access token: unrecognized critical header");

  // The key: by kid when the token names one, of the algorithm's type and
  // curve, meant for signatures and for this algorithm; the first that fits.
  const std::optional<std::string> kid = member(header, "kid");
  const key* chosen = nullptr;
  for (const key& k : keys) {
    if (kid && k.kid != *kid) continue;
    if (k.kty != a->kty) continue;
    if (a->crv && k.crv != a->crv) continue;
    if (!k.use.empty() && k.use != "sig") continue;
    if (!k.alg.empty() && k.alg != alg) continue;
    chosen = &k;
    break;
  }
  if (!chosen) {
    if (kid) out.unknown_kid = *kid;
    return refuse("Could not validate the access token: Unable to find a suitable verification key for the JWS");
  }
  auto* pkey = static_cast<EVP_PKEY*>(chosen->pkey.get());
  if (std::string_view(a->kty) == "RSA" && EVP_PKEY_get_bits(pkey) < 2048)
    return refuse("Could not validate the access token: RSA key of size below 2048 bits");
  const std::string_view signing_input = token.substr(0, d2);
  if (!verify(*a, pkey, signing_input, *signature))
    return refuse("Could not validate the access token: JWS signature is invalid");

  nlohmann::json claims = nlohmann::json::parse(*payload_text, nullptr, false);
  if (claims.is_discarded() || !claims.is_object())
    return refuse("Could not validate the access token: the claims are not a JSON object");

  // jose4j's claim checks, in seconds, with the skew.
  const int64_t now_s = now_ms / 1000;
  const date_claim exp = date_of(claims, "exp");
  const date_claim iat = date_of(claims, "iat");
  const date_claim nbf = date_of(claims, "nbf");
  if (exp.malformed || iat.malformed || nbf.malformed)
    return refuse("Could not validate the access token: a NumericDate claim is not a number");
  if (!exp.present) return refuse("Could not validate the access token: no Expiration Time (exp) claim present");
  if (!iat.present) return refuse("Could not validate the access token: no Issued At (iat) claim present");
  if (now_s - o.clock_skew_seconds >= exp.seconds)
    return refuse("Could not validate the access token: the JWT is no longer valid");
  if (nbf.present && now_s + o.clock_skew_seconds < nbf.seconds)
    return refuse("Could not validate the access token: the JWT is not yet valid");
  // Audience: with an expected audience, one of the token's must be one
  // of them; without one, a token that names an audience is refused.
  if (auto aud = claims.find("aud"); aud != claims.end() && !aud->is_null()) {
    std::vector<std::string> audiences;
    if (aud->is_string()) {
      audiences.push_back(aud->get<std::string>());
    } else if (aud->is_array()) {
      for (const auto& x : *aud) {
        if (!x.is_string()) return refuse("Could not validate the access token: the aud claim is malformed");
        audiences.push_back(x.get<std::string>());
      }
    } else {
      return refuse("Could not validate the access token: the aud claim is malformed");
    }
    bool match = false;
    for (const auto& x : audiences)
      if (std::find(o.expected_audience.begin(), o.expected_audience.end(), x) != o.expected_audience.end())
        match = true;
    if (!match)
      return refuse(o.expected_audience.empty()
                        ? "Could not validate the access token: an aud claim is present but no expected audience is "
                          "configured"
                        : "Could not validate the access token: the aud claim has no acceptable identifier");
  } else if (!o.expected_audience.empty()) {
    return refuse("Could not validate the access token: no Audience (aud) claim present");
  }
  if (o.expected_issuer) {
    auto iss = claims.find("iss");
    if (iss == claims.end() || !iss->is_string())
      return refuse("Could not validate the access token: no Issuer (iss) claim present");
    if (iss->get<std::string>() != *o.expected_issuer)
      return refuse("Could not validate the access token: the iss claim does not match the expected issuer");
  }

  validated_token t;
  // Scope: a string is one scope, an array its elements; anything else none.
  if (auto s = claims.find(o.scope_claim); s != claims.end()) {
    std::vector<std::optional<std::string>> raw_scopes;
    if (s->is_string()) {
      raw_scopes.push_back(s->get<std::string>());
    } else if (s->is_array()) {
      for (const auto& x : *s) {
        // Kafka casts each element to a string: another type throws
        // outside its checks, and the connection closes unanswered.
        if (!x.is_string() && !x.is_null()) {
          out.result = token_failure{o.scope_claim + " holds a value that is not a string", std::nullopt, true};
          return out;
        }
        raw_scopes.push_back(x.is_string() ? std::optional(x.get<std::string>()) : std::nullopt);
      }
    }
    for (const auto& one : raw_scopes) {
      std::string scope;
      if (auto why = string_check(o.scope_claim, one, scope)) return refuse(*why);
      if (!t.scope.insert(scope).second)
        return refuse(o.scope_claim + " value must not contain duplicates - " + scope + " already present");
    }
  }
  if (exp.seconds < 0) return refuse("exp value must be non-negative");
  t.lifetime_ms = exp.seconds * 1000;
  std::optional<std::string> sub;
  if (auto s = claims.find(o.sub_claim); s != claims.end() && !s->is_null()) {
    if (!s->is_string()) return refuse("Could not extract the '" + o.sub_claim + "' claim from the access token");
    sub = s->get<std::string>();
  }
  if (auto why = string_check(o.sub_claim, sub, t.principal)) return refuse(*why);
  if (iat.seconds < 0) return refuse("iat value must be null or non-negative");
  t.start_time_ms = iat.seconds * 1000;
  out.result = std::move(t);
  return out;
}

}  // namespace hw::protocol::jws
