#pragma once
// KAFKA_* environment variables as configuration, the apache/kafka image's
// way: strip KAFKA_, lower-case, then '_' -> '.', and (on the result) "..."
// -> '-' and ".." -> '_'; so KAFKA___ becomes '-' and KAFKA__ becomes '_'.
// Variables the image uses for the JVM or logging are not configuration.

#include <optional>
#include <string>
#include <string_view>

namespace hw::config {

// The configuration key a KAFKA_* variable name stands for, or nullopt for
// names that are not configuration (no KAFKA_ prefix, or a known non-config
// variable such as KAFKA_HEAP_OPTS).
std::optional<std::string> env_name_to_key(std::string_view name);

// The variable name that env_name_to_key maps to key (for messages).
std::string key_to_env_name(std::string_view key);

}  // namespace hw::config
