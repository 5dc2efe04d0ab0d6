#pragma once
// Runs one of Apache Kafka's command-line tools (through
// scripts/kafka-run-class.sh, jars cached by scripts/fetch-kafka.sh) and
// captures what it printed: to its end (run_kafka_tool, bounded by
// `timeout`) or in the background while the test goes on (background_tool).
// Also reads the whitespace tables the admin tools print. Header-only so
// each compat test executable can use it without an extra source.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
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

// The last `n` characters of text, for failure messages.
inline std::string tail(const std::string& text, size_t n) {
  if (text.size() <= n) return text;
  return "[... " + std::to_string(text.size() - n) + " bytes ...]\n" + text.substr(text.size() - n);
}

inline std::string read_whole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `command` (already quoted) under `timeout`, with stdin_text as its
// input, and captures what it printed; the files go in work_dir, named
// after `tag`.
inline tool_result run_captured(const std::string& work_dir, const std::string& tag, const std::string& command,
                                const std::string& stdin_text, int timeout_s) {
  static int run = 0;
  const std::string base = work_dir + "/" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(++run);
  {
    std::ofstream in(base + ".in");
    in << stdin_text;
  }
  std::string cmd = "timeout -k 10 " + std::to_string(timeout_s) + " " + command;
  cmd += " <" + shell_quote(base + ".in") + " >" + shell_quote(base + ".out") + " 2>" + shell_quote(base + ".err");
  tool_result r;
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_whole(base + ".out");
  r.err = read_whole(base + ".err");
  return r;
}

// work_dir holds the captured output (and the stdin text, if any).
inline tool_result run_kafka_tool(const std::string& work_dir, const std::string& main_class,
                                  const std::vector<std::string>& args, const std::string& stdin_text = "",
                                  int timeout_s = 180) {
  std::string cmd = shell_quote(HW_SOURCE_DIR "/scripts/kafka-run-class.sh") + " " + shell_quote(main_class);
  for (auto& a : args) cmd += " " + shell_quote(a);
  return run_captured(work_dir, "tool", cmd, stdin_text, timeout_s);
}

// Kafka's tool with KAFKA_OPTS set: the JVM options Kafka's scripts pass on
// (-Djava.security.auth.login.config=<file> ...).
inline tool_result run_kafka_tool_with_opts(const std::string& work_dir, const std::string& kafka_opts,
                                            const std::string& main_class, const std::vector<std::string>& args,
                                            int timeout_s = 180) {
  std::string cmd = "env KAFKA_OPTS=" + shell_quote(kafka_opts) + " " +
                    shell_quote(HW_SOURCE_DIR "/scripts/kafka-run-class.sh") + " " + shell_quote(main_class);
  for (auto& a : args) cmd += " " + shell_quote(a);
  return run_captured(work_dir, "tool", cmd, "", timeout_s);
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

inline std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// The rows of a whitespace table whose header line starts with
// first_column (kafka-consumer-groups --describe: "GROUP"): one map
// column -> value per row; lines of another width are skipped.
inline std::vector<std::map<std::string, std::string>> table_rows(const std::string& text,
                                                                  const std::string& first_column) {
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  for (auto& line : lines_of(text)) {
    auto words = words_of(line);
    if (!words.empty() && words[0] == first_column) {
      header = words;
      continue;
    }
    if (header.empty() || words.size() != header.size()) continue;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = words[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

// One of Kafka's tools left running while the test goes on: the producer
// and consumer a user keeps open while brokers come and go, or several
// copiers at once. Its stdout and stderr go to <work_dir>/<name>.out/.err,
// read as they grow. With timeout_s it runs under `timeout -k 10`, which
// passes the signals it gets on to the JVM; without, the pid is the JVM's
// (the script execs java). Either way SIGTERM runs the JVM's shutdown
// hooks. A tool still running when this is destroyed gets SIGTERM, and
// SIGKILL 15 s later.
class background_tool {
 public:
  background_tool(const std::string& work_dir, const std::string& name, const std::string& main_class,
                  const std::vector<std::string>& args, int timeout_s = 0)
      : base_(work_dir + "/" + name) {
    std::vector<std::string> argv{HW_SOURCE_DIR "/scripts/kafka-run-class.sh", main_class};
    argv.insert(argv.end(), args.begin(), args.end());
    spawn(std::move(argv), timeout_s);
  }
  // Any program (argv[0] looked up on PATH) rather than a Kafka class.
  struct program {
    std::vector<std::string> argv;
  };
  background_tool(const std::string& work_dir, const std::string& name, program p, int timeout_s = 0)
      : base_(work_dir + "/" + name) {
    spawn(std::move(p.argv), timeout_s);
  }
  background_tool(const background_tool&) = delete;
  background_tool& operator=(const background_tool&) = delete;
  ~background_tool() {
    if (running() && !stop(SIGTERM, std::chrono::seconds(15))) stop(SIGKILL, std::chrono::seconds(10));
  }

  bool started() const { return pid_ > 0; }
  bool running() {
    if (pid_ <= 0 || exit_code_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) exit_code_ = code_of(status);
    return !exit_code_;
  }
  // Sends sig and waits for the exit: the exit code (or -signal), nullopt on timeout.
  std::optional<int> stop(int sig, std::chrono::milliseconds timeout) {
    if (running()) ::kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (running() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return exit_code_;
  }
  // Waits for the tool to exit on its own (with timeout_s, at most that
  // plus 10 s) and returns all it printed.
  tool_result wait() {
    tool_result r;
    if (pid_ <= 0) {
      r.err = "could not start " + base_;
      return r;
    }
    if (!exit_code_) {
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      exit_code_ = code_of(status);
    }
    r.exit_code = *exit_code_;
    r.out = read_whole(base_ + ".out");
    r.err = read_whole(base_ + ".err");
    return r;
  }

  // What it has printed so far.
  std::string out_so_far() const { return read_whole(base_ + ".out"); }
  // Complete stdout lines not returned before.
  std::vector<std::string> new_lines() {
    std::ifstream in(base_ + ".out", std::ios::binary);
    in.seekg(static_cast<std::streamoff>(consumed_));
    std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto end = rest.rfind('\n');
    if (end == std::string::npos) return {};
    consumed_ += end + 1;
    std::vector<std::string> lines;
    std::istringstream split(rest.substr(0, end + 1));
    std::string line;
    while (std::getline(split, line)) lines.push_back(line);
    return lines;
  }
  // Both outputs, for a failure message (the last 20000 bytes of stdout).
  std::string all() const {
    std::string out = read_whole(base_ + ".out");
    if (out.size() > 20000) out = "[...]\n" + out.substr(out.size() - 20000);
    return "--- stdout ---\n" + out + "--- stderr ---\n" + read_whole(base_ + ".err");
  }

 private:
  void spawn(std::vector<std::string> command, int timeout_s) {
    std::vector<std::string> argv;
    if (timeout_s > 0) argv = {"timeout", "-k", "10", std::to_string(timeout_s)};
    argv.insert(argv.end(), command.begin(), command.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, (base_ + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, (base_ + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawnp(&pid_, cargv[0], &fa, nullptr, cargv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  static int code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status); }

  std::string base_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  size_t consumed_ = 0;
};

}  // namespace hw::testing
