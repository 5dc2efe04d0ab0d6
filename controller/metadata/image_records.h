#pragma once
// The records that rebuild an image from empty: what a metadata snapshot
// holds. The order is Kafka's MetadataImage.write: features
// (metadata.version first), the cluster (brokers with their fenced and
// controlled-shutdown state, then controllers), each topic followed by its
// partitions, configs, client quotas, the producer-id block, ACLs, then
// SCRAM credentials. Each record is in the
// version a controller at the image's metadata.version writes
// (record_version_for), so Kafka replays our snapshots as its own.
//
// What the image does not keep (delegation tokens) is not in the snapshot
// either. Fields the image's
// metadata.version cannot carry are left out, as Kafka's writer drops them
// (directories before 3.7-IV2, ELR while eligible.leader.replicas.version is
// off, cordoned log dirs before 4.3-IV0, controllers before 3.7-IV0).
//
// Pure; any thread.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "controller/metadata/image.h"
#include "controller/metadata/records.h"

namespace hw::controller {

std::vector<metadata_record> image_records(const metadata_image& image);

// A delegation token's record, expiring at `expiry_ms` (its own expiry in a
// snapshot; a renewal's or an expiry's new one at the controller).
protocol::msg::delegation_token_record delegation_token_record_of(const delegation_token& token, int64_t expiry_ms);

// image_records framed as metadata log values (encode_record_value at the
// image's metadata.version): the record values of a snapshot file.
std::vector<std::vector<uint8_t>> image_record_values(const metadata_image& image);

// The image a snapshot's record values rebuild: each decoded and replayed
// over the empty image, stamped with the snapshot's last offset (its end
// offset - 1) and epoch. Nothing, with the index and the reason in *error,
// if a value does not decode or replay refuses it.
std::shared_ptr<const metadata_image> image_from_record_values(std::span<const std::vector<uint8_t>> values,
                                                               storage::offset last_offset, leader_epoch epoch,
                                                               std::string* error);

}  // namespace hw::controller
