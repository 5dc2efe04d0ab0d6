// Version sweeps of the data-plane APIs: Produce, Fetch, ListOffsets,
// Metadata, DeleteRecords, OffsetForLeaderEpoch, InitProducerId and
// DescribeProducers. Each version works on topics of its own.

#include <gtest/gtest.h>

#include "protocol/messages/delete_records.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/records/record_batch.h"
#include "versions_support.h"

namespace hw::testing::versions {
namespace {

constexpr int16_t k_none = 0, k_offset_out_of_range = 1, k_unknown_topic = 3, k_unknown_topic_id = 100;

std::string vname(const char* api, int16_t v) { return std::string(api) + "-v" + std::to_string(v); }

// Fetch one partition from offset at version (by name below v13, by id from
// v13), read_uncommitted, no session.
reply<msg::fetch_response> fetch_at(version_client& c, int16_t version, const std::string& topic,
                                                    const protocol::uuid& id, int64_t offset) {
  msg::fetch_request req;
  req.replica_id = -1;
  req.max_wait_ms = 0;
  req.min_bytes = 1;
  req.max_bytes = 16 << 20;
  req.isolation_level = 0;
  req.session_id = 0;
  req.session_epoch = -1;  // a full fetch without a session (v7+)
  msg::fetch_request::fetch_topic t;
  if (version >= 13) t.topic_id = id;
  else t.topic = topic;
  msg::fetch_request::fetch_partition p;
  p.partition = 0;
  p.current_leader_epoch = -1;
  p.fetch_offset = offset;
  p.log_start_offset = -1;
  p.partition_max_bytes = 8 << 20;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  if (version >= 11) req.rack_id = "";
  return c.call<msg::fetch_response>(1, version, req);
}

// ListOffsets of partition 0 for one timestamp at version.
std::optional<msg::list_offsets_response::list_offsets_partition_response> list_at(version_client& c, int16_t version,
                                                                                   const std::string& topic,
                                                                                   int64_t timestamp) {
  msg::list_offsets_request req;
  req.replica_id = -1;
  req.isolation_level = 0;
  msg::list_offsets_request::list_offsets_topic t;
  t.name = topic;
  msg::list_offsets_request::list_offsets_partition p;
  p.partition_index = 0;
  p.current_leader_epoch = -1;
  p.timestamp = timestamp;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  if (version >= 10) req.timeout_ms = 5000;
  auto resp = c.call<msg::list_offsets_response>(2, version, req);
  if (!resp || resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1) {
    ADD_FAILURE() << "ListOffsets v" << version << ": not exactly one partition";
    return std::nullopt;
  }
  EXPECT_EQ(resp->topics[0].name, topic);
  if (version >= 2) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  return resp->topics[0].partitions[0];
}

int32_t leader_epoch_of(version_client& c, const std::string& topic) {
  auto md = topic_metadata(c, topic);
  if (!md || md->partitions.empty()) {
    ADD_FAILURE() << "no metadata for " << topic;
    return -1;
  }
  return md->partitions[0].leader_epoch;
}

// Produce: two batches at this version land at offsets 0 and 3, are read
// back unchanged, and an unknown topic (name below v13, id from v13) gets
// the error that version's clients expect.
void produce_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("produce", v);
  const auto id = create_topic(c, topic, 1);
  const auto b1 = tagged_batch(topic + "a", 3), b2 = tagged_batch(topic + "b", 3);
  for (auto [batch, base] : {std::pair{&b1, 0}, std::pair{&b2, 3}}) {
    auto p = produce_at(c, v, topic, id, 0, *batch);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->index, 0);
    EXPECT_EQ(p->error_code, k_none);
    EXPECT_EQ(p->base_offset, base);
    EXPECT_EQ(p->log_append_time_ms, -1);  // CreateTime topic
    if (v >= 5) { EXPECT_EQ(p->log_start_offset, 0); }
    EXPECT_TRUE(p->record_errors.empty());
    EXPECT_FALSE(p->error_message.has_value());
  }
  auto back = fetch_at(c, 12, topic, id, 0);
  ASSERT_TRUE(back);
  const auto& part = back->responses.at(0).partitions.at(0);
  EXPECT_EQ(part.high_watermark, 6);
  auto records = part.records.bytes();
  protocol::record_batch_view first(records);
  ASSERT_GE(records.size(), b1.size() + b2.size());
  EXPECT_EQ(first.base_offset(), 0);
  EXPECT_EQ(batch_payload(records.subspan(0, b1.size())), batch_payload(b1));
  protocol::record_batch_view second(records.subspan(b1.size()));
  EXPECT_EQ(second.base_offset(), 3);
  EXPECT_EQ(batch_payload(records.subspan(b1.size(), b2.size())), batch_payload(b2));

