// The native kafka-acls.sh against Kafka 4.3.1's AclCommand: the same
// arguments against the same cluster exit the same way, print the same
// lines on stdout (exception frames aside) and the same message before the
// option table on stderr (the tables' help texts are our own words).
//
// Kafka's tool keeps resources and entries in HashMaps and HashSets whose
// hashes mix in the identity hashes of enum constants (ResourcePattern,
// AccessControlEntry, the operations of "only supports operations [...]"),
// so the order it prints them in changes from one run of the JVM to the
// next: what is compared is each block (a line and the entries under it)
// with its entries as a set, the blocks as a set within each "ACLs for
// principal" section, and a bracketed operation list as a set.
//
// A command that changes the ACLs runs with Kafka's tool first, is undone,
// and runs with the native tool from the same state. The confirmation
// before a removal is answered on a terminal (a pseudo-terminal here):
// Kafka's tool reads it through System.console(), and fails when stdin
// and stdout are not one.
//
// The clusters: Apache Kafka 4.3.1, and Highwater, each with the
// StandardAuthorizer and User:ANONYMOUS a super user on its PLAINTEXT
// listener; the cases run against each (the Java tool against Highwater
// too, so what both tools print of Highwater's answers is compared).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <regex>
#include <sstream>

#include "broker_process.h"
#include "kafka_server.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_acl_command = "org.apache.kafka.tools.AclCommand";

enum class target { kafka, highwater };
void PrintTo(target t, std::ostream* os) { *os << (t == target::kafka ? "Kafka 4.3.1" : "Highwater"); }

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += " " + a;
  return s;
}

// ---- comparing what the tools printed ----

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a terminal's line ends
    out.push_back(line);
  }
  return out;
}

// "[B, A, C]" → "[A, B, C]": an operation list printed from a HashSet.
std::string sorted_brackets(const std::string& line) {
  static const std::regex list(R"(\[([A-Z_]+(, [A-Z_]+)+)\])");
  std::smatch m;
  if (!std::regex_search(line, m, list)) return line;
  std::vector<std::string> items;
  std::istringstream in(m[1].str());
  for (std::string item; std::getline(in, item, ',');) items.push_back(item.substr(item.find_first_not_of(' ')));
  std::sort(items.begin(), items.end());
  std::string sorted;
  for (const auto& i : items) sorted += (sorted.empty() ? "" : ", ") + i;
  return m.prefix().str() + "[" + sorted + "]" + m.suffix().str();
}

// A tool's stdout in an order-free form: stack frames and the JVM's own
// lines dropped; each block (a line, the entry lines under it, the blank
// lines after) with its entries sorted (log lines on a terminal's output
// dropped too); the blocks sorted within each
// "ACLs for principal" section, whose order is Kafka's (a HashSet of
// principals, whose hashes are the strings').
std::vector<std::string> blocks(const std::string& out) {
  static const std::regex skipped(R"(^\s+at .*|^\s*\.\.\. \d+ more$|^\[\d{4}-\d\d-\d\d .*)");
  std::vector<std::string> result, section;
  std::string header, tail;
  std::vector<std::string> entries;
  bool open = false;
  auto close_block = [&] {
    if (!open) return;
    std::sort(entries.begin(), entries.end());
    std::string b = header;
    for (const auto& e : entries) b += "\n" + e;
    section.push_back(b + tail);
    entries.clear();
    tail.clear();
    open = false;
  };
  auto close_section = [&] {
    close_block();
    std::sort(section.begin(), section.end());
    result.insert(result.end(), section.begin(), section.end());
    section.clear();
  };
  for (const auto& raw : split_lines(out)) {
    if (std::regex_match(raw, skipped) || jvm_log_line(raw)) continue;  // frames, log lines
    const std::string line = sorted_brackets(raw);
    const bool entry_line = line.starts_with("\t(") || line.starts_with(" \t(");
    if (entry_line && open && tail.empty()) {
      if (entries.empty() && line[0] == ' ') header += " <space before the first entry>";
      entries.push_back(line.substr(line.find('(')));
    } else if (line.empty() && open) {
      tail += "\n";
    } else {
      if (line.starts_with("ACLs for principal ")) {
        close_section();
        result.push_back(line);
        continue;
      }
      close_block();
      header = line;
      open = true;
    }
  }
  close_section();
  return result;
}

// The message Kafka's tool prints on stderr before its option table.
std::string stderr_message(const std::string& err) {
  static const std::regex log_line(R"(^\[\d{4}-\d\d-\d\d .*)");
  for (const auto& line : split_lines(err))
    if (!std::regex_match(line, log_line) && !jvm_log_line(line)) return sorted_brackets(line);
  return "";
}

