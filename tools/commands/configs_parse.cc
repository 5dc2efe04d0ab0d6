// kafka-configs.sh: the pure parts (configs.h): checkArgs' entity rules,
// --add-config's syntax, topic names, and the orders Scala's collections
// print in.

#include <netdb.h>

#include <algorithm>
#include <functional>
#include <map>

#include "tools/commands/configs.h"
#include "tools/commands/java.h"

namespace hw::tools::configs {
namespace {

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The entity types a --bootstrap-server or --bootstrap-controller run
// accepts, in the order Kafka lists them.
const std::vector<std::string>& supported_types() {
  static const std::vector<std::string> types = {std::string(topics),         std::string(clients),
                                                 std::string(users),          std::string(brokers),
                                                 std::string(ips),            std::string(client_metrics),
                                                 std::string(groups),         std::string(broker_loggers)};
  return types;
}

// Scala's List.diff: each element of `b` removes one occurrence from `a`.
std::vector<std::string> multiset_diff(std::vector<std::string> a, const std::vector<std::string>& b) {
  for (const auto& x : b) {
    auto it = std::find(a.begin(), a.end(), x);
    if (it != a.end()) a.erase(it);
  }
  return a;
}

std::vector<std::string> distinct(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const auto& x : v)
    if (!contains(out, x)) out.push_back(x);
  return out;
}

std::string multiple_entity_names() {
  return "Found multiple arguments for option entity-name, but you asked for only one";
}

std::optional<failure> check_broker_ids(const command_line& c) {
  if (c.entity_name_values.size() > 1) return plain(multiple_entity_names());
  std::vector<std::string> ids = c.entity_name_values.empty()
                                      ? std::vector<std::string>{}
                                      : std::vector<std::string>{c.entity_name_values.front()};
  if (c.broker) ids.push_back(*c.broker);
  if (c.broker_logger) ids.push_back(*c.broker_logger);
  for (const auto& id : ids)
    if (!java_int(id))
      return plain("The entity name for " + c.entity_types.front() +
                   " must be a valid integer broker id, but it is: " + id);
  return std::nullopt;
}

std::optional<failure> check_ips(const command_line& c) {
  if (c.entity_name_values.size() > 1) return plain(multiple_entity_names());
  std::vector<std::string> values = c.entity_name_values.empty()
                                        ? std::vector<std::string>{}
                                        : std::vector<std::string>{c.entity_name_values.front()};
  if (c.ip) values.push_back(*c.ip);
  for (const auto& ip : values)
    if (!valid_ip_entity(ip))
      return plain("The entity name for " + c.entity_types.front() +
                   " must be a valid IP or resolvable host, but it is: " + ip);
  return std::nullopt;
}

std::optional<failure> check_action_rules(const command_line& c, bool has_name, bool has_default) {
  const auto& types = c.entity_types;
  const bool defaults_allowed =
      contains(types, users) || contains(types, clients) || contains(types, brokers) || contains(types, ips);
  if (c.describe) {
    if (!defaults_allowed && c.has_entity_default)
      return plain("--entity-default must not be specified with --describe of " + join(types, ","));
    if (contains(types, broker_loggers) && !has_name)
      return plain("An entity name must be specified with --describe of " + join(types, ","));
  }
  if (c.alter) {
    if (defaults_allowed) {
      if (!has_name && !has_default)
        return plain("An entity-name or default entity must be specified with --alter of users, clients, brokers or ips");
    } else if (!has_name) {
      return plain("An entity name must be specified with --alter of " + join(types, ","));
    }
    if (c.add_config && c.add_config_file) return plain("Only one of --add-config or --add-config-file must be specified");
    if (!c.add_config && !c.add_config_file && !c.has_delete_config)
      return plain("At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter");
  }
  return std::nullopt;
}

// scala.collection.Hashing.improve, which Scala's immutable HashSet and
// HashMap apply to an element's ## (a String's hashCode).
uint32_t scala_improve(int32_t hcode) {
  auto h = static_cast<uint32_t>(hcode);
  h = h + ~(h << 9);
  h ^= h >> 14;
  h += h << 4;
  h ^= h >> 10;
  return h;
}

// A CHAMP node's iteration: its own entries (by their 5 hash bits), then
// its sub-nodes (by theirs), each sub-node the same way one level down.
void champ_order(const std::vector<std::pair<uint32_t, const std::string*>>& items, int shift,
                 std::vector<std::string>* out) {
  if (shift >= 32) {  // equal hashes: a collision node keeps insertion order
    for (const auto& [h, s] : items) out->push_back(*s);
    return;
  }
  std::map<uint32_t, std::vector<std::pair<uint32_t, const std::string*>>> by_mask;
  for (const auto& item : items) by_mask[(item.first >> shift) & 31].push_back(item);
  for (const auto& [mask, group] : by_mask)
    if (group.size() == 1) out->push_back(*group.front().second);
  for (const auto& [mask, group] : by_mask)
    if (group.size() > 1) champ_order(group, shift + 5, out);
}

}  // namespace

failure plain(std::string message) { return {failure::kind::message, std::move(message), {}}; }

