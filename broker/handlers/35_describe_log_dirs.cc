// DescribeLogDirs (key 35), versions 1-5: per configured log dir, the
// partitions it holds (size, offset lag, future flag) and, from v4, its
// total and usable bytes.
//
// Kafka's rules (KafkaApis.handleDescribeLogDirsRequest, ReplicaManager
// .describeLogDirs): a null topic list means every hosted partition, else
// exactly the listed ones; dirs are named by absolute path; an offline dir
// answers KAFKA_STORAGE_ERROR and nothing else; topics with no matching
// partition are left out; the lag of a current (non-future) replica is
// max(HW - LEO, 0), a future replica's (a move to this dir in progress)
// the current log's end minus its own; a file system size that overflows
// a long is Long.MAX_VALUE. Highwater has no cordoned dirs.

#include <sys/statvfs.h>

#include <filesystem>
#include <map>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/replica/replica_manager.h"
#include "broker/services.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_log_dirs.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_log_dirs_request;
using protocol::msg::describe_log_dirs_response;
using dir_result = describe_log_dirs_response::describe_log_dirs_result;

std::filesystem::path absolute_dir(const std::filesystem::path& p) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(p, ec);
  if (ec) abs = p;
  abs = abs.lexically_normal();
  if (!abs.has_filename() && abs.has_parent_path()) abs = abs.parent_path();  // drop a trailing '/'
  return abs;
}

int64_t clamp_bytes(unsigned long long blocks, unsigned long block_size) {
  const unsigned __int128 bytes = static_cast<unsigned __int128>(blocks) * block_size;
  return bytes > static_cast<unsigned __int128>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(bytes);
}

using wanted_fn = std::function<bool(const storage::topic_partition&)>;

dir_result describe_dir(const broker_services& s, const std::string& configured, const wanted_fn& wanted) {
  dir_result r;
  const auto path = absolute_dir(configured);
  r.log_dir = path.string();
  struct statvfs fs {};
  if (s.replicas->logs().is_dir_offline(configured) || ::statvfs(path.c_str(), &fs) != 0) {
    r.error_code = static_cast<int16_t>(error_code::kafka_storage_error);
    return r;
  }
  r.total_bytes = clamp_bytes(fs.f_blocks, fs.f_frsize);
  r.usable_bytes = clamp_bytes(fs.f_bavail, fs.f_frsize);
  std::map<std::string, describe_log_dirs_response::describe_log_dirs_topic> topics;
  for (const auto& p : s.replicas->all()) {
    if (!wanted(p->tp())) continue;
    const auto current = p->log_ptr();
    if (absolute_dir(current->dir().parent_path()) == path) {
      auto& t = topics[p->tp().topic];
      t.name = p->tp().topic;
      describe_log_dirs_response::describe_log_dirs_partition out;
      out.partition_index = p->tp().partition;
      out.partition_size = static_cast<int64_t>(current->log().size_bytes());
      out.offset_lag = std::max<int64_t>(p->high_watermark() - current->log().log_end_offset(), 0);
      t.partitions.push_back(out);
    }
    // A replica moving here (AlterReplicaLogDirs): its lag behind the current log.
    const auto future = s.replicas->logs().find_future(p->tp());
    if (future && absolute_dir(future->dir().parent_path()) == path) {
      auto& t = topics[p->tp().topic];
      t.name = p->tp().topic;
      describe_log_dirs_response::describe_log_dirs_partition out;
      out.partition_index = p->tp().partition;
      out.partition_size = static_cast<int64_t>(future->log().size_bytes());
      out.offset_lag = current->log().log_end_offset() - future->log().log_end_offset();
      out.is_future_key = true;
      t.partitions.push_back(out);
    }
  }
  for (auto& [name, t] : topics) r.topics.push_back(std::move(t));
  return r;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_log_dirs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  if (auto refused = top_level_refusal<describe_log_dirs_response>(ctx, api_acl(35, "cluster")))  // DESCRIBE
    co_return respond(ctx, *refused);
  std::set<storage::topic_partition> listed;
  if (request->topics) {
    for (const auto& t : *request->topics)
      for (int32_t part : t.partitions) listed.insert({t.topic, part});
  }
  const bool all = !request->topics;
  wanted_fn wanted = [&](const storage::topic_partition& tp) { return all || listed.count(tp) > 0; };
  describe_log_dirs_response response;
  std::set<std::string> seen;  // Kafka takes log.dirs as a set
  for (const auto& dir : s.config->log_dirs) {
    if (!seen.insert(absolute_dir(dir).string()).second) continue;
    response.results.push_back(describe_dir(s, dir, wanted));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_log_dirs_handler() { return {35, 1, 5, &handle}; }

}  // namespace hw::broker
