#include <algorithm>
// Dispatcher decisions and the ApiVersions handler, without sockets: frames
// are built here, dispatched on an io_context, and responses decoded with the
// generated codec.

#include "broker/dispatcher.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/headers.h"
#include "protocol/wire/writer.h"

namespace hw::broker {
namespace {

using protocol::msg::api_versions_request;
using protocol::msg::api_versions_response;

asio::awaitable<handler_result> silent(request_context&) { co_return handler_result::no_response(); }
asio::awaitable<handler_result> refuses(request_context&) { co_return handler_result::close("nope"); }
asio::awaitable<handler_result> throws(request_context&) {
  throw std::runtime_error("boom");
  co_return handler_result::no_response();
}

class DispatcherTest : public ::testing::Test {
 protected:
  handler_registry registry{all_handlers()};
  broker_services services{&registry, bootstrap_finalized_features()};
  dispatcher d{services};
  connection_info from{"PLAINTEXT", 7, "test-connection", security_protocol::plaintext, "127.0.0.1",
                       &kafka_principal::anonymous()};

  // A request frame (without the size prefix) with a header of the right version.
  static std::vector<uint8_t> frame(int16_t key, int16_t version, int32_t correlation_id, bool flexible_header,
                                    const std::vector<uint8_t>& body = {}) {
    protocol::msg::request_header h;
    h.request_api_key = key;
    h.request_api_version = version;
    h.correlation_id = correlation_id;
    h.client_id = "unit-test";
    std::vector<uint8_t> out;
    protocol::writer w(out);
    h.encode(w, flexible_header ? 2 : 1);
    out.insert(out.end(), body.begin(), body.end());
    return out;
  }

  static std::vector<uint8_t> api_versions_body(int16_t version, std::string name = "librdkafka",
                                                std::string software_version = "2.0.2") {
    api_versions_request r;
    r.client_software_name = std::move(name);
    r.client_software_version = std::move(software_version);
    std::vector<uint8_t> out;
    protocol::writer w(out);
    r.encode(w, version);
    return out;
  }

  dispatch_outcome run(const std::vector<uint8_t>& f) { return run(f, from); }
  dispatch_outcome run(const std::vector<uint8_t>& f, const connection_info& who) {
    asio::io_context io;
    dispatch_outcome out;
    asio::co_spawn(io, d.dispatch(f, who), [&](std::exception_ptr e, dispatch_outcome o) {
      if (e) std::rethrow_exception(e);
      out = std::move(o);
    });
    io.run();
    return out;
  }

  // Splits a response frame: checks the size prefix, returns (correlation id, body).
  static std::pair<int32_t, std::vector<uint8_t>> split(const response_frame& f, int16_t header_version) {
    protocol::reader r(f.bytes);
    int32_t size = r.read_int32();
    EXPECT_EQ(static_cast<size_t>(size), f.bytes.size() - 4);
    int32_t corr = r.read_int32();
    if (header_version >= 1) {
      EXPECT_EQ(r.read_uvarint(), 0u);
    }
    auto body = r.read_view(r.remaining());
    return {corr, std::vector<uint8_t>(body.begin(), body.end())};
  }

