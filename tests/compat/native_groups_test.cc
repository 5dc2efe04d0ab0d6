// The native kafka-consumer-groups.sh and kafka-get-offsets.sh against Kafka
// 4.3.1's ConsumerGroupCommand and GetOffsetShell: the same arguments
// against the same highwater print the same stdout, line by line, exit the
// same way, and print the same messages on stderr. Groups are made by
// Kafka's console consumer (one that stops after --max-messages, one left
// running as an active member), by two console consumers with
// group.protocol=consumer (a KIP-848 group, described through
// ConsumerGroupDescribe: every view while both run, and once both left) and
// by committing offsets directly. Where a
// command changes a group, the Java tool runs first, the group is put back
// (deleted and committed again), and the native tool runs on the same
// state; Kafka's tool then describes what each left behind.
//
// Nothing in stdout is normalised. The member columns (CONSUMER-ID, HOST,
// CLIENT-ID) are those of the very member both tools describe. On stderr,
// Kafka's log lines (timestamped) and stack traces are left out: the native
// tool prints neither; and where Kafka names a Set's elements in an order
// that changes from run to run, only the message's fixed part is compared.

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <regex>
#include <sstream>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/offset_commit.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_groups_command = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
const char* const k_get_offsets = "org.apache.kafka.tools.GetOffsetShell";
const char* const k_console_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";

// stdout as printed, empty lines too (the tables begin with one), without
// the JVM's own log lines.
std::vector<std::string> stdout_lines(const tool_result& r) {
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (!jvm_log_line(line)) out.push_back(line);
  return out;
}

// Kafka's messages on stderr: without log4j's lines, stack traces (the
// exception line and its frames) and the JVM's own lines.
std::vector<std::string> stderr_messages(const std::string& err) {
  static const std::regex log_line(R"(^\[\d{4}-\d\d-\d\d .*)");
  static const std::regex trace_line(
      R"(^(\s+at |\s*\.\.\. \d+ more|Caused by: |(java|javax|org\.apache|joptsimple)\.[\w.$]+(Exception|Error)\b).*)");
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!std::regex_match(line, log_line) && !std::regex_match(line, trace_line) && !jvm_log_line(line))
      out.push_back(line);
  return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string both_outputs(const tool_result& java, const tool_result& native) {
  return "\njava:\n" + java.all() + "native:\n" + native.all();
}

enum class stderr_check { messages, first_line, none };

void expect_same(const tool_result& java, const tool_result& native, const std::string& what,
                 stderr_check check = stderr_check::messages) {
  EXPECT_EQ(stdout_lines(native), stdout_lines(java)) << what << both_outputs(java, native);
  EXPECT_EQ(native.exit_code, java.exit_code) << what << both_outputs(java, native);
  if (check == stderr_check::messages) {
    EXPECT_EQ(stderr_messages(native.err), stderr_messages(java.err)) << what << both_outputs(java, native);
  } else if (check == stderr_check::first_line) {
    EXPECT_EQ(first_line(native.err), first_line(java.err)) << what << both_outputs(java, native);
  }
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += " " + a;
  return s;
}

struct committed_offset {
  std::string topic;
  int32_t partition;
  int64_t offset;
};

class NativeGroupsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0"})) << broker.log();
  }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  std::vector<std::string> with_bootstrap(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return args;
  }
  tool_result java(const std::vector<std::string>& args) {
    return run_kafka_tool(broker.dir(), k_groups_command, with_bootstrap(args));
  }
  tool_result native(const std::vector<std::string>& args) {
    return run_native_tool(broker.dir(), "kafka-consumer-groups.sh", with_bootstrap(args));
  }
  // Both tools, same arguments, same state.
  void same(const std::vector<std::string>& args, stderr_check check = stderr_check::messages) {
    auto j = java(args);
    auto n = native(args);
    expect_same(j, n, joined(args), check);
  }
  // A command that changes `group`: Kafka's tool, then the group as it was,
  // then the native tool; both outputs and what each left compared.
  void same_change(const std::vector<std::string>& args, const std::vector<std::string>& groups,
                   const std::vector<std::vector<committed_offset>>& state) {
    auto j = java(args);
    auto after_java = java({"--describe", "--all-groups", "--verbose"});
    for (size_t i = 0; i < groups.size(); ++i) restore(groups[i], state[i]);
    auto n = native(args);
    auto after_native = java({"--describe", "--all-groups", "--verbose"});
    expect_same(j, n, joined(args));
    expect_same(after_java, after_native, "state after" + joined(args));
  }

  // Topics orders (3 partitions: 5, 3 and 0 records) and payments (2: 4
  // and 6), record timestamps 1700000000000 + i within each batch.
  void make_topics() {
    raw_client c(broker.port());
    ASSERT_EQ(c.create_topic("orders", 3)->topics[0].error_code, 0);
    ASSERT_EQ(c.create_topic("payments", 2)->topics[0].error_code, 0);
    ASSERT_EQ(c.produce("orders", 0, simple_batch(5))->error_code, 0);
    ASSERT_EQ(c.produce("orders", 1, simple_batch(3))->error_code, 0);
    ASSERT_EQ(c.produce("payments", 0, simple_batch(4))->error_code, 0);
    ASSERT_EQ(c.produce("payments", 1, simple_batch(6))->error_code, 0);
  }

  // Offsets committed as an admin commits them (no member, generation -1).
  void commit(const std::string& group, const std::vector<committed_offset>& offsets) {
    msg::offset_commit_request req;
    req.group_id = group;
    req.generation_id_or_member_epoch = -1;
    for (const auto& o : offsets) {
      auto it = std::find_if(req.topics.begin(), req.topics.end(), [&](const auto& t) { return t.name == o.topic; });
      if (it == req.topics.end()) {
        it = req.topics.emplace(req.topics.end());
        it->name = o.topic;
      }
      auto& p = it->partitions.emplace_back();
      p.partition_index = o.partition;
      p.committed_offset = o.offset;
    }
    // The first group of a cluster waits for its coordinator (the offsets topic) to be ready.
    std::string last;
    ASSERT_TRUE(wait_until(
        [&] {
          raw_client c(broker.port());
          if (c.find_coordinator(group, 0).first != 0) return false;
          auto resp = c.call<msg::offset_commit_response>(8, 8, req);
          if (!resp) return false;
          for (const auto& t : resp->topics)
            for (const auto& p : t.partitions)
              if (p.error_code != 0) {
                last = t.name + "-" + std::to_string(p.partition_index) + ": " + std::to_string(p.error_code);
                return false;
              }
          return true;
        },
        30s))
        << group << " " << last;
  }

  // The group deleted and its offsets committed again.
  void restore(const std::string& group, const std::vector<committed_offset>& offsets) {
    msg::delete_groups_request req;
    req.groups_names = {group};
    raw_client c(broker.port());
    auto resp = c.call<msg::delete_groups_response>(42, 2, req);
    ASSERT_TRUE(resp);
    commit(group, offsets);
  }

  // What the native tool prints for the group, for waiting on it.
  std::string native_describe(const std::string& group, const std::string& sub = "") {
    std::vector<std::string> args{"--describe", "--group", group};
    if (!sub.empty()) args.push_back(sub);
    return native(args).out;
  }

  broker_process broker;
};

