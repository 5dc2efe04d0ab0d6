// A streams group (KIP-1071) from the records Kafka 4.3.1 wrote for it
// (fixtures/streams_group_records_4_3.txt, tests/tools/
// capture_streams_group_records.py: CountApp instance a, application.server
// localhost:7001, alone; then b, localhost:7002, sharing the 8 tasks; b
// leaves, then a): every streams record decodes and encodes back to Kafka's
// bytes, the records replay into the group Kafka had along the way, and the
// metadata hashes Kafka wrote are the ones computed from the topics of the
// fixture's "# topic" lines (one broker without a rack: no racks hashed).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/consumer/metadata_hash.h"
#include "broker/group/group_records.h"
#include "broker/group/streams/streams_group.h"
#include "broker/group/streams/streams_group_records.h"
#include "broker/group/streams/topology.h"
#include "protocol/wire/uuid.h"
#include "tests/broker/golden_records.h"

namespace hw::broker::group::streams {
namespace {

const std::string fixture = "streams_group_records_4_3.txt";
const std::string group_id = "cap-streams";
const std::string source = "cap-words";
const std::string repartition = "cap-streams-by-word-repartition";
const std::string changelog = "cap-streams-word-counts-changelog";
constexpr int32_t partitions = 4;

std::string hex(const std::vector<uint8_t>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string hex(const std::optional<std::vector<uint8_t>>& bytes) { return bytes ? hex(*bytes) : "null"; }

int16_t record_type(const testing::golden_record& g) {
  return g.key.size() < 2 ? int16_t{-1} : static_cast<int16_t>((g.key[0] << 8) | g.key[1]);
}

struct kafka_record {
  testing::golden_record raw;
  streams_group_record record;
};

// The fixture's streams-group records, in log order, each with its bytes.
// Every record of the fixture (offset commits too) must decode.
std::vector<kafka_record> kafkas_records() {
  std::vector<kafka_record> out;
  for (auto& g : testing::read_golden(fixture)) {
    auto d = decode_record(g.key, g.value ? std::optional<byte_view>(*g.value) : std::nullopt);
    EXPECT_TRUE(d.has_value()) << "offset " << g.offset;
    if (!d) continue;
    if (auto* s = std::get_if<streams_group_record>(&*d)) {
      out.push_back({g, *s});
    } else {
      EXPECT_FALSE(is_streams_group_record_type(record_type(g))) << "offset " << g.offset << " decoded as another kind";
    }
  }
  return out;
}

std::optional<std::string> config_of(const topic_info& t, const std::string& key) {
  for (const auto& [k, v] : t.configs)
    if (k == key) return v;
  return std::nullopt;
}

TEST(StreamsGroupGolden, EveryRecordEncodesBackToKafkasBytes) {
  std::map<int, int> records, tombstones;  // by record type
  for (const auto& [raw, r] : kafkas_records()) {
    const int16_t type = record_type(raw);
    (raw.value ? records : tombstones)[type]++;
    EXPECT_EQ(group_of(r), group_id) << "offset " << raw.offset;
    // The streams codec on its own reads the same record.
    auto direct = decode_streams_group_record(raw.key, raw.value ? std::optional<byte_view>(*raw.value) : std::nullopt);
    ASSERT_TRUE(direct.has_value()) << "offset " << raw.offset;
    EXPECT_TRUE(*direct == r) << "offset " << raw.offset;
    // And writes Kafka's bytes back, byte for byte.
    const auto back = encode_record(r);
    EXPECT_EQ(hex(back.key), hex(raw.key)) << "key of type " << type << " at offset " << raw.offset;
    EXPECT_EQ(hex(back.value), hex(raw.value)) << "value of type " << type << " at offset " << raw.offset;
  }
  // The fixture holds every streams record type, and the tombstones of the members who left.
  for (int type : {17, 19, 20, 21, 22, 23}) EXPECT_GT(records[type], 0) << "type " << type;
  for (int type : {19, 21, 22}) EXPECT_EQ(tombstones[type], 2) << "tombstones of type " << type;
}

// What the group looked like when it was Stable.
struct snapshot {
  std::map<std::string, streams_member> members;
  std::map<std::string, tasks_tuple> target;
  std::map<std::pair<std::string, int32_t>, std::optional<std::string>> active;  // every task's process
};

snapshot take(const streams_group& g) {
  snapshot s{g.members(), g.target_assignment(), {}};
  for (const char* sub : {"0", "1"})
    for (int32_t p = 0; p < partitions; ++p) s.active[{sub, p}] = g.active_process(sub, p);
  return s;
}

task_set without_epochs(const task_epochs& tasks) {
  task_set out;
  for (const auto& [sub, ps] : tasks)
    for (const auto& [p, e] : ps) out[sub].insert(p);
  return out;
}

TEST(StreamsGroupGolden, KafkasRecordsReplayIntoTheGroupAlongTheWay) {
  streams_group g(group_id);
  std::vector<std::pair<streams_group_state, size_t>> states;  // (state, members) as they changed
  std::vector<msg::streams_group_metadata_value> metadata;
  std::optional<snapshot> both, last_stable;
  for (const auto& [raw, r] : kafkas_records()) {
    auto error = g.replay(r);
    ASSERT_FALSE(error.has_value()) << "offset " << raw.offset << ": " << *error;
    if (auto* m = std::get_if<group_metadata_record>(&r); m && m->value) metadata.push_back(*m->value);
    const std::pair<streams_group_state, size_t> now{g.state(), g.members().size()};
    if (states.empty() || states.back() != now) states.push_back(now);
    if (now.first == streams_group_state::stable) {
      last_stable = take(g);
      if (now.second == 2) both = take(g);
    }
  }

  // The topology CountApp declared: subtopology 0 reads the input and writes the repartition topic,
  // subtopology 1 reads it and keeps the counts' changelog. Partitions are left to the coordinator.
  ASSERT_TRUE(g.declared_topology().has_value());
  const topology& t = *g.declared_topology();
  EXPECT_EQ(t.epoch, 0);
  ASSERT_EQ(t.subtopologies.size(), 2u);
  const auto& reads = t.subtopologies[0];
  EXPECT_EQ(reads.id, "0");
  EXPECT_EQ(reads.source_topics, std::vector<std::string>{source});
  EXPECT_EQ(reads.repartition_sink_topics, std::vector<std::string>{repartition});
  EXPECT_TRUE(reads.state_changelog_topics.empty());
  EXPECT_TRUE(reads.repartition_source_topics.empty());
  const auto& counts = t.subtopologies[1];
  EXPECT_EQ(counts.id, "1");
  EXPECT_TRUE(counts.source_topics.empty());
  EXPECT_TRUE(counts.repartition_sink_topics.empty());
  ASSERT_EQ(counts.repartition_source_topics.size(), 1u);
  EXPECT_EQ(counts.repartition_source_topics[0].name, repartition);
  EXPECT_EQ(counts.repartition_source_topics[0].partitions, 0);
  EXPECT_EQ(config_of(counts.repartition_source_topics[0], "cleanup.policy"), std::optional<std::string>("delete"));
  ASSERT_EQ(counts.state_changelog_topics.size(), 1u);
  EXPECT_EQ(counts.state_changelog_topics[0].name, changelog);
  EXPECT_EQ(counts.state_changelog_topics[0].partitions, 0);
  EXPECT_EQ(config_of(counts.state_changelog_topics[0], "cleanup.policy"), std::optional<std::string>("compact"));
  EXPECT_TRUE(counts.copartition_groups.empty());
  EXPECT_EQ(required_topics(t), (std::set<std::string>{source, repartition, changelog}));

  // NotReady first (the internal topics did not exist yet: the first metadata record leaves the topology
  // unvalidated, -1); then a alone Stable, both Stable, a alone Stable again; never Dead.
  ASSERT_FALSE(states.empty());
  EXPECT_EQ(states.front().first, streams_group_state::not_ready);
  ASSERT_GE(metadata.size(), 2u);
  EXPECT_EQ(metadata.front().validated_topology_epoch, -1);
  EXPECT_EQ(metadata.back().validated_topology_epoch, t.epoch);
  std::vector<size_t> stable_sizes;
  for (const auto& [state, members] : states) {
    EXPECT_NE(state, streams_group_state::dead);
    if (state == streams_group_state::stable && (stable_sizes.empty() || stable_sizes.back() != members))
      stable_sizes.push_back(members);
  }
  EXPECT_EQ(stable_sizes, (std::vector<size_t>{1, 2, 1}));
  for (auto s : {streams_group_state::assigning, streams_group_state::reconciling})
    EXPECT_NE(std::find_if(states.begin(), states.end(), [&](const auto& x) { return x.first == s; }), states.end())
        << to_string(s);

  // Both members, Stable: each with its endpoint and process, the 8 tasks split between them, each task's
  // process the member's that runs it, and the target reached.
  ASSERT_TRUE(both.has_value()) << "the group never was Stable with two members";
  std::map<std::string, uint16_t> port_of_client;
  std::set<std::string> processes;
  std::map<std::pair<std::string, int32_t>, std::string> runs;
  for (const auto& [id, m] : both->members) {
    ASSERT_TRUE(m.metadata.endpoint.has_value()) << id;
    EXPECT_EQ(m.metadata.endpoint->host, "localhost");
    port_of_client[m.metadata.client_id] = m.metadata.endpoint->port;
    EXPECT_FALSE(m.process_id.empty());
    processes.insert(m.process_id);
    EXPECT_EQ(m.metadata.topology_epoch, t.epoch);
    EXPECT_FALSE(m.metadata.instance_id.has_value());  // Kafka wrote null, not ""
    EXPECT_FALSE(m.metadata.rack_id.has_value());
    EXPECT_EQ(m.state, streams_member_state::stable);
    EXPECT_TRUE(m.pending_revocation.empty());
    EXPECT_FALSE(m.assigned.active.empty()) << id;
    ASSERT_TRUE(both->target.count(id)) << id;
    EXPECT_EQ(both->target.at(id).active, without_epochs(m.assigned.active)) << id;
    for (const auto& [sub, ps] : m.assigned.active) {
      for (const auto& [p, e] : ps) {
        EXPECT_TRUE(runs.emplace(std::pair{sub, p}, m.process_id).second) << "task " << sub << "_" << p << " twice";
        EXPECT_LE(e, m.epoch);
        EXPECT_EQ(both->active.at({sub, p}), std::optional<std::string>(m.process_id));
      }
    }
  }
  EXPECT_EQ(port_of_client, (std::map<std::string, uint16_t>{{"cap-streams-a-StreamThread-1-consumer", 7001},
                                                              {"cap-streams-b-StreamThread-1-consumer", 7002}}));
  EXPECT_EQ(processes.size(), 2u);
  EXPECT_EQ(runs.size(), static_cast<size_t>(2 * partitions));

  // a alone again, running every task: those it kept at the epoch it got them at, b's at its new epoch.
  ASSERT_TRUE(last_stable.has_value());
  ASSERT_EQ(last_stable->members.size(), 1u);
  const streams_member& a = last_stable->members.begin()->second;
  ASSERT_TRUE(a.metadata.endpoint.has_value());
  EXPECT_EQ(a.metadata.endpoint->port, 7001);
  std::set<int32_t> epochs;
  size_t tasks = 0;
  for (const auto& [sub, ps] : a.assigned.active) {
    for (const auto& [p, e] : ps) {
      epochs.insert(e);
      ++tasks;
    }
  }
  EXPECT_EQ(tasks, static_cast<size_t>(2 * partitions));
  ASSERT_GE(epochs.size(), 2u);
  EXPECT_EQ(*epochs.rbegin(), a.epoch);
  EXPECT_LT(*epochs.begin(), a.epoch);

  // Both gone: no members, no target, nobody running a task; the group and its topology stay (Empty, not Dead).
  EXPECT_TRUE(g.members().empty());
  EXPECT_EQ(g.state(), streams_group_state::empty);
  EXPECT_FALSE(g.deleted());
  EXPECT_TRUE(g.target_assignment().empty());
  for (const char* sub : {"0", "1"})
    for (int32_t p = 0; p < partitions; ++p) EXPECT_FALSE(g.active_process(sub, p).has_value()) << sub << "_" << p;
  EXPECT_EQ(g.group_epoch(), metadata.back().epoch);
  EXPECT_EQ(g.metadata_hash(), metadata.back().metadata_hash);
}

// The "# topic <name> <id base64> <id hex> <partitions>" lines: the topics when the records were captured.
std::map<std::string, consumer::topic_shape> captured_topics() {
  std::ifstream in(std::string(HW_SOURCE_DIR) + "/tests/broker/fixtures/" + fixture);
  std::map<std::string, consumer::topic_shape> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# topic ", 0) != 0) continue;
    std::istringstream fields(line.substr(8));
    std::string name, base64, id_hex;
    int32_t count = -1;
    fields >> name >> base64 >> id_hex >> count;
    consumer::topic_shape t;
    t.name = name;
    t.partitions = count;
    const auto bytes = testing::unhex(id_hex);
    EXPECT_EQ(bytes.size(), t.id.bytes.size()) << line;
    std::copy_n(bytes.begin(), std::min(bytes.size(), t.id.bytes.size()), t.id.bytes.begin());
    EXPECT_EQ(protocol::uuid::parse(base64), std::optional<protocol::uuid>(t.id)) << line;
    out[name] = t;
  }
  return out;
}

// As the manager's metadata_hash_of: the topics of `names` that exist, without racks (one broker, no rack).
int64_t hash_of(const std::set<std::string>& names, const std::map<std::string, consumer::topic_shape>& topics) {
  std::map<std::string, int64_t> hashes;
  for (const auto& name : names) {
    auto it = topics.find(name);
    if (it != topics.end()) hashes[name] = consumer::topic_hash(it->second);
  }
  return consumer::group_metadata_hash(hashes);
}

TEST(StreamsGroupGolden, KafkasMetadataHashesAreTheTopicsHashes) {
  const auto topics = captured_topics();
  ASSERT_EQ(topics.size(), 4u);  // the input, the output and the two internal topics
  EXPECT_EQ(topics.at(source).partitions, partitions);
  EXPECT_EQ(topics.at(repartition).partitions, partitions);  // as many as the input: the broker created them
  EXPECT_EQ(topics.at(changelog).partitions, partitions);
  std::optional<topology> t;
  std::vector<msg::streams_group_metadata_value> metadata;
  for (const auto& [raw, r] : kafkas_records()) {
    if (auto* m = std::get_if<group_metadata_record>(&r); m && m->value) metadata.push_back(*m->value);
    if (auto* tr = std::get_if<topology_record>(&r); tr && tr->value) t = topology_from(*tr->value);
  }
  ASSERT_TRUE(t.has_value());
  ASSERT_FALSE(metadata.empty());
  // The last hash: over every topic the topology requires (not the output topic).
  auto last = std::find_if(metadata.rbegin(), metadata.rend(), [](const auto& v) { return v.metadata_hash != 0; });
  ASSERT_NE(last, metadata.rend());
  EXPECT_EQ(hash_of(required_topics(*t), topics), last->metadata_hash);
  EXPECT_NE(hash_of({source}, topics), last->metadata_hash);
  // The first, written before the broker created the internal topics: over the source topic alone.
  std::set<std::string> sources;
  for (const auto& s : t->subtopologies) sources.insert(s.source_topics.begin(), s.source_topics.end());
  EXPECT_EQ(sources, std::set<std::string>{source});
  EXPECT_EQ(hash_of(sources, topics), metadata.front().metadata_hash);
}

}  // namespace
}  // namespace hw::broker::group::streams
