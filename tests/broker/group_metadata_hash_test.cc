// Consumer groups' metadata hash against the values Kafka 4.3.1 wrote in
// ConsumerGroupMetadata records (fixtures/consumer_group_records_4_3.txt):
// the group's subscribed topics at each epoch, with their ids from the same
// records, one broker without a rack.
#include "broker/group/consumer/metadata_hash.h"

#include <gtest/gtest.h>

namespace hw::broker::group::consumer {
namespace {

protocol::uuid id_of(const std::string& hex) {
  protocol::uuid id;
  for (size_t i = 0; i < 16; ++i) id.bytes[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

int64_t hash_of(const std::vector<std::string>& names) {
  const std::map<std::string, topic_shape> topics = {
      {"cap-a", {id_of("57aa9ebbab90454a88a461878b82b604"), "cap-a", 3, {}}},
      {"cap-b", {id_of("b57cd84540ea4f199734ad351e2ee4cf"), "cap-b", 2, {}}},
      {"cap-c", {id_of("64124e9a041c4845bd8f949905ceb1cf"), "cap-c", 1, {}}},
      {"other", {id_of("ea7580e9d36443358c86be6156bd0459"), "other", 1, {}}},
  };
  std::map<std::string, int64_t> hashes;
  for (const auto& n : names) hashes[n] = topic_hash(topics.at(n));
  return group_metadata_hash(hashes);
}

TEST(MetadataHash, KafkasGroupHashes) {
  EXPECT_EQ(static_cast<uint64_t>(hash_of({"cap-a", "cap-b"})), 0x6d4f4a548334029dULL);
  EXPECT_EQ(static_cast<uint64_t>(hash_of({"cap-a", "cap-b", "other"})), 0x2eb48c26a701e409ULL);
  EXPECT_EQ(static_cast<uint64_t>(hash_of({"cap-a", "cap-b", "cap-c", "other"})), 0x32d31935f260b258ULL);
  EXPECT_EQ(static_cast<uint64_t>(hash_of({"cap-b", "other"})), 0x19a79a3a6aee36bdULL);
  EXPECT_EQ(hash_of({}), 0);
}

TEST(MetadataHash, ChangesWithWhatAssignmentsDependOn) {
  topic_shape t{id_of("57aa9ebbab90454a88a461878b82b604"), "cap-a", 3, {}};
  const int64_t base = topic_hash(t);
  auto more = t;
  more.partitions = 4;
  EXPECT_NE(topic_hash(more), base);
  auto renamed = t;
  renamed.name = "cap-z";
  EXPECT_NE(topic_hash(renamed), base);
  auto racked = t;
  racked.racks = {{"r2", "r1"}, {}, {}};
  auto reordered = t;
  reordered.racks = {{"r1", "r2"}, {}, {}};
  EXPECT_NE(topic_hash(racked), base);
  EXPECT_EQ(topic_hash(racked), topic_hash(reordered));  // racks are sorted first
}

}  // namespace
}  // namespace hw::broker::group::consumer
