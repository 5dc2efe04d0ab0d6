#pragma once
// The file side shared by the offset index (.index) and the time index
// (.timeindex). Entries live in memory; the file is brought up to date in one
// write at flush, roll and close rather than one syscall per entry. Entries
// removed by a truncation below what the file already holds are cut from the
// file at the next write. Owned by its index, used by the log's writer only.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "storage/io/file_system.h"

namespace hw::storage {

class index_file {
 public:
  // Opens path (created empty if missing) and returns its bytes in *contents.
  static std::error_code open(file_system& fs, const std::filesystem::path& path, size_t entry_bytes,
                              std::unique_ptr<index_file>* out, std::vector<uint8_t>* contents);

  const std::filesystem::path& path() const { return path_; }
  // Points at a renamed file (the caller renamed it).
  void set_path(std::filesystem::path p) { path_ = std::move(p); }
  // The file's size when it was opened (sanity checks want a whole number of entries).
  uint64_t loaded_bytes() const { return loaded_bytes_; }

  // The in-memory index now holds only its first `entries` entries.
  void truncated_to(size_t entries);

  // Writes entries [written, entries) to the file, each encoded by
  // encode(i, destination), after cutting a stale tail. No fsync.
  template <typename Encode>
  std::error_code write_out(size_t entries, Encode encode) {
    if (auto ec = cut_stale_tail()) return ec;
    if (entries <= written_) return {};
    std::vector<uint8_t> bytes((entries - written_) * entry_bytes_);
    for (size_t i = written_; i < entries; ++i) encode(i, bytes.data() + (i - written_) * entry_bytes_);
    return write_tail(entries, bytes);
  }
  std::error_code sync() { return file_->sync(); }

 private:
  index_file(std::unique_ptr<file> f, std::filesystem::path path, size_t entry_bytes, uint64_t loaded_bytes);
  std::error_code cut_stale_tail();
  std::error_code write_tail(size_t entries, const std::vector<uint8_t>& bytes);

  std::unique_ptr<file> file_;
  std::filesystem::path path_;
  size_t entry_bytes_;
  uint64_t loaded_bytes_;
  // Entries the file holds (a prefix of the in-memory ones), and whether the
  // file holds more than that prefix (after a truncation) and must be cut.
  size_t written_;
  bool stale_tail_;
};

}  // namespace hw::storage
