#pragma once
// The bootstrap metadata `kafka-storage.sh format` leaves in the metadata
// log directory (`bootstrap.checkpoint`, Kafka's BootstrapDirectory): a
// KRaft batch file of FeatureLevelRecords and, with --add-scram (KIP-900),
// UserScramCredentialRecords. The first active controller of a new cluster
// writes those credentials into the log with its own feature records
// (feature_control::bootstrap_records), so that they are in the image
// before any client, or any broker authenticating with SCRAM, connects.
// Its feature levels are the new cluster's first ones (`format
// --release-version` picks an older metadata.version), less any this build
// does not support.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages/metadata_records.h"
#include "protocol/wire/reader.h"
#include "storage/io/file_system.h"

namespace hw::controller {

inline constexpr std::string_view bootstrap_file_name = "bootstrap.checkpoint";

struct bootstrap_metadata {
  std::string source;                     // "the binary bootstrap metadata file: <path>"
  std::map<std::string, int16_t> features;  // metadata.version among them
  std::vector<protocol::msg::user_scram_credential_record> scram;
  std::vector<std::string> other_records;  // names of records of other kinds (not written)
};

// The file's bytes as Kafka's BootstrapDirectory reads them (the data
// batches' records; the control batches skipped) with BootstrapMetadata's
// check that metadata.version is among them; false with why.
bool decode_bootstrap_metadata(protocol::bytes_view bytes, const std::string& source, bootstrap_metadata* out,
                               std::string* error);

// <dir>/bootstrap.checkpoint decoded; nothing when there is no such file,
// nothing with *error set when it cannot be read or decoded.
std::optional<bootstrap_metadata> read_bootstrap_metadata(storage::file_system& fs, const std::filesystem::path& dir,
                                                          std::string* error);

}  // namespace hw::controller
