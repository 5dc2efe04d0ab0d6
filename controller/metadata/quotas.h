#pragma once
// Client quotas as the metadata log holds them (ClientQuotaRecord): an
// entity — a map of entity type ("user", "client-id", "ip") to a name, or
// to no name for the type's default — and its quota values by key
// (producer_byte_rate, ...), all doubles. The image keeps only entities
// with at least one value; a record that removes the last one drops the
// entity, as Kafka's ClientQuotasDelta does. Replay checks nothing else:
// the controller validated the alteration (controller/quota_control.h).
//
// Also here, because the broker answers it from its image and the unit
// tests drive it without one: DescribeClientQuotas' filter (Kafka's
// ClientQuotasImage.describe: its refusals and texts, EXACT / DEFAULT /
// SPECIFIED components, strict or not).
//
// Kafka prints an entity as Java's ClientQuotaEntity and HashMap print it
// ("ClientQuotaEntity(entries={client-id=c1, user=alice})"), in the order
// a java.util.HashMap holds its types; its answers list an entity's types in
// that order too. java_map_order computes it.
//
// Pure; usable anywhere.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/metadata_records.h"

namespace hw::controller {

// Entity types Kafka knows (ClientQuotaEntity.USER, CLIENT_ID, IP).
inline constexpr std::string_view quota_user = "user";
inline constexpr std::string_view quota_client_id = "client-id";
inline constexpr std::string_view quota_ip = "ip";

// Entity type → name; nullopt is the type's default entity.
using quota_entity = std::map<std::string, std::optional<std::string>>;
// Quota key → value.
using quota_values = std::map<std::string, double>;
using client_quota_table = std::map<quota_entity, quota_values>;

// Java's String.hashCode of a UTF-8 string (over its UTF-16 units).
uint32_t java_string_hash(std::string_view s);

// The order a java.util.HashMap created with capacity hint `capacity_hint`
// iterates `keys` (put in this order, repeated keys kept at their first
// place): by the bucket of each String's hash, spread as HashMap spreads
// it, in the table the puts grew it to; put order within a bucket.
std::vector<std::string> java_map_order(const std::vector<std::string>& keys, size_t capacity_hint);

// ClientQuotaEntity.toString of an entity whose types iterate in `order`
// (names of the default entity print as "null").
std::string quota_entity_text(const quota_entity& entity, const std::vector<std::string>& order);

// The ClientQuotaRecord that sets (or, with nullopt, removes) key of
// entity; its entity data in Kafka's HashMap order.
protocol::msg::client_quota_record client_quota_record(const quota_entity& entity, const std::string& key,
                                                       std::optional<double> value);

// DescribeClientQuotas over the image's quotas: the matching entities with
// their values, or Kafka's error (INVALID_REQUEST, UNSUPPORTED_VERSION for
// an unknown entity type) with its message and null entries.
protocol::msg::describe_client_quotas_response describe_client_quotas(
    const client_quota_table& quotas, const protocol::msg::describe_client_quotas_request& request);

}  // namespace hw::controller
