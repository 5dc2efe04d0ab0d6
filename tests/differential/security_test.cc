// Authentication and TLS: the same conversations with Kafka 4.3.1's and
// Highwater's secured listeners (same certificates, same users; see
// twin_environment.cc), each told as a story of what the client saw, one
// line per step (an answer's error code and message, a close, a refused
// handshake's alert), and the two stories compared. The bad inputs of the
// security issue: wrong passwords and unknown users, unknown mechanisms,
// requests before authentication, oversized tokens, malformed SASL and
// SCRAM messages, plaintext on a TLS port and TLS on a plaintext one,
// client certificates missing, untrusted or expired; the sensitive
// listener keys DescribeConfigs hides; and re-authentication (KIP-368) on a
// listener whose logins last 1.5 s: the lifetime told, the renewal, its
// refusals and the close after the expiry.

#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "protocol/messages/api_versions.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/sasl/scram.h"
#include "protocol/sasl/scram_client.h"
#include "sasl_story.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using protocol::scram_mechanism;

constexpr int16_t k_handshake = 17, k_authenticate = 36, k_api_versions = 18;
constexpr const char* k_scram_user = "scram-user";
constexpr const char* k_scram_password = "scram-secret";

void api_versions(story_session& s, int16_t version = 3) {
  msg::api_versions_request req;
  req.client_software_name = "differential";
  req.client_software_version = "1.0";
  if (auto r = s.call<msg::api_versions_response>("ApiVersions", k_api_versions, version, req))
    s.note("ApiVersions: error " + std::to_string(r->error_code));
}

// SaslAuthenticate; the story keeps the error, the message, the lifetime
// and whether there is a token (SCRAM's are random: the caller notes their
// shape).
std::optional<msg::sasl_authenticate_response> authenticate(story_session& s, const std::vector<uint8_t>& token,
                                                            int16_t version = 2) {
  auto a = sasl_authenticate(s, token, version);
  if (!a) return std::nullopt;
  const auto& r = a->response;
  s.note("SaslAuthenticate v" + std::to_string(version) + ": error " + std::to_string(r.error_code) + " message " +
         (r.error_message ? "'" + *r.error_message + "'" : std::string("null")) + " lifetime " +
         std::to_string(r.session_lifetime_ms) + (r.auth_bytes.empty() ? ", no token" : ", a token"));
  return r;
}

std::vector<uint8_t> plain(const std::string& user, const std::string& password, const std::string& authzid = "") {
  return bytes_of(protocol::plain_client_token(user, password).insert(0, authzid));
}

// The SCRAM exchange with this client up to its final message; the
// server-first's shape goes into the story (nonce and salt are random).
std::optional<std::string> scram_to_final(story_session& s, protocol::scram_client& client, std::string* final_msg) {
  auto first = authenticate(s, bytes_of(client.client_first()));
  if (!first || first->error_code) return std::nullopt;
  const std::string server_first = text_of(first->auth_bytes);
  const auto i = server_first.find(",i=");
  s.note("server-first: r=<nonce>,s=<salt>" + (i == std::string::npos ? std::string("?") : server_first.substr(i)));
  std::string error;
  auto fin = client.client_final(server_first, &error);
  if (!fin) {
    s.note("client refuses server-first: " + error);
    return std::nullopt;
  }
  *final_msg = *fin;
  return server_first;
}

// Every SCRAM test's user, made once on both brokers (and visible to a
// login on both) before the first one runs.
void ensure_scram_user(twin& t) {
  static bool made = false;
  if (made) return;
  add_scram_user(t, k_scram_user, k_scram_password);
  made = !::testing::Test::HasFatalFailure();
}

tls_client trusting(const std::string& ca_file) {
  tls_client c;
  c.ca_file = ca_file;
  return c;
}
tls_client trusting_ca() { return trusting(certificates_dir() + "/ca.crt"); }
tls_client with_certificate(const std::string& dir, const std::string& name) {
  tls_client c = trusting_ca();
  c.chain_file = dir + "/" + name + ".chain.pem";
  c.key_file = dir + "/" + name + ".key.pem";
  c.key_password = "differential-secret";
  return c;
}