void expect_same(const tool_result& java, const tool_result& native, const std::string& what) {
  const std::string both = what + "\njava:\n" + java.all() + "native:\n" + native.all();
  EXPECT_EQ(native.exit_code, java.exit_code) << both;
  EXPECT_EQ(blocks(native.out), blocks(java.out)) << both;
  EXPECT_EQ(stderr_message(native.err), stderr_message(java.err)) << both;
}

// ---- running a tool on a terminal ----

// Runs argv on a new pseudo-terminal (its stdin, stdout and stderr), with
// echo and the output's CR LF translation off, `input` typed ahead (the
// terminal holds it until the tool reads); what it printed, and its exit
// code (124 when killed at the timeout).
tool_result run_on_terminal(const std::vector<std::string>& argv, const std::string& input, int timeout_s = 120) {
  tool_result r;
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    r.err = "no pseudo-terminal";
    return r;
  }
  const std::string slave_name = ptsname(master);
  int slave = ::open(slave_name.c_str(), O_RDWR | O_NOCTTY);
  termios t{};
  tcgetattr(slave, &t);
  t.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHONL);
  t.c_oflag &= ~static_cast<tcflag_t>(ONLCR);
  tcsetattr(slave, TCSANOW, &t);
  std::vector<char*> cargv;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    ioctl(slave, TIOCSCTTY, 0);
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    ::close(master);
    ::close(slave);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  ::close(slave);
  if (!input.empty() && ::write(master, input.data(), input.size()) < 0) r.err = "could not type the input";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool timed_out = false;
  for (;;) {
    pollfd p{master, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once every copy of the terminal is closed
    r.out.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  r.exit_code = timed_out ? 124 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// ---- the clusters ----

const char* const k_authorizer = "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer";
const char* const k_super_users = "super.users=User:ANONYMOUS";

// A cluster to run the tools against, with ACLs enforced and the tools'
// PLAINTEXT principal (User:ANONYMOUS) a super user.
class acl_cluster {
 public:
  explicit acl_cluster(target t) {
    if (t == target::kafka) {
      kafka_ = std::make_unique<differential::kafka_server>();
      if (!kafka_->start(std::string(k_authorizer) + "\n" + k_super_users)) {
        error_ = kafka_->error();
        return;
      }
      dir_ = kafka_->dir();
      bootstrap_ = "127.0.0.1:" + std::to_string(kafka_->port());
      controller_ = "127.0.0.1:" + std::to_string(kafka_->port() + 1);
    } else {
      highwater_ = std::make_unique<broker_process>();
      auto port = start_with_controller_listener(*highwater_, {"--override", k_authorizer, "--override", k_super_users});
      if (!port) {
        error_ = highwater_->log();
        return;
      }
      dir_ = highwater_->dir();
      bootstrap_ = "127.0.0.1:" + std::to_string(highwater_->port());
      controller_ = "127.0.0.1:" + std::to_string(*port);
    }
    ready_ = true;
  }
  bool ready() const { return ready_; }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }
  const std::string& bootstrap() const { return bootstrap_; }
  const std::string& controller() const { return controller_; }

 private:
  std::unique_ptr<differential::kafka_server> kafka_;
  std::unique_ptr<broker_process> highwater_;
  bool ready_ = false;
  std::string error_, dir_, bootstrap_, controller_;
};

// Both tools with the same arguments, --bootstrap-server first unless the
// arguments say how to connect.
struct both_tools {
  std::string dir;
  std::string bootstrap;

  std::vector<std::string> with_bootstrap(std::vector<std::string> args) const {
    if (args.empty() || (args[0] != "--bootstrap-server" && args[0] != "--bootstrap-controller"))
      args.insert(args.begin(), {"--bootstrap-server", bootstrap});
    return args;
  }
  tool_result java(const std::vector<std::string>& args, const std::string& input = "") const {
    std::string cmd;
    for (const auto& a : java_argv(args)) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
    return run_captured(dir, "tool", cmd, input, 180);
  }
  tool_result native(const std::vector<std::string>& args, const std::string& input = "") const {
    return run_native_tool(dir, "kafka-acls.sh", with_bootstrap(args), input);
  }
  // Kafka's tool, with a JVM that starts in half the time (C1 only, the
  // serial collector: nothing the tool prints depends on them).
  std::vector<std::string> java_argv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"env", "KAFKA_JVM_PERFORMANCE_OPTS=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
                                  HW_SOURCE_DIR "/scripts/kafka-run-class.sh", k_acl_command};
    for (const auto& a : with_bootstrap(args)) argv.push_back(a);
    return argv;
  }
  // The same command that changes nothing (or fails), twice.
  void same(const std::vector<std::string>& args) const {
    expect_same(java(args), native(args), joined(args));
  }
  // A command that changes the ACLs: Kafka's tool, then `undo` (by the
  // native tool), then the native one from the same state.
  void same_change(const std::vector<std::string>& args, const std::vector<std::string>& undo) const {
    const auto j = java(args);
    const auto u = native(undo);
    EXPECT_EQ(u.exit_code, 0) << joined(undo) << "\n" << u.all();
    expect_same(j, native(args), joined(args));
  }
  // On a terminal, `input` typed ahead.
  tool_result java_on_terminal(const std::vector<std::string>& args, const std::string& input) const {
    return run_on_terminal(java_argv(args), input);
  }
  tool_result native_on_terminal(const std::vector<std::string>& args, const std::string& input) const {
    std::vector<std::string> argv{HW_TOOLS_BINARY, "kafka-acls.sh"};
    for (const auto& a : with_bootstrap(args)) argv.push_back(a);
    return run_on_terminal(argv, input);
  }
};

