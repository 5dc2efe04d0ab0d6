// kafka-dump-log.sh: what a record prints as. Without a decoder its key and
// value as UTF-8 text (Kafka's StringDecoder); --cluster-metadata-decoder
// frames a metadata record and prints it as Kafka's JSON; --offsets-decoder
// and --transaction-log-decoder print coordinator records as {"type",
// "data"} keys and {"version", "data"} values. Control records of KRaft are
// printed as JSON too. What this schema cannot show as Kafka would (record
// types or tagged fields newer than it) fails the run by name. Coordinator
// records are read with Kafka 4.3's own definitions (dump_log_schema/).

#include "protocol/json/json_out.h"
#include "protocol/kafka43/json.h"
#include "protocol/messages/json/json.h"
#include "protocol/records/control_record.h"
#include "tools/commands/dump_log.h"

namespace hw::tools::dump_log {
namespace {

namespace json = protocol::json;
namespace msg = protocol::msg;
namespace k43 = protocol::kafka43;

std::string text_of(protocol::bytes_view b) {
  return json::java_utf8({reinterpret_cast<const char*>(b.data()), b.size()});
}

template <typename T>
std::optional<std::string> json_of(const T& m, int16_t version, const char* what) {
  json::json_out out;
  json::write_json(m, version, out);
  if (!out.complete())
    throw unsupported_input(std::string(what) + " carries fields this native tool does not know");
  return out.text();
}

// --- cluster metadata ----------------------------------------------------

std::string metadata_text(const protocol::record_view& record) {
  const std::string prefix = "Error at " + std::to_string(record.offset) + ", skipping. ";
  if (!record.value) return prefix + "null";
  protocol::reader r(*record.value);
  auto unsigned_short = [&](const char* entity, int32_t* out) -> std::optional<std::string> {
    const uint32_t v = r.read_uvarint();
    if (!r.ok()) return std::string("Error while reading ") + entity;
    if (v > 32767) return std::string("Value for ") + entity + " was too large.";
    *out = static_cast<int32_t>(v);
    return std::nullopt;
  };
  int32_t frame = 0, key = 0, version = 0;
  if (auto e = unsigned_short("frame version", &frame)) return prefix + *e;
  if (frame == 0)
    return prefix +
           "Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release "
           "of KRaft in 2.8 to newer versions are not supported.";
  if (frame != 1)
    return prefix + "Could not deserialize metadata record due to unknown frame version " + std::to_string(frame) +
           "(only frame version 1 is supported)";
  if (auto e = unsigned_short("type", &key)) return prefix + *e;
  if (auto e = unsigned_short("version", &version)) return prefix + *e;
  const char* type = json::metadata_record_type_name(static_cast<int16_t>(key));
  // The schema holds every metadata record of Kafka 4.3: a key it lacks is unknown to Kafka too.
  if (!type) {
    return prefix + "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id " +
           std::to_string(key);
  }
  json::json_out data;
  std::string why;
  if (!json::metadata_record_json(static_cast<int16_t>(key), static_cast<int16_t>(version), r, data, &why)) {
    if (why == "trailing bytes")
      return prefix + "Found " + std::to_string(r.remaining()) + " byte(s) of garbage after " + std::to_string(key);
    return prefix + "Failed to deserialize record with type " + std::to_string(key);
  }
  if (!data.complete())
    throw unsupported_input(std::string(type) + " at offset " + std::to_string(record.offset) +
                            " carries fields this native tool does not know");
  return "{\"type\":\"" + std::string(type) + "\",\"version\":" + std::to_string(version) + ",\"data\":" +
         data.text() + "}";
}

// --- coordinator records -------------------------------------------------

struct coordinator_text {
  std::string key;
  std::optional<std::string> value;
};

// GroupMetadataValue with the consumer protocol's subscription and
// assignment bytes shown decoded, as Kafka's tool shows them.
bool consumer_protocol_json(std::string_view field, const std::vector<uint8_t>& bytes, json::json_out& out) {
  protocol::reader r({bytes.data(), bytes.size()});
  const int16_t version = r.read_int16();
  if (!r.ok() || version < 0 || version > 3) return false;
  if (field == "subscription") {
    k43::consumer_protocol_subscription s;
    s.decode(r, version);
    if (!r.ok()) return false;
    k43::write_json(s, version, out);
    return true;
  }
  if (field == "assignment") {
    k43::consumer_protocol_assignment a;
    a.decode(r, version);
    if (!r.ok()) return false;
    k43::write_json(a, version, out);
    return true;
  }
  return false;
}

template <typename T>
std::string record_json(const T& m, int16_t version) {
  json::json_out out;
  if constexpr (std::is_same_v<T, k43::group_metadata_value>) {
    if (m.protocol_type == "consumer") out.bytes_hook = consumer_protocol_json;
  }
  k43::write_json(m, version, out);
  if (!out.complete())
    throw unsupported_input(std::string(T::schema.name) + " carries fields Kafka 4.3 does not know");
  return out.text();
}

// Decodes key and value of a record of this type (the key's version);
// false with Kafka's reason when one does not read.
template <typename Key, typename Value>
bool coordinator_record(int16_t type, protocol::reader& key_reader, const std::optional<protocol::bytes_view>& value,
                        coordinator_text* out, std::string* why) {
  Key k;
  k.decode(key_reader, 0);
  if (!key_reader.ok()) {
    *why = "Could not read record with version " + std::to_string(type) + " from key's buffer due to: " +
           key_reader.error() + ".";
    return false;
  }
  out->key = "{\"type\":\"" + std::to_string(type) + "\",\"data\":" + record_json(k, 0) + "}";
  if (!value) return true;
  protocol::reader vr(*value);
  const int16_t version = vr.read_int16();
  if (!vr.ok()) {
    *why = "Could not read version from value's buffer.";
    return false;
  }
  if (version < Value::schema.min_version || version > Value::schema.max_version)
    throw unsupported_input("Version " + std::to_string(version) + " of " + Value::schema.name +
                            " is not supported by the native tool");
  Value v;
  v.decode(vr, version);
  if (!vr.ok()) {
    *why = "Could not read record with version " + std::to_string(version) + " from value's buffer due to: " +
           vr.error() + ".";
    return false;
  }
  out->value = "{\"version\":\"" + std::to_string(version) + "\",\"data\":" + record_json(v, version) + "}";
  return true;
}

#define HW_RECORD(n, name) \
  case n: return coordinator_record<k43::name##_key, k43::name##_value>(type, r, value, out, why)

// The record types of Kafka 4.3's group coordinator, by the key's version.
bool group_record(int16_t type, protocol::reader& r, const std::optional<protocol::bytes_view>& value,
                  coordinator_text* out, std::string* why, bool* known) {
  *known = true;
  switch (type) {
    HW_RECORD(0, legacy_offset_commit);
    HW_RECORD(1, offset_commit);
    HW_RECORD(2, group_metadata);
    HW_RECORD(3, consumer_group_metadata);
    HW_RECORD(4, consumer_group_partition_metadata);
    HW_RECORD(5, consumer_group_member_metadata);
    HW_RECORD(6, consumer_group_target_assignment_metadata);
    HW_RECORD(7, consumer_group_target_assignment_member);
    HW_RECORD(8, consumer_group_current_member_assignment);
    HW_RECORD(10, share_group_member_metadata);
    HW_RECORD(11, share_group_metadata);
    HW_RECORD(12, share_group_target_assignment_metadata);
    HW_RECORD(13, share_group_target_assignment_member);
    HW_RECORD(14, share_group_current_member_assignment);
    HW_RECORD(15, share_group_state_partition_metadata);
    HW_RECORD(16, consumer_group_regular_expression);
    HW_RECORD(17, streams_group_metadata);
    HW_RECORD(19, streams_group_member_metadata);
    HW_RECORD(20, streams_group_target_assignment_metadata);
    HW_RECORD(21, streams_group_target_assignment_member);
    HW_RECORD(22, streams_group_current_member_assignment);
    HW_RECORD(23, streams_group_topology);
    default:
      *known = false;
      return false;
  }
}

bool transaction_record(int16_t type, protocol::reader& r, const std::optional<protocol::bytes_view>& value,
                        coordinator_text* out, std::string* why, bool* known) {
  *known = true;
  switch (type) {
    HW_RECORD(0, transaction_log);
    default:
      *known = false;
      return false;
  }
}

#undef HW_RECORD

parsed_record coordinator_parse(decoder d, const protocol::record_view& record) {
  if (!record.key)
    throw java_failure("java.lang.RuntimeException", "Failed to decode message at offset " +
                                                         std::to_string(record.offset) +
                                                         " using the specified decoder (message had a missing key)");
  const std::string at = std::to_string(record.offset);
  protocol::reader r(*record.key);
  const int16_t type = r.read_int16();
  if (!r.ok()) return {"Error at offset " + at + ", skipping. Could not read version from key's buffer.", {}};
  coordinator_text text;
  std::string why;
  bool known = false;
  const bool ok = d == decoder::offsets ? group_record(type, r, record.value, &text, &why, &known)
                                        : transaction_record(type, r, record.value, &text, &why, &known);
  if (!known) return {"Unknown record type " + std::to_string(type) + " at offset " + at + ", skipping.", {}};
  if (!ok) return {"Error at offset " + at + ", skipping. " + why, {}};
  return {text.key, text.value ? text.value : std::optional<std::string>("<DELETE>")};
}

template <typename T>
std::string control_json(const protocol::record_view& record, const char* what) {
  T m;
  protocol::reader r(record.value.value_or(protocol::bytes_view{}));
  m.decode(r, 0);
  if (!r.ok() || !record.value)
    throw unsupported_input(std::string("A ") + what + " control record that does not decode (offset " +
                            std::to_string(record.offset) + ") is not supported by the native tool");
  return *json_of(m, m.version, what);
}

}  // namespace

parsed_record parse_record(decoder d, const protocol::record_view& record) {
  switch (d) {
    case decoder::strings: {
      parsed_record p;
      if (record.key) p.key = text_of(*record.key);
      if (record.value) p.value = text_of(*record.value);
      return p;
    }
    case decoder::cluster_metadata: return {std::nullopt, metadata_text(record)};
    case decoder::offsets:
    case decoder::transaction_log: return coordinator_parse(d, record);
  }
  return {};
}

std::string control_record_text(const protocol::record_view& record) {
  const size_t key_size = record.key ? record.key->size() : 0;
  if (key_size < protocol::control_key_bytes)
    throw java_failure("org.apache.kafka.common.InvalidRecordException",
                       "Invalid value size found for end control record key. Must have at least 4 bytes, but found "
                       "only " + std::to_string(key_size));
  protocol::reader kr(*record.key);
  const int16_t key_version = kr.read_int16();
  const int16_t type = kr.read_int16();
  if (key_version < 0)
    throw java_failure("org.apache.kafka.common.InvalidRecordException",
                       "Invalid version found for control record: " + std::to_string(key_version) +
                           ". May indicate data corruption");
  switch (type) {
    case 0:
    case 1: {
      protocol::reader vr(record.value.value_or(protocol::bytes_view{}));
      const int16_t version = vr.read_int16();
      const int32_t epoch = vr.read_int32();
      if (!vr.ok() || !record.value)
        throw unsupported_input("A transaction marker that does not decode (offset " + std::to_string(record.offset) +
                                ") is not supported by the native tool");
      if (version < 0)
        throw java_failure("org.apache.kafka.common.InvalidRecordException",
                           "Invalid version found for end transaction marker: " + std::to_string(version) +
                               ". May indicate data corruption");
      return std::string(" endTxnMarker: ") + (type == 0 ? "ABORT" : "COMMIT") +
             " coordinatorEpoch: " + std::to_string(epoch);
    }
    case 2: return " LeaderChange: " + control_json<msg::leader_change_message>(record, "LeaderChange");
    case 3: return " SnapshotHeader " + control_json<msg::snapshot_header_record>(record, "SnapshotHeader");
    case 4: return " SnapshotFooter " + control_json<msg::snapshot_footer_record>(record, "SnapshotFooter");
    case 5: return " KRaftVersion " + control_json<msg::k_raft_version_record>(record, "KRaftVersion");
    case 6: return " KRaftVoters " + control_json<msg::voters_record>(record, "KRaftVoters");
    default: return " controlType: UNKNOWN(" + std::to_string(type) + ")";
  }
}

}  // namespace hw::tools::dump_log