TEST_F(NativeGroupsIT, ListAndDescribeMatchKafka) {
  make_topics();
  // A group of Kafka's console consumer, which commits what it read on exit.
  auto consumed = run_kafka_tool(broker.dir(), k_console_consumer,
                                 {"--bootstrap-server", bootstrap(), "--topic", "orders", "--group", "readers",
                                  "--from-beginning", "--max-messages", "6", "--timeout-ms", "60000"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.all();
  commit("ledger", {{"orders", 0, 2}, {"payments", 1, 1}, {"payments", 0, 4}});

  same({"--list"});
  same({"--list", "--state"});
  same({"--list", "--type"});
  same({"--list", "--state", "--type"});
  same({"--list", "--state", "empty"});
  same({"--list", "--type", "classic", "--state", "Stable,PreparingRebalance"});
  same({"--describe", "--group", "readers"});
  same({"--describe", "--group", "ledger", "--verbose"});
  same({"--describe", "--all-groups"});
  same({"--describe", "--group", "readers", "--members", "--verbose"});
  same({"--describe", "--group", "ledger", "--state"});
  same({"--describe", "--group", "ledger", "--state", "--verbose"});
  same({"--describe", "--group", "ledger", "--offsets", "--timeout", "10000"});
  same({"--describe", "--group", "missing"});
  same({"--describe", "--group", "ledger", "--group", "missing", "--members"});

  // An active member: the console consumer left running.
  background_tool live(broker.dir(), "live-consumer", k_console_consumer,
                       {"--bootstrap-server", bootstrap(), "--topic", "payments", "--group", "live", "--from-beginning",
                        "--consumer-property", "auto.commit.interval.ms=200"},
                       300);
  ASSERT_TRUE(live.started());
  // Stable, both partitions assigned, everything read and committed.
  ASSERT_TRUE(wait_until(
      [&] {
        auto rows = table_rows(native_describe("live"), "GROUP");
        return rows.size() == 2 && std::all_of(rows.begin(), rows.end(), [](auto& r) {
                 return r["LAG"] == "0" && r["CONSUMER-ID"] != "-";
               });
      },
      90s))
      << native_describe("live") << live.all();
  same({"--describe", "--group", "live"});
  same({"--describe", "--group", "live", "--verbose"});
  same({"--describe", "--group", "live", "--members"});
  same({"--describe", "--group", "live", "--members", "--verbose"});
  same({"--describe", "--group", "live", "--state"});
  same({"--describe", "--group", "live", "--state", "--verbose"});
  same({"--describe", "--all-groups", "--members"});
  same({"--list", "--state", "--type"});
  same({"--reset-offsets", "--group", "live", "--topic", "payments", "--to-earliest", "--dry-run"});
  same({"--delete", "--group", "live"});
  same({"--delete-offsets", "--group", "live", "--topic", "payments"});

  // The member gone: an empty group with its commits.
  ASSERT_TRUE(live.stop(SIGTERM, 30s)) << live.all();
  ASSERT_TRUE(wait_until([&] { return native_describe("live", "--state").find("Empty") != std::string::npos; }, 60s))
      << native_describe("live", "--state");
  same({"--describe", "--group", "live"});
  same({"--describe", "--group", "live", "--members", "--verbose"});
}

TEST_F(NativeGroupsIT, ResetOffsetsMatchKafka) {
  make_topics();
  const std::vector<committed_offset> initial{{"orders", 0, 1}, {"orders", 1, 3}, {"payments", 0, 2}};
  commit("rg", initial);

  // Dry runs change nothing: one state for both tools.
  same({"--reset-offsets", "--group", "rg", "--topic", "orders", "--to-earliest"});
  same({"--reset-offsets", "--group", "rg", "--all-topics", "--to-latest", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders:0,2", "--topic", "payments", "--to-offset", "4",
        "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders:0,1", "--topic", "payments:0", "--shift-by", "-2",
        "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders:0,1", "--shift-by", "10", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "payments", "--shift-by", "1", "--dry-run"},
       stderr_check::first_line);
  same({"--reset-offsets", "--group", "rg", "--topic", "orders", "--topic", "payments", "--to-current", "--dry-run"});
  same({"--reset-offsets", "--group", "fresh", "--topic", "orders", "--topic", "payments", "--to-current", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--all-topics", "--to-datetime", "2023-11-14T22:13:20.002", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders", "--to-datetime", "2023-11-14T23:13:20.001+01:00",
        "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--all-topics", "--by-duration", "P1D", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--group", "fresh", "--topic", "orders", "--to-latest", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders", "--to-earliest", "--dry-run", "--export"});
  same({"--reset-offsets", "--group", "rg", "--group", "fresh", "--topic", "payments:1", "--to-earliest", "--dry-run",
        "--export"});
  same({"--reset-offsets", "--group", "rg", "--topic", "missing", "--to-earliest", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders:9", "--to-earliest", "--dry-run"});
  same({"--reset-offsets", "--group", "rg", "--topic", "orders:x", "--to-earliest", "--dry-run"}, stderr_check::first_line);
  same({"--reset-offsets", "--group", "rg", "--topic", "orders", "--to-datetime", "2023-11-14", "--dry-run"});

  // --execute commits: each tool from the same starting state.
  same_change({"--reset-offsets", "--group", "rg", "--topic", "orders", "--to-offset", "2", "--execute"}, {"rg"},
              {initial});
  restore("rg", initial);
  same_change({"--reset-offsets", "--group", "rg", "--all-topics", "--shift-by", "-1", "--execute"}, {"rg"}, {initial});
  restore("rg", initial);
  same_change({"--reset-offsets", "--group", "rg", "--topic", "payments", "--to-earliest", "--execute"}, {"rg"},
              {initial});
}

TEST_F(NativeGroupsIT, DeleteOffsetsAndGroupsMatchKafka) {
  make_topics();
  const std::vector<committed_offset> offsets{
      {"orders", 0, 1}, {"orders", 1, 2}, {"orders", 2, 0}, {"payments", 0, 3}, {"payments", 1, 4}};
  const std::vector<committed_offset> other{{"payments", 1, 5}};
  commit("dg", offsets);
  commit("other", other);

  same_change({"--delete-offsets", "--group", "dg", "--topic", "orders:0,1", "--topic", "missing"}, {"dg"}, {offsets});
  restore("dg", offsets);
  same_change({"--delete-offsets", "--group", "dg", "--topic", "payments"}, {"dg"}, {offsets});
  restore("dg", offsets);
  same({"--delete-offsets", "--group", "missing", "--topic", "orders"});
  same({"--delete-offsets", "--group", "dg", "--topic", "orders:x"}, stderr_check::first_line);

  same({"--delete", "--group", "missing"});
  same_change({"--delete", "--group", "dg", "--group", "missing"}, {"dg"}, {offsets});
  restore("dg", offsets);
  same_change({"--delete", "--all-groups"}, {"dg", "other"}, {offsets, other});
}

TEST_F(NativeGroupsIT, CommandLineErrorsMatchKafka) {
  const std::vector<std::vector<std::string>> deterministic{
      {"--describe", "--group", "g", "--members", "--offsets"},
      {"--describe", "--group", "g", "--state", "Stable"},
      {"--delete", "--group", "g", "--topic", "t"},
      {"--reset-offsets", "--group", "g", "--topic", "t", "--to-earliest", "--execute", "--dry-run"},
      {"--reset-offsets", "--group", "g", "--topic", "t", "--to-earliest", "--to-latest", "--dry-run"},
      {"--reset-offsets", "--group", "g", "--to-earliest", "--dry-run"},
      {"--list", "--group", "g"},
      {"--describe", "--group", "g", "--topic", "t"},
      {"--list", "--members"},
      {"--describe", "--type"},
      {"--list", "--foo"},
      {"--list", "--group"},
  };
  for (const auto& args : deterministic) same(args, stderr_check::first_line);
  // No action at all, and no --bootstrap-server.
  same({}, stderr_check::first_line);
  {
    auto j = run_kafka_tool(broker.dir(), k_groups_command, {"--list"});
    auto n = run_native_tool(broker.dir(), "kafka-consumer-groups.sh", {"--list"});
    expect_same(j, n, "--list without --bootstrap-server", stderr_check::first_line);
  }
  // Values read as numbers where Kafka's tool first reads them (exit status 0, as Kafka's).
  same({"--list", "--timeout", "abc"});
  same({"--reset-offsets", "--group", "g", "--topic", "t", "--to-offset", "x1", "--dry-run"});
  // Kafka names the elements of Sets (valid states, types, options) in an order that can change from run to run.
  for (const auto& [args, fixed] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--list", "--state", "bogus"}, "Invalid state list 'bogus'. Valid states are: "},
           {{"--list", "--type", "share"}, "Invalid types list 'share'. Valid types are: "},
           {{"--list", "--describe"}, "Option [describe] takes one of these options: "}}) {
    auto j = java(args);
    auto n = native(args);
    EXPECT_EQ(n.exit_code, j.exit_code) << both_outputs(j, n);
    EXPECT_EQ(stdout_lines(n), stdout_lines(j)) << both_outputs(j, n);
    EXPECT_EQ(first_line(n.err).substr(0, fixed.size()), fixed) << both_outputs(j, n);
    EXPECT_EQ(first_line(j.err).substr(0, fixed.size()), fixed) << both_outputs(j, n);
  }
  // What the native tool does not support fails naming it.
  for (const auto& [args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--reset-offsets", "--group", "g", "--from-file", "plan.csv", "--execute"}, "--from-file"},
           {{"--validate-regex", "a.*"}, "--validate-regex"}}) {
    auto n = native(args);
    EXPECT_EQ(n.exit_code, 1) << n.all();
    EXPECT_NE(n.err.find(flag), std::string::npos) << n.all();
    EXPECT_NE(n.err.find("not supported"), std::string::npos) << n.all();
    EXPECT_TRUE(n.out.empty()) << n.all();
  }
}

// A broker whose consumer groups (KIP-848) heartbeat every second, so that
// members reconcile within a few seconds.
class NativeConsumerGroupsIT : public NativeGroupsIT {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0", "--override",
                              "group.consumer.heartbeat.interval.ms=1000", "--override",
                              "group.consumer.min.heartbeat.interval.ms=1000"}))
        << broker.log();
  }
  // Kafka's console consumer as a member of a consumer-protocol group,
  // reading orders and payments from the start and committing as it goes.
  std::unique_ptr<background_tool> member(const std::string& group, const std::string& client_id) {
    return std::make_unique<background_tool>(
        broker.dir(), client_id, k_console_consumer,
        std::vector<std::string>{"--bootstrap-server", bootstrap(), "--include", "orders|payments", "--group", group,
                                 "--from-beginning", "--consumer-property", "group.protocol=consumer",
                                 "--consumer-property", "client.id=" + client_id, "--consumer-property",
                                 "auto.commit.interval.ms=200"},
        300);
  }
  // Every view of the group, and the listings, by both tools.
  void every_view(const std::string& group) {
    same({"--describe", "--group", group});
    same({"--describe", "--group", group, "--verbose"});
    same({"--describe", "--group", group, "--offsets"});
    same({"--describe", "--group", group, "--members"});
    same({"--describe", "--group", group, "--members", "--verbose"});
    same({"--describe", "--group", group, "--state"});
    same({"--describe", "--group", group, "--state", "--verbose"});
    same({"--describe", "--all-groups", "--members", "--verbose"});
    same({"--list"});
    same({"--list", "--state", "--type"});
    same({"--list", "--type", "consumer"});
    same({"--list", "--type", "Consumer,classic", "--state"});
    same({"--list", "--state", "stable", "--type", "consumer"});
    same({"--list", "--state", "Empty", "--type"});
  }
};

