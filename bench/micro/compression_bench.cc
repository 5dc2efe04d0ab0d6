// Codec throughput on a 1 MiB records payload of 1 KiB JSON-ish records:
// decompression (what the broker does on Produce validation and consumers
// on every fetch) and, for reference, compression. Bytes are uncompressed bytes.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "protocol/records/compression.h"
#include "protocol/records/record_batch_builder.h"

namespace {

using namespace hw::protocol;

constexpr size_t kPayloadBytes = 1 << 20;

// Records that look like application events: repeated field names, varying
// ids, timestamps and free text, about 1 KiB each.
std::string json_record(std::mt19937& rng) {
  static const char* const kWords[] = {"checkout", "payment", "shipped", "refund",  "cart",
                                       "session",  "mobile",  "desktop", "eu-west", "us-east"};
  std::string s = R"({"event_id":")" + std::to_string(rng()) + R"(","ts":)" +
                  std::to_string(1700000000000ull + rng() % 100000) + R"(,"user":{"id":)" +
                  std::to_string(rng() % 1000000) + R"(,"region":")" + kWords[rng() % 10] +
                  R"("},"items":[)";
  while (s.size() < 960) {
    s += R"({"sku":"SKU-)" + std::to_string(rng() % 100000) + R"(","qty":)" +
         std::to_string(rng() % 9 + 1) + R"(,"note":")" + kWords[rng() % 10] + " " +
         kWords[rng() % 10] + R"("},)";
  }
  s.back() = ']';
  s += "}";
  s.resize(1024, ' ');
  return s;
}

// The uncompressed records payload of a batch (what the codec sees).
std::vector<uint8_t> records_payload() {
  std::mt19937 rng(1);
  record_batch_builder builder({});
  while (builder.records_bytes() + 1100 < kPayloadBytes) {
    std::string value = json_record(rng);
    std::string key = "user-" + std::to_string(rng() % 10000);
    builder.append(1700000000000, bytes_view(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   bytes_view(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  std::vector<uint8_t> batch = builder.finish();
  return {batch.begin() + 61, batch.end()};
}

const std::vector<uint8_t>& payload() {
  static const std::vector<uint8_t> p = records_payload();
  return p;
}

void BM_RecordsDecompress(benchmark::State& state) {
  auto codec = static_cast<compression>(state.range(0));
  std::vector<uint8_t> packed = compress(codec, payload());
  std::vector<uint8_t> out;
  for (auto _ : state) {
    codec_status s = decompress_into(codec, packed, 4 << 20, out);
    if (!s.ok()) state.SkipWithError(s.message);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(payload().size()));
  state.SetLabel(std::string(compression_name(codec)) + " ratio " +
                 std::to_string(static_cast<double>(payload().size()) / packed.size()).substr(0, 4));
}
BENCHMARK(BM_RecordsDecompress)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_RecordsCompress(benchmark::State& state) {
  auto codec = static_cast<compression>(state.range(0));
  std::vector<uint8_t> out;
  for (auto _ : state) {
    out.clear();
    compress_into(codec, payload(), out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(payload().size()));
  state.SetLabel(std::string(compression_name(codec)) + " (Kafka's default level)");
}
BENCHMARK(BM_RecordsCompress)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

}  // namespace
