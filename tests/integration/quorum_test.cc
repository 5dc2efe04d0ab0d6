// Three controller-only highwater processes on 127.0.0.1 forming a KRaft
// quorum (controller.quorum.voters, as in a three-node docker-compose file):
// they elect a leader; a killed leader is replaced without losing a
// committed record; a stopped leader is replaced and steps down once it
// runs again; all three restarted keep the same committed log.
//
// Committed records here are cluster-default broker configs written with
// IncrementalAlterConfigs on the leader's controller listener (a
// ConfigRecord each), read back with DescribeConfigs.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using std::chrono::milliseconds;

constexpr int k_nodes = 3;
constexpr const char* k_key = "log.retention.bytes";

struct leader_view {
  int index = -1;  // into the cluster's nodes
  int32_t epoch = -1;
  int64_t high_watermark = -1;
  std::vector<int64_t> voter_ends;  // log end offset of each voter, as the leader sees it
};

// The files under dir, tolerating files that come and go meanwhile (the
// process renames and deletes snapshot files while the test looks).
std::vector<std::filesystem::path> files_under(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path());
  return out;
}

class quorum_cluster {
 public:
  explicit quorum_cluster(std::vector<std::string> extra = {}) : extra_(std::move(extra)) {
    setenv("CLUSTER_ID", "QuorumITclusterAAAAAAA", 1);
    for (int i = 0; i < k_nodes; ++i) nodes_.push_back(std::make_unique<broker_process>());
  }
  ~quorum_cluster() { unsetenv("CLUSTER_ID"); }

  // A restart of node i keeps its port (the voter string names it).
  bool start(int i) {
    if (!cluster_ids.empty()) setenv("CLUSTER_ID", cluster_ids[i].c_str(), 1);
    std::vector<std::string> args{"--override", "process.roles=controller", "--override",
                                  "node.id=" + std::to_string(i + 1), "--override",
                                  "listeners=CONTROLLER://127.0.0.1:" + std::to_string(ports_[i]), "--override",
                                  "controller.listener.names=CONTROLLER", "--override",
                                  "controller.quorum.voters=" + voters_};
    args.insert(args.end(), extra_.begin(), extra_.end());
    return nodes_[i]->start(args);
  }
  // The first start picks the voters' ports (again if one was taken
  // meanwhile); later ones restart every node on its port.
  bool start_all() {
    if (!ports_.empty()) return start_each();
    std::vector<broker_process*> all;
    for (auto& n : nodes_) all.push_back(n.get());
    auto chosen = start_on_fresh_ports(k_nodes, [&](const std::vector<uint16_t>& ports) {
      if (on_ports_chosen) on_ports_chosen(ports);
      ports_ = ports;
      voters_.clear();
      for (int i = 0; i < k_nodes; ++i)
        voters_ += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports_[i]);
      return started_or_port_taken(start_each(), all);
    });
    if (!chosen) ports_.clear();
    return chosen.has_value();
  }
  bool start_each() {
    for (int i = 0; i < k_nodes; ++i)
      if (!start(i)) return false;
    return true;
  }
  broker_process& node(int i) { return *nodes_[i]; }
  // Each node's CLUSTER_ID for its first start, when they are to differ.
  std::vector<std::string> cluster_ids;
  // Called with the ports of each attempt of the first start_all().
  std::function<void(const std::vector<uint16_t>&)> on_ports_chosen;
  uint16_t port(int i) const { return ports_[i]; }
  std::string logs() const {
    std::string all;
    for (int i = 0; i < k_nodes; ++i) all += "---- node " + std::to_string(i + 1) + " ----\n" + nodes_[i]->log();
    return all;
  }

  // The leader's DescribeQuorum view, asked of node i; nothing when i does
  // not lead (or does not answer).
  std::optional<leader_view> describe(int i) {
    raw_client client(ports_[i]);
    if (!client.connected()) return std::nullopt;
    msg::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back().partition_index = 0;
    auto resp = client.call<msg::describe_quorum_response>(55, 2, req, 5s);
    if (!resp || resp->topics.empty() || resp->topics[0].partitions.empty()) return std::nullopt;
    const auto& p = resp->topics[0].partitions[0];
    if (p.error_code != 0) return std::nullopt;
    leader_view v;
    v.index = p.leader_id - 1;
    v.epoch = p.leader_epoch;
    v.high_watermark = p.high_watermark;
    for (const auto& s : p.current_voters) v.voter_ends.push_back(s.log_end_offset);
    return v;
  }

  // Waits for one of `candidates` to lead.
  std::optional<leader_view> wait_for_leader(const std::vector<int>& candidates, milliseconds timeout = 15s) {
    std::optional<leader_view> found;
    wait_until(
        [&] {
          for (int i : candidates) {
            if (auto v = describe(i); v && v->index == i) {
              found = v;
              return true;
            }
          }
          return false;
        },
        timeout);
    return found;
  }

  // Waits until the leader (node i) sees every voter's log end at its
  // high watermark.
  bool wait_for_voters_to_catch_up(int i) {
    return wait_until(
        [&] {
          auto v = describe(i);
          if (!v || v->voter_ends.size() != static_cast<size_t>(k_nodes)) return false;
          for (int64_t e : v->voter_ends)
            if (e != v->high_watermark) return false;
          return true;
        },
        10s);
  }

  // Sets the cluster-wide log.retention.bytes on node i; the error code.
  int16_t set_config(int i, int64_t value) {
    raw_client client(ports_[i]);
    msg::incremental_alter_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = 4;  // BROKER; "" is the cluster default
    auto& c = r.configs.emplace_back();
    c.name = k_key;
    c.config_operation = 0;  // SET
    c.value = std::to_string(value);
    auto resp = client.call<msg::incremental_alter_configs_response>(44, 1, req, 20s);
    if (!resp || resp->responses.size() != 1) return -1;
    return resp->responses[0].error_code;
  }

  // The cluster-wide log.retention.bytes as node i describes it.
  std::optional<int64_t> config(int i) {
    raw_client client(ports_[i]);
    msg::describe_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = 4;
    r.configuration_keys = std::vector<std::string>{k_key};
    auto resp = client.call<msg::describe_configs_response>(32, 4, req, 5s);
    if (!resp || resp->results.size() != 1 || resp->results[0].error_code != 0) return std::nullopt;
    for (const auto& c : resp->results[0].configs)
      if (c.name == k_key && c.value) return std::stoll(*c.value);
    return std::nullopt;
  }

  // The metadata log's first segment of node i, as bytes.
  std::string segment_bytes(int i) {
    for (const auto& path : files_under(nodes_[i]->dir())) {
      if (path.filename() == "00000000000000000000.log" && path.parent_path().filename() == "__cluster_metadata-0") {
        std::ifstream in(path, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
      }
    }
    return {};
  }

  // The metadata snapshot files of node i.
  std::vector<std::string> snapshots(int i) {
    std::vector<std::string> out;
    for (const auto& path : files_under(nodes_[i]->dir())) {
      const std::string name = path.filename().string();
      if (name.size() > 11 && name.ends_with(".checkpoint") && path.parent_path().filename() == "__cluster_metadata-0")
        out.push_back(name);
    }
    return out;
  }

  std::string quorum_state(int i) {
    for (const auto& path : files_under(nodes_[i]->dir())) {
      if (path.filename() == "quorum-state") {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
      }
    }
    return {};
  }

 private:
  std::vector<std::string> extra_;
  std::vector<uint16_t> ports_;
  std::vector<std::unique_ptr<broker_process>> nodes_;
  std::string voters_;
};

