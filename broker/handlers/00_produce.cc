// Produce (key 0), versions 3-13: appends one record batch per partition
// on its leader, offsets assigned in place inside the request frame.
//
// Kafka's rules (KafkaApis.handleProduceRequest, ProduceRequest.validateRecords,
// ReplicaManager.appendRecords, LogValidator): acks must be -1, 0 or 1
// (INVALID_REQUIRED_ACKS); from v3 each partition carries exactly one v2
// batch (else INVALID_RECORD); internal topics only from the admin client;
// a damaged batch is CORRUPT_MESSAGE, one above max.message.bytes
// MESSAGE_TOO_LARGE, malformed records INVALID_RECORD with the batch index;
// a compacted topic refuses records without a key. acks=0 gets no
// response, and a failed acks=0 produce closes the connection so the
// client learns of it. From v13 topics are named by id. A transactional
// batch that would open a transaction in its partition is first checked
// with (v12+: added to the transaction by) the transaction coordinator
// (KIP-890, transaction.partition.verification.enable).

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/handlers/leader_endpoints.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/stall_guard.h"
#include "broker/quota/request_quotas.h"
#include "broker/replica/await_acks.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "broker/txn/txn_verifier.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/produce.h"
#include "protocol/records/record_batch.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::produce_request;
using protocol::msg::produce_response;

// Where a batch header holds its magic byte (base offset, length, leader epoch before it).
constexpr size_t magic_offset = 16;

// Decompressed records are bounded by this, well above any batch a
// max.message.bytes allows to be compressed from.
constexpr size_t max_decompressed_bytes = 256u << 20;

// Where Kafka finds a fault decides what its answer carries: the request's
// own checks (ProduceRequest.validateRecords: one v2 batch) and the log's
// corrupt or oversized batches (appendToLocalLog's UNKNOWN_LOG_APPEND_INFO)
// answer with no log start offset; the log's other faults (LogValidator on
// the batch) add it; the records' own (keys on compacted topics,
// timestamps) add a message and record_errors too.
enum class fault_stage { request, log, record };

bool reports_log_start(fault_stage stage, error_code e) {
  return stage != fault_stage::request && e != error_code::corrupt_message && e != error_code::message_too_large;
}

struct batch_check {
  error_code error = error_code::none;
  fault_stage stage = fault_stage::log;
  std::string message;  // record stage (and an unknown magic) only
  // Every record at fault (index in the batch, reason), for record_errors:
  // Kafka lists them all, not only the first.
  std::vector<std::pair<int32_t, std::string>> record_errors;
  std::span<uint8_t> batch;  // writable, when error is none
};

// Java's long arithmetic, which Kafka's messages are printed with.
int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// LogValidator's timestamp rule for CreateTime topics: every record within
// [now - before.max.ms, now + after.max.ms] (records without a timestamp
// pass), and no LogAppendTime batch from a producer.
std::optional<std::string> timestamp_error(const protocol::record_batch_view& batch, const protocol::record_view& r,
                                           const produce_limits& limits, int64_t now_ms) {
  if (batch.ts_type() == protocol::timestamp_type::log_append_time) {
    return "Invalid timestamp type in message DefaultRecord(offset=" + std::to_string(r.offset) +
           ", timestamp=" + std::to_string(r.timestamp) + ", key=" + std::to_string(r.key ? r.key->size() : 0) +
           " bytes, value=" + std::to_string(r.value ? r.value->size() : 0) +
           " bytes). Producer should not set timestamp type to LogAppendTime.";
  }
  if (r.timestamp == -1) return std::nullopt;
  const int64_t diff = wrapping_add(now_ms, -r.timestamp);
  if (diff <= limits.timestamp_before_max_ms && -diff <= limits.timestamp_after_max_ms) return std::nullopt;
  return "Timestamp " + std::to_string(r.timestamp) + " of message with offset " + std::to_string(r.offset) +
         " is out of range. The timestamp should be within [" +
         std::to_string(wrapping_add(now_ms, -limits.timestamp_before_max_ms)) + ", " +
         std::to_string(wrapping_add(now_ms, limits.timestamp_after_max_ms)) + "]";
}

