// kafka-console-producer.sh: Kafka 4.3's org.apache.kafka.tools.ConsoleProducer.
// This file reads the command line as ConsoleProducerOptions does (its
// checks, messages and deprecation warnings, in its order) into a plan;
// console_producer_send.cc runs it.

#include <charconv>
#include <filesystem>
#include <ostream>

#include "tools/commands/console_producer.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using namespace console;

constexpr const char* k_banner = "Read lines from standard input and send them to Kafka as records.";
constexpr const char* k_line_reader = "org.apache.kafka.tools.LineMessageReader";

constexpr const char* k_reader_help =
    "Reader setting as key=value, passed to the message reader (custom readers may define their own).\n"
    "Settings known to the default reader:\n parse.key=false\n parse.headers=false\n ignore.error=false\n"
    " key.separator=\\t\n headers.delimiter=\\t\n headers.separator=,\n headers.key.separator=:\n"
    " null.marker=   if set, a key, value or header equal to it becomes null\n"
    "Expected line layout with:\n parse.headers=true and parse.key=true:\n  \"h1:v1,h2:v2...\\tkey\\tvalue\"\n"
    " parse.key=true:\n  \"key\\tvalue\"\n parse.headers=true:\n  \"h1:v1,h2:v2...\\tvalue\"";

cli::option_parser producer_options() {
  cli::option_parser p = default_options();
  p.option("topic", "String: topic", "REQUIRED: Topic to write to.")
      .option("bootstrap-server", "String: server to connect to",
              "REQUIRED: Broker address(es) to contact, written HOST1:PORT1,HOST2:PORT2.")
      .flag("sync", "Send each record on its own and wait for it before sending the next.")
      .option("compression-codec", "String: compression-codec",
              "Compression to use: 'none', 'gzip', 'snappy', 'lz4' or 'zstd'. Given without a value it means "
              "'gzip'")
      .option("batch-size", "Integer: size",
              "Bytes to gather per partition before a batch is sent; smaller records are grouped up to this "
              "size. Sets the producer's batch.size; max-partition-memory-bytes overrides it when both are "
              "given. (default: 16384)")
      .option("message-send-max-retries", "Integer",
              "How many times a failed send is retried before the record is given up. Sets the producer's "
              "`retries`. (default: 3)")
      .option("retry-backoff-ms", "Long",
              "Wait before refreshing metadata ahead of a retry, giving a leader election time to finish. Sets "
              "the producer's `retry.backoff.ms`. (default: 100)")
      .option("timeout", "Long: timeout_ms",
              "In asynchronous mode, the longest a record waits for its batch to fill, in ms. Sets the "
              "producer's `linger.ms`. (default: 1000)")
      .option("request-required-acks", "String: request required acks",
              "Value of the producer's `acks` setting (default: -1)")
      .option("request-timeout-ms", "Integer: request timeout ms",
              "How long to wait for a broker acknowledgement; must be greater than zero. (default: 1500)")
      .option("metadata-expiry-ms", "Long: metadata expiration interval",
              "Refresh metadata after this many milliseconds even when no leader has changed. Sets the "
              "producer's `metadata.max.age.ms`. (default: 300000)")
      .option("max-block-ms", "Long: max block on send",
              "Longest time a send call may block. (default: 60000)")
      .option("max-memory-bytes", "Long: total memory in bytes",
              "Memory the producer may use for records not yet sent. Sets the producer's `buffer.memory`. "
              "(default: 33554432)")
      .option("max-partition-memory-bytes", "Integer: memory in bytes per partition",
              "(Deprecated) Same as --batch-size: bytes gathered per partition before a batch is sent (the "
              "producer's batch.size). Goes away in Apache Kafka 5.0; use --batch-size. (default: 16384)")
      .option("line-reader", "String: reader_class",
              "Class that turns standard input into records; by default every line is one record. (default: "
              "org.apache.kafka.tools.LineMessageReader)")
      .option("socket-buffer-size", "Integer: size",
              "TCP send buffer size. Sets the producer's `send.buffer.bytes`. (default: 102400)")
      .option("property", "String: prop",
              std::string("(DEPRECATED) ") + k_reader_help +
                  "\n Will be dropped in a later release; use --reader-property.")
      .option("reader-property", "String: prop", k_reader_help)
      .option("reader-config", "String: config file",
              "Properties file with reader settings; [reader-property] values win over it.")
      .option("producer-property", "String: producer_prop",
              "(DEPRECATED) Producer setting as key=value. Will be dropped in a later release; use "
              "--command-property.")
      .option("command-property", "String: producer_prop", "Producer setting as key=value.")
      .option("producer.config", "String: config file",
              "(DEPRECATED) Properties file with producer settings; [command-property] values win over it. Will be "
              "dropped in a later release; use --command-config.")
      .option("command-config", "String: config file",
              "Properties file with producer settings; [command-property] values win over it.");
  return p;
}

// The tool's options that default a producer property (Kafka's
// maybeMergeOptions): the option wins when given, its default only when
// the property is not set otherwise. Integer-typed ones are checked as
// joptsimple converts them.
struct merged_option {
  const char* option;
  const char* property;
  const char* fallback;
  enum { integer, long_integer, text } type;
};
constexpr merged_option k_merged[] = {
    {"timeout", "linger.ms", "1000", merged_option::long_integer},
    {"request-required-acks", "acks", "-1", merged_option::text},
    {"request-timeout-ms", "request.timeout.ms", "1500", merged_option::integer},
    {"message-send-max-retries", "retries", "3", merged_option::integer},
    {"retry-backoff-ms", "retry.backoff.ms", "100", merged_option::long_integer},
    {"socket-buffer-size", "send.buffer.bytes", "102400", merged_option::integer},
    {"max-memory-bytes", "buffer.memory", "33554432", merged_option::long_integer},
    {"batch-size", "batch.size", "16384", merged_option::integer},
    {"max-partition-memory-bytes", "batch.size", "16384", merged_option::integer},
    {"metadata-expiry-ms", "metadata.max.age.ms", "300000", merged_option::long_integer},
    {"max-block-ms", "max.block.ms", "60000", merged_option::long_integer},
};

