// kafka-storage.sh format --add-scram: the arguments' parser (storage_scram.h).

#include "tools/commands/storage_scram.h"

#include <map>

#include "tools/commands/get_offsets.h"

namespace hw::tools {
namespace {

using get_offsets::java_parse_int;
using get_offsets::java_split;
using get_offsets::java_trim;

// Base64.getDecoder().decode: the standard alphabet, padding optional but
// well formed when present.
std::optional<std::vector<uint8_t>> java_base64(std::string text) {
  if (text.find('=') == std::string::npos) {
    if (text.size() % 4 == 1) return std::nullopt;
    while (text.size() % 4 != 0) text += '=';
  }
  return protocol::scram::unbase64(text);
}

// A component "key=value": split at the first '=', a value in double
// quotes (two characters or more) unquoted; nothing is trimmed.
bool split_component(const std::string& component, std::string* key, std::string* value, std::string* error) {
  const size_t eq = component.find('=');
  if (eq == std::string::npos) {
    *error = "No equals sign found in SCRAM component: " + component;
    return false;
  }
  *key = component.substr(0, eq);
  *value = component.substr(eq + 1);
  if (value->size() >= 2 && value->front() == '"' && value->back() == '"') *value = value->substr(1, value->size() - 2);
  return true;
}

std::optional<std::string> take(std::map<std::string, std::string>& components, const std::string& key) {
  auto it = components.find(key);
  if (it == components.end()) return std::nullopt;
  std::string v = std::move(it->second);
  components.erase(it);
  return v;
}

// ScramMechanism's enum constant name, which Kafka's range messages show.
std::string enum_name(protocol::scram_mechanism m) {
  return m == protocol::scram_mechanism::sha256 ? "SCRAM_SHA_256" : "SCRAM_SHA_512";
}

std::string java_bytes(const std::vector<uint8_t>& bytes) {
  std::string out = "[";
  for (size_t i = 0; i < bytes.size(); ++i)
    out += (i ? ", " : "") + std::to_string(static_cast<int>(static_cast<int8_t>(bytes[i])));
  return out + "]";
}

}  // namespace

bool parse_scram_argument(std::string_view text, scram_argument* out, std::string* error) {
  const std::string input = java_trim(text);
  const size_t eq = input.find('=');
  if (eq == std::string::npos) {
    *error = "Failed to find equals sign in SCRAM argument '" + input + "'";
    return false;
  }
  const std::string mechanism_name = input.substr(0, eq), config = input.substr(eq + 1);
  auto mechanism = protocol::parse_scram_mechanism(mechanism_name);
  if (!mechanism) {
    *error = "The add-scram mechanism " + mechanism_name + " is not supported.";
    return false;
  }
  if (!config.starts_with("[")) {
    *error = "Expected configuration string to start with [";
    return false;
  }
  if (!config.ends_with("]")) {
    *error = "Expected configuration string to end with ]";
    return false;
  }
  scram_argument arg;
  arg.mechanism = *mechanism;
  std::map<std::string, std::string> components;  // a TreeMap: the last of a key wins, keys sorted
  for (const auto& component : java_split(config.substr(1, config.size() - 2), ',')) {
    std::string key, value;
    if (!split_component(component, &key, &value, error)) return false;
    components[key] = value;
  }
  auto name = take(components, "name");
  if (!name) {
    *error = "You must supply 'name' to add-scram";
    return false;
  }
  arg.name = *name;
  if (auto salt = take(components, "salt")) {
    arg.salt = java_base64(*salt);
    if (!arg.salt) {
      *error = "Failed to decode given salt: " + *salt;
      return false;
    }
  }
  if (auto iterations = take(components, "iterations")) {
    int32_t n = 0;
    if (!java_parse_int(*iterations, &n)) {
      *error = "Failed to parse iterations count: " + *iterations;
      return false;
    }
    arg.iterations = n;
  }
  arg.password = take(components, "password");
  auto salted = take(components, "saltedpassword");
  if (!arg.password) {
    if (!salted) {
      *error = "You must supply one of 'password' or 'saltedpassword' to add-scram";
      return false;
    }
    if (!arg.salt) {
      *error = "You must supply 'salt' with 'saltedpassword' to add-scram";
      return false;
    }
    arg.salted_password = java_base64(*salted);
    if (!arg.salted_password) {
      // Kafka quotes the value here; a salted password is a secret.
      *error = "Failed to decode given saltedPassword";
      return false;
    }
  }
  if (!components.empty()) {
    *error = "Unknown SCRAM configurations: ";
    for (auto it = components.begin(); it != components.end(); ++it)
      *error += (it == components.begin() ? "" : ", ") + it->first;
    return false;
  }
  *out = std::move(arg);
  return true;
}

bool scram_argument_record(const scram_argument& arg, protocol::msg::user_scram_credential_record* out,
                           std::string* error) {
  const std::vector<uint8_t> salt = arg.salt ? *arg.salt : protocol::scram::random_salt();
  const int32_t iterations = arg.iterations.value_or(protocol::scram_min_iterations);
  if (iterations < protocol::scram_min_iterations || iterations > protocol::scram_max_iterations) {
    const bool low = iterations < protocol::scram_min_iterations;
    *error = std::string("The 'iterations' value must be ") + (low ? ">= " : "<= ") +
             std::to_string(low ? protocol::scram_min_iterations : protocol::scram_max_iterations) +
             " for add-scram using " + enum_name(arg.mechanism);
    return false;
  }
  const protocol::scram_credential c =
      arg.salted_password ? protocol::scram::credential_from_salted(arg.mechanism, *arg.salted_password, salt, iterations)
                          : protocol::scram::make_credential(arg.mechanism, *arg.password, salt, iterations);
  out->name = arg.name;
  out->mechanism = protocol::scram_mechanism_type(arg.mechanism);
  out->salt = c.salt;
  out->stored_key = c.stored_key;
  out->server_key = c.server_key;
  out->iterations = c.iterations;
  return true;
}

bool scram_records(const std::vector<std::string>& arguments,
                   std::vector<protocol::msg::user_scram_credential_record>* out, std::string* error) {
  for (const auto& text : arguments) {
    scram_argument arg;
    protocol::msg::user_scram_credential_record record;
    if (!parse_scram_argument(text, &arg, error) || !scram_argument_record(arg, &record, error)) return false;
    out->push_back(std::move(record));
  }
  return true;
}

std::string scram_record_string(const protocol::msg::user_scram_credential_record& r) {
  return "UserScramCredentialRecord(name='" + r.name + "', mechanism=" + std::to_string(r.mechanism) +
         ", salt=" + java_bytes(r.salt) + ", storedKey=[redacted], serverKey=[redacted], iterations=" +
         std::to_string(r.iterations) + ")";
}

}  // namespace hw::tools