  protocol::uuid unknown_id;
  unknown_id.bytes[15] = 0x42;
  auto missing = produce_at(c, v, "no-such-topic", unknown_id, 0, b1);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->error_code, v >= 13 ? k_unknown_topic_id : k_unknown_topic);
  EXPECT_EQ(missing->base_offset, -1);
}

// Fetch: one batch produced at every Produce version, all read back at this
// version byte for byte (after the CRC) with their offsets, the partition's
// marks filled in as the version defines them.
void fetch_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("fetch", v);
  const auto id = create_topic(c, topic, 1);
  struct produced {
    int16_t version;
    int64_t offset;
    std::vector<uint8_t> batch;
  };
  std::vector<produced> log;
  int64_t next = 0;
  for (int16_t w = 3; w <= 13; ++w) {
    auto batch = tagged_batch(topic + "-by-produce-v" + std::to_string(w), 2);
    auto p = produce_at(c, w, topic, id, 0, batch);
    ASSERT_TRUE(p);
    ASSERT_EQ(p->error_code, k_none) << "produce v" << w;
    ASSERT_EQ(p->base_offset, next);
    log.push_back({w, next, batch});
    next += 2;
  }
  auto resp = fetch_at(c, v, topic, id, 0);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  if (v >= 7) {
    EXPECT_EQ(resp->error_code, k_none);
    EXPECT_EQ(resp->session_id, 0);  // sessionless
  }
  ASSERT_EQ(resp->responses.size(), 1u);
  const auto& t = resp->responses[0];
  if (v >= 13) {
    EXPECT_EQ(t.topic_id, id);
    EXPECT_EQ(t.topic, "");
  } else {
    EXPECT_EQ(t.topic, topic);
  }
  ASSERT_EQ(t.partitions.size(), 1u);
  const auto& p = t.partitions[0];
  EXPECT_EQ(p.partition_index, 0);
  EXPECT_EQ(p.error_code, k_none);
  EXPECT_EQ(p.high_watermark, next);
  EXPECT_EQ(p.last_stable_offset, next);
  if (v >= 5) { EXPECT_EQ(p.log_start_offset, 0); }
  EXPECT_FALSE(p.aborted_transactions.has_value()) << "read_uncommitted: null, as Kafka answers";
  EXPECT_EQ(p.preferred_read_replica, -1);
  EXPECT_EQ(p.diverging_epoch.epoch, -1);
  auto records = p.records.bytes();
  size_t pos = 0;
  for (const auto& w : log) {
    SCOPED_TRACE("batch produced at v" + std::to_string(w.version));
    ASSERT_LE(pos + w.batch.size(), records.size());
    protocol::record_batch_view got(records.subspan(pos, w.batch.size()));
    EXPECT_EQ(got.base_offset(), w.offset);
    EXPECT_EQ(got.record_count(), 2);
    EXPECT_TRUE(got.crc_ok());
    EXPECT_EQ(batch_payload(records.subspan(pos, w.batch.size())), batch_payload(w.batch));
    pos += w.batch.size();
  }
  EXPECT_EQ(pos, records.size());

  // A fetch from the middle starts at the batch holding that offset.
  auto mid = fetch_at(c, v, topic, id, log[5].offset);
  ASSERT_TRUE(mid);
  auto mid_records = mid->responses.at(0).partitions.at(0).records.bytes();
  ASSERT_GE(mid_records.size(), log[5].batch.size());
  EXPECT_EQ(protocol::record_batch_view(mid_records).base_offset(), log[5].offset);

  // Past the end: OFFSET_OUT_OF_RANGE.
  auto past = fetch_at(c, v, topic, id, next + 5);
  ASSERT_TRUE(past);
  EXPECT_EQ(past->responses.at(0).partitions.at(0).error_code, k_offset_out_of_range);

  // An unknown topic: by name below v13, by id from v13.
  protocol::uuid unknown_id;
  unknown_id.bytes[15] = 0x43;
  auto missing = fetch_at(c, v, "no-such-topic", unknown_id, 0);
  ASSERT_TRUE(missing);
  ASSERT_EQ(missing->responses.size(), 1u);
  ASSERT_EQ(missing->responses[0].partitions.size(), 1u);
  EXPECT_EQ(missing->responses[0].partitions[0].error_code, v >= 13 ? k_unknown_topic_id : k_unknown_topic);
}

