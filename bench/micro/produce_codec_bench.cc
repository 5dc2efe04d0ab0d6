// Decode and re-encode of a Produce request carrying 1 MiB of records.
// Records stay a view into the request buffer, so the cost must not grow
// with the number of records inside the batch.

#include <benchmark/benchmark.h>

#include <vector>

#include "protocol/messages/produce.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"

namespace {

using hw::protocol::reader;
using hw::protocol::records_view;
using hw::protocol::writer;
using hw::protocol::msg::produce_request;

constexpr int16_t kVersion = 11;

std::vector<uint8_t> make_request(size_t partitions, size_t bytes_per_partition,
                                  std::vector<uint8_t>& payload) {
  payload.assign(bytes_per_partition, 0x5a);
  produce_request req;
  req.acks = -1;
  req.timeout_ms = 30000;
  produce_request::topic_produce_data topic;
  topic.name = "bench-topic";
  for (size_t p = 0; p < partitions; ++p) {
    produce_request::partition_produce_data part;
    part.index = static_cast<int32_t>(p);
    part.records = records_view(payload);
    topic.partition_data.push_back(part);
  }
  req.topic_data.push_back(topic);
  std::vector<uint8_t> out;
  writer w(out);
  req.encode(w, kVersion);
  return out;
}

void BM_ProduceDecode(benchmark::State& state) {
  std::vector<uint8_t> payload;
  auto bytes = make_request(static_cast<size_t>(state.range(0)), (1 << 20) / state.range(0), payload);
  for (auto _ : state) {
    reader r(bytes);
    produce_request req;
    req.decode(r, kVersion);
    benchmark::DoNotOptimize(req);
    if (!r.ok()) state.SkipWithError("decode failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (1 << 20));
}
BENCHMARK(BM_ProduceDecode)->Arg(1)->Arg(16);

void BM_ProduceDecodeReencode(benchmark::State& state) {
  std::vector<uint8_t> payload;
  auto bytes = make_request(static_cast<size_t>(state.range(0)), (1 << 20) / state.range(0), payload);
  std::vector<uint8_t> out;
  out.reserve(bytes.size());
  for (auto _ : state) {
    reader r(bytes);
    produce_request req;
    req.decode(r, kVersion);
    out.clear();
    writer w(out);
    req.encode(w, kVersion);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (1 << 20));
}
BENCHMARK(BM_ProduceDecodeReencode)->Arg(1)->Arg(16);

// What the broker does with a Produce request before the append: decode the
// request, then per batch check the CRC and header and walk every record.
// The payload is a real 1 MiB batch of 1 KiB records.
void BM_ProduceDecodeValidateIterate(benchmark::State& state) {
  hw::protocol::record_batch_builder builder({});
  std::vector<uint8_t> value(1024, 'v');
  std::vector<uint8_t> key(16, 'k');
  while (builder.records_bytes() + 1100 < (1 << 20))
    builder.append(1700000000000, hw::protocol::bytes_view(key), hw::protocol::bytes_view(value));
  std::vector<uint8_t> batch = builder.finish();
  const int32_t records = builder.record_count();

  produce_request req;
  req.acks = -1;
  req.timeout_ms = 30000;
  produce_request::topic_produce_data topic;
  topic.name = "bench-topic";
  produce_request::partition_produce_data part;
  part.records = records_view(batch);
  topic.partition_data.push_back(part);
  req.topic_data.push_back(topic);
  std::vector<uint8_t> bytes;
  writer w(bytes);
  req.encode(w, kVersion);

  std::vector<uint8_t> scratch;
  for (auto _ : state) {
    reader r(bytes);
    produce_request decoded;
    decoded.decode(r, kVersion);
    int32_t seen = 0;
    for (const auto& t : decoded.topic_data)
      for (const auto& p : t.partition_data) {
        hw::protocol::record_batch_walker walker(p.records.bytes());
        hw::protocol::record_batch_view b(hw::protocol::bytes_view{});
        while (walker.next(b)) {
          if (b.validate() != hw::protocol::batch_error::none) state.SkipWithError("invalid batch");
          hw::protocol::record_iterator it(b.records_bytes(), b.context());
          hw::protocol::record_view rec;
          while (it.next(rec)) ++seen;
        }
      }
    if (seen != records) state.SkipWithError("record count mismatch");
    benchmark::DoNotOptimize(seen);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(batch.size()));
  state.counters["records"] = records;
}
BENCHMARK(BM_ProduceDecodeValidateIterate);

}  // namespace
