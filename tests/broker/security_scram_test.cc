// SCRAM: the primitives and the server exchange, against RFC 7677's
// SCRAM-SHA-256 example and a SCRAM-SHA-512 exchange computed with Python's
// hashlib/hmac (an implementation independent of OpenSSL's calls here).
#include <gtest/gtest.h>

#include <string>

#include "broker/security/scram.h"
#include "broker/security/scram_server.h"

namespace hw::broker {
namespace {

std::vector<uint8_t> b(std::string_view s) { return {s.begin(), s.end()}; }
std::string s(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }
std::vector<uint8_t> unb64(std::string_view t) { return *scram::unbase64(t); }

struct exchange_case {
  scram_mechanism mechanism;
  std::string user, password, client_nonce, server_nonce, salt_b64;
  std::string proof_b64, server_signature_b64, stored_key_b64, server_key_b64;
};

const exchange_case rfc7677{scram_mechanism::sha256,
                            "user",
                            "pencil",
                            "rOprNGfwEbeRWgbNEkqO",
                            "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
                            "W22ZaJ0SNY7soEsUEjb6gQ==",
                            "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                            "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
                            "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=",
                            "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="};

const exchange_case sha512{
    scram_mechanism::sha512,
    "alice",
    "alice-secret",
    "fyko+d2lbbFgONRv9qkxdawL",
    "3rfcNHYJY1ZVvWVs7j",
    "QSXCR+Q6sek8bf92",
    "0eJWNsjwKE57CnG3Y3F0j0R878IhiVME7lCPOAQCAaWPmyG5U0rYj97bR1fy0CO/tKkhVsbtMXYafNCsxUbPIA==",
    "BV38XWrAjRQ3k7uQ8/+CMb9yC76900pt4gC/IVYbX3RKcVN9TN7A61yHvv3wN6FAnv7HpM8fo4xeJ4MxWWKtTg==",
    "3RMdGTPMSxEFyeWk7Cgqbz0+RxdIswm3H3uTlpPIHBpchEsxC5VvJt6yXkusCMG+X4QkGZe9y1KMMQaO9bC6jg==",
    "gZiV9L0TcSWp7WUfJ7crKVXffDRvdGOxrO3srK0V5Hxlj3k+6oj168LEToruiHud3YpDQ2g2T2b/KuF52mTBxA=="};

scram_server server_for(const exchange_case& c) {
  scram_credential cred = scram::make_credential(c.mechanism, c.password, unb64(c.salt_b64), 4096);
  return scram_server(
      c.mechanism,
      [cred, user = c.user](const std::string& u) -> std::optional<scram_credential> {
        if (u == user) return cred;
        return std::nullopt;
      },
      [n = c.server_nonce] { return n; });
}

std::string client_first(const exchange_case& c) { return "n,,n=" + c.user + ",r=" + c.client_nonce; }
std::string client_final(const exchange_case& c, const std::string& proof) {
  return "c=biws,r=" + c.client_nonce + c.server_nonce + ",p=" + proof;
}

TEST(scram, a_credential_is_what_kafka_stores_for_the_password) {
  for (const auto* c : {&rfc7677, &sha512}) {
    scram_credential cred = scram::make_credential(c->mechanism, c->password, unb64(c->salt_b64), 4096);
    EXPECT_EQ(scram::base64(cred.stored_key), c->stored_key_b64);
    EXPECT_EQ(scram::base64(cred.server_key), c->server_key_b64);
    EXPECT_EQ(cred.iterations, 4096);
  }
}

TEST(scram, a_salted_password_makes_the_same_credential_as_its_password) {
  // What the controller does with an AlterUserScramCredentials upsertion:
  // the client sent Hi(password, salt, i), the keys come out the same.
  for (const auto* c : {&rfc7677, &sha512}) {
    const auto salt = unb64(c->salt_b64);
    const auto salted = scram::salted_password(c->mechanism, c->password, salt, 4096);
    scram_credential cred = scram::credential_from_salted(c->mechanism, salted, salt, 4096);
    EXPECT_EQ(scram::base64(cred.stored_key), c->stored_key_b64);
    EXPECT_EQ(scram::base64(cred.server_key), c->server_key_b64);
    EXPECT_EQ(cred.salt, salt);
    EXPECT_EQ(cred.iterations, 4096);
  }
}

TEST(scram, the_rfc_7677_exchange_and_its_sha512_twin_complete) {
  for (const auto* c : {&rfc7677, &sha512}) {
    scram_server server = server_for(*c);
    sasl_step first = server.evaluate(b(client_first(*c)));
    ASSERT_FALSE(first.failed) << first.reason;
    EXPECT_EQ(s(first.token), "r=" + c->client_nonce + c->server_nonce + ",s=" + c->salt_b64 + ",i=4096");
    EXPECT_FALSE(server.complete());
    EXPECT_EQ(server.user(), "") << "no user before the proof";
    sasl_step last = server.evaluate(b(client_final(*c, c->proof_b64)));
    ASSERT_FALSE(last.failed) << last.reason;
    EXPECT_EQ(s(last.token), "v=" + c->server_signature_b64);
    EXPECT_TRUE(server.complete());
    EXPECT_EQ(server.user(), c->user);
  }
}

TEST(scram, a_wrong_proof_fails_with_kafkas_generic_text) {
  scram_server server = server_for(rfc7677);
  ASSERT_FALSE(server.evaluate(b(client_first(rfc7677))).failed);
  std::vector<uint8_t> proof = unb64(rfc7677.proof_b64);
  proof[0] ^= 1;
  sasl_step last = server.evaluate(b(client_final(rfc7677, scram::base64(proof))));
  EXPECT_TRUE(last.failed);
  EXPECT_FALSE(last.client_message) << "the client learns nothing but the generic failure";
  EXPECT_FALSE(server.complete());
  EXPECT_TRUE(server.evaluate(b(client_final(rfc7677, rfc7677.proof_b64))).failed) << "no second try";
}

TEST(scram, a_password_for_the_other_mechanism_does_not_pass) {
  // SCRAM-SHA-512 credentials made from the RFC's password, asked with the
  // SHA-256 proof: the proof has the wrong length.
  exchange_case c = rfc7677;
  c.mechanism = scram_mechanism::sha512;
  scram_server server = server_for(c);
  ASSERT_FALSE(server.evaluate(b(client_first(c))).failed);
  EXPECT_TRUE(server.evaluate(b(client_final(c, c.proof_b64))).failed);
}

TEST(scram, an_unknown_user_fails_at_once_and_generically) {
  exchange_case c = rfc7677;
  c.user = "mallory";
  scram_server server = server_for(rfc7677);
  sasl_step first = server.evaluate(b(client_first(c)));
  EXPECT_TRUE(first.failed);
  EXPECT_FALSE(first.client_message);
  EXPECT_TRUE(first.token.empty());
}

TEST(scram, a_wrong_nonce_or_channel_binding_fails) {
  {
    scram_server server = server_for(rfc7677);
    ASSERT_FALSE(server.evaluate(b(client_first(rfc7677))).failed);
    std::string msg = "c=biws,r=" + rfc7677.client_nonce + "other,p=" + rfc7677.proof_b64;
    EXPECT_TRUE(server.evaluate(b(msg)).failed);
  }
  {
    scram_server server = server_for(rfc7677);
    ASSERT_FALSE(server.evaluate(b(client_first(rfc7677))).failed);
    // base64("y,,"): a channel binding the client-first did not announce.
    std::string msg = "c=eSws,r=" + rfc7677.client_nonce + rfc7677.server_nonce + ",p=" + rfc7677.proof_b64;
    EXPECT_TRUE(server.evaluate(b(msg)).failed);
  }
}

TEST(scram, a_final_nonce_that_ends_with_the_server_nonce_passes_as_in_kafka) {
  // librdkafka 2.0 sends its own nonce again in front of the server-first
  // one; Kafka's ScramSaslServer checks only the ending, and so does ours.
  const exchange_case& c = rfc7677;
  scram_server server = server_for(c);
  ASSERT_FALSE(server.evaluate(b(client_first(c))).failed);
  const std::string server_first = "r=" + c.client_nonce + c.server_nonce + ",s=" + c.salt_b64 + ",i=4096";
  const std::string without_proof = "c=biws,r=" + c.client_nonce + c.client_nonce + c.server_nonce;
  const auto salted = scram::salted_password(c.mechanism, c.password, unb64(c.salt_b64), 4096);
  const auto client_key = scram::hmac(c.mechanism, salted, "Client Key");
  const auto signature = scram::hmac(c.mechanism, scram::hash(c.mechanism, client_key),
                                     "n=" + c.user + ",r=" + c.client_nonce + "," + server_first + "," + without_proof);
  scram::bytes proof(client_key.size());
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = client_key[i] ^ signature[i];
  sasl_step last = server.evaluate(b(without_proof + ",p=" + scram::base64(proof)));
  EXPECT_FALSE(last.failed);
  EXPECT_TRUE(s(last.token).starts_with("v="));
}

TEST(scram, an_authorization_id_other_than_the_user_gets_kafkas_own_text) {
  scram_server server = server_for(rfc7677);
  sasl_step first = server.evaluate(b("n,a=admin,n=user,r=" + rfc7677.client_nonce));
  ASSERT_TRUE(first.failed);
  EXPECT_EQ(first.client_message,
            "Authentication failed: Client requested an authorization id that is different from username");
  scram_server same = server_for(rfc7677);
  EXPECT_FALSE(same.evaluate(b("n,a=user,n=user,r=" + rfc7677.client_nonce)).failed);
}

TEST(scram, malformed_client_first_messages_fail) {
  for (std::string bad : {"", "n,,", "y,,n=user,r=abc", "p=tls-unique,,n=user,r=abc", "n,,r=abc,n=user",
                          "n,,n=,r=abc", "n,,n=us=er,r=abc", "n,,n=user,r=", "n,,n=user,r=a b", "n,,n=user",
                          "n,,n=user,r=abc,tokenauth=true", "n,,n=user,r=abc,=x"}) {
    scram_server server = server_for(rfc7677);
    EXPECT_TRUE(server.evaluate(b(bad)).failed) << bad;
  }
  scram_server with_extension = server_for(rfc7677);
  EXPECT_FALSE(with_extension.evaluate(b(client_first(rfc7677) + ",foo=bar")).failed)
      << "unknown extensions are ignored, as Kafka ignores them";
}

TEST(scram, too_few_iterations_fail) {
  scram_credential cred = scram::make_credential(scram_mechanism::sha256, "pencil", unb64(rfc7677.salt_b64), 4095);
  scram_server server(
      scram_mechanism::sha256, [cred](const std::string&) -> std::optional<scram_credential> { return cred; },
      [] { return std::string("n"); });
  EXPECT_TRUE(server.evaluate(b(client_first(rfc7677))).failed);
}

TEST(scram, user_names_escape_and_unescape) {
  EXPECT_EQ(scram::escape_user("a=b,c"), "a=3Db=2Cc");
  EXPECT_EQ(scram::unescape_user("a=3Db=2Cc"), "a=b,c");
  EXPECT_EQ(scram::unescape_user("a=2"), std::nullopt);
  EXPECT_EQ(scram::unescape_user("a=41"), std::nullopt);
}

TEST(scram, base64_round_trips_and_refuses_what_is_not_base64) {
  for (std::string t : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    EXPECT_EQ(s(*scram::unbase64(scram::base64(b(t)))), t);
  }
  EXPECT_EQ(scram::base64(b("foobar")), "Zm9vYmFy");
  EXPECT_EQ(s(*scram::unbase64("Zmv=")), "fk") << "the last character's unused bits are ignored, as Java's decoder does";
  for (std::string bad : {"Zm9", "Zm9v!", "Z===", "Zm=v", "Zg=\n"}) EXPECT_EQ(scram::unbase64(bad), std::nullopt) << bad;
}

TEST(scram, nonces_are_printable_without_commas_and_differ) {
  std::string a = scram::random_nonce(), c = scram::random_nonce();
  EXPECT_NE(a, c);
  EXPECT_GE(a.size(), 24u);
  for (char ch : a) EXPECT_TRUE(ch > 0x20 && ch < 0x7f && ch != ',');
  EXPECT_EQ(scram::random_salt().size(), 32u);
}

TEST(scram, mechanism_names) {
  EXPECT_EQ(parse_scram_mechanism("SCRAM-SHA-256"), scram_mechanism::sha256);
  EXPECT_EQ(parse_scram_mechanism("SCRAM-SHA-512"), scram_mechanism::sha512);
  EXPECT_EQ(parse_scram_mechanism("scram-sha-256"), std::nullopt);
  EXPECT_EQ(scram_mechanism_name(scram_mechanism::sha512), "SCRAM-SHA-512");
  // Kafka's ScramMechanism type ids, as records and requests carry them.
  EXPECT_EQ(scram_mechanism_type(scram_mechanism::sha256), 1);
  EXPECT_EQ(scram_mechanism_type(scram_mechanism::sha512), 2);
  EXPECT_EQ(scram_mechanism_from_type(1), scram_mechanism::sha256);
  EXPECT_EQ(scram_mechanism_from_type(2), scram_mechanism::sha512);
  EXPECT_EQ(scram_mechanism_from_type(0), std::nullopt);
  EXPECT_EQ(scram_mechanism_from_type(3), std::nullopt);
}

}  // namespace
}  // namespace hw::broker