// ListOffsets: earliest, latest, a timestamp lookup at every version; the
// max-timestamp (v7+) and earliest-local (v8+) specials where they exist.
void list_offsets_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("list-offsets", v);
  const auto id = create_topic(c, topic, 1);
  constexpr int64_t t0 = 1700000000000;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(produce_at(c, k_produce_v, topic, id, 0, tagged_batch("x", 2, t0 + 100 * i))->error_code, 0);
  const int32_t epoch = leader_epoch_of(c, topic);
  auto check = [&](int64_t ts, int64_t offset, int64_t timestamp, const char* what) {
    SCOPED_TRACE(what);
    auto p = list_at(c, v, topic, ts);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->partition_index, 0);
    EXPECT_EQ(p->error_code, k_none);
    EXPECT_EQ(p->offset, offset);
    EXPECT_EQ(p->timestamp, timestamp);
    if (v >= 4) { EXPECT_EQ(p->leader_epoch, epoch); }
  };
  check(-2, 0, -1, "earliest");
  check(-1, 6, -1, "latest");
  check(t0 + 150, 4, t0 + 200, "first record at or after a timestamp");
  if (v >= 7) check(-3, 5, t0 + 201, "max timestamp");
  if (v >= 8) check(-4, 0, -1, "earliest local");
  // A special timestamp older than the version is UNSUPPORTED_VERSION
  // (Kafka 4.3: max timestamp v7, earliest local v8, latest tiered v9,
  // earliest pending upload v11); from its version it is answered.
  for (auto [special, since] : {std::pair<int64_t, int16_t>{-3, 7}, {-4, 8}, {-5, 9}, {-6, 11}}) {
    SCOPED_TRACE("special timestamp " + std::to_string(special));
    auto p = list_at(c, v, topic, special);
    ASSERT_TRUE(p);
    if (v < since) {
      EXPECT_EQ(p->error_code, 35);  // UNSUPPORTED_VERSION
      EXPECT_EQ(p->offset, -1);
    } else {
      EXPECT_EQ(p->error_code, k_none);
    }
  }
  if (v >= 9) {  // latest tiered: no tiered storage, nothing (epoch -1 too)
    auto p = list_at(c, v, topic, -5);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->offset, -1);
    EXPECT_EQ(p->timestamp, -1);
    EXPECT_EQ(p->leader_epoch, -1);
  }
  auto beyond = list_at(c, v, topic, t0 + 10000);
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->error_code, k_none);
  EXPECT_EQ(beyond->offset, -1);
  auto missing = list_at(c, v, "no-such-topic", -1);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->error_code, k_unknown_topic);
}

