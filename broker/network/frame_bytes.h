#pragma once
// A frame's bytes as read from a socket (a request on the server side, an
// answer on the client side), owned by one holder at a time.
//
// The buffer is not zeroed before the socket fills it: every byte is read
// into, and these frames carry everything produced and replicated, where
// zero-filling cost as much as a copy.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace hw::broker {

struct frame_bytes {
  std::unique_ptr<uint8_t[]> data;
  size_t size = 0;

  static frame_bytes uninitialized(size_t n) { return {std::make_unique_for_overwrite<uint8_t[]>(n), n}; }
  std::span<uint8_t> bytes() const { return {data.get(), size}; }
};

}  // namespace hw::broker
