// kafka-console-consumer.sh: Kafka 4.3's
// org.apache.kafka.tools.consumer.ConsoleConsumer. This file reads the
// command line as ConsoleConsumerOptions does (its checks and messages, in
// its order) into a plan; console_consumer_run.cc runs it.

#include <algorithm>
#include <ostream>
#include <random>

#include "tools/commands/console_consumer.h"
#include "tools/commands/java.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using namespace console;

constexpr const char* k_banner = "Read records from Kafka topics and print them on standard output.";
constexpr const char* k_default_formatter = "org.apache.kafka.tools.consumer.DefaultMessageFormatter";

constexpr const char* k_formatter_help =
    "Formatter setting as key=value. Settings known to the default formatter: \n"
    " print.timestamp=true|false\n print.key=true|false\n print.offset=true|false\n print.epoch=true|false\n"
    " print.partition=true|false\n print.headers=true|false\n print.value=true|false\n"
    " key.separator=<key.separator>\n line.separator=<line.separator>\n headers.separator=<headers.separator>\n"
    " null.literal=<null.literal>\n key.deserializer=<key.deserializer>\n value.deserializer=<value.deserializer>\n"
    " header.deserializer=<header.deserializer>";

cli::option_parser consumer_options() {
  cli::option_parser p = default_options();
  p.option("topic", "String: topic", "Topic to read.")
      .option("include", "String: Java regex (String)",
              "Regular expression naming the topics to read.")
      .option("partition", "Integer: partition",
              "Single partition to read. Reading begins at its end unless '--offset' says otherwise.")
      .option("offset", "String: consume offset",
              "Where to begin reading: an offset (0 or more), 'earliest' for the start of the partition, or "
              "'latest' for its end (default: latest)")
      .option("consumer-property", "String: consumer_prop",
              "(DEPRECATED) Consumer setting as key=value. Will be dropped in a later release; use "
              "--command-property.")
      .option("command-property", "String: consumer_prop", "Consumer setting as key=value.")
      .option("consumer.config", "String: config file",
              "(DEPRECATED) Properties file with consumer settings; [command-property] values win over it. Will be "
              "dropped in a later release; use --command-config.")
      .option("command-config", "String: config file",
              "Properties file with consumer settings; [command-property] values win over it.")
      .option("formatter", "String: class",
              "Class that turns each record into printed text. (default: "
              "org.apache.kafka.tools.consumer.DefaultMessageFormatter)")
      .option("property", "String: prop", std::string("(DEPRECATED) ") + k_formatter_help)
      .option("formatter-property", "String: prop", k_formatter_help)
      .option("formatter-config", "String: config file",
              "Properties file with formatter settings; [formatter-property] values win over it.")
      .flag("from-beginning",
            "When the group has no committed offset yet, begin at the oldest record instead of the newest.")
      .option("max-messages", "Integer: num_messages",
              "Stop after this many records. Without it the tool reads until stopped.")
      .option("timeout-ms", "Long: timeout_ms",
              "Stop when no record arrives for this many milliseconds.")
      .flag("skip-message-on-error", "Skip a record that cannot be processed rather than stopping.")
      .option("bootstrap-server", "String: server to connect to", "REQUIRED: Broker address(es) to contact.")
      .option("key-deserializer", "String: deserializer for keys",
              "Class used to decode record keys.")
      .option("value-deserializer", "String: deserializer for values",
              "Class used to decode record values.")
      .unsupported("enable-systest-events", false)
      .option("isolation-level", "String",
              "read_committed hides records of transactions that were not committed; read_uncommitted shows "
              "every record. (default: read_uncommitted)")
      .option("group", "String: consumer group id", "Consumer group id to join.");
  return p;
}

// What the JVM prints when an exception escapes main (Kafka lets some
// option conversions do that), and its exit status.
int uncaught(const std::string& exception, tool_io io) {
  io.err << "Exception in thread \"main\" " << exception << '\n';
  return 1;
}

