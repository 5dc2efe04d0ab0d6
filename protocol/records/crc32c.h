#pragma once
// CRC-32C (Castagnoli), the checksum of RecordBatch v2 (and of nothing else
// in the protocol; the legacy message formats used plain CRC-32).
//
// crc32c() picks, once per process, the SSE4.2 instruction when the CPU has
// it and a table-driven implementation otherwise; both give identical
// results. Pure functions, safe from any thread.

#include <cstdint>
#include <span>

namespace hw::protocol {

// CRC-32C of data: crc32c("123456789") == 0xE3069283.
uint32_t crc32c(std::span<const uint8_t> data);

// Continues a finished CRC over more bytes:
// crc32c_extend(crc32c(a), b) == crc32c(a followed by b); crc32c_extend(0, b) == crc32c(b).
uint32_t crc32c_extend(uint32_t crc, std::span<const uint8_t> data);

// The two implementations behind crc32c_extend, exposed for tests and benchmarks.
namespace crc32c_impl {

// Slicing-by-8 tables; any CPU.
uint32_t extend_portable(uint32_t crc, std::span<const uint8_t> data);

// Whether this process can use extend_hardware (x86-64 with SSE4.2).
bool hardware_available();

// SSE4.2 CRC32 instruction over three interleaved streams. Falls back to
// extend_portable when hardware_available() is false, so it is always safe.
uint32_t extend_hardware(uint32_t crc, std::span<const uint8_t> data);

}  // namespace crc32c_impl
}  // namespace hw::protocol