TEST_F(NativeConsumerGroupsIT, ConsumerProtocolGroupMatchesKafka) {
  make_topics();
  commit("ledger", {{"orders", 0, 2}, {"payments", 1, 1}});  // a classic group beside it
  auto first = member("cg", "cg-member-1");
  auto second = member("cg", "cg-member-2");
  ASSERT_TRUE(first->started() && second->started());
  // Both members hold the five partitions between them (assignment and
  // target agree, at the target's epoch) and have committed all they read.
  auto settled = [&] {
    auto offsets = table_rows(native_describe("cg"), "GROUP");
    auto members = table_rows(native({"--describe", "--group", "cg", "--members", "--verbose"}).out, "GROUP");
    size_t partitions = 0;
    for (auto& m : members) {
      if (m["CURRENT-ASSIGNMENT"] != m["TARGET-ASSIGNMENT"] || m["CURRENT-EPOCH"] != m["TARGET-EPOCH"]) return false;
      partitions += std::stoul(m["#PARTITIONS"]);
    }
    return members.size() == 2 && partitions == 5 && offsets.size() == 5 &&
           std::all_of(offsets.begin(), offsets.end(),
                       [](auto& r) { return r["LAG"] == "0" && r["CONSUMER-ID"] != "-"; }) &&
           native_describe("cg", "--state").find("Stable") != std::string::npos;
  };
  ASSERT_TRUE(wait_until(settled, 120s)) << native_describe("cg", "--members") << first->all() << second->all();
  // The new protocol's description: ConsumerGroupDescribe, not DescribeGroups.
  const std::string state = native({"--describe", "--group", "cg", "--state", "--verbose"}).out;
  EXPECT_NE(state.find(" uniform "), std::string::npos) << state;
  EXPECT_EQ(table_rows(native({"--list", "--type"}).out, "GROUP").size(), 2u);
  every_view("cg");

  // Both members gone: an empty consumer group with its commits.
  ASSERT_TRUE(first->stop(SIGTERM, 30s)) << first->all();
  ASSERT_TRUE(second->stop(SIGTERM, 30s)) << second->all();
  ASSERT_TRUE(wait_until([&] { return native_describe("cg", "--state").find("Empty") != std::string::npos; }, 60s))
      << native_describe("cg", "--state");
  every_view("cg");
}

