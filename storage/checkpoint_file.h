#pragma once
// Kafka's plain-text checkpoint files, byte for byte:
//
//   0                      the format version (always 0)
//   2                      the number of entries that follow
//   orders 0 1500          offset checkpoints: topic partition offset
//   orders 1 1320          (leader-epoch-checkpoint: epoch start_offset)
//
// Writing replaces the file atomically (temp file, fsync, rename, fsync of
// the directory). Reading is strict: the version, the count, every line and
// every number are checked, and a bad file is an error that names the file
// and the line, never a crash. Like Kafka, an empty file reads as no entries
// (Kafka creates the file empty before its first write). Numbers are read as
// Java's parseInt/parseLong read them (optional sign, decimal, in range);
// fields are separated by runs of whitespace, and a line may not start with
// whitespace (Kafka's split would yield an empty first field).
//
// Stateless functions; the caller (log manager, leader-epoch cache) owns the
// file and serialises access to it.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

// File names in a log dir (offset checkpoints) or a partition dir (epochs).
inline constexpr std::string_view recovery_point_checkpoint_name = "recovery-point-offset-checkpoint";
inline constexpr std::string_view replication_offset_checkpoint_name = "replication-offset-checkpoint";
inline constexpr std::string_view log_start_offset_checkpoint_name = "log-start-offset-checkpoint";
inline constexpr std::string_view cleaner_offset_checkpoint_name = "cleaner-offset-checkpoint";
inline constexpr std::string_view leader_epoch_checkpoint_name = "leader-epoch-checkpoint";

struct topic_partition_offset {
  std::string topic;  // a legal Kafka topic name: no whitespace
  int32_t partition = 0;
  offset value;
  bool operator==(const topic_partition_offset&) const = default;
};

struct epoch_entry {
  leader_epoch epoch;
  offset start_offset;
  bool operator==(const epoch_entry&) const = default;
};

// Offset checkpoints (recovery point, replication, log start, cleaner).
std::string format_offset_checkpoint(std::span<const topic_partition_offset> entries);
// `where` names the file in error messages.
storage_error parse_offset_checkpoint(std::string_view content, const std::filesystem::path& where,
                                      std::vector<topic_partition_offset>* out);
storage_error write_offset_checkpoint(file_system& fs, const std::filesystem::path& p,
                                      std::span<const topic_partition_offset> entries);
// A missing file is an error with code ENOENT; the caller decides what that means.
storage_error read_offset_checkpoint(file_system& fs, const std::filesystem::path& p,
                                     std::vector<topic_partition_offset>* out);

// leader-epoch-checkpoint. Epochs and start offsets must not be negative;
// ordering is the cache's business (it applies Kafka's assign rules on load).
std::string format_epoch_checkpoint(std::span<const epoch_entry> entries);
storage_error parse_epoch_checkpoint(std::string_view content, const std::filesystem::path& where,
                                     std::vector<epoch_entry>* out);
storage_error write_epoch_checkpoint(file_system& fs, const std::filesystem::path& p,
                                     std::span<const epoch_entry> entries, std::string_view tmp_suffix = ".tmp");
storage_error read_epoch_checkpoint(file_system& fs, const std::filesystem::path& p, std::vector<epoch_entry>* out);

// Helpers shared by the other small metadata files of storage/.

// Java's Integer.parseInt / Long.parseLong over the whole of s.
bool parse_java_int32(std::string_view s, int32_t* out);
bool parse_java_int64(std::string_view s, int64_t* out);

// Splits text into lines as Java's BufferedReader.readLine does ("\n",
// "\r\n" or "\r" end a line; a final line needs no terminator).
std::vector<std::string_view> split_lines(std::string_view text);

// Reads a whole file into out, or returns an error naming it.
storage_error read_text_file(file_system& fs, const std::filesystem::path& p, std::string* out);
// write_file_atomically with an error naming the file.
storage_error write_text_file_atomically(file_system& fs, const std::filesystem::path& p, std::string_view content,
                                        std::string_view tmp_suffix = ".tmp");

}  // namespace hw::storage
