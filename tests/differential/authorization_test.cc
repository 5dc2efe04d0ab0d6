// Authorization on every API: a matrix of ACL sets × requests, sent by
// bob (a PLAIN user who is not a super user) to Kafka 4.3.1 and Highwater,
// both running the StandardAuthorizer, answers compared field by field.
//
// Each scenario gives bob one set of ACLs (none; literal allows; prefixed
// ALL; wildcards; allows with DENY over them, one of them for his host
// only; the cluster's operations alone), waits until both brokers apply
// them, sends every probe (Metadata listing, naming, by id and
// auto-creating; Produce and Fetch by name and by id; the group,
// transaction, config, topic admin, client quota and cluster APIs), then
// removes them.
// Every probe names one resource, so Kafka's hash-ordered answers compare
// as they are; listings (Metadata of every topic, ListGroups,
// ListTransactions) compare as sets of what this test made. Error texts
// Kafka does not build from the request compare exactly; a refused cluster
// operation names the request as Kafka's network layer prints it, so only
// its end is compared.

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

#include "broker_process.h"
#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/unregister_broker.h"
#include "protocol/messages/update_features.h"
#include "protocol/messages/add_raft_voter.h"
#include "protocol/messages/remove_raft_voter.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/list_partition_reassignments.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/sync_group.h"
#include "protocol/messages/txn_offset_commit.h"
#include "protocol/messages/write_txn_markers.h"
#include "protocol/records/record_batch_builder.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using R = allowed::rule;

// Kafka's ids: resource types, pattern types, operations, permissions.
constexpr int8_t k_any = 1, k_topic = 2, k_group = 3, k_cluster = 4, k_txn = 5;
constexpr int8_t k_literal = 3, k_prefixed = 4;
constexpr int8_t k_all = 2, k_read = 3, k_write = 4, k_create = 5, k_delete = 6, k_alter = 7, k_describe = 8,
                 k_describe_configs = 10, k_idempotent_write = 12;
constexpr int8_t k_deny = 2, k_allow = 3;

struct acl {
  int8_t type;
  std::string name;
  int8_t pattern;
  int8_t operation;
  int8_t permission = k_allow;
  std::string host = "*";
};

// What one scenario names: bob's resources share the test's prefix.
struct resources {
  std::string prefix;
  std::string topic;      // exists, one partition, one record
  std::string absent;     // does not exist; auto-created when allowed
  std::string group;      // has committed offsets
  std::string doomed;     // an empty group with offsets; DeleteGroups deletes it when allowed
  std::string txn;        // a transactional id
  std::array<protocol::uuid, 2> topic_ids;
};

// One request of the matrix: built per broker (topic ids differ), with the
// differences it may show beyond the common ones.
struct probe {
  std::string what;
  int16_t key;
  int16_t version;
  std::function<std::vector<uint8_t>(side)> body;
  allowlist allow;
};

template <class Q>
std::vector<uint8_t> encoded(const Q& q, int16_t version) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  q.encode(w, version);
  return body;
}

template <class Q>
probe make_probe(std::string what, int16_t key, int16_t version, std::function<Q(side)> build, allowlist allow = {}) {
  return {std::move(what), key, version, [build, version](side s) { return encoded(build(s), version); },
          std::move(allow)};
}

template <class Q>
probe same_probe(std::string what, int16_t key, int16_t version, Q q, allowlist allow = {}) {
  return make_probe<Q>(std::move(what), key, version, [q](side) { return q; }, std::move(allow));
}

const allowlist& generated_ids() {
  static const allowlist k = {
      {"*member_id", R::same_emptiness, "member ids are generated by each broker"},
      {"leader", R::same_emptiness, "JoinGroup: the leader is a generated member id"},
      {"producer_id", R::any_value, "each broker allocates its own producer ids"},
      {"*log_dir", R::any_value, "each broker has its own directory"},
      {"*total_bytes", R::any_value, "each broker's disk"},
      {"*usable_bytes", R::any_value, "each broker's disk"},
  };
  return k;
}

allowlist with_generated(allowlist a) {
  a.insert(a.end(), generated_ids().begin(), generated_ids().end());
  return a;
}

