#pragma once
// The client's side of an incremental fetch session (KIP-227), as a
// follower's fetcher keeps it with its leader (Kafka's FetchSessionHandler):
//
// - The first request is full (epoch 0: "open a session"): every partition
//   to fetch. If the leader answers with a session id, later requests are
//   incremental at epochs 1, 2, ...: only the partitions added since the
//   last request or whose fields changed (fetch offset, log start, epochs,
//   max bytes), and the ones no longer fetched as forgotten. The leader
//   reads every partition of the session and answers only those with
//   something new (records, a moved high watermark or log start, an error).
// - A full answer without a session id (the leader's cache is full):
//   every request stays full, each asking for a session again.
// - FETCH_SESSION_ID_NOT_FOUND: the next request is full with no session
//   id. Any other top-level error, or a request with no answer: the next
//   request is full at epoch 0 under the old id, which closes that session
//   and opens a new one. In both cases the answer's partitions are not
//   used.
//
// Pure; owned by one fetcher and used on its strand only.

#include <cstdint>
#include <map>
#include <vector>

#include "broker/fetch/fetch_session.h"
#include "protocol/error_code.h"

namespace hw::broker::fetch {

class fetch_session_handler {
 public:
  struct request {
    int32_t session_id = invalid_session_id;
    int32_t session_epoch = initial_epoch;
    bool full = true;
    // What to put in the request's topics: every partition (full), or the
    // added and changed ones (incremental).
    std::vector<partition_request> partitions;
    std::vector<partition_identity> forgotten;  // incremental only
  };

  // `next`: every partition the client wants fetched now (each once), with
  // the fields it would send for it. Every answer until the next build() is to this
  // request.
  request build(const std::vector<partition_request>& next);
  // The answer to the last request built: its top-level error and session
  // id. Whether its partitions may be used.
  bool handle_response(protocol::error_code error, int32_t session_id);
  // The last request got no answer (connection lost, timed out).
  void handle_error();

  int32_t session_id() const { return session_id_; }
  int32_t next_epoch() const { return next_epoch_; }
  // The partitions the leader's session holds, as this side knows it.
  size_t session_size() const { return session_.size(); }

 private:
  int32_t session_id_ = invalid_session_id;
  int32_t next_epoch_ = initial_epoch;
  bool last_full_ = true;
  std::map<partition_identity, partition_request> session_;  // what the leader caches
  // The last request's partitions and forgotten ones: applied to session_
  // once it is answered.
  std::vector<partition_request> sent_;
  std::vector<partition_identity> sent_forgotten_;
};

}  // namespace hw::broker::fetch
