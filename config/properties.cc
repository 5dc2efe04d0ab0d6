#include "config/properties.h"

#include <cstdint>

namespace hw::config {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits the text into logical lines: a natural line ending in an odd number
// of backslashes continues on the next one, whose leading blanks are dropped.
// Comment and blank natural lines never continue.
struct logical_line {
  std::string text;  // still escaped, continuation backslashes removed
  int line;
};

std::vector<logical_line> logical_lines(std::string_view text) {
  std::vector<logical_line> out;
  size_t pos = 0;
  int line_no = 0;
  bool continuing = false;
  while (pos < text.size()) {
    size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    std::string_view natural = text.substr(pos, end - pos);
    ++line_no;
    // Skip the terminator: \n, \r or \r\n.
    pos = end;
    if (pos < text.size() && text[pos] == '\r') {
      ++pos;
      if (pos < text.size() && text[pos] == '\n') ++pos;
    } else if (pos < text.size() && text[pos] == '\n') {
      ++pos;
    }

    size_t first = 0;
    while (first < natural.size() && is_blank(natural[first])) ++first;
    natural.remove_prefix(first);
    if (!continuing) {
      if (natural.empty() || natural.front() == '#' || natural.front() == '!') continue;
      out.push_back({std::string(), line_no});
    }
    size_t backslashes = 0;
    while (backslashes < natural.size() && natural[natural.size() - 1 - backslashes] == '\\') ++backslashes;
    continuing = (backslashes % 2) == 1;
    if (continuing) natural.remove_suffix(1);
    out.back().text.append(natural);
  }
  return out;
}

// Decodes the escapes of s into out; returns false on a malformed \u.
bool unescape(std::string_view s, std::string& out) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i >= s.size()) break;  // a lone trailing backslash is dropped, as Java does
    c = s[i];
    switch (c) {
      case 't': out.push_back('\t'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 'f': out.push_back('\f'); break;
      case 'u': {
        uint32_t cp = 0;
        for (int k = 1; k <= 4; ++k) {
          if (i + k >= s.size()) return false;
          int h = hex_value(s[i + k]);
          if (h < 0) return false;
          cp = (cp << 4) | static_cast<uint32_t>(h);
        }
        i += 4;
        append_utf8(out, cp);
        break;
      }
      default: out.push_back(c);
    }
  }
  return true;
}

}  // namespace

properties_result parse_properties(std::string_view text) {
  properties_result result;
  for (const logical_line& ll : logical_lines(text)) {
    std::string_view s = ll.text;
    // The key ends at the first unescaped '=', ':' or blank.
    size_t key_end = 0;
    bool escaped = false;
    for (; key_end < s.size(); ++key_end) {
      char c = s[key_end];
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '=' || c == ':' || is_blank(c)) {
        break;
      }
    }
    size_t value_start = key_end;
    while (value_start < s.size() && is_blank(s[value_start])) ++value_start;
    if (value_start < s.size() && (s[value_start] == '=' || s[value_start] == ':')) {
      ++value_start;
      while (value_start < s.size() && is_blank(s[value_start])) ++value_start;
    }
    property p;
    p.line = ll.line;
    if (!unescape(s.substr(0, key_end), p.key) || !unescape(s.substr(value_start), p.value)) {
      result.errors.push_back("line " + std::to_string(ll.line) + ": malformed \\uxxxx escape");
      continue;
    }
    result.entries.push_back(std::move(p));
  }
  return result;
}

}  // namespace hw::config
