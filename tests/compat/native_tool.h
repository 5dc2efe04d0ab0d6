#pragma once
// Runs one of the native tools (tools/, the highwater-tools executable,
// called by the name of Kafka's script) the way run_kafka_tool runs Kafka's
// Java tool, so that a test can give both the same arguments and compare
// what they printed. Header-only, like kafka_tool.h.

#include <string>
#include <vector>

#include "kafka_tool.h"

namespace hw::testing {

// tool: Kafka's script name, e.g. "kafka-topics.sh".
inline tool_result run_native_tool(const std::string& work_dir, const std::string& tool,
                                   const std::vector<std::string>& args, const std::string& stdin_text = "",
                                   int timeout_s = 120) {
  std::string cmd = shell_quote(HW_TOOLS_BINARY) + " " + shell_quote(tool);
  for (auto& a : args) cmd += " " + shell_quote(a);
  return run_captured(work_dir, "native", cmd, stdin_text, timeout_s);
}

// The native tool with KAFKA_OPTS set, as run_kafka_tool_with_opts runs Kafka's.
inline tool_result run_native_tool_with_opts(const std::string& work_dir, const std::string& kafka_opts,
                                             const std::string& tool, const std::vector<std::string>& args,
                                             int timeout_s = 120) {
  std::string cmd = "env KAFKA_OPTS=" + shell_quote(kafka_opts) + " " + shell_quote(HW_TOOLS_BINARY) + " " +
                    shell_quote(tool);
  for (auto& a : args) cmd += " " + shell_quote(a);
  return run_captured(work_dir, "native", cmd, "", timeout_s);
}

}  // namespace hw::testing
