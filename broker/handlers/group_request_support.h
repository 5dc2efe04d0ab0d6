#pragma once
// What the group handlers share: who sent a request as the coordinator
// records it, and sending one request to the shard that owns a group.
// Handlers call these from their connection's strand.

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "broker/asio.h"
#include "broker/group/group_coordinator.h"
#include "broker/request_context.h"
#include "broker/services.h"

namespace hw::broker::group {

// "/127.0.0.1" from a Kafka-style connection name "local-remote-n" (hosts
// as "ip:port"; IP text never holds '-'). "" when the name has no remote.
std::string client_host_of(std::string_view connection_name);

client_info client_of(const request_context& ctx);

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

}  // namespace hw::broker::group