// Error texts: equal, except a refused cluster operation's, which names
// the request as each broker's network layer prints it: only its end.
void expect_same_messages(const exchange& e) {
  auto messages = [](const answer& a) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& l : a.lines)
      if (l.path.ends_with("error_message")) out.emplace_back(l.path, l.value);
    return out;
  };
  const auto k = messages(e.of(side::kafka));
  const auto h = messages(e.of(side::highwater));
  if (k.size() != h.size()) return;  // expect_same reported the difference
  for (size_t i = 0; i < k.size(); ++i) {
    const std::string& kv = k[i].second;
    const std::string& hv = h[i].second;
    const auto request_named = kv.find("Request Request(");
    if (request_named != std::string::npos) {
      const auto tail = kv.substr(kv.rfind(") needs "));
      EXPECT_TRUE(hv.find("Request Request(") != std::string::npos && hv.ends_with(tail))
          << e.what << " " << k[i].first << ": kafka=" << kv << " highwater=" << hv;
      continue;
    }
    EXPECT_EQ(kv, hv) << e.what << " " << k[i].first;
  }
}

msg::metadata_request metadata_named(const std::string& name, bool auto_create) {
  msg::metadata_request r;
  msg::metadata_request::metadata_request_topic t;
  t.name = name;
  r.topics->push_back(t);
  r.allow_auto_topic_creation = auto_create;
  r.include_topic_authorized_operations = true;
  return r;
}

msg::produce_request produce_to(const resources& n, side s, const std::vector<uint8_t>& batch, bool by_id,
                                std::optional<std::string> txn = std::nullopt) {
  msg::produce_request r;
  r.transactional_id = std::move(txn);
  r.acks = -1;
  r.timeout_ms = 10000;
  msg::produce_request::topic_produce_data td;
  if (by_id) td.topic_id = n.topic_ids[static_cast<int>(s)];
  else td.name = n.topic;
  msg::produce_request::partition_produce_data pd;
  pd.index = 0;
  pd.records = protocol::records_view(protocol::bytes_view(batch));
  td.partition_data.push_back(pd);
  r.topic_data.push_back(td);
  return r;
}

msg::fetch_request fetch_from(const resources& n, side s, bool by_id) {
  msg::fetch_request r;
  r.max_wait_ms = 0;
  r.min_bytes = 1;
  r.max_bytes = 1 << 20;
  r.session_epoch = -1;
  msg::fetch_request::fetch_topic t;
  if (by_id) t.topic_id = n.topic_ids[static_cast<int>(s)];
  else t.topic = n.topic;
  msg::fetch_request::fetch_partition p;
  p.partition = 0;
  p.fetch_offset = 0;
  p.partition_max_bytes = 1 << 20;
  t.partitions.push_back(p);
  r.topics.push_back(t);
  return r;
}