std::vector<int> all_but(int skip) {
  std::vector<int> out;
  for (int i = 0; i < k_nodes; ++i)
    if (i != skip) out.push_back(i);
  return out;
}

// Commits values first..last through the node that leads; the last
// acknowledged value. A new leader's controller answers NOT_CONTROLLER until
// its epoch's first entry is committed: like an admin client, ask again.
int64_t commit_values(quorum_cluster& c, int leader, int64_t first, int64_t last) {
  int64_t acked = -1;
  for (int64_t v = first; v <= last; ++v) {
    int16_t error = -1;
    EXPECT_TRUE(wait_until([&] { return (error = c.set_config(leader, v)) != 41; }, 10s));
    EXPECT_EQ(error, 0) << "value " << v;
    if (error == 0) acked = v;
  }
  return acked;
}

TEST(QuorumIT, ThreeControllersElectOneLeaderAndReplicateToAll) {
  quorum_cluster c;
  ASSERT_TRUE(c.start_all()) << c.logs();
  auto leader = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(leader) << c.logs();
  EXPECT_GE(leader->epoch, 1);
  // Only one node answers as the leader.
  for (int i : all_but(leader->index)) EXPECT_FALSE(c.describe(i)) << "node " << i + 1 << " also leads";

  const int64_t acked = commit_values(c, leader->index, 1, 5);
  EXPECT_EQ(c.config(leader->index), acked);
  // A follower's write is refused as the controller's is elsewhere.
  EXPECT_EQ(c.set_config(all_but(leader->index).front(), 99), 41) << "NOT_CONTROLLER";
  // Every voter catches up with the leader's log.
  ASSERT_TRUE(c.wait_for_voters_to_catch_up(leader->index)) << c.logs();
  for (int i : all_but(leader->index))
    EXPECT_TRUE(wait_until([&] { return c.config(i) == acked; }, 10s)) << "node " << i + 1 << " replays the log";
}