// joptsimple's failed conversion, with the causes the JVM prints under it.
std::string conversion_error(const std::string& value, const char* option) {
  const std::string cause = "java.lang.NumberFormatException: For input string: \"" + value + "\"";
  return "joptsimple.OptionArgumentConversionException: Cannot parse argument '" + value + "' of option " + option +
         "\nCaused by: joptsimple.internal.ReflectionException: " + cause + "\nCaused by: " + cause;
}

// ConsoleConsumerOptions.checkRequiredArgs; an exit status when it stops the tool.
std::optional<int> check_required(const cli::option_parser& parser, const cli::option_set& opts, consumer_plan* plan,
                                  tool_io io) {
  if (opts.has("topic") == opts.has("include"))
    return usage_error(parser, "Exactly one of the following arguments is required: [topic], [include]", io);
  if (auto p = opts.value("partition")) {
    auto n = parse_java_integer(*p, false);
    if (!n) return uncaught(conversion_error(*p, "partition"), io);
    plan->partition = static_cast<int32_t>(*n);
    if (!opts.has("topic")) return usage_error(parser, "The topic is required when partition is specified.", io);
    if (opts.has("from-beginning") && opts.has("offset"))
      return usage_error(parser, "Options from-beginning and offset cannot be specified together.", io);
  } else if (opts.has("offset")) {
    return usage_error(parser, "The partition is required when offset is specified.", io);
  }
  if (!opts.has("bootstrap-server")) return usage_error(parser, "Missing required argument \"[bootstrap-server]\"", io);
  return std::nullopt;
}

// The consumer's properties (checkConsumerGroup and buildConsumerProps).
std::optional<int> consumer_properties(const cli::option_parser& parser, const cli::option_set& opts,
                                       consumer_plan* plan, tool_io io) {
  const bool old_props = opts.has("consumer-property"), old_config = opts.has("consumer.config");
  if (old_props && opts.has("command-property"))
    return usage_error(parser, "Options --consumer-property and --command-property cannot be specified together.", io);
  if (old_config && opts.has("command-config"))
    return usage_error(parser, "Options --consumer.config and --command-config cannot be specified together.", io);
  if (old_props)
    io.out << "Option --consumer-property is deprecated and will be removed in a future version. Use "
              "--command-property instead.\n";
  if (old_config)
    io.out << "Option --consumer.config is deprecated and will be removed in a future version. Use "
              "--command-config instead.\n";
  properties from_file, extra;
  std::string error;
  if (auto file = opts.value(old_config ? "consumer.config" : "command-config");
      file && !load_java_properties(*file, &from_file, &error))
    return uncaught(error, io);
  for (const auto& kv : opts.values(old_props ? "consumer-property" : "command-property")) {
    auto [key, value] = java_key_value(kv);
    extra[key] = value;
  }
  std::vector<std::string> groups;
  auto add_group = [&](const std::optional<std::string>& g) {
    if (g && std::find(groups.begin(), groups.end(), *g) == groups.end()) groups.push_back(*g);
  };
  add_group(opts.value("group"));
  if (from_file.count("group.id")) add_group(from_file["group.id"]);
  if (extra.count("group.id")) add_group(extra["group.id"]);
  if (groups.size() > 1) {
    std::string listed;
    for (const auto& g : java::hash_map_order(groups)) listed += (listed.empty() ? "'" : ", '") + g + "'";
    return usage_error(parser,
                       "The group ids provided in different places (directly using '--group', via "
                       "'--consumer-property', or via '--consumer.config') do not match. Detected group ids: " +
                           listed,
                       io);
  }
  if (!groups.empty() && plan->partition)
    return usage_error(parser, "Options group and partition cannot be specified together.", io);

  properties& props = plan->java;
  props = from_file;
  for (auto& [k, v] : extra) props[k] = v;
  const bool from_beginning = opts.has("from-beginning");
  if (auto reset = props.find("auto.offset.reset"); reset != props.end()) {
    if (from_beginning && reset->second != "earliest") {
      io.err << "Can't simultaneously specify --from-beginning and 'auto.offset.reset=" << reset->second
             << "', please remove one option\n";
      return 1;
    }
  } else {
    props["auto.offset.reset"] = from_beginning ? "earliest" : "latest";
  }
  props["bootstrap.servers"] = plan->bootstrap;
  if (!props.count("client.id")) props["client.id"] = "console-consumer";
  if (opts.has("isolation-level") || !props.count("isolation.level"))
    props["isolation.level"] = opts.value_or("isolation-level", "read_uncommitted");
  if (groups.empty()) {
    // Kafka's generated group, whose offsets are not meant to be used again: no commits unless asked.
    std::random_device seed;
    props["group.id"] = "console-consumer-" + std::to_string(std::uniform_int_distribution<int>(0, 99999)(seed));
    if (!props.count("enable.auto.commit")) props["enable.auto.commit"] = "false";
  } else {
    props["group.id"] = groups.front();
  }
  return std::nullopt;
}