std::vector<probe> topic_probes(const resources& n, const std::vector<uint8_t>* batch,
                                const std::vector<uint8_t>* txn_batch) {
  std::vector<probe> out;
  out.push_back(same_probe("Metadata of the topic", 3, 12, metadata_named(n.topic, false)));
  out.push_back(make_probe<msg::metadata_request>("Metadata of the topic by id", 3, 12, [n](side s) {
    msg::metadata_request r;
    msg::metadata_request::metadata_request_topic t;
    t.name.reset();
    t.topic_id = n.topic_ids[static_cast<int>(s)];
    r.topics->push_back(t);
    r.include_topic_authorized_operations = true;
    return r;
  }));
  {
    msg::metadata_request r = metadata_named(n.topic, false);
    r.include_cluster_authorized_operations = true;
    out.push_back(same_probe("Metadata with the cluster's operations", 3, 10, r));
  }
  out.push_back(same_probe("Metadata of a topic that does not exist", 3, 12, metadata_named(n.absent + "-x", false)));
  out.push_back(same_probe("Produce", 0, 9, produce_to(n, side::kafka, *batch, false)));
  out.push_back(make_probe<msg::produce_request>(
      "Produce by id", 0, 13, [n, batch](side s) { return produce_to(n, s, *batch, true); }));
  out.push_back(same_probe("Produce a transactional batch", 0, 9, produce_to(n, side::kafka, *txn_batch, false, n.txn)));
  out.push_back(same_probe("Fetch", 1, 12, fetch_from(n, side::kafka, false),
                           {{"responses[*].partitions[*].records", R::any_value, "compared by the fetch tests"}}));
  out.push_back(make_probe<msg::fetch_request>(
      "Fetch by id", 1, 13, [n](side s) { return fetch_from(n, s, true); },
      {{"responses[*].partitions[*].records", R::any_value, "compared by the fetch tests"}}));
  {
    msg::list_offsets_request r;
    r.replica_id = -1;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    auto& p = t.partitions.emplace_back();
    p.timestamp = -1;
    out.push_back(same_probe("ListOffsets", 2, 7, r));
  }
  {
    msg::offset_for_leader_epoch_request r;
    auto& t = r.topics.emplace_back();
    t.topic = n.topic;
    auto& p = t.partitions.emplace_back();
    p.leader_epoch = 0;
    out.push_back(same_probe("OffsetForLeaderEpoch", 23, 4, r));
  }
  {
    msg::delete_records_request r;
    r.timeout_ms = 10000;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    auto& p = t.partitions.emplace_back();
    p.offset = 0;
    out.push_back(same_probe("DeleteRecords", 21, 2, r));
  }
  {
    msg::describe_producers_request r;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    t.partition_indexes = {0};
    out.push_back(same_probe("DescribeProducers", 61, 0, r, {{"*active_producers*", R::any_value, "each run's"}}));
  }
  for (auto [type, name] : {std::pair<int8_t, std::string>{2, n.topic}, {32, n.group}}) {
    msg::describe_configs_request r;
    auto& res = r.resources.emplace_back();
    res.resource_type = type;
    res.resource_name = name;
    res.configuration_keys = std::vector<std::string>{"cleanup.policy", "consumer.session.timeout.ms"};
    out.push_back(same_probe("DescribeConfigs of " + name, 32, 4, r));
  }
  {
    msg::incremental_alter_configs_request r;
    r.validate_only = true;
    auto& res = r.resources.emplace_back();
    res.resource_type = 2;
    res.resource_name = n.topic;
    auto& c = res.configs.emplace_back();
    c.name = "retention.ms";
    c.config_operation = 0;
    c.value = "604800000";
    out.push_back(same_probe("IncrementalAlterConfigs of the topic", 44, 1, r));
  }
  {
    msg::create_topics_request r;
    r.validate_only = true;
    r.timeout_ms = 10000;
    auto& t = r.topics.emplace_back();
    t.name = n.prefix + "-created";
    t.num_partitions = 1;
    t.replication_factor = 1;
    out.push_back(same_probe("CreateTopics", 19, 7, r));
  }
  {
    msg::create_partitions_request r;
    r.validate_only = true;
    r.timeout_ms = 10000;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    t.count = 1;
    t.assignments.reset();
    out.push_back(same_probe("CreatePartitions", 37, 3, r));
  }
  {
    msg::describe_topic_partitions_request r;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    r.response_partition_limit = 100;
    out.push_back(same_probe("DescribeTopicPartitions of the topic", 75, 0, r));
  }
  return out;
}

std::vector<probe> group_probes(const resources& n) {
  std::vector<probe> out;
  for (int8_t key_type : {0, 1}) {
    msg::find_coordinator_request r;
    r.key_type = key_type;
    r.coordinator_keys = {key_type == 0 ? n.group : n.txn};
    out.push_back(same_probe(key_type == 0 ? "FindCoordinator of the group" : "FindCoordinator of the id", 10, 4, r));
    msg::find_coordinator_request old;
    old.key_type = key_type;
    old.key = key_type == 0 ? n.group : n.txn;
    out.push_back(same_probe(key_type == 0 ? "FindCoordinator v3 of the group" : "FindCoordinator v3 of the id", 10, 3,
                             old));
  }
  {
    msg::join_group_request r;
    r.group_id = n.group;
    r.session_timeout_ms = 10000;
    r.rebalance_timeout_ms = 10000;
    r.protocol_type = "consumer";
    auto& p = r.protocols.emplace_back();
    p.name = "range";
    out.push_back(same_probe("JoinGroup", 11, 9, r, generated_ids()));
  }
  {
    msg::heartbeat_request r;
    r.group_id = n.group;
    r.generation_id = 1;
    r.member_id = "someone";
    out.push_back(same_probe("Heartbeat", 12, 4, r));
  }
  {
    msg::sync_group_request r;
    r.group_id = n.group;
    r.generation_id = 1;
    r.member_id = "someone";
    r.protocol_type = "consumer";
    r.protocol_name = "range";
    out.push_back(same_probe("SyncGroup", 14, 5, r));
  }
  {
    msg::leave_group_request r;
    r.group_id = n.group;
    auto& m = r.members.emplace_back();
    m.member_id = "someone";
    out.push_back(same_probe("LeaveGroup", 13, 5, r));
  }
  {
    msg::offset_commit_request r;
    r.group_id = n.group;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    auto& p = t.partitions.emplace_back();
    p.committed_offset = 1;
    out.push_back(same_probe("OffsetCommit", 8, 9, r));
  }
  {
    msg::offset_fetch_request named;
    auto& g = named.groups.emplace_back();
    g.group_id = n.group;
    auto& t = g.topics->emplace_back();
    t.name = n.topic;
    t.partition_indexes = {0};
    out.push_back(same_probe("OffsetFetch of the topic", 9, 9, named));
    msg::offset_fetch_request all;
    all.groups.emplace_back().group_id = n.group;
    all.groups.back().topics.reset();
    out.push_back(same_probe("OffsetFetch of every topic", 9, 9, all));
    msg::offset_fetch_request old;
    old.group_id = n.group;
    auto& ot = old.topics->emplace_back();
    ot.name = n.topic;
    ot.partition_indexes = {0};
    out.push_back(same_probe("OffsetFetch v7", 9, 7, old));
  }
  {
    msg::describe_groups_request r;
    r.groups = {n.group};
    r.include_authorized_operations = true;
    out.push_back(same_probe("DescribeGroups", 15, 5, r, generated_ids()));
  }
  {
    msg::offset_delete_request r;
    r.group_id = n.group;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    t.partitions.emplace_back().partition_index = 0;
    out.push_back(same_probe("OffsetDelete", 47, 0, r));
  }
  return out;
}

