// Replicated partitions on three combined nodes (broker and controller in
// each, as in a three-broker docker-compose file), replication factor 3 and
// min.insync.replicas=2: followers fetch the leader's log and end
// byte-identical; a stopped follower leaves the ISR while acks=all writes go
// on and rejoins when it is back; a killed leader is replaced from the ISR
// with every acknowledged record kept.

#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/alter_partition.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/metadata.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

using ReplicationIT = replication_cluster;
using protocol::error_code;
constexpr int16_t code(error_code e) { return static_cast<int16_t>(e); }

TEST_F(ReplicationIT, AcksAllWritesReachEveryReplicaAndTheLogsEndIdentical) {
  create_replicated("replicated");
  auto v = view(0, "replicated");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->replicas.size(), 3u);
  auto produced = produce_all(nodes[1]->port(), "replicated", messages("a", 50), "all");
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << logs();
  // Pull replication: the followers' segment files become the leader's, byte for byte.
  EXPECT_TRUE(wait_until([&] { return segments_identical("replicated"); }, 20s)) << logs();
  auto read = read_from_beginning(nodes[2]->port(), "replicated", 50);
  ASSERT_EQ(read.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(read[i].key, "a" + std::to_string(i));
}

TEST_F(ReplicationIT, AStoppedFollowerLeavesTheIsrWhileWritesGoOnAndRejoinsWhenBack) {
  create_replicated("shrink");
  auto v = view(0, "shrink");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;  // another node
  const int other = 6 - leader - follower;
  ASSERT_EQ(nodes[follower - 1]->stop(SIGKILL), -SIGKILL);
  // Out of the ISR by the leader's lag check or by the controller fencing
  // the silent broker, whichever comes first (a follower that was fully
  // caught up never lags: only the fencing takes it out, as in Kafka).
  ASSERT_TRUE(wait_until([&] { return isr_is(leader - 1, "shrink", {leader, other}); }, 20s)) << logs();
  // Two in the ISR, min.insync.replicas=2: acks=all writes go on.
  auto produced = produce_all(nodes[leader - 1]->port(), "shrink", messages("b", 30), "all");
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << logs();
  // Back: it catches up from where it stopped and rejoins.
  ASSERT_TRUE(start_node(follower - 1)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_is(leader - 1, "shrink", {1, 2, 3}); }, 30s)) << logs();
  EXPECT_TRUE(wait_until([&] { return segments_identical("shrink"); }, 20s)) << logs();
}

TEST_F(ReplicationIT, AKilledLeaderIsReplacedFromTheIsrAndNoAcknowledgedRecordIsLost) {
  create_replicated("failover");
  auto v = view(0, "failover");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int survivor = old_leader % 3 + 1;
  auto first = produce_all(nodes[survivor - 1]->port(), "failover", messages("c", 40), "all");
  for (const auto& r : first) ASSERT_GE(r.offset, 0) << logs();
  ASSERT_EQ(nodes[old_leader - 1]->stop(SIGKILL), -SIGKILL);
  auto after = new_leader_of(survivor - 1, "failover", *v, 30s);
  ASSERT_TRUE(after) << logs();
  // Every acknowledged record is on the new leader, and it takes acks=all writes.
  auto second = produce_all(nodes[survivor - 1]->port(), "failover", messages("d", 40), "all");
  for (const auto& r : second) ASSERT_GE(r.offset, 0) << logs();
  auto read = read_from_beginning(nodes[after->leader - 1]->port(), "failover", 80);
  ASSERT_EQ(read.size(), 80u) << logs();
  for (int i = 0; i < 80; ++i) ASSERT_EQ(read[i].offset, i) << logs();
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(read[i].key, "c" + std::to_string(i));
    EXPECT_EQ(read[40 + i].key, "d" + std::to_string(i));
  }
  // The old leader comes back as a follower of the new epoch and catches up.
  ASSERT_TRUE(start_node(old_leader - 1)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_is(after->leader - 1, "failover", {1, 2, 3}); }, 30s)) << logs();
  EXPECT_TRUE(wait_until([&] { return segments_identical("failover"); }, 20s)) << logs();
}

