// --path-to-json-file as Kafka 4.3.1 reads it: Jackson's readTree (what it
// accepts, what it calls empty), JsonNode.toString in the messages, and
// LeaderElectionCommand's errors; the expected texts are what Kafka's tool
// printed for the same files.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tools/commands/leader_election.h"

namespace hw::tools::election {
namespace {

std::string failure_of(std::string_view content) {
  std::vector<topic_partition> out;
  failure e;
  if (parse_election_data(content, &out, &e)) return "(parsed)";
  return e.exception + ": " + e.message;
}

const std::string k_empty = "org.apache.kafka.tools.AdminOperationException: Replica election data is empty";
const std::string k_mapping = "java.lang.RuntimeException: com.fasterxml.jackson.databind.JsonMappingException: ";

TEST(ElectionJson, WhatJacksonRejectsIsEmpty) {
  for (const char* text : {"", "not json", "{\"partitions\":[{\"topic\":\"a\",\"partition\":01}]}",
                           "{\"partitions\":[{\"topic\":\"a\",\"partition\":0,}]}", "{\"partitions\":[]",
                           "\xef\xbb\xbf{}", "[1,]", "{'a':1}", "5x", "truex", "{\"a\":NaN}", "{\"a\":1.}",
                           "{\"a\":\"tab\there\"}", "{\"a\":\"\\x\"}", "// comment\n{}"})
    EXPECT_EQ(failure_of(text), k_empty) << text;
  std::string deep(1001, '[');
  EXPECT_EQ(failure_of(deep + std::string(1001, ']')), k_empty);
}

TEST(ElectionJson, WhatJacksonAccepts) {
  // Whitespace only: a missing node, printed as nothing.
  EXPECT_EQ(failure_of("   \n"), k_mapping + "Expected JSON object, received ");
  EXPECT_EQ(failure_of("5"), k_mapping + "Expected JSON object, received 5");
  EXPECT_EQ(failure_of("null"), k_mapping + "Expected JSON object, received null");
  EXPECT_EQ(failure_of("\"str\" anything"), k_mapping + "Expected JSON object, received \"str\"");
  EXPECT_EQ(failure_of("[{\"partitions\":[]}]"), k_mapping + "Expected JSON object, received [{\"partitions\":[]}]");
  // Nothing after the first value is read.
  EXPECT_EQ(failure_of("{\"partitions\":[]} trailing"), "(parsed)");
  std::string deep(1000, '[');
  EXPECT_EQ(failure_of(deep + std::string(1000, ']')), k_mapping + "Expected JSON object, received " + deep +
                                                           std::string(1000, ']'));
}

TEST(ElectionJson, KafkasMessages) {
  EXPECT_EQ(failure_of("{}"),
            "org.apache.kafka.tools.AdminOperationException: Replica election data is missing \"partitions\" field");
  EXPECT_EQ(failure_of("{\"partitions\":5}"), k_mapping + "Expected JSON array, received 5");
  EXPECT_EQ(failure_of("{\"partitions\":null}"), k_mapping + "Expected JSON array, received null");
  EXPECT_EQ(failure_of("{\"partitions\":{\"topic\":\"a\"}}"), k_mapping + "Expected JSON array, received {\"topic\":\"a\"}");
  EXPECT_EQ(failure_of("{\"partitions\":[5]}"), k_mapping + "Expected JSON object, received 5");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"partition\":0}]}"), k_mapping + "No such field exists: `topic`");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":1,\"partition\":0}]}"),
            k_mapping + "Expected `String` value, received 1");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":\"a\"}]}"), k_mapping + "No such field exists: `partition`");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":\"a\",\"partition\":\"0\"}]}"),
            k_mapping + "Expected `Integer` value, received \"0\"");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":\"a\",\"partition\":1e3}]}"),
            k_mapping + "Expected `Integer` value, received 1000.0");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":\"a\",\"partition\":2147483648}]}"),
            k_mapping + "Expected `Integer` value, received 2147483648");
  // A key given twice keeps its last value.
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":\"a\",\"partition\":0}],\"partitions\":[{\"topic\":\"x\"}]}"),
            k_mapping + "No such field exists: `partition`");
  EXPECT_EQ(failure_of("{\"partitions\":[{\"topic\":\"a\",\"partition\":0},{\"topic\":\"b\",\"partition\":1},"
                       "{\"topic\":\"a\",\"partition\":0},{\"topic\":\"b\",\"partition\":1},{\"topic\":\"c\","
                       "\"partition\":2}]}"),
            "org.apache.kafka.tools.AdminOperationException: Replica election data contains duplicate partitions: "
            "[a-0, b-1]");
}