std::optional<int> parse_offset_and_timeout(const cli::option_parser& parser, const cli::option_set& opts,
                                            consumer_plan* plan, tool_io io) {
  plan->offset = opts.has("from-beginning") ? -2 : -1;
  if (auto text = opts.value("offset")) {
    std::string lower = *text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    auto n = parse_java_integer(*text, true);
    if (lower == "earliest")
      plan->offset = -2;
    else if (lower == "latest")
      plan->offset = -1;
    else if (n && *n >= 0)
      plan->offset = *n;
    else
      return usage_error(parser,
                         "The provided offset value '" + *text +
                             "' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.",
                         io);
  }
  if (auto text = opts.value("timeout-ms")) {
    auto n = parse_java_integer(*text, true);
    if (!n) return uncaught(conversion_error(*text, "timeout-ms"), io);
    plan->timeout_ms = *n >= 0 ? *n : INT64_MAX;
  }
  return std::nullopt;
}

// buildFormatter: only Kafka's default formatter, configured from
// --formatter-config, the deserializer options and --formatter-property.
std::optional<int> formatter(const cli::option_parser& parser, const cli::option_set& opts, consumer_plan* plan,
                             tool_io io) {
  if (auto name = opts.value_or("formatter", k_default_formatter); name != k_default_formatter) {
    io.err << "Option --formatter " << name << " is not supported by this native tool (only " << k_default_formatter
           << ")\n";
    return 1;
  }
  if (opts.has("formatter-property") && opts.has("property"))
    return usage_error(parser, "Options --property and --formatter-property cannot be specified together.", io);
  if (opts.has("property"))
    io.out << "Option --property is deprecated and will be removed in a future version. Use --formatter-property "
              "instead.\n";
  properties props;
  std::string error;
  if (auto file = opts.value("formatter-config"); file && !load_java_properties(*file, &props, &error)) {
    const std::string prefix = "java.nio.file.NoSuchFileException: ";
    return usage_error(parser, error.rfind(prefix, 0) == 0 ? error.substr(prefix.size()) : error, io);
  }
  if (auto k = opts.value("key-deserializer"); k && !k->empty()) props["key.deserializer"] = *k;
  if (auto v = opts.value("value-deserializer"); v && !v->empty()) props["value.deserializer"] = *v;
  for (const auto& kv : opts.values(opts.has("property") ? "property" : "formatter-property")) {
    auto [key, value] = java_key_value(kv);
    props[key] = value;
  }
  if (!configure_formatter(props, &plan->formatter, &error)) {
    io.err << error << '\n';
    return 1;
  }
  return std::nullopt;
}

}  // namespace

int kafka_console_consumer(tool_args args, tool_io io) {
  const cli::option_parser parser = consumer_options();
  cli::option_set opts;
  int status = 0;
  if (!parse_command_line(parser, args, k_banner, &opts, io, &status)) return status;
  consumer_plan plan;
  if (auto stop = check_required(parser, opts, &plan, io)) return *stop;
  plan.bootstrap = *opts.value("bootstrap-server");
  plan.topic = opts.value("topic");
  plan.include = opts.value("include");
  plan.max_messages = opts.value("max-messages");
  if (auto stop = consumer_properties(parser, opts, &plan, io)) return *stop;
  if (auto stop = parse_offset_and_timeout(parser, opts, &plan, io)) return *stop;
  if (auto stop = formatter(parser, opts, &plan, io)) return *stop;
  return run_console_consumer(plan, io);
}

}  // namespace hw::tools
