// The SCRAM client: RFC 7677's messages byte for byte, a round trip with
// our server for both mechanisms, and the servers it refuses.
#include <gtest/gtest.h>

#include "broker/security/scram_client.h"
#include "broker/security/scram_server.h"

namespace hw::broker {
namespace {

std::vector<uint8_t> b(std::string_view s) { return {s.begin(), s.end()}; }
std::string s(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

TEST(scram_client, writes_rfc_7677s_messages) {
  scram_client c(scram_mechanism::sha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
  EXPECT_EQ(c.client_first(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  std::string error;
  auto final_message = c.client_final(
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", &error);
  ASSERT_TRUE(final_message) << error;
  EXPECT_EQ(*final_message,
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_TRUE(c.verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", &error)) << error;
  EXPECT_FALSE(c.verify_server_final("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", &error));
  EXPECT_FALSE(c.verify_server_final("e=invalid-proof", &error));
}

TEST(scram_client, round_trips_with_our_server) {
  for (scram_mechanism m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
    const scram_credential cred = scram::make_credential(m, "s3cret,=", 8192);
    scram_server server(m, [&](const std::string& u) -> std::optional<scram_credential> {
      if (u == "a,b=c") return cred;
      return std::nullopt;
    });
    scram_client client(m, "a,b=c", "s3cret,=");
    std::string error;
    sasl_step first = server.evaluate(b(client.client_first()));
    ASSERT_FALSE(first.failed) << first.reason;
    auto final_message = client.client_final(s(first.token), &error);
    ASSERT_TRUE(final_message) << error;
    sasl_step last = server.evaluate(b(*final_message));
    ASSERT_FALSE(last.failed) << last.reason;
    EXPECT_EQ(server.user(), "a,b=c");
    EXPECT_TRUE(client.verify_server_final(s(last.token), &error)) << error;
  }
}

TEST(scram_client, refuses_servers_that_cheat) {
  std::string error;
  {
    scram_client c(scram_mechanism::sha256, "user", "pencil", "abc");
    c.client_first();
    EXPECT_FALSE(c.client_final("r=xyz123,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", &error)) << "nonce not extended";
  }
  {
    scram_client c(scram_mechanism::sha256, "user", "pencil", "abc");
    c.client_first();
    EXPECT_FALSE(c.client_final("r=abc123,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1", &error)) << "too few iterations";
  }
  for (std::string bad : {"", "r=abc1", "r=abc1,s=!!,i=4096", "r=abc1,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=x",
                          "m=ext,r=abc1,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"}) {
    scram_client c(scram_mechanism::sha256, "user", "pencil", "abc");
    c.client_first();
    EXPECT_FALSE(c.client_final(bad, &error)) << bad;
  }
  scram_client c(scram_mechanism::sha256, "user", "pencil", "abc");
  EXPECT_FALSE(c.verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", &error))
      << "no signature before the exchange";
}

TEST(scram_client, plain_token) {
  EXPECT_EQ(plain_client_token("alice", "pw"), std::string("\0alice\0pw", 9));
}

}  // namespace
}  // namespace hw::broker
