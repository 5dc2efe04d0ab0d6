#pragma once
// The internal topics of streams groups (repartition and changelog topics,
// KIP-1071) that the group coordinator finds missing, created by the broker
// as Kafka's AutoTopicCreationManager does: in the background (the
// heartbeat is answered at once), each topic at most once at a time, and a
// failed creation remembered for a while (twice the group's heartbeat
// interval) so that it is not retried on every heartbeat and its error can
// be told to the members. Thread-safe: handlers call it from any
// connection's strand; creations run on the executor it was given.

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/asio.h"
#include "broker/group/streams/topology.h"

namespace hw::broker {

struct broker_services;

class streams_topic_creator {
 public:
  streams_topic_creator(const broker_services& services, asio::any_io_executor executor)
      : services_(services), executor_(std::move(executor)) {}

  // Starts creating those of `topics` neither being created nor refused
  // within their error's time to live; returns at once.
  void create(const std::vector<group::streams::internal_topic>& topics, int64_t error_ttl_ms, int64_t now_ms);

  // The errors of failed creations of these topics still remembered at
  // `now_ms`, by topic name.
  std::map<std::string, std::string> errors(const std::vector<std::string>& names, int64_t now_ms);

 private:
  struct remembered_error {
    std::string message;
    int64_t until_ms = 0;
  };

  asio::awaitable<void> run(std::vector<group::streams::internal_topic> topics, int64_t error_ttl_ms);

  const broker_services& services_;
  asio::any_io_executor executor_;
  std::mutex mutex_;
  std::set<std::string> in_flight_;
  std::map<std::string, remembered_error> errors_;
};

}  // namespace hw::broker
