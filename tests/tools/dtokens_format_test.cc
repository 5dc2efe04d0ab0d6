// kafka-delegation-tokens.sh's pure parts against what Kafka 4.3.1's tool
// and the JDK 17 it runs on print: the HMAC read by Java's Base64 decoder
// (its checks and messages), dates as SimpleDateFormat writes them in the
// local time zone, principals as SecurityUtils reads them, the lines and
// the token table of printToken.

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

#include <optional>

#include "tools/commands/delegation_tokens.h"

namespace hw::tools::dtokens {
namespace {

// The decoder's answer: the bytes re-encoded, or the exception's message.
std::string decoded(const std::optional<std::string>& text) {
  std::vector<uint8_t> bytes;
  if (auto f = decode_hmac(text, &bytes)) return f->message;
  return "ok " + std::to_string(bytes.size()) + " " + hmac_text(bytes);
}

TEST(DelegationTokensFormat, HmacDecodedAsJavasBase64Decoder) {
  // Each case's answer is what java.util.Base64.getDecoder().decode gave.
  const std::pair<const char*, const char*> cases[] = {
      {"", "ok 0 "},
      {"A", "Input byte[] should at least have 2 bytes for base64 bytes"},
      {"=", "Input byte[] should at least have 2 bytes for base64 bytes"},
      {"AB", "ok 1 AA=="},
      {"ABC", "ok 2 ABA="},
      {"ABCD", "ok 3 ABCD"},
      {"AB==", "ok 1 AA=="},
      {"ABC=", "ok 2 ABA="},
      {"Zm9vYg", "ok 4 Zm9vYg=="},
      {"Zm9vYmE=", "ok 5 Zm9vYmE="},
      {"AB=", "Input byte array has wrong 4-byte ending unit"},
      {"==", "Input byte array has wrong 4-byte ending unit"},
      {"AA=A", "Input byte array has wrong 4-byte ending unit"},
      {"ABCD=", "Input byte array has wrong 4-byte ending unit"},
      {"ABCDAB=A", "Input byte array has wrong 4-byte ending unit"},
      {"A===", "Last unit does not have enough valid bits"},
      {"AAAAA", "Last unit does not have enough valid bits"},
      {"AAA=x", "Input byte array has incorrect ending byte at 4"},
      {"AB==C", "Input byte array has incorrect ending byte at 4"},
      {"!!!", "Illegal base64 character 21"},
      {"a b", "Illegal base64 character 20"},
      {"a-b_", "Illegal base64 character 2d"},                  // the URL alphabet is not the basic one
      {"\xc3\xa9\xc3\xa9", "Illegal base64 character -17"},     // é: one Latin-1 byte, a negative Java byte
      {"\xe2\x82\xac\xe2\x82\xac", "Illegal base64 character 3f"},  // €: not Latin-1, '?'
  };
  for (const auto& [text, answer] : cases) EXPECT_EQ(decoded(std::string(text)), answer) << "[" << text << "]";
  EXPECT_EQ(decoded(std::nullopt), "Cannot invoke \"String.getBytes(java.nio.charset.Charset)\" because \"src\" is null");
  std::vector<uint8_t> bytes;
  auto f = decode_hmac(std::string("!!!"), &bytes);
  ASSERT_TRUE(f);
  EXPECT_EQ(failure_text(*f), "Illegal base64 character 21\njava.lang.IllegalArgumentException: Illegal base64 character 21\n\n");
}

// Sets TZ for one test, as the JVM reads it, and puts it back.
class local_zone {
 public:
  explicit local_zone(const char* zone) {
    if (const char* old = getenv("TZ")) old_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~local_zone() {
    if (old_) setenv("TZ", old_->c_str(), 1);
    else unsetenv("TZ");
    tzset();
  }

 private:
  std::optional<std::string> old_;
};

TEST(DelegationTokensFormat, DatesAsSimpleDateFormatInTheLocalZone) {
  // What new SimpleDateFormat("yyyy-MM-dd'T'HH:mm").format(ms) gave on JDK 17.
  {
    local_zone utc("UTC");
    EXPECT_EQ(date_text(0), "1970-01-01T00:00");
    EXPECT_EQ(date_text(-1), "1969-12-31T23:59");
    EXPECT_EQ(date_text(1796000000000), "2026-11-30T00:53");
    EXPECT_EQ(date_text(253402300800000), "10000-01-01T00:00");
    EXPECT_EQ(date_text(INT64_MAX), "292278994-08-17T07:12");
  }
  {
    local_zone kathmandu("Asia/Kathmandu");
    EXPECT_EQ(date_text(0), "1970-01-01T05:30");
    EXPECT_EQ(date_text(-1), "1970-01-01T05:29");
    EXPECT_EQ(date_text(1796000000000), "2026-11-30T06:38");
  }
  {
    local_zone st_johns("America/St_Johns");
    EXPECT_EQ(date_text(1796000000000), "2026-11-29T21:23");
  }
}

TEST(DelegationTokensFormat, PrincipalsAsSecurityUtilsReadsThem) {
  std::vector<principal> ps;
  ASSERT_FALSE(principals({" User:alice ", "User:a b", ":x", "Group:", "User:a:b"}, &ps));
  EXPECT_EQ(principal_list(ps), "[User:alice, User:a b, :x, Group:, User:a:b]");
  EXPECT_EQ(ps[4], (principal{"User", "a:b"}));
  EXPECT_EQ(principal_list({}), "[]");
  for (const char* bad : {"bob", "", "  "}) {
    auto f = principals({"User:ok", bad}, &ps);
    ASSERT_TRUE(f) << bad;
    EXPECT_EQ(f->message, "expected a string in format principalType:principalName but got " +
                              std::string(bad[0] == 'b' ? "bob" : ""));
    EXPECT_EQ(f->trace, std::vector<std::string>{"java.lang.IllegalArgumentException: " + f->message});
  }
}

TEST(DelegationTokensFormat, LongValuesAsJoptsimpleGivesThem) {
  int64_t v = 0;
  EXPECT_FALSE(long_value({"-1"}, "renew-time-period", &v));
  EXPECT_EQ(v, -1);
  EXPECT_FALSE(long_value({"+5"}, "renew-time-period", &v));
  EXPECT_EQ(v, 5);
  auto empty = long_value({""}, "max-life-time-period", &v);
  ASSERT_TRUE(empty);
  EXPECT_EQ(failure_text(*empty),
            "Cannot parse argument '' of option max-life-time-period\n"
            "joptsimple.OptionArgumentConversionException: Cannot parse argument '' of option max-life-time-period\n"
            "Caused by: joptsimple.internal.ReflectionException: java.lang.NumberFormatException: For input string: \"\"\n"
            "Caused by: java.lang.NumberFormatException: For input string: \"\"\n\n");
  // Every value is converted before more than one is refused.
  EXPECT_EQ(long_value({"1", "x"}, "expiry-time-period", &v)->message, "Cannot parse argument 'x' of option expiry-time-period");
  EXPECT_EQ(long_value({"1", "2"}, "expiry-time-period", &v)->message,
            "Found multiple arguments for option expiry-time-period, but you asked for only one");
  EXPECT_EQ(long_value({}, "expiry-time-period", &v)->trace.front().substr(0, 31), "java.lang.NullPointerException:");
}

TEST(DelegationTokensFormat, LinesAndTheTokenTable) {
  local_zone utc("UTC");
  EXPECT_EQ(create_calling_line({{"User", "bob"}, {"User", "carol"}}, -1),
            "Calling create token operation with renewers :[User:bob, User:carol] , max-life-time-period :-1");
  EXPECT_EQ(renew_calling_line(std::string("AAAA"), 3600000),
            "Calling renew token operation with hmac :AAAA , renew-time-period :3600000");
  EXPECT_EQ(expire_calling_line(std::nullopt, -1), "Calling expire token operation with hmac :null , expire-time-period :-1");
  EXPECT_EQ(describe_calling_line({}), "Calling describe token operation for current user.");
  EXPECT_EQ(describe_calling_line({{"User", "a"}, {"User", "b"}}), "Calling describe token operation for owners: [User:a, User:b]");

  token t;
  t.token_id = "tIl6syexR8ic4HIKRizbwA";
  ASSERT_FALSE(decode_hmac(std::string("vZ7ytJWsXZ9ouxtYKZfykR6D4evt0nPqHl23oBtf8pP3EVgf0B8cM7CDjcDpRSkH7KAArKukQzulOFlJQ/jQPg=="),
                           &t.hmac));
  t.owner = {"User", "alice"};
  t.requester = {"User", "alice"};
  t.renewers = {{"User", "bob"}};
  t.issue = 1796000000000;
  t.expiry = t.issue + 86400000;
  t.max = t.issue + 7 * 86400000LL;
  // Kafka's tool printed these lines for a token like it (its dates aside).
  const std::string header =
      "TOKENID         HMAC                           OWNER           REQUESTER       RENEWERS                  "
      "ISSUEDATE       EXPIRYDATE      MAXDATE        ";
  EXPECT_EQ(token_table({}), "\n" + header + "\n");
  EXPECT_EQ(token_table({t}),
            "\n" + header + "\n\n" +
                "tIl6syexR8ic4HIKRizbwA vZ7ytJWsXZ9ouxtYKZfykR6D4evt0nPqHl23oBtf8pP3EVgf0B8cM7CDjcDpRSkH7KAArKukQzulOFlJQ/jQPg== "
                "User:alice      User:alice      [User:bob]                2026-11-30T00:53 2026-12-01T00:53 "
                "2026-12-07T00:53\n");
  // Short values are padded by UTF-16 units, as Java's %-15s pads them.
  t.token_id = "id";
  t.hmac = {1, 2, 3};
  t.owner = {"User", "zo\xc3\xab"};  // 8 units, 9 bytes
  t.requester = {"", ""};            // what a version 2 answer gives: ":"
  t.renewers = {};
  EXPECT_EQ(token_table({t}).substr(header.size() + 3),
            "id              AQID                           User:zo\xc3\xab        :               []                  "
            "      2026-11-30T00:53 2026-12-01T00:53 2026-12-07T00:53\n");
}

}  // namespace
}  // namespace hw::tools::dtokens