class SecurityTest : public DifferentialTest {};

// ---- SASL/PLAIN ------------------------------------------------------------

TEST_F(SecurityTest, PlainLoginThenRequests) {
  expect_same_story("PLAIN, right password", "SASL_PLAINTEXT", [](story_session& s) {
    api_versions(s);
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    metadata(s);
  });
}

TEST_F(SecurityTest, PlainRefusals) {
  for (const auto& [what, token] : std::vector<std::pair<std::string, std::vector<uint8_t>>>{
           {"wrong password", plain("alice", "wrong")},
           {"unknown user", plain("nobody", "alice-secret")},
           {"empty user", plain("", "alice-secret")},
           {"empty password", plain("alice", "")},
           {"authorization id of another user", plain("alice", "alice-secret", "admin")},
           {"authorization id of the same user", plain("alice", "alice-secret", "alice")},
           {"no separators", bytes_of("alice")},
           {"one separator", bytes_of(std::string("alice\0secret", 12))},
           {"empty token", {}},
       }) {
    expect_same_story("PLAIN, " + what, "SASL_PLAINTEXT", [&](story_session& s) {
      handshake(s, "PLAIN");
      if (auto r = authenticate(s, token); r && r->error_code == 0)
        metadata(s);
      else
        s.note_close();
    });
  }
}

TEST_F(SecurityTest, HandshakeV0ThenRawTokens) {
  expect_same_story("v0 handshake, raw PLAIN token", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN", 0);
    s.socket().send_frame(plain("alice", "alice-secret"));
    auto answer = s.socket().read_frame(10s);
    s.note(answer ? "raw answer of " + std::to_string(answer->size()) + " bytes" : "no raw answer");
    metadata(s);
  });
  expect_same_story("v0 handshake, raw PLAIN token with a wrong password", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN", 0);
    s.socket().send_frame(plain("alice", "wrong"));
    s.note_close();
  });
}

// ---- Mechanisms and the order of requests ------------------------------------

TEST_F(SecurityTest, MechanismsNotEnabled) {
  for (const std::string mechanism : {"FOO", "GSSAPI", "OAUTHBEARER", "plain", ""}) {
    expect_same_story("mechanism '" + mechanism + "'", "SASL_PLAINTEXT", [&](story_session& s) {
      handshake(s, mechanism);
      s.note_close();
    });
  }
  expect_same_story("SCRAM on a listener with PLAIN only", "SASL_SSL", [](story_session& s) {
    handshake(s, "SCRAM-SHA-256");
    s.note_close();
  }, trusting_ca());
}

TEST_F(SecurityTest, RequestsOutOfOrder) {
  expect_same_story("Metadata first", "SASL_PLAINTEXT", [](story_session& s) {
    metadata(s);
    s.note_close();
  });
  // Kafka answers Metadata here with its error response (ILLEGAL_SASL_STATE,
  // no brokers) before closing; Highwater closes unanswered
  // (FINDINGS.md). Both end the connection.
  expect_same_story("Metadata after the handshake", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    metadata(s);
    s.story.pop_back();
    s.note_close();
  });
  expect_same_story("ApiVersions after the handshake", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    api_versions(s);
    s.note_close();
  });
  expect_same_story("SaslAuthenticate before any handshake", "SASL_PLAINTEXT", [](story_session& s) {
    authenticate(s, plain("alice", "alice-secret"));
    s.note_close();
  });
  expect_same_story("ApiVersions twice", "SASL_PLAINTEXT", [](story_session& s) {
    api_versions(s);
    api_versions(s);
    s.note_close();
  });
  expect_same_story("a second handshake", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    handshake(s, "PLAIN");
    s.note_close();
  });
  expect_same_story("a handshake after authenticating", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    handshake(s, "PLAIN");
    metadata(s);
  });
  expect_same_story("SaslAuthenticate after authenticating", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    authenticate(s, plain("alice", "alice-secret"));
    metadata(s);
  });
}

