#pragma once
// meta.properties, the identity file at the top of every log dir, in the
// layout Kafka 4.x writes (java.util.Properties.store with an empty comment):
//
//   #
//   #Sun Nov 29 09:19:56 UTC 2026
//   node.id=1
//   directory.id=MRFQ1kJc60ikgupOdlqn1w
//   version=1
//   cluster.id=MkU3OEVBNTcwNTJENDM2Qk
//
// Version 1 (KRaft) requires node.id and cluster.id; version 0 (ZooKeeper
// era) has an optional broker.id instead. Reading follows Properties.load
// (comments, `=`/`:`/space separators, escapes, continuation lines) and
// Kafka's MetaProperties checks; unknown keys are ignored as Kafka does.
//
// Stateless functions; the log manager owns the file.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/wire/uuid.h"
#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

inline constexpr std::string_view meta_properties_name = "meta.properties";

struct meta_properties {
  int32_t version = 1;                           // 0 or 1
  std::optional<node_id> node;                   // node.id (v1), broker.id (v0)
  std::optional<std::string> cluster_id;         // required in v1
  std::optional<protocol::uuid> directory_id;    // this log dir's id
  bool operator==(const meta_properties&) const = default;
};

// `now` goes into the date comment Properties.store writes; it is not read back.
std::string format_meta_properties(const meta_properties& props, std::chrono::system_clock::time_point now);
// `where` names the file in error messages.
storage_error parse_meta_properties(std::string_view content, const std::filesystem::path& where,
                                    meta_properties* out);
// Asserts that props is complete for its version (a caller bug otherwise).
storage_error write_meta_properties(file_system& fs, const std::filesystem::path& p, const meta_properties& props,
                                    std::chrono::system_clock::time_point now);
storage_error read_meta_properties(file_system& fs, const std::filesystem::path& p, meta_properties* out);

// java.util.Properties, the parts above are built on.

// Properties.load over text; false (with *error set) only for a malformed
// \uXXXX escape, the one thing Java rejects. Later keys replace earlier ones.
bool parse_java_properties(std::string_view text, std::map<std::string, std::string>* out, std::string* error);
// How Properties.store writes a key (is_key) or a value.
std::string escape_java_property(std::string_view s, bool is_key);
// java.util.Date.toString() in UTC: "Sun Nov 29 09:19:56 UTC 2026".
std::string java_date_string(std::chrono::system_clock::time_point t);

}  // namespace hw::storage
