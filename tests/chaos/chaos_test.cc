// Jepsen-style chaos runs: three combined broker+controller nodes (each on
// its own network namespace when the machine allows, see cluster.h) under a
// seeded schedule of faults (schedule.h: SIGKILL, SIGSTOP, clean restarts,
// a node cut off, a link cut, one at a time), while idempotent acks=all
// producers write numbered values to a 6-partition topic (RF 3,
// min.insync.replicas=2), a transactional producer writes transactions
// over several partitions (committing three in four, aborting the rest),
// two consumers of one group read it all, two members of a group of the
// consumer protocol (KIP-848) read it too, and a read_committed consumer of
// another group reads what is committed (workload.h). Afterwards everything is
// healed and restarted, the ISR of every partition must be whole again,
// the producers flush, a fresh reader reads every partition from the
// beginning (up to the last stable offset, marking what the transaction
// markers decided), and the checker (history.h) must find no acknowledged
// write lost, no duplicate, nothing out of order, no offset with two
// values, no consumer going backwards, no aborted value read committed, no
// transaction decided otherwise than its producer was told, none half
// committed.
//
// The bounded run (in ctest) is three seeds of 60 s of faults, the third
// with every listener SASL_SSL. Environment:
//   HW_CHAOS_DURATION_S=<s>   seconds of faults per seed (default 60)
//   HW_CHAOS_SEEDS=<a,b,...>  the seeds to run, each optionally <seed>:<mode>
//                             (default 1,2,3:sasl_ssl)
//   HW_CHAOS_SEED=<n>         replay one seed (with the same duration)
//   HW_CHAOS_SCHEDULE=<file>  replay a schedule as printed (edited or not)
//   HW_CHAOS_SECURITY=<mode>  plaintext or sasl_ssl: every seed's mode, over
//                             the list's (unset: the list's, else plaintext)
//   HW_CHAOS_NETWORK=0        process faults only, on 127.0.0.1, even as root
//   HW_CHAOS_KEEP=1           keep the files of a run that passed too
// scripts/chaos.sh runs the long run; tests/chaos/README.md has the rest.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <variant>
#include <vector>

#include "cluster.h"
#include "final_read.h"
#include "history.h"
#include "schedule.h"
#include "workload.h"

