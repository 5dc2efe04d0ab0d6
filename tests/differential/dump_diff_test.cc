// Unit tests of the differential machinery without brokers: the generated
// dumps (protocol/messages/testing/dump.h) and their comparison
// (dump_diff.h). Run with the unit tests (label unit).

#include <gtest/gtest.h>

#include <algorithm>

#include "dump_diff.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/testing/dump.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/writer.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using R = allowed::rule;

template <class M>
dump_lines dump_of(int16_t key, int16_t version, const M& m) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  m.encode(w, version);
  dump_lines out;
  std::string error;
  EXPECT_TRUE(protocol::testing::dump_response(key, version, body, out, &error)) << error;
  return out;
}

std::string value_at(const dump_lines& lines, const std::string& path) {
  auto it = std::find_if(lines.begin(), lines.end(), [&](const dump_line& l) { return l.path == path; });
  return it == lines.end() ? "(absent)" : it->value;
}

TEST(DumpDiffTest, PathPatterns) {
  EXPECT_TRUE(path_matches("*topic_id", "topics[3].topic_id"));
  EXPECT_TRUE(path_matches("*topic_id", "topic_id"));
  EXPECT_TRUE(path_matches("brokers[*].port", "brokers[12].port"));
  EXPECT_FALSE(path_matches("brokers[*].port", "brokers[1].host"));
  EXPECT_TRUE(path_matches("api_keys*", "api_keys[4].max_version"));
  EXPECT_FALSE(path_matches("cluster_id", "cluster_id2"));
  EXPECT_TRUE(path_matches("a*b*c", "a.x.b.y.c"));
}

TEST(DumpDiffTest, ProduceResponseFieldsByPath) {
  msg::produce_response r;
  msg::produce_response::topic_produce_response t;
  t.name = "orders";
  msg::produce_response::partition_produce_response p;
  p.index = 0;
  p.error_code = 87;
  p.base_offset = -1;
  p.error_message.reset();
  for (int i : {0, 2}) {
    msg::produce_response::batch_index_and_error_message e;
    e.batch_index = i;
    e.batch_index_error_message = "no key";
    p.record_errors.push_back(e);
  }
  t.partition_responses.push_back(p);
  r.responses.push_back(t);
  auto lines = dump_of(0, 9, r);
  EXPECT_EQ(value_at(lines, "responses"), "[1]");
  EXPECT_EQ(value_at(lines, "responses[0].name"), "\"orders\"");
  EXPECT_EQ(value_at(lines, "responses[0].partition_responses[0].error_code"), "87");
  EXPECT_EQ(value_at(lines, "responses[0].partition_responses[0].error_message"), "null");
  EXPECT_EQ(value_at(lines, "responses[0].partition_responses[0].record_errors"), "[2]");
  EXPECT_EQ(value_at(lines, "responses[0].partition_responses[0].record_errors[1].batch_index"), "2");
  // Fields a version does not have are not listed.
  EXPECT_EQ(value_at(lines, "responses[0].topic_id"), "(absent)");
  EXPECT_NE(value_at(dump_of(0, 13, r), "responses[0].topic_id"), "(absent)");
}