std::string tree_text(std::string_view text) {
  json::value v;
  if (!json::read_tree(text, &v)) return "(rejected)";
  return json::to_string(v);
}

TEST(ElectionJson, NodesPrintAsJacksonPrintsThem) {
  EXPECT_EQ(tree_text(R"({"k\"\\\n\u0001é/":"v\t\r\b\f","n":[1.0E-5,-0.0,1e400,0.1,100000.0,1e7,)"
                      R"(123456789012345678901234567890,-5,1E2,2.5e-3,1234567.0,0.001,12345678.9,-0,true,null]})"),
            R"({"k\"\\\n\u0001é/":"v\t\r\b\f","n":[1.0E-5,-0.0,"Infinity",0.1,100000.0,1.0E7,)"
            R"(123456789012345678901234567890,-5,100.0,0.0025,1234567.0,0.001,1.23456789E7,0,true,null]})");
  EXPECT_EQ(tree_text("\"\\u001f\\u00e9\\ud83d\\ude00\""), "\"\\u001Fé😀\"");
  // Double.toString's switch to E notation, and the sign of what overflows.
  EXPECT_EQ(tree_text("[1e-3,9999999.0,-1.5e-7,1e21,-1e400]"), R"([0.001,9999999.0,-1.5E-7,1.0E21,"-Infinity"])");
  // Integers: 64-bit ones, then BigIntegers, as written.
  EXPECT_EQ(tree_text("[18446744073709551615,-9223372036854775808,-99999999999999999999,99999999999999999999]"),
            "[18446744073709551615,-9223372036854775808,-99999999999999999999,99999999999999999999]");
  // A repeated key stays where it first appeared, with its last value.
  EXPECT_EQ(tree_text(R"({"b":1,"a":2,"b":{"c":3}})"), R"({"b":{"c":3},"a":2})");
}

TEST(ElectionJson, NumbersWithinJacksonsLimits) {
  // At most 1000 digits (signs, point and exponent mark aside).
  EXPECT_EQ(tree_text("-" + std::string(1000, '7')), "-" + std::string(1000, '7'));
  EXPECT_EQ(tree_text(std::string(1001, '7')), "(rejected)");
  EXPECT_EQ(tree_text("-1." + std::string(997, '0') + "e-10"), "-1.0E-10");
  EXPECT_EQ(tree_text("-1." + std::string(998, '0') + "e-10"), "(rejected)");
  // A number or a literal at the root, and what may follow it.
  EXPECT_EQ(tree_text("12 x"), "12");
  EXPECT_EQ(tree_text("1.5.3"), "(rejected)");
  EXPECT_EQ(tree_text("00"), "(rejected)");
  EXPECT_EQ(tree_text("true]"), "true");
  EXPECT_EQ(tree_text("null_"), "(rejected)");
}

TEST(ElectionJson, PartitionsInTheOrderOfKafkasSet) {
  std::vector<topic_partition> out;
  failure e;
  ASSERT_TRUE(parse_election_data(R"({"partitions":[{"topic":"ord","partition":3},{"topic":"le","partition":0},)"
                                  R"({"topic":"nope","partition":0},{"topic":"alpha","partition":1},)"
                                  R"({"topic":"le","partition":7},{"topic":"ord","partition":-1}]})",
                                  &out, &e))
      << e.message;
  std::vector<std::string> names;
  for (const auto& tp : out) names.push_back(tp.str());
  // new HashSet<>(list): 16 buckets of TopicPartition.hashCode.
  EXPECT_EQ(names, (std::vector<std::string>{"ord--1", "le-7", "nope-0", "alpha-1", "le-0", "ord-3"}));
}

}  // namespace
}  // namespace hw::tools::election