// LogValidator.processRecordErrors: one partition error for all of them.
void set_record_errors_message(batch_check& out, bool any_timestamp_error) {
  if (any_timestamp_error) {
    out.error = error_code::invalid_timestamp;
    out.message = "One or more records have been rejected due to invalid timestamp";
    return;
  }
  out.error = error_code::invalid_record;
  out.message = "One or more records have been rejected due to " + std::to_string(out.record_errors.size()) +
                " record errors in total, and only showing the first three errors at most: [";
  for (size_t i = 0; i < out.record_errors.size() && i < 3; ++i) {
    if (i > 0) out.message += ", ";
    out.message += "RecordError(batchIndex=" + std::to_string(out.record_errors[i].first) + ", message='" +
                   out.record_errors[i].second + "')";
  }
  out.message += "]";
}

batch_check check_batch(const request_context& ctx, const protocol::records_view& records, const produce_limits& limits,
                        const storage::topic_partition& tp, int64_t now_ms) {
  const int32_t max_message_bytes = limits.max_message_bytes;
  batch_check out;
  auto request_fault = [&](error_code e) {
    out.error = e;
    out.stage = fault_stage::request;
    return out;
  };
  // A batch cut short is no batch at all to Kafka's iterator: "exactly one
  // record batch" fails, INVALID_RECORD.
  if (records.null || records.size == 0) return request_fault(error_code::invalid_record);
  protocol::record_batch_walker walker(records.bytes());
  protocol::record_batch_view batch;
  if (!walker.next(batch)) {
    if (walker.error() == protocol::batch_error::unknown_magic && records.size > magic_offset) {
      // Kafka's batch iterator names it (CorruptRecordException's message).
      out.message = "Invalid magic found in record: " + std::to_string(static_cast<int8_t>(records.data[magic_offset]));
      return request_fault(error_code::corrupt_message);
    }
    return request_fault(walker.error() == protocol::batch_error::none ? error_code::invalid_record
                                                                       : protocol::to_error_code(walker.error()));
  }
  protocol::record_batch_view extra;
  if (walker.next(extra) || walker.partial_tail_bytes() != 0 || walker.error() != protocol::batch_error::none)
    return request_fault(error_code::invalid_record);
  if (batch.magic() != 2) return request_fault(error_code::invalid_record);
  if (batch.size_bytes() > static_cast<size_t>(max_message_bytes)) {
    out.error = error_code::message_too_large;
    return out;
  }
  auto invalid = [&](protocol::batch_error e) {
    out.error = protocol::to_error_code(e);
    return out;
  };
  if (auto e = batch.validate(); e != protocol::batch_error::none) return invalid(e);
  if (batch.is_control()) {
    out.error = error_code::invalid_record;  // clients may not write control batches
    return out;
  }
  // One pass over the records (decompressing once): the iterator checks
  // their framing, count and offset deltas; the topic's rules are checked
  // on the way.
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  if (auto e = batch.open_records(scratch, max_decompressed_bytes, it); e != protocol::batch_error::none)
    return invalid(e);
  protocol::record_view r;
  bool any_timestamp_error = false;
  for (int32_t index = 0; it.next(r); ++index) {
    if (limits.compacted && !r.key) {
      // Named only when needed: the common produce builds no strings.
      out.record_errors.emplace_back(index, "Compacted topic cannot accept message without key in topic partition " +
                                                storage::partition_dir_name(tp));
      continue;
    }
    if (!limits.log_append_time) {
      if (auto message = timestamp_error(batch, r, limits, now_ms)) {
        out.record_errors.emplace_back(index, std::move(*message));
        any_timestamp_error = true;
      }
    }
  }
  if (it.error() != protocol::batch_error::none) {
    out.record_errors.clear();
    return invalid(it.error());
  }
  if (!out.record_errors.empty()) {
    out.stage = fault_stage::record;
    set_record_errors_message(out, any_timestamp_error);
    return out;
  }
  if (ctx.writable_frame.empty()) {
    out.error = error_code::unknown_server_error;
    out.message = "request frame is not writable";
    return out;
  }
  const auto* frame_begin = ctx.writable_frame.data();
  const size_t at = static_cast<size_t>(batch.data() - frame_begin);
  assert(at + batch.size_bytes() <= ctx.writable_frame.size());
  out.batch = ctx.writable_frame.subspan(at, batch.size_bytes());
  return out;
}

