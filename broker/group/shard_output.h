#pragma once
// What a group_shard hands back to its driver: answers to requests
// (completions) and records that must become durable before some answers
// can go (appends). Plain values; they belong to whoever took them.

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "broker/group/group_records.h"
#include "broker/group/streams/topology.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/streams_group_heartbeat.h"
#include "protocol/messages/sync_group.h"
#include "protocol/messages/txn_offset_commit.h"

namespace hw::broker::group {

// Chosen by the caller per request; echoed in the completion.
using request_token = uint64_t;
// Chosen by the shard per append; the caller acknowledges with it.
using append_token = uint64_t;

using offset_fetch_group_response = protocol::msg::offset_fetch_response::offset_fetch_response_group;
using delete_groups_results = std::vector<protocol::msg::delete_groups_response::deletable_group_result>;

// A StreamsGroupHeartbeat's answer, with the internal topics its topology
// needs that do not exist yet (the handler has the broker create them).
struct streams_heartbeat_answer {
  protocol::msg::streams_group_heartbeat_response response;
  std::vector<streams::internal_topic> to_create;
};

using shard_response =
    std::variant<protocol::msg::join_group_response, protocol::msg::sync_group_response,
                 protocol::msg::heartbeat_response, protocol::msg::leave_group_response,
                 protocol::msg::offset_commit_response, offset_fetch_group_response,
                 delete_groups_results, protocol::msg::offset_delete_response,
                 protocol::msg::txn_offset_commit_response, protocol::msg::consumer_group_heartbeat_response,
                 streams_heartbeat_answer>;

struct completion {
  request_token token = 0;
  shard_response answer;
};

struct append_request {
  append_token token = 0;
  std::vector<coordinator_record> records;
  // A transactional offset commit's producer (-1: a plain append).
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  // KIP-890: the verification guard the offsets partition gave the
  // handler (nullopt: transactional writes are not verified).
  std::optional<uint64_t> verification;
};

struct shard_output {
  std::vector<completion> completions;
  std::vector<append_request> appends;
};

}  // namespace hw::broker::group
