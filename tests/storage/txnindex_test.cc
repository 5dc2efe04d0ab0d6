#include <gtest/gtest.h>

#include <thread>

#include "storage/io/faulty_file_system.h"
#include "storage/transaction_index.h"

namespace hw::storage {
namespace {

aborted_txn txn(int64_t pid, int64_t first, int64_t last, int64_t lso) {
  return {producer_id(pid), offset(first), offset(last), offset(lso)};
}

std::string hex(std::span<const uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// Written by Apache Kafka 4.3.1's TransactionIndex for AbortedTxn(7, 10, 20, 5)
// and AbortedTxn(-2, 30, 40, 41).
constexpr std::string_view kafka_txnindex_hex =
    "0000" "0000000000000007" "000000000000000a" "0000000000000014" "0000000000000005"
    "0000" "fffffffffffffffe" "000000000000001e" "0000000000000028" "0000000000000029";

class txnindex_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs.create_directories("/logs/t-0"));
    ASSERT_FALSE(fs.sync_directory("/"));
    ASSERT_FALSE(fs.sync_directory("/logs"));
  }
  std::unique_ptr<transaction_index> open(int64_t base = 0) {
    std::unique_ptr<transaction_index> index;
    auto err = transaction_index::open(fs, path, offset(base), &index);
    EXPECT_FALSE(err) << err.message;
    return index;
  }
  std::string file_hex() {
    std::string content;
    EXPECT_FALSE(read_whole_file(fs, path, &content));
    return hex({reinterpret_cast<const uint8_t*>(content.data()), content.size()});
  }
  std::vector<aborted_txn> all(const transaction_index& index) {
    std::vector<aborted_txn> out;
    EXPECT_FALSE(index.all(&out));
    return out;
  }

  faulty_file_system fs;
  const std::filesystem::path path = "/logs/t-0/00000000000000000000.txnindex";
};

TEST_F(txnindex_test, writes_kafkas_bytes) {
  auto index = open();
  EXPECT_FALSE(fs.exists(path));  // created by the first append, as in Kafka
  ASSERT_FALSE(index->append(txn(7, 10, 20, 5)));
  ASSERT_FALSE(index->append(txn(-2, 30, 40, 41)));
  EXPECT_EQ(file_hex(), kafka_txnindex_hex);
  EXPECT_EQ(encode_aborted_txn(txn(7, 10, 20, 5)).size(), 34u);
}

TEST_F(txnindex_test, reads_kafkas_bytes) {
  std::string bytes;
  for (size_t i = 0; i < kafka_txnindex_hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(std::string(kafka_txnindex_hex.substr(i, 2)), nullptr, 16));
  ASSERT_FALSE(write_file_atomically(fs, path, bytes));
  auto index = open();
  EXPECT_EQ(all(*index), (std::vector<aborted_txn>{txn(7, 10, 20, 5), txn(-2, 30, 40, 41)}));
}

// Kafka 4.3.1 answered collectAbortedTxns(21, 35) with [(-2, 30, 40, 41)], complete,
// and collectAbortedTxns(0, 5) with [], complete (the first entry's LSO 5 reaches 5).
TEST_F(txnindex_test, collect_matches_kafka) {
  auto index = open();
  ASSERT_FALSE(index->append(txn(7, 10, 20, 5)));
  ASSERT_FALSE(index->append(txn(-2, 30, 40, 41)));
  aborted_txn_search s;
  ASSERT_FALSE(index->collect_aborted(offset(21), offset(35), &s));
  EXPECT_EQ(s.aborted, (std::vector<aborted_txn>{txn(-2, 30, 40, 41)}));
  EXPECT_TRUE(s.complete);
  ASSERT_FALSE(index->collect_aborted(offset(0), offset(5), &s));
  EXPECT_TRUE(s.aborted.empty());
  EXPECT_TRUE(s.complete);
}

TEST_F(txnindex_test, collect_finds_overlapping_ranges) {
  auto index = open();
  ASSERT_FALSE(index->append(txn(1, 0, 10, 0)));
  ASSERT_FALSE(index->append(txn(2, 5, 20, 11)));
  ASSERT_FALSE(index->append(txn(3, 25, 30, 21)));
  aborted_txn_search s;
  // [10, 25): txn 1 ends at 10 (inclusive), txn 2 overlaps, txn 3 starts at 25 (excluded).
  ASSERT_FALSE(index->collect_aborted(offset(10), offset(25), &s));
  EXPECT_EQ(s.aborted, (std::vector<aborted_txn>{txn(1, 0, 10, 0), txn(2, 5, 20, 11)}));
  EXPECT_FALSE(s.complete);  // no LSO reached 25: later segments may hold more
  ASSERT_FALSE(index->collect_aborted(offset(11), offset(21), &s));
  EXPECT_EQ(s.aborted, (std::vector<aborted_txn>{txn(2, 5, 20, 11)}));
  EXPECT_TRUE(s.complete);  // txn 3's LSO 21 >= 21
  ASSERT_FALSE(index->collect_aborted(offset(31), offset(100), &s));
  EXPECT_TRUE(s.aborted.empty());
}

