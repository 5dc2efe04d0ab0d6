#pragma once
// kafka-console-consumer.sh's two halves: the command line read into a
// plan (console_consumer.cc) and the plan run against the cluster
// (console_consumer_run.cc).

#include <cstdint>
#include <optional>
#include <string>

#include "tools/commands/command.h"
#include "tools/commands/console.h"

namespace hw::tools {

struct consumer_plan {
  std::string bootstrap;
  std::optional<std::string> topic;
  std::optional<std::string> include;  // a regular expression of topics
  std::optional<int32_t> partition;
  int64_t offset = -1;                 // with a partition: -2 earliest, -1 latest, else the offset
  std::optional<std::string> max_messages;  // as given: Kafka converts it once the consumer runs
  int64_t timeout_ms = INT64_MAX;      // INT64_MAX: wait for records forever
  console::properties java;            // the Java consumer's properties
  console::formatter_settings formatter;
};

// Consumes and prints until --max-messages, --timeout-ms or a signal; the exit status.
int run_console_consumer(const consumer_plan& plan, tool_io io);

}  // namespace hw::tools