TEST_F(SecurityTest, SaslOnAPlaintextListener) {
  // The twin's own connection is on PLAINTEXT.
  msg::sasl_handshake_request hs;
  hs.mechanism = "PLAIN";
  expect_same(t().call("SaslHandshake on PLAINTEXT", k_handshake, 1, hs));
  msg::sasl_authenticate_request au;
  au.auth_bytes = plain("alice", "alice-secret");
  expect_same(t().call("SaslAuthenticate on PLAINTEXT", k_authenticate, 2, au));
}

TEST_F(SecurityTest, TokensOverTheLimitBeforeAuthentication) {
  // sasl.server.max.receive.size is 4096 on both.
  expect_same_story("a 5000-byte token", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", std::string(5000, 'x')));
    s.note_close();
  });
  expect_same_story("a 4000-byte token", "SASL_PLAINTEXT", [](story_session& s) {
    handshake(s, "PLAIN");
    if (auto r = authenticate(s, plain("alice", std::string(4000, 'x'))); r && r->error_code) s.note_close();
  });
}

// ---- SCRAM -----------------------------------------------------------------------

TEST_F(SecurityTest, ScramLogins) {
  ensure_scram_user(t());
  for (auto m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
    const std::string name = protocol::scram_mechanism_name(m);
    expect_same_story(name + ", right password", "SASL_PLAINTEXT", [&](story_session& s) {
      handshake(s, name);
      protocol::scram_client client(m, k_scram_user, k_scram_password);
      std::string fin;
      if (!scram_to_final(s, client, &fin)) return;
      auto r = authenticate(s, bytes_of(fin));
      if (!r || r->error_code) return;
      std::string error;
      s.note(client.verify_server_final(text_of(r->auth_bytes), &error) ? "server-final verifies"
                                                                         : "server-final refused: " + error);
      metadata(s);
    });
  }
}

TEST_F(SecurityTest, ScramRefusals) {
  ensure_scram_user(t());
  const auto m = scram_mechanism::sha512;
  for (const auto& [what, user, password] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"a wrong password", k_scram_user, "wrong"},
           {"a PLAIN user without SCRAM credentials", "alice", "alice-secret"},
           {"an unknown user", "nobody", "x"},
       }) {
    expect_same_story("SCRAM with " + what, "SASL_PLAINTEXT", [&](story_session& s) {
      handshake(s, "SCRAM-SHA-512");
      protocol::scram_client client(m, user, password);
      std::string fin;
      if (scram_to_final(s, client, &fin)) authenticate(s, bytes_of(fin));
      s.note_close();
    });
  }
  // The final message's nonce must extend the server's.
  expect_same_story("SCRAM client-final with another nonce", "SASL_PLAINTEXT", [&](story_session& s) {
    handshake(s, "SCRAM-SHA-512");
    protocol::scram_client client(m, k_scram_user, k_scram_password);
    std::string fin;
    if (!scram_to_final(s, client, &fin)) return;
    const auto r = fin.find(",r=") + 3;
    fin[fin.find(',', r) - 1] ^= 1;  // the last character of the server's part
    authenticate(s, bytes_of(fin));
    s.note_close();
  });
  expect_same_story("SCRAM client-final with a corrupt proof", "SASL_PLAINTEXT", [&](story_session& s) {
    handshake(s, "SCRAM-SHA-512");
    protocol::scram_client client(m, k_scram_user, k_scram_password);
    std::string fin;
    if (!scram_to_final(s, client, &fin)) return;
    fin = fin.substr(0, fin.find(",p=")) + ",p=AAAA";
    authenticate(s, bytes_of(fin));
    s.note_close();
  });
  for (const auto& [what, first] : std::vector<std::pair<std::string, std::string>>{
           {"malformed client-first", "garbage"},
           {"client-first without a user", "n,,r=abcdef"},
           {"client-first with an empty user", "n,,n=,r=abcdef"},
           {"client-first with a channel binding", "p=tls-unique,,n=scram-user,r=abcdef"},
           {"client-first with an authorization id of another user", "n,a=admin,n=scram-user,r=abcdef"},
           {"client-first with a non-ASCII user", "n,,n=\xc3\xa9l\xc3\xa8ve,r=abcdef"},
           {"client-first with an escaped user", "n,,n=scram=2Cuser,r=abcdef"},
           {"client-first with a bad escape", "n,,n=scram=2Xuser,r=abcdef"},
           {"client-first with an extension", "n,,n=scram-user,r=abcdef,tokenauth=true"},
       }) {
    expect_same_story("SCRAM " + what, "SASL_PLAINTEXT", [&](story_session& s) {
      handshake(s, "SCRAM-SHA-512");
      if (auto r = authenticate(s, bytes_of(first)); r && r->error_code == 0) {
        const std::string server_first = text_of(r->auth_bytes);
        s.note("server-first " + std::string(server_first.find(",i=") != std::string::npos ? "with" : "without") +
               " iterations");
        authenticate(s, bytes_of("c=biws,r=abcdef,p=AAAA"));
      }
      s.note_close();
    });
  }
}