class NativeAclsIT : public ::testing::TestWithParam<target> {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<acl_cluster>(GetParam());
    ASSERT_TRUE(cluster_->ready()) << cluster_->error();
    tools_ = {cluster_->dir(), cluster_->bootstrap()};
  }
  void TearDown() override { cluster_.reset(); }

  std::unique_ptr<acl_cluster> cluster_;
  both_tools tools_;
};

// Command lines refused before anything is sent: no cluster needed.
TEST(NativeAclsCommandLine, RefusedAsKafkaRefusesThem) {
  char dir_template[] = "/tmp/hw-acls-cli-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const both_tools tools{dir_template, "127.0.0.1:1"};
  tools.same({"--topic", "t"});                                         // no action
  tools.same({"--bootstrap-controller", "127.0.0.1:1", "--bootstrap-server", "127.0.0.1:1", "--list"});
  tools.same({"--list", "--bogus"});
  tools.same({"--list", "--producer", "--topic", "t"});
  tools.same({"--add", "--producer", "--operation", "Read", "--topic", "t", "--allow-principal", "User:a"});
  tools.same({"--add", "--consumer", "--topic", "t", "--allow-principal", "User:a"});  // no --group
  tools.same({"--add", "--idempotent", "--topic", "t", "--allow-principal", "User:a"});
  tools.same({"--add", "--principal", "User:a", "--topic", "t"});
  tools.same({"--add", "--topic", "t", "--resource-pattern-type", "MATCH", "--allow-principal", "User:a"});
  tools.same({"--add", "--topic", "t"});                                // no principal
  tools.same({"--add", "--allow-principal", "User:a"});                 // no resource
  tools.same({"--add", "--group", "g", "--operation", "Write", "--allow-principal", "User:a"});
  tools.same({"--add", "--transactional-id", "x", "--operation", "IDEMPOTENT_WRITE", "--allow-principal", "User:a"});
  tools.same({"--add", "--topic", "t", "--allow-principal", "alice"});
  tools.same({"--list", "--resource-pattern-type", "foo"});
  tools.same({"--list", "--resource-pattern-type", "unknown"});
  tools.same({"--list", "--command-config", std::string(dir_template) + "/missing.properties"});
  tools.same({"--bootstrap-server", "nowhere", "--list"});
  std::system(("rm -rf " + std::string(dir_template)).c_str());
}

