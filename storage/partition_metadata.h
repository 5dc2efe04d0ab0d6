#pragma once
// partition.metadata, the topic id of a partition directory, as Kafka writes
// it (no final newline):
//
//   version: 0
//   topic_id: MRFQ1kJc60ikgupOdlqn1w
//
// Read as Kafka reads it: each line is `key: value` split at a colon followed
// by whitespace; any version >= 0 is accepted (a newer writer stays
// readable); the topic id must be a valid, non-zero base64 UUID. Unlike
// Kafka, the keys are checked too. Lines after the second are ignored.
//
// Stateless functions; the partition's log owns the file.

#include <filesystem>
#include <string>
#include <string_view>

#include "protocol/wire/uuid.h"
#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

inline constexpr std::string_view partition_metadata_name = "partition.metadata";

std::string format_partition_metadata(const protocol::uuid& topic_id);
// `where` names the file in error messages.
storage_error parse_partition_metadata(std::string_view content, const std::filesystem::path& where,
                                       protocol::uuid* topic_id);
// Atomic and durable. Asserts a non-zero topic id.
storage_error write_partition_metadata(file_system& fs, const std::filesystem::path& p,
                                       const protocol::uuid& topic_id);
storage_error read_partition_metadata(file_system& fs, const std::filesystem::path& p, protocol::uuid* topic_id);

}  // namespace hw::storage