// Metadata: the broker, a named topic's partitions and the fields each
// version adds; v0's empty list and v1+'s null list mean every topic.
void metadata_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("metadata", v);
  const auto id = create_topic(c, topic, 2);
  msg::metadata_request named;
  msg::metadata_request::metadata_request_topic rt;
  rt.name = topic;
  named.topics->push_back(rt);
  named.allow_auto_topic_creation = false;
  named.include_topic_authorized_operations = false;
  auto resp = c.call<msg::metadata_response>(3, v, named);
  ASSERT_TRUE(resp);
  if (v >= 3) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  ASSERT_EQ(resp->brokers.size(), 1u);
  EXPECT_EQ(resp->brokers[0].node_id, 1);
  EXPECT_EQ(resp->brokers[0].host, "127.0.0.1");
  EXPECT_EQ(resp->brokers[0].port, ctx.port);
  EXPECT_FALSE(resp->brokers[0].rack.has_value());
  if (v >= 1) { EXPECT_EQ(resp->controller_id, 1); }
  if (v >= 2) { EXPECT_TRUE(resp->cluster_id.has_value() && !resp->cluster_id->empty()); }
  else EXPECT_FALSE(resp->cluster_id.has_value());
  if (v >= 8 && v <= 10) { EXPECT_EQ(resp->cluster_authorized_operations, INT32_MIN); }
  if (v >= 13) { EXPECT_EQ(resp->error_code, k_none); }
  ASSERT_EQ(resp->topics.size(), 1u);
  const auto& t = resp->topics[0];
  EXPECT_EQ(t.error_code, k_none);
  EXPECT_EQ(t.name, std::optional<std::string>(topic));
  if (v >= 10) { EXPECT_EQ(t.topic_id, id); }
  EXPECT_FALSE(t.is_internal);
  if (v >= 8) { EXPECT_EQ(t.topic_authorized_operations, INT32_MIN); }  // not asked for
  ASSERT_EQ(t.partitions.size(), 2u);
  for (int32_t i = 0; i < 2; ++i) {
    const auto& p = t.partitions[i];
    EXPECT_EQ(p.error_code, k_none);
    EXPECT_EQ(p.partition_index, i);
    EXPECT_EQ(p.leader_id, 1);
    if (v >= 7) { EXPECT_GE(p.leader_epoch, 0); }
    EXPECT_EQ(p.replica_nodes, std::vector<int32_t>{1});
    EXPECT_EQ(p.isr_nodes, std::vector<int32_t>{1});
    EXPECT_TRUE(p.offline_replicas.empty());
  }

  if (v >= 8) {
    // Asked for: every operation, as Kafka answers without an authorizer
    // (topic 3576; cluster 8096, a field only v8-v10 have).
    auto ops = named;
    ops.include_cluster_authorized_operations = true;
    ops.include_topic_authorized_operations = true;
    auto with_ops = c.call<msg::metadata_response>(3, v, ops);
    ASSERT_TRUE(with_ops);
    ASSERT_EQ(with_ops->topics.size(), 1u);
    EXPECT_EQ(with_ops->topics[0].topic_authorized_operations, 3576);
    if (v <= 10) { EXPECT_EQ(with_ops->cluster_authorized_operations, 8096); }
  }
  msg::metadata_request all;
  if (v >= 1) all.topics.reset();  // null: every topic (v0: an empty list)
  else all.topics.emplace();
  all.allow_auto_topic_creation = false;
  auto every = c.call<msg::metadata_response>(3, v, all);
  ASSERT_TRUE(every);
  bool found = false;
  for (const auto& x : every->topics) found = found || x.name == std::optional<std::string>(topic);
  EXPECT_TRUE(found) << "the all-topics form leaves out " << topic;

  {
    // Auto-creation: implicit before v4, asked for from v4. Highwater creates
    // the topic before answering; Kafka creates it in the background (its
    // first answer is UNKNOWN_TOPIC_OR_PARTITION): both then have it.
    const std::string created = vname("auto-created", v);
    msg::metadata_request create;
    rt.name = created;
    create.topics->push_back(rt);
    create.allow_auto_topic_creation = true;
    auto r = c.call<msg::metadata_response>(3, v, create);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics.size(), 1u);
    EXPECT_EQ(r->topics[0].name, std::optional<std::string>(created));
    if (!ctx.external) {
      EXPECT_EQ(r->topics[0].error_code, k_none);
      EXPECT_EQ(r->topics[0].partitions.size(), 1u);
    }
    EXPECT_TRUE(ctx.settled([&] {
      auto md = topic_metadata(c, created);
      return md && md->error_code == k_none && md->partitions.size() == 1;
    })) << created << " was not created";
  }
  if (v >= 4) {  // before v4 a request may create the topic: no error to check
    msg::metadata_request unknown;
    rt.name = "no-such-topic";
    unknown.topics->push_back(rt);
    unknown.allow_auto_topic_creation = false;
    auto none = c.call<msg::metadata_response>(3, v, unknown);
    ASSERT_TRUE(none);
    ASSERT_EQ(none->topics.size(), 1u);
    EXPECT_EQ(none->topics[0].error_code, k_unknown_topic);
  }
}