failure execution(const std::string& cause) {
  return {failure::kind::executing, "", {"java.util.concurrent.ExecutionException: " + cause, "Caused by: " + cause}};
}

failure thrown(std::string exception) { return {failure::kind::executing, "", {std::move(exception)}}; }

std::string kafka_exception(int16_t code, const std::optional<std::string>& broker_message) {
  return java_exception_class(code) + ": " + (broker_message ? *broker_message : error_message(code));
}

std::vector<std::string> names_in_order(const std::vector<std::string>& args,
                                        const std::vector<std::string>& options_with_values) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    const bool inline_value = name.find('=') != std::string::npos;
    name = name.substr(0, name.find('='));
    if (name == "entity-name" || name == "entity-default") out.push_back(name);
    if (!inline_value && contains(options_with_values, name)) ++i;
  }
  return out;
}

std::optional<failure> check_entities(const command_line& c) {
  const auto& types = c.entity_types;
  if (auto d = distinct(types); d.size() != types.size())
    return plain("Duplicate entity type(s) specified: " + join(multiset_diff(types, d), ","));
  if (!c.bootstrap_server && !c.bootstrap_controller)
    return plain("Either --bootstrap-server or --bootstrap-controller must be specified.");
  for (const auto& t : types)
    if (!contains(supported_types(), t))
      return plain("Invalid entity type " + t + ", the entity type must be one of " + join(supported_types(), ", ") +
                   " with a --bootstrap-server or --bootstrap-controller argument");
  if (types.empty()) return plain("At least one entity type must be specified");
  if (types.size() > 1 && !(distinct(types).size() == 2 && contains(types, users) && contains(types, clients)))
    return plain("Only 'users' and 'clients' entity types may be specified together");
  if ((c.has_entity_name || c.has_entity_type || c.has_entity_default) && c.has_entity_flag)
    return plain("--entity-{type,name,default} should not be used in conjunction with specific entity flags");
  if (c.names_error) return plain(*c.names_error);
  const bool has_name = std::any_of(c.entity_names.begin(), c.entity_names.end(), [](auto& n) { return !n.empty(); });
  const bool has_default = std::any_of(c.entity_names.begin(), c.entity_names.end(), [](auto& n) { return n.empty(); });
  if (c.bootstrap_server && c.bootstrap_controller)
    return plain("Only one of --bootstrap-server or --bootstrap-controller can be specified");
  if (has_name && (contains(types, brokers) || contains(types, broker_loggers)))
    if (auto f = check_broker_ids(c)) return f;
  if (has_name && contains(types, ips))
    if (auto f = check_ips(c)) return f;
  return check_action_rules(c, has_name, has_default);
}

std::vector<std::string> separated_values(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= value.size(); ++i) {
    if (i < value.size() && value[i] != ',') continue;
    if (i > start) out.push_back(value.substr(start, i - start));
    start = i + 1;
  }
  if (out.empty()) out.push_back(value);
  return out;
}

bool valid_ip_entity(const std::string& ip) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  // InetAddress.getByName: a literal address, or a name the resolver knows
  // ("" is the loopback address).
  if (ip.empty()) return true;
  const int rc = getaddrinfo(ip.c_str(), nullptr, &hints, &found);
  if (found) freeaddrinfo(found);
  return rc == 0;
}

std::string invalid_topic_name(const std::string& name) {
  const std::string prefix = "Topic name is invalid: ";
  if (name.empty()) return prefix + "the empty string is not allowed";
  if (name == ".") return prefix + "'.' is not allowed";
  if (name == "..") return prefix + "'..' is not allowed";
  if (java::length(name) > 249)
    return prefix + "the length of '" + name + "' is longer than the max allowed length 249";
  const bool legal = std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
  });
  if (!legal)
    return prefix + "'" + name + "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'";
  return "";
}

bool java_int(std::string_view text, int32_t* out) {
  if (text.empty()) return false;
  size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size()) return false;
  int64_t value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
    if (value > int64_t{INT32_MAX} + 1) return false;
  }
  if (text[0] == '-') value = -value;
  if (value > INT32_MAX || value < INT32_MIN) return false;
  if (out) *out = static_cast<int32_t>(value);
  return true;
}

std::string java_trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && static_cast<unsigned char>(text[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(text[e - 1]) <= ' ') --e;
  return std::string(text.substr(b, e - b));
}

std::vector<std::string> scala_hash_order(const std::vector<std::string>& items) {
  if (items.size() <= 4) return items;
  std::vector<std::pair<uint32_t, const std::string*>> hashed;
  for (const auto& s : items) hashed.emplace_back(scala_improve(java::string_hash(s)), &s);
  std::vector<std::string> out;
  champ_order(hashed, 0, &out);
  return out;
}

std::vector<std::string> scala_map_keys(const properties& props) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : props) keys.push_back(k);
  // A java Properties iterates its keys in hash order (a table of 16 to start).
  return scala_hash_order(java::hash_map_order(keys, 16));
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string scala_string(std::string_view prefix, const std::vector<std::string>& items) {
  return std::string(prefix) + "(" + join(items, ", ") + ")";
}

}  // namespace hw::tools::configs
