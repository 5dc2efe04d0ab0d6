// Every generated definition, at every version, survives encode → decode →
// re-encode with seeded sample values, and encoded_size() is exact.

#include <gtest/gtest.h>

#include <set>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/testing/samples.h"

namespace hw::protocol {
namespace {

TEST(MessagesRoundtrip, EveryDefinitionAtEveryVersion) {
  auto cases = testing::all_roundtrip_cases();
  ASSERT_GT(cases.size(), 400u);
  size_t runs = 0;
  for (const auto& c : cases) {
    for (uint64_t seed = 1; seed <= 24; ++seed) {
      std::string failure = c.run(seed);
      ASSERT_TRUE(failure.empty()) << c.name << " v" << c.version << " seed " << seed << ": " << failure;
      ++runs;
    }
  }
  EXPECT_EQ(runs, cases.size() * 24);
}

TEST(ApiRegistry, CoversTheApisOfTheProtocolIssue) {
  std::set<int16_t> keys;
  for (const api_info& api : all_apis()) keys.insert(api.key);
  for (int16_t k : {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                    25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 42, 43, 44, 45, 46, 47,
                    48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 59, 60, 61, 62, 63, 64, 65, 66, 67,
                    68, 69, 70, 75, 80, 81, 82})
    EXPECT_TRUE(keys.count(k)) << "api key " << k;
}

TEST(ApiRegistry, HeaderVersionsFollowFlexibility) {
  // Produce became flexible at v9, Metadata at v9, ApiVersions at v3.
  EXPECT_EQ(request_header_version(0, 8), 1);
  EXPECT_EQ(request_header_version(0, 9), 2);
  EXPECT_EQ(response_header_version(0, 8), 0);
  EXPECT_EQ(response_header_version(0, 9), 1);
  EXPECT_EQ(request_header_version(18, 3), 2);
  EXPECT_EQ(response_header_version(18, 3), 0);  // ApiVersions responses keep header v0
  EXPECT_EQ(request_header_version(17, 1), 1);   // SaslHandshake is never flexible
  ASSERT_NE(find_api(1), nullptr);
  EXPECT_STREQ(find_api(1)->name, "Fetch");
  EXPECT_EQ(find_api(1)->min_version, 4);
  EXPECT_EQ(find_api(1)->max_version, 18);
  EXPECT_EQ(find_api(1)->first_flexible_version, 12);
  EXPECT_EQ(find_api(7), nullptr);
}

TEST(ApiRegistry, ReencodeRejectsUnknownKeysVersionsAndTrailingBytes) {
  const char* error = nullptr;
  std::vector<uint8_t> body = {0, 0, 0, 0};
  EXPECT_FALSE(reencode_request(7, 0, body, &error));
  EXPECT_STREQ(error, "unknown api key");
  EXPECT_FALSE(reencode_request(18, 5, body, &error));
  EXPECT_STREQ(error, "unsupported version");
  // ApiVersions v0 has an empty body: four bytes are trailing garbage.
  EXPECT_FALSE(reencode_request(18, 0, body, &error));
  auto empty = reencode_request(18, 0, {}, &error);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace hw::protocol
