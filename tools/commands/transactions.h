#pragma once
// kafka-transactions.sh (Kafka's TransactionsCommand): the transactional
// state of producers, and the repair of hanging transactions.
//
//   transactions.cc          the tool's entry: the command line, the admin
//                            client, one function per sub-command
//   transactions_cli.cc      the argparse4j-style parsers and help screens
//   transactions_client.cc   the admin calls as Kafka's admin client makes
//                            them, with its retries and its exception
//                            messages: ListTransactions to every broker,
//                            DescribeTransactions and InitProducerId to the
//                            coordinator
//   transactions_leaders.cc  DescribeProducers and WriteTxnMarkers to a
//                            partition's leader (or a named broker), and
//                            the topics find-hanging searches (Metadata)
//   transactions_hanging.cc  find-hanging: open transactions their
//                            coordinator does not know of
//   transactions_format.cc   the tables (ToolsUtils.prettyPrintTable), the
//                            rows, and the Java orders they come in

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/cli/argparse.h"
#include "tools/commands/command.h"

namespace hw::tools::txn {

using property_list = std::vector<std::pair<std::string, std::string>>;

// ---- command line (transactions_cli.cc) ----

// The parser with Kafka's options and sub-commands, our own help screens.
cli::arg_parser transactions_parser();

// What -v/--version prints (Kafka's PrintVersionAndExitAction: the
// release and the commit it was built from).
std::string version_line();

// ---- the model ----

struct topic_partition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const topic_partition&) const = default;
};
// TopicPartition.toString: "topic-partition".
std::string to_string(const topic_partition& tp);

// One producer of a partition, as DescribeProducers describes it (negative
// coordinator epoch and start offset: none).
struct producer_state {
  int64_t producer_id = 0;
  int32_t producer_epoch = 0;
  int32_t last_sequence = -1;
  int64_t last_timestamp = -1;
  std::optional<int32_t> coordinator_epoch;
  std::optional<int64_t> txn_start_offset;
};

struct transaction_listing {
  std::string transactional_id;
  int64_t producer_id = 0;
  std::string state;  // as Kafka's TransactionState prints it
};

struct transaction_description {
  int32_t coordinator_id = -1;
  std::string state;  // as Kafka's TransactionState prints it
  int64_t producer_id = 0;
  int32_t producer_epoch = 0;
  int64_t timeout_ms = 0;
  std::optional<int64_t> start_time_ms;
  std::vector<topic_partition> partitions;  // in the response's order
};

// AbortTransactionSpec: the marker the abort writes.
struct abort_spec {
  topic_partition partition;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t coordinator_epoch = 0;
};
// AbortTransactionSpec.toString.
std::string to_string(const abort_spec& spec);

// Why an admin call failed: the message of the exception Kafka's admin
// client fails the call with, and the error code behind it (-1: none).
struct call_error {
  std::string message;
  int16_t code = -1;
};

// ---- output (transactions_format.cc) ----

using table_row = std::vector<std::string>;

// ToolsUtils.prettyPrintTable: every cell padded to its column's widest
// (in UTF-16 units, as Java counts), each followed by a tab.
std::string pretty_table(const table_row& headers, const std::vector<table_row>& rows);

// TransactionState.parse(name).toString(): Kafka's state names, anything
// else "Unknown".
std::string state_name(const std::string& broker_state);

// The rows of each table.
extern const table_row k_list_headers;
extern const table_row k_describe_headers;
extern const table_row k_producer_headers;
extern const table_row k_hanging_headers;
table_row producer_row(const producer_state& p);
table_row description_row(const std::string& transactional_id, const transaction_description& d, int64_t now_ms);
table_row hanging_row(const topic_partition& tp, const producer_state& p, int64_t now_ms);
// The list's rows: brokers in the order of the HashMap Kafka's admin
// client collects them in, each broker's listings in its response's order.
std::vector<table_row> listing_rows(const std::map<int32_t, std::vector<transaction_listing>>& by_broker);

