#pragma once
// The differential harness: one Apache Kafka 4.3.1 and one Highwater, started
// once for the test binary (differential_main.cc), and a `twin` connection
// that sends the same request to both, decodes both answers with the
// project's generated codecs and compares them field by field
// (dump_diff.h). Each test owns its twin and uses fresh topic and group
// names; everything runs on the test thread.

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dump_diff.h"
#include "kafka_socket.h"
#include "sasl_login.h"
#include "protocol/messages/testing/dump.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/uuid.h"
#include "protocol/wire/writer.h"

namespace hw::testing::differential {

using namespace std::chrono_literals;

enum class side : int { kafka = 0, highwater = 1 };
inline constexpr std::array<side, 2> k_sides{side::kafka, side::highwater};
inline const char* side_name(side s) { return s == side::kafka ? "kafka" : "highwater"; }

// Ports of the two brokers; set by the environment before any test runs.
// 0 if that broker did not start (start_error() says why).
uint16_t broker_port(side s);
// The port of one of the secured listeners both brokers have
// (twin_environment.h), and the directory of the certificates they use.
uint16_t listener_port(side s, const std::string& listener);
std::string certificates_dir();
// Which brokers have the OAUTHBEARER listeners OAUTH and OIDC
// (oauthbearer_test.cc): both unless HW_DIFF_OAUTH=kafka (Kafka alone) or
// HW_DIFF_OAUTH=0 (neither).
enum class oauth_listeners { none, kafka_only, both };
oauth_listeners oauth_listeners_mode();
// The directory of the OIDC listener's keys (oauth_tokens.h).
std::string oauth_keys_dir();
const std::string& start_error();
// Highwater's log (for a failure message when it died).
std::string highwater_log();
bool highwater_alive();

// One broker's answer to one request.
struct answer {
  std::shared_ptr<const std::vector<uint8_t>> frame;  // the whole response frame; body points into it
  protocol::bytes_view body;                          // after the response header
  dump_lines lines;   // the decoded body, or one `body` line with its bytes if it does not decode
  std::string error;  // why there is no answer or it does not decode; empty if it decoded
  bool closed = false;  // no answer at all: connection closed or timed out

  // The body decoded at version (the caller knows it decodes: lines came from it).
  template <class R>
  R as(int16_t version) const {
    protocol::reader r(body);
    R out;
    out.decode(r, version);
    EXPECT_TRUE(r.ok()) << r.error();
    return out;
  }
};

// Both answers to one request, Kafka's first.
struct exchange {
  int16_t key = 0;
  int16_t version = 0;
  std::string what;  // the test's name for the request, for messages
  std::array<answer, 2> answers;

  const answer& of(side s) const { return answers[static_cast<int>(s)]; }
  template <class R>
  R as(side s) const { return of(s).as<R>(version); }
};

// Differences every comparison tolerates, each with its reason (twin.cc).
const allowlist& common_allowlist();
// And those of group answers: member ids and the JoinGroup leader are each
// broker's own generated ids.
const allowlist& member_allow();

// A gtest failure listing every field that differs (beyond the common
// allowlist and extra) or a side that did not answer, with both dumps.
// True if the answers agree.
bool expect_same(const exchange& e, const allowlist& extra = {});

// A connection to each broker. Not copyable; one per test.
class twin {
 public:
  twin();
  // Connected to a secured SASL_PLAINTEXT listener of both brokers and
  // logged in with PLAIN as user (both logins must succeed: check
  // connected()).
  twin(const std::string& listener, const std::string& user, const std::string& password);
  // Likewise, logged in with each broker's credentials, Kafka's first (a
  // SCRAM user's are the same on both; a delegation token's id and HMAC
  // differ between the two).
  twin(const std::string& listener, const std::array<sasl_credentials, 2>& who);
  bool connected() const { return sockets_[0]->connected() && sockets_[1]->connected(); }
  // The client id of the requests that follow ("differential" by default).
  void use_client_id(std::string id) { client_id_ = std::move(id); }
  kafka_socket& socket(side s) { return *sockets_[static_cast<int>(s)]; }

  // Sends this request body to the broker on side s and reads its answer.
  answer send(side s, int16_t key, int16_t version, const std::vector<uint8_t>& body,
              std::chrono::milliseconds timeout = 20s);

  // The same request to both brokers (Kafka first).
  template <class Q>
  exchange call(const std::string& what, int16_t key, int16_t version, const Q& req,
                std::chrono::milliseconds timeout = 20s) {
    return call_each(what, key, version, [&](side) { return req; }, timeout);
  }
  // A request per broker, for sequences whose ids differ between the two
  // (member ids, topic ids); make(side) builds it.
  template <class F>
  exchange call_each(const std::string& what, int16_t key, int16_t version, F make,
                     std::chrono::milliseconds timeout = 20s) {
    exchange e;
    e.key = key;
    e.version = version;
    e.what = what;
    for (side s : k_sides) {
      const auto req = make(s);
      std::vector<uint8_t> body;
      protocol::writer w(body);
      req.encode(w, version);
      e.answers[static_cast<int>(s)] = send(s, key, version, body, timeout);
    }
    return e;
  }
  // Raw bodies, for requests the codecs cannot encode (versions below the
  // schema's, corrupt fields).
  exchange call_raw(const std::string& what, int16_t key, int16_t version, const std::vector<uint8_t>& body,
                    std::chrono::milliseconds timeout = 20s);

 private:
  std::array<std::unique_ptr<kafka_socket>, 2> sockets_;
  int32_t correlation_id_ = 0;
  std::string client_id_ = "differential";
};

// A name no other test (or earlier run against the same brokers) used.
std::string fresh_name(const std::string& stem);

// Setup, not compared: creates the topic on both brokers (CreateTopics v7
// with these configs) and waits until both have a leader for every partition
// and answer ListOffsets on it. The topic ids, Kafka's first; a test failure
// if either broker refused.
std::array<protocol::uuid, 2> create_topic(twin& t, const std::string& name, int32_t partitions = 1,
                                           const std::vector<std::pair<std::string, std::string>>& configs = {});

// Setup: produces this batch to partition 0 of topic on both brokers (acks
// -1, Produce v9); a test failure unless both accept it.
void produce(twin& t, const std::string& topic, const std::vector<uint8_t>& batch, int32_t partition = 0);

// Setup: waits until both brokers have a coordinator for group. The first
// request for any group creates __consumer_offsets, and until it is loaded
// the answer is COORDINATOR_NOT_AVAILABLE (Kafka creates it asynchronously).
void wait_for_coordinator(twin& t, const std::string& group);

// A batch of count records with values "<tag>-<i>", keys "k<i>" if keyed,
// timestamps first_timestamp + i.
std::vector<uint8_t> batch_of(const std::string& tag, int count, bool keyed = false,
                              int64_t first_timestamp = 1700000000000);

}  // namespace hw::testing::differential

namespace hw::testing::differential {

// Every differential test's fixture: stops at once if a broker did not
// start, connects a twin, and adds Highwater's log to a failure if it died.
class DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(start_error().empty()) << start_error();
    ASSERT_NE(broker_port(side::kafka), 0) << "Kafka is not running";
    ASSERT_NE(broker_port(side::highwater), 0) << "Highwater is not running";
    twin_ = std::make_unique<twin>();
    ASSERT_TRUE(twin_->connected());
  }
  void TearDown() override {
    if (HasFailure() && !highwater_alive()) ADD_FAILURE() << "highwater died:\n" << highwater_log();
  }
  twin& t() { return *twin_; }

 private:
  std::unique_ptr<twin> twin_;
};

}  // namespace hw::testing::differential
