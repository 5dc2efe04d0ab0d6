// CRC-32C throughput: the SSE4.2 path and the portable tables, at the sizes
// of a small batch, a typical batch and a large one.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "protocol/records/crc32c.h"

namespace {

using namespace hw::protocol;

std::vector<uint8_t> random_buffer(size_t n) {
  std::mt19937 rng(42);
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

void BM_Crc32cHardware(benchmark::State& state) {
  if (!crc32c_impl::hardware_available()) {
    state.SkipWithError("no SSE4.2 on this CPU");
    return;
  }
  std::vector<uint8_t> data = random_buffer(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_impl::extend_hardware(0, data));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Crc32cHardware)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);

void BM_Crc32cPortable(benchmark::State& state) {
  std::vector<uint8_t> data = random_buffer(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_impl::extend_portable(0, data));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Crc32cPortable)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);

}  // namespace