namespace hw::chaos {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using testing::wait_until;

constexpr int k_partitions = 6;
constexpr int k_producers = 3;
constexpr int k_consumers = 2;
constexpr int k_txn_producers = 1;       // ids after the plain producers'
constexpr int k_committed_consumers = 1;  // ids after the plain consumers'
constexpr int k_protocol_consumers = 2;   // KIP-848 members, ids after the read_committed consumers'
const std::string k_topic = "chaos";

// ---- what to run ----

struct planned_run {
  schedule faults;
  security mode = security::plaintext;
};

struct run_plan {
  std::vector<planned_run> runs;
  std::string schedule_file;  // HW_CHAOS_SCHEDULE, when the schedule came from there
};

// The bounded run's seeds: the third with every listener SASL_SSL, so
// that the test command covers the secured cluster at no extra time.
constexpr const char* k_default_seeds = "1,2,3:sasl_ssl";

std::chrono::milliseconds duration_from_env() {
  const char* v = std::getenv("HW_CHAOS_DURATION_S");
  return std::chrono::seconds(v && *v ? std::stoll(v) : 60);
}

// HW_CHAOS_SECURITY: every run's mode when set.
std::variant<std::optional<security>, std::string> security_from_env() {
  const char* v = std::getenv("HW_CHAOS_SECURITY");
  if (!v || !*v) return std::optional<security>();
  if (auto mode = parse_security(v)) return mode;
  return std::string("HW_CHAOS_SECURITY=") + v + ": not plaintext or sasl_ssl";
}

// The seeds, each with the mode its entry names ("3:sasl_ssl"), if any.
std::variant<std::vector<std::pair<uint64_t, std::optional<security>>>, std::string> seeds_from_env() {
  std::vector<std::pair<uint64_t, std::optional<security>>> out;
  if (const char* one = std::getenv("HW_CHAOS_SEED"); one && *one) {
    out.emplace_back(std::stoull(one), std::nullopt);
    return out;
  }
  const char* list = std::getenv("HW_CHAOS_SEEDS");
  std::stringstream in(list && *list ? list : k_default_seeds);
  for (std::string s; std::getline(in, s, ',');) {
    if (s.empty()) continue;
    const auto colon = s.find(':');
    std::optional<security> mode;
    if (colon != std::string::npos) {
      mode = parse_security(s.substr(colon + 1));
      if (!mode) return "HW_CHAOS_SEEDS entry " + s + ": the mode is plaintext or sasl_ssl";
    }
    out.emplace_back(std::stoull(s.substr(0, colon)), mode);
  }
  return out;
}

// The schedules this run follows, each with its mode; an error when
// HW_CHAOS_SCHEDULE does not hold one or asks for network faults the
// machine cannot make, or a mode is misspelt.
std::variant<run_plan, std::string> plan_from_env(bool network) {
  run_plan plan;
  auto forced = security_from_env();
  if (auto* e = std::get_if<std::string>(&forced)) return *e;
  const std::optional<security> every = std::get<std::optional<security>>(forced);
  if (const char* file = std::getenv("HW_CHAOS_SCHEDULE"); file && *file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto s = parse_schedule(text.str());
    if (!s) return std::string("HW_CHAOS_SCHEDULE=") + file + " holds no schedule";
    if (s->network && !network) return std::string("HW_CHAOS_SCHEDULE=") + file + " cuts links; no network lab here";
    plan.runs.push_back({*s, every.value_or(security::plaintext)});
    plan.schedule_file = file;
    return plan;
  }
  auto seeds = seeds_from_env();
  if (auto* e = std::get_if<std::string>(&seeds)) return *e;
  for (const auto& [seed, mode] : std::get<0>(seeds))
    plan.runs.push_back(
        {make_schedule(seed, duration_from_env(), network), every.value_or(mode.value_or(security::plaintext))});
  return plan;
}

// The command that runs this schedule again, in the same mode.
std::string replay_line(const schedule& s, const std::string& schedule_file, security mode) {
  const std::string how =
      !schedule_file.empty()
          ? "HW_CHAOS_SCHEDULE=" + schedule_file
          : "HW_CHAOS_SEED=" + std::to_string(s.seed) + " HW_CHAOS_DURATION_S=" +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(s.duration).count()) +
                (s.network ? "" : " HW_CHAOS_NETWORK=0");
  return how + " HW_CHAOS_SECURITY=" + to_string(mode) + " build-san/tests/chaos/chaos_tests --gtest_filter='ChaosIT.*'";
}

// ---- one run ----

struct run_outcome {
  uint64_t seed = 0;
  security mode = security::plaintext;
  std::map<std::string, int> faults;  // by kind
  size_t client_restarts = 0;         // producers replaced after a fatal error
  check_result result;
  std::vector<std::string> problems;  // the cluster or the clients did not do what they must
  std::chrono::seconds took{0};
};

std::string seconds(clock_type::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", std::chrono::duration<double>(d).count());
  return buf;
}

class chaos_run {
 public:
  chaos_run(const schedule& s, security mode, std::string schedule_file)
      : schedule_(s), schedule_file_(std::move(schedule_file)), cluster_(s.network, mode) {
    settings_.topic = k_topic;
    settings_.partitions = k_partitions;
    settings_.group = "chaos-" + std::to_string(s.seed);
    settings_.python = HW_PY_PYTHON;
  }

  run_outcome run() {
    outcome_.seed = schedule_.seed;
    outcome_.mode = cluster_.mode();
    say(std::string("security: ") +
        (cluster_.mode() == security::plaintext
             ? "plaintext (every listener PLAINTEXT)"
             : "sasl_ssl (every listener SASL_SSL: clients SCRAM-SHA-512, the harness SCRAM-SHA-256, "
               "brokers SCRAM-SHA-512, controllers PLAIN)"));
    say("schedule:\n" + to_text(schedule_));
    if (set_up() && workload_flows()) {
      apply_faults();
      wind_down();
    } else {
      stop_clients();
    }
    // The nodes must never turn the harness or each other away: a
    // certificate or a login refused is the cluster's failure, not a
    // fault's.
    for (const auto& [why, n] : cluster_.refused())
      problem(std::to_string(n) + " × a node refused the harness's connection: " + why);
    for (const auto& [why, n] : cluster_.own_connections_refused())
      problem(std::to_string(n) + " × a node's own connection was refused: " + why);
    outcome_.result = check(history_.events());
    outcome_.client_restarts = client_restarts_.size();
    outcome_.took = std::chrono::duration_cast<std::chrono::seconds>(clock_type::now() - run_began_);
    report();
    return outcome_;
  }

