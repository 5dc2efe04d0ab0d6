#pragma once
// SASL conversations told as stories (security_test.cc, oauthbearer_test.cc,
// delegation_tokens_test.cc): a raw connection to one broker's listener, the
// requests a test sends on it, and one line per step of what the client saw
// (an answer's error and message, a close), so that Kafka's and Highwater's
// stories can be compared line by line. The steps every such test takes
// (SaslHandshake, SaslAuthenticate, Metadata) are here; each test words its
// SaslAuthenticate line itself. Everything runs on the test thread.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kafka_socket.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"
#include "twin.h"

namespace hw::testing::differential {

std::vector<uint8_t> bytes_of(const std::string& s);
std::string text_of(const std::vector<uint8_t>& b);

// Wall-clock milliseconds since the epoch (the brokers' clock).
int64_t now_ms();

// One connection to one broker's listener (over TLS when given), and the
// story of what happened on it.
class story_session {
 public:
  // turn: the broker whose story this is, for scripts whose requests differ
  // per broker (a delegation token's id); with HW_DIFF_OAUTH=kafka
  // Highwater's turn runs on Kafka (oauthbearer_test.cc).
  story_session(side turn, uint16_t port, const std::optional<tls_client>& tls = std::nullopt);

  std::vector<std::string> story;
  void note(std::string line) { story.push_back(std::move(line)); }
  side turn() const { return turn_; }
  kafka_socket& socket() { return *socket_; }

  // When the credential of the login about to be made ends (an OAUTHBEARER
  // token's exp, a delegation token's expiry), wall-clock ms: a session
  // lifetime the broker takes from it is told as "exp - now", since the
  // moment of the login differs from run to run (told_lifetime).
  std::optional<int64_t> credential_expiry_ms;

  // Sends the request; its answer, or none (the story says the connection
  // closed, or the answer did not decode).
  template <class R, class Q>
  std::optional<R> call(const std::string& name, int16_t key, int16_t version, const Q& req) {
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, version);
    const int32_t corr = ++correlation_id_;
    if (!socket_->send_frame(request_frame(key, version, corr, body, "differential"))) {
      note(name + ": send failed");
      return std::nullopt;
    }
    auto frame = socket_->read_frame(10s);
    if (!frame) {
      note(name + ": no answer, " + (socket_->closed_by_peer(1s) ? "closed" : "open"));
      return std::nullopt;
    }
    protocol::reader r(*frame);
    protocol::msg::response_header h;
    h.decode(r, protocol::response_header_version(key, version));
    R out;
    if (r.ok()) out.decode(r, version);
    if (!r.ok() || h.correlation_id != corr) {
      note(name + ": an answer that does not decode");
      return std::nullopt;
    }
    return out;
  }

  // Whether the broker closes the connection now (after an answer that
  // ends the conversation) and what it sends before closing.
  void note_close();

 private:
  side turn_;
  std::unique_ptr<kafka_socket> socket_;
  int32_t correlation_id_ = 0;
};

using script = std::function<void(story_session&)>;

// The reason in OpenSSL's error text ("...:SSL routines::tlsv13 alert
// certificate required" → "tlsv13 alert certificate required"); "none".
std::string reason_of(const std::string& openssl_error);

// The lines, indented, one a line (for messages).
std::string show(const std::vector<std::string>& lines);

// Runs the script on each broker's listener (over TLS when given) and
// expects the same story; returns Kafka's, shown. A TLS handshake refused
// at connect is the story's one line.
std::string expect_same_story(const std::string& what, const std::string& listener, const script& run,
                              const std::optional<tls_client>& tls = std::nullopt);

// ---- Steps ---------------------------------------------------------------------

// SaslHandshake; the story keeps the error and the mechanisms enabled.
std::optional<protocol::msg::sasl_handshake_response> handshake(story_session& s, const std::string& mechanism,
                                                                int16_t version = 1);

// A SaslAuthenticate answer and the wall-clock window in which it was asked
// and answered (the broker read its clock in between).
struct sasl_answer {
  protocol::msg::sasl_authenticate_response response;
  int64_t sent_ms = 0;
  int64_t answered_ms = 0;
};
// SaslAuthenticate with this token; the story keeps nothing of the answer
// (each test tells it in its own words), only a close or an answer that
// does not decode.
std::optional<sasl_answer> sasl_authenticate(story_session& s, const std::vector<uint8_t>& token,
                                             int16_t version = 2);
// The answer's session lifetime as a story tells it: "exp - now" when it is
// the time from the login to s.credential_expiry_ms, else the number.
std::string told_lifetime(const story_session& s, const sasl_answer& a);

// Metadata v12 of no topics; the story keeps the number of brokers.
void metadata(story_session& s);

// Setup, not a story: SCRAM credentials of both mechanisms (4096
// iterations) for user on both brokers, through the twin's PLAINTEXT
// connection (a super user's), then waits until each broker accepts a
// SCRAM-SHA-512 login with them on SASL_PLAINTEXT (Kafka applies the
// record a moment later). A test failure if either refuses.
void add_scram_user(twin& t, const std::string& user, const std::string& password);

}  // namespace hw::testing::differential