// One test, so that the cluster starts once. Adding: entries from every
// principal, operation and host given, what --producer and --consumer
// stand for, a binding that already exists, a prefixed pattern of '*', and
// one the cluster refuses. Listing them, by resource, pattern type and
// principal. Removing: the question on a terminal answered no and yes, and
// what Kafka's tool does without a terminal; with --force, given entries,
// and everything on a resource.
TEST_P(NativeAclsIT, AddListAndRemove) {
  const auto& t = tools_;
  t.same_change({"--add", "--topic", "orders", "--group", "billing", "--allow-principal", "User:alice",
                 "--allow-principal", "User:bob", "--operation", "Read", "--operation", "Describe", "--allow-host",
                 "10.0.0.1", "--deny-principal", "User:eve"},
                {"--remove", "--force", "--topic", "orders", "--group", "billing"});
  // alice's exists, carol's is added
  t.same_change({"--add", "--topic", "orders", "--allow-principal", "User:alice", "--allow-principal", "User:carol",
                 "--operation", "Read", "--allow-host", "10.0.0.1"},
                {"--remove", "--force", "--topic", "orders", "--allow-principal", "User:carol", "--operation", "Read",
                 "--allow-host", "10.0.0.1"});
  t.same({"--add", "--topic", "orders", "--allow-principal", "User:carol", "--operation", "Read", "--allow-host",
          "10.0.0.1"});  // now both exist
  t.same_change({"--add", "--producer", "--idempotent", "--topic", "events", "--transactional-id", "tx-1",
                 "--allow-principal", "User:pat"},
                {"--remove", "--force", "--topic", "events", "--transactional-id", "tx-1", "--cluster"});
  t.same_change({"--add", "--consumer", "--producer", "--topic", "both", "--group", "both-g", "--allow-principal",
                 "User:bo", "--allow-host", "1.2.3.4"},
                {"--remove", "--force", "--topic", "both", "--group", "both-g"});
  t.same_change({"--add", "--topic", "*", "--resource-pattern-type", "PREFIXED", "--allow-principal", "User:all"},
                {"--remove", "--force", "--topic", "*", "--resource-pattern-type", "PREFIXED"});
  t.same_change({"--add", "--topic", "ord", "--resource-pattern-type", "prefixed", "--deny-principal", "User:mallory",
                 "--operation", "Write", "--deny-host", "6.6.6.6"},
                {"--remove", "--force", "--topic", "ord", "--resource-pattern-type", "PREFIXED"});
  t.same({"--add", "--topic", " ", "--allow-principal", "User:a"});  // an empty name: the cluster refuses it
  t.same({"--list"});
  t.same({"--list", "--topic", "orders", "--resource-pattern-type", "MATCH"});
  t.same({"--list", "--principal", "User:alice", "--principal", "User:eve", "--principal", "User:nobody"});
  t.same({"--list", "--group", "billing", "--principal"});
  t.same({"--bootstrap-controller", cluster_->controller(), "--list", "--transactional-id", "tx-1"});

  const std::vector<std::string> add{"--add", "--topic", "r1", "--group", "r1-g", "--allow-principal", "User:a",
                                     "--allow-principal", "User:b", "--operation", "Read"};
  auto added = t.native(add);
  ASSERT_EQ(added.exit_code, 0) << added.all();

  const std::vector<std::string> remove_a{"--remove", "--topic", "r1", "--allow-principal", "User:a", "--operation",
                                          "Read"};
  t.same(remove_a);  // stdin is no terminal: Kafka's tool fails after the question
  expect_same(t.java_on_terminal(remove_a, "n\n"), t.native_on_terminal(remove_a, "n\n"), "no:" + joined(remove_a));
  // End of input (^D) instead of an answer.
  expect_same(t.java_on_terminal(remove_a, "\x04"), t.native_on_terminal(remove_a, "\x04"), "EOF:" + joined(remove_a));
  t.same({"--list", "--topic", "r1"});  // nothing removed

  const auto java_yes = t.java_on_terminal(remove_a, "Y\n");
  const auto java_left = t.java({"--list"});
  ASSERT_EQ(t.native(add).exit_code, 0);
  const auto native_yes = t.native_on_terminal(remove_a, "Y\n");
  expect_same(java_yes, native_yes, "yes:" + joined(remove_a));
  expect_same(java_left, t.native({"--list"}), "after yes");

  // Both resources, both answered yes.
  const std::vector<std::string> remove_all{"--remove", "--topic", "r1", "--group", "r1-g"};
  const auto java_all = t.java_on_terminal(remove_all, "y\ny\n");
  const auto java_after_all = t.java({"--list"});
  ASSERT_EQ(t.native(add).exit_code, 0);
  expect_same(java_all, t.native_on_terminal(remove_all, "y\ny\n"), "yes, yes:" + joined(remove_all));
  expect_same(java_after_all, t.native({"--list"}), "after yes, yes");

  ASSERT_EQ(t.native(add).exit_code, 0);
  t.same_change({"--remove", "--force", "--group", "r1-g", "--allow-principal", "User:b", "--operation", "Read"},
                {"--add", "--group", "r1-g", "--allow-principal", "User:b", "--operation", "Read"});
  t.same_change({"--remove", "--force", "--topic", "r1", "--group", "r1-g"}, add);
  t.same({"--list"});
}

INSTANTIATE_TEST_SUITE_P(Clusters, NativeAclsIT, ::testing::Values(target::kafka, target::highwater),
                         [](const auto& info) { return info.param == target::kafka ? "Kafka" : "Highwater"; });

}  // namespace
}  // namespace hw::testing
