#include "broker/txn/txn_records.h"

#include <gtest/gtest.h>

namespace hw::broker::txn {
namespace {

txn_transit ongoing_transit() {
  txn_transit t;
  t.producer_id = 4000;
  t.prev_producer_id = 3999;
  t.next_producer_id = 4001;
  t.producer_epoch = 7;
  t.timeout_ms = 60000;
  t.state = txn_state::ongoing;
  t.partitions = {{"orders", 2}, {"audit", 0}, {"orders", 0}};
  t.start_ms = 1700000000000;
  t.last_update_ms = 1700000000500;
  t.client_version = 2;
  return t;
}

std::vector<uint8_t> from_hex(std::string_view hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

// Bytes Kafka 4.3.1 writes (TransactionLog.keyToBytes / valueToBytes, run
// in jshell against its jars) for the same transitions.
TEST(TxnRecords, BytesAreKafkas) {
  txn_transit t = ongoing_transit();
  t.partitions = {{"orders", 2}};
  auto r = transit_record("app-1", t, 2);
  EXPECT_EQ(r.key, from_hex("000000056170702d31"));
  EXPECT_EQ(*r.value, from_hex("00010000000000000fa000070000ea600102076f72646572730200000002000000018bcfe569f40000018bcfe5"
                               "68000300080000000000000f9f01080000000000000fa102020002"));

  t.state = txn_state::prepare_commit;
  t.client_version = 0;
  EXPECT_EQ(*transit_record("app-1", t, 0).value,
            from_hex("00000000000000000fa000070000ea60020000000100066f726465727300000001000000020000018bcfe569f40000018b"
                     "cfe56800"));

  txn_transit e;
  e.producer_id = 4000;
  e.producer_epoch = 0;
  e.timeout_ms = 60000;
  e.state = txn_state::empty;
  e.last_update_ms = 1700000000500;
  EXPECT_EQ(*transit_record("app-1", e, 2).value,
            from_hex("00010000000000000fa000000000ea6000000000018bcfe569f4ffffffffffffffff00"));
}

TEST(TxnRecords, KeyIsVersionZeroAndTheId) {
  auto r = transit_record("app-1", ongoing_transit(), 2);
  // int16 version 0, then the id as an int16-length string.
  const std::vector<uint8_t> key = {0, 0, 0, 5, 'a', 'p', 'p', '-', '1'};
  EXPECT_EQ(r.key, key);
  ASSERT_TRUE(r.value);
  EXPECT_EQ((*r.value)[0], 0);
  EXPECT_EQ((*r.value)[1], 1) << "value v1 from transaction.version 1 on";
}

TEST(TxnRecords, VersionOneKeepsEveryField) {
  const auto t = ongoing_transit();
  auto r = transit_record("app-1", t, 2);
  std::string error;
  auto back = decode_txn_record(r.key, std::span<const uint8_t>(*r.value), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->transactional_id, "app-1");
  ASSERT_TRUE(back->value);
  txn_transit expected = t;
  expected.last_producer_epoch = k_no_producer_epoch;  // never stored
  EXPECT_EQ(*back->value, expected);
}

TEST(TxnRecords, VersionZeroHasNoTaggedFields) {
  const auto t = ongoing_transit();
  auto r = transit_record("app-1", t, 0);
  ASSERT_TRUE(r.value);
  EXPECT_EQ((*r.value)[1], 0);
  auto back = decode_txn_record(r.key, std::span<const uint8_t>(*r.value));
  ASSERT_TRUE(back && back->value);
  EXPECT_EQ(back->value->prev_producer_id, k_no_producer_id);
  EXPECT_EQ(back->value->next_producer_id, k_no_producer_id);
  EXPECT_EQ(back->value->client_version, 0);
  EXPECT_EQ(back->value->partitions, t.partitions);
  EXPECT_LT(r.value->size(), transit_record("app-1", t, 1).value->size());
}

TEST(TxnRecords, EmptyCarriesNullPartitionsAndATombstoneNoValue) {
  txn_transit t;
  t.producer_id = 5;
  t.producer_epoch = 0;
  t.timeout_ms = 1000;
  t.state = txn_state::empty;
  auto r = transit_record("x", t, 1);
  auto back = decode_txn_record(r.key, std::span<const uint8_t>(*r.value));
  ASSERT_TRUE(back && back->value);
  EXPECT_TRUE(back->value->partitions.empty());
  EXPECT_EQ(back->value->state, txn_state::empty);

  auto gone = tombstone_record("x");
  EXPECT_EQ(gone.key, r.key);
  EXPECT_FALSE(gone.value);
  auto decoded = decode_txn_record(gone.key, std::nullopt);
  ASSERT_TRUE(decoded);
  EXPECT_FALSE(decoded->value);
}

TEST(TxnRecords, MalformedRecordsAreRefusedWithTheReason) {
  auto r = transit_record("app-1", ongoing_transit(), 1);
  std::string error;
  const std::vector<uint8_t> bad_key = {0, 1, 0, 1, 'a'};
  EXPECT_FALSE(decode_txn_record(bad_key, std::nullopt, &error));
  EXPECT_NE(error.find("TransactionLogKey"), std::string::npos) << error;

  std::vector<uint8_t> truncated(r.value->begin(), r.value->end() - 3);
  EXPECT_FALSE(decode_txn_record(r.key, std::span<const uint8_t>(truncated), &error));
  EXPECT_NE(error.find("app-1"), std::string::npos) << error;

  std::vector<uint8_t> unknown_state = *transit_record("app-1", ongoing_transit(), 0).value;
  // v0 layout: version(2) producer id(8) epoch(2) timeout(4) status(1).
  unknown_state[2 + 8 + 2 + 4] = 9;
  EXPECT_FALSE(decode_txn_record(r.key, std::span<const uint8_t>(unknown_state), &error));
  EXPECT_NE(error.find("unknown transaction status 9"), std::string::npos) << error;
}

}  // namespace
}  // namespace hw::broker::txn
