// A streams group's topology configured as Kafka 4.3.1 configures it:
// random topologies (subtopologies of sources that exist or not, repartition
// topics written and read across subtopologies, declared or inferred counts,
// loops, changelogs that exist with the right count or another, copartition
// groups) through Kafka's own InternalTopicManager (StreamsTopologyOracle)
// and through broker/group/streams/topology.h, answers compared whole: the
// failure or the status and its message, the internal topics to create in
// Kafka's order, each subtopology's task count.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>

#include "broker/group/streams/topology.h"
#include "tests/broker/assignor_kafka_oracle.h"

namespace hw::broker::group::streams {
namespace {

// Short names, so that Java's HashMap buckets collide and its order shows.
const std::vector<std::string> k_names = {"a", "b", "c", "q", "r", "aa", "ab", "ba", "bb", "s1", "s2", "t-x", "Ea", "FB"};

struct test_case {
  std::string name;
  std::map<std::string, int32_t> existing;
  topology t;
};

test_case random_case(std::mt19937& rng, int n) {
  auto pick = [&](size_t k) { return static_cast<size_t>(rng() % k); };
  test_case c;
  c.name = "c" + std::to_string(n);
  c.t.epoch = 1;
  const size_t subtopologies = 1 + pick(4);
  std::vector<std::string> ids = {"0", "1", "2", "3", "10", "11", "x"};
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<std::string> repartition_names, written;
  for (size_t i = 0; i < 1 + pick(3); ++i) repartition_names.push_back("rep-" + k_names[pick(k_names.size())]);
  for (size_t i = 0; i < subtopologies; ++i) {
    subtopology s;
    s.id = ids[i];
    for (size_t k = pick(3); k > 0; --k) {
      std::string topic = k_names[pick(k_names.size())];
      if (std::find(s.source_topics.begin(), s.source_topics.end(), topic) == s.source_topics.end())
        s.source_topics.push_back(topic);
    }
    for (size_t k = pick(2); k > 0; --k) s.repartition_sink_topics.push_back(repartition_names[pick(repartition_names.size())]);
    for (size_t k = pick(3); k > 0; --k) {
      // Mostly what an earlier subtopology writes; sometimes a loop or a
      // topic nobody writes.
      const std::string topic = !written.empty() && pick(5) != 0 ? written[pick(written.size())]
                                                                 : repartition_names[pick(repartition_names.size())];
      bool seen = false;
      for (const auto& r : s.repartition_source_topics) seen |= r.name == topic;
      if (seen) continue;
      s.repartition_source_topics.push_back({topic, pick(4) == 0 ? static_cast<int32_t>(1 + pick(5)) : 0,
                                             static_cast<int16_t>(pick(3) == 0 ? 3 : 0), {}});
    }
    for (size_t k = pick(3); k > 0; --k) {
      std::string topic = s.id + "-store-" + k_names[pick(k_names.size())] + "-changelog";
      bool seen = false;
      for (const auto& ch : s.state_changelog_topics) seen |= ch.name == topic;
      if (!seen) s.state_changelog_topics.push_back({topic, 0, 0, {}});
    }
    if (pick(2) == 0 && s.source_topics.size() + s.repartition_source_topics.size() >= 2) {
      copartition_group g;
      for (size_t k = 0; k < s.source_topics.size(); ++k)
        if (pick(2) == 0) g.source_topics.push_back(static_cast<int16_t>(k));
      for (size_t k = 0; k < s.repartition_source_topics.size(); ++k)
        if (pick(2) == 0) g.repartition_source_topics.push_back(static_cast<int16_t>(k));
      s.copartition_groups.push_back(g);
    }
    written.insert(written.end(), s.repartition_sink_topics.begin(), s.repartition_sink_topics.end());
    c.t.subtopologies.push_back(std::move(s));
  }
  // Most sources exist; some internal topics exist already, with the right
  // count or not.
  for (const auto& topic : k_names)
    if (pick(12) != 0) c.existing[topic] = static_cast<int32_t>(1 + pick(4));
  for (const auto& s : c.t.subtopologies) {
    for (const auto& ch : s.state_changelog_topics)
      if (pick(3) == 0) c.existing[ch.name] = static_cast<int32_t>(1 + pick(4));
    for (const auto& r : s.repartition_source_topics)
      if (pick(4) == 0) c.existing[r.name] = static_cast<int32_t>(1 + pick(4));
  }
  return c;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += " " + w;
  return out;
}

std::string topics_line(const std::vector<topic_info>& topics) {
  std::string out;
  for (const auto& t : topics)
    out += " " + t.name + ":" + std::to_string(t.partitions) + ":" + std::to_string(t.replication_factor);
  return out;
}

std::string indexes(const std::vector<int16_t>& v) {
  if (v.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

std::string input_of(const test_case& c) {
  std::ostringstream in;
  in << "case " << c.name << "\n";
  for (const auto& [topic, n] : c.existing) in << "topic " << topic << " " << n << "\n";
  for (const auto& s : c.t.subtopologies) {
    in << "subtopology " << s.id << "\n";
    in << "source" << joined(s.source_topics) << "\n";
    in << "sink" << joined(s.repartition_sink_topics) << "\n";
    in << "repartition" << topics_line(s.repartition_source_topics) << "\n";
    in << "changelog" << topics_line(s.state_changelog_topics) << "\n";
    for (const auto& g : s.copartition_groups)
      in << "copartition " << indexes(g.source_topics) << "|" << indexes(g.repartition_source_topics) << "\n";
  }
  in << "run\n";
  return in.str();
}

// Ours, in the oracle's words.
std::string answer_of(const test_case& c) {
  std::ostringstream out;
  out << "result " << c.name << "\n";
  auto result = configure_topics(c.t, 42, [&](const std::string& topic) -> std::optional<int32_t> {
    auto it = c.existing.find(topic);
    return it == c.existing.end() ? std::nullopt : std::optional<int32_t>(it->second);
  });
  if (auto* f = std::get_if<topology_failure>(&result)) {
    out << "failure " << static_cast<int>(f->code) << " " << f->message << "\nend\n";
    return out.str();
  }
  const auto& configured = std::get<configured_topology>(result);
  if (configured.error) out << "status " << static_cast<int>(configured.error->status) << " " << configured.error->message << "\n";
  else out << "status - \n";
  for (const auto& t : configured.to_create)
    out << "create " << t.name << ":" << t.partitions << ":" << t.replication_factor.value_or(-1) << "\n";
  if (configured.subtopologies)
    for (const auto& [id, s] : *configured.subtopologies) out << "tasks " << id << ":" << s.tasks << "\n";
  out << "end\n";
  return out.str();
}

TEST(StreamsTopologyKafkaEquivalence, RandomTopologiesAreConfiguredAsKafkaConfiguresThem) {
  consumer::testing::kafka_assignor_oracle oracle("StreamsTopologyOracle");
  if (auto missing = oracle.prepare()) FAIL() << "cannot run Kafka's InternalTopicManager: " << *missing;
  std::mt19937 rng(20261207);
  std::vector<test_case> cases;
  std::string input;
  for (int i = 0; i < 1000; ++i) {
    cases.push_back(random_case(rng, i));
    input += input_of(cases.back());
  }
  std::string output;
  if (auto error = oracle.run(input, output)) FAIL() << *error;
  std::istringstream kafka(output);
  std::map<std::string, int> outcomes;
  for (const auto& c : cases) {
    std::string expected, line;
    while (std::getline(kafka, line)) {
      expected += line + "\n";
      if (line == "end") break;
    }
    const std::string ours = answer_of(c);
    ASSERT_EQ(ours, expected) << "case " << c.name << ":\n" << input_of(c);
    // The outcome: the failure's code, or the status (or "-": ready).
    std::istringstream lines(expected);
    std::string first, kind, code;
    std::getline(lines, first);
    lines >> kind >> code;
    outcomes[kind + " " + code]++;
  }
  // The cases reach every outcome.
  for (const auto& [outcome, count] : outcomes) std::cout << "  " << outcome << ": " << count << "\n";
  EXPECT_GE(outcomes.size(), 3u);
}

}  // namespace
}  // namespace hw::broker::group::streams