constexpr int64_t k_no_such_producer = 4242;

std::vector<probe> txn_probes(const resources& n) {
  std::vector<probe> out;
  {
    msg::init_producer_id_request r;
    r.transactional_id.reset();
    r.transaction_timeout_ms = 60000;
    out.push_back(same_probe("InitProducerId, idempotent", 22, 5, r, generated_ids()));
  }
  {
    msg::add_partitions_to_txn_request r;
    r.v3_and_below_transactional_id = n.txn;
    r.v3_and_below_producer_id = k_no_such_producer;
    auto& t = r.v3_and_below_topics.emplace_back();
    t.name = n.topic;
    t.partitions = {0};
    out.push_back(same_probe("AddPartitionsToTxn v3", 24, 3, r));
    msg::add_partitions_to_txn_request internal = r;
    internal.v3_and_below_topics.back().name = "__consumer_offsets";
    out.push_back(same_probe("AddPartitionsToTxn v3 of an internal topic", 24, 3, internal));
    msg::add_partitions_to_txn_request batched;
    auto& tx = batched.transactions.emplace_back();
    tx.transactional_id = n.txn;
    tx.producer_id = k_no_such_producer;
    tx.verify_only = true;
    tx.topics = r.v3_and_below_topics;
    out.push_back(same_probe("AddPartitionsToTxn v4", 24, 4, batched));
  }
  {
    msg::add_offsets_to_txn_request r;
    r.transactional_id = n.txn;
    r.producer_id = k_no_such_producer;
    r.group_id = n.group;
    out.push_back(same_probe("AddOffsetsToTxn", 25, 3, r));
  }
  {
    msg::end_txn_request r;
    r.transactional_id = n.txn;
    r.producer_id = k_no_such_producer;
    out.push_back(same_probe("EndTxn", 26, 3, r));
  }
  {
    msg::txn_offset_commit_request r;
    r.transactional_id = n.txn;
    r.group_id = n.group;
    r.producer_id = k_no_such_producer;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    t.partitions.emplace_back().committed_offset = 1;
    out.push_back(same_probe("TxnOffsetCommit", 28, 3, r));
  }
  {
    msg::describe_transactions_request r;
    r.transactional_ids = {n.txn};
    out.push_back(same_probe("DescribeTransactions", 65, 0, r));
  }
  return out;
}