 private:
  // Progress on stdout, timed from the start of this seed's run.
  void say(const std::string& what) {
    std::cout << "[chaos seed " << schedule_.seed << " +" << seconds(clock_type::now() - run_began_) << "] " << what
              << (what.empty() || what.back() != '\n' ? "\n" : "") << std::flush;
  }
  void problem(const std::string& what) {
    say("PROBLEM: " + what);
    outcome_.problems.push_back(what);
  }

  bool set_up() {
    if (!cluster_.start()) {
      problem("the cluster did not start");
      return false;
    }
    settings_.bootstrap = cluster_.bootstrap();
    settings_.connection = cluster_.client_settings();
    if (cluster_.mode() == security::sasl_ssl) {
      // Nothing on PLAINTEXT: what the mode claims, checked once.
      for (const auto& l : cluster_.plaintext_answered()) problem("the listener " + l + " answers in plaintext");
    }
    if (auto e = cluster_.create_topic(k_topic, k_partitions, 3, {{"min.insync.replicas", "2"}}); !e.empty()) {
      problem("creating the topic: " + e);
      return false;
    }
    if (!wait_until([&] { return cluster_.whole(k_topic, k_partitions); }, 60s)) {
      problem("the new topic's partitions did not all get a leader and a whole ISR within 60 s");
      return false;
    }
    for (int i = 0; i < k_producers; ++i)
      producers_.push_back(std::make_unique<producer>(i, settings_, history_, notes_));
    for (int i = 0; i < k_consumers; ++i)
      consumers_.push_back(std::make_unique<consumer>(i, settings_, history_, notes_));
    for (int i = 0; i < k_txn_producers; ++i)
      txn_producers_.push_back(std::make_unique<txn_producer>(k_producers + i, settings_, history_, notes_));
    for (int i = 0; i < k_committed_consumers; ++i)
      consumers_.push_back(
          std::make_unique<consumer>(k_consumers + i, settings_, history_, notes_, /*read_committed=*/true));
    for (int i = 0; i < k_protocol_consumers; ++i)
      protocol_consumers_.push_back(std::make_unique<protocol_consumer>(k_consumers + k_committed_consumers + i,
                                                                        settings_, history_, notes_));
    return true;
  }

  // Faults start once every producer has been acknowledged and every
  // consumer has partitions: what follows tests recovery, not start-up.
  bool workload_flows() {
    const bool flowing = wait_until(
        [&] {
          for (auto& p : producers_)
            if (!p->ok() || p->acked() == 0) return false;
          for (auto& p : txn_producers_)
            if (!p->ok() || p->committed() == 0) return false;
          for (auto& c : consumers_)
            if (!c->ok() || !c->assigned()) return false;
          for (auto& c : protocol_consumers_)
            if (!c->ok() || !c->assigned()) return false;
          return true;
        },
        60s);
    if (!flowing)
      problem("the workload was not flowing within 60 s (every producer acknowledged, every transactional "
              "producer committed, every consumer assigned)");
    return flowing;
  }

  // A node index for a target: the active controller is asked for now.
  int resolve(const target& t) {
    if (!t.controller()) return t.node;
    if (auto c = cluster_.active_controller()) return *c;
    say("no node knows an active controller; taking n1");
    return 0;
  }
  static std::string name(int node) { return "n" + std::to_string(node + 1); }