TEST(QuorumIT, AKilledLeaderIsReplacedWithoutLosingACommittedRecord) {
  quorum_cluster c;
  ASSERT_TRUE(c.start_all()) << c.logs();
  auto leader = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(leader) << c.logs();
  const int64_t acked = commit_values(c, leader->index, 1, 20);

  const auto killed_at = std::chrono::steady_clock::now();
  ASSERT_EQ(c.node(leader->index).stop(SIGKILL), -SIGKILL);
  auto next = c.wait_for_leader(all_but(leader->index));
  ASSERT_TRUE(next) << c.logs();
  const auto failover = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - killed_at);
  std::printf("failover after SIGKILL of the leader: %lld ms\n", static_cast<long long>(failover.count()));
  EXPECT_GT(next->epoch, leader->epoch);
  // Every acknowledged record survives (the new leader applies the last
  // ones once its own epoch's first entry commits).
  EXPECT_TRUE(wait_until([&] { return c.config(next->index) == acked; }, 10s)) << c.logs();

  // The quorum of two goes on committing; the killed node comes back as a
  // follower and catches up.
  const int64_t later = commit_values(c, next->index, 21, 25);
  ASSERT_TRUE(c.start(leader->index)) << c.logs();
  ASSERT_TRUE(wait_until([&] { return c.config(leader->index) == later; }, 15s)) << c.logs();
}

TEST(QuorumIT, AStoppedLeaderIsReplacedAndStepsDownWhenItRunsAgain) {
  quorum_cluster c;
  ASSERT_TRUE(c.start_all()) << c.logs();
  auto leader = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(leader) << c.logs();
  const int64_t acked = commit_values(c, leader->index, 1, 5);

  ASSERT_EQ(kill(c.node(leader->index).pid(), SIGSTOP), 0);
  auto next = c.wait_for_leader(all_but(leader->index));
  if (!next) kill(c.node(leader->index).pid(), SIGCONT);
  ASSERT_TRUE(next) << c.logs();
  EXPECT_GT(next->epoch, leader->epoch);
  const int64_t later = commit_values(c, next->index, 6, 8);
  ASSERT_EQ(kill(c.node(leader->index).pid(), SIGCONT), 0);

  // The old leader learns of the higher epoch: it no longer leads, follows
  // the new leader in its durable quorum state, and replays what the new
  // leader committed.
  const std::string expected_state = "\"leaderId\":" + std::to_string(next->index + 1) +
                                     ",\"leaderEpoch\":" + std::to_string(next->epoch);
  ASSERT_TRUE(wait_until(
      [&] {
        return !c.describe(leader->index) && c.quorum_state(leader->index).find(expected_state) != std::string::npos;
      },
      15s))
      << c.quorum_state(leader->index) << "\n" << c.logs();
  EXPECT_EQ(c.set_config(leader->index, 100), 41) << "NOT_CONTROLLER from the old leader";
  ASSERT_TRUE(wait_until([&] { return c.config(leader->index) == later; }, 10s)) << c.logs();
  EXPECT_GT(later, acked);
}

TEST(QuorumIT, AllThreeRestartedKeepTheSameCommittedLog) {
  quorum_cluster c;
  ASSERT_TRUE(c.start_all()) << c.logs();
  auto leader = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(leader) << c.logs();
  const int64_t acked = commit_values(c, leader->index, 1, 10);
  for (int i = 0; i < k_nodes; ++i) ASSERT_EQ(c.node(i).stop(SIGTERM), 0) << c.logs();

  ASSERT_TRUE(c.start_all()) << c.logs();
  auto again = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(again) << c.logs();
  EXPECT_GT(again->epoch, leader->epoch);
  EXPECT_TRUE(wait_until([&] { return c.config(again->index) == acked; }, 10s)) << c.logs();
  const int64_t later = commit_values(c, again->index, 11, 12);
  // Once every voter holds the leader's whole log, the three logs are the
  // same bytes.
  ASSERT_TRUE(c.wait_for_voters_to_catch_up(again->index)) << c.logs();
  const std::string reference = c.segment_bytes(again->index);
  ASSERT_FALSE(reference.empty());
  for (int i : all_but(again->index)) {
    EXPECT_TRUE(wait_until([&] { return c.segment_bytes(i) == reference; }, 5s)) << "node " << i + 1;
    EXPECT_TRUE(wait_until([&] { return c.config(i) == later; }, 10s)) << "node " << i + 1;
  }
}