std::vector<probe> cluster_probes(const resources& n) {
  std::vector<probe> out;
  {
    // Refused: every partition answers CLUSTER_AUTHORIZATION_FAILED.
    msg::alter_replica_log_dirs_request r;
    auto& d = r.dirs.emplace_back();
    d.path = "/nonexistent-log-dir";
    auto& t = d.topics.emplace_back();
    t.name = n.topic;
    t.partitions = {0};
    out.push_back(same_probe("AlterReplicaLogDirs", 34, 2, r));
  }
  {
    msg::describe_log_dirs_request r;
    r.topics->clear();
    out.push_back(same_probe("DescribeLogDirs", 35, 4, r, generated_ids()));
  }
  {
    msg::elect_leaders_request r;
    r.election_type = 0;
    r.timeout_ms = 10000;
    auto& t = r.topic_partitions->emplace_back();
    t.topic = n.topic;
    t.partitions = {0};
    out.push_back(same_probe("ElectLeaders", 43, 2, r));
  }
  {
    msg::alter_partition_reassignments_request r;
    r.timeout_ms = 10000;
    auto& t = r.topics.emplace_back();
    t.name = n.topic;
    auto& p = t.partitions.emplace_back();
    p.partition_index = 0;
    p.replicas.reset();
    out.push_back(same_probe("AlterPartitionReassignments", 45, 0, r));
  }
  {
    msg::list_partition_reassignments_request r;
    r.timeout_ms = 10000;
    r.topics.emplace();
    auto& t = r.topics->emplace_back();
    t.name = n.topic;
    t.partition_indexes = {0};
    out.push_back(same_probe("ListPartitionReassignments", 46, 0, r));
  }
  {
    msg::describe_user_scram_credentials_request r;
    r.users.emplace();
    r.users->emplace_back().name = "nobody";
    out.push_back(same_probe("DescribeUserScramCredentials", 50, 0, r));
  }
  {
    msg::alter_user_scram_credentials_request r;
    auto& d = r.deletions.emplace_back();
    d.name = "nobody";
    d.mechanism = 1;
    out.push_back(same_probe("AlterUserScramCredentials", 51, 0, r));
  }
  {
    msg::describe_cluster_request r;
    r.include_cluster_authorized_operations = true;
    out.push_back(same_probe("DescribeCluster", 60, 1, r));
  }
  {
    // An id nobody registered: refused before or after the cluster's ALTER.
    msg::unregister_broker_request r;
    r.broker_id = 99;
    out.push_back(same_probe("UnregisterBroker", 64, 0, r));
  }
  {
    // A validate-only update to the levels in force: nothing moves when allowed.
    msg::update_features_request r;
    r.validate_only = true;
    auto& u = r.feature_updates.emplace_back();
    u.feature = "group.version";
    u.max_version_level = 1;
    out.push_back(same_probe("UpdateFeatures", 57, 1, r));
  }
  {
    // Voter changes on a static quorum: refused before or after the
    // cluster's ALTER (kraft.version 0 when allowed).
    msg::add_raft_voter_request r;
    r.cluster_id.reset();
    r.timeout_ms = 5000;
    r.voter_id = 7;
    r.voter_directory_id.bytes[15] = 7;
    r.listeners.push_back({"CONTROLLER", "127.0.0.1", 9999, {}});
    out.push_back(same_probe("AddRaftVoter", 80, 1, r));
    msg::remove_raft_voter_request rm;
    rm.cluster_id.reset();
    rm.voter_id = 1;
    rm.voter_directory_id.bytes[15] = 1;
    out.push_back(same_probe("RemoveRaftVoter", 81, 0, rm));
  }
  {
    msg::describe_configs_request r;
    auto& res = r.resources.emplace_back();
    res.resource_type = 4;
    res.resource_name = "";
    res.configuration_keys = std::vector<std::string>{"log.retention.ms"};
    out.push_back(same_probe("DescribeConfigs of the cluster's defaults", 32, 4, r));
  }
  {
    msg::describe_client_quotas_request r;
    auto& c = r.components.emplace_back();
    c.entity_type = "user";
    c.match_type = 0;
    c.match = "bob";
    out.push_back(same_probe("DescribeClientQuotas", 48, 1, r));
  }
  {
    msg::alter_client_quotas_request r;
    r.validate_only = true;
    auto& e = r.entries.emplace_back();
    auto& who = e.entity.emplace_back();
    who.entity_type = "user";
    who.entity_name = "bob";
    auto& op = e.ops.emplace_back();
    op.key = "producer_byte_rate";
    op.value = 1048576;
    out.push_back(same_probe("AlterClientQuotas, validate only", 49, 1, r));
  }
  {
    msg::write_txn_markers_request r;
    auto& m = r.markers.emplace_back();
    m.producer_id = k_no_such_producer;
    m.transaction_result = false;
    auto& t = m.topics.emplace_back();
    t.name = n.absent + "-markers";
    t.partition_indexes = {0};
    out.push_back(same_probe("WriteTxnMarkers", 27, 1, r));
  }
  return out;
}

// A scenario: bob's ACLs under it.
struct scenario {
  std::string name;
  std::vector<acl> acls;
};

class AuthorizationDifferential : public DifferentialTest {
 protected:
  void SetUp() override {
    DifferentialTest::SetUp();
    admin_ = std::make_unique<twin>("SASL_PLAINTEXT", "admin", "admin-secret");
    bob_ = std::make_unique<twin>("SASL_PLAINTEXT", "bob", "bob-secret");
    ASSERT_TRUE(admin_->connected());
    ASSERT_TRUE(bob_->connected());
  }
  twin& admin() { return *admin_; }
  twin& bob() { return *bob_; }