// The iteration order of a HashSet<TopicPartition> filled in this order.
std::vector<topic_partition> hash_set_order(const std::vector<topic_partition>& inserted);
// DescribeProducersResult.all()'s map of the partitions asked, in its
// iteration order (copied into a HashMap sized for them).
std::vector<topic_partition> producers_result_order(const std::vector<topic_partition>& asked);
// describeTopics(names).allTopicNames()'s map, in its iteration order.
std::vector<std::string> described_topics_order(const std::vector<std::string>& asked);
// The iteration order of a HashMap<Long, ...> whose keys were added in
// this order by computeIfAbsent.
std::vector<int64_t> long_key_order(const std::vector<int64_t>& inserted);

// ---- the admin calls (transactions_client.cc) ----

struct list_filters {
  std::optional<int64_t> duration_ms;
  std::optional<std::string> transactional_id_pattern;
  std::vector<int64_t> producer_ids;
};

// The calls Kafka's admin client makes for the tool, each to the node
// Kafka's would send it to, retried as Kafka's retries it until its own
// default.api.timeout.ms deadline (transactions_client.cc; those to a
// partition's leader in transactions_leaders.cc).
class txn_client {
 public:
  txn_client(std::string bootstrap, property_list props);

  // ListTransactions to every broker (allByBrokerId).
  bool list_transactions(const list_filters& filters, std::map<int32_t, std::vector<transaction_listing>>* out,
                         call_error* error);
  // DescribeTransactions to the id's coordinator.
  bool describe_transaction(const std::string& transactional_id, transaction_description* out, call_error* error);
  // DescribeProducers to each partition's leader, or to broker_id.
  using producers_result = std::map<topic_partition, std::pair<std::vector<producer_state>, std::optional<call_error>>>;
  void describe_producers(const std::vector<topic_partition>& partitions, std::optional<int32_t> broker_id,
                          producers_result* out);
  // WriteTxnMarkers (an abort marker) to the partition's leader.
  bool abort_transaction(const abort_spec& spec, call_error* error);
  // InitProducerId for the id, to its coordinator (fenceProducers).
  bool fence_producer(const std::string& transactional_id, call_error* error);
  // Metadata: the names of all topics, internal ones too (as find-hanging
  // lists them: ListTopicsOptions.listInternal(true)).
  bool list_topics(std::vector<std::string>* out, call_error* error);
  // Metadata of these topics: each one's partitions and their replicas.
  using topic_partitions = std::vector<std::pair<int32_t, std::vector<int32_t>>>;
  bool describe_topics(const std::vector<std::string>& topics, std::map<std::string, topic_partitions>* out,
                       call_error* error);

 private:
  // An admin client for one call, connected (or the call's timeout).
  std::unique_ptr<admin_client> start(const std::string& call, call_error* error) const;
  // FindCoordinator for a transactional id (CoordinatorStrategy).
  bool find_coordinator(admin_client& admin, const std::string& id, const std::string& call, int32_t* node,
                        call_error* error) const;

  std::string bootstrap_;
  property_list props_;
  int32_t request_timeout_ms_ = 30000;
};

// How Kafka's admin client gives up on a call at its deadline: when the
// node could not be reached (or found), and when it kept answering
// without completing the call (a lookup retried until the deadline).
call_error node_assignment_timeout(const std::string& call);
call_error attempts_timeout(const std::string& call, const admin_client& admin, int tries);

// Kafka's Admin.create checks made before any command runs: the bootstrap
// addresses and the timeouts; false with what Java prints (the exception
// Kafka's tool dies with).
bool check_admin_config(const std::string& bootstrap, const property_list& props, std::string* error);

// ---- find-hanging (transactions_hanging.cc) ----

struct hanging_search {
  std::optional<int32_t> broker_id;
  std::optional<std::string> topic;
  std::optional<int32_t> partition;
  int32_t max_transaction_timeout_min = 15;
};
int find_hanging(txn_client& client, const hanging_search& search, tool_io io);

// printErrorAndExit(message, cause): the message, the cause's message, a
// hint; exit status 1.
int fail(tool_io io, const std::string& message, const call_error& cause);
// printErrorAndExit(message).
int fail(tool_io io, const std::string& message);

// System.currentTimeMillis().
int64_t now_ms();

}  // namespace hw::tools::txn
