#pragma once
// The broker's validated options. Built once at start-up by load_broker_config
// and then read-only: pass it (or the parts a component needs) by const
// reference; there is no global accessor.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_key.h"
#include "config/listeners.h"
#include "config/properties.h"

namespace hw::config {

struct broker_config {
  // Identity and roles.
  int32_t node_id = 1;
  std::vector<std::string> process_roles;

  // Listeners: listeners as bound; advertised = advertised.listeners, or the
  // non-controller listeners when unset.
  std::vector<listener_endpoint> listeners;
  std::vector<listener_endpoint> advertised_listeners;
  protocol_map listener_security_protocols;
  std::vector<std::string> controller_listener_names;
  // Listeners that serve before the broker has caught up with the metadata
  // (and loaded its ACLs): early.start.listeners, else the controller's.
  std::vector<std::string> early_start_listeners;
  std::string inter_broker_listener_name;
  std::vector<std::string> controller_quorum_voters;
  std::vector<std::string> controller_quorum_bootstrap_servers;

  // Storage: log.dirs, or log.dir when unset; metadata dir defaults to the first.
  std::vector<std::string> log_dirs;
  std::string metadata_log_dir;

  // Network.
  int32_t num_io_threads = 1;
  int32_t num_network_threads = 3;
  int32_t socket_request_max_bytes = 0;
  int32_t socket_send_buffer_bytes = 0;
  int32_t socket_receive_buffer_bytes = 0;
  int32_t socket_listen_backlog_size = 0;
  int64_t connections_max_idle_ms = 0;
  int32_t queued_max_requests = 0;
  int32_t max_connections = 0;
  int32_t connection_max_inflight_requests = 0;  // highwater.connection.max.inflight.requests

  // Topics and logs.
  int32_t message_max_bytes = 0;
  bool auto_create_topics_enable = true;
  int32_t num_partitions = 1;
  int32_t default_replication_factor = 1;
  int32_t min_insync_replicas = 1;
  int32_t offsets_topic_num_partitions = 0;
  int16_t offsets_topic_replication_factor = 0;
  int32_t transaction_state_log_num_partitions = 0;
  int32_t log_segment_bytes = 0;
  int64_t log_retention_ms = 0;  // resolved from ms/minutes/hours; -1 = forever
  int64_t log_flush_interval_messages = 0;
  int64_t log_flush_interval_ms = 0;  // resolved; defaults to the scheduler interval
  int32_t group_initial_rebalance_delay_ms = 0;
  bool unclean_leader_election_enable = false;

  // Every known key's typed value (defaults included), and the keys given
  // explicitly by some source.
  std::map<std::string, config_value, std::less<>> values;
  std::map<std::string, std::string, std::less<>> explicitly_set;  // key -> where from
  // Kafka's per-listener overrides, `listener.name.<listener>.<key>` (the
  // listener in lower case; SASL keys may name a mechanism too:
  // `listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config`), as given.
  // Read through config/listener_security.h. Values may be secrets: never
  // log them.
  std::map<std::string, std::string, std::less<>> listener_prefixed;
  // The JAAS file named by -Djava.security.auth.login.config= in KAFKA_OPTS
  // (as Kafka's start scripts pass it to the JVM).
  std::optional<std::string> jaas_file;
  // The URLs and files OAUTHBEARER may read (a JWKS, a token endpoint), as
  // -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls= and .allowed.files=
  // in KAFKA_OPTS name them (comma-separated); none allowed when unset, as
  // in Kafka.
  std::optional<std::string> oauthbearer_allowed_urls;
  std::optional<std::string> oauthbearer_allowed_files;
  // The JVM's default trust store (-Djavax.net.ssl.trustStore=,
  // .trustStorePassword=, .trustStoreType= in KAFKA_OPTS): what the broker
  // trusts on https connections to an identity provider when the login
  // module's options name no trust store. Holds a password.
  std::optional<std::string> jvm_truststore;
  std::optional<std::string> jvm_truststore_password;
  std::optional<std::string> jvm_truststore_type;

  bool has_role(std::string_view role) const;
  bool is_set(std::string_view key) const { return explicitly_set.count(key) != 0; }
  // Typed reads of any known key; asserts the key is known and has that type.
  int64_t get_int(std::string_view key) const;  // int16, int32 and int64 keys
  bool get_bool(std::string_view key) const;
  double get_double(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;  // "" for null
  const std::vector<std::string>& get_list(std::string_view key) const;
  bool is_null(std::string_view key) const;
};

// A configuration source entry: the key, its text, and where it came from
// ("server.properties:12", "environment variable KAFKA_NODE_ID", "--override").
struct config_entry {
  std::string key;
  std::string value;
  std::string origin;
};

struct load_result {
  std::optional<broker_config> config;  // set when there are no errors
  std::vector<std::string> warnings;    // unknown keys and the like; the caller logs them
  std::vector<std::string> errors;      // each names the key, the value and the rule
};

// Validates entries (later entries win) against the key table and builds the
// typed configuration.
load_result build_broker_config(std::span<const config_entry> entries);

struct config_sources {
  std::optional<std::string> properties_path;  // read and parsed when set
  std::vector<std::string> environment;        // "NAME=value", e.g. copied from environ
  std::vector<std::string> overrides;          // "key=value", from --override
};

// Defaults, then the properties file, then KAFKA_* variables, then overrides.
load_result load_broker_config(const config_sources& sources);

}  // namespace hw::config