  msg::describe_acls_request bobs_acls() {
    msg::describe_acls_request r;
    r.resource_type_filter = k_any;
    r.resource_name_filter.reset();
    r.pattern_type_filter = k_any;
    r.principal_filter = "User:bob";
    r.host_filter.reset();
    r.operation = k_any;
    r.permission_type = k_any;
    return r;
  }
  size_t count(const exchange& e, side s) {
    size_t n = 0;
    for (const auto& res : e.as<msg::describe_acls_response>(s).resources) n += res.acls.size();
    return n;
  }
  // Both brokers apply an ACL change on their own time (Kafka's from its
  // metadata log): wait until both describe count of bob's.
  void wait_for_bobs(size_t expected) {
    const bool settled = wait_until(
        [&] {
          auto e = admin().call("bob's ACLs", 29, 3, bobs_acls());
          return e.of(side::kafka).error.empty() && e.of(side::highwater).error.empty() &&
                 count(e, side::kafka) == expected && count(e, side::highwater) == expected;
        },
        15s);
    ASSERT_TRUE(settled) << "bob's ACLs did not settle at " << expected;
  }
  void grant(const std::vector<acl>& acls) {
    if (acls.empty()) return;
    msg::create_acls_request r;
    for (const auto& a : acls) {
      auto& c = r.creations.emplace_back();
      c.resource_type = a.type;
      c.resource_name = a.name;
      c.resource_pattern_type = a.pattern;
      c.principal = "User:bob";
      c.host = a.host;
      c.operation = a.operation;
      c.permission_type = a.permission;
    }
    auto e = admin().call("grant", 30, 3, r);
    for (side s : k_sides)
      for (const auto& res : e.as<msg::create_acls_response>(s).results)
        ASSERT_EQ(res.error_code, 0) << side_name(s) << ": " << res.error_message.value_or("");
    wait_for_bobs(acls.size());
  }
  void revoke_all() {
    msg::delete_acls_request r;
    auto& f = r.filters.emplace_back();
    f.resource_type_filter = k_any;
    f.resource_name_filter.reset();
    f.pattern_type_filter = k_any;
    f.principal_filter = "User:bob";
    f.host_filter.reset();
    f.operation = k_any;
    f.permission_type = k_any;
    admin().call("revoke", 31, 3, r);
    wait_for_bobs(0);
  }

  // Setup as the super user: the topic with a record, the group with an
  // offset, the doomed group, both coordinators ready.
  resources make_resources() {
    resources n;
    n.prefix = fresh_name("az");
    n.topic = n.prefix + "-topic";
    n.absent = n.prefix + "-absent";
    n.group = n.prefix + "-group";
    n.doomed = n.prefix + "-doomed";
    n.txn = n.prefix + "-txn";
    n.topic_ids = create_topic(admin(), n.topic);
    produce(admin(), n.topic, batch_of("az", 2));
    wait_for_coordinator(admin(), n.group);
    for (const auto& g : {n.group, n.doomed}) {
      msg::offset_commit_request r;
      r.group_id = g;
      auto& t = r.topics.emplace_back();
      t.name = n.topic;
      t.partitions.emplace_back().committed_offset = 1;
      auto e = admin().call("commit as the super user", 8, 9, r);
      for (side s : k_sides)
        EXPECT_EQ(e.as<msg::offset_commit_response>(s).topics.at(0).partitions.at(0).error_code, 0) << side_name(s);
    }
    // The transaction coordinator: __transaction_state made and loaded.
    const bool ready = wait_until(
        [&] {
          msg::find_coordinator_request r;
          r.key_type = 1;
          r.coordinator_keys = {n.txn};
          auto e = admin().call("transaction coordinator", 10, 4, r);
          for (side s : k_sides)
            if (!e.of(s).error.empty() || e.as<msg::find_coordinator_response>(s).coordinators.at(0).error_code != 0)
              return false;
          return true;
        },
        30s);
    EXPECT_TRUE(ready) << "no transaction coordinator";
    // A broker's first producer id waits for a block from its controller
    // (Kafka answers COORDINATOR_LOAD_IN_PROGRESS meanwhile): have both.
    const bool ids = wait_until(
        [&] {
          msg::init_producer_id_request r;
          r.transactional_id.reset();
          r.transaction_timeout_ms = 60000;
          auto e = admin().call("a producer id", 22, 5, r);
          for (side s : k_sides)
            if (!e.of(s).error.empty() || e.as<msg::init_producer_id_response>(s).error_code != 0) return false;
          return true;
        },
        30s);
    EXPECT_TRUE(ids) << "no producer ids";
    return n;
  }

