#pragma once
// The raft core's messages to and from Kafka's wire messages (Vote v2,
// BeginQuorumEpoch v1, EndQuorumEpoch v1, Fetch v17, FetchSnapshot v1), all
// for the one partition `__cluster_metadata-0` (topic id
// AAAAAAAAAAAAAAAAAAAAAQ). Requests carry the cluster id; one naming
// another cluster is answered INCONSISTENT_CLUSTER_ID, one naming another
// partition INVALID_REQUEST, as Kafka's KafkaRaftClient does. Log entries
// travel as KRaft record batches (raft_batches.h).
//
// The core's `correlation` is not on the wire: the driver keeps it with the
// request it sent and hands it to the *_from_wire of the answer.
//
// Pure; any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "controller/raft/raft_messages.h"
#include "protocol/error_code.h"
#include "protocol/messages/begin_quorum_epoch.h"
#include "protocol/messages/end_quorum_epoch.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/fetch_snapshot.h"
#include "protocol/messages/vote.h"
#include "protocol/wire/uuid.h"

namespace hw::controller::raft {

namespace msg = protocol::msg;

inline constexpr int16_t vote_version = 2;
inline constexpr int16_t begin_quorum_epoch_version = 1;
inline constexpr int16_t end_quorum_epoch_version = 1;
inline constexpr int16_t fetch_version = 18;  // 18: the fetcher's high watermark (KIP-1166)
inline constexpr int16_t fetch_snapshot_version = 1;

// Kafka's Uuid.METADATA_TOPIC_ID.
protocol::uuid metadata_topic_id();

// --- requests the core sends -------------------------------------------------
msg::vote_request to_wire(const vote_request& m, const std::string& cluster_id, node_id to);
msg::begin_quorum_epoch_request to_wire(const begin_quorum_epoch_request& m, const std::string& cluster_id, node_id to);
msg::end_quorum_epoch_request to_wire(const end_quorum_epoch_request& m, const std::string& cluster_id);
msg::fetch_request to_wire(const fetch_request& m, const std::string& cluster_id);
msg::fetch_snapshot_request to_wire(const fetch_snapshot_request& m, const std::string& cluster_id);

// --- requests the core receives ----------------------------------------------
// NONE and *out filled, or the error to answer with.
protocol::error_code from_wire(const msg::vote_request& w, const std::string& cluster_id, vote_request* out);
protocol::error_code from_wire(const msg::begin_quorum_epoch_request& w, const std::string& cluster_id,
                               begin_quorum_epoch_request* out);
protocol::error_code from_wire(const msg::end_quorum_epoch_request& w, const std::string& cluster_id,
                               end_quorum_epoch_request* out);
protocol::error_code from_wire(const msg::fetch_request& w, const std::string& cluster_id, fetch_request* out);
protocol::error_code from_wire(const msg::fetch_snapshot_request& w, const std::string& cluster_id,
                               fetch_snapshot_request* out);

// --- answers the core gives --------------------------------------------------
msg::vote_response to_wire(const vote_response& m);
msg::begin_quorum_epoch_response to_wire(const begin_quorum_epoch_response& m);
msg::end_quorum_epoch_response to_wire(const end_quorum_epoch_response& m);
// The entries' batches go into records_storage, and a snapshot chunk stays
// in m: both must outlive the result.
msg::fetch_response to_wire(const fetch_response& m, std::vector<uint8_t>& records_storage);
msg::fetch_snapshot_response to_wire(const fetch_snapshot_response& m);
// An answer carrying only an error (a request refused before the core saw it).
msg::vote_response vote_error(protocol::error_code e);
msg::begin_quorum_epoch_response begin_quorum_epoch_error(protocol::error_code e);
msg::end_quorum_epoch_response end_quorum_epoch_error(protocol::error_code e);
msg::fetch_response fetch_error(protocol::error_code e);
msg::fetch_snapshot_response fetch_snapshot_error(protocol::error_code e);

// --- answers the core receives -----------------------------------------------
// A top-level or partition error becomes the message's error (the core
// backs off on it); an answer without the partition is CORRUPT_MESSAGE, as
// is a Fetch answer whose batches do not decode (the reason in *why).
void from_wire(const msg::vote_response& w, uint64_t correlation, vote_response* out);
void from_wire(const msg::begin_quorum_epoch_response& w, uint64_t correlation, begin_quorum_epoch_response* out);
void from_wire(const msg::end_quorum_epoch_response& w, uint64_t correlation, end_quorum_epoch_response* out);
void from_wire(const msg::fetch_response& w, uint64_t correlation, fetch_response* out, std::string* why);
void from_wire(const msg::fetch_snapshot_response& w, uint64_t correlation, fetch_snapshot_response* out);

}  // namespace hw::controller::raft
