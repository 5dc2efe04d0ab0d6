#pragma once
// kafka-storage.sh (Kafka 4.3's StorageTool): random-uuid, format and info
// over the log directories a broker configuration names, reading and
// writing meta.properties with the broker's own code (storage/), and
// version-mapping / feature-dependencies from Kafka's static tables. The
// pure parts are here for the unit tests.

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/messages/metadata_records.h"
#include "protocol/wire/uuid.h"
#include "tools/cli/argparse.h"
#include "tools/commands/command.h"
#include "tools/commands/storage_voters.h"

namespace hw::tools {

cli::arg_parser storage_parser();

// A generator for new ids (random-uuid, directory ids), seeded from the
// system's entropy source with the full state's worth of bits.
std::mt19937_64 seeded_rng();

// Paths.get(p).toString(): repeated and trailing slashes dropped.
std::string java_path_string(std::string_view path);

// A meta.properties as Kafka's MetaProperties reads it (Kafka's checks and
// messages, over the properties the broker's own reader parsed).
struct kafka_meta {
  int version = 0;
  std::optional<std::string> cluster_id;
  std::optional<int32_t> node_id;  // node.id (v1) or broker.id (v0)
  std::optional<protocol::uuid> directory_id;
  bool operator==(const kafka_meta&) const = default;
};
bool kafka_meta_from(const std::map<std::string, std::string>& props, kafka_meta* out, std::string* error);
// "{cluster.id=..., directory.id=..., node.id=1, version=1}", as Kafka's
// info prints the sorted properties.
std::string kafka_meta_string(const kafka_meta& meta);

// DirectoryId.reserved: the ids Kafka keeps for itself (most significant
// half zero, least significant below 100).
bool reserved_directory_id(const protocol::uuid& id);

// The feature levels a new cluster's bootstrap metadata holds: metadata.version
// first, then the others by name, kraft.version (the quorum's own record)
// and those at level 0 left out.
std::vector<std::pair<std::string, int16_t>> bootstrap_feature_levels(int16_t metadata_level,
                                                                      const std::map<std::string, int16_t>& features);

// "BootstrapMetadata(records=[...], metadataVersionLevel=30, source=format
// command)": those feature levels, then the SCRAM credentials of --add-scram
// (their keys redacted: storage_scram.h).
std::string bootstrap_metadata_string(int16_t metadata_level, const std::map<std::string, int16_t>& features,
                                      const std::vector<protocol::msg::user_scram_credential_record>& scram = {});

// bootstrap.checkpoint, the file format leaves in every directory it
// formats (Kafka's BootstrapDirectory): the same records, framed as
// metadata log values, in a KRaft batch file (storage/snapshot_batches.h)
// of epoch 0 stamped write_time_ms. The controller of a new cluster writes
// its SCRAM credentials into the metadata log.
inline constexpr std::string_view bootstrap_file_name = "bootstrap.checkpoint";
std::vector<uint8_t> bootstrap_file_bytes(int16_t metadata_level, const std::map<std::string, int16_t>& features,
                                          const std::vector<protocol::msg::user_scram_credential_record>& scram,
                                          int64_t write_time_ms);

// info over these directories (the configuration's log.dirs and
// metadata.log.dir): Kafka's report and exit status.
int storage_info(bool kraft_mode, const std::vector<std::string>& directories, std::string* out);

// feature-dependencies as kafka-storage.sh prints it; false with its message.
bool storage_feature_dependencies(const std::vector<std::string>& features, std::string* out, std::string* error);

struct format_request {
  int32_t node_id = -1;
  std::string cluster_id;
  std::vector<std::string> directories;  // log.dirs and metadata.log.dir
  std::string metadata_directory;
  bool ignore_formatted = false;
  // A dynamic quorum's first voters (--standalone, --initial-controllers):
  // written in the metadata directory's bootstrap checkpoint
  // (storage_voters.h) on the first controller listener.
  std::optional<std::vector<dynamic_voter>> initial_voters;
  std::string controller_listener;
  std::optional<protocol::uuid> voter_directory_id;  // this node's directory when it is one of them
  int16_t metadata_level = 30;
  std::map<std::string, int16_t> features;  // what the broker finalizes at that level
  std::vector<protocol::msg::user_scram_credential_record> scram;  // --add-scram
};
// Formatter.run's checks and writes (bootstrap.checkpoint, then
// meta.properties, in each directory formatted); Kafka's messages to *out, the
// failure (FormatterException's message, or a RuntimeException's as the
// JVM prints it) to *error.
bool format_directories(const format_request& req, std::string* out, std::string* error);

}  // namespace hw::tools