TEST_F(txnindex_test, collect_reads_past_one_chunk) {
  auto index = open();
  for (int i = 0; i < 300; ++i) ASSERT_FALSE(index->append(txn(i, i * 10, i * 10 + 5, i * 10)));
  aborted_txn_search s;
  ASSERT_FALSE(index->collect_aborted(offset(2000), offset(2600), &s));
  ASSERT_EQ(s.aborted.size(), 60u);
  EXPECT_EQ(s.aborted.front().id, producer_id(200));
  EXPECT_EQ(s.aborted.back().id, producer_id(259));
  EXPECT_TRUE(s.complete);
}

TEST_F(txnindex_test, truncate_to_drops_entries_ending_at_or_after) {
  auto index = open();
  ASSERT_FALSE(index->append(txn(1, 0, 10, 0)));
  ASSERT_FALSE(index->append(txn(2, 11, 20, 11)));
  ASSERT_FALSE(index->append(txn(3, 21, 30, 21)));
  ASSERT_FALSE(index->truncate_to(offset(31)));
  EXPECT_EQ(index->size(), 3u);
  ASSERT_FALSE(index->truncate_to(offset(20)));
  EXPECT_EQ(all(*index), (std::vector<aborted_txn>{txn(1, 0, 10, 0)}));
  EXPECT_EQ(file_hex().size(), 2 * aborted_txn_size);
  ASSERT_FALSE(index->append(txn(4, 15, 18, 15)));  // appends continue after the new last entry
  EXPECT_EQ(index->size(), 2u);
  ASSERT_FALSE(index->reset());
  EXPECT_TRUE(index->empty());
  EXPECT_EQ(file_hex(), "");
}

TEST_F(txnindex_test, reload_after_flush_and_crash) {
  auto index = open();
  ASSERT_FALSE(index->append(txn(1, 0, 10, 0)));
  ASSERT_FALSE(index->flush());
  ASSERT_FALSE(fs.sync_directory("/logs/t-0"));
  ASSERT_FALSE(index->append(txn(2, 11, 20, 11)));  // not flushed
  fs.crash();
  index = open();
  EXPECT_EQ(all(*index), (std::vector<aborted_txn>{txn(1, 0, 10, 0)}));
}

TEST_F(txnindex_test, load_drops_a_torn_tail) {
  auto bytes = encode_aborted_txn(txn(1, 0, 10, 0));
  std::string content(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  content += content.substr(0, 20);  // an append cut short
  ASSERT_FALSE(write_file_atomically(fs, path, content));
  auto index = open();
  EXPECT_EQ(index->size(), 1u);
  EXPECT_EQ(file_hex().size(), 2 * aborted_txn_size);
  ASSERT_FALSE(index->append(txn(2, 11, 20, 11)));
  index = open();
  EXPECT_EQ(index->size(), 2u);
}

TEST_F(txnindex_test, load_rejects_corrupt_entries) {
  auto write = [&](std::vector<aborted_txn> entries, int16_t version = 0) {
    std::string content;
    for (const auto& t : entries) {
      auto b = encode_aborted_txn(t);
      b[0] = static_cast<uint8_t>(version >> 8);
      b[1] = static_cast<uint8_t>(version);
      content.append(reinterpret_cast<const char*>(b.data()), b.size());
    }
    ASSERT_FALSE(write_file_atomically(fs, path, content));
  };
  std::unique_ptr<transaction_index> index;

  write({txn(1, 0, 10, 0)}, /*version=*/1);
  auto err = transaction_index::open(fs, path, offset(0), &index);
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find(path.string()), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("entry 0"), std::string::npos) << err.message;

  write({txn(1, 0, 10, 0), txn(2, 0, 10, 0)});
  err = transaction_index::open(fs, path, offset(0), &index);
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find("entry 1"), std::string::npos) << err.message;

  write({txn(1, 0, 10, 0)});
  EXPECT_EQ(transaction_index::open(fs, path, offset(100), &index).code, storage_errc::malformed);  // below base
}

TEST_F(txnindex_test, readers_see_a_consistent_prefix_while_the_writer_appends) {
  auto index = open();
  constexpr size_t total = 2000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (size_t i = 0; i < total; ++i) {
      auto t = txn(static_cast<int64_t>(i), static_cast<int64_t>(i * 2), static_cast<int64_t>(i * 2 + 1), 0);
      if (index->append(t)) break;
    }
    done = true;
  });
  size_t seen = 0;
  bool finished = false;
  while (!finished) {
    finished = done.load();  // read once more after the writer is done
    aborted_txn_search s;
    bool ok = !index->collect_aborted(offset(0), offset(INT64_MAX), &s) && s.aborted.size() >= seen;  // never goes back
    for (size_t i = seen; ok && i < s.aborted.size(); ++i) ok = s.aborted[i].id == producer_id(static_cast<int64_t>(i));
    EXPECT_TRUE(ok) << "after " << seen << " entries";
    if (!ok) break;
    seen = s.aborted.size();
  }
  writer.join();
  EXPECT_EQ(seen, total);
}

TEST_F(txnindex_test, io_errors_name_the_file) {
  auto index = open();
  fs.set_space_left(10);
  auto err = index->append(txn(1, 0, 10, 0));
  EXPECT_EQ(err.code, std::errc::no_space_on_device);
  EXPECT_NE(err.message.find(path.string()), std::string::npos) << err.message;
  fs.clear_space_limit();
  fs.fail_syncs(true);
  EXPECT_EQ(index->flush().code, std::errc::io_error);
}

}  // namespace
}  // namespace hw::storage
