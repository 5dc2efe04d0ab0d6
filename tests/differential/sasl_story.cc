#include "sasl_story.h"

#include <chrono>

#include "broker_process.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/metadata.h"
#include "protocol/sasl/scram.h"
#include "sasl_login.h"

namespace hw::testing::differential {

namespace msg = protocol::msg;

namespace {
constexpr int16_t k_handshake = 17, k_authenticate = 36, k_metadata = 3, k_alter_scram = 51;
}  // namespace

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

story_session::story_session(side turn, uint16_t port, const std::optional<tls_client>& tls)
    : turn_(turn),
      socket_(tls ? std::make_unique<kafka_socket>(endpoint(port), *tls)
                  : std::make_unique<kafka_socket>(endpoint(port))) {}

void story_session::note_close() {
  auto rest = socket_->read_until_closed(5s);
  if (!rest) return note("connection stays open");
  note(rest->empty() ? "closed" : "closed after " + std::to_string(rest->size()) + " more bytes");
}

std::string show(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "    " + l + "\n";
  return out;
}

std::string reason_of(const std::string& openssl_error) {
  if (openssl_error.empty()) return "none";
  auto at = openssl_error.rfind("::");
  return at == std::string::npos ? openssl_error : openssl_error.substr(at + 2);
}

std::string expect_same_story(const std::string& what, const std::string& listener, const script& run,
                              const std::optional<tls_client>& tls) {
  std::array<std::vector<std::string>, 2> stories;
  for (side s : k_sides) {
    EXPECT_NE(listener_port(s, listener), 0) << side_name(s) << " has no " << listener << " listener";
    if (listener_port(s, listener) == 0) return {};
    story_session sess(s, listener_port(s, listener), tls);
    if (!sess.socket().connected())
      sess.note("TLS handshake refused: " + reason_of(sess.socket().tls_error()));
    else
      run(sess);
    stories[static_cast<int>(s)] = std::move(sess.story);
  }
  EXPECT_EQ(stories[0], stories[1]) << what << " on " << listener << "\n  kafka:\n"
                                    << show(stories[0]) << "  highwater:\n"
                                    << show(stories[1]);
  return show(stories[0]);
}

std::optional<msg::sasl_handshake_response> handshake(story_session& s, const std::string& mechanism,
                                                      int16_t version) {
  msg::sasl_handshake_request req;
  req.mechanism = mechanism;
  auto r = s.call<msg::sasl_handshake_response>("SaslHandshake", k_handshake, version, req);
  if (r) {
    std::string mechs;
    for (const auto& m : r->mechanisms) mechs += (mechs.empty() ? "" : ",") + m;
    s.note("SaslHandshake v" + std::to_string(version) + " " + mechanism + ": error " +
           std::to_string(r->error_code) + " enabled [" + mechs + "]");
  }
  return r;
}

std::optional<sasl_answer> sasl_authenticate(story_session& s, const std::vector<uint8_t>& token, int16_t version) {
  msg::sasl_authenticate_request req;
  req.auth_bytes = token;
  sasl_answer a;
  a.sent_ms = now_ms();
  auto r = s.call<msg::sasl_authenticate_response>("SaslAuthenticate", k_authenticate, version, req);
  a.answered_ms = now_ms();
  if (!r) return std::nullopt;
  a.response = std::move(*r);
  return a;
}

std::string told_lifetime(const story_session& s, const sasl_answer& a) {
  const int64_t lifetime = a.response.session_lifetime_ms;
  if (lifetime != 0 && s.credential_expiry_ms) {
    // The broker read its clock between sending and answering.
    const int64_t exp = *s.credential_expiry_ms;
    if (lifetime <= exp - a.sent_ms + 5 && lifetime >= exp - a.answered_ms - 5) return "exp - now";
  }
  return std::to_string(lifetime);
}

void metadata(story_session& s) {
  msg::metadata_request req;
  req.topics = std::vector<msg::metadata_request::metadata_request_topic>{};
  if (auto r = s.call<msg::metadata_response>("Metadata", k_metadata, 12, req))
    s.note("Metadata: " + std::to_string(r->brokers.size()) + " broker(s)");
}

void add_scram_user(twin& t, const std::string& user, const std::string& password) {
  // One request per mechanism: a request may not alter a user twice.
  for (auto m : {protocol::scram_mechanism::sha256, protocol::scram_mechanism::sha512}) {
    msg::alter_user_scram_credentials_request req;
    msg::alter_user_scram_credentials_request::scram_credential_upsertion u;
    u.name = user;
    u.mechanism = protocol::scram_mechanism_type(m);
    u.iterations = 4096;
    u.salt = bytes_of("differential-salt");
    u.salted_password = protocol::scram::salted_password(m, password, u.salt, 4096);
    req.upsertions.push_back(u);
    auto e = t.call("AlterUserScramCredentials", k_alter_scram, 0, req);
    for (side s : k_sides) {
      ASSERT_TRUE(e.of(s).error.empty()) << side_name(s) << ": " << e.of(s).error;
      auto r = e.as<msg::alter_user_scram_credentials_response>(s);
      for (const auto& x : r.results)
        ASSERT_EQ(x.error_code, 0) << side_name(s) << ": " << x.error_message.value_or("");
    }
  }
  // Both apply the record from their metadata log a moment later.
  for (side s : k_sides) {
    const bool in = wait_until(
        [&] {
          kafka_socket socket(listener_port(s, "SASL_PLAINTEXT"));
          return socket.connected() && sasl_login(socket, {"SCRAM-SHA-512", user, password});
        },
        20s);
    ASSERT_TRUE(in) << side_name(s) << " never accepted the SCRAM user " << user;
  }
}

}  // namespace hw::testing::differential
