// Request header framing (protocol/request_header_parse), checked against
// hand-written bytes and against the generated RequestHeader codec.

#include "protocol/request_header_parse.h"

#include <gtest/gtest.h>

#include "protocol/messages/headers.h"

namespace hw::protocol {
namespace {

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v) out.push_back(static_cast<uint8_t>(b));
  return out;
}

TEST(RequestHeader, PeekNeedsEightBytes) {
  auto f = bytes({0, 18, 0, 3, 0, 0, 0, 7});
  auto p = peek_request_prefix(f);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->api_key, 18);
  EXPECT_EQ(p->api_version, 3);
  EXPECT_EQ(p->correlation_id, 7);
  f.pop_back();
  EXPECT_FALSE(peek_request_prefix(f));
}

TEST(RequestHeader, Version1) {
  auto f = bytes({0, 3, 0, 12, 0x7f, 0xff, 0xff, 0xff, 0, 3, 'a', 'b', 'c', 0xAA, 0xBB});
  auto r = parse_request_header(f, 1);
  ASSERT_TRUE(r.header) << r.error;
  EXPECT_EQ(r.header->api_key, 3);
  EXPECT_EQ(r.header->api_version, 12);
  EXPECT_EQ(r.header->correlation_id, INT32_MAX);
  EXPECT_EQ(r.header->client_id, "abc");
  EXPECT_EQ(r.header->size, 13u);
  auto body = r.header->body(f);
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0], 0xAA);
}

TEST(RequestHeader, NullAndEmptyClientId) {
  auto null_id = bytes({0, 18, 0, 0, 0, 0, 0, 1, 0xff, 0xff});
  auto r = parse_request_header(null_id, 1);
  ASSERT_TRUE(r.header);
  EXPECT_FALSE(r.header->client_id.has_value());
  auto empty_id = bytes({0, 18, 0, 0, 0, 0, 0, 1, 0, 0});
  r = parse_request_header(empty_id, 1);
  ASSERT_TRUE(r.header);
  EXPECT_EQ(r.header->client_id, "");
}

TEST(RequestHeader, Version2ClientIdIsNotCompactAndTagsAreSkipped) {
  // client_id "x" with an int16 length, then two tagged fields.
  auto f = bytes({0, 18, 0, 3, 0, 0, 0, 9, 0, 1, 'x', 2, 0, 1, 0x55, 5, 2, 0x66, 0x77, 0xEE});
  auto r = parse_request_header(f, 2);
  ASSERT_TRUE(r.header) << r.error;
  EXPECT_EQ(r.header->client_id, "x");
  EXPECT_EQ(r.header->tagged_field_count, 2u);
  EXPECT_EQ(r.header->size, f.size() - 1);
  // The same bytes read as v1 leave the tag section in the body.
  auto v1 = parse_request_header(f, 1);
  ASSERT_TRUE(v1.header);
  EXPECT_EQ(v1.header->size, 11u);
}

TEST(RequestHeader, Malformed) {
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3}), 1).header);                           // truncated
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3, 0, 0, 0, 9, 0, 5, 'a'}), 1).header);      // short client id
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3, 0, 0, 0, 9, 0xff, 0xfe}), 1).header);     // length -2
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3, 0, 0, 0, 9, 0, 0}), 2).header);           // no tag count
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3, 0, 0, 0, 9, 0, 0, 1, 0, 9, 1}), 2).header);  // short tag
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3, 0, 0, 0, 9, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}), 2).header);
  EXPECT_FALSE(parse_request_header(bytes({0, 18, 0, 3, 0, 0, 0, 9, 0, 0}), 0).header);  // header v0 is gone
}

TEST(RequestHeader, AgreesWithTheGeneratedCodec) {
  for (int16_t version : {1, 2}) {
    msg::request_header h;
    h.request_api_key = 1;
    h.request_api_version = 17;
    h.correlation_id = -5;
    h.client_id = "consumer-1";
    if (version == 2) h.unknown_tagged_fields.push_back({7, {1, 2, 3}});
    std::vector<uint8_t> buf;
    writer w(buf);
    h.encode(w, version);
    buf.push_back(0x42);  // body
    auto r = parse_request_header(buf, version);
    ASSERT_TRUE(r.header) << r.error;
    EXPECT_EQ(r.header->api_key, 1);
    EXPECT_EQ(r.header->api_version, 17);
    EXPECT_EQ(r.header->correlation_id, -5);
    EXPECT_EQ(r.header->client_id, "consumer-1");
    EXPECT_EQ(r.header->size, h.encoded_size(version));
  }
}

TEST(ResponseHeader, Versions) {
  std::vector<uint8_t> v0, v1;
  writer w0(v0), w1(v1);
  write_response_header(w0, 0x01020304, 0);
  write_response_header(w1, 0x01020304, 1);
  EXPECT_EQ(v0, bytes({1, 2, 3, 4}));
  EXPECT_EQ(v1, bytes({1, 2, 3, 4, 0}));
  EXPECT_EQ(response_header_size(0), 4u);
  EXPECT_EQ(response_header_size(1), 5u);
}

}  // namespace
}  // namespace hw::protocol
