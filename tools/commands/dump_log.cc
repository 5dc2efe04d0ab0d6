// kafka-dump-log.sh: Kafka's DumpLogSegments. Reads segment files offline
// with the project's record and storage code and prints them as Kafka's
// tool does: batches and records of .log segments and KRaft .checkpoint
// snapshots (optionally decoded as cluster metadata, group or transaction
// coordinator records), offset and time indexes with their checks,
// transaction indexes and producer snapshots.

#include <filesystem>
#include <ostream>

#include "tools/commands/dump_log.h"
#include "tools/commands/get_offsets.h"
#include "tools/commands/java.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using dump_log::java_failure;

const char* const k_banner = "Print the contents of log segments, indexes and snapshots for debugging.";

cli::option_parser dump_log_options() {
  cli::option_parser p = default_options();
  p.option("files", "String: file1, file2, ...",
           "REQUIRED. Comma-separated list of segment, index and snapshot files to print.");
  p.flag("print-data-log", "Print the keys and values of the records (implied by any decoder option).");
  p.flag("deep-iteration", "Print every record, not only the batches (implied by --print-data-log).");
  p.flag("skip-record-metadata", "Print record contents without their metadata; control records print nothing.");
  p.flag("verify-index-only", "Check an index against its segment without listing its entries.");
  p.flag("index-sanity-check",
         "Run only the sanity check a broker runs on an index at start-up (decides whether it is rebuilt).");
  p.option("max-message-size", "Integer: size", "The largest batch to expect when checking an index. (default: 5242880)");
  p.option("max-bytes", "Integer: size", "Read at most this many bytes of each .log file. (default: 2147483647)");
  p.flag("offsets-decoder", "Decode records as __consumer_offsets records.");
  p.flag("transaction-log-decoder", "Decode records as __transaction_state records.");
  p.flag("cluster-metadata-decoder", "Decode records as KRaft cluster metadata records.");
  p.unsupported("remote-log-metadata-decoder", false);
  p.unsupported("share-group-state-decoder", false);
  p.unsupported("key-decoder-class", false);
  p.unsupported("value-decoder-class", false);
  return p;
}

// Integer options are converted when first used, as joptsimple converts them.
int32_t integer_option(const cli::option_set& opts, const char* name, int32_t fallback) {
  auto text = opts.value(name);
  if (!text) return fallback;
  int32_t v = 0;
  if (!get_offsets::java_parse_int(*text, &v))
    throw java_failure("joptsimple.OptionArgumentConversionException",
                       "Cannot parse argument '" + *text + "' of option " + name);
  return v;
}

dump_log::options base_options(const cli::option_set& opts) {
  dump_log::options o;
  const bool decoded = opts.has("offsets-decoder") || opts.has("transaction-log-decoder") ||
                       opts.has("cluster-metadata-decoder");
  o.print_data = opts.has("print-data-log") || decoded;
  o.deep_iteration = opts.has("deep-iteration") || o.print_data;
  o.skip_record_metadata = opts.has("skip-record-metadata");
  o.verify_only = opts.has("verify-index-only");
  o.index_sanity_only = opts.has("index-sanity-check");
  if (opts.has("offsets-decoder")) {
    o.parser = dump_log::decoder::offsets;
  } else if (opts.has("transaction-log-decoder")) {
    o.parser = dump_log::decoder::transaction_log;
  } else if (opts.has("cluster-metadata-decoder")) {
    o.parser = dump_log::decoder::cluster_metadata;
  }
  return o;
}

// The suffix Kafka switches on: from the name's last '.' (none: unknown).
std::string suffix_of(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? std::string() : name.substr(dot);
}

void dump_one(storage::file_system& fs, const cli::option_set& opts, dump_log::options& o, const std::string& arg,
              dump_log::findings& found, tool_io io) {
  io.out << "Dumping " << dump_log::java_file_string(arg) << '\n';
  const std::string suffix = suffix_of(dump_log::java_file_name(arg));
  if (suffix == ".log" || suffix == ".checkpoint") {
    o.max_bytes = integer_option(opts, "max-bytes", INT32_MAX);
    dump_log::dump_log_file(fs, arg, o, found, io.out);
  } else if (suffix == ".index") {
    o.max_message_size = integer_option(opts, "max-message-size", 5 * 1024 * 1024);
    dump_log::dump_offset_index(fs, arg, o, found, io.out);
  } else if (suffix == ".timeindex") {
    dump_log::dump_time_index(fs, arg, o, found, io.out);
  } else if (suffix == ".snapshot") {
    dump_log::dump_producer_snapshot(fs, arg, io.out, io.err);
  } else if (suffix == ".txnindex") {
    dump_log::dump_txn_index(fs, arg, io.out);
  } else {
    io.err << "Ignoring unknown file " << dump_log::java_file_string(arg) << '\n';
  }
}

}  // namespace

namespace dump_log {

void findings::print(std::ostream& err) const {
  for (const auto& file : java::hash_map_order(index_mismatch_order)) {
    err << "Mismatches in :" << file << '\n';
    for (const auto& [index_offset, log_offset] : index_mismatches.at(file))
      err << "  Index offset: " << index_offset << ", log offset: " << log_offset << '\n';
  }
  for (const auto& file : java::hash_map_order(time_mismatch_order)) {
    err << "Found timestamp mismatch in :" << file << '\n';
    for (const auto& [index_ts, log_ts] : time_mismatches.at(file).list)
      err << "  Index timestamp: " << index_ts << ", log timestamp: " << log_ts << '\n';
  }
  for (const auto& file : java::hash_map_order(time_out_of_order_order)) {
    err << "Found out of order timestamp in :" << file << '\n';
    for (const auto& [index_ts, previous] : time_out_of_order.at(file).list)
      err << "  Index timestamp: " << index_ts << ", Previously indexed timestamp: " << previous << '\n';
  }
  for (const auto& file : java::hash_map_order(time_not_found_order)) {
    err << "The following indexed offsets are not found in :" << file << '\n';
    for (const auto& [index_offset, log_offset] : time_not_found.at(file).list)
      err << "Indexed offset: " << index_offset << ", found log offset: " << log_offset << '\n';
  }
  for (const auto& file : java::hash_map_order(non_consecutive_order)) {
    err << "Non-consecutive offsets in " << file << '\n';
    for (const auto& [previous, next] : non_consecutive.at(file))
      err << "  " << previous << " is followed by " << next << '\n';
  }
}

}  // namespace dump_log

int kafka_dump_log(tool_args args, tool_io io) {
  const cli::option_parser parser = dump_log_options();
  cli::option_set opts;
  int status = 1;
  if (!parse_command_line(parser, args, k_banner, &opts, io, &status)) return status;
  if (!opts.has("files")) return usage_error(parser, "Missing required argument \"[files]\"", io);
  dump_log::options o = base_options(opts);
  dump_log::findings found;
  auto fs = storage::make_posix_file_system();
  try {
    for (const auto& arg : get_offsets::java_split(*opts.value("files"), ',')) dump_one(*fs, opts, o, arg, found, io);
  } catch (const java_failure& e) {
    io.out.flush();
    // The JVM reports the exception Kafka's tool lets escape (its stack
    // trace follows in Java).
    const std::string message = e.what();
    io.err << "Exception in thread \"main\" " << e.java_class << (message == "null" ? "" : ": " + message) << '\n';
    return 1;
  } catch (const dump_log::unsupported_input& e) {
    io.out.flush();
    io.err << e.what() << '\n';
    return 1;
  }
  found.print(io.err);
  return 0;
}

}  // namespace hw::tools