// ListOffsets as a consumer sends it (replica_id -1) is for the leader and
// answers its high watermark; with the debugging id (-2), as a tool asks
// every replica, any replica answers its own log end, as Kafka does. The
// followers are killed so that the leader's log end passes its HW: with
// two of three combined nodes gone the quorum cannot shrink the ISR, so
// acks=1 records stay above the HW.
TEST_F(ReplicationIT, ListOffsetsWithTheDebuggingReplicaIdReadsAnyReplicasLogEnd) {
  create_replicated("debug-offsets");
  auto v = view(0, "debug-offsets");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  const int other = 6 - leader - follower;
  for (const auto& r : produce_all(nodes[leader - 1]->port(), "debug-offsets", messages("a", 10), "all"))
    ASSERT_GE(r.offset, 0) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("debug-offsets"); }, 20s)) << logs();
  {
    raw_client client(nodes[follower - 1]->port());
    auto consumer = client.list_offset("debug-offsets", 0, -1);
    ASSERT_TRUE(consumer);
    EXPECT_EQ(consumer->error_code, 6) << "NOT_LEADER_OR_FOLLOWER";
    auto tool = client.list_offset("debug-offsets", 0, -1, -1, -2);
    ASSERT_TRUE(tool);
    EXPECT_EQ(tool->error_code, 0);
    EXPECT_EQ(tool->offset, 10);
  }
  ASSERT_EQ(nodes[follower - 1]->stop(SIGKILL), -SIGKILL);
  ASSERT_EQ(nodes[other - 1]->stop(SIGKILL), -SIGKILL);
  for (const auto& r : produce_all(nodes[leader - 1]->port(), "debug-offsets", messages("b", 5), "1"))
    ASSERT_GE(r.offset, 10) << logs();
  raw_client client(nodes[leader - 1]->port());
  auto consumer = client.list_offset("debug-offsets", 0, -1);
  ASSERT_TRUE(consumer);
  EXPECT_EQ(consumer->error_code, 0);
  EXPECT_EQ(consumer->offset, 10) << "the high watermark";
  auto tool = client.list_offset("debug-offsets", 0, -1, -1, -2);
  ASSERT_TRUE(tool);
  EXPECT_EQ(tool->error_code, 0);
  EXPECT_EQ(tool->offset, 15) << "the log end";
}

// Lag and session timeouts long enough that a frozen follower stays in
// the ISR (and registered) for the whole test.
class ReplicationSlowExpiryIT : public replication_cluster {
 protected:
  std::vector<std::string> extra_overrides() const override {
    return {"replica.lag.time.max.ms=60000", "broker.session.timeout.ms=60000"};
  }
};

// A new leader whose high watermark (what the old leader told it) is below
// the start of its own epoch cannot say yet what is committed: ListOffsets
// for the latest offset answers OFFSET_NOT_AVAILABLE, and the client
// retries, until the ISR has caught up (Kafka's
// Partition.fetchOffsetForTimestamp). The earliest offset and the debugging
// replica id's log end are answered meanwhile.
//
// The active controller is the next leader: a frozen or departing active
// controller would leave one live voter of three, and the leadership
// change would wait on the quorum rather than on the test.
TEST_F(ReplicationSlowExpiryIT, ANewLeaderBelowItsEpochStartAnswersOffsetNotAvailableUntilTheIsrCatchesUp) {
  std::optional<std::pair<int32_t, int32_t>> controller;
  ASSERT_TRUE(wait_until([&] { return (controller = quorum_leader(0)).has_value(); }, 20s)) << logs();
  // Replicas in this order: the controller elects the first ISR member
  // after the old leader, `next`; `frozen` stays in the ISR, holding the
  // high watermark back.
  const int next = controller->first;
  const int old_leader = next % 3 + 1;
  const int frozen = 6 - next - old_leader;
  create_placed("lagging", {old_leader, next, frozen});
  auto v = view(0, "lagging");
  ASSERT_TRUE(v);
  for (const auto& r : produce_all(nodes[old_leader - 1]->port(), "lagging", messages("a", 10), "all"))
    ASSERT_GE(r.offset, 0) << logs();

  ::kill(nodes[frozen - 1]->pid(), SIGSTOP);
  for (const auto& r : produce_all(nodes[old_leader - 1]->port(), "lagging", messages("b", 5), "1"))
    ASSERT_GE(r.offset, 10) << logs();
  raw_client at_next(nodes[next - 1]->port());
  ASSERT_TRUE(wait_until(
      [&] {
        auto end = at_next.list_offset("lagging", 0, -1, -1, -2);
        return end && end->error_code == 0 && end->offset == 15;
      },
      20s))
      << "the next leader has every record\n" << logs();
  {
    raw_client at_old(nodes[old_leader - 1]->port());
    auto hw = at_old.list_offset("lagging", 0, -1);
    ASSERT_TRUE(hw);
    // Seen once at 15 under a loaded full run (2026-12-06): the logs say
    // whether the frozen follower left the ISR or had fetched past 10.
    EXPECT_EQ(hw->offset, 10) << "the frozen follower holds the high watermark\n" << logs();
  }

  ASSERT_EQ(nodes[old_leader - 1]->stop(SIGTERM), 0) << logs();
  auto after = new_leader_of(next - 1, "lagging", *v, 30s);
  ASSERT_TRUE(after) << logs();
  ASSERT_EQ(after->leader, next) << logs();
  std::optional<msg::list_offsets_response::list_offsets_partition_response> latest;
  ASSERT_TRUE(wait_until(
      [&] {
        latest = at_next.list_offset("lagging", 0, -1);
        return latest && latest->error_code != code(error_code::not_leader_or_follower);
      },
      20s))
      << logs();
  EXPECT_EQ(latest->error_code, code(error_code::offset_not_available)) << "answered offset " << latest->offset;
  auto earliest = at_next.list_offset("lagging", 0, -2);
  ASSERT_TRUE(earliest);
  EXPECT_EQ(earliest->error_code, 0);
  EXPECT_EQ(earliest->offset, 0);
  auto end = at_next.list_offset("lagging", 0, -1, -1, -2);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->error_code, 0);
  EXPECT_EQ(end->offset, 15);

  // The frozen follower back: it catches up, the high watermark reaches
  // the new epoch's start and the latest offset is answered.
  ::kill(nodes[frozen - 1]->pid(), SIGCONT);
  EXPECT_TRUE(wait_until(
      [&] {
        latest = at_next.list_offset("lagging", 0, -1);
        return latest && latest->error_code == 0 && latest->offset == 15;
      },
      30s))
      << (latest ? latest->error_code : -1) << "\n" << logs();
}

