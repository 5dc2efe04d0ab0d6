#pragma once
// Runs one of Apache Kafka's command-line tools (through
// scripts/kafka-run-class.sh, jars cached by scripts/fetch-kafka.sh) and
// captures what it printed. Every run is bounded by `timeout`. Header-only
// so each compat test executable can use it without an extra source.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace hw::testing {

struct tool_result {
  int exit_code = -1;  // 124: killed by the timeout
  std::string out;     // stdout
  std::string err;     // stderr
  std::string all() const { return "--- stdout ---\n" + out + "--- stderr ---\n" + err; }
  // Kafka's admin tools name the API a broker lacks in this message.
  bool unsupported(const std::string& api) const {
    const std::string m = "does not support " + api;
    return out.find(m) != std::string::npos || err.find(m) != std::string::npos;
  }
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string read_whole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// work_dir holds the captured output (and the stdin text, if any).
inline tool_result run_kafka_tool(const std::string& work_dir, const std::string& main_class,
                                  const std::vector<std::string>& args, const std::string& stdin_text = "",
                                  int timeout_s = 180) {
  static int run = 0;
  const std::string base = work_dir + "/tool-" + std::to_string(getpid()) + "-" + std::to_string(++run);
  {
    std::ofstream in(base + ".in");
    in << stdin_text;
  }
  std::string cmd = "timeout -k 10 " + std::to_string(timeout_s) + " " + shell_quote(HW_SOURCE_DIR "/scripts/kafka-run-class.sh") +
                    " " + shell_quote(main_class);
  for (auto& a : args) cmd += " " + shell_quote(a);
  cmd += " <" + shell_quote(base + ".in") + " >" + shell_quote(base + ".out") + " 2>" + shell_quote(base + ".err");
  tool_result r;
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_whole(base + ".out");
  r.err = read_whole(base + ".err");
  return r;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

// Whether the tool printed exactly this line on stdout.
inline bool printed_line(const tool_result& r, const std::string& line) {
  auto lines = lines_of(r.out);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// Whether the tool printed a line starting with prefix on stdout.
inline bool printed_line_starting(const tool_result& r, const std::string& prefix) {
  auto lines = lines_of(r.out);
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

// A line of the JVM's own logging ("[0.002s][warning][perf,memops] ..."),
// which it prints on stdout when, for example, another JVM holds the
// hsperfdata file of the same pid: not the tool's output.
inline bool jvm_log_line(const std::string& line) {
  static const std::regex jvm_re(R"(^\[[0-9.]+s\]\[(warning|error|info)\].*)");
  return std::regex_match(line, jvm_re);
}

// The tool's stdout lines, without the JVM's.
inline std::vector<std::string> tool_lines(const tool_result& r) {
  std::vector<std::string> out;
  for (auto& line : lines_of(r.out))
    if (!jvm_log_line(line)) out.push_back(line);
  return out;
}

}  // namespace hw::testing