TEST(DumpDiffTest, RecordsAsBatchesAndRecords) {
  protocol::record_batch_options o;
  o.base_offset = 3;
  protocol::record_batch_builder b(o);
  const std::string v = "ab";
  b.append(1000, std::nullopt, protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  b.append(1005, std::nullopt, std::nullopt);
  const auto batch = b.finish();
  msg::fetch_response r;
  msg::fetch_response::fetchable_topic_response t;
  t.topic = "t";
  msg::fetch_response::partition_data with, without;
  with.records = protocol::records_view(protocol::bytes_view(batch));
  without.partition_index = 1;
  t.partitions = {with, without};
  r.responses.push_back(t);
  auto lines = dump_of(1, 12, r);
  const std::string p = "responses[0].partitions[0].records";
  EXPECT_EQ(value_at(lines, p), "<" + std::to_string(batch.size()) + " bytes>");
  EXPECT_EQ(value_at(lines, p + ".batches"), "1");
  EXPECT_EQ(value_at(lines, p + ".batch[0].base_offset"), "3");
  EXPECT_EQ(value_at(lines, p + ".batch[0].record_count"), "2");
  EXPECT_EQ(value_at(lines, p + ".batch[0].crc_ok"), "true");
  EXPECT_EQ(value_at(lines, p + ".batch[0].record[0].value"), "0x6162 (2 bytes)");
  EXPECT_EQ(value_at(lines, p + ".batch[0].record[1].value"), "null");
  EXPECT_EQ(value_at(lines, p + ".batch[0].record[1].timestamp_delta"), "5");
  EXPECT_EQ(value_at(lines, "responses[0].partitions[1].records"), "null");
  // A batch cut short (a byte limit) shows as a partial tail.
  with.records = protocol::records_view(protocol::bytes_view(batch.data(), batch.size() - 4));
  t.partitions = {with};
  r.responses = {t};
  lines = dump_of(1, 12, r);
  EXPECT_EQ(value_at(lines, p + ".batches"), "0");
  EXPECT_EQ(value_at(lines, p + ".partial_tail_bytes"), std::to_string(batch.size() - 4));
}

TEST(DumpDiffTest, UndecodableBodyIsRefused) {
  dump_lines out;
  std::string error;
  const std::vector<uint8_t> junk = {1, 2, 3};
  EXPECT_FALSE(protocol::testing::dump_response(1, 12, junk, out, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(protocol::testing::dump_response(0, 2, junk, out, &error)) << "below the schema's versions";
  EXPECT_FALSE(protocol::testing::dump_response(999, 0, junk, out, &error));
}

TEST(DumpDiffTest, DefaultRequestsDecode) {
  std::vector<uint8_t> body;
  ASSERT_TRUE(protocol::testing::default_request(18, 3, body));
  dump_lines out;
  EXPECT_TRUE(protocol::testing::dump_request(18, 3, body, out));
  EXPECT_EQ(value_at(out, "client_software_name"), "\"\"");
  EXPECT_FALSE(protocol::testing::default_request(0, 2, body)) << "Produce v2 is below the schema";
}

TEST(DumpDiffTest, CompareRules) {
  const dump_lines kafka = {{"a", "1"}, {"msg", "null"}, {"id", "\"x\""}, {"only_k", "7"}, {"port", "9092"}};
  const dump_lines hw = {{"a", "2"}, {"msg", "\"text\""}, {"id", "\"y\""}, {"only_h", "8"}, {"port", "1234"}};
  auto diffs = compare(kafka, hw, {{"port", R::any_value, ""}});
  ASSERT_EQ(diffs.size(), 5u);  // a, msg, id, only_k, only_h
  EXPECT_EQ(diffs[0].path, "a");
  EXPECT_EQ(diffs[3].highwater, "(absent)");
  EXPECT_EQ(diffs[4].kafka, "(absent)");
  diffs = compare(kafka, hw,
                  {{"a", R::any_value, ""}, {"msg", R::same_nullness, ""}, {"id", R::same_emptiness, ""},
                   {"only_*", R::may_be_absent, ""}, {"port", R::any_value, ""}});
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "msg") << "null against a text is a difference under same_nullness";
  // The first matching pattern decides.
  diffs = compare({{"x", "1"}}, {{"x", "2"}}, {{"x", R::same_nullness, ""}, {"*", R::any_value, ""}});
  EXPECT_TRUE(diffs.empty());
  diffs = compare({{"e", "\"\""}}, {{"e", "\"m\""}}, {{"e", R::same_emptiness, ""}});
  EXPECT_EQ(diffs.size(), 1u);
}

}  // namespace
}  // namespace hw::testing::differential
