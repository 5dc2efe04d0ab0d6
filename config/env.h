#pragma once
// KAFKA_* environment variables as configuration, the apache/kafka image's
// way: strip KAFKA_, lower-case, then '_' -> '.', and (on the result) "..."
// -> '-' and ".." -> '_'; so KAFKA___ becomes '-' and KAFKA__ becomes '_'.
// Variables the image uses for the JVM or logging are not configuration.
// Of KAFKA_OPTS (the JVM's options) the JAAS file's system property is read.

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

// The value of -Djava.security.auth.login.config=<value> among KAFKA_OPTS's
// words, as the JVM gets it from Kafka's scripts, which expand $KAFKA_OPTS
// unquoted: split on blanks, quotes not taken away; the last one wins.
std::optional<std::string> jaas_login_config(std::string_view kafka_opts);

// The value of -D<name>=<value> among KAFKA_OPTS's words, read the same way
// (the OAUTHBEARER URLs and files the operator allows:
// org.apache.kafka.sasl.oauthbearer.allowed.urls / .allowed.files).
std::optional<std::string> java_system_property(std::string_view kafka_opts, std::string_view name);

}  // namespace hw::config
