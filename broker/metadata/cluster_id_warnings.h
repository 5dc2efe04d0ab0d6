#pragma once
// The WARN a node logs when it refuses a quorum request (Vote,
// BeginQuorumEpoch, EndQuorumEpoch, Fetch or FetchSnapshot of the metadata
// log) that names another cluster id: nodes formatted without a common
// CLUSTER_ID never form a quorum, and this line says why. Rate-limited so
// that a peer retrying every few milliseconds cannot flood the log: once
// per peer and distinct cluster id per interval.
//
// Ownership and threads: owned by the raft driver; the inbound RPCs call
// it from any connection's strand, hence the leaf mutex.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace hw::broker {

class cluster_id_warnings {
 public:
  explicit cluster_id_warnings(std::string own_cluster_id, int64_t interval_ms = 60'000);

  // Logs (at most once per interval for this peer and id) that `api` from
  // `peer` was refused; true when it logged.
  bool refused(std::string_view api, int32_t peer, std::string_view their_cluster_id, int64_t now_ms);

 private:
  // Peers sending a new id with every request are not remembered forever.
  static constexpr size_t max_remembered = 1024;

  const std::string own_;
  const int64_t interval_ms_;
  std::mutex mutex_;
  std::map<std::pair<int32_t, std::string>, int64_t> last_logged_ms_;
};

}  // namespace hw::broker