  // The schedule is timed: each fault begins at its time and is held for
  // its length. When one ran late (a slow restart), the rest of the
  // schedule shifts, so that every fault still follows its quiet spell.
  void apply_faults() {
    const auto faults_began = clock_type::now();
    auto previous_end = faults_began;
    std::chrono::milliseconds previous_scheduled_end{0};
    auto due = [&](std::chrono::milliseconds at) {
      return std::max(faults_began + at, previous_end + (at - previous_scheduled_end));
    };
    for (const auto& f : schedule_.faults) {
      hold_until(due(f.at));
      const auto began = clock_type::now();
      const int a = resolve(f.first);
      int b = -1;
      if (f.kind == fault_kind::cut) {
        b = resolve(f.second);
        if (b == a) b = (a + 1) % chaos_cluster::k_nodes;
      }
      say(std::string(to_string(f.kind)) + " " + name(a) + (f.first.controller() ? " (the active controller)" : "") +
          (b >= 0 ? " from " + name(b) : "") + " for " + seconds(f.length) + " (scheduled at +" + seconds(f.at) +
          " of the faults)");
      begin(f.kind, a, b);
      hold_until(began + f.length);
      end(f.kind, a);
      ++outcome_.faults[to_string(f.kind)];
      previous_end = clock_type::now();
      previous_scheduled_end = f.at + f.length;
    }
    hold_until(due(schedule_.duration));
    say("faults over after " + seconds(clock_type::now() - faults_began) + " (" + seconds(schedule_.duration) +
        " scheduled)");
  }

  // Holds until t (the schedule is timed), watching meanwhile that no node
  // exits unless the schedule stopped it and that every producer can still
  // write.
  void hold_until(clock_type::time_point t) {
    while (clock_type::now() < t) {
      watch_nodes();
      watch_producers();
      std::this_thread::sleep_until(std::min(t, clock_type::now() + 250ms));
    }
    watch_nodes();
    watch_producers();
  }

  // A producer replaced after a fatal error (workload.cc says why that is
  // librdkafka's doing) is said at once and listed in the report; what the
  // broker acknowledged before and after is checked as any other write.
  void watch_producers() {
    for (size_t i = 0; i < producers_.size(); ++i) {
      const auto restarts = producers_[i]->restarts();
      for (size_t k = restarts_seen_[i]; k < restarts.size(); ++k) {
        const std::string what = "producer p" + std::to_string(i) + " replaced after a fatal error at " +
                                 restarts[k] + leaders_now(restarts[k]);
        say(what);
        client_restarts_.push_back(what);
      }
      restarts_seen_[i] = restarts.size();
    }
  }

  // What each node's metadata says now of the partition a fatal error
  // names ("... for chaos [4] ... with broker 1 ..." in librdkafka's words):
  // whether the broker that refused was still the leader.
  std::string leaders_now(const std::string& reason) {
    static const std::regex named(k_topic + R"( \[(\d+)\].* broker (\d+))");
    std::smatch m;
    if (!std::regex_search(reason, m, named)) return "";
    const int partition = std::stoi(m[1]);
    std::string out = " [partition " + m[1].str() + " now, as each node sees it:";
    for (int n = 0; n < chaos_cluster::k_nodes; ++n) {
      auto parts = cluster_.partitions(n, k_topic);
      out += " " + name(n) + ": ";
      if (!parts || static_cast<int>(parts->size()) <= partition) {
        out += "no answer;";
        continue;
      }
      const auto& p = (*parts)[partition];
      out += "leader n" + std::to_string(p.leader) + " epoch " + std::to_string(p.leader_epoch) + ";";
    }
    return out + " the refusing broker is n" + m[2].str() + "]";
  }

  // A node that exited without the schedule stopping it crashed, or
  // something outside the test signalled it (its last lines say which): a
  // problem. It is started again (side by side with any other, in case a
  // majority went at once) so that the run goes on.
  void watch_nodes() {
    std::vector<int> exited;
    for (int i = 0; i < chaos_cluster::k_nodes; ++i) {
      if (down_.count(i)) continue;
      auto code = cluster_.exit_code(i);
      if (!code) continue;
      const std::string how = *code < 0 ? "signal " + std::to_string(-*code) : "code " + std::to_string(*code);
      problem(name(i) + " exited, unasked, with " + how + "; its last lines:\n" + cluster_.log_tail(i, 8));
      exited.push_back(i);
    }
    if (!exited.empty() && !cluster_.start_nodes(exited)) problem("a node that exited unasked did not start again");
  }