// Seed 000's divergence: the leader appends records no follower has
// (acks=1 while both followers are stopped), dies, and another replica
// leads at a new epoch and takes writes. Back, the old leader learns from
// a DivergingEpoch where its history parts, truncates its unreplicated
// tail (logged), and ends byte-identical with the others; its
// leader-epoch-checkpoint names both epochs.
TEST_F(ReplicationIT, AnOldLeaderTruncatesWhatOnlyItHadAndEndsIdentical) {
  create_replicated("diverge");
  auto v = view(0, "diverge");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int a = old_leader % 3 + 1;
  const int b = 6 - old_leader - a;
  auto first = produce_all(nodes[a - 1]->port(), "diverge", messages("e", 20), "all");
  for (const auto& r : first) ASSERT_GE(r.offset, 0) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("diverge"); }, 20s)) << logs();

  // Both followers frozen: the leader alone appends what acks=1 sends. A
  // fetch each follower had parked at the leader is answered by the first
  // append (into a socket the frozen follower reads later), so one record
  // goes first on its own; what follows it reaches no follower.
  ::kill(nodes[a - 1]->pid(), SIGSTOP);
  ::kill(nodes[b - 1]->pid(), SIGSTOP);
  auto parked = produce_all(nodes[old_leader - 1]->port(), "diverge", messages("s", 1), "1");
  ASSERT_EQ(parked[0].offset, 20) << logs();
  auto lonely = produce_all(nodes[old_leader - 1]->port(), "diverge", messages("x", 9), "1");
  for (const auto& r : lonely) ASSERT_GE(r.offset, 21) << logs();
  ASSERT_EQ(nodes[old_leader - 1]->stop(SIGKILL), -SIGKILL);
  ::kill(nodes[a - 1]->pid(), SIGCONT);
  ::kill(nodes[b - 1]->pid(), SIGCONT);

  auto after = new_leader_of(a - 1, "diverge", *v, 40s);
  ASSERT_TRUE(after) << logs();
  const int new_leader = after->leader;
  auto second = produce_all(nodes[a - 1]->port(), "diverge", messages("f", 15), "all");
  for (const auto& r : second) ASSERT_GE(r.offset, 20) << logs();
  // Where the new leader's epoch starts: 20, or 21 with the parked record.
  const std::string new_checkpoint =
      read_file(std::filesystem::path(nodes[new_leader - 1]->dir()) / "data" / "diverge-0" / "leader-epoch-checkpoint");
  const std::string epoch_line = std::to_string(after->leader_epoch) + " ";
  const auto at = new_checkpoint.find("\n" + epoch_line);
  ASSERT_NE(at, std::string::npos) << new_checkpoint;
  const int start = std::stoi(new_checkpoint.substr(at + 1 + epoch_line.size()));
  ASSERT_TRUE(start == 20 || start == 21) << new_checkpoint;

  ASSERT_TRUE(start_node(old_leader - 1)) << logs();
  ASSERT_TRUE(wait_until([&] { return isr_is(a - 1, "diverge", {1, 2, 3}); }, 40s)) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("diverge"); }, 20s)) << logs();
  EXPECT_NE(nodes[old_leader - 1]->log().find("Truncating partition diverge-0 to offset " + std::to_string(start)),
            std::string::npos)
      << logs();
  // The old leader's epoch cache: epoch 0 from offset 0, the new epoch from `start`.
  const auto checkpoint =
      read_file(std::filesystem::path(nodes[old_leader - 1]->dir()) / "data" / "diverge-0" / "leader-epoch-checkpoint");
  EXPECT_NE(checkpoint.find("\n0 0\n"), std::string::npos) << checkpoint;
  EXPECT_NE(checkpoint.find("\n" + epoch_line + std::to_string(start) + "\n"), std::string::npos) << checkpoint;
  // Acknowledged: every e and f record; the unreplicated x records are gone.
  const int total = start + 15;
  auto read = read_from_beginning(nodes[a - 1]->port(), "diverge", total);
  ASSERT_EQ(read.size(), static_cast<size_t>(total)) << logs();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(read[i].key, "e" + std::to_string(i));
  for (int i = 0; i < 15; ++i) EXPECT_EQ(read[start + i].key, "f" + std::to_string(i));
}

