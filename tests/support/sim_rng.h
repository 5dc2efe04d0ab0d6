#pragma once
// The seeded random source of the deterministic simulations (raft,
// replication): splitmix64, tiny and the same sequence on every platform,
// so a failing seed replays exactly anywhere.

#include <cstdint>

namespace hw::testing {

class sim_rng {
 public:
  explicit sim_rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // [lo, hi)
  int64_t uniform(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo)); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }

 private:
  uint64_t s_;
};

}  // namespace hw::testing
