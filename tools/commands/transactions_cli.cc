// kafka-transactions.sh's command line: TransactionsCommand's argparse4j
// parsers (Kafka's options, sub-commands and usage lines), with our own
// help screens laid out as argparse4j lays them out 75 columns wide.

#include "tools/commands/transactions.h"

namespace hw::tools::txn {
namespace {

constexpr const char* k_main_help =
    R"(usage: kafka-transactions.sh [-h] [-v] [--command-config FILE]
                             --bootstrap-server host:port COMMAND ...

Inspect the transactions of a cluster's producers, and find and repair
transactions that nothing will ever finish.

optional arguments:
  -h, --help             Print this help screen and exit.
  -v, --version          Print the Kafka release these tools match and
                         exit.
  --command-config FILE  Properties file with settings for the admin
                         client.
  --bootstrap-server host:port
                         Broker addresses (host:port, comma separated) used
                         to reach the cluster.

commands:
  COMMAND
    list                 Show the transactional ids the coordinators hold
    describe             Show the state of one transactional id
    describe-producers   Show the producers a partition knows of
    abort                Write an abort marker for a hanging transaction
                         (needs cluster permissions)
    find-hanging         Search partitions for open transactions no
                         coordinator knows of
    forceTerminateTransaction
                         Abort the ongoing transaction of a transactional
                         id by bumping its epoch (needs cluster
                         permissions)
)";

constexpr const char* k_list_help =
    R"(usage: kafka-transactions.sh --bootstrap-server host:port list [-h]
                             [--duration-filter DURATION_FILTER]
                             [--transactional-id-pattern TRANSACTIONAL_ID_PATTERN]

optional arguments:
  -h, --help             Print this help screen and exit.
  --duration-filter DURATION_FILTER
                         Only list transactions open for longer than this
                         many milliseconds (negative: all of them).
  --transactional-id-pattern TRANSACTIONAL_ID_PATTERN
                         Only list transactional ids this regular
                         expression matches.
)";

constexpr const char* k_describe_help =
    R"(usage: kafka-transactions.sh --bootstrap-server host:port describe [-h]
                             --transactional-id TRANSACTIONAL_ID

Show what the coordinator of a transactional id knows of it.

optional arguments:
  -h, --help             Print this help screen and exit.
  --transactional-id TRANSACTIONAL_ID
                         The transactional id to show.
)";

constexpr const char* k_describe_producers_help =
    R"(usage: kafka-transactions.sh --bootstrap-server host:port
                             describe-producers [-h]
                             [--broker-id BROKER_ID] --topic TOPIC
                             --partition PARTITION

optional arguments:
  -h, --help             Print this help screen and exit.
  --broker-id BROKER_ID  Ask this replica instead of the partition's
                         leader.
  --topic TOPIC          The partition's topic.
  --partition PARTITION  The partition's number.
)";

constexpr const char* k_abort_help =
    R"(usage: kafka-transactions.sh --bootstrap-server host:port abort [-h]
                             --topic TOPIC --partition PARTITION
                             [--start-offset START_OFFSET]
                             [--producer-id PRODUCER_ID]
                             [--producer-epoch PRODUCER_EPOCH]
                             [--coordinator-epoch COORDINATOR_EPOCH]

optional arguments:
  -h, --help             Print this help screen and exit.
  --topic TOPIC          The partition's topic.
  --partition PARTITION  The partition's number.

Brokers on versions 3.0 and above:
  Name the transaction by the offset it starts at; its producer is looked
  up.

  --start-offset START_OFFSET
                         The offset of the transaction's first record.

Brokers on versions older than 3.0:
  Name the transaction's producer with all three of these.

  --producer-id PRODUCER_ID
                         The producer's id.
  --producer-epoch PRODUCER_EPOCH
                         The producer's epoch.
  --coordinator-epoch COORDINATOR_EPOCH
                         The coordinator epoch to write the marker with.
)";

constexpr const char* k_find_hanging_help =
    R"(usage: kafka-transactions.sh --bootstrap-server host:port find-hanging [-h]
                             [--broker-id BROKER_ID]
                             [--max-transaction-timeout MAX_TRANSACTION_TIMEOUT]
                             [--topic TOPIC] [--partition PARTITION]

optional arguments:
  -h, --help             Print this help screen and exit.
  --broker-id BROKER_ID  Search the partitions this broker holds.
  --max-transaction-timeout MAX_TRANSACTION_TIMEOUT
                         Only report transactions older than this many
                         minutes (default 15).
  --topic TOPIC          Search this topic's partitions (needed with
                         --partition).
  --partition PARTITION  Search this partition of --topic only.
)";

constexpr const char* k_force_terminate_help =
    R"(usage: kafka-transactions.sh --bootstrap-server host:port
                             forceTerminateTransaction [-h]
                             --transactionalId TRANSACTIONALID

Abort the ongoing transaction of a transactional id.

optional arguments:
  -h, --help             Print this help screen and exit.
  --transactionalId TRANSACTIONALID
                         The transactional id whose transaction to abort.
)";

// An option of a Java number type (argparse4j's type(Integer.class) ...).
cli::arg_option number(const std::string& flag, int bits, bool required = false) {
  cli::arg_option o{{flag}, cli::arg_option::kind::store, required, true};
  o.bits = bits;
  return o;
}

}  // namespace

cli::arg_parser transactions_parser() {
  const std::string prog = "kafka-transactions.sh";
  cli::arg_parser list(prog, k_list_help);
  list.add(number("--duration-filter", 64)).store({"--transactional-id-pattern"});

  cli::arg_parser describe(prog, k_describe_help);
  describe.store({"--transactional-id"}, true);

  cli::arg_parser producers(prog, k_describe_producers_help);
  producers.add(number("--broker-id", 32)).store({"--topic"}, true).add(number("--partition", 32, true));

  cli::arg_parser abort(prog, k_abort_help);
  abort.store({"--topic"}, true).add(number("--partition", 32, true)).add(number("--start-offset", 64));
  abort.add(number("--producer-id", 64)).add(number("--producer-epoch", 16)).add(number("--coordinator-epoch", 32));

  cli::arg_parser hanging(prog, k_find_hanging_help);
  hanging.add(number("--broker-id", 32)).add(number("--max-transaction-timeout", 32));
  hanging.store({"--topic"}).add(number("--partition", 32));

  cli::arg_parser terminate(prog, k_force_terminate_help);
  terminate.store({"--transactionalId"}, true);

  cli::arg_parser main(prog, k_main_help);
  main.add({{"-v", "--version"}, cli::arg_option::kind::version});
  main.store({"--command-config"}).store({"--bootstrap-server"}, true);
  main.command("list", list).command("describe", describe).command("describe-producers", producers);
  main.command("abort", abort).command("find-hanging", hanging).command("forceTerminateTransaction", terminate);
  return main;
}

std::string version_line() { return std::string(kafka_tools_version) + " (Commit:26b251a451ce941d)"; }

}  // namespace hw::tools::txn
