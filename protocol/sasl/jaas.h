#pragma once
// JAAS login configuration, as Kafka reads it: the value of a
// `sasl.jaas.config` key (one or more "<LoginModule> <flag> key=value ...;"
// entries) and a JAAS file named by -Djava.security.auth.login.config
// (sections "Name { entries };", of which a broker reads KafkaServer and a
// client KafkaClient). The tokens are Java's StreamTokenizer's as Kafka
// configures it: words of letters, digits, '.', '-', '_' and '$'; values
// quoted with " or ' (backslash escapes), or bare words; // and /* */
// comments. A malformed value is refused with Kafka's message. A file is
// read as the JDK reads it (ConfigFile: the same tokens, values in double
// quotes only), with the JDK's messages.
//
// What a broker takes from it (and a client, the tools: username/password): PlainLoginModule's `user_<name>` passwords
// (the users PLAIN authenticates) and `username`/`password` (what the broker
// itself logs in with), ScramLoginModule's `username`/`password`.
//
// Pure; the parsed form holds secrets: never log it.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hw::protocol {

struct jaas_entry {
  std::string login_module;  // e.g. org.apache.kafka.common.security.plain.PlainLoginModule
  std::string flag;          // required, requisite, sufficient, optional (lower case)
  std::map<std::string, std::string> options;
};

struct jaas_parse_result {
  std::vector<jaas_entry> entries;
  std::string error;  // Kafka's message; empty when parsed
  bool ok() const { return error.empty(); }
};

// A `sasl.jaas.config` value.
jaas_parse_result parse_jaas_config(std::string_view text);

// A JAAS file: its sections by name, each a list of entries; error is the
// message of the JDK's IOException ("Configuration Error:\n\tLine 3:
// expected [option key]"), as Kafka's tools and broker print it.
struct jaas_file {
  std::map<std::string, std::vector<jaas_entry>> sections;
  std::string error;
  bool ok() const { return error.empty(); }
};
jaas_file parse_jaas_file(std::string_view text);

// The file a -Djava.security.auth.login.config value names (a leading '='
// is the JDK's "only this file" form), read and parsed; a file that cannot
// be read gives the JDK's "<path> (No such file or directory)".
jaas_file read_jaas_file(const std::string& property);

// PlainLoginModule's user_<name> options: name → password.
std::map<std::string, std::string> plain_users(const std::vector<jaas_entry>& entries);

}  // namespace hw::protocol
