// Forwarding a client's identity (broker/security/forwarded_identity.h,
// broker/metadata/envelope.h): the principal and address an envelope
// carries survive the trip, bytes that are not one are refused, and an
// envelope built for a request opens back into that request.

#include <gtest/gtest.h>

#include "broker/metadata/envelope.h"
#include "broker/security/forwarded_identity.h"
#include "protocol/messages/envelope.h"
#include "protocol/messages/principal_data.h"
#include "protocol/messages/api_registry.h"
#include "protocol/request_header_parse.h"
#include "protocol/wire/writer.h"

namespace hw::broker {
namespace {

protocol::bytes_view view(const std::vector<uint8_t>& v) { return {v.data(), v.size()}; }

TEST(ForwardedIdentity, PrincipalsRoundTrip) {
  for (const kafka_principal& p : {kafka_principal("User", "alice"), kafka_principal("Group", "ops:team"),
                                   kafka_principal("User", ""), kafka_principal::anonymous()}) {
    const auto bytes = serialize_principal(p);
    // Kafka's form: the version (0) first, then DefaultPrincipalData.
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(bytes[0], 0);
    EXPECT_EQ(bytes[1], 0);
    auto back = deserialize_principal(view(bytes));
    ASSERT_TRUE(back) << p.to_string();
    EXPECT_EQ(*back, p);
  }
}

TEST(ForwardedIdentity, BytesThatAreNoPrincipalAreRefused) {
  auto bytes = serialize_principal(kafka_principal("User", "bob"));
  auto unknown_version = bytes;
  unknown_version[1] = 1;
  EXPECT_FALSE(deserialize_principal(view(unknown_version)));
  EXPECT_FALSE(deserialize_principal(view(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 3))));
  EXPECT_FALSE(deserialize_principal(view({})));
  protocol::msg::default_principal_data no_type;
  no_type.name = "bob";
  std::vector<uint8_t> typeless;
  protocol::writer w(typeless);
  w.write_int16(0);
  no_type.encode(w, 0);
  EXPECT_FALSE(deserialize_principal(view(typeless)));
}

TEST(ForwardedIdentity, AddressesRoundTripAsConnectionsNameThem) {
  EXPECT_EQ(address_bytes("127.0.0.1"), (std::vector<uint8_t>{127, 0, 0, 1}));
  EXPECT_EQ(address_text(view(address_bytes("10.20.30.40"))), "10.20.30.40");
  // IPv6 as Java's getHostAddress writes it: eight groups, uncompressed.
  EXPECT_EQ(address_bytes("0:0:0:0:0:0:0:1").size(), 16u);
  EXPECT_EQ(address_text(view(address_bytes("::1"))), "0:0:0:0:0:0:0:1");
  EXPECT_EQ(address_text(view(address_bytes("fe80:0:0:0:0:0:0:ab"))), "fe80:0:0:0:0:0:0:ab");
  EXPECT_TRUE(address_bytes("not-an-address").empty());
  EXPECT_FALSE(address_text(view({1, 2, 3})));
  EXPECT_FALSE(address_text(view({})));
}

TEST(Envelope, ARequestWrappedOpensBackIntoIt) {
  const kafka_principal bob("User", "bob");
  request_context client;
  client.principal = &bob;
  client.client_address = "192.168.1.9";
  client.client_id = "adminclient-1";
  const std::vector<uint8_t> body{1, 2, 3, 4};
  const auto wrapped = envelope_request_body(client, 19, 7, body);

  protocol::msg::envelope_request envelope;
  protocol::reader r(view(wrapped));
  envelope.decode(r, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(deserialize_principal(view(*envelope.request_principal)), bob);
  EXPECT_EQ(address_text(view(envelope.client_host_address)), "192.168.1.9");
  const auto inner = view(envelope.request_data);
  const auto parsed = protocol::parse_request_header(inner, protocol::request_header_version(19, 7));
  ASSERT_TRUE(parsed.header) << parsed.error;
  EXPECT_EQ(parsed.header->api_key, 19);
  EXPECT_EQ(parsed.header->api_version, 7);
  EXPECT_EQ(parsed.header->client_id, "adminclient-1");
  const auto rest = parsed.header->body(inner);
  EXPECT_EQ(std::vector<uint8_t>(rest.begin(), rest.end()), body);
}

TEST(Envelope, OnlyAClientWithAnAddressTravelsInOne) {
  const kafka_principal bob("User", "bob");
  request_context client;
  client.principal = &bob;
  client.client_address = "10.0.0.1";
  EXPECT_TRUE(can_envelope(client));
  client.client_address = "";
  EXPECT_FALSE(can_envelope(client));
  client.client_address = "localhost";
  EXPECT_FALSE(can_envelope(client));
}

std::vector<uint8_t> envelope_answer(std::optional<std::vector<uint8_t>> data, int16_t error) {
  protocol::msg::envelope_response e;
  e.response_data = std::move(data);
  e.error_code = error;
  std::vector<uint8_t> out;
  protocol::writer w(out);
  e.encode(w, 0);
  return out;
}

TEST(Envelope, AResponseOpensPastItsHeader) {
  // CreateTopics v7 answers with header v1: correlation id, tagged fields.
  std::vector<uint8_t> inner;
  {
    protocol::writer w(inner);
    protocol::write_response_header(w, 0, 1);
    w.write_raw(std::vector<uint8_t>{9, 8, 7});
  }
  auto opened = unwrap_envelope_response(view(envelope_answer(inner, 0)), 19, 7);
  EXPECT_EQ(opened.error, protocol::error_code::none);
  EXPECT_EQ(opened.body, (std::vector<uint8_t>{9, 8, 7}));
  // v4 (header v0): no tagged fields.
  std::vector<uint8_t> old;
  {
    protocol::writer w(old);
    protocol::write_response_header(w, 0, 0);
    w.write_raw(std::vector<uint8_t>{5});
  }
  opened = unwrap_envelope_response(view(envelope_answer(old, 0)), 19, 4);
  EXPECT_EQ(opened.body, (std::vector<uint8_t>{5}));
}

TEST(Envelope, TheEnvelopesOwnRefusalsComeBackAsErrors) {
  EXPECT_EQ(unwrap_envelope_response(view(envelope_answer(std::nullopt, 31)), 19, 7).error,
            protocol::error_code::cluster_authorization_failed);
  EXPECT_EQ(unwrap_envelope_response(view(envelope_answer(std::nullopt, 0)), 19, 7).error,
            protocol::error_code::unknown_server_error);
  EXPECT_EQ(unwrap_envelope_response(view(std::vector<uint8_t>{1}), 19, 7).error,
            protocol::error_code::unknown_server_error);
  EXPECT_EQ(unwrap_envelope_response(view(envelope_answer(std::vector<uint8_t>{0, 0}, 0)), 19, 7).error,
            protocol::error_code::unknown_server_error);
}

}  // namespace
}  // namespace hw::broker