// DeleteRecords: the log start moves to the asked offset; past the end is
// OFFSET_OUT_OF_RANGE.
void delete_records_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("delete-records", v);
  const auto id = create_topic(c, topic, 1);
  ASSERT_EQ(produce_at(c, k_produce_v, topic, id, 0, tagged_batch("d", 10))->error_code, 0);
  auto del = [&](int64_t offset) -> std::optional<msg::delete_records_response::delete_records_partition_result> {
    msg::delete_records_request req;
    req.timeout_ms = 5000;
    msg::delete_records_request::delete_records_topic t;
    t.name = topic;
    msg::delete_records_request::delete_records_partition p;
    p.partition_index = 0;
    p.offset = offset;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto resp = c.call<msg::delete_records_response>(21, v, req);
    if (!resp || resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1) return std::nullopt;
    EXPECT_EQ(resp->throttle_time_ms, 0);
    EXPECT_EQ(resp->topics[0].name, topic);
    return resp->topics[0].partitions[0];
  };
  auto moved = del(4);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->error_code, k_none);
  EXPECT_EQ(moved->low_watermark, 4);
  EXPECT_EQ(list_at(c, 11, topic, -2)->offset, 4);
  auto beyond = del(11);
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->error_code, k_offset_out_of_range);
}

// OffsetForLeaderEpoch: the current epoch ends at the log end offset.
void offset_for_leader_epoch_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("epochs", v);
  const auto id = create_topic(c, topic, 1);
  ASSERT_EQ(produce_at(c, k_produce_v, topic, id, 0, tagged_batch("e", 7))->error_code, 0);
  const int32_t epoch = leader_epoch_of(c, topic);
  for (const std::string& name : {topic, std::string("no-such-topic")}) {
    msg::offset_for_leader_epoch_request req;
    req.replica_id = -1;  // a consumer (v3+)
    msg::offset_for_leader_epoch_request::offset_for_leader_topic t;
    t.topic = name;
    msg::offset_for_leader_epoch_request::offset_for_leader_partition p;
    p.partition = 0;
    p.current_leader_epoch = epoch;
    p.leader_epoch = epoch;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto resp = c.call<msg::offset_for_leader_epoch_response>(23, v, req);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->throttle_time_ms, 0);
    const auto& r = resp->topics.at(0).partitions.at(0);
    EXPECT_EQ(resp->topics[0].topic, name);
    EXPECT_EQ(r.partition, 0);
    if (name == topic) {
      EXPECT_EQ(r.error_code, k_none);
      EXPECT_EQ(r.leader_epoch, epoch);
      EXPECT_EQ(r.end_offset, 7);
    } else {
      EXPECT_EQ(r.error_code, k_unknown_topic);
      EXPECT_EQ(r.end_offset, -1);
    }
  }
}