// ---- TLS ---------------------------------------------------------------------------

TEST_F(SecurityTest, TlsListeners) {
  expect_same_story("SSL", "SSL", [](story_session& s) { metadata(s); }, trusting_ca());
  expect_same_story("MTLS with alice's certificate", "MTLS", [](story_session& s) { metadata(s); },
                    with_certificate(certificates_dir(), "alice"));
  expect_same_story("SASL_SSL with PLAIN", "SASL_SSL", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("admin", "admin-secret"));
    metadata(s);
  }, trusting_ca());
  expect_same_story("SASL_SSL with a wrong password", "SASL_SSL", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("admin", "wrong"));
    s.note_close();
  }, trusting_ca());
}

TEST_F(SecurityTest, ClientCertificatesRefused) {
  // TLS 1.3 ends the client's handshake before the server has checked its
  // certificate: the refusal arrives as an alert on the first read.
  auto first_request = [](story_session& s) {
    metadata(s);
    if (!s.socket().tls_error().empty()) s.note("alert: " + reason_of(s.socket().tls_error()));
  };
  // Without a certificate Kafka's alert is bad_certificate, OpenSSL's the
  // certificate_required TLS 1.3 defines for it (FINDINGS.md): both refuse.
  expect_same_story("MTLS without a certificate", "MTLS", [](story_session& s) {
    metadata(s);
    s.note(s.socket().tls_error().empty() ? "no alert" : "an alert");
  }, trusting_ca());
  expect_same_story("MTLS with a certificate of another authority", "MTLS", first_request,
                    with_certificate(certificates_dir() + "/other", "mallory"));
  expect_same_story("MTLS with an expired certificate", "MTLS", first_request,
                    with_certificate(certificates_dir(), "expired"));
}

TEST_F(SecurityTest, ProtocolMismatches) {
  // A TLS ClientHello on the plaintext port reads as a frame size far over
  // the limit; plaintext on a TLS port is not a handshake.
  std::array<std::string, 2> refusals;
  for (side s : k_sides) {
    kafka_socket tls_on_plain(endpoint(broker_port(s)), trusting_ca());
    refusals[static_cast<int>(s)] = tls_on_plain.connected() ? "handshake passed" : reason_of(tls_on_plain.tls_error());
  }
  EXPECT_NE(refusals[0], "handshake passed");
  EXPECT_EQ(refusals[0], refusals[1]) << "a TLS client on the plaintext port";
  // Kafka's TLS engine answers with an alert record before closing,
  // Highwater closes without one (FINDINGS.md); either way the client's
  // next read fails.
  expect_same_story("plaintext ApiVersions on the SSL port", "SSL", [](story_session& s) {
    s.socket().send_frame(api_versions_frame(3, 1));
    auto rest = s.socket().read_until_closed(5s);
    s.note(rest ? "closed" : "open");
    if (rest && !rest->empty()) std::printf("%s\n", ("answered with " + protocol::testing::show_bytes(*rest)).c_str());
  });
  tls_client server_name_wrong = trusting_ca();
  server_name_wrong.server_name = "elsewhere.example";
  expect_same_story("a server name the certificate does not have", "SSL", [](story_session& s) { metadata(s); },
                    server_name_wrong);
  const tls_client other_authority = trusting(certificates_dir() + "/other/ca.crt");
  expect_same_story("a server certificate of an authority the client does not trust", "SSL",
                    [](story_session& s) { metadata(s); }, other_authority);
  // The brokers still serve.
  expect_same_story("SSL afterwards", "SSL", [](story_session& s) { metadata(s); }, trusting_ca());
}

