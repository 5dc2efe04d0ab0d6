#pragma once
// The clean-shutdown marker of a log dir, `.kafka_cleanshutdown`, as Kafka
// 4.x writes it (CleanShutdownFileHandler): a JSON object without a final
// newline, `{"version":0,"brokerEpoch":42}`.
//
// Its presence means the broker stopped cleanly, so log recovery can be
// skipped; the broker epoch it carries is sent in the next BrokerRegistration
// (KIP-966) to prove that. Written when the log manager has flushed and
// closed every log, removed right after the logs are loaded at start-up.
// Reading follows Kafka: a marker whose content cannot be used (empty, as
// older brokers wrote it, or unparseable) still marks a clean shutdown but
// carries no broker epoch; unknown JSON fields are ignored.
//
// Stateless functions; the log manager owns the file.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

inline constexpr std::string_view clean_shutdown_name = ".kafka_cleanshutdown";

std::string format_clean_shutdown(broker_epoch epoch);
// The broker epoch in a marker's content, or nullopt if Kafka could not read one.
std::optional<broker_epoch> parse_clean_shutdown(std::string_view content);

// Atomic and durable: once this returns, a crash leaves the marker in place.
storage_error write_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir, broker_epoch epoch);
bool has_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir);
// nullopt if the marker is absent, unreadable or carries no usable epoch.
std::optional<broker_epoch> read_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir);
// Removes the marker durably (directory fsync): a crash after start-up must
// not find a stale marker and skip recovery. Absent is not an error.
storage_error remove_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir);

}  // namespace hw::storage
