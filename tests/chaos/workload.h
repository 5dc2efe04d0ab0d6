#pragma once
// The chaos run's clients, all librdkafka, all recording into one history:
// idempotent acks=all producers each sending its own numbered values at a
// steady pace to the topic's partitions in turn; consumers in one group
// (auto commit) recording every record they read and every rebalance as a
// new generation; and the final read of every partition from the beginning
// by a fresh consumer that assigns them itself (no group). Client errors
// are counted by name for the report; librdkafka's log is dropped unless
// HW_CHAOS_RDKAFKA_LOG=1 (a run under faults logs a connection failure
// every few milliseconds).

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "history.h"

namespace hw::chaos {

struct workload_settings {
  std::string bootstrap;
  std::string topic;
  int partitions = 6;
  std::string group = "chaos";
  std::chrono::milliseconds send_interval{20};
  // How long a producer keeps retrying a message (message.timeout.ms):
  // longer than any fault and the recovery after it, so that a write fails
  // only when the cluster could not take it for that long.
  std::chrono::milliseconds message_timeout{60000};
};

// What the clients said besides records: error names with how often.
class client_notes {
 public:
  void add(const std::string& what);
  std::string summary() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int64_t> counts_;
};

class producer {
 public:
  producer(int id, const workload_settings& settings, history& h, client_notes& notes);
  ~producer();
  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;

  bool ok() const { return rk_ != nullptr; }
  int64_t acked() const { return acked_; }
  // Stops sending, then waits for the outstanding delivery reports; returns
  // how many messages are still unresolved after the timeout.
  int finish(std::chrono::milliseconds timeout);

 private:
  void run();
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque);

  const int id_;
  const workload_settings settings_;
  history& history_;
  client_notes& notes_;
  rd_kafka_t* rk_ = nullptr;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> acked_{0};
  std::thread thread_;
};

class consumer {
 public:
  consumer(int id, const workload_settings& settings, history& h, client_notes& notes);
  ~consumer();
  consumer(const consumer&) = delete;
  consumer& operator=(const consumer&) = delete;

  bool ok() const { return rk_ != nullptr; }
  // True once it has had partitions assigned.
  bool assigned() const { return assigned_; }
  int64_t reads() const { return reads_; }
  // Stops polling and leaves the group.
  void finish();

 private:
  void run();
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                           void* opaque);

  const int id_;
  history& history_;
  client_notes& notes_;
  rd_kafka_t* rk_ = nullptr;
  int generation_ = 0;  // the consumer thread's only
  std::atomic<bool> assigned_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> reads_{0};
  std::thread thread_;
};

struct final_read_result {
  bool complete = false;
  int64_t records = 0;
  std::string detail;  // per partition: the offsets read against its watermarks
};
// Reads every partition from its log start to its high watermark (asked
// first) into the history.
final_read_result read_everything(const workload_settings& settings, history& h, client_notes& notes,
                                  std::chrono::milliseconds timeout);

}  // namespace hw::chaos
