#pragma once
// kafka-storage.sh format's dynamic quorum (KIP-853): the voters of
// --initial-controllers (Kafka's DynamicVoters.parse: "id@host:port:dirid",
// comma separated, its checks and messages) or --standalone (this node,
// with a new directory id, on its first controller listener), and the
// bootstrap checkpoint that holds them: __cluster_metadata-0/
// 00000000000000000000-0000000000.checkpoint in the metadata directory, a
// snapshot at offset 0 epoch 0 whose header batch carries KRaftVersion 1 and
// the VotersRecord, read back by the controller's first start.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/wire/uuid.h"

namespace hw::tools {

struct dynamic_voter {
  int32_t id = -1;
  std::string host;
  uint16_t port = 0;
  protocol::uuid directory_id;
};

// DynamicVoters.parse; false with its IllegalArgumentException's message
// ("No @ found in dynamic voter string.", "Node id 1 was specified more than
// once.", ...).
bool parse_dynamic_voters(std::string_view input, std::vector<dynamic_voter>* out, std::string* error);

// The checkpoint's path under the metadata directory.
inline constexpr std::string_view bootstrap_snapshot_path =
    "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint";

// Its bytes: every voter on `listener` (the first controller listener) with
// kraft.version 0..1, stamped write_time_ms.
std::vector<uint8_t> bootstrap_snapshot_bytes(const std::vector<dynamic_voter>& voters, const std::string& listener,
                                              int64_t write_time_ms);

}  // namespace hw::tools
