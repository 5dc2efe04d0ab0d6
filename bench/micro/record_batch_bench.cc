// The Produce read path for one batch: frame, validate (CRC-32C over the
// whole batch) and decode every record of a 1 MiB uncompressed batch of
// 1 KiB records.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"

namespace {

using namespace hw::protocol;

std::vector<uint8_t> one_mib_batch(compression codec) {
  std::mt19937 rng(3);
  record_batch_options o;
  o.codec = codec;
  o.producer_id = 1;
  o.producer_epoch = 0;
  o.base_sequence = 0;
  record_batch_builder builder(o);
  std::string value(1000, 'x');
  record_header headers[] = {{"content-type", bytes_view(reinterpret_cast<const uint8_t*>("json"), 4)}};
  while (builder.records_bytes() + 1100 < (1 << 20)) {
    for (auto& c : value) c = static_cast<char>('a' + rng() % 26);
    std::string key = "key-" + std::to_string(builder.record_count());
    builder.append(1700000000000 + builder.record_count(),
                   bytes_view(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   bytes_view(reinterpret_cast<const uint8_t*>(value.data()), value.size()), headers);
  }
  return builder.finish();
}

void BM_RecordBatchParseValidateIterate(benchmark::State& state) {
  auto codec = static_cast<compression>(state.range(0));
  std::vector<uint8_t> batch = one_mib_batch(codec);
  std::vector<uint8_t> scratch;
  int64_t records = 0;
  for (auto _ : state) {
    batch_parse_result p = parse_record_batch(batch);
    if (!p.ok() || p.batch.validate() != batch_error::none) state.SkipWithError("invalid batch");
    record_iterator it;
    if (p.batch.open_records(scratch, 4 << 20, it) != batch_error::none) state.SkipWithError("open");
    record_view r;
    size_t value_bytes = 0;
    while (it.next(r)) {
      value_bytes += r.value->size();
      ++records;
    }
    benchmark::DoNotOptimize(value_bytes);
  }
  // Bytes of the batch as it arrives (compressed when a codec is set).
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(batch.size()));
  state.counters["records/s"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
  state.SetLabel(std::string(compression_name(codec)));
}
BENCHMARK(BM_RecordBatchParseValidateIterate)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace
