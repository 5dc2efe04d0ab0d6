// kafka-transactions.sh (Kafka's TransactionsCommand): list, describe,
// describe-producers, abort, find-hanging and forceTerminateTransaction,
// with Kafka's tables and messages. Each sub-command checks its arguments
// before it sends anything, as Kafka's does once its admin client exists.

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "tools/commands/tools.h"
#include "tools/commands/transactions.h"

namespace hw::tools {
namespace txn {

int fail(tool_io io, const std::string& message, const call_error& cause) {
  io.err << message << ": " << cause.message << ". Enable debug logging for additional detail.\n";
  return 1;
}

int fail(tool_io io, const std::string& message) {
  io.err << message << '\n';
  return 1;
}

namespace {

// argparse4j's handleError as TransactionsCommand calls it: help on
// stdout (the exit status is still 1), the version, or the usage and the
// error on stderr.
int parse_failure(const cli::arg_error& e, tool_io io) {
  switch (e.what) {
    case cli::arg_error::kind::help:
      io.out << e.parser->help();
      return 1;
    case cli::arg_error::kind::version:
      io.out << version_line() << '\n';
      return 0;
    case cli::arg_error::kind::unsupported:
      io.err << e.message << '\n';
      return 1;
    case cli::arg_error::kind::usage:
      break;
  }
  io.err << cli::format_arg_error(e);
  return 1;
}

// The values were checked by the parser (Java's number types).
std::optional<int64_t> number(const cli::arg_values& v, const char* dest) {
  auto text = v.value(dest);
  if (!text) return std::nullopt;
  return std::stoll(*text);
}

std::optional<int32_t> int_value(const cli::arg_values& v, const char* dest) {
  auto n = number(v, dest);
  return n ? std::optional<int32_t>(static_cast<int32_t>(*n)) : std::nullopt;
}

int list(txn_client& client, const cli::arg_values& v, tool_io io) {
  list_filters filters;
  filters.duration_ms = number(v, "duration_filter");
  filters.transactional_id_pattern = v.value("transactional_id_pattern");
  std::map<int32_t, std::vector<transaction_listing>> by_broker;
  call_error error;
  if (!client.list_transactions(filters, &by_broker, &error)) return fail(io, "Failed to list transactions", error);
  io.out << pretty_table(k_list_headers, listing_rows(by_broker));
  return 0;
}

int describe(txn_client& client, const cli::arg_values& v, tool_io io) {
  const std::string id = v.value("transactional_id").value_or("");
  transaction_description d;
  call_error error;
  if (!client.describe_transaction(id, &d, &error))
    return fail(io, "Failed to describe transaction state of transactional-id `" + id + "`", error);
  io.out << pretty_table(k_describe_headers, {description_row(id, d, now_ms())});
  return 0;
}

int describe_producers(txn_client& client, const cli::arg_values& v, tool_io io) {
  const auto broker = int_value(v, "broker_id");
  const topic_partition tp{v.value("topic").value_or(""), int_value(v, "partition").value_or(0)};
  txn_client::producers_result result;
  client.describe_producers({tp}, broker, &result);
  if (const auto& error = result[tp].second) {
    const std::string where = broker ? "broker " + std::to_string(*broker) : "leader";
    return fail(io, "Failed to describe producers for partition " + to_string(tp) + " on " + where, *error);
  }
  std::vector<table_row> rows;
  for (const auto& p : result[tp].first) rows.push_back(producer_row(p));
  io.out << pretty_table(k_producer_headers, rows);
  return 0;
}

// The abort's marker: the producer whose transaction starts at the offset
// (looked up with DescribeProducers), or the one named.
int abort_transaction(txn_client& client, const cli::arg_values& v, tool_io io) {
  abort_spec spec;
  spec.partition = {v.value("topic").value_or(""), int_value(v, "partition").value_or(0)};
  const auto start_offset = number(v, "start_offset");
  const auto producer_id = number(v, "producer_id");
  if (!start_offset && !producer_id)
    return fail(io, "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or "
                    "above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)");
  if (!start_offset) {
    const auto epoch = number(v, "producer_epoch");
    if (!epoch) return fail(io, "Missing required argument --producer-epoch");
    const auto coordinator_epoch = int_value(v, "coordinator_epoch");
    if (!coordinator_epoch) return fail(io, "Missing required argument --coordinator-epoch");
    // A transaction hanging before its producer's first marker has no
    // coordinator epoch (-1): 0 is not above any the leader knows.
    spec = {spec.partition, *producer_id, static_cast<int16_t>(*epoch), std::max(*coordinator_epoch, 0)};
  } else {
    txn_client::producers_result result;
    client.describe_producers({spec.partition}, std::nullopt, &result);
    const auto& [producers, error] = result[spec.partition];
    if (error) return fail(io, "Failed to validate producer state for partition " + to_string(spec.partition), *error);
    auto found = std::find_if(producers.begin(), producers.end(),
                              [&](const producer_state& p) { return p.txn_start_offset == start_offset; });
    if (found == producers.end())
      return fail(io, "Could not find any open transactions starting at offset " + std::to_string(*start_offset) +
                          " on partition " + to_string(spec.partition));
    spec.producer_id = found->producer_id;
    spec.producer_epoch = static_cast<int16_t>(found->producer_epoch);
    spec.coordinator_epoch = found->coordinator_epoch.value_or(0);
  }
  call_error error;
  if (!client.abort_transaction(spec, &error)) return fail(io, "Failed to abort transaction " + to_string(spec), error);
  return 0;
}

int hanging(txn_client& client, const cli::arg_values& v, tool_io io) {
  hanging_search s;
  s.broker_id = int_value(v, "broker_id");
  s.topic = v.value("topic");
  s.partition = int_value(v, "partition");
  s.max_transaction_timeout_min = int_value(v, "max_transaction_timeout").value_or(15);
  return find_hanging(client, s, io);
}

int force_terminate(txn_client& client, const cli::arg_values& v, tool_io io) {
  const std::string id = v.value("transactionalId").value_or("");
  call_error error;
  if (!client.fence_producer(id, &error)) return fail(io, "Failed to force terminate transactionalId `" + id + "`", error);
  return 0;
}

// Utils.loadProps: the file's properties, or what Java's IOException says.
bool load_command_config(const std::string& path, property_list* props, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    *error = path;  // NoSuchFileException's message
    return false;
  }
  if (std::filesystem::is_directory(path, ec)) {
    *error = "Is a directory";
    return false;
  }
  return load_properties_file(path, props, error);
}

}  // namespace
}  // namespace txn

int kafka_transactions(tool_args args, tool_io io) {
  cli::arg_values v;
  cli::arg_error parse_error;
  const cli::arg_parser parser = txn::transactions_parser();  // outlives parse_error, which points into it
  if (!parser.parse(args, &v, &parse_error)) return txn::parse_failure(parse_error, io);

  txn::property_list props;
  std::string error;
  if (auto path = v.value("command_config"); path && !txn::load_command_config(*path, &props, &error))
    return txn::fail(io, "Failed to load admin client properties", {error});
  const std::string bootstrap = v.value("bootstrap_server").value_or("");
  if (!txn::check_admin_config(bootstrap, props, &error)) return txn::fail(io, error);

  txn::txn_client client(bootstrap, props);
  const std::string& command = v.command();
  if (command == "list") return txn::list(client, v, io);
  if (command == "describe") return txn::describe(client, v, io);
  if (command == "describe-producers") return txn::describe_producers(client, v, io);
  if (command == "abort") return txn::abort_transaction(client, v, io);
  if (command == "find-hanging") return txn::hanging(client, v, io);
  if (command == "forceTerminateTransaction") return txn::force_terminate(client, v, io);
  return txn::fail(io, "Unexpected command " + command);
}

}  // namespace hw::tools
