#include "config/env.h"

#include <algorithm>
#include <array>

namespace hw::config {
namespace {

// The apache/kafka image's list of KAFKA_* variables that configure the JVM,
// logging or the image itself rather than the broker.
constexpr std::array<std::string_view, 13> kNotConfig = {
    "KAFKA_VERSION",        "KAFKA_HEAP_OPTS",           "KAFKA_LOG4J_OPTS",
    "KAFKA_OPTS",           "KAFKA_JMX_OPTS",            "KAFKA_JVM_PERFORMANCE_OPTS",
    "KAFKA_GC_LOG_OPTS",    "KAFKA_LOG4J_ROOT_LOGLEVEL", "KAFKA_LOG4J_LOGGERS",
    "KAFKA_TOOLS_LOG4J_LOGLEVEL", "KAFKA_JMX_HOSTNAME",  "KAFKA_DEBUG",
    "KAFKA_HOME",
};

constexpr std::string_view kPrefix = "KAFKA_";

}  // namespace

std::optional<std::string> env_name_to_key(std::string_view name) {
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  if (std::find(kNotConfig.begin(), kNotConfig.end(), name) != kNotConfig.end()) return std::nullopt;
  std::string dotted;
  for (char c : name.substr(kPrefix.size())) {
    if (c == '_') dotted.push_back('.');
    else if (c >= 'A' && c <= 'Z') dotted.push_back(static_cast<char>(c - 'A' + 'a'));
    else dotted.push_back(c);
  }
  std::string key;
  for (size_t i = 0; i < dotted.size();) {
    if (dotted.compare(i, 3, "...") == 0) {
      key.push_back('-');
      i += 3;
    } else if (dotted.compare(i, 2, "..") == 0) {
      key.push_back('_');
      i += 2;
    } else {
      key.push_back(dotted[i++]);
    }
  }
  return key;
}

std::string key_to_env_name(std::string_view key) {
  std::string name(kPrefix);
  for (char c : key) {
    if (c == '.') name += '_';
    else if (c == '_') name += "__";
    else if (c == '-') name += "___";
    else if (c >= 'a' && c <= 'z') name += static_cast<char>(c - 'a' + 'A');
    else name += c;
  }
  return name;
}

std::optional<std::string> java_system_property(std::string_view opts, std::string_view name) {
  const std::string property = "-D" + std::string(name) + "=";
  std::optional<std::string> found;
  while (!opts.empty()) {
    const size_t start = opts.find_first_not_of(" \t\n");
    if (start == std::string_view::npos) break;
    opts.remove_prefix(start);
    const size_t end = std::min(opts.find_first_of(" \t\n"), opts.size());
    std::string_view word = opts.substr(0, end);
    if (word.starts_with(property)) found = std::string(word.substr(property.size()));
    opts.remove_prefix(end);
  }
  return found;
}

std::optional<std::string> jaas_login_config(std::string_view opts) {
  return java_system_property(opts, "java.security.auth.login.config");
}

}  // namespace hw::config
