// Fetch (key 1) on a controller listener: voters and observers (brokers)
// replicating the metadata log `__cluster_metadata-0` from the quorum
// leader. The raft driver answers, parking an empty answer up to the
// fetcher's max wait. (Fetch of data partitions is 01_fetch.cc, on broker
// listeners.)

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
#include "broker/services.h"
#include "protocol/messages/fetch.h"

namespace hw::broker {
namespace {

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<protocol::msg::fetch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<protocol::msg::fetch_response>(ctx, api_acl(1, "metadata_log")))
    co_return respond(ctx, *refused);
  raft_driver* raft = ctx.services->raft;
  if (!raft) co_return handler_result::close("Fetch on a controller listener of a node without a metadata quorum");
  auto answer = co_await raft->fetch(*request);
  co_return respond(ctx, answer.response);
}

}  // namespace

// KRaft fetchers send v13+ (topic ids); v18 carries the fetcher's high watermark (KIP-1166).
api_handler metadata_log_fetch_handler() { return {1, 13, 18, &handle}; }

}  // namespace hw::broker
