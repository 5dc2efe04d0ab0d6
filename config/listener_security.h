#pragma once
// What a listener's security keys resolve to, as Kafka resolves them
// (KafkaConfig.valuesWithPrefixOverride, JaasContext.loadServerContext): a
// `listener.name.<listener>.<key>` entry (the listener name in lower case)
// wins over the broker-wide `<key>`; a SASL mechanism's JAAS configuration
// is read only from `listener.name.<listener>.<mechanism>.sasl.jaas.config`
// (mechanism in lower case) or, when that is unset, from the JAAS file's
// `<listener>.KafkaServer` or `KafkaServer` section.
//
// Pure. The JAAS values are secrets: never log them, and no error message
// here quotes one.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/broker_config.h"

namespace hw::config {

struct listener_security {
  std::string listener;  // upper case, as in `listeners`
  std::string protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
  std::vector<std::string> sasl_enabled_mechanisms;
  // listener.name.<l>.<mechanism>.sasl.jaas.config for the enabled
  // mechanisms that set one, by mechanism as enabled (upper case).
  std::map<std::string, std::string> sasl_jaas_config;
  int32_t sasl_server_max_receive_size = 524288;
  int32_t failed_authentication_delay_ms = 100;
};

// The listener-prefixed text of key for listener, when set.
std::optional<std::string> listener_override(const broker_config& c, std::string_view listener, std::string_view key);

// The resolved security keys of one listener; an error names the key (never
// a value that may be secret).
std::variant<listener_security, std::string> resolve_listener_security(const broker_config& c,
                                                                       const listener_endpoint& listener);

}  // namespace hw::config