  void begin(fault_kind kind, int a, int b) {
    switch (kind) {
      case fault_kind::kill:
        down_.insert(a);
        cluster_.kill(a);
        break;
      case fault_kind::pause: cluster_.pause(a); break;
      case fault_kind::restart:
        down_.insert(a);
        if (!cluster_.clean_stop(a, 60s)) problem(name(a) + "'s controlled shutdown took over 60 s; killed it");
        break;
      case fault_kind::isolate: cluster_.isolate(a); break;
      case fault_kind::cut: cluster_.cut(a, b); break;
    }
  }

  void end(fault_kind kind, int a) {
    switch (kind) {
      case fault_kind::kill:
      case fault_kind::restart:
        if (!cluster_.start_node(a)) problem(name(a) + " did not start again");
        down_.erase(a);
        break;
      case fault_kind::pause: cluster_.resume(a); break;
      case fault_kind::isolate:
      case fault_kind::cut: cluster_.heal_network(); break;
    }
    say("  undone");
  }

  // Everything healed and up, every ISR whole, the producers flushed, then
  // the final read.
  void wind_down() {
    say("healing, restarting, waiting for every ISR to be whole");
    watch_nodes();
    if (!cluster_.restore_all()) problem("a node did not start again after the faults");
    const auto waiting = clock_type::now();
    if (!wait_until([&] { return cluster_.whole(k_topic, k_partitions); }, 120s))
      problem("the ISR of every partition was not whole again within 120 s of the heal");
    else
      say("every ISR whole after " + seconds(clock_type::now() - waiting));
    stop_clients();
    say("final read");
    const auto read = read_everything(cluster_, k_topic, k_partitions, history_, 120s);
    if (!read.complete) problem("the final read did not reach every partition's high watermark within 120 s");
    for (const auto& c : read.corrupt) problem("the final read found a corrupt batch: " + c);
    final_read_detail_ = read.detail;
  }

  void stop_clients() {
    watch_producers();
    int unresolved = 0;
    for (auto& p : producers_) unresolved += p->finish(90s);
    if (unresolved > 0) say(std::to_string(unresolved) + " messages without a delivery report after 90 s of flush");
    // Each transactional producer ends the transaction under way.
    for (auto& p : txn_producers_) {
      p->finish();
      if (p->replaced() > 0)
        client_restarts_.push_back("transactional producer replaced " + std::to_string(p->replaced()) +
                                   " times (an outcome it could not tell, or a fatal error; clients.log says which)");
    }
    for (auto& c : consumers_) c->finish();
    for (auto& c : protocol_consumers_) c->finish();
    producers_.clear();
    txn_producers_.clear();
    consumers_.clear();
    protocol_consumers_.clear();
  }

  void report() {
    std::ostringstream o;
    o << "faults applied:";
    if (outcome_.faults.empty()) o << " none";
    for (const auto& [kind, n] : outcome_.faults) o << " " << n << " " << kind << ";";
    o << "\n" << outcome_.result.report() << "client errors:\n" << notes_.summary();
    if (!client_restarts_.empty()) o << "clients replaced:\n";
    for (const auto& r : client_restarts_) o << "  " << r << "\n";
    if (!final_read_detail_.empty()) o << "final read:\n" << final_read_detail_;
    say(o.str());
    const bool passed = outcome_.result.ok() && outcome_.problems.empty();
    // HW_CHAOS_KEEP=1 keeps a passing run's files too (to read its logs).
    static const bool keep = [] {
      const char* v = std::getenv("HW_CHAOS_KEEP");
      return v && std::string(v) == "1";
    }();
    if (passed && !keep) return;
    const std::string dir = (std::filesystem::temp_directory_path() /
                             ("hw-chaos-seed" + std::to_string(schedule_.seed) + "-" + std::to_string(::getpid())))
                                .string();
    const bool saved = cluster_.save_logs(dir);
    std::ofstream(dir + "/schedule.txt") << to_text(schedule_);  // for HW_CHAOS_SCHEDULE
    std::ofstream events(dir + "/history.txt");
    history_.write(events);
    std::ofstream clients(dir + "/clients.log");
    notes_.write_log(clients);
    std::string problems;
    for (const auto& p : outcome_.problems) problems += "  " + p + "\n";
    const std::string files = "in " + dir +
                              ": the brokers' whole logs (node<id>.log), the schedule (schedule.txt), every event of "
                              "the history (history.txt), the clients' log (clients.log)\n";
    if (passed) {  // HW_CHAOS_KEEP=1
      say("kept " + files);
      return;
    }
    ADD_FAILURE() << "chaos seed " << schedule_.seed << " (" << to_string(cluster_.mode())
                  << ") failed\nreplay: " << replay_line(schedule_, schedule_file_, cluster_.mode())
                  << "\n"
                  << to_text(schedule_) << o.str() << "problems:\n"
                  << (problems.empty() ? "  none\n" : problems) << (saved ? files : std::string())
                  << cluster_.log_tails(40);
  }