// A cluster-wide dynamic min.insync.replicas (kafka-configs --entity-type
// brokers --entity-default) reaches the partitions' leaders: with two
// replicas in the ISR, acks=all is accepted at 2 and refused at 3
// (NOT_ENOUGH_REPLICAS, before the append: the log does not grow).
TEST_F(ReplicationIT, AClusterWideMinIsrChangeReachesTheLeaders) {
  create_replicated("minisr");
  auto v = view(0, "minisr");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  const int other = 6 - leader - follower;
  ASSERT_EQ(nodes[follower - 1]->stop(SIGKILL), -SIGKILL);
  ASSERT_TRUE(wait_until([&] { return isr_is(leader - 1, "minisr", {leader, other}); }, 20s)) << logs();
  raw_client client(nodes[leader - 1]->port());
  auto produce = [&] {
    auto r = client.produce("minisr", 0, simple_batch(1), -1);
    return r ? static_cast<int>(r->error_code) : -1000;
  };
  EXPECT_EQ(produce(), 0);

  msg::incremental_alter_configs_request req;
  auto& resource = req.resources.emplace_back();
  resource.resource_type = 4;  // BROKER
  resource.resource_name = "";  // the cluster-wide default
  auto& c = resource.configs.emplace_back();
  c.name = "min.insync.replicas";
  c.config_operation = 0;  // SET
  c.value = "3";
  auto altered = client.call<msg::incremental_alter_configs_response>(44, 1, req);
  ASSERT_TRUE(altered && altered->responses.size() == 1);
  ASSERT_EQ(altered->responses[0].error_code, 0) << altered->responses[0].error_message.value_or("");
  // The change goes through the active controller (perhaps a new one, when
  // the stopped follower was it) and every broker's metadata log.
  ASSERT_TRUE(wait_until([&] { return produce() == 19; }, 30s)) << logs();  // NOT_ENOUGH_REPLICAS
  EXPECT_EQ(read_from_beginning(nodes[leader - 1]->port(), "minisr", 1).size(), 1u);

  c.value = "2";
  altered = client.call<msg::incremental_alter_configs_response>(44, 1, req);
  ASSERT_TRUE(altered && altered->responses.size() == 1 && altered->responses[0].error_code == 0);
  EXPECT_TRUE(wait_until([&] { return produce() == 0; }, 30s)) << logs();
}

// A replica's Fetch v16 (topics by id, ReplicaState) of partition 0.
msg::fetch_request replica_fetch(const protocol::uuid& topic_id, int32_t replica, int64_t broker_epoch, int64_t offset,
                                 int32_t current_leader_epoch) {
  msg::fetch_request req = fetch_request_of("", 0, offset, current_leader_epoch);
  req.topics[0].topic_id = topic_id;
  req.replica_state.replica_id = replica;
  req.replica_state.replica_epoch = broker_epoch;
  return req;
}