produce_response::partition_produce_response error_response(int32_t index, error_code e, std::string message = {}) {
  produce_response::partition_produce_response p;
  p.index = index;
  p.error_code = static_cast<int16_t>(e);
  p.base_offset = -1;
  p.log_append_time_ms = -1;
  p.log_start_offset = -1;
  if (!message.empty()) p.error_message = std::move(message);
  return p;
}

// KIP-951: every partition this broker turned away as not its leader names
// the current leader (as this broker's metadata has it) and the answer
// carries those leaders' endpoints.
// The common answer has no such partition and costs one scan, no image.
void name_current_leaders(const request_context& ctx, produce_response& response) {
  std::shared_ptr<const controller::metadata_image> image;
  std::set<int32_t> leaders;
  for (auto& topic : response.responses) {
    const controller::topic_image* t = nullptr;
    for (auto& p : topic.partition_responses) {
      if (p.error_code != static_cast<int16_t>(error_code::not_leader_or_follower)) continue;
      if (!image) image = ctx.services->metadata->image();
      if (!t) t = ctx.api_version >= 13 ? image->topic(controller::topic_id(topic.topic_id)) : image->topic(topic.name);
      const controller::partition_registration* reg = t ? image->partition(t->id, p.index) : nullptr;
      if (reg && p.current_leader.leader_id < 0) {
        p.current_leader.leader_id = reg->leader.value;
        p.current_leader.leader_epoch = reg->leader_epoch.value;
      }
      if (p.current_leader.leader_id >= 0) leaders.insert(p.current_leader.leader_id);
    }
  }
  if (image) response.node_endpoints = leader_endpoints<produce_response::node_endpoint>(*image, ctx.listener_name, leaders);
}

// A partition's batch that passed the checks, to append.
struct ready_append {
  std::shared_ptr<partition> part;
  produce_limits limits;
  std::span<uint8_t> batch;
  size_t topic_index;
  size_t partition_index;
  // With verification on: the guard the append carries (0 when the
  // producer's transaction was already open, or the batch is not
  // transactional).
  std::optional<storage::verification_guard> verification;
};

struct refusal {
  error_code error = error_code::none;
  std::string message;
};

// check_batch let exactly one batch per partition through: its header
// names the producer.
bool more_than_one_transactional_producer(const std::vector<ready_append>& ready) {
  std::optional<std::pair<int64_t, int16_t>> seen;
  for (const auto& a : ready) {
    protocol::record_batch_view b(protocol::bytes_view(a.batch.data(), a.batch.size()));
    if (!b.is_transactional() || b.producer_id() < 0) continue;
    const std::pair<int64_t, int16_t> producer{b.producer_id(), b.producer_epoch()};
    if (seen && *seen != producer) return true;
    seen = producer;
  }
  return false;
}

// What a producer is told when the transaction coordinator did not vouch
// for its write (Kafka's mapping in ReplicaManager). A transactions v2
// client (Produce v12+) knows CONCURRENT_TRANSACTIONS, the common answer
// while its last transaction's markers are written, and gets it as it is;
// older ones retry it only as NOT_ENOUGH_REPLICAS.
refusal refusal_of(error_code e, int16_t produce_version) {
  switch (e) {
    case error_code::invalid_txn_state:
      return {e, "Partition was not added to the transaction"};
    case error_code::concurrent_transactions:
      if (produce_version > 11) return {e, ""};
      [[fallthrough]];
    case error_code::network_exception:
    case error_code::coordinator_load_in_progress:
    case error_code::coordinator_not_available:
    case error_code::not_coordinator:
      return {error_code::not_enough_replicas,
              "Unable to verify the partition has been added to the transaction. Underlying error: " +
                  std::string(protocol::error_name(e))};
    default:
      return {e, ""};
  }
}

