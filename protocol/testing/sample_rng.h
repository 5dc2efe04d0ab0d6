#pragma once
// Test support for the generated codecs: a seeded generator of sample values
// and the encode → decode → re-encode check run for every definition and
// version. Linked only into tests (hw_protocol_testing).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/wire/codec.h"
#include "protocol/wire/uuid.h"

namespace hw::protocol::testing {

// splitmix64: tiny, seedable, and the same on every platform.
class sample_rng {
 public:
  explicit sample_rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
  bool chance(uint64_t one_in) { return below(one_in) == 0; }

 private:
  uint64_t state_;
};

inline std::string sample_string(sample_rng& rng) {
  std::string s(rng.below(12), 'a');
  for (char& c : s) c = static_cast<char>('a' + rng.below(26));
  return s;
}

inline std::vector<uint8_t> sample_bytes(sample_rng& rng) {
  std::vector<uint8_t> b(rng.below(20));
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng.next());
  return b;
}

inline uuid sample_uuid(sample_rng& rng) {
  uuid u;
  if (rng.chance(5)) return u;
  for (uint8_t& x : u.bytes) x = static_cast<uint8_t>(rng.next());
  return u;
}

// Records point into a static buffer, as decoded records point into a frame.
inline records_view sample_records(sample_rng& rng) {
  static const std::array<uint8_t, 64> kPool = [] {
    std::array<uint8_t, 64> a{};
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i * 37 + 11);
    return a;
  }();
  size_t len = rng.below(kPool.size());
  return records_view(bytes_view(kPool.data(), len));
}

template <typename T, typename Fill>
std::string roundtrip(int16_t version, uint64_t seed, Fill fill) {
  sample_rng rng(seed);
  T original;
  fill(original, version, rng);

  std::vector<uint8_t> bytes;
  writer w(bytes);
  original.encode(w, version);
  if (bytes.size() != original.encoded_size(version))
    return "encoded_size " + std::to_string(original.encoded_size(version)) +
           " differs from the " + std::to_string(bytes.size()) + " bytes written";

  reader r(bytes);
  T decoded;
  decoded.decode(r, version);
  if (!r.ok()) return std::string("decode failed: ") + r.error();
  if (r.remaining() != 0) return "decode left " + std::to_string(r.remaining()) + " bytes";
  if (!(decoded == original)) return "decoded value differs from the original";

  std::vector<uint8_t> again;
  writer w2(again);
  decoded.encode(w2, version);
  if (again != bytes) return "re-encoded bytes differ";
  return {};
}

}  // namespace hw::protocol::testing