// With snapshots taken every few records: the leader's log starts past what
// a follower that was down holds, so the follower copies the leader's
// snapshot (FetchSnapshot), then the log after it; a restart loads the
// latest snapshot and replays only the log after it.
TEST(QuorumIT, AFollowerBehindTheLeadersLogStartCopiesItsSnapshot) {
  quorum_cluster c({"--override", "metadata.log.max.record.bytes.between.snapshots=200"});
  ASSERT_TRUE(c.start_all()) << c.logs();
  auto leader = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(leader) << c.logs();
  const int behind = all_but(leader->index).front();
  commit_values(c, leader->index, 1, 5);
  ASSERT_EQ(c.node(behind).stop(SIGKILL), -SIGKILL);

  const int64_t acked = commit_values(c, leader->index, 6, 40);
  ASSERT_TRUE(wait_until([&] { return !c.snapshots(leader->index).empty(); }, 10s)) << c.logs();
  ASSERT_TRUE(c.start(behind)) << c.logs();
  ASSERT_TRUE(wait_until([&] { return c.config(behind) == acked; }, 15s)) << c.logs();
  EXPECT_NE(c.node(behind).log().find("Installing the metadata snapshot"), std::string::npos) << c.node(behind).log();

  // Everyone restarted: each loads its latest snapshot and the log after it.
  for (int i = 0; i < k_nodes; ++i) ASSERT_EQ(c.node(i).stop(SIGTERM), 0) << c.logs();
  ASSERT_TRUE(c.start_all()) << c.logs();
  auto again = c.wait_for_leader({0, 1, 2});
  ASSERT_TRUE(again) << c.logs();
  for (int i = 0; i < k_nodes; ++i) {
    EXPECT_TRUE(wait_until([&] { return c.config(i) == acked; }, 10s)) << "node " << i + 1;
    EXPECT_NE(c.node(i).log().find("Loaded the metadata snapshot"), std::string::npos) << c.node(i).log();
  }
}

// Nodes formatted with different cluster ids never form a quorum; each
// says why in its log, naming both ids.
TEST(QuorumIT, NodesWithDifferentClusterIdsLogTheMismatch) {
  quorum_cluster c;
  c.cluster_ids = {"QuorumITclusterOneAAAAA", "QuorumITclusterTwoAAAAA", "QuorumITclusterThreeAAA"};
  ASSERT_TRUE(c.start_all()) << c.logs();
  const std::string line = "from node 2: it belongs to cluster QuorumITclusterTwoAAAAA but this node to cluster "
                           "QuorumITclusterOneAAAAA (INCONSISTENT_CLUSTER_ID)";
  ASSERT_TRUE(wait_until([&] { return c.node(0).log().find(line) != std::string::npos; }, 15s)) << c.logs();
  EXPECT_NE(c.node(0).log().find("WARN Refusing Vote from node 2"), std::string::npos) << c.logs();
  EXPECT_FALSE(c.wait_for_leader({0, 1, 2}, 2s)) << c.logs();
  // Rate-limited: node 2 keeps asking every election timeout, but node 1
  // logs once per minute for that peer and id.
  const std::string log = c.node(0).log();
  size_t count = 0;
  for (size_t at = log.find("Refusing Vote from node 2"); at != std::string::npos;
       at = log.find("Refusing Vote from node 2", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << log;
}

// A voter's port taken between the harness choosing it and the node
// binding it: the node exits on EADDRINUSE, and the harness starts the
// whole quorum again on fresh ports with one new voter string.
TEST(QuorumIT, AVotersPortTakenBeforeItBindsIsReplacedByTheHarness) {
  quorum_cluster c;
  int blocker = -1;
  uint16_t taken = 0;
  c.on_ports_chosen = [&](const std::vector<uint16_t>& ports) {
    if (blocker >= 0) return;  // only the first attempt loses its port
    blocker = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(ports[1]);
    ASSERT_EQ(::bind(blocker, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(blocker, 1), 0);
    taken = ports[1];
  };
  const bool started = c.start_all();
  ASSERT_GE(blocker, 0);
  ::close(blocker);
  ASSERT_TRUE(started) << c.logs();
  EXPECT_NE(c.node(1).log().find("Address already in use"), std::string::npos) << c.logs();
  for (int i = 0; i < k_nodes; ++i) EXPECT_NE(c.port(i), taken);
  ASSERT_TRUE(c.wait_for_leader({0, 1, 2})) << c.logs();
}

}  // namespace
}  // namespace hw::testing