// KIP-890 (Kafka's ReplicaManager.handleProduceAppend): the partitions
// whose transactional batch would open a transaction there (the producer
// has none ongoing at this epoch) are checked with the transaction
// coordinator first, or added to the transaction by it for a transactions
// v2 client (Produce v12+). Returns the refused ones by index in `ready`,
// with the errors a producer handles: INVALID_TXN_STATE for a partition
// not in the transaction, NOT_ENOUGH_REPLICAS (retriable, no metadata
// refresh) when the coordinator could not answer. Each append gets the
// verification guard its partition gave before the coordinator was asked;
// adds refused with CONCURRENT_TRANSACTIONS are asked again (Kafka's
// add.partitions.to.txn.retry.backoff.ms), each time with a fresh guard.
asio::awaitable<std::map<size_t, refusal>> verify_transactional(const request_context& ctx,
                                                                const std::string& transactional_id,
                                                                std::vector<ready_append>& ready) {
  std::map<size_t, refusal> refused;
  txn::txn_verifier& verifier = *ctx.services->txn_verifier;
  const auto started = std::chrono::steady_clock::now();
  std::vector<size_t> pending;  // the transactional batches still to verify
  for (size_t i = 0; i < ready.size(); ++i) {
    ready[i].verification = storage::no_verification_guard;
    protocol::record_batch_view batch(protocol::bytes_view(ready[i].batch.data(), ready[i].batch.size()));
    if (batch.is_transactional()) pending.push_back(i);
  }
  while (!pending.empty()) {
    txn::verify_request request;
    request.transactional_id = transactional_id;
    request.operation = ctx.api_version > 11   ? txn::verify_operation::add_partition
                        : ctx.api_version > 10 ? txn::verify_operation::verify_generic_error
                                               : txn::verify_operation::verify_old_client;
    std::map<txn::txn_topic_partition, std::vector<size_t>> by_partition;
    for (size_t i : pending) {
      auto& a = ready[i];
      protocol::record_batch_view batch(protocol::bytes_view(a.batch.data(), a.batch.size()));
      const int64_t producer_id = batch.producer_id();
      const int16_t producer_epoch = batch.producer_epoch();
      const int64_t now_ms = ctx.services->now_ms();
      // A guard taken now, also on a retry: a marker may have spent the
      // one taken before.
      const auto guard = co_await run_on(a.part->strand(), [&] {
        return a.part->start_transaction_verification(producer_id, producer_epoch,
                                                      request.operation == txn::verify_operation::add_partition, now_ms);
      });
      a.verification = guard.value_or(storage::no_verification_guard);
      if (!guard) continue;  // its transaction is open here
      request.producer_id = producer_id;
      request.producer_epoch = producer_epoch;
      by_partition[{a.part->tp().topic, a.part->tp().partition}].push_back(i);
      request.partitions.insert({a.part->tp().topic, a.part->tp().partition});
    }
    if (request.partitions.empty()) break;
    const txn::verify_errors errors = co_await verifier.verify(request);
    if (co_await verifier.wait_to_retry(request, errors, started)) {
      pending.clear();
      for (const auto& [tp, e] : errors) {
        if (e == error_code::concurrent_transactions) {
          auto& again = by_partition[tp];
          pending.insert(pending.end(), again.begin(), again.end());
          continue;
        }
        for (size_t i : by_partition[tp]) refused[i] = refusal_of(e, ctx.api_version);
      }
      continue;
    }
    for (const auto& [tp, e] : errors)
      for (size_t i : by_partition[tp]) refused[i] = refusal_of(e, ctx.api_version);
    break;
  }
  co_return refused;
}

// A Produce request's partitions before anything is appended: the response
// with an answer or a placeholder for each, and the batches to append.
struct produce_plan {
  produce_response response;
  std::vector<ready_append> ready;
  bool any_error = false;
};

// What holds for every partition of one request, decided once.
struct request_facts {
  bool acks_valid;
  bool internal_allowed;
  bool in_doubt;  // after a stall every leadership here may have moved (stall_guard.h)
};

// One partition's batch: refused at once (topic, leadership, batch checks)
// or made ready to append in `plan` (its answer a placeholder until then).

