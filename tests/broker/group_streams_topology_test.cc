// A streams group's topology configured against the topics that exist, as
// Kafka 4.3.1's InternalTopicManager does: missing source topics, partition
// counts of repartition topics inferred through the topology, copartitioned
// topics enforced, changelog topics sized, task counts, the internal topics
// to create in Kafka's (HashMap) order, and the topologies refused.
#include <gtest/gtest.h>

#include <map>

#include "broker/group/streams/topology.h"

namespace hw::broker::group::streams {
namespace {

using protocol::error_code;

struct image {
  std::map<std::string, int32_t> topics;
  partition_count_of view() const {
    return [this](const std::string& t) -> std::optional<int32_t> {
      auto it = topics.find(t);
      return it == topics.end() ? std::nullopt : std::optional<int32_t>(it->second);
    };
  }
};

topic_info flexible(const std::string& name) { return {name, 0, 0, {}}; }
topic_info fixed(const std::string& name, int32_t partitions) { return {name, partitions, 0, {}}; }

configured_topology configured(const topology& t, const image& i) {
  auto out = configure_topics(t, 42, i.view());
  EXPECT_TRUE(std::holds_alternative<configured_topology>(out))
      << (std::holds_alternative<topology_failure>(out) ? std::get<topology_failure>(out).message : "");
  return std::holds_alternative<configured_topology>(out) ? std::get<configured_topology>(out) : configured_topology{};
}

topology_failure failed(const topology& t, const image& i) {
  auto out = configure_topics(t, 42, i.view());
  EXPECT_TRUE(std::holds_alternative<topology_failure>(out));
  return std::holds_alternative<topology_failure>(out) ? std::get<topology_failure>(out) : topology_failure{};
}

std::vector<std::string> names(const std::vector<internal_topic>& topics) {
  std::vector<std::string> out;
  for (const auto& t : topics) out.push_back(t.name);
  return out;
}

// Subtopology 0 reads "in" and writes the repartition topic "r";
// subtopology 1 reads "r" and keeps a store whose changelog is "c".
topology two_step() {
  topology t;
  t.epoch = 3;
  subtopology first;
  first.id = "0";
  first.source_topics = {"in"};
  first.repartition_sink_topics = {"r"};
  subtopology second;
  second.id = "1";
  second.repartition_source_topics = {flexible("r")};
  second.state_changelog_topics = {flexible("c")};
  t.subtopologies = {first, second};
  return t;
}

TEST(StreamsTopology, MissingSourceTopicsAreNamedSortedAndSummarized) {
  topology t;
  subtopology s;
  s.id = "0";
  s.source_topics = {"e", "b", "d", "a", "c"};
  t.subtopologies = {s};
  auto c = configured(t, {});
  EXPECT_FALSE(c.ready());
  EXPECT_FALSE(c.subtopologies.has_value());
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->status, topology_status::missing_source_topics);
  EXPECT_EQ(c.error->message, "Source topics a, b, c and 2 additional topics are missing.");
  t.subtopologies[0].source_topics = {"b", "a"};
  EXPECT_EQ(configured(t, {}).error->message, "Source topics a, b are missing.");
}

TEST(StreamsTopology, RepartitionAndChangelogTopicsTakeTheirSourcesPartitions) {
  image i{{{"in", 4}}};
  auto c = configured(two_step(), i);
  ASSERT_TRUE(c.subtopologies);
  EXPECT_EQ(c.epoch, 3);
  EXPECT_EQ(c.metadata_hash, 42);
  EXPECT_EQ(c.subtopologies->at("0").tasks, 4);
  EXPECT_EQ(c.subtopologies->at("1").tasks, 4);
  EXPECT_EQ(c.subtopologies->at("1").repartition_source_topics.at("r").partitions, 4);
  EXPECT_EQ(c.subtopologies->at("1").state_changelog_topics.at("c").partitions, 4);
  // Both internal topics are missing: listed in Kafka's HashMap order
  // ("r" hashes to bucket 2, "c" to bucket 3), not sorted.
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->status, topology_status::missing_internal_topics);
  EXPECT_EQ(c.error->message, "Internal topics are missing: r, c");
  EXPECT_EQ(names(c.to_create), (std::vector<std::string>{"r", "c"}));
  EXPECT_EQ(c.to_create[0].partitions, 4);
  EXPECT_FALSE(c.to_create[0].replication_factor.has_value());
  EXPECT_FALSE(c.ready());

  // Once they exist with those counts, the topology is ready.
  i.topics["r"] = 4;
  i.topics["c"] = 4;
  c = configured(two_step(), i);
  EXPECT_TRUE(c.ready());
  EXPECT_TRUE(c.to_create.empty());
  // One created with another count is refused.
  i.topics["c"] = 2;
  c = configured(two_step(), i);
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->status, topology_status::incorrectly_partitioned_topics);
  EXPECT_EQ(c.error->message, "Existing topic c has different number of partitions: expected 4, found 2");
  EXPECT_FALSE(c.subtopologies.has_value());
}

