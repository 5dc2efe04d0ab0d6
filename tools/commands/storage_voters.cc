#include "tools/commands/storage_voters.h"

#include <algorithm>
#include <set>

#include "protocol/messages/kraft_control_records.h"
#include "protocol/wire/writer.h"
#include "storage/snapshot_batches.h"
#include "tools/commands/kafka_topics.h"

namespace hw::tools {
namespace {

// String.trim: every character up to ' ' counts as space.
std::string_view trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

bool fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

// DynamicVoter.parse, step by step as Kafka's.
bool parse_voter(std::string_view input, dynamic_voter* out, std::string* error) {
  input = trim(input);
  const size_t at = input.find('@');
  if (at == std::string_view::npos) return fail(error, "No @ found in dynamic voter string.");
  if (at == 0) return fail(error, "Invalid @ at beginning of dynamic voter string.");
  auto id = topics::java_parse_int(input.substr(0, at));
  if (!id) return fail(error, "Failed to parse node id in dynamic voter string.");
  if (*id < 0) return fail(error, "Invalid negative node id " + std::to_string(*id) + " in dynamic voter string.");
  input = input.substr(at + 1);
  if (input.empty()) return fail(error, "No hostname found after node id.");
  std::string_view host;
  if (input.front() == '[') {
    const size_t end = input.find(']');
    if (end == std::string_view::npos)
      return fail(error, "Hostname began with left bracket, but no right bracket was found.");
    host = input.substr(1, end - 1);
    input = input.substr(end + 1);
  } else {
    const size_t colon = input.find(':');
    if (colon == std::string_view::npos) return fail(error, "No colon following hostname could be found.");
    host = input.substr(0, colon);
    input = input.substr(colon);
  }
  if (input.empty() || input.front() != ':') return fail(error, "Port section must start with a colon.");
  input = input.substr(1);
  const size_t colon = input.find(':');
  if (colon == std::string_view::npos) return fail(error, "No colon following port could be found.");
  auto port = topics::java_parse_int(input.substr(0, colon));
  if (!port) return fail(error, "Failed to parse port in dynamic voter string.");
  if (*port < 0 || *port > 65535) return fail(error, "Invalid port " + std::to_string(*port) + " in dynamic voter string.");
  std::string why;
  if (!topics::java_uuid_from_string(input.substr(colon + 1), &out->directory_id, &why))
    return fail(error, "Failed to parse directory ID in dynamic voter string.");
  out->id = *id;
  out->host = std::string(host);
  out->port = static_cast<uint16_t>(*port);
  return true;
}

template <class Message>
std::vector<uint8_t> value_of(const Message& m) {
  std::vector<uint8_t> out;
  protocol::writer w(out);
  m.encode(w, 0);
  return out;
}

}  // namespace

bool parse_dynamic_voters(std::string_view input, std::vector<dynamic_voter>* out, std::string* error) {
  input = trim(input);
  out->clear();
  // String.split(","): trailing empty strings dropped, empty ones skipped.
  size_t start = 0;
  while (start <= input.size()) {
    const size_t comma = input.find(',', start);
    const std::string_view part = input.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!part.empty()) {
      dynamic_voter v;
      if (!parse_voter(part, &v, error)) return false;
      out->push_back(std::move(v));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out->empty()) return fail(error, "No voters given.");
  std::set<int32_t> ids;
  for (const auto& v : *out)
    if (!ids.insert(v.id).second) return fail(error, "Node id " + std::to_string(v.id) + " was specified more than once.");
  return true;
}

std::vector<uint8_t> bootstrap_snapshot_bytes(const std::vector<dynamic_voter>& voters, const std::string& listener,
                                              int64_t write_time_ms) {
  protocol::msg::voters_record record;
  record.version = 0;
  std::vector<dynamic_voter> sorted = voters;  // by id, as Kafka's voter map
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const auto& v : sorted) {
    protocol::msg::voters_record::voter out;
    out.voter_id = v.id;
    out.voter_directory_id = v.directory_id;
    protocol::msg::voters_record::endpoint e;
    e.name = listener;
    e.host = v.host;
    e.port = v.port;
    out.endpoints.push_back(std::move(e));
    out.k_raft_version_feature.min_supported_version = 0;
    out.k_raft_version_feature.max_supported_version = 1;
    record.voters.push_back(std::move(out));
  }
  storage::snapshot_write_options o;
  o.last_contained_log_timestamp_ms = write_time_ms;
  o.write_time_ms = write_time_ms;
  o.voters_record = value_of(record);
  return storage::encode_snapshot_batches(0, {}, o);
}

}  // namespace hw::tools