void plan_partition(const request_context& ctx, const request_facts& facts, const controller::topic_image* t,
                    std::string_view topic_name, authorized_names& may_write,
                    const produce_request::partition_produce_data& pd,
                    produce_response::topic_produce_response& tr, produce_plan& plan) {
  const broker_services& s = *ctx.services;
  auto fail = [&](error_code e, std::string message = {}) {
    plan.any_error = true;
    tr.partition_responses.push_back(error_response(pd.index, e, std::move(message)));
  };
  // Kafka's order: a topic id it does not know, then WRITE on the topic,
  // then whether it exists, then the batch and the log's rules.
  if (!t && ctx.api_version >= 13) return fail(error_code::unknown_topic_id);
  if (!may_write(t ? std::string_view(t->name) : std::string_view(topic_name)))
    return fail(error_code::topic_authorization_failed);
  if (!t) return fail(error_code::unknown_topic_or_partition);
  if (!facts.acks_valid) return fail(error_code::invalid_required_acks);
  if (is_internal_topic(t->name) && !facts.internal_allowed)
    return fail(error_code::invalid_topic_exception, "Cannot append to internal topic " + t->name);
  if (!t->partitions.count(pd.index)) return fail(error_code::unknown_topic_or_partition);
  auto p = s.replicas->get({t->name, pd.index});
  if (!p || !p->is_leader() || facts.in_doubt)
    return fail(error_code::not_leader_or_follower);  // the leader is named at the end
  const produce_limits limits = p->status().limits();
  batch_check checked = check_batch(ctx, pd.records, limits, p->tp(), s.now_ms());
  if (checked.error != error_code::none) {
    fail(checked.error, checked.message);
    auto& failed = tr.partition_responses.back();
    if (reports_log_start(checked.stage, checked.error)) failed.log_start_offset = p->log_start_offset().value;
    if (ctx.api_version >= 8)
      for (auto& [index, message] : checked.record_errors) failed.record_errors.push_back({index, message, {}});
    return;
  }
  // Appended later, once the transaction coordinator has vouched for the
  // transactional ones.
  plan.ready.push_back(
      {p, limits, checked.batch, plan.response.responses.size(), tr.partition_responses.size(), std::nullopt});
  produce_response::partition_produce_response placeholder;
  placeholder.index = pd.index;
  tr.partition_responses.push_back(std::move(placeholder));
}

produce_plan plan_produce(const request_context& ctx, const produce_request& request) {
  auto image = ctx.services->metadata->image();
  const request_facts facts{request.acks == -1 || request.acks == 0 || request.acks == 1,
                            ctx.client_id && *ctx.client_id == "__admin_client",
                            leaderships_in_doubt(ctx.services->stalls)};
  produce_plan plan;
  authorized_names may_write(ctx, api_acl(0, "topic"));
  for (const auto& topic : request.topic_data) {
    produce_response::topic_produce_response tr;
    tr.name = topic.name;
    tr.topic_id = topic.topic_id;
    const controller::topic_image* t =
        ctx.api_version >= 13 ? image->topic(controller::topic_id(topic.topic_id)) : image->topic(topic.name);
    for (const auto& pd : topic.partition_data) plan_partition(ctx, facts, t, topic.name, may_write, pd, tr, plan);
    plan.response.responses.push_back(std::move(tr));
  }
  return plan;
}

// An acks=all append still waiting for the HW, and where its answer goes.
struct awaiting {
  std::shared_ptr<partition> part;
  size_t topic_index;
  size_t partition_index;
  storage::offset required;
};

// Appends the ready batches the coordinator did not refuse, in request
// order; the acks=all ones the HW has not passed yet are returned.
asio::awaitable<std::vector<awaiting>> append_ready(const request_context& ctx, const produce_request& request,
                                                    produce_plan& plan, const std::map<size_t, refusal>& refused) {
  const broker_services& s = *ctx.services;
  std::vector<awaiting> waiting;
  for (size_t i = 0; i < plan.ready.size(); ++i) {
    const ready_append& a = plan.ready[i];
    auto& out = plan.response.responses[a.topic_index].partition_responses[a.partition_index];
    if (auto it = refused.find(i); it != refused.end()) {
      plan.any_error = true;
      out = error_response(out.index, it->second.error, it->second.message);
      continue;
    }
    partition_produce_result r = co_await run_on(a.part->strand(), [&] {
      return a.part->append_records(a.batch, request.acks, a.limits, storage::producer_origin::client, s.now_ms(), 0,
                                    a.verification);
    });
    if (r.error != error_code::none) {
      plan.any_error = true;
      out = error_response(out.index, r.error, r.error_message);
      continue;
    }
    out.base_offset = r.base_offset;
    out.log_append_time_ms = r.log_append_time_ms;
    out.log_start_offset = r.log_start_offset;
    if (request.acks == -1) {
      if (!r.acks_done)
        waiting.push_back({a.part, a.topic_index, a.partition_index, storage::offset(r.required_offset)});
      else
        out.error_code = static_cast<int16_t>(r.acks_error);
    }
  }
  co_return waiting;
}

