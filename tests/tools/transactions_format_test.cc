// kafka-transactions.sh's tables and the Java orders behind them, against
// what Kafka 4.3.1's TransactionsCommand printed.

#include <gtest/gtest.h>

#include <algorithm>

#include "tools/commands/transactions.h"

namespace hw::tools::txn {
namespace {

TEST(TransactionsFormat, ListTableAsKafkaPrintsIt) {
  std::map<int32_t, std::vector<transaction_listing>> by_broker;
  by_broker[1] = {{"open-tx-1", 2, "Ongoing"},
                  {"aborted-one", 1, "CompleteAbort"},
                  {"open-2", 3, "Ongoing"},
                  {"committed-one", 0, "CompleteCommit"}};
  EXPECT_EQ(pretty_table(k_list_headers, listing_rows(by_broker)),
            "TransactionalId\tCoordinator\tProducerId\tTransactionState\t\n"
            "open-tx-1      \t1          \t2         \tOngoing         \t\n"
            "aborted-one    \t1          \t1         \tCompleteAbort   \t\n"
            "open-2         \t1          \t3         \tOngoing         \t\n"
            "committed-one  \t1          \t0         \tCompleteCommit  \t\n");
  EXPECT_EQ(pretty_table(k_list_headers, {}), "TransactionalId\tCoordinator\tProducerId\tTransactionState\t\n");
}

TEST(TransactionsFormat, ListRowsByBrokerInHashMapOrder) {
  // Integer keys: by value modulo the table's size (16), then as put.
  std::map<int32_t, std::vector<transaction_listing>> by_broker;
  by_broker[17] = {{"b", 2, "Empty"}};
  by_broker[3] = {{"a", 1, "Empty"}};
  by_broker[1] = {{"c", 3, "Empty"}};
  auto rows = listing_rows(by_broker);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1], "1");
  EXPECT_EQ(rows[1][1], "17");
  EXPECT_EQ(rows[2][1], "3");
}

TEST(TransactionsFormat, DescribeRowWithItsPartitionsInHashSetOrder) {
  transaction_description d{1, "Ongoing", 2, 0, 900000, 1796370113323, {}};
  d.partitions = {{"alpha", 0}, {"alpha", 2}, {"beta", 1}, {"gamma-long-topic-name", 0}};
  EXPECT_EQ(pretty_table(k_describe_headers, {description_row("open-tx-1", d, 1796370113323 + 8147)}),
            "CoordinatorId\tTransactionalId\tProducerId\tProducerEpoch\tTransactionState\tTransactionTimeoutMs\t"
            "CurrentTransactionStartTimeMs\tTransactionDurationMs\tTopicPartitions                               \t\n"
            "1            \topen-tx-1      \t2         \t0            \tOngoing         \t900000              \t"
            "1796370113323                \t8147                 \talpha-2,alpha-0,gamma-long-topic-name-0,beta-1\t\n");
  // Whatever order the coordinator named them in.
  std::reverse(d.partitions.begin(), d.partitions.end());
  EXPECT_EQ(description_row("open-tx-1", d, 0)[8], "alpha-2,alpha-0,gamma-long-topic-name-0,beta-1");
  transaction_description empty{1, "Empty", 4, 0, 30000, std::nullopt, {}};
  auto row = description_row("x", empty, 5);
  EXPECT_EQ(row[6], "None");
  EXPECT_EQ(row[7], "None");
  EXPECT_EQ(row[8], "");
}

TEST(TransactionsFormat, ProducerRows) {
  producer_state done{0, 0, 0, 1796370112893, 0, std::nullopt};
  producer_state open{2, 0, 0, 1796370113321, std::nullopt, 2};
  EXPECT_EQ(pretty_table(k_producer_headers, {producer_row(done), producer_row(open)}),
            "ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\t"
            "CurrentTransactionStartOffset\t\n"
            "0         \t0            \t0                     \t0           \t1796370112893\tNone                         \t\n"
            "2         \t0            \t-1                    \t0           \t1796370113321\t2                            \t\n");
}

TEST(TransactionsFormat, HangingRowCountsWholeMinutes) {
  producer_state p{4242, 0, 2, 1700000000002, std::nullopt, 0};
  EXPECT_EQ(hanging_row({"hanging", 0}, p, 1700000000002 + 3 * 60000 - 1),
            (table_row{"hanging", "0", "4242", "0", "-1", "0", "1700000000002", "2"}));
}

TEST(TransactionsFormat, StateNames) {
  EXPECT_EQ(state_name("PrepareEpochFence"), "PrepareEpochFence");
  EXPECT_EQ(state_name("Dead"), "Unknown");
}

TEST(TransactionsFormat, AbortSpecAsJavaPrintsIt) {
  EXPECT_EQ(to_string(abort_spec{{"t", 3}, 5, 1, 0}),
            "AbortTransactionSpec(topicPartition=t-3, producerId=5, producerEpoch=1, coordinatorEpoch=0)");
}

TEST(TransactionsFormat, ProducerIdsInTheOrderOfComputeIfAbsent) {
  // What Kafka 4.3.1's groupByProducerId gave for producers met in this
  // order: 2^32 + 1 and 0 both hash to 0, and computeIfAbsent puts the
  // newer key first in its bin.
  EXPECT_EQ(long_key_order({4294967297LL, 0, 4242}), (std::vector<int64_t>{0, 4294967297LL, 4242}));
  EXPECT_EQ(long_key_order({3, 4294967296LL, 1, 2}), (std::vector<int64_t>{1, 4294967296LL, 2, 3}));
  EXPECT_EQ(long_key_order({20, 4}), (std::vector<int64_t>{4, 20}));
}

TEST(TransactionsFormat, ProducersResultInTheOrderOfAMapSizedForThem) {
  // The last HashMap is new HashMap<>(4): 8 buckets once it holds 4, where
  // alpha-0 and beta-1 share one (in the order of the HashSet before).
  std::vector<topic_partition> asked{{"beta", 1}, {"alpha", 0}, {"alpha", 2}, {"gamma-long-topic-name", 0}};
  EXPECT_EQ(producers_result_order(asked),
            (std::vector<topic_partition>{{"gamma-long-topic-name", 0}, {"alpha", 2}, {"alpha", 0}, {"beta", 1}}));
  EXPECT_EQ(hash_set_order(asked),
            (std::vector<topic_partition>{{"alpha", 2}, {"alpha", 0}, {"gamma-long-topic-name", 0}, {"beta", 1}}));
}

TEST(TransactionsFormat, DescribedTopicsInKafkasOrder) {
  // As Kafka 4.3.1's admin client iterated describeTopics' result.
  EXPECT_EQ(described_topics_order({"hang-a", "hang-b", "__transaction_state", "hang-c"}),
            (std::vector<std::string>{"hang-c", "hang-a", "hang-b", "__transaction_state"}));
}

}  // namespace
}  // namespace hw::tools::txn
