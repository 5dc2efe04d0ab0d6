// Highwater's assignors against Kafka 4.3.1's own: seeded random groups,
// each evolving over several steps with the answers fed back, run through
// both; every answer must match Kafka's member for member, down to the
// order of the record Kafka's coordinator would write. One JVM answers all
// the cases (assignor_kafka_oracle.h), and ours answer as Kafka on that
// JVM's release would. A mismatch prints the first case that differs,
// which replays from its seed.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "broker/group/consumer/java_hash_map.h"
#include "broker/group/consumer/java_keys.h"
#include "tests/broker/assignor_kafka_oracle.h"
#include "tests/broker/assignor_scenarios.h"

namespace hw::broker::group::consumer {
namespace {

// HW_ASSIGNOR_SCENARIOS and HW_ASSIGNOR_FIRST_SEED run more or other seeds
// (a soak, or the replay of a failing one).
uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = getenv(name);
  return v && *v ? std::stoull(v) : fallback;
}
const uint64_t kScenarios = env_or("HW_ASSIGNOR_SCENARIOS", 300);
const uint64_t kFirstSeed = env_or("HW_ASSIGNOR_FIRST_SEED", 1);

struct step {
  std::string name;
  std::string input;
  assignment_result ours;
  std::string assignor;
  subscription_type type;
};

// An answer in the oracle's words: "error <message>" or the members'
// "member <id> <listing>" lines, in member id order.
struct answer_text {
  std::optional<std::string> error;
  std::map<std::string, std::string> members;
};

answer_text ours_as_text(const assignment_result& result) {
  answer_text out;
  if (const auto* error = std::get_if<assignor_error>(&result)) {
    out.error = error->message;
    return out;
  }
  for (const auto& [id, listing] : std::get<group_assignment>(result).listings)
    out.members[id] = testing::listing_text(listing);
  return out;
}

std::map<std::string, answer_text> parse_kafka(const std::string& output) {
  std::map<std::string, answer_text> out;
  std::istringstream in(output);
  std::string line;
  answer_text* current = nullptr;
  while (std::getline(in, line)) {
    if (line.starts_with("result ")) {
      current = &out[line.substr(7)];
    } else if (current && line.starts_with("error ")) {
      current->error = line.substr(6);
    } else if (current && line.starts_with("member ")) {
      size_t space = line.find(' ', 7);
      current->members[line.substr(7, space - 7)] = line.substr(space + 1);
    }
  }
  return out;
}

// What differs between the two answers, one line each.
std::vector<std::string> differences(const answer_text& kafka, const answer_text& ours) {
  std::vector<std::string> out;
  if (kafka.error != ours.error) {
    out.push_back("error: kafka " + kafka.error.value_or("(none)") + " | ours " + ours.error.value_or("(none)"));
    return out;
  }
  std::set<std::string> ids;
  for (const auto& [id, l] : kafka.members) ids.insert(id);
  for (const auto& [id, l] : ours.members) ids.insert(id);
  for (const std::string& id : ids) {
    auto k = kafka.members.find(id), o = ours.members.find(id);
    std::string kt = k == kafka.members.end() ? "(absent)" : k->second;
    std::string ot = o == ours.members.end() ? "(absent)" : o->second;
    if (kt != ot) out.push_back("member " + id + ": kafka " + kt + " | ours " + ot);
  }
  return out;
}

std::vector<step> generate_steps(jdk_release jdk) {
  std::vector<step> steps;
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kScenarios; ++seed) {
    testing::scenario s(seed);
    std::mt19937_64 lengths(seed * 7919);
    uint64_t count = 4 + lengths() % 5;
    for (uint64_t i = 0; i < count; ++i) {
      std::string name = "seed" + std::to_string(seed) + ".step" + std::to_string(i);
      auto a = make_assignor(s.assignor_name(), jdk);
      assignment_result ours = a->assign(s.spec(), s.topics());
      steps.push_back(step{name, s.case_text(name), ours, s.assignor_name(), s.spec().subscription});
      s.advance(ours);
    }
  }
  return steps;
}

