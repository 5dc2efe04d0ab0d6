#pragma once
// Kafka 4.3.1's own assignors (or its streams topology configuration)
// behind a pipe: compiles tests/broker/fixtures/assignor_oracle/<main
// class>.java (AssignorOracle, StreamsTopologyOracle) with javac
// against Kafka's jars (once; the classes stay in the build folder until the
// source changes) and runs every case through one JVM. Missing Java or jars
// are reported, never skipped.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

namespace hw::broker::group::consumer::testing {

namespace fs = std::filesystem;

// A tool from $JAVA_HOME/bin, else from PATH.
inline std::optional<fs::path> find_java_tool(const std::string& name) {
  std::error_code ec;
  if (const char* home = getenv("JAVA_HOME"); home && *home) {
    fs::path p = fs::path(home) / "bin" / name;
    if (fs::exists(p, ec)) return p;
  }
  const char* path = getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / name;
    if (fs::exists(p, ec) && access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

inline std::string shell_quoted(const fs::path& p) {
  std::string out = "'";
  for (char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class kafka_assignor_oracle {
 public:
  // The oracle's main class, its source in tests/broker/fixtures/assignor_oracle/.
  explicit kafka_assignor_oracle(std::string main_class = "AssignorOracle") : main_class_(std::move(main_class)) {}

  // Finds Java and the jars and compiles the oracle if needed; an error
  // says what is missing.
  std::optional<std::string> prepare() {
    auto java = find_java_tool("java");
    auto javac = find_java_tool("javac");
    if (!java || !javac)
      return std::string("java and javac are needed (scripts/install-deps.sh installs openjdk-17-jdk-headless)");
    java_ = *java;
    if (auto error = read_java_release()) return error;
    const char* cache = getenv("HW_KAFKA_CACHE");
    const char* home = getenv("HOME");
    fs::path dir = cache && *cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache/highwater/kafka-4.3.1";
    libs_ = dir / "libs";
    if (!fs::exists(libs_ / ".complete") || !fs::exists(libs_ / "kafka-group-coordinator-4.3.1.jar"))
      return "Kafka 4.3.1's jars are not in " + libs_.string() + " (scripts/fetch-kafka.sh fetches them)";
    source_ = fs::path(HW_SOURCE_DIR) / "tests/broker/fixtures/assignor_oracle" / (main_class_ + ".java");
    classes_ = fs::path(HW_ASSIGNOR_ORACLE_DIR);
    if (!fs::exists(source_)) return "the oracle's source is missing: " + source_.string();
    return compile_if_stale(*javac);
  }

  // The Java release the oracle runs on (17, 21, ...).
  int java_release() const { return java_release_; }

  // Kafka's answers to `input`, or an error.
  std::optional<std::string> run(const std::string& input, std::string& output) const {
    std::string tag = std::to_string(getpid());
    fs::path in = classes_ / ("input-" + tag + ".txt"), out = classes_ / ("output-" + tag + ".txt"),
             err = classes_ / ("stderr-" + tag + ".txt");
    std::ofstream(in, std::ios::binary) << input;
    std::string classpath = classes_.string() + ":" + (libs_ / "*").string();
    std::string cmd = shell_quoted(java_) + " -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp " + shell_quoted(classpath) +
                      " " + main_class_ + " < " + shell_quoted(in) + " > " + shell_quoted(out) + " 2> " + shell_quoted(err);
    int status = std::system(cmd.c_str());
    output = read_text(out);
    std::string errors = read_text(err);
    std::error_code ec;
    fs::remove(in, ec);
    fs::remove(out, ec);
    fs::remove(err, ec);
    if (status != 0) return "the oracle failed (status " + std::to_string(status) + "): " + errors;
    return std::nullopt;
  }

 private:
  // From `java -version`: openjdk version "17.0.15" (or "1.8.0_x").
  std::optional<std::string> read_java_release() {
    std::string cmd = shell_quoted(java_) + " -version 2>&1";
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[512];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
      pclose(p);
    }
    size_t quote = out.find('"');
    if (quote == std::string::npos) return "cannot tell the Java release from: " + out;
    java_release_ = std::atoi(out.c_str() + quote + 1);
    if (java_release_ == 1) java_release_ = std::atoi(out.c_str() + quote + 3);
    return std::nullopt;
  }

  std::optional<std::string> compile_if_stale(const fs::path& javac) {
    std::error_code ec;
    fs::path main_class = classes_ / (main_class_ + ".class");
    if (fs::exists(main_class, ec) && fs::last_write_time(main_class, ec) >= fs::last_write_time(source_, ec))
      return std::nullopt;
    // Compiled aside and moved in, so a run that stops halfway leaves no
    // half-made classes behind.
    fs::create_directories(classes_, ec);
    fs::path staging = classes_ / ("compiling-" + std::to_string(getpid()));
    fs::remove_all(staging, ec);
    fs::create_directories(staging, ec);
    fs::path log = staging / "javac.log";
    std::string cmd = shell_quoted(javac) + " -nowarn -d " + shell_quoted(staging) + " -cp " +
                      shell_quoted((libs_ / "*").string()) + " " + shell_quoted(source_) + " > " + shell_quoted(log) +
                      " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::string out = read_text(log);
      fs::remove_all(staging, ec);
      return "javac failed: " + out;
    }
    for (const auto& entry : fs::directory_iterator(staging))
      if (entry.path().extension() == ".class") fs::rename(entry.path(), classes_ / entry.path().filename(), ec);
    fs::remove_all(staging, ec);
    if (!fs::exists(main_class)) return "javac left no " + main_class.string();
    return std::nullopt;
  }

  std::string main_class_;
  fs::path java_, libs_, source_, classes_;
  int java_release_ = 0;
};

}  // namespace hw::broker::group::consumer::testing
