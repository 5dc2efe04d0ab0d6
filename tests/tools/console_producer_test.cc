// The console producer's pure parts: Kafka's LineMessageReader (a line to
// a record), stdin cut into lines and decoded as Java does, the record
// size Kafka's producer checks, the Java producer properties mapped to
// librdkafka's, and joptsimple-style option values. Expected values are
// what Kafka 4.3.1's ConsoleProducer does with the same input (checked by
// running it; tests/compat/native_console_test.cc compares the tools).

#include <gtest/gtest.h>

#include <algorithm>

#include "tools/commands/console.h"

namespace hw::tools::console {
namespace {

reader_settings reader(const properties& extra = {}) {
  properties props{{"topic", "t"}};
  for (auto& [k, v] : extra) props[k] = v;
  reader_settings s;
  std::string error;
  EXPECT_TRUE(configure_reader(props, &s, &error)) << error;
  return s;
}

produced_record parse(const reader_settings& s, const std::string& line, int number = 1) {
  produced_record r;
  std::string error;
  EXPECT_TRUE(parse_line(s, line, number, &r, &error)) << error;
  return r;
}

std::string parse_error(const reader_settings& s, const std::string& line, int number = 1) {
  produced_record r;
  std::string error;
  EXPECT_FALSE(parse_line(s, line, number, &r, &error));
  return error;
}

TEST(ConsoleReader, WholeLineIsTheValueByDefault) {
  auto r = parse(reader(), "key\tvalue");
  EXPECT_EQ(r.topic, "t");
  EXPECT_FALSE(r.key);
  EXPECT_EQ(r.value, "key\tvalue");
  EXPECT_TRUE(r.headers.empty());
  EXPECT_EQ(parse(reader(), "").value, "");  // an empty line is an empty value, not null
}

TEST(ConsoleReader, KeyBeforeTheFirstSeparator) {
  auto s = reader({{"parse.key", "TRUE "}});  // trimmed, any case, as Java reads it
  auto r = parse(s, "k1\tv1\tmore");
  EXPECT_EQ(r.key, "k1");
  EXPECT_EQ(r.value, "v1\tmore");
  EXPECT_EQ(parse(s, "\tv").key, "");
  auto custom = reader({{"parse.key", "true"}, {"key.separator", "::"}});
  EXPECT_EQ(parse(custom, "a::b::c").key, "a");
  EXPECT_EQ(parse(custom, "a::b::c").value, "b::c");
}

TEST(ConsoleReader, MissingSeparatorFailsWithTheLineUnlessIgnored) {
  EXPECT_EQ(parse_error(reader({{"parse.key", "true"}}), "novalue", 3),
            "No key separator found on line number 3: 'novalue'");
  auto lenient = reader({{"parse.key", "true"}, {"ignore.error", "true"}});
  auto r = parse(lenient, "novalue");
  EXPECT_FALSE(r.key);
  EXPECT_EQ(r.value, "novalue");
  EXPECT_EQ(parse_error(reader({{"parse.headers", "true"}}), "plain", 2),
            "No headers delimiter found on line number 2: 'plain'");
}

TEST(ConsoleReader, HeadersThenKeyThenValue) {
  auto s = reader({{"parse.key", "true"}, {"parse.headers", "true"}});
  auto r = parse(s, "h1:v1,h2:v2\tk\tval");
  EXPECT_EQ(r.key, "k");
  EXPECT_EQ(r.value, "val");
  EXPECT_EQ(r.headers, (std::vector<header>{{"h1", "v1"}, {"h2", "v2"}}));
  // A header value may hold the key separator; the value goes to its end.
  EXPECT_EQ(parse(s, "h:a:b\tk\tv").headers, (std::vector<header>{{"h", "a:b"}}));
  EXPECT_EQ(parse(s, "h:\tk\tv").headers, (std::vector<header>{{"h", ""}}));
  // Trailing empty pieces vanish (Java's split), a leading one stays.
  EXPECT_EQ(parse(s, "h:v,,\tk\tv").headers, (std::vector<header>{{"h", "v"}}));
  EXPECT_EQ(parse_error(s, ",h:v\tk\tv", 4), "No header key separator found in pair '' on line number 4");
  EXPECT_EQ(parse_error(s, "\tk\tv", 5), "No header key separator found in pair '' on line number 5");
}

TEST(ConsoleReader, HeaderWithoutKeySeparator) {
  auto strict = reader({{"parse.headers", "true"}});
  EXPECT_EQ(parse_error(strict, "flag\tv", 1), "No header key separator found in pair 'flag' on line number 1");
  auto lenient = reader({{"parse.headers", "true"}, {"ignore.error", "true"}});
  EXPECT_EQ(parse(lenient, "flag\tv").headers, (std::vector<header>{{"flag", std::nullopt}}));
}

TEST(ConsoleReader, NullMarker) {
  auto s = reader({{"parse.key", "true"}, {"parse.headers", "true"}, {"null.marker", "<null>"}});
  auto r = parse(s, "h1:<null>\t<null>\t<null>");
  EXPECT_FALSE(r.key);
  EXPECT_FALSE(r.value);
  EXPECT_EQ(r.headers, (std::vector<header>{{"h1", std::nullopt}}));
  EXPECT_TRUE(parse(s, "<null>\tk\tv").headers.empty());  // the whole headers part null: no headers
  EXPECT_EQ(parse_error(s, "<null>:v\tk\tv"),
            "Header keys should not be equal to the null marker '<null>' as they can't be null");
}

TEST(ConsoleReader, RegexHeadersSeparator) {
  auto s = reader({{"parse.headers", "true"}, {"headers.separator", "[;|]"}});
  EXPECT_EQ(parse(s, "a:1;b:2|c:3\tv").headers, (std::vector<header>{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
}

TEST(ConsoleReader, ConflictingSettingsAreRefused) {
  const std::vector<std::pair<properties, std::string>> cases = {
      {{{"headers.delimiter", ","}}, "headers.delimiter and headers.separator may not be equal"},
      {{{"headers.delimiter", ":"}}, "headers.delimiter and headers.key.separator may not be equal"},
      {{{"headers.separator", ":"}}, "headers.separator and headers.key.separator may not be equal"},
      {{{"null.marker", "\t"}}, "null.marker and key.separator may not be equal"},
      {{{"null.marker", ","}}, "null.marker and headers.separator may not be equal"},
      {{{"null.marker", ":"}}, "null.marker and headers.key.separator may not be equal"},
  };
  for (const auto& [props, message] : cases) {
    properties all = props;
    all["topic"] = "t";
    reader_settings s;
    std::string error;
    EXPECT_FALSE(configure_reader(all, &s, &error));
    EXPECT_EQ(error, message);
  }
  // A topic property replaces the tool's, as Kafka's reader properties allow.
  EXPECT_EQ(parse(reader({{"topic", "other"}}), "v").topic, "other");
}

TEST(ConsoleReader, JavaSplit) {
  std::vector<std::string> out;
  std::string error;
  ASSERT_TRUE(java_split(",", "a,b,,", &out, &error));
  EXPECT_EQ(out, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(java_split(",", "", &out, &error));
  EXPECT_EQ(out, (std::vector<std::string>{""}));
  ASSERT_TRUE(java_split(",", ",,", &out, &error));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(java_split("", "ab", &out, &error));  // zero-width matches: no empty first piece
  EXPECT_EQ(out, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(java_split("(", "x", &out, &error));
}

TEST(ConsoleReader, LinesEndAtNewlineCarriageReturnOrBoth) {
  line_splitter split;
  std::vector<std::string> lines;
  split.feed("a\r\nb\rc\n\nd\r", &lines);
  split.feed("\ne", &lines);  // the \n of a \r\n split across reads
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c", "", "d"}));
  EXPECT_EQ(split.finish(), "e");
  EXPECT_EQ(split.finish(), std::nullopt);
}

TEST(ConsoleReader, MalformedUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(java_utf8("plain é"), "plain é");
  EXPECT_EQ(java_utf8("a\xFF"
                      "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(java_utf8("\xE2\x82"), "\xEF\xBF\xBD");  // a truncated sequence is one replacement
  EXPECT_EQ(java_utf8("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(java_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

TEST(ConsoleReader, EstimatedSizeAsKafkasProducerComputesIt) {
  // Kafka 4.3.1 reported 286 bytes for a 200-byte value without key or headers.
  produced_record r;
  r.value = std::string(200, 'k');
  EXPECT_EQ(estimated_record_size(r), 286);
  r.value = "x";
  EXPECT_EQ(estimated_record_size(r), 86);
  r.key = "key";
  r.headers = {{"h", "v"}, {"n", std::nullopt}};
  EXPECT_EQ(estimated_record_size(r), 86 - 1 + 4 + 2 + 2 + 2 + 1);
}

properties producer_defaults() {
  // What ConsoleProducer hands KafkaProducer without any option.
  return {{"bootstrap.servers", "h:1"}, {"compression.type", "none"}, {"client.id", "console-producer"},
          {"linger.ms", "1000"},        {"acks", "-1"},               {"request.timeout.ms", "1500"},
          {"retries", "3"},             {"retry.backoff.ms", "100"},  {"send.buffer.bytes", "102400"},
          {"buffer.memory", "33554432"}, {"batch.size", "16384"},     {"metadata.max.age.ms", "300000"},
          {"max.block.ms", "60000"}};
}

std::string setting(const client_settings& s, const std::string& key) {
  std::string value = "<unset>";
  for (const auto& [k, v] : s.rdkafka)
    if (k == key) value = v;
  return value;
}

TEST(ConsoleProducerConfig, DefaultsMapToLibrdkafka) {
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::producer, producer_defaults(), &s, &error)) << error;
  EXPECT_EQ(setting(s, "linger.ms"), "1000");
  EXPECT_EQ(setting(s, "acks"), "-1");
  EXPECT_EQ(setting(s, "retries"), "3");
  EXPECT_EQ(setting(s, "enable.idempotence"), "true");  // Kafka's default with acks=all and retries
  EXPECT_EQ(setting(s, "max.in.flight.requests.per.connection"), "5");
  EXPECT_EQ(setting(s, "queue.buffering.max.kbytes"), "32768");
  EXPECT_EQ(setting(s, "socket.send.buffer.bytes"), "102400");
  EXPECT_EQ(setting(s, "partitioner"), "murmur2_random");
  EXPECT_EQ(setting(s, "compression.type"), "none");
  EXPECT_EQ(s.max_block_ms, 60000);
  EXPECT_EQ(s.client_id, "console-producer");
}

std::string producer_error(const properties& extra) {
  properties props = producer_defaults();
  for (auto& [k, v] : extra) props[k] = v;
  client_settings s;
  std::string error;
  EXPECT_FALSE(map_client_properties(client_kind::producer, props, &s, &error));
  return error;
}

TEST(ConsoleProducerConfig, InvalidValuesFailAsKafkaValidatesThem) {
  const std::string ce = "org.apache.kafka.common.config.ConfigException: ";
  EXPECT_EQ(producer_error({{"linger.ms", "abc"}}),
            ce + "Invalid value abc for configuration linger.ms: Not a number of type LONG");
  EXPECT_EQ(producer_error({{"batch.size", "-5"}}),
            ce + "Invalid value -5 for configuration batch.size: Value must be at least 0");
  EXPECT_EQ(producer_error({{"acks", "ALL"}}),
            ce + "Invalid value ALL for configuration acks: String must be one of: all, -1, 0, 1");
  EXPECT_EQ(producer_error({{"compression.type", "foo"}}),
            ce + "Invalid value foo for configuration compression.type: String must be one of: none, gzip, snappy, "
                 "lz4, zstd");
  EXPECT_EQ(producer_error({{"enable.idempotence", "true"}, {"acks", "1"}}),
            ce + "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee "
                 "idempotence.");
  EXPECT_EQ(producer_error({{"enable.idempotence", "maybe"}}),
            ce + "Invalid value maybe for configuration enable.idempotence: Expected value to be either true or false");
}

TEST(ConsoleProducerConfig, IdempotenceTurnsOffSilentlyUnlessAskedFor) {
  properties props = producer_defaults();
  props["acks"] = "1";
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::producer, props, &s, &error)) << error;
  EXPECT_EQ(setting(s, "enable.idempotence"), "false");
  EXPECT_EQ(setting(s, "acks"), "1");
}

TEST(ConsoleProducerConfig, WhatLibrdkafkaCannotHonourIsRefusedByName) {
  EXPECT_NE(producer_error({{"partitioner.class", "org.apache.kafka.clients.producer.RoundRobinPartitioner"}})
                .find("partitioner.class"),
            std::string::npos);
  EXPECT_NE(producer_error({{"sasl.kerberos.service.name", "kafka"}}).find("sasl.kerberos.service.name"),
            std::string::npos);
  EXPECT_NE(producer_error({{"security.protocol", "SASL_SSL"}, {"sasl.mechanism", "GSSAPI"}}).find("sasl.mechanism=GSSAPI"),
            std::string::npos);
  EXPECT_NE(producer_error({{"interceptor.classes", "a.B"}}).find("interceptor.classes"), std::string::npos);
  EXPECT_NE(producer_error({{"linger.ms", "1000000"}}).find("linger.ms"), std::string::npos);
}

TEST(ConsoleProducerConfig, SecurityKeysBecomeLibrdkafkas) {
  properties props = producer_defaults();
  props["security.protocol"] = "sasl_plaintext";
  props["sasl.mechanism"] = "SCRAM-SHA-512";
  props["sasl.jaas.config"] =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" password=\"bob-secret\";";
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::producer, props, &s, &error)) << error;
  EXPECT_EQ(setting(s, "security.protocol"), "SASL_PLAINTEXT");
  EXPECT_EQ(setting(s, "sasl.mechanisms"), "SCRAM-SHA-512");
  EXPECT_EQ(setting(s, "sasl.username"), "bob");
  EXPECT_EQ(setting(s, "sasl.password"), "bob-secret");
  // A missing trust store file fails with Kafka's words, before librdkafka.
  props["security.protocol"] = "SASL_SSL";
  props["ssl.truststore.location"] = "/nonexistent/truststore.p12";
  EXPECT_TRUE(producer_error(props).starts_with("Failed to load SSL truststore /nonexistent/truststore.p12 of type JKS"))
      << producer_error(props);
  props["ssl.truststore.location"] = "";
  props["ssl.endpoint.identification.algorithm"] = "";
  ASSERT_TRUE(map_client_properties(client_kind::producer, props, &s, &error)) << error;
  EXPECT_EQ(setting(s, "ssl.endpoint.identification.algorithm"), "none");
  // A delegation token's login needs SCRAM's tokenauth extension, which
  // librdkafka does not send: refused by name rather than refused by the broker.
  props["sasl.jaas.config"] = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"id\" "
                              "password=\"hmac\" tokenauth=true;";
  EXPECT_EQ(producer_error(props),
            "sasl.jaas.config: tokenauth=true (a delegation token's login) is not supported by the native console "
            "tools (librdkafka sends no SCRAM extensions)");
}

TEST(ConsoleProducerConfig, TimingOnlyAndUnknownPropertiesAreAccepted) {
  properties props = producer_defaults();
  props["retry.backoff.max.ms"] = "2000";
  props["metrics.num.samples"] = "3";
  props["no.such.property"] = "x";
  props["key.serializer"] = "org.apache.kafka.common.serialization.StringSerializer";
  props["compression.type"] = "zstd";
  props["compression.zstd.level"] = "5";
  props["partitioner.ignore.keys"] = "true";
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::producer, props, &s, &error)) << error;
  EXPECT_EQ(setting(s, "compression.level"), "5");
  EXPECT_EQ(setting(s, "partitioner"), "random");
}

TEST(ConsoleProducerConfig, TransactionalIdNeedsIdempotence) {
  properties props = producer_defaults();
  props["transactional.id"] = "tx";
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::producer, props, &s, &error)) << error;
  EXPECT_EQ(s.transactional_id, "tx");
  props["enable.idempotence"] = "false";
  EXPECT_FALSE(map_client_properties(client_kind::producer, props, &s, &error));
  EXPECT_EQ(error,
            "org.apache.kafka.common.config.ConfigException: Cannot set a transactional.id without also enabling "
            "idempotence.");
}

TEST(ConsoleCommandLine, JavaIntegers) {
  EXPECT_EQ(parse_java_integer("1500", false), 1500);
  EXPECT_EQ(parse_java_integer("+7", false), 7);
  EXPECT_EQ(parse_java_integer("-2147483648", false), INT32_MIN);
  EXPECT_EQ(parse_java_integer("2147483648", false), std::nullopt);
  EXPECT_EQ(parse_java_integer("2147483648", true), 2147483648LL);
  EXPECT_EQ(parse_java_integer("abc", true), std::nullopt);
  EXPECT_EQ(parse_java_integer(" 1", true), std::nullopt);
  EXPECT_EQ(parse_java_integer("", true), std::nullopt);
}

TEST(ConsoleCommandLine, KeyValuesSplitsAndOptionalValues) {
  EXPECT_EQ(java_key_value("a=b=c"), (std::pair<std::string, std::string>{"a", "b=c"}));
  EXPECT_EQ(java_key_value("flag"), (std::pair<std::string, std::string>{"flag", ""}));
  EXPECT_EQ(java_string_split("a:1,b:2,", ','), (std::vector<std::string>{"a:1", "b:2"}));
  EXPECT_TRUE(java_string_split(",", ',').empty());
  EXPECT_EQ(java_string_split("x", ','), (std::vector<std::string>{"x"}));
  const std::vector<std::string> args = {"--compression-codec", "--sync", "--topic", "t", "--compression-codec"};
  EXPECT_EQ(with_optional_value(args, "compression-codec"),
            (std::vector<std::string>{"--compression-codec=", "--sync", "--topic", "t", "--compression-codec="}));
  const std::vector<std::string> given = {"--compression-codec", "lz4"};
  EXPECT_EQ(with_optional_value(given, "compression-codec"), given);
}

TEST(ConsoleCommandLine, BootstrapAddresses) {
  EXPECT_EQ(host_of_address("localhost:9092"), "localhost");
  EXPECT_EQ(host_of_address("[::1]:9092"), "::1");
  EXPECT_EQ(host_of_address("PLAINTEXT://broker-1:9092"), "broker-1");
  EXPECT_EQ(host_of_address("foo"), std::nullopt);
  EXPECT_EQ(host_of_address("foo:"), std::nullopt);
  std::vector<std::string> warnings;
  std::string error;
  EXPECT_FALSE(validate_bootstrap("foo", &warnings, &error));
  EXPECT_EQ(error, "org.apache.kafka.common.config.ConfigException: Invalid url in bootstrap.servers: foo");
  EXPECT_TRUE(validate_bootstrap("127.0.0.1:9092, ", &warnings, &error)) << error;
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace hw::tools::console