bool merge_options(const cli::option_set& opts, properties* props, std::string* error) {
  for (const auto& m : k_merged) {
    if (!opts.has(m.option) && props->count(m.property)) continue;
    std::string value = opts.value_or(m.option, m.fallback);
    if (m.type != merged_option::text) {
      auto n = parse_java_integer(value, m.type == merged_option::long_integer);
      if (!n) {
        *error = "Cannot parse argument '" + value + "' of option " + m.option;
        return false;
      }
      value = std::to_string(*n);
    }
    (*props)[m.property] = value;
  }
  return true;
}

// Kafka's ToolsUtils.validateBootstrapServer; the message ends in a newline as Kafka's does.
std::optional<std::string> bootstrap_problem(const std::optional<std::string>& servers) {
  auto blank = [](const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; };
  if (!servers || blank(*servers)) return std::string("Error while validating the bootstrap address\n");
  std::vector<std::string> entries = java_string_split(*servers, ',');
  size_t valid = 0;
  for (const auto& e : entries)
    if (host_of_address(e)) ++valid;
  if (valid == 0 || valid != entries.size())
    return std::string("Please provide valid host:port like host1:9091,host2:9092\n");
  return std::nullopt;
}

// The checks ConsoleProducerOptions makes before any client exists; an
// exit status when the tool stops there.
std::optional<int> check_options(const cli::option_parser& parser, const cli::option_set& opts, tool_io io) {
  if (!opts.has("topic")) return usage_error(parser, "Missing required argument \"[topic]\"", io);
  const std::pair<const char*, const char*> exclusive[] = {
      {"command-config", "producer.config"},
      {"command-property", "producer-property"},
      {"reader-property", "property"},
  };
  for (auto [a, b] : exclusive)
    if (opts.has(a) && opts.has(b))
      return usage_error(parser, std::string("Options --") + a + " and --" + b + " cannot be specified together.",
                         io);
  const std::pair<const char*, const char*> deprecated[] = {
      {"producer-property", "a future version. Use --command-property instead."},
      {"producer.config", "a future version. Use --command-config instead."},
      {"property", "a future version. Use --reader-property instead."},
      {"max-partition-memory-bytes", "Apache Kafka 5.0. Use --batch-size instead."},
  };
  for (auto [option, rest] : deprecated)
    if (opts.has(option)) io.out << "Warning: --" << option << " is deprecated and will be removed in " << rest << '\n';
  if (auto problem = bootstrap_problem(opts.value("bootstrap-server"))) return usage_error(parser, *problem, io);
  return std::nullopt;
}

// The reader's properties: --reader-config, the topic, then --reader-property.
bool reader_properties(const cli::option_set& opts, properties* out, std::string* error) {
  if (auto file = opts.value("reader-config"); file && !load_java_properties(*file, out, error)) return false;
  (*out)["topic"] = *opts.value("topic");
  for (const auto& kv : opts.values(opts.has("property") ? "property" : "reader-property")) {
    auto [key, value] = java_key_value(kv);
    (*out)[key] = value;
  }
  return true;
}

bool producer_properties(const cli::option_set& opts, properties* out, std::string* error) {
  const char* config = opts.has("producer.config") ? "producer.config" : "command-config";
  if (auto file = opts.value(config); file && !load_java_properties(*file, out, error)) return false;
  for (const auto& kv : opts.values(opts.has("producer-property") ? "producer-property" : "command-property")) {
    auto [key, value] = java_key_value(kv);
    (*out)[key] = value;
  }
  (*out)["bootstrap.servers"] = *opts.value("bootstrap-server");
  // --compression-codec always decides compression.type: gzip without a value, none without the option.
  std::string codec = "none";
  if (opts.has("compression-codec")) codec = opts.value_or("compression-codec", "");
  (*out)["compression.type"] = codec.empty() ? "gzip" : codec;
  if (!out->count("client.id")) (*out)["client.id"] = "console-producer";
  return merge_options(opts, out, error);
}

}  // namespace

int kafka_console_producer(tool_args args, tool_io io) {
  const cli::option_parser parser = producer_options();
  const std::vector<std::string> normalized = with_optional_value(args, "compression-codec");
  cli::option_set opts;
  int status = 0;
  if (!parse_command_line(parser, normalized, k_banner, &opts, io, &status)) return status;
  if (auto stop = check_options(parser, opts, io)) return *stop;
  if (auto reader = opts.value_or("line-reader", k_line_reader); reader != k_line_reader) {
    io.err << "Option --line-reader " << reader << " is not supported by this native tool (only " << k_line_reader
           << ")\n";
    return 1;
  }
  producer_plan plan;
  plan.bootstrap = *opts.value("bootstrap-server");
  plan.sync = opts.has("sync");
  properties reader_props;
  std::string error;
  if (!reader_properties(opts, &reader_props, &error)) {
    io.err << error << '\n';
    return 1;
  }
  if (!configure_reader(reader_props, &plan.reader, &error)) {
    io.err << (error.rfind("java.", 0) == 0 ? "" : "org.apache.kafka.common.KafkaException: ") << error << '\n';
    return 1;
  }
  if (!producer_properties(opts, &plan.java, &error)) {
    io.err << error << '\n';
    return 1;
  }
  return run_console_producer(plan, io);
}

}  // namespace hw::tools