  void run(const std::vector<probe>& probes, const std::string& scenario_name) {
    for (const auto& p : probes) {
      exchange e;
      e.key = p.key;
      e.version = p.version;
      e.what = scenario_name + ": " + p.what;
      for (side s : k_sides) e.answers[static_cast<int>(s)] = bob().send(s, p.key, p.version, p.body(s));
      expect_same(e, p.allow);
      expect_same_messages(e);
      ++compared_;
    }
  }

  // Metadata of every topic, ListGroups, ListTransactions and
  // DescribeTopicPartitions of every topic: what each lists of this test's
  // resources, as sets (Kafka lists in hash order).
  void compare_listings(const resources& n, const std::string& scenario_name) {
    auto mine = [&](const std::string& name) { return name.starts_with(n.prefix); };
    {
      msg::metadata_request r;
      r.topics.reset();
      r.include_topic_authorized_operations = true;
      auto e = bob().call(scenario_name + ": Metadata of every topic", 3, 12, r);
      std::array<std::set<std::tuple<std::string, int, int>>, 2> listed;
      for (side s : k_sides)
        for (const auto& t : e.as<msg::metadata_response>(s).topics)
          if (t.name && mine(*t.name)) listed[static_cast<int>(s)].insert({*t.name, t.error_code, t.topic_authorized_operations});
      EXPECT_EQ(listed[0], listed[1]) << e.what;
      ++compared_;
    }
    {
      msg::list_groups_request r;
      auto e = bob().call(scenario_name + ": ListGroups", 16, 5, r);
      std::array<std::set<std::string>, 2> listed;
      for (side s : k_sides) {
        const auto g = e.as<msg::list_groups_response>(s);
        EXPECT_EQ(g.error_code, 0) << e.what << " " << side_name(s);
        for (const auto& x : g.groups)
          if (mine(x.group_id)) listed[static_cast<int>(s)].insert(x.group_id);
      }
      EXPECT_EQ(listed[0], listed[1]) << e.what;
      ++compared_;
    }
    {
      msg::list_transactions_request r;
      auto e = bob().call(scenario_name + ": ListTransactions", 66, 1, r);
      std::array<std::set<std::string>, 2> listed;
      for (side s : k_sides)
        for (const auto& x : e.as<msg::list_transactions_response>(s).transaction_states)
          if (mine(x.transactional_id)) listed[static_cast<int>(s)].insert(x.transactional_id);
      EXPECT_EQ(listed[0], listed[1]) << e.what;
      ++compared_;
    }
    {
      msg::describe_topic_partitions_request r;
      r.response_partition_limit = 2000;
      auto e = bob().call(scenario_name + ": DescribeTopicPartitions of every topic", 75, 0, r);
      std::array<std::set<std::tuple<std::string, int, int>>, 2> listed;
      for (side s : k_sides)
        for (const auto& t : e.as<msg::describe_topic_partitions_response>(s).topics)
          if (t.name && mine(*t.name)) listed[static_cast<int>(s)].insert({*t.name, t.error_code, t.topic_authorized_operations});
      EXPECT_EQ(listed[0], listed[1]) << e.what;
      ++compared_;
    }
  }

  // The probes that change what they touch when allowed, each on its own
  // resource of the scenario, waited for afterwards: auto-creation,
  // deletion of a topic, of a group.
  void changing_probes(const resources& n, const std::string& scenario_name, int index) {
    const std::string absent = n.absent + "-" + std::to_string(index);
    auto created = bob().call(scenario_name + ": Metadata auto-creating", 3, 12, metadata_named(absent, true));
    // A refusal compares field by field; a creation only loosely, as Kafka
    // creates asynchronously and first answers with an error.
    const auto kafka_topics = created.as<msg::metadata_response>(side::kafka).topics;
    if (!kafka_topics.empty() && kafka_topics[0].error_code == 29)  // TOPIC_AUTHORIZATION_FAILED
      expect_same(created);
    else
      expect_same(created, {{"topics[0].*", R::may_be_absent,
                             "Kafka creates the topic asynchronously and answers the first request with an error"}});
    ++compared_;
    const std::string victim = n.prefix + "-victim-" + std::to_string(index);
    msg::delete_topics_request del;
    del.timeout_ms = 10000;
    auto& t = del.topics.emplace_back();
    t.name = victim;
    auto deleted = bob().call(scenario_name + ": DeleteTopics", 20, 6, del);
    expect_same(deleted);
    expect_same_messages(deleted);
    ++compared_;
    msg::delete_groups_request dg;
    dg.groups_names = {n.doomed};
    auto gone = bob().call(scenario_name + ": DeleteGroups", 42, 2, dg);
    expect_same(gone);
    ++compared_;
    // Wait until both brokers show the same outcome before the next scenario.
    for (const std::string& name : {absent, victim}) {
      const bool agreed = wait_until(
          [&] {
            auto e = admin().call("settle " + name, 3, 12, metadata_named(name, false));
            const auto k = e.as<msg::metadata_response>(side::kafka);
            const auto h = e.as<msg::metadata_response>(side::highwater);
            return k.topics.size() == 1 && h.topics.size() == 1 && k.topics[0].error_code == h.topics[0].error_code &&
                   (k.topics[0].error_code != 0 ||
                    (!k.topics[0].partitions.empty() && k.topics[0].partitions[0].leader_id >= 0 &&
                     !h.topics[0].partitions.empty()));
          },
          30s);
      EXPECT_TRUE(agreed) << name << " did not settle";
    }
  }