// Kafka's RequestUtils.hasTransactionalRecords: some partition's first
// batch is transactional (a batch too short to say is not).
bool has_transactional_records(const produce_request& request) {
  for (const auto& topic : request.topic_data)
    for (const auto& pd : topic.partition_data) {
      if (pd.records.null || pd.records.size <= magic_offset) continue;
      protocol::record_batch_walker walker(pd.records.bytes());
      protocol::record_batch_view batch;
      if (walker.next(batch) && batch.magic() == 2 && batch.is_transactional()) return true;
    }
  return false;
}

// The whole request refused (Kafka's ProduceRequest.getErrorResponse):
// every partition named, once, with the error (and no message).
produce_response refuse_all(const produce_request& request, error_code e) {
  produce_response response;
  for (const auto& topic : request.topic_data) {
    auto it = std::find_if(response.responses.begin(), response.responses.end(), [&](const auto& tr) {
      return tr.name == topic.name && tr.topic_id == topic.topic_id;
    });
    if (it == response.responses.end()) {
      produce_response::topic_produce_response tr;
      tr.name = topic.name;
      tr.topic_id = topic.topic_id;
      response.responses.push_back(std::move(tr));
      it = std::prev(response.responses.end());
    }
    for (const auto& pd : topic.partition_data) {
      const bool named = std::any_of(it->partition_responses.begin(), it->partition_responses.end(),
                                     [&](const auto& p) { return p.index == pd.index; });
      if (!named) it->partition_responses.push_back(error_response(pd.index, e));
    }
  }
  return response;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<produce_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Transactional batches need WRITE on the transactional id they name.
  if (authorizer_configured(ctx) && has_transactional_records(*request) &&
      (!request->transactional_id || !authorize(ctx, api_acl(0, "transactional_id"), *request->transactional_id))) {
    if (request->acks == 0) co_return handler_result::close("acks=0 produce refused; closing so the client learns of it");
    co_return respond(ctx, refuse_all(*request, error_code::transactional_id_authorization_failed));
  }
  produce_plan plan = plan_produce(ctx, *request);
  // Kafka's ReplicaManager.handleProduceAppend: transactional batches of
  // more than one producer (id and epoch) fail the whole request.
  if (more_than_one_transactional_producer(plan.ready)) {
    for (auto& tr : plan.response.responses)
      for (auto& pr : tr.partition_responses)
        pr = error_response(pr.index, error_code::invalid_producer_id_mapping,
                            "Transactional records contained more than one producer ID");
    if (request->acks == 0) co_return handler_result::close("acks=0 produce failed; closing so the client learns of it");
    co_return respond(ctx, plan.response);
  }
  std::map<size_t, refusal> refused;
  if (request->transactional_id && !plan.ready.empty() && ctx.services->txn_verifier)
    refused = co_await verify_transactional(ctx, *request->transactional_id, plan.ready);
  std::vector<awaiting> waiting = co_await append_ready(ctx, *request, plan, refused);
  if (!waiting.empty()) {
    auto answer = [&](const auto& w, error_code e) {
      plan.response.responses[w.topic_index].partition_responses[w.partition_index].error_code =
          static_cast<int16_t>(e);
    };
    quota::parked parked(&ctx);
    co_await await_acks(waiting, request->timeout_ms, answer);
  }
  if (ctx.api_version >= 10) name_current_leaders(ctx, plan.response);
  plan.response.throttle_time_ms = quota::produce_throttle(ctx, request->acks == 0);
  if (request->acks == 0) {
    if (plan.any_error) co_return handler_result::close("acks=0 produce failed; closing so the client learns of it");
    co_return handler_result::no_response();
  }
  co_return respond(ctx, plan.response);
}

}  // namespace

api_handler produce_handler() { return {0, 3, 13, &handle, /*advertised_min_version=*/0}; }

}  // namespace hw::broker
