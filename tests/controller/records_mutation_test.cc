// Damaged record values never crash the decoder: every byte flip and
// truncation of real records either decodes to something that re-encodes
// consistently or is refused with a reason.

#include <gtest/gtest.h>

#include <random>

#include "controller/metadata/records.h"

namespace hw::controller {
namespace {

std::vector<metadata_record> samples() {
  msg::partition_record p;
  p.topic_id.bytes[3] = 9;
  p.partition_id = 4;
  p.replicas = {1, 2, 3};
  p.isr = {1, 2};
  p.leader = 1;
  p.eligible_leader_replicas = std::vector<int32_t>{3};
  p.directories = {protocol::uuid{}, protocol::uuid{}, protocol::uuid{}};
  msg::register_broker_record b;
  b.broker_id = 7;
  b.end_points.push_back({"PLAINTEXT", "host", 9092, 0, {}});
  b.features.push_back({"metadata.version", 7, 30, {}});
  b.log_dirs = {protocol::uuid{}};
  b.cordoned_log_dirs = std::vector<protocol::uuid>{};
  msg::config_record c;
  c.resource_type = 2;
  c.resource_name = "t";
  c.name = "retention.ms";
  c.value = "1000";
  msg::partition_change_record change;
  change.isr = std::vector<int32_t>{1};
  change.leader = 1;
  change.last_known_elr = std::vector<int32_t>{};
  return {p, b, c, change, msg::clear_elr_record{"x", {}}, msg::producer_ids_record{1, 2, 3000, {}}};
}

TEST(RecordsMutation, FlippedAndTruncatedValuesAreSafe) {
  std::mt19937_64 rng(7);
  size_t refused = 0;
  size_t decoded = 0;
  for (const auto& sample : samples()) {
    std::vector<uint8_t> good = encode_record_value(sample);
    for (int round = 0; round < 2000; ++round) {
      std::vector<uint8_t> bad = good;
      if (round % 3 == 0) {
        bad.resize(rng() % bad.size());
      } else {
        size_t flips = 1 + rng() % 3;
        for (size_t i = 0; i < flips; ++i) bad[rng() % bad.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      }
      metadata_record out;
      std::string error;
      int16_t version = -1;
      if (!decode_record_value(bad, &out, &error, &version)) {
        EXPECT_FALSE(error.empty());
        ++refused;
        continue;
      }
      ++decoded;
      metadata_record again;
      ASSERT_TRUE(decode_record_value(encode_record_value(out, version), &again, &error)) << error;
      EXPECT_EQ(encode_record_value(again, version), encode_record_value(out, version));
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(decoded, 0u);
}

TEST(RecordsMutation, RandomBytesAreRefusedOrDecoded) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    if (!bytes.empty()) bytes[0] = 1;  // get past the frame version most of the time
    metadata_record out;
    std::string error;
    if (!decode_record_value(bytes, &out, &error)) {
      EXPECT_FALSE(error.empty());
    }
  }
}

}  // namespace
}  // namespace hw::controller
