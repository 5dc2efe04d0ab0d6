#pragma once
// What the group handlers share: who sent a request as the coordinator
// records it, and sending one request to the shard that owns a group.
// Handlers call these from their connection's strand.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/asio.h"
#include "broker/group/group_coordinator.h"
#include "broker/request_context.h"
#include "broker/security/authorization.h"
#include "broker/services.h"

namespace hw::broker::group {

// "/127.0.0.1" from a Kafka-style connection name "local-remote-n" (hosts
// as "ip:port"; IP text never holds '-'). "" when the name has no remote.
std::string client_host_of(std::string_view connection_name);

client_info client_of(const request_context& ctx);

// Whether ConsumerGroupHeartbeat and ConsumerGroupDescribe are served:
// group.coordinator.rebalance.protocols names consumer and the cluster
// finalized group.version 1 (else Kafka answers UNSUPPORTED_VERSION).
bool consumer_protocol_enabled(const request_context& ctx);

// Whether StreamsGroupHeartbeat and StreamsGroupDescribe are served:
// group.coordinator.rebalance.protocols names streams and the cluster
// finalized streams.version 1 (else Kafka answers UNSUPPORTED_VERSION).
bool streams_protocol_enabled(const request_context& ctx);

// Sends a request to the shard coordinating group_id. The shard's answer
// of type R, or nothing with *error set (NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS) when no shard here can take it. `issue`
// must be a named local of the caller (see group_coordinator::submit).
template <typename R>
asio::awaitable<std::optional<R>> call_shard(const request_context& ctx, std::string_view group_id,
                                             const group_coordinator::issue_fn& issue, protocol::error_code* error) {
  group_coordinator& coordinator = *ctx.services->groups;
  co_return co_await call_coordinator<R>(coordinator, coordinator.partition_for(group_id), issue, error);
}

// DescribeGroups and ConsumerGroupDescribe: each group asked of the shard
// that coordinates it, one read per shard, the answers by group id; the
// groups of a shard that cannot answer are described only with its error
// (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS). Described has group_id
// and error_code. `describe` must be a named local of the caller.
template <typename Described>
asio::awaitable<std::map<std::string, Described>> describe_on_shards(
    const request_context& ctx, const std::vector<std::string>& group_ids,
    const std::function<std::vector<Described>(const group_shard&, const std::vector<std::string>&)>& describe) {
  group_coordinator& coordinator = *ctx.services->groups;
  std::map<int32_t, std::vector<std::string>> by_partition;
  for (const auto& id : group_ids) by_partition[coordinator.partition_for(id)].push_back(id);
  std::map<std::string, Described> described;
  for (auto& [partition, ids] : by_partition) {
    std::vector<Described> out;
    const std::vector<std::string>& wanted = ids;
    const group_coordinator::read_fn read = [&](const group_shard& shard) { out = describe(shard, wanted); };
    const protocol::error_code e = co_await coordinator.read(partition, read);
    if (e != protocol::error_code::none) {
      out.clear();
      for (const auto& id : ids) {
        Described d;
        d.group_id = id;
        d.error_code = static_cast<int16_t>(e);
        out.push_back(std::move(d));
      }
    }
    for (auto& d : out) {
      std::string id = d.group_id;
      described.emplace(std::move(id), std::move(d));
    }
  }
  co_return described;
}

// ConsumerGroupDescribe and StreamsGroupDescribe: the groups the principal
// may not describe (`group_check`) answered GROUP_AUTHORIZATION_FAILED
// first, as Kafka orders them, then the others as their shards describe
// them, with their authorized operations when asked. `describe` must be a
// named local of the caller.
template <typename Described>
asio::awaitable<std::vector<Described>> describe_authorized_groups(
    const request_context& ctx, const std::vector<std::string>& group_ids, const api_acl_check& group_check,
    bool include_authorized_operations,
    const std::function<std::vector<Described>(const group_shard&, const std::vector<std::string>&)>& describe) {
  std::vector<Described> out;
  std::vector<std::string> allowed;
  for (const auto& id : group_ids) {
    if (authorize(ctx, group_check, id)) {
      allowed.push_back(id);
      continue;
    }
    auto& d = out.emplace_back();
    d.group_id = id;
    d.error_code = static_cast<int16_t>(protocol::error_code::group_authorization_failed);
  }
  auto described = co_await describe_on_shards<Described>(ctx, allowed, describe);
  for (const auto& id : allowed) {
    Described g = described.at(id);
    if (g.error_code == 0 && include_authorized_operations)
      g.authorized_operations = authorized_operations(ctx, controller::acl_resource_type::group, g.group_id);
    out.push_back(std::move(g));
  }
  co_return out;
}

}  // namespace hw::broker::group
