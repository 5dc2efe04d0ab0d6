#pragma once
// The file layer under storage/: every byte the broker keeps goes through
// these two interfaces, so tests can inject full disks, failed fsyncs and
// crashes that lose unsynced data. Errors are std::error_code values
// (errno in std::system_category()). Implementations are thread-safe for
// distinct files; one file is used by its owner's strand only, except that
// read_at may run concurrently with writes past the range being read.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

namespace hw::storage {

class file {
 public:
  virtual ~file() = default;
  // Writes all of data at offset, or fails (ENOSPC, EIO, ...).
  virtual std::error_code write_at(uint64_t offset, std::span<const uint8_t> data) = 0;
  // Reads up to out.size() bytes at offset; *read is short only at end of file.
  virtual std::error_code read_at(uint64_t offset, std::span<uint8_t> out, size_t* read) = 0;
  // fdatasync: everything written so far survives a crash once this returns.
  virtual std::error_code sync() = 0;
  virtual std::error_code truncate(uint64_t size) = 0;
  virtual std::error_code size(uint64_t* out) = 0;
  // The OS descriptor, for sendfile; -1 where there is none (test doubles).
  virtual int native_handle() const = 0;
};

enum class open_mode {
  read_only,
  read_write,        // create if missing
  create_exclusive,  // fail if it exists
};

class file_system {
 public:
  virtual ~file_system() = default;
  virtual std::error_code open(const std::filesystem::path& p, open_mode mode,
                               std::unique_ptr<file>* out) = 0;
  virtual std::error_code rename(const std::filesystem::path& from,
                                 const std::filesystem::path& to) = 0;
  virtual std::error_code remove(const std::filesystem::path& p) = 0;
  virtual std::error_code remove_all(const std::filesystem::path& p) = 0;
  virtual std::error_code create_directories(const std::filesystem::path& p) = 0;
  // fsync of a directory, so that a rename or a new file in it is durable.
  virtual std::error_code sync_directory(const std::filesystem::path& p) = 0;
  // Names (not paths) of the entries of a directory, sorted.
  virtual std::error_code list(const std::filesystem::path& dir, std::vector<std::string>* names) = 0;
  virtual bool exists(const std::filesystem::path& p) = 0;
  virtual bool is_directory(const std::filesystem::path& p) = 0;
};

std::unique_ptr<file_system> make_posix_file_system();

// Reads a whole (small) file, for checkpoints and properties files.
std::error_code read_whole_file(file_system& fs, const std::filesystem::path& p, std::string* out);

// Replaces p with content atomically and durably: write p<tmp_suffix>
// (p.tmp), fsync it, rename over p, fsync the directory. A crash leaves
// either the old or the new content, never a mix. Two writers of one file
// at once must use different suffixes (each rename is atomic: the file then
// holds one of the contents).
std::error_code write_file_atomically(file_system& fs, const std::filesystem::path& p, std::string_view content,
                                      std::string_view tmp_suffix = ".tmp");

}  // namespace hw::storage
