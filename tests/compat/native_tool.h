#pragma once
// Runs one of the native tools (tools/, the highwater-tools executable,
// called by the name of Kafka's script) the way run_kafka_tool runs Kafka's
// Java tool, so that a test can give both the same arguments and compare
// what they printed. Header-only, like kafka_tool.h.

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "kafka_tool.h"

namespace hw::testing {

// tool: Kafka's script name, e.g. "kafka-topics.sh".
inline tool_result run_native_tool(const std::string& work_dir, const std::string& tool,
                                   const std::vector<std::string>& args, const std::string& stdin_text = "",
                                   int timeout_s = 120) {
  static int run = 0;
  const std::string base = work_dir + "/native-" + std::to_string(getpid()) + "-" + std::to_string(++run);
  {
    std::ofstream in(base + ".in");
    in << stdin_text;
  }
  std::string cmd = "timeout -k 10 " + std::to_string(timeout_s) + " " + shell_quote(HW_TOOLS_BINARY) + " " +
                    shell_quote(tool);
  for (auto& a : args) cmd += " " + shell_quote(a);
  cmd += " <" + shell_quote(base + ".in") + " >" + shell_quote(base + ".out") + " 2>" + shell_quote(base + ".err");
  tool_result r;
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_whole(base + ".out");
  r.err = read_whole(base + ".err");
  return r;
}

}  // namespace hw::testing