  static api_versions_response decode(const std::vector<uint8_t>& body, int16_t version) {
    api_versions_response resp;
    protocol::reader r(body);
    resp.decode(r, version);
    EXPECT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.remaining(), 0u);
    return resp;
  }
};

TEST_F(DispatcherTest, Decisions) {
  EXPECT_EQ(decide(registry, 18, 0).action, dispatch_action::handle);
  EXPECT_EQ(decide(registry, 18, 4).action, dispatch_action::handle);
  EXPECT_EQ(decide(registry, 18, 5).action, dispatch_action::unsupported_api_versions);
  EXPECT_EQ(decide(registry, 18, 127).action, dispatch_action::unsupported_api_versions);
  EXPECT_EQ(decide(registry, 18, -1).action, dispatch_action::unsupported_api_versions);
  EXPECT_EQ(decide(registry, 76, 1).action, dispatch_action::close);     // known to Kafka (ShareGroupHeartbeat), not served here
  EXPECT_EQ(decide(registry, 9999, 0).action, dispatch_action::close);   // unknown key
  EXPECT_EQ(decide(registry, -1, 0).action, dispatch_action::close);

  std::array<api_handler, 1> one{{{1, 4, 17, &silent}}};
  handler_registry fetch_only(one);
  EXPECT_EQ(decide(fetch_only, 1, 4).action, dispatch_action::handle);
  EXPECT_EQ(decide(fetch_only, 1, 3).action, dispatch_action::close);   // below the range
  EXPECT_EQ(decide(fetch_only, 1, 18).action, dispatch_action::close);  // above the range
  EXPECT_NE(decide(fetch_only, 1, 18).reason.find("not enabled"), std::string::npos);
}

TEST_F(DispatcherTest, AdvertisedListComesFromTheHandlers) {
  ASSERT_EQ(registry.advertised().size(), all_handlers().size());
  auto api_versions = std::find_if(registry.advertised().begin(), registry.advertised().end(),
                                   [](const auto& a) { return a.api_key == 18; });
  ASSERT_NE(api_versions, registry.advertised().end());
  EXPECT_EQ(api_versions->min_version, 0);
  EXPECT_EQ(api_versions->max_version, 4);
  EXPECT_TRUE(std::is_sorted(registry.advertised().begin(), registry.advertised().end(),
                             [](const auto& a, const auto& b) { return a.api_key < b.api_key; }));
  EXPECT_EQ(registry.find(76), nullptr);  // ShareGroupHeartbeat is not served, so not advertised
}

// Every API both advertise has Kafka 4.3.1's range: the fixture is the
// ApiVersions v4 answer a Kafka 4.3.1 broker listener gave a Java client.
// Kafka advertises APIs this broker does not serve yet (transactions, ACLs,
// SCRAM, share and KIP-848 groups): those are left out, not advertised
// differently.
TEST_F(DispatcherTest, EveryAdvertisedRangeIsKafka431s) {
  std::ifstream in(std::string(HW_SOURCE_DIR) + "/tests/protocol/fixtures/java/001_ApiVersions_v4.response.bin",
                   std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4u);
  // The captured frame: response header v0 (the correlation id), then the body.
  auto kafka = decode(std::vector<uint8_t>(bytes.begin() + 4, bytes.end()), 4);
  ASSERT_EQ(kafka.error_code, 0);
  ASSERT_GT(kafka.api_keys.size(), 40u);
  size_t compared = 0;
  for (const auto& ours : registry.advertised()) {
    auto it = std::find_if(kafka.api_keys.begin(), kafka.api_keys.end(),
                           [&](const auto& k) { return k.api_key == ours.api_key; });
    ASSERT_NE(it, kafka.api_keys.end()) << "api key " << ours.api_key << " is not on Kafka's broker listener";
    EXPECT_EQ(ours.min_version, it->min_version) << "api key " << ours.api_key;
    EXPECT_EQ(ours.max_version, it->max_version) << "api key " << ours.api_key;
    ++compared;
  }
  EXPECT_EQ(compared, registry.advertised().size());
  // Produce: advertised from v0 as Kafka does, served from v3 (v0-2 close).
  EXPECT_EQ(decide(registry, 0, 2).action, dispatch_action::close);
  EXPECT_EQ(decide(registry, 0, 3).action, dispatch_action::handle);
}

// A controller listener serves the controller's APIs only: ApiVersions
// lists them, and a broker-only API there closes the connection, as Kafka's
// listener check does.
TEST_F(DispatcherTest, ControllerListenersServeTheControllerApis) {
  handler_registry controller_registry{controller_handlers()};
  services.controller_handlers = &controller_registry;
  services.controller_listener_names = {"CONTROLLER"};
  connection_info on_controller{"CONTROLLER", 8, "controller-connection", security_protocol::plaintext,
                                "127.0.0.1", &kafka_principal::anonymous()};
  auto out = run(frame(18, 3, 1, true, api_versions_body(3)), on_controller);
  ASSERT_TRUE(out.response);
  auto resp = decode(split(*out.response, 0).second, 3);
  std::vector<int16_t> keys;
  for (const auto& k : resp.api_keys) keys.push_back(k.api_key);
  // Fetch (of the metadata log), Vote, BeginQuorumEpoch, EndQuorumEpoch and
  // FetchSnapshot come with the quorum; AlterPartition (partition leaders'
  // ISR changes) and AllocateProducerIds for brokers; SaslHandshake and
  // SaslAuthenticate (a controller listener may be a SASL one),
  // AlterClientQuotas, AlterUserScramCredentials and Create/Renew/Expire-
  // DelegationToken, as Kafka's controller listener has them;
  // Envelope, for the admin requests brokers forward; UnregisterBroker
  // (kafka-cluster.sh unregister --bootstrap-controller); UpdateFeatures
  // (kafka-features.sh --bootstrap-controller); ControllerRegistration, from
  // the quorum's controllers; AssignReplicasToDirs, from brokers with several log dirs; AddRaftVoter, RemoveRaftVoter
  // (kafka-metadata-quorum.sh add-controller, remove-controller) and
  // UpdateRaftVoter, from a voter that moved.
  EXPECT_EQ(keys, (std::vector<int16_t>{1,  17, 18, 19, 20, 29, 30, 31, 32, 33, 36, 37, 38, 39, 40, 43, 44, 45, 46,
                                        49, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 62, 63, 64, 67, 70, 73, 80, 81, 82}));

  auto produce = run(frame(0, 9, 2, true), on_controller);
  EXPECT_TRUE(produce.closes());
  // The broker listener still serves everything.
  auto on_broker = run(frame(18, 3, 3, true, api_versions_body(3)), from);
  ASSERT_TRUE(on_broker.response);
  EXPECT_EQ(decode(split(*on_broker.response, 0).second, 3).api_keys.size(), registry.advertised().size());
}

TEST_F(DispatcherTest, ApiVersionsEveryVersion) {
  for (int16_t v = 0; v <= 4; ++v) {
    auto out = run(frame(18, v, 100 + v, v >= 3, api_versions_body(v)));
    ASSERT_FALSE(out.closes()) << out.close_reason;
    ASSERT_TRUE(out.response);
    auto [corr, body] = split(*out.response, 0);  // ApiVersions: always response header v0
    EXPECT_EQ(corr, 100 + v);
    auto resp = decode(body, v);
    EXPECT_EQ(resp.error_code, 0);
    ASSERT_EQ(resp.api_keys.size(), registry.advertised().size());
    auto api_versions = std::find_if(resp.api_keys.begin(), resp.api_keys.end(), [](auto& k) { return k.api_key == 18; });
    ASSERT_NE(api_versions, resp.api_keys.end());
    EXPECT_EQ(api_versions->max_version, 4);
    EXPECT_EQ(resp.throttle_time_ms, 0);
    if (v >= 3) {
      // Before v4, features whose minimum is 0 are left out (KAFKA-17492).
      bool has_kraft = false, has_metadata = false;
      for (auto& f : resp.supported_features) {
        has_kraft |= f.name == "kraft.version";
        if (f.name == "metadata.version") {
          has_metadata = true;
          EXPECT_EQ(f.min_version, 7);
          EXPECT_EQ(f.max_version, 30);
        }
      }
      EXPECT_TRUE(has_metadata);
      EXPECT_EQ(has_kraft, v >= 4);
      EXPECT_EQ(resp.finalized_features_epoch, 0);
      ASSERT_EQ(resp.finalized_features.size(), 1u);
      EXPECT_EQ(resp.finalized_features[0].name, "metadata.version");
      EXPECT_EQ(resp.finalized_features[0].min_version_level, 30);
      EXPECT_EQ(resp.finalized_features[0].max_version_level, 30);
    }
  }
}

TEST_F(DispatcherTest, ApiVersionsUnsupportedVersionAnswersV0) {
  // Body is not read: garbage after the header is fine.
  auto out = run(frame(18, 127, 42, true, {0xde, 0xad}));
  ASSERT_FALSE(out.closes()) << out.close_reason;
  ASSERT_TRUE(out.response);
  auto [corr, body] = split(*out.response, 0);
  EXPECT_EQ(corr, 42);
  auto resp = decode(body, 0);
  EXPECT_EQ(resp.error_code, static_cast<int16_t>(protocol::error_code::unsupported_version));
  ASSERT_EQ(resp.api_keys.size(), 1u);
  EXPECT_EQ(resp.api_keys[0].api_key, 18);
  EXPECT_EQ(resp.api_keys[0].min_version, 0);
  EXPECT_EQ(resp.api_keys[0].max_version, 4);
}

TEST_F(DispatcherTest, ApiVersionsInvalidSoftwareName) {
  for (auto [name, version] : std::vector<std::pair<std::string, std::string>>{
           {"", "1.0"}, {"-bad", "1.0"}, {"bad-", "1.0"}, {"ok", "1.0 beta"}, {"ok", "1..0."}}) {
    auto out = run(frame(18, 3, 1, true, api_versions_body(3, name, version)));
    ASSERT_TRUE(out.response);
    auto resp = decode(split(*out.response, 0).second, 3);
    EXPECT_EQ(resp.error_code, static_cast<int16_t>(protocol::error_code::invalid_request)) << name << " " << version;
    EXPECT_TRUE(resp.api_keys.empty());
  }
  auto out = run(frame(18, 3, 1, true, api_versions_body(3, "apache-kafka-java", "4.1.0-SNAPSHOT")));
  EXPECT_EQ(decode(split(*out.response, 0).second, 3).error_code, 0);
}

TEST_F(DispatcherTest, ApiVersionsBodyThatDoesNotDecodeCloses) {
  auto out = run(frame(18, 3, 1, true, {0x05, 'a'}));  // string longer than the frame
  EXPECT_TRUE(out.closes());
  EXPECT_FALSE(out.response);
}

TEST_F(DispatcherTest, TrailingBytesAreIgnoredLikeKafka) {
  auto body = api_versions_body(0);
  body.push_back(0x99);
  auto out = run(frame(18, 0, 1, false, body));
  EXPECT_FALSE(out.closes());
  ASSERT_TRUE(out.response);
}

TEST_F(DispatcherTest, BadFramesClose) {
  EXPECT_TRUE(run({}).closes());
  EXPECT_TRUE(run({0, 18, 0, 0}).closes());                             // truncated header
  EXPECT_TRUE(run({0, 18, 0, 3, 0, 0, 0, 1, 0, 9, 'x'}).closes());      // client id past the end
  EXPECT_TRUE(run({0, 18, 0, 3, 0, 0, 0, 1, 0, 0}).closes());           // v2 header without tag section
  EXPECT_TRUE(run(frame(3, 12, 1, true)).closes());                     // Metadata: not served yet
  EXPECT_TRUE(run(frame(0x7fff, 0, 1, false)).closes());                // unknown key
  auto reason = run(frame(0x7fff, 0, 1, false)).close_reason;
  EXPECT_NE(reason.find("32767"), std::string::npos);
}

TEST_F(DispatcherTest, HandlerOutcomes) {
  std::array<api_handler, 3> list{{{12, 0, 4, &silent}, {13, 0, 5, &refuses}, {14, 0, 5, &throws}}};
  handler_registry reg(list);
  broker_services s{&reg, {}};
  dispatcher custom(s);
  auto run_with = [&](const std::vector<uint8_t>& f) {
    asio::io_context io;
    dispatch_outcome out;
    asio::co_spawn(io, custom.dispatch(f, from), [&](std::exception_ptr, dispatch_outcome o) { out = std::move(o); });
    io.run();
    return out;
  };
  auto none = run_with(frame(12, 4, 1, true));
  EXPECT_FALSE(none.closes());
  EXPECT_FALSE(none.response);  // e.g. acks=0: no response, the slot is released
  EXPECT_EQ(run_with(frame(13, 0, 1, false)).close_reason, "nope");
  EXPECT_NE(run_with(frame(14, 0, 1, false)).close_reason.find("boom"), std::string::npos);
}

TEST_F(DispatcherTest, PrepareFillsTheContext) {
  auto f = frame(18, 3, 77, true, api_versions_body(3));
  auto p = d.prepare(f, from);
  auto* call = std::get_if<dispatcher::prepared_call>(&p);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->context.api_key, 18);
  EXPECT_EQ(call->context.api_version, 3);
  EXPECT_EQ(call->context.correlation_id, 77);
  EXPECT_EQ(call->context.client_id, "unit-test");
  EXPECT_EQ(call->context.listener_name, "PLAINTEXT");
  EXPECT_EQ(call->context.connection_id, 7u);
  EXPECT_EQ(call->context.response_header_version, 0);
  EXPECT_EQ(call->context.body.size(), api_versions_body(3).size());
  EXPECT_EQ(call->context.protocol, security_protocol::plaintext);
  EXPECT_EQ(call->context.principal->to_string(), "User:ANONYMOUS") << "PLAINTEXT: nobody authenticated";
}

// The caller's identity reaches the handler as the connection knows it:
// listener, security protocol, client address and principal.
TEST_F(DispatcherTest, ContextCarriesTheCaller) {
  const kafka_principal alice{"User", "alice"};
  connection_info who{"SECURE", 9, "secure-connection", security_protocol::sasl_ssl, "10.1.2.3", &alice};
  auto f = frame(18, 3, 78, true, api_versions_body(3));
  auto p = d.prepare(f, who);
  auto* call = std::get_if<dispatcher::prepared_call>(&p);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->context.listener_name, "SECURE");
  EXPECT_EQ(call->context.protocol, security_protocol::sasl_ssl);
  EXPECT_EQ(call->context.client_address, "10.1.2.3");
  EXPECT_EQ(call->context.principal, &alice);
  EXPECT_EQ(security_protocol_name(call->context.protocol), "SASL_SSL");
  EXPECT_EQ(parse_security_protocol("SASL_SSL"), security_protocol::sasl_ssl);
  EXPECT_FALSE(parse_security_protocol("sasl_ssl")) << "Kafka's names are upper case";
}

}  // namespace
}  // namespace hw::broker