class NativeGetOffsetsIT : public NativeGroupsIT {
 protected:
  void same_offsets(const std::vector<std::string>& args, stderr_check check = stderr_check::messages) {
    auto full = with_bootstrap(args);
    auto j = run_kafka_tool(broker.dir(), k_get_offsets, full);
    auto n = run_native_tool(broker.dir(), "kafka-get-offsets.sh", full);
    expect_same(j, n, joined(full), check);
  }
};

TEST_F(NativeGetOffsetsIT, OffsetsMatchKafka) {
  make_topics();
  {
    raw_client c(broker.port());
    ASSERT_EQ(c.create_topic("audit", 1)->topics[0].error_code, 0);
    ASSERT_EQ(c.produce("audit", 0, simple_batch(2))->error_code, 0);
  }
  for (const char* time : {"-1", "-2", "-3", "latest", "earliest", "max-timestamp", "-4", "1700000000002",
                           "1700000000099", "0"})
    same_offsets({"--time", time});
  same_offsets({"--exclude-internal-topics"});
  same_offsets({"--topic", "ord.*"});
  same_offsets({"--topic", "orders,audit", "--partitions", "0,1", "--time", "-2"});
  same_offsets({"--topic-partitions", "orders:1-,payments:-1,:0"});
  same_offsets({"--topic-partitions", "audit,payments:1", "--time", "1700000000003"});
  same_offsets({"--partitions", "1", "--exclude-internal-topics"});
  // Errors: Kafka's message on stderr, exit status 1.
  same_offsets({"--time", "bogus"});
  same_offsets({"--topic", "nope"});
  same_offsets({"--topic-partitions", "a:b:c"});
  same_offsets({"--partitions", "x"});
  same_offsets({"--topic-partitions", "orders", "--topic", "orders"});
  same_offsets({"--topic", "("}, stderr_check::first_line);
  same_offsets({"--foo"});
  same_offsets({"--time"});
  {
    auto j = run_kafka_tool(broker.dir(), k_get_offsets, {"--bootstrap-server", ",,"});
    auto n = run_native_tool(broker.dir(), "kafka-get-offsets.sh", {"--bootstrap-server", ",,"});
    expect_same(j, n, "--bootstrap-server ,,", stderr_check::first_line);
    j = run_kafka_tool(broker.dir(), k_get_offsets, {"--topic", "orders"});
    n = run_native_tool(broker.dir(), "kafka-get-offsets.sh", {"--topic", "orders"});
    expect_same(j, n, "no --bootstrap-server", stderr_check::first_line);
  }
}

}  // namespace
}  // namespace hw::testing