TEST(AssignorKafkaEquivalence, RandomEvolvingGroupsGetKafkasAssignments) {
  auto started = std::chrono::steady_clock::now();
  testing::kafka_assignor_oracle oracle;
  if (auto missing = oracle.prepare()) FAIL() << "cannot run Kafka's assignors: " << *missing;

  // Kafka's answers depend on its JVM (jdk_release.h): answer as Kafka does
  // on the one at hand.
  jdk_release jdk = oracle.java_release() >= 19 ? jdk_release::java19_or_later : jdk_release::java17;
  std::vector<step> steps = generate_steps(jdk);
  std::string input;
  for (const step& s : steps) input += s.input;
  std::string output;
  if (auto error = oracle.run(input, output)) FAIL() << *error;
  std::map<std::string, answer_text> kafka = parse_kafka(output);

  std::map<std::string, int> kinds;  // cases per assignor / type / outcome, to show what was covered
  for (const step& s : steps) {
    auto k = kafka.find(s.name);
    ASSERT_NE(k, kafka.end()) << "Kafka gave no answer to " << s.name;
    answer_text ours = ours_as_text(s.ours);
    std::vector<std::string> diff = differences(k->second, ours);
    if (!diff.empty()) {
      std::string report;
      for (const auto& d : diff) report += "  " + d + "\n";
      FAIL() << s.name << " differs from Kafka after " << kinds["matched"] << " matching answers:\n"
             << report << "input:\n"
             << s.input;
    }
    ++kinds["matched"];
    ++kinds[s.assignor + (s.type == subscription_type::homogeneous ? " homogeneous" : " heterogeneous") +
            (ours.error ? " error" : "")];
  }
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << kScenarios << " scenarios, " << steps.size() << " assignments equal to Kafka 4.3.1's (Java "
            << oracle.java_release() << ") in " << seconds << " s:";
  for (const auto& [kind, n] : kinds)
    if (kind != "matched") std::cout << " " << kind << "=" << n;
  std::cout << "\n";
  // Every path was taken.
  for (const char* kind : {"uniform homogeneous", "uniform heterogeneous", "range homogeneous", "range heterogeneous",
                           "uniform homogeneous error", "uniform heterogeneous error"})
    EXPECT_GT(kinds[kind], 0) << kind;
}

// Random operations on Integer-keyed maps, crowded into few buckets so that
// buckets turn into trees, split and shrink back: the model's order must be
// Java's after every sequence.
TEST(AssignorKafkaEquivalence, TheHashMapModelIteratesAsJava) {
  testing::kafka_assignor_oracle oracle;
  if (auto missing = oracle.prepare()) FAIL() << "cannot run Java: " << *missing;
  constexpr int kSequences = 3000;
  std::mt19937_64 rng(env_or("HW_ASSIGNOR_FIRST_SEED", 1));
  std::string input;
  std::vector<std::string> ours;
  for (int i = 0; i < kSequences; ++i) {
    bool sized = rng() % 2 == 0;
    int32_t capacity = static_cast<int32_t>(rng() % 100);
    java_hash_map<int32_t, int, java_integer_key> map = sized ? java_hash_map<int32_t, int, java_integer_key>(capacity)
                                                              : java_hash_map<int32_t, int, java_integer_key>();
    int32_t stride = 16 << (rng() % 5), base = static_cast<int32_t>(rng() % static_cast<uint64_t>(stride));
    std::vector<int32_t> present;
    std::string ops;
    for (uint64_t n = 1 + rng() % 400; n > 0; --n) {
      uint64_t roll = rng() % 100;
      auto crowded = base + stride * static_cast<int32_t>(rng() % 40);
      int32_t key = roll % 5 == 0 ? static_cast<int32_t>(rng() % 2000) : crowded;
      if (roll < 20 && !present.empty() && rng() % 5 != 0) key = present[rng() % present.size()];
      char op = roll < 20 ? 'r' : (roll < 60 ? 'p' : 'c');
      if (op == 'r') {
        map.erase(key);
        std::erase(present, key);
      } else {
        if (!map.contains(key)) present.push_back(key);
        if (op == 'p') map.put(key, 0);
        else map.compute_if_absent(key, [] { return 0; });
      }
      ops += (ops.empty() ? "" : ",") + std::string(1, op) + std::to_string(key);
    }
    input += "map m" + std::to_string(i) + " " + (sized ? std::to_string(capacity) : "-") + " " + ops + "\n";
    std::string keys;
    for (int32_t k : map.keys()) keys += (keys.empty() ? "" : ",") + std::to_string(k);
    ours.push_back(keys);
  }
  std::string output;
  if (auto error = oracle.run(input, output)) FAIL() << *error;
  std::map<std::string, std::string> java;
  std::istringstream lines(output);
  std::string line, name;
  while (std::getline(lines, line)) {
    if (line.starts_with("result ")) name = line.substr(7);
    if (line.starts_with("keys ")) java[name] = line.substr(5);
  }
  for (int i = 0; i < kSequences; ++i) {
    std::string seq = "m" + std::to_string(i);
    ASSERT_TRUE(java.contains(seq)) << "Java gave no answer to " << seq;
    ASSERT_EQ(ours[static_cast<size_t>(i)], java[seq]) << seq << " differs; its operations:\n"
                                                       << input.substr(input.find("map " + seq + " "), 2000);
  }
}

}  // namespace
}  // namespace hw::broker::group::consumer
