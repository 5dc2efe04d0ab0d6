// A streams-group member's reconciliation step answers as Kafka 4.3.1's own
// streams CurrentAssignmentBuilder (StreamsReconciliationOracle): random
// members in every state (stable, revoking, waiting, unknown) with active
// tasks at their epochs, standby tasks and tasks pending revocation, random
// targets, what the heartbeat says it owns (or nothing said), and tasks
// held by this and other processes; every answer compared whole.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "broker/group/streams/task_reconciliation.h"
#include "tests/broker/assignor_kafka_oracle.h"

namespace hw::broker::group::streams {
namespace {

std::string text(const task_set& tasks) {
  std::string out;
  for (const auto& [id, ps] : tasks) {
    if (ps.empty()) continue;
    out += (out.empty() ? "" : "/") + id + "=";
    bool first = true;
    for (int32_t p : ps) out += (first ? "" : ".") + std::to_string(p), first = false;
  }
  return out.empty() ? "-" : out;
}

std::string text(const task_epochs& tasks) {
  std::string out;
  for (const auto& [id, ps] : tasks) {
    if (ps.empty()) continue;
    out += (out.empty() ? "" : "/") + id + "=";
    bool first = true;
    for (const auto& [p, e] : ps) out += (first ? "" : ".") + std::to_string(p) + ":" + std::to_string(e), first = false;
  }
  return out.empty() ? "-" : out;
}

struct recon_case {
  std::string name;
  streams_member member;
  int32_t target_epoch = 0;
  tasks_tuple target;
  std::optional<tasks_tuple> owned;
  std::map<std::pair<std::string, int32_t>, std::string> active;
  std::map<std::pair<std::string, int32_t>, std::set<std::string>> standby;
};

recon_case random_case(std::mt19937& rng, int n) {
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint32_t>(k)); };
  recon_case c;
  c.name = "r" + std::to_string(n);
  const int8_t states[] = {1, 1, 2, 3, 127};
  c.member.member_id = "m";
  c.member.state = streams_member_state_from_value(states[pick(5)]);
  c.member.epoch = 5 + pick(4);
  c.member.previous_epoch = c.member.epoch - 1;
  c.member.process_id = "p" + std::to_string(1 + pick(3));
  const std::vector<std::string> subs = {"0", "1"};
  for (const auto& s : subs) {
    for (int32_t p = 0; p < 5; ++p) {
      switch (pick(6)) {
        case 0: c.member.assigned.active[s][p] = 1 + pick(c.member.epoch); break;
        case 1: c.member.assigned.standby[s].insert(p); break;
        case 2: c.member.pending_revocation.active[s][p] = 1 + pick(c.member.epoch); break;
        default: break;
      }
      if (pick(3) == 0) c.target.active[s].insert(p);
      else if (pick(4) == 0) c.target.standby[s].insert(p);
      if (pick(4) == 0) c.active[{s, p}] = "p" + std::to_string(1 + pick(3));
      if (pick(5) == 0) c.standby[{s, p}].insert("p" + std::to_string(1 + pick(3)));
    }
  }
  c.target_epoch = c.member.epoch + pick(3);
  if (pick(4) != 0) {
    tasks_tuple owned;
    for (const auto* held : {&c.member.assigned.active, &c.member.pending_revocation.active})
      for (const auto& [s, ps] : *held)
        for (const auto& [p, e] : ps)
          if (pick(2) == 0) owned.active[s].insert(p);
    for (const auto& [s, ps] : c.member.assigned.standby)
      for (int32_t p : ps)
        if (pick(2) == 0) owned.standby[s].insert(p);
    c.owned = owned;
  }
  return c;
}

std::string input_of(const recon_case& c) {
  std::ostringstream in;
  in << "case " << c.name << "\n";
  in << "member " << c.member.epoch << " " << c.member.previous_epoch << " " << static_cast<int>(c.member.state) << " "
     << c.member.process_id << " " << text(c.member.assigned.active) << " " << text(c.member.assigned.standby) << " "
     << text(c.member.pending_revocation.active) << " " << text(c.member.pending_revocation.standby) << "\n";
  in << "target " << c.target_epoch << " " << text(c.target.active) << " " << text(c.target.standby) << "\n";
  if (c.owned) in << "owned " << text(c.owned->active) << " " << text(c.owned->standby) << "\n";
  else in << "owned none\n";
  in << "active_holder";
  for (const auto& [tp, process] : c.active) in << " " << tp.first << ":" << tp.second << ":" << process;
  in << "\nstandby_holder";
  for (const auto& [tp, processes] : c.standby)
    for (const auto& process : processes) in << " " << tp.first << ":" << tp.second << ":" << process;
  in << "\nrun\n";
  return in.str();
}

std::string answer_of(const recon_case& c) {
  task_reconciliation_input in;
  in.target_epoch = c.target_epoch;
  in.target = c.target;
  in.owned = c.owned;
  in.owners.active_process = [&](const std::string& s, int32_t p) -> std::optional<std::string> {
    auto it = c.active.find({s, p});
    return it == c.active.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  in.owners.standby_processes = [&](const std::string& s, int32_t p) {
    auto it = c.standby.find({s, p});
    return it == c.standby.end() ? std::set<std::string>{} : it->second;
  };
  in.owners.warmup_processes = [](const std::string&, int32_t) { return std::set<std::string>{}; };
  auto step = reconcile_tasks(c.member, in);
  std::ostringstream out;
  out << "result " << c.name << "\n";
  if (step.error != protocol::error_code::none) {
    out << "error " << step.error_message << "\n";
  } else {
    const auto& m = step.next;
    out << "member " << m.epoch << " " << m.previous_epoch << " " << static_cast<int>(m.state) << " "
        << text(m.assigned.active) << " " << text(m.assigned.standby) << " " << text(m.pending_revocation.active) << " "
        << text(m.pending_revocation.standby) << "\n";
  }
  out << "end\n";
  return out.str();
}

TEST(StreamsReconciliationKafkaEquivalence, RandomStepsReconcileAsKafkaReconciles) {
  consumer::testing::kafka_assignor_oracle oracle("StreamsReconciliationOracle");
  if (auto missing = oracle.prepare()) FAIL() << "cannot run Kafka's CurrentAssignmentBuilder: " << *missing;
  std::mt19937 rng(22);
  std::vector<recon_case> cases;
  std::string input;
  for (int i = 0; i < 2000; ++i) {
    cases.push_back(random_case(rng, i));
    input += input_of(cases.back());
  }
  std::string output;
  if (auto error = oracle.run(input, output)) FAIL() << *error;
  std::istringstream kafka(output);
  std::map<std::string, int> states;
  for (const auto& c : cases) {
    std::string expected, line;
    while (std::getline(kafka, line)) {
      expected += line + "\n";
      if (line == "end") break;
    }
    ASSERT_EQ(answer_of(c), expected) << "case " << c.name << ":\n" << input_of(c);
    std::istringstream lines(expected);
    std::string first, kind, epoch, previous, state;
    std::getline(lines, first);
    lines >> kind >> epoch >> previous >> state;
    states[kind == "error" ? "fenced" : "state " + state]++;
  }
  for (const auto& [s, n] : states) std::cout << "  " << s << ": " << n << "\n";
  EXPECT_GE(states.size(), 4u);
}

}  // namespace
}  // namespace hw::broker::group::streams