// Replica requests that do not fit get Kafka's errors, and change nothing:
// a Fetch from a broker that is not a replica, from an earlier incarnation
// (stale broker epoch), for an unknown topic id, beyond the log end; an
// AlterPartition with a stale partition epoch.
TEST_F(ReplicationIT, BadReplicaRequestsGetKafkasErrorsAndChangeNothing) {
  create_replicated("bad");
  auto produced = produce_all(nodes[0]->port(), "bad", messages("g", 5), "all");
  for (const auto& r : produced) ASSERT_GE(r.offset, 0) << logs();
  auto v = view(0, "bad");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  raw_client client(nodes[leader - 1]->port());
  auto md = client.metadata(std::vector<std::string>{"bad"});
  ASSERT_TRUE(md && md->topics.size() == 1);
  const protocol::uuid topic_id = md->topics[0].topic_id;

  auto fetch_error = [&](const msg::fetch_request& req) -> int {
    auto resp = client.call<msg::fetch_response>(1, 16, req);
    if (!resp || resp->responses.size() != 1 || resp->responses[0].partitions.size() != 1) return -1000;
    return resp->responses[0].partitions[0].error_code;
  };
  // Not a replica: unknown at this epoch, or (no epoch given) not a follower.
  EXPECT_EQ(fetch_error(replica_fetch(topic_id, 7, -1, 0, v->leader_epoch)), 75);  // UNKNOWN_LEADER_EPOCH
  EXPECT_EQ(fetch_error(replica_fetch(topic_id, 7, -1, 0, -1)), 6);                 // NOT_LEADER_OR_FOLLOWER
  // A broker epoch older than the follower's registration.
  EXPECT_EQ(fetch_error(replica_fetch(topic_id, follower, 0, 0, v->leader_epoch)), 6);
  // A topic id nobody knows.
  protocol::uuid unknown;
  unknown.bytes[0] = 0x5a;
  unknown.bytes[15] = 0xa5;
  EXPECT_EQ(fetch_error(replica_fetch(unknown, follower, -1, 0, v->leader_epoch)), 100);  // UNKNOWN_TOPIC_ID
  // Beyond the log end.
  EXPECT_EQ(fetch_error(replica_fetch(topic_id, follower, -1, 1000, v->leader_epoch)), 1);  // OFFSET_OUT_OF_RANGE

  // AlterPartition from the real leader with its real broker epoch, but a
  // partition epoch older than the controller's.
  const std::string log = nodes[leader - 1]->log();
  const std::string marker = "Registered broker " + std::to_string(leader) + " with broker epoch ";
  const auto at = log.rfind(marker);
  ASSERT_NE(at, std::string::npos) << log;
  const int64_t broker_epoch = std::stoll(log.substr(at + marker.size()));
  msg::alter_partition_request alter;
  alter.broker_id = leader;
  alter.broker_epoch = broker_epoch;
  auto& topic = alter.topics.emplace_back();
  topic.topic_id = topic_id;
  auto& pd = topic.partitions.emplace_back();
  pd.partition_index = 0;
  pd.leader_epoch = v->leader_epoch;
  pd.partition_epoch = -1;
  pd.new_isr_with_epochs.push_back({leader, broker_epoch, {}});
  std::optional<int> partition_error;
  ASSERT_TRUE(wait_until(
      [&] {
        for (int i = 0; i < 3 && !partition_error; ++i) {
          raw_client controller(controller_ports[i]);
          auto resp = controller.call<msg::alter_partition_response>(56, 3, alter);
          if (!resp || resp->error_code == 41) continue;  // NOT_CONTROLLER: ask the next
          if (resp->topics.size() == 1 && resp->topics[0].partitions.size() == 1)
            partition_error = resp->topics[0].partitions[0].error_code;
        }
        return partition_error.has_value();
      },
      10s))
      << logs();
  EXPECT_EQ(*partition_error, 95);  // INVALID_UPDATE_VERSION

  // Nothing moved: the ISR is whole and the log holds the five records.
  EXPECT_TRUE(isr_is(leader - 1, "bad", {1, 2, 3})) << logs();
  EXPECT_EQ(read_from_beginning(nodes[leader - 1]->port(), "bad", 5).size(), 5u);
}

}  // namespace
}  // namespace hw::testing
