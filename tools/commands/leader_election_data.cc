// --path-to-json-file: {"partitions": [{"topic": "foo", "partition": 1}, ...]}
// read with Kafka's rules and failing with Kafka's exceptions: text Jackson
// cannot read is "empty", a node of the wrong kind is a JsonMappingException
// (wrapped in a RuntimeException) naming it, a partition listed twice is
// refused with the duplicates named.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tools/commands/java.h"
#include "tools/commands/leader_election.h"

namespace hw::tools::election {
namespace {

const char* const k_operation_exception = "org.apache.kafka.tools.AdminOperationException";

// A JsonMappingException as Kafka's tool rethrows it.
bool mapping_error(const std::string& message, failure* error) {
  *error = {"java.lang.RuntimeException", "com.fasterxml.jackson.databind.JsonMappingException: " + message};
  return false;
}

bool expect_object(const json::value& v, failure* error) {
  if (v.is_object()) return true;
  return mapping_error("Expected JSON object, received " + json::to_string(v), error);
}

// JsonObject.apply(name): the member (a JSON null counts as present).
bool field(const json::value& object, const char* name, const json::value** out, failure* error) {
  const auto it = object.find(name);
  if (it != object.end()) {
    *out = &*it;
    return true;
  }
  return mapping_error(std::string("No such field exists: `") + name + "`", error);
}

// Jackson's IntNode: an integer within int32's range.
bool is_int32(const json::value& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= INT32_MAX;
  return v.is_number_integer() && v.get<int64_t>() >= INT32_MIN && v.get<int64_t>() <= INT32_MAX;
}

bool topic_partition_of(const json::value& item, topic_partition* out, failure* error) {
  const json::value* topic = nullptr;
  const json::value* partition = nullptr;
  if (!expect_object(item, error) || !field(item, "topic", &topic, error)) return false;
  if (!topic->is_string()) return mapping_error("Expected `String` value, received " + json::to_string(*topic), error);
  if (!field(item, "partition", &partition, error)) return false;
  if (!is_int32(*partition))
    return mapping_error("Expected `Integer` value, received " + json::to_string(*partition), error);
  *out = {topic->get<std::string>(), partition->get<int32_t>()};
  return true;
}

// The partitions listed more than once, in order of first appearance.
std::vector<topic_partition> duplicates(const std::vector<topic_partition>& listed) {
  std::map<std::pair<std::string, int32_t>, int> seen;
  for (const auto& tp : listed) ++seen[{tp.topic, tp.partition}];
  std::vector<topic_partition> out;
  for (const auto& tp : listed) {
    int& count = seen[{tp.topic, tp.partition}];
    if (count > 1) out.push_back(tp);
    if (count > 1) count = 0;  // named once
  }
  return out;
}

// As Collectors.toSet() prints them: "[a-0, b-1]".
std::string set_text(const std::vector<topic_partition>& distinct) {
  std::string text = "[";
  for (const auto& tp : hash_set_order(distinct)) text += (text.size() > 1 ? ", " : "") + tp.str();
  return text + "]";
}

}  // namespace

bool parse_election_data(std::string_view content, std::vector<topic_partition>* out, failure* error) {
  json::value root;
  // Json.parseFull: empty text and text Jackson rejects are both "no data".
  if (content.empty() || !json::read_tree(content, &root)) {
    *error = {k_operation_exception, "Replica election data is empty"};
    return false;
  }
  if (!expect_object(root, error)) return false;
  const auto list = root.find("partitions");
  if (list == root.end()) {
    *error = {k_operation_exception, "Replica election data is missing \"partitions\" field"};
    return false;
  }
  if (!list->is_array())
    return mapping_error("Expected JSON array, received " + json::to_string(*list), error);
  std::vector<topic_partition> listed;
  for (const auto& item : *list) {
    topic_partition tp;
    if (!topic_partition_of(item, &tp, error)) return false;
    listed.push_back(std::move(tp));
  }
  if (auto repeated = duplicates(listed); !repeated.empty()) {
    *error = {k_operation_exception, "Replica election data contains duplicate partitions: " + set_text(repeated)};
    return false;
  }
  // new HashSet<>(list): sized for the list, then filled in its order.
  const auto capacity = std::max(static_cast<int32_t>(static_cast<float>(listed.size()) / 0.75f) + 1, 16);
  *out = hash_set_order(listed, capacity);
  return true;
}

bool read_election_data(const std::string& path, std::vector<topic_partition>* out, failure* error) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) {
    *error = {"java.lang.RuntimeException", "java.io.IOException: Unable to read file " + path};
    return false;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  // new String(bytes, UTF_8): malformed bytes become U+FFFD.
  return parse_election_data(java::utf8(java::utf16(bytes.str())), out, error);
}

}  // namespace hw::tools::election
