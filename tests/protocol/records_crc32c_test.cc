#include "protocol/records/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string_view>
#include <vector>

namespace hw::protocol {
namespace {

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Bit-at-a-time reference straight from the definition (reflected 0x1EDC6F41).
uint32_t reference_crc32c(std::span<const uint8_t> data) {
  uint32_t crc = 0xFFFFFFFF;
  for (uint8_t b : data) {
    crc ^= b;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (0x82F63B78 & (0u - (crc & 1)));
  }
  return ~crc;
}

struct known_vector {
  std::vector<uint8_t> data;
  uint32_t crc;
};

std::vector<known_vector> known_vectors() {
  std::vector<known_vector> v;
  std::string_view digits = "123456789";
  v.push_back({{digits.begin(), digits.end()}, 0xE3069283});
  v.push_back({{}, 0x00000000});
  // RFC 3720 (iSCSI), appendix B.4.
  v.push_back({std::vector<uint8_t>(32, 0x00), 0x8A9136AA});
  v.push_back({std::vector<uint8_t>(32, 0xFF), 0x62A8AB43});
  std::vector<uint8_t> ascending(32), descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<uint8_t>(i);
    descending[i] = static_cast<uint8_t>(31 - i);
  }
  v.push_back({ascending, 0x46DD794E});
  v.push_back({descending, 0x113FDB5C});
  // An iSCSI SCSI Read (10) command PDU.
  v.push_back({{0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
                0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
                0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
               0xD9963A56});
  return v;
}

TEST(RecordsCrc32c, KnownVectorsAllImplementations) {
  for (const known_vector& k : known_vectors()) {
    EXPECT_EQ(reference_crc32c(k.data), k.crc);
    EXPECT_EQ(crc32c(k.data), k.crc);
    EXPECT_EQ(crc32c_impl::extend_portable(0, k.data), k.crc);
    EXPECT_EQ(crc32c_impl::extend_hardware(0, k.data), k.crc);
  }
}

TEST(RecordsCrc32c, HardwareIsUsedWhereAvailable) {
#if defined(HW_X86_64)
  // Every x86-64 machine this runs on in CI has SSE4.2; say so if one does not.
  if (!crc32c_impl::hardware_available()) GTEST_SKIP() << "CPU without SSE4.2";
  EXPECT_TRUE(crc32c_impl::hardware_available());
#else
  EXPECT_FALSE(crc32c_impl::hardware_available());
#endif
}

TEST(RecordsCrc32c, ExtendEqualsWholeBuffer) {
  std::string_view text = "The quick brown fox jumps over the lazy dog";
  uint32_t whole = crc32c(as_bytes(text));
  for (size_t split = 0; split <= text.size(); ++split) {
    uint32_t first = crc32c(as_bytes(text.substr(0, split)));
    EXPECT_EQ(crc32c_extend(first, as_bytes(text.substr(split))), whole) << split;
    EXPECT_EQ(crc32c_impl::extend_portable(first, as_bytes(text.substr(split))), whole) << split;
  }
}

// Lengths 0..1100 cross the 8-byte, 768-byte (three short streams) and
// tail paths; offsets 0..7 cover every misalignment.
TEST(RecordsCrc32c, ImplementationsAgreeOnRandomBuffers) {
  std::mt19937 rng(20240601);
  std::vector<uint8_t> buffer(1100 + 8);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  for (size_t length = 0; length <= 1100; ++length) {
    for (size_t offset = 0; offset < 8; ++offset) {
      std::span<const uint8_t> data(buffer.data() + offset, length);
      uint32_t expected = reference_crc32c(data);
      ASSERT_EQ(crc32c_impl::extend_portable(0, data), expected) << length << "+" << offset;
      ASSERT_EQ(crc32c_impl::extend_hardware(0, data), expected) << length << "+" << offset;
      ASSERT_EQ(crc32c(data), expected);
    }
  }
}

// Large buffers take the three long streams (3 x 8 KiB) and their combination.
TEST(RecordsCrc32c, ImplementationsAgreeOnLargeBuffers) {
  std::mt19937 rng(7);
  // Room for the longest length at the largest offset (AddressSanitizer
  // caught 100000 bytes read from a 99304-byte buffer).
  std::vector<uint8_t> buffer(100000 + 3);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  for (size_t length : {24575u, 24576u, 24577u, 49152u + 777u, 100000u, 3u * 8192u * 4u + 999u}) {
    for (size_t offset : {0u, 1u, 3u}) {
      std::span<const uint8_t> data(buffer.data() + offset, length);
      uint32_t expected = reference_crc32c(data);
      EXPECT_EQ(crc32c_impl::extend_portable(0, data), expected) << length;
      EXPECT_EQ(crc32c_impl::extend_hardware(0, data), expected) << length;
    }
  }
}

TEST(RecordsCrc32c, ExtendAcrossImplementations) {
  std::mt19937 rng(99);
  std::vector<uint8_t> buffer(70000);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  std::span<const uint8_t> all(buffer);
  uint32_t expected = reference_crc32c(all);
  for (size_t split : {0u, 1u, 13u, 4096u, 30000u, 69999u, 70000u}) {
    uint32_t head = crc32c_impl::extend_hardware(0, all.first(split));
    EXPECT_EQ(crc32c_impl::extend_portable(head, all.subspan(split)), expected);
    head = crc32c_impl::extend_portable(0, all.first(split));
    EXPECT_EQ(crc32c_impl::extend_hardware(head, all.subspan(split)), expected);
  }
}

}  // namespace
}  // namespace hw::protocol
