#pragma once
// The vocabulary of storage/ interfaces: strong types for the numbers it
// hands across them, so an offset cannot be passed where an epoch is
// expected (protocol/ keeps plain integers on the wire; conversion happens at
// the storage boundary with `.value` and the explicit constructors), and the
// error value returned when a file cannot be read, written or trusted.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace hw::storage {

// A number with a meaning. Comparison with its own kind, and the arithmetic
// an offset or epoch needs: add a plain distance, subtract two values to get
// a distance. Nothing converts implicitly in either direction.
template <typename T, typename Tag>
struct named_type {
  using value_type = T;
  T value{};

  constexpr named_type() = default;
  constexpr explicit named_type(T v) : value(v) {}

  constexpr auto operator<=>(const named_type&) const = default;
  constexpr bool operator==(const named_type&) const = default;

  constexpr named_type operator+(T delta) const { return named_type(static_cast<T>(value + delta)); }
  constexpr named_type operator-(T delta) const { return named_type(static_cast<T>(value - delta)); }
  constexpr T operator-(named_type other) const { return static_cast<T>(value - other.value); }
  constexpr named_type& operator+=(T delta) {
    value = static_cast<T>(value + delta);
    return *this;
  }
  constexpr named_type& operator++() {
    ++value;
    return *this;
  }
  constexpr named_type operator++(int) {
    named_type old = *this;
    ++value;
    return old;
  }

  friend std::ostream& operator<<(std::ostream& os, named_type v) { return os << +v.value; }
};

// A position in a partition's log (Kafka's int64 offset).
using offset = named_type<int64_t, struct offset_tag>;
// The term of a partition leader (int32); starts at 0, bumped by the controller.
using leader_epoch = named_type<int32_t, struct leader_epoch_tag>;
// An idempotent / transactional producer's identity (int64) and epoch (int16).
using producer_id = named_type<int64_t, struct producer_id_tag>;
using producer_epoch = named_type<int16_t, struct producer_epoch_tag>;
// The epoch of the transaction coordinator that wrote a COMMIT/ABORT marker.
using coordinator_epoch = named_type<int32_t, struct coordinator_epoch_tag>;
// A broker or controller (node.id), and a broker's registration epoch.
using node_id = named_type<int32_t, struct node_id_tag>;
using broker_epoch = named_type<int64_t, struct broker_epoch_tag>;
// A partition registration's version: every change the controller makes to
// the partition (leader, ISR, ELR, replicas) bumps it; AlterPartition uses
// it as its compare-and-set key.
using partition_epoch = named_type<int32_t, struct partition_epoch_tag>;

// Lists of named numbers from and to the plain integers of a wire message
// (the metadata records, the replica lists of a request or response).
template <typename Named>
std::vector<Named> named_list(const std::vector<typename Named::value_type>& values) {
  std::vector<Named> out;
  out.reserve(values.size());
  for (auto v : values) out.emplace_back(v);
  return out;
}
template <typename T, typename Tag>
std::vector<T> plain_list(const std::vector<named_type<T, Tag>>& values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (auto v : values) out.push_back(v.value);
  return out;
}

// Kafka's "no value" sentinels (RecordBatch.NO_*, OffsetsForLeaderEpoch's UNDEFINED_*).
inline constexpr leader_epoch undefined_epoch{-1};
inline constexpr offset undefined_epoch_offset{-1};
inline constexpr producer_id no_producer_id{-1};
inline constexpr producer_epoch no_producer_epoch{-1};
inline constexpr int32_t no_sequence = -1;

// Why a file's content cannot be trusted (I/O failures keep their errno).
enum class storage_errc {
  malformed = 1,        // not the format: a bad line, a short record, a wrong count
  unsupported_version,  // well-formed, but a version this code does not read
  checksum_mismatch,    // the stored CRC does not match the content
};

inline const std::error_category& storage_category() {
  struct category final : std::error_category {
    const char* name() const noexcept override { return "hw.storage"; }
    std::string message(int c) const override {
      switch (static_cast<storage_errc>(c)) {
        case storage_errc::malformed: return "malformed file";
        case storage_errc::unsupported_version: return "unsupported file version";
        case storage_errc::checksum_mismatch: return "checksum mismatch";
      }
      return "unknown storage error";
    }
  };
  static const category instance;
  return instance;
}

inline std::error_code make_error_code(storage_errc e) { return {static_cast<int>(e), storage_category()}; }

// An expected failure of reading or writing a storage file: the code to act
// on and a message for the operator that names the file and, for a malformed
// file, the line or byte position.
struct storage_error {
  std::error_code code;
  std::string message;

  storage_error() = default;
  storage_error(std::error_code c, std::string m) : code(c), message(std::move(m)) {}
  explicit operator bool() const { return static_cast<bool>(code); }
};

}  // namespace hw::storage

template <>
struct std::is_error_code_enum<hw::storage::storage_errc> : std::true_type {};

template <typename T, typename Tag>
struct std::hash<hw::storage::named_type<T, Tag>> {
  size_t operator()(hw::storage::named_type<T, Tag> v) const noexcept { return std::hash<T>{}(v.value); }
};
