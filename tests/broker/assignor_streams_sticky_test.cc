// The streams groups' sticky task assignor answers as Kafka 4.3.1's own
// StickyTaskAssignor (StreamsAssignorOracle): random groups evolving round
// after round (members joining and leaving, several members per process,
// standby replicas from 0 to 2, subtopologies stateful or not, each round
// starting from the last round's assignment, members taken in a random
// order), every answer compared whole, errors included.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "broker/group/streams/task_assignor.h"
#include "tests/broker/assignor_kafka_oracle.h"

namespace hw::broker::group::streams {
namespace {

std::string listing(const tasks_by_subtopology& tasks) {
  std::string out;
  for (const auto& [id, partitions] : tasks) {
    if (partitions.empty()) continue;
    out += (out.empty() ? "" : "/") + id + "=";
    bool first = true;
    for (int32_t p : partitions) {
      out += (first ? "" : ".") + std::to_string(p);
      first = false;
    }
  }
  return out.empty() ? "-" : out;
}

std::string input_of(const std::string& name, const task_assignment_input& in) {
  std::ostringstream s;
  s << "case " << name << "\nstandby " << in.num_standby_replicas << "\n";
  for (const auto& [id, n] : in.tasks) s << "subtopology " << id << " " << n << " " << (in.stateful.count(id) ? 1 : 0) << "\n";
  for (const auto& m : in.members)
    s << "member " << m.member_id << " " << m.process_id << " " << listing(m.active) << " " << listing(m.standby) << "\n";
  s << "run\n";
  return s.str();
}

std::string answer_of(const std::string& name,
                      const std::variant<std::map<std::string, member_tasks>, task_assignor_error>& result) {
  std::ostringstream s;
  s << "result " << name << "\n";
  if (auto* e = std::get_if<task_assignor_error>(&result)) {
    s << "error " << e->message << "\n";
  } else {
    for (const auto& [id, t] : std::get<std::map<std::string, member_tasks>>(result))
      s << "member " << id << " " << listing(t.active) << " " << listing(t.standby) << "\n";
  }
  s << "end\n";
  return s.str();
}

struct round_case {
  std::string name;
  task_assignment_input input;
  std::string ours;
};

std::vector<round_case> evolving_groups(std::mt19937& rng, int groups, int rounds) {
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint32_t>(k)); };
  std::vector<round_case> out;
  for (int g = 0; g < groups; ++g) {
    task_assignment_input in;
    const int subtopologies = 1 + pick(3);
    for (int s = 0; s < subtopologies; ++s) {
      const std::string id = std::to_string(s);
      in.tasks[id] = 1 + pick(8);
      if (pick(2) == 0) in.stateful.insert(id);
    }
    in.num_standby_replicas = pick(3);
    int next_member = 0;
    const int processes = 1 + pick(4);
    auto new_member = [&] {
      assignment_member m;
      m.member_id = "m" + std::to_string(g) + "x" + std::to_string(next_member++) + "q" + std::to_string(rng() % 1000);
      m.process_id = "p" + std::to_string(pick(processes));
      return m;
    };
    for (int i = 1 + pick(6); i > 0; --i) in.members.push_back(new_member());
    for (int r = 0; r < rounds; ++r) {
      std::shuffle(in.members.begin(), in.members.end(), rng);
      round_case c{"g" + std::to_string(g) + "r" + std::to_string(r), in, ""};
      auto result = sticky_assign(in);
      c.ours = answer_of(c.name, result);
      out.push_back(c);
      // The next round starts from this one's answer, with members gone
      // and new ones, sometimes another standby count or a topology change.
      if (auto* assigned = std::get_if<std::map<std::string, member_tasks>>(&result)) {
        for (auto& m : in.members) {
          m.active = assigned->at(m.member_id).active;
          m.standby = assigned->at(m.member_id).standby;
        }
      }
      if (in.members.size() > 1 && pick(3) == 0) in.members.erase(in.members.begin() + pick(static_cast<int>(in.members.size())));
      for (int i = pick(3); i > 0; --i) in.members.push_back(new_member());
      if (pick(8) == 0) in.num_standby_replicas = pick(3);
      if (pick(8) == 0) {
        auto it = in.tasks.begin();
        std::advance(it, pick(static_cast<int>(in.tasks.size())));
        it->second = 1 + pick(8);
      }
    }
  }
  return out;
}

TEST(StreamsStickyAssignorKafkaEquivalence, EvolvingGroupsGetKafkasAssignment) {
  consumer::testing::kafka_assignor_oracle oracle("StreamsAssignorOracle");
  if (auto missing = oracle.prepare()) FAIL() << "cannot run Kafka's StickyTaskAssignor: " << *missing;
  std::mt19937 rng(1071);
  auto cases = evolving_groups(rng, 300, 5);
  std::string input;
  for (const auto& c : cases) input += input_of(c.name, c.input);
  std::string output;
  if (auto error = oracle.run(input, output)) FAIL() << *error;
  std::istringstream kafka(output);
  int with_standby = 0;
  for (const auto& c : cases) {
    std::string expected, line;
    while (std::getline(kafka, line)) {
      expected += line + "\n";
      if (line == "end") break;
    }
    ASSERT_EQ(c.ours, expected) << "case " << c.name << ":\n" << input_of(c.name, c.input);
    with_standby += c.input.num_standby_replicas > 0 && !c.input.stateful.empty();
  }
  std::cout << "  " << cases.size() << " assignments, " << with_standby << " with standby replicas\n";
}

}  // namespace
}  // namespace hw::broker::group::streams
