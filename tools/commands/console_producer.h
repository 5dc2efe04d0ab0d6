#pragma once
// kafka-console-producer.sh's two halves: the command line read into a
// plan (console_producer.cc) and the plan run against the cluster
// (console_producer_send.cc).

#include <string>

#include "tools/commands/command.h"
#include "tools/commands/console.h"

namespace hw::tools {

struct producer_plan {
  std::string bootstrap;       // --bootstrap-server as given
  console::reader_settings reader;
  console::properties java;    // the Java producer's properties, the tool's defaults merged in
  bool sync = false;
};

// Reads stdin and produces until its end or a signal; the exit status.
int run_console_producer(const producer_plan& plan, tool_io io);

}  // namespace hw::tools