TEST(StreamsTopology, ADeclaredCountAndReplicationFactorAreKept) {
  auto t = two_step();
  t.subtopologies[1].repartition_source_topics = {{"r", 7, 3, {{"cleanup.policy", "delete"}}}};
  auto c = configured(t, {{{"in", 4}}});
  ASSERT_TRUE(c.subtopologies);
  EXPECT_EQ(c.subtopologies->at("1").tasks, 7);
  EXPECT_EQ(c.subtopologies->at("1").state_changelog_topics.at("c").partitions, 7);
  ASSERT_EQ(c.to_create.size(), 2u);
  EXPECT_EQ(c.to_create[0].name, "r");
  EXPECT_EQ(c.to_create[0].replication_factor, std::optional<int16_t>(3));
  EXPECT_EQ(c.to_create[0].configs, (std::vector<std::pair<std::string, std::string>>{{"cleanup.policy", "delete"}}));
}

TEST(StreamsTopology, CopartitionedTopicsMustAgree) {
  topology t;
  subtopology s;
  s.id = "0";
  s.source_topics = {"a", "b"};
  s.copartition_groups = {{{0, 1}, {}, {}}};
  t.subtopologies = {s};
  auto c = configured(t, {{{"a", 2}, {"b", 3}}});
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->status, topology_status::incorrectly_partitioned_topics);
  EXPECT_EQ(c.error->message, "Following topics do not have the same number of partitions: [{a=2, b=3}]");
  EXPECT_TRUE(configured(t, {{{"a", 3}, {"b", 3}}}).ready());
}

TEST(StreamsTopology, AFlexibleRepartitionTopicTakesTheCountOfWhatItIsCopartitionedWith) {
  // Subtopology 0 writes "r" from a 5-partition source; subtopology 1 joins
  // "r" with "a" (3 partitions): "r" gets 3, not the 5 inferred.
  topology t;
  subtopology first;
  first.id = "0";
  first.source_topics = {"s"};
  first.repartition_sink_topics = {"r"};
  subtopology join;
  join.id = "1";
  join.source_topics = {"a"};
  join.repartition_source_topics = {flexible("r")};
  join.copartition_groups = {{{0}, {}, {0}}};
  t.subtopologies = {first, join};
  auto c = configured(t, {{{"s", 5}, {"a", 3}}});
  ASSERT_TRUE(c.subtopologies) << (c.error ? c.error->message : "");
  EXPECT_EQ(c.subtopologies->at("1").repartition_source_topics.at("r").partitions, 3);
  EXPECT_EQ(c.subtopologies->at("1").tasks, 3);
  // A fixed one that disagrees is refused.
  t.subtopologies[1].repartition_source_topics = {fixed("r", 4)};
  c = configured(t, {{{"s", 5}, {"a", 3}}});
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->message,
            "Number of partitions [4] of repartition topic [r] doesn't match number of partitions [3] of the source "
            "topic.");
}

TEST(StreamsTopology, TopologiesThatCannotBeConfiguredAreRefused) {
  // Two subtopologies feeding each other only: no count can be inferred.
  topology loop;
  subtopology x;
  x.id = "0";
  x.repartition_source_topics = {flexible("y")};
  x.repartition_sink_topics = {"x"};
  subtopology y;
  y.id = "1";
  y.repartition_source_topics = {flexible("x")};
  y.repartition_sink_topics = {"y"};
  loop.subtopologies = {x, y};
  auto f = failed(loop, {});
  EXPECT_EQ(f.code, error_code::streams_invalid_topology);
  EXPECT_EQ(f.message,
            "Failed to compute number of partitions for all repartition topics. There may be loops in the topology "
            "that cannot be resolved.");
  // A repartition source nobody writes.
  topology orphan;
  subtopology o;
  o.id = "0";
  o.source_topics = {"in"};
  o.repartition_source_topics = {flexible("nobody-writes")};
  orphan.subtopologies = {o};
  f = failed(orphan, {{{"in", 2}}});
  EXPECT_EQ(f.code, error_code::streams_invalid_topology);
  EXPECT_EQ(f.message,
            "Failed to compute number of partitions for all repartition topics, because a repartition source topic is "
            "never used as a sink topic.");
  // A subtopology that reads nothing.
  topology empty;
  subtopology e;
  e.id = "0";
  empty.subtopologies = {e};
  f = failed(empty, {});
  EXPECT_EQ(f.message, "No source topics found for subtopology 0");
  // Two subtopologies with one id.
  topology twice;
  subtopology a;
  a.id = "0";
  a.source_topics = {"in"};
  twice.subtopologies = {a, a};
  f = failed(twice, {{{"in", 2}}});
  EXPECT_EQ(f.code, error_code::unknown_server_error);
}

TEST(StreamsTopology, RequiredTopicsAreSourcesRepartitionSourcesAndChangelogs) {
  EXPECT_EQ(required_topics(two_step()), (std::set<std::string>{"in", "r", "c"}));
}

}  // namespace
}  // namespace hw::broker::group::streams