  size_t compared_ = 0;

 private:
  std::unique_ptr<twin> admin_;
  std::unique_ptr<twin> bob_;
};

TEST_F(AuthorizationDifferential, EveryApiUnderEachAclSet) {
  const resources n = make_resources();
  const auto batch = batch_of("bob", 1);
  // A transactional batch: producer 4242 at epoch 0, never initialised.
  const auto txn_batch = [] {
    protocol::record_batch_options o;
    o.transactional = true;
    o.producer_id = k_no_such_producer;
    o.producer_epoch = 0;
    o.base_sequence = 0;
    protocol::record_batch_builder b(o);
    const std::string v = "bob-txn";
    b.append(1700000000000, std::nullopt, protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
    return b.finish();
  }();
  std::vector<probe> probes = topic_probes(n, &batch, &txn_batch);
  for (auto& p : group_probes(n)) probes.push_back(std::move(p));
  for (auto& p : txn_probes(n)) probes.push_back(std::move(p));
  for (auto& p : cluster_probes(n)) probes.push_back(std::move(p));

  const std::string host = "127.0.0.1";
  const std::vector<scenario> scenarios = {
      {"no ACLs", {}},
      {"literal allows",
       {{k_topic, n.topic, k_literal, k_read},
        {k_topic, n.topic, k_literal, k_write},
        {k_group, n.group, k_literal, k_read},
        {k_group, n.doomed, k_literal, k_delete},
        {k_txn, n.txn, k_literal, k_write},
        {k_topic, n.prefix + "-victim-1", k_literal, k_delete},
        {k_topic, n.absent + "-1", k_literal, k_create}}},
      {"prefixed ALL",
       {{k_topic, n.prefix, k_prefixed, k_all},
        {k_group, n.prefix, k_prefixed, k_all},
        {k_txn, n.prefix, k_prefixed, k_all}}},
      {"wildcards",
       {{k_topic, "*", k_literal, k_describe},
        {k_group, "*", k_literal, k_describe},
        {k_txn, "*", k_literal, k_describe},
        {k_cluster, "kafka-cluster", k_literal, k_describe},
        {k_cluster, "kafka-cluster", k_literal, k_idempotent_write}}},
      {"DENY over ALLOW",
       {{k_topic, n.prefix, k_prefixed, k_all},
        {k_topic, n.topic, k_literal, k_write, k_deny},
        {k_topic, n.topic, k_literal, k_describe_configs, k_deny},
        {k_group, n.prefix, k_prefixed, k_all},
        {k_group, n.group, k_literal, k_read, k_deny},
        {k_txn, n.txn, k_literal, k_all},
        {k_txn, n.txn, k_literal, k_write, k_deny, host},
        {k_topic, n.prefix + "-victim", k_prefixed, k_delete, k_deny},
        {k_cluster, "kafka-cluster", k_literal, k_create}}},
      {"the cluster's operations", {{k_cluster, "kafka-cluster", k_literal, k_all}}},
  };
  // Every scenario's victim exists before any runs.
  for (size_t i = 0; i < scenarios.size(); ++i) create_topic(admin(), n.prefix + "-victim-" + std::to_string(i));

  for (size_t i = 0; i < scenarios.size(); ++i) {
    SCOPED_TRACE(scenarios[i].name);
    grant(scenarios[i].acls);
    if (HasFatalFailure()) return;
    run(probes, scenarios[i].name);
    compare_listings(n, scenarios[i].name);
    changing_probes(n, scenarios[i].name, static_cast<int>(i));
    revoke_all();
    if (HasFatalFailure()) return;
  }
  RecordProperty("comparisons", static_cast<int>(compared_));
  std::printf("authorization matrix: %zu scenarios x %zu probes, %zu comparisons\n", scenarios.size(),
              probes.size() + 7, compared_);
}

}  // namespace
}  // namespace hw::testing::differential
