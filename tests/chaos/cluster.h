#pragma once
// The chaos run's cluster: three combined broker+controller nodes started
// as tests/integration/replication_cluster.h starts them (RF 3 topics,
// min.insync.replicas=2, short lag and session timeouts), each on its own
// network_lab host when the machine can make one (so links can be cut),
// else on 127.0.0.1 with process faults only. Unlike that fixture it is a
// plain object, one per seed, and it applies and undoes faults: kill,
// pause, clean stop, restart, isolate, cut, heal. Its own queries
// (active controller, partition states) never fail the test: a node that
// is down or stopped simply does not answer.
//
// Its listeners are PLAINTEXT (the client and inter-broker listener) and
// CONTROLLER as that fixture's, or, in the sasl_ssl mode, all SASL_SSL:
// CLIENT (SCRAM-SHA-256/512 users), INTERNAL (the brokers' own listener,
// SCRAM-SHA-512) and CONTROLLER (PLAIN: a quorum cannot check logins
// against credentials kept in its own log), with certificates made for
// the nodes' addresses and the SCRAM users written at format time
// (`highwater-tools kafka-storage.sh format --add-scram`).

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quiet_request.h"
#include "tests/integration/broker_process.h"
#include "tests/integration/kafka_socket.h"
#include "tests/integration/network_lab.h"
#include "tests/support/test_certificates.h"

namespace hw::chaos {

using testing::broker_process;
using testing::endpoint;
using testing::network_lab;

// How every listener of the cluster is secured (HW_CHAOS_SECURITY).
enum class security { plaintext, sasl_ssl };
std::optional<security> parse_security(std::string_view name);
const char* to_string(security mode);

struct partition_state {
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  std::vector<int32_t> isr;
};

class chaos_cluster {
 public:
  static constexpr int k_nodes = 3;

  // networked: on a network_lab (throws if one cannot be made, or the
  // certificates of the sasl_ssl mode).
  chaos_cluster(bool networked, security mode);
  ~chaos_cluster();
  chaos_cluster(const chaos_cluster&) = delete;
  chaos_cluster& operator=(const chaos_cluster&) = delete;

  // Starts every node; false when one did not come up (see logs()).
  bool start();
  bool networked() const { return lab_ != nullptr; }
  security mode() const { return mode_; }

  // Node i's client listener.
  endpoint at(int i) const;
  // Every node's client endpoint, comma-separated (bootstrap.servers).
  std::string bootstrap() const;
  // How the harness's own requests reach node i's client listener.
  route reach(int i) const;
  // The librdkafka settings that reach the client listeners (none in the
  // plaintext mode): the workload's.
  std::map<std::string, std::string> client_settings() const;
  // The harness's connections that a node refused, by reason; none expected.
  std::map<std::string, int64_t> refused() const { return refused_.counts(); }
  // The listeners ("n1 CLIENT") that answer an ApiVersions sent in plain
  // TCP: in the sasl_ssl mode, none may.
  std::vector<std::string> plaintext_answered();
  // The nodes' own connections to each other that were refused, from their
  // logs, by what the log says: a login the other node turned down, or its
  // certificate that did not verify. Not a peer that stopped answering,
  // which faults cause.
  std::map<std::string, int64_t> own_connections_refused() const;

  // Process faults. start_node starts a node that is down (retrying a
  // lost port race on 127.0.0.1); clean_stop sends SIGTERM and waits for
  // the controlled shutdown, SIGKILLing after the timeout (and saying so).
  void kill(int i);
  bool start_node(int i);
  // Starts these nodes side by side: when a majority is down, none of them
  // finishes starting until enough others are up to form a quorum.
  bool start_nodes(const std::vector<int>& which);
  void pause(int i);
  void resume(int i);
  bool clean_stop(int i, std::chrono::milliseconds timeout);
  bool running(int i);
  // How node i's last run ended (exit code, or -signal); nothing while it
  // runs or before it first started.
  std::optional<int> exit_code(int i);
  bool paused(int i) const { return paused_[i]; }

  // Network faults (networked only).
  void isolate(int i);
  void cut(int a, int b);
  void heal_network();

  // Every fault undone: links healed, paused nodes resumed, nodes that are
  // down started. False when a node would not start.
  bool restore_all();

  // The active controller (node index) as the running nodes' quorum state
  // has it (the highest epoch any of them reports); nothing when none knows.
  std::optional<int> active_controller();
  // The topic's partitions as node i's metadata has them; nothing when it
  // does not answer or does not know the topic.
  std::optional<std::vector<partition_state>> partitions(int i, const std::string& topic);
  // True when every node sees each of the topic's `count` partitions with
  // the same leader and epoch and every replica in the ISR.
  bool whole(const std::string& topic, int count);
  // CreateTopics through node 0; "" or the error.
  std::string create_topic(const std::string& topic, int partitions, int replication_factor,
                           const std::vector<std::pair<std::string, std::string>>& configs);

  // Each node's log from the start, or its last `lines` lines.
  std::string logs() const;
  std::string log_tails(size_t lines) const;
  std::string log_tail(int i, size_t lines) const;
  // Copies every node's whole log to dir/node<id>.log (the nodes'
  // directories go with the cluster).
  bool save_logs(const std::string& dir) const;

 private:
  std::vector<std::string> args_of(int i) const;
  // Starts node i; the first time, in the sasl_ssl mode, formats its
  // storage with the SCRAM users first.
  bool launch(int i);
  bool format(int i);
  std::string client_listener() const { return mode_ == security::plaintext ? "PLAINTEXT" : "CLIENT"; }

  const security mode_;
  // Declared before the nodes, so the nodes stop before their hosts go.
  std::unique_ptr<network_lab> lab_;
  std::unique_ptr<testing::test_certificates> certs_;  // sasl_ssl only
  std::vector<int> formatted_;  // per node, set by its own start thread
  mutable refusals refused_;
  std::vector<std::unique_ptr<broker_process>> nodes_;
  std::vector<bool> paused_;
  std::vector<uint16_t> controller_ports_;
  std::string voters_;
};

}  // namespace hw::chaos
