#pragma once
// The raft core's log entries as the bytes KRaft stores and replicates: one
// entry is one record batch (magic 2, uncompressed, null keys, the entry's
// epoch as partition leader epoch, its append time as every timestamp); a
// control entry is a control batch whose one record has the LeaderChange
// key and a LeaderChangeMessage value, or (an entry with `voters`, KIP-853)
// one VotersRecord, after a KRaftVersionRecord when the batch has two (the
// batch that turns a static quorum dynamic). What the metadata log holds on disk,
// what a Fetch response carries and what the core keeps in memory are thus
// the same bytes on every replica.
//
// Pure; any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "controller/raft/raft_types.h"
#include "protocol/wire/reader.h"

namespace hw::controller::raft {

// The batch for e (appended to out).
void encode_entry(const log_entry& e, std::vector<uint8_t>& out);
std::vector<uint8_t> encode_entries(std::span<const log_entry> entries);

// The entries of whole batches in `bytes`, checked (CRC, framing, offsets
// increasing, uncompressed or not, control batches of LeaderChange or
// KRaftVoters as above);
// a partial batch at the end is left out (Fetch responses may end inside
// one). False, with a reason, on anything else.
bool decode_entries(protocol::bytes_view bytes, std::vector<log_entry>* out, std::string* error);

// Kafka's LeaderChangeMessage (version 0) naming the leader of an epoch
// and the voters (all of them granting, as a static quorum's leader writes it).
std::vector<uint8_t> leader_change_record(node_id leader, std::span<const node_id> voters);

// Kafka's KRaftVersionRecord (version 0) of a kraft.version level.
std::vector<uint8_t> kraft_version_record(int16_t level);

// Kafka's VotersRecord (version 0) for a voter set, and back (nullopt when
// the bytes are not one).
std::vector<uint8_t> voters_record(const voter_set& voters);
std::optional<voter_set> decode_voters_record(protocol::bytes_view value);

}  // namespace hw::controller::raft