// ---- Sensitive keys ----------------------------------------------------------------

// ---- Re-authentication (KIP-368) on REAUTH: logins last 1.5 s ------------

TEST_F(SecurityTest, ReauthenticationRenewsTheLogin) {
  const std::string what = "a login told its lifetime, then renewed on the same connection";
  const std::string kafka = expect_same_story(what, "REAUTH", [](story_session& s) {
    api_versions(s);
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    metadata(s);
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    metadata(s);
    // Within a second of the last re-authentication a handshake is out of place.
    handshake(s, "PLAIN");
    metadata(s);
  });
  EXPECT_NE(kafka.find("SaslAuthenticate v2: error 0 message '' lifetime 1500"), std::string::npos) << kafka;
  EXPECT_NE(kafka.find("SaslHandshake v1 PLAIN: error 34"), std::string::npos) << kafka;
}

TEST_F(SecurityTest, ReauthenticationRefusals) {
  const std::string other_user =
      expect_same_story("a re-authentication as another user", "REAUTH", [](story_session& s) {
        handshake(s, "PLAIN");
        authenticate(s, plain("alice", "alice-secret"));
        handshake(s, "PLAIN");
        authenticate(s, plain("admin", "admin-secret"));
        s.note_close();
      });
  EXPECT_NE(other_user.find("Cannot change principals during re-authentication"), std::string::npos) << other_user;
  expect_same_story("a re-authentication with a wrong password", "REAUTH", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "not-hers"));
    s.note_close();
  });
  expect_same_story("a re-authentication with another mechanism", "REAUTH", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    handshake(s, "SCRAM-SHA-256");
    authenticate(s, bytes_of("n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL"));
    s.note_close();
  });
  expect_same_story("ApiVersions to begin a re-authentication", "REAUTH", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    api_versions(s);
    metadata(s);
  });
}

TEST_F(SecurityTest, ARequestAfterTheLoginExpiredCloses) {
  const std::string kafka = expect_same_story("a request 2 s after a 1.5 s login", "REAUTH", [](story_session& s) {
    handshake(s, "PLAIN");
    authenticate(s, plain("alice", "alice-secret"));
    // The expiry is what is compared: the broker's clock decides.
    std::this_thread::sleep_for(2s);
    metadata(s);
  });
  EXPECT_NE(kafka.find("Metadata: no answer, closed"), std::string::npos) << kafka;
}

TEST_F(SecurityTest, DescribeConfigsHidesSecrets) {
  msg::describe_configs_request req;
  msg::describe_configs_request::describe_configs_resource r;
  r.resource_type = 4;
  r.resource_name = "1";
  // One key per request: Kafka lists several in its HashMap's order.
  for (const char* key : {"ssl.keystore.password", "listener.name.mtls.ssl.truststore.password",
                          "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                          "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
                          "listener.name.mtls.ssl.client.auth", "listener.name.mtls.ssl.principal.mapping.rules",
                          "ssl.keystore.type", "sasl.enabled.mechanisms",
                          "listener.name.sasl_ssl.sasl.enabled.mechanisms", "sasl.server.max.receive.size",
                          "listener.name.nosuch.ssl.keystore.password"}) {
    r.configuration_keys = std::vector<std::string>{key};
    req.resources = {r};
    expect_same(t().call(std::string("DescribeConfigs ") + key, 32, 4, req));
  }
}

}  // namespace
}  // namespace hw::testing::differential
