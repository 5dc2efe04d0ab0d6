#include "storage/clean_shutdown.h"

#include <cctype>
#include <limits>

#include "storage/checkpoint_file.h"

namespace hw::storage {
namespace {

constexpr int32_t clean_shutdown_version = 0;

// Just enough JSON to read one flat-or-nested object the way Jackson would
// bind it to Kafka's {version, brokerEpoch} with unknown fields ignored.
class json_cursor {
 public:
  explicit json_cursor(std::string_view s) : s_(s) {}

  bool consume(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool string(std::string* out) {
    if (!consume('"')) return false;
    out->clear();
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\') ++pos_;  // escapes only matter for skipping here
      if (pos_ < s_.size()) *out += s_[pos_++];
    }
    return consume_raw('"');
  }
  // A JSON number token; `integral` if it has no fraction or exponent.
  bool number(std::string_view* token, bool* integral) {
    skip_space();
    size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    *integral = true;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == '+' || s_[pos_] == '-')) {
      if (!std::isdigit(static_cast<unsigned char>(s_[pos_]))) *integral = false;
      ++pos_;
    }
    *token = s_.substr(start, pos_ - start);
    return pos_ > start && (*token != "-");
  }
  bool literal(std::string_view word) {
    skip_space();
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool skip_value(int depth = 0) {
    if (depth > 32) return false;
    skip_space();
    if (pos_ >= s_.size()) return false;
    char c = s_[pos_];
    if (c == '"') {
      std::string ignored;
      return string(&ignored);
    }
    if (c == '{' || c == '[') return skip_container(depth);
    if (literal("true") || literal("false") || literal("null")) return true;
    std::string_view token;
    bool integral = false;
    return number(&token, &integral);
  }

 private:
  bool skip_container(int depth) {
    char close = s_[pos_] == '{' ? '}' : ']';
    ++pos_;
    if (consume(close)) return true;
    do {
      if (close == '}') {
        std::string key;
        if (!string(&key) || !consume(':')) return false;
      }
      if (!skip_value(depth + 1)) return false;
    } while (consume(','));
    return consume(close);
  }
  bool consume_raw(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Reads an integral JSON number into a Java int or long.
template <typename T>
bool read_integral(json_cursor& json, T* out) {
  std::string_view token;
  bool integral = false;
  if (!json.number(&token, &integral) || !integral) return false;
  int64_t v = 0;
  if (!parse_java_int64(token, &v) || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
    return false;
  *out = static_cast<T>(v);
  return true;
}

}  // namespace

std::string format_clean_shutdown(broker_epoch epoch) {
  return "{\"version\":" + std::to_string(clean_shutdown_version) + ",\"brokerEpoch\":" + std::to_string(epoch.value) +
         "}";
}

std::optional<broker_epoch> parse_clean_shutdown(std::string_view content) {
  json_cursor json(content);
  std::optional<broker_epoch> epoch;
  if (!json.consume('{')) return std::nullopt;
  if (!json.consume('}')) {
    do {
      std::string key;
      if (!json.string(&key) || !json.consume(':')) return std::nullopt;
      if (key == "brokerEpoch") {
        if (json.literal("null")) {
          epoch.reset();
          continue;
        }
        int64_t v = 0;
        if (!read_integral(json, &v)) return std::nullopt;
        epoch = broker_epoch(v);
      } else if (key == "version") {
        int32_t version = 0;  // bound by Jackson as an int; its value is not checked by Kafka
        if (!read_integral(json, &version)) return std::nullopt;
      } else if (!json.skip_value()) {
        return std::nullopt;
      }
    } while (json.consume(','));
    if (!json.consume('}')) return std::nullopt;
  }
  return epoch;  // like Jackson's default, whatever follows the object is not read
}

storage_error write_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir, broker_epoch epoch) {
  return write_text_file_atomically(fs, log_dir / clean_shutdown_name, format_clean_shutdown(epoch));
}

bool has_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir) {
  return fs.exists(log_dir / clean_shutdown_name);
}

std::optional<broker_epoch> read_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir) {
  std::string content;
  if (read_whole_file(fs, log_dir / clean_shutdown_name, &content)) return std::nullopt;
  return parse_clean_shutdown(content);
}

storage_error remove_clean_shutdown_marker(file_system& fs, const std::filesystem::path& log_dir) {
  std::filesystem::path p = log_dir / clean_shutdown_name;
  if (!fs.exists(p)) return {};
  if (auto ec = fs.remove(p)) return {ec, "cannot remove " + p.string() + ": " + ec.message()};
  if (auto ec = fs.sync_directory(log_dir)) return {ec, "cannot sync " + log_dir.string() + ": " + ec.message()};
  return {};
}

}  // namespace hw::storage
