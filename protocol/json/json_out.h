#pragma once
// Writes JSON as Kafka's tools print it: the generated JsonConverters of
// Kafka's messages turned into text by Jackson (ObjectNode.toString()).
// Compact (no spaces), strings escaped as Jackson escapes them, numbers in
// decimal, doubles as Java's Double.toString, UUIDs in Kafka's URL-safe
// base64, bytes in standard base64 with padding. Strings read from the wire
// are shown as Java decodes them: malformed UTF-8 becomes U+FFFD.
// Used by the generated protocol/messages/json/json.h (tools only).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/wire/uuid.h"

namespace hw::protocol::json {

class json_out {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);

  void null();
  void boolean(bool v);
  void integer(int64_t v);
  void float64(double v);
  void string(std::string_view utf8);
  void uuid(const ::hw::protocol::uuid& v);
  // A bytes field named `field`: the hook's view of it when the hook takes
  // it, else base64.
  void bytes(std::string_view field, const std::vector<uint8_t>& v);
  // Writes text as is (already JSON).
  void raw(std::string_view json);

  // The message carried tagged fields this schema does not know, which
  // Kafka would have printed under their names: the text is incomplete.
  void unknown_tags() { complete_ = false; }
  bool complete() const { return complete_; }

  const std::string& text() const { return text_; }

  // Replaces a bytes field's base64 with another view (Kafka's tool shows the
  // consumer protocol inside GroupMetadataValue decoded). Returns true when
  // it wrote the value.
  std::function<bool(std::string_view field, const std::vector<uint8_t>& v, json_out& out)> bytes_hook;

 private:
  void before_value();
  void separator();

  std::string text_;
  std::vector<bool> first_;
  bool after_key_ = false;
  bool complete_ = true;
};

// Java's `new String(bytes, UTF_8)` re-encoded: well-formed UTF-8 unchanged,
// each maximal ill-formed subsequence replaced by U+FFFD.
std::string java_utf8(std::string_view bytes);
// Jackson's quoting of a string (with the quotes).
std::string quoted(std::string_view utf8);
// Java's Double.toString.
std::string java_double(double v);
// Base64 with the standard alphabet and padding (Jackson's default variant).
std::string base64(const uint8_t* data, size_t size);

}  // namespace hw::protocol::json
