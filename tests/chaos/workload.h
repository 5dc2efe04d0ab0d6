#pragma once
// The chaos run's clients, all librdkafka, all recording into one history:
// idempotent acks=all producers each sending its own numbered values at a
// steady pace to the topic's partitions in turn; transactional producers
// writing a few values over several partitions per transaction, one in
// four aborted; consumers in one group (auto commit, read_uncommitted) and
// read_committed consumers in another, recording every record they read
// and every rebalance as a new generation (the final read is
// final_read.h's). Client errors
// are counted by name for the report; librdkafka's log is dropped unless
// HW_CHAOS_RDKAFKA_LOG=1 (a run under faults logs a connection failure
// every few milliseconds).

#include <librdkafka/rdkafka.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <vector>
#include <string>
#include <thread>

#include "history.h"

namespace hw::chaos {

struct workload_settings {
  std::string bootstrap;
  // Every client's librdkafka settings for reaching the listeners
  // (security.protocol, the CA, the SASL user): chaos_cluster::client_settings.
  std::map<std::string, std::string> connection;
  std::string topic;
  int partitions = 6;
  std::string group = "chaos";
  // The Python that runs protocol_consumer's members (confluent-kafka's venv).
  std::string python;
  std::chrono::milliseconds send_interval{20};
  // How long a producer keeps retrying a message (message.timeout.ms):
  // longer than any fault and the recovery after it, so that a write fails
  // only when the cluster could not take it for that long.
  std::chrono::milliseconds message_timeout{60000};
  // Transactional producers: how long the coordinator lets a transaction
  // stay open (transaction.timeout.ms, also their message.timeout.ms, which
  // librdkafka keeps at or below it) and the pause between transactions.
  std::chrono::milliseconds transaction_timeout{20000};
  std::chrono::milliseconds transaction_interval{100};
};

// What the clients said besides records: error names with how often, and
// their log lines (the producers log their idempotence state: producer id,
// epoch bumps, drains), kept for a failed run's files.
class client_notes {
 public:
  void add(const std::string& what);
  std::string summary() const;
  void log(const std::string& line);
  void write_log(std::ostream& out) const;

 private:
  static constexpr size_t k_max_log_lines = 200000;
  mutable std::mutex mutex_;
  std::map<std::string, int64_t> counts_;
  std::vector<std::string> log_;
  int64_t log_dropped_ = 0;
};

class producer {
 public:
  producer(int id, const workload_settings& settings, history& h, client_notes& notes);
  ~producer();
  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;

  bool ok() const { return rk_ != nullptr; }
  int64_t acked() const { return acked_; }
  // The fatal errors after which the client was replaced (see
  // replace_after_fatal), each with its time.
  std::vector<std::string> restarts() const;
  // Stops sending, then waits for the outstanding delivery reports; returns
  // how many messages are still unresolved after the timeout.
  int finish(std::chrono::milliseconds timeout);
  // A line of the client's log (facility DRAIN): an epoch bump goes into
  // the history with the reason logged before it.
  void on_client_log(const char* line);

 private:
  struct opaque;  // what the callbacks get
  rd_kafka_t* create();
  void replace_after_fatal(const std::string& reason);
  void run();
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque);

  const int id_;
  const workload_settings settings_;
  history& history_;
  client_notes& notes_;
  std::unique_ptr<opaque> opaque_;
  rd_kafka_t* rk_ = nullptr;  // the send thread's, once it runs
  mutable std::mutex mutex_;
  std::vector<std::string> restarts_;
  std::string bump_reason_;  // the last drain-and-bump's reason, until the bump is logged
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> acked_{0};
  std::thread thread_;
};

// A transactional producer (transactional.id chaos-txn-<id>): each
// transaction sends 1-5 values, each to the next partition, waits for
// their delivery reports, and commits, or aborts every fourth. What the client answers is recorded: committed,
// aborted, or unknown (it could not say: a timeout that outlived the
// retries, a fatal error); after an unknown outcome or a fatal error the
// client is replaced with the same transactional.id, which fences the old
// one and lets the coordinator abort what it left open.
class txn_producer {
 public:
  txn_producer(int id, const workload_settings& settings, history& h, client_notes& notes);
  ~txn_producer();
  txn_producer(const txn_producer&) = delete;
  txn_producer& operator=(const txn_producer&) = delete;

  bool ok() const { return ok_; }
  int64_t committed() const { return committed_; }
  int64_t replaced() const { return replaced_; }
  // Stops after the transaction under way ends (aborted if not yet
  // committing), waiting up to the timeout.
  void finish();

 private:
  struct opaque;
  rd_kafka_t* create();
  bool init();
  void replace(const std::string& why);
  void run();
  // Ends the current transaction; what the producer was told.
  txn_outcome end(bool commit, std::string* detail);
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque);

  const int id_;
  const workload_settings settings_;
  history& history_;
  client_notes& notes_;
  std::unique_ptr<opaque> opaque_;
  rd_kafka_t* rk_ = nullptr;  // the run thread's
  std::atomic<bool> ok_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> committed_{0};
  std::atomic<int64_t> replaced_{0};
  std::thread thread_;
};

class consumer {
 public:
  // read_committed: in the group <group>-committed, reading committed
  // records only.
  consumer(int id, const workload_settings& settings, history& h, client_notes& notes, bool read_committed = false);
  ~consumer();
  consumer(const consumer&) = delete;
  consumer& operator=(const consumer&) = delete;

  bool ok() const { return rk_ != nullptr; }
  // True once it has had partitions assigned.
  bool assigned() const { return assigned_; }
  int64_t reads() const { return reads_; }
  // Stops polling and leaves the group.
  void finish();
  // A line its client logged (any thread): a reset of its position is
  // recorded in the history.
  void on_client_log(const char* line);

 private:
  void run();
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                           void* opaque);

  const int id_;
  history& history_;
  client_notes& notes_;
  const bool read_committed_;
  rd_kafka_t* rk_ = nullptr;
  int generation_ = 0;  // the consumer thread's only
  std::atomic<bool> assigned_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> reads_{0};
  std::thread thread_;
};

// A member of the group <group>-848, which speaks the consumer protocol of
// KIP-848 (group.protocol=consumer: ConsumerGroupHeartbeat, the assignment
// computed by the group coordinator): read_uncommitted, auto commit.
// Debian's librdkafka 2.0 predates the protocol, so the member is
// confluent-kafka (librdkafka 2.16) in a Python process of its own
// (tests/chaos/group_member.py, given its settings on stdin); a thread
// turns the lines it prints into the history's events as consumer records
// its own: each change of assignment a new generation, each record read.
// Its librdkafka log goes into the clients' log. The process dies with
// the test.
class protocol_consumer {
 public:
  protocol_consumer(int id, const workload_settings& settings, history& h, client_notes& notes);
  ~protocol_consumer();
  protocol_consumer(const protocol_consumer&) = delete;
  protocol_consumer& operator=(const protocol_consumer&) = delete;

  bool ok() const { return pid_ > 0 && !exited_; }
  bool assigned() const { return assigned_; }
  int64_t reads() const { return reads_; }
  // Asks the member to leave the group (SIGTERM) and waits for it to close
  // (killed after 30 s).
  void finish();

 private:
  void run(int out_fd);
  void on_line(const std::string& line);

  const int id_;
  history& history_;
  client_notes& notes_;
  pid_t pid_ = -1;
  int generation_ = 0;  // the reading thread's only
  std::atomic<bool> assigned_{false};
  std::atomic<bool> exited_{false};
  std::atomic<int64_t> reads_{0};
  std::thread thread_;
};

}  // namespace hw::chaos