// InitProducerId for an idempotent producer: a fresh id at epoch 0; from v3
// the request may name its current id and epoch (both or neither).
void init_producer_id_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  msg::init_producer_id_request req;
  req.transactional_id.reset();
  req.transaction_timeout_ms = 60000;
  auto first = c.call<msg::init_producer_id_response>(22, v, req);
  // Kafka may still be loading its transaction state (14).
  ctx.settled([&] {
    if (!first || first->error_code != 14) return true;
    first = c.call<msg::init_producer_id_response>(22, v, req);
    return false;
  });
  ASSERT_TRUE(first);
  EXPECT_EQ(first->throttle_time_ms, 0);
  EXPECT_EQ(first->error_code, k_none);
  EXPECT_GE(first->producer_id, 0);
  EXPECT_EQ(first->producer_epoch, 0);
  auto second = c.call<msg::init_producer_id_response>(22, v, req);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->error_code, k_none);
  EXPECT_NE(second->producer_id, first->producer_id);
  if (v >= 3) {
    auto half = req;
    half.producer_id = first->producer_id;  // epoch left at -1
    auto bad = c.call<msg::init_producer_id_response>(22, v, half);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->error_code, 42);  // INVALID_REQUEST
  }
}

// DescribeProducers: an idempotent producer's state after one batch.
void describe_producers_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = vname("producers", v);
  const auto id = create_topic(c, topic, 1);
  msg::init_producer_id_request init;
  init.transactional_id.reset();
  init.transaction_timeout_ms = 60000;
  auto pid = c.call<msg::init_producer_id_response>(22, 4, init);
  ASSERT_TRUE(pid);
  ASSERT_EQ(pid->error_code, 0);
  protocol::record_batch_options o;
  o.producer_id = pid->producer_id;
  o.producer_epoch = 0;
  o.base_sequence = 0;
  protocol::record_batch_builder b(o);
  for (int i = 0; i < 4; ++i) b.append(1700000000000 + i, std::nullopt, std::nullopt);
  ASSERT_EQ(produce_at(c, k_produce_v, topic, id, 0, b.finish())->error_code, 0);
  msg::describe_producers_request req;
  msg::describe_producers_request::topic_request t;
  t.name = topic;
  t.partition_indexes = {0};
  req.topics.push_back(t);
  auto resp = c.call<msg::describe_producers_response>(61, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  const auto& p = resp->topics.at(0).partitions.at(0);
  EXPECT_EQ(p.error_code, k_none);
  ASSERT_EQ(p.active_producers.size(), 1u);
  EXPECT_EQ(p.active_producers[0].producer_id, pid->producer_id);
  EXPECT_EQ(p.active_producers[0].producer_epoch, 0);
  EXPECT_EQ(p.active_producers[0].last_sequence, 3);
  EXPECT_EQ(p.active_producers[0].last_timestamp, 1700000000003);
  EXPECT_EQ(p.active_producers[0].current_txn_start_offset, -1);
}

}  // namespace

std::vector<api_sweep> data_sweeps() {
  return {
      {0, "Produce", &produce_sweep},
      {1, "Fetch", &fetch_sweep},
      {2, "ListOffsets", &list_offsets_sweep},
      {3, "Metadata", &metadata_sweep},
      {21, "DeleteRecords", &delete_records_sweep},
      {22, "InitProducerId", &init_producer_id_sweep},
      {23, "OffsetForLeaderEpoch", &offset_for_leader_epoch_sweep},
      {61, "DescribeProducers", &describe_producers_sweep},
  };
}

}  // namespace hw::testing::versions