  const schedule schedule_;
  const std::string schedule_file_;
  chaos_cluster cluster_;
  workload_settings settings_;
  history history_;
  client_notes notes_;
  std::vector<std::unique_ptr<producer>> producers_;
  std::vector<std::unique_ptr<txn_producer>> txn_producers_;
  std::vector<std::unique_ptr<consumer>> consumers_;
  std::vector<std::unique_ptr<protocol_consumer>> protocol_consumers_;
  const clock_type::time_point run_began_ = clock_type::now();
  std::set<int> down_;              // nodes the schedule has stopped
  std::map<size_t, size_t> restarts_seen_;   // producer → its restarts already said
  std::vector<std::string> client_restarts_;
  std::string final_read_detail_;
  run_outcome outcome_;
};

TEST(ChaosIT, SeededFaultsLoseNoAcknowledgedRecord) {
  // Without a network lab the run still kills, pauses and restarts nodes,
  // and says so: it is never skipped.
  std::optional<std::string> no_lab = network_lab::unavailable();
  if (const char* v = std::getenv("HW_CHAOS_NETWORK"); !no_lab && v && std::string(v) == "0")
    no_lab = "HW_CHAOS_NETWORK=0";
  const bool network = !no_lab;
  if (no_lab) std::cout << "chaos: no network lab (" << *no_lab << "): process faults only\n";
  auto plan = plan_from_env(network);
  ASSERT_TRUE(std::holds_alternative<run_plan>(plan)) << std::get<std::string>(plan);

  std::map<std::string, int> faults;
  check_counts total;
  int64_t findings = 0;
  size_t client_restarts = 0;
  std::map<std::string, int> modes;
  for (const auto& [s, mode] : std::get<run_plan>(plan).runs) {
    std::unique_ptr<chaos_run> run;
    try {
      run = std::make_unique<chaos_run>(s, mode, std::get<run_plan>(plan).schedule_file);
    } catch (const std::exception& e) {
      FAIL() << "cannot set up the cluster for seed " << s.seed << " (" << to_string(mode) << "): " << e.what();
    }
    ++modes[to_string(mode)];
    const run_outcome o = run->run();
    for (const auto& [kind, n] : o.faults) faults[kind] += n;
    total.sent += o.result.counts.sent;
    total.acked += o.result.counts.acked;
    total.final_read += o.result.counts.final_read;
    findings += static_cast<int64_t>(o.result.findings.size());
    client_restarts += o.client_restarts;
    std::cout << "chaos seed " << s.seed << " (" << to_string(o.mode)
              << "): " << (o.result.ok() && o.problems.empty() ? "passed" : "FAILED") << " in " << o.took.count()
              << " s\n";
  }
  std::cout << "chaos: " << std::get<run_plan>(plan).runs.size() << " seeds (";
  for (const auto& [mode, n] : modes) std::cout << (mode == modes.begin()->first ? "" : ", ") << n << " " << mode;
  std::cout << "), faults:";
  for (const auto& [kind, n] : faults) std::cout << " " << n << " " << kind << ";";
  std::cout << " records sent " << total.sent << ", acknowledged " << total.acked << ", in the final reads "
            << total.final_read << "; " << findings << " findings; " << client_restarts
            << " producers replaced after a fatal error"
            << (network ? "" : " (process faults only: no network lab)") << "\n";
}

}  // namespace
}  // namespace hw::chaos
