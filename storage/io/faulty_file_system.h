#pragma once
// An in-memory file_system for tests that models what survives a crash and
// injects the failures real disks produce.
//
// Durability model (strict POSIX, the one write_file_atomically is written
// against): each file keeps its current bytes and the bytes of its last
// successful sync(); each directory keeps its current entries and the entries
// of its last successful sync_directory(). crash() reverts every directory to
// its synced entries and every file to its synced bytes, so a file created,
// renamed or removed without a directory fsync is back where it was, and data
// written without sync() is gone. A synced file whose directory entry was
// never synced is gone too.
//
// Faults: a byte budget after which writes fail with ENOSPC (the write that
// crosses it lands partially, as a short pwrite would); and injected faults at
// named points (before/after an operation, optionally only for paths that
// contain a substring): fail with an error, or crash. An injected crash also
// halts the file system (every call fails with EIO, as the process would be
// dead) until restart(); handles opened before a crash stay stale forever.
//
// All paths resolve from one root: "a/b" and "/a/b" are the same entry.
// Owned by a test; thread-safe (one mutex: a leaf test double, not a hot path).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "storage/io/file_system.h"

namespace hw::storage {

// The operations a fault can be attached to.
enum class fs_op {
  open,                // open of a file in any mode
  write,               // file::write_at
  sync,                // file::sync
  truncate,            // file::truncate
  rename,              // file_system::rename (path is the source)
  remove,              // remove and remove_all
  create_directories,  //
  sync_directory,      //
};

enum class fault_action {
  fail_before,   // the operation does not happen; it returns `error`
  fail_after,    // the operation happens, then reports `error`
  crash_before,  // crash without doing the operation; returns EIO; halted until restart()
  crash_after,   // do the operation, then crash; returns EIO; halted until restart()
};

struct fault {
  fs_op op = fs_op::write;
  fault_action action = fault_action::fail_before;
  // Only operations whose path contains this substring match; empty matches all.
  std::string path_contains;
  // Matching operations to let through before the fault fires.
  int skip = 0;
  // How many times it fires; negative means every time.
  int times = 1;
  std::error_code error = std::make_error_code(std::errc::io_error);
};

// "before rename", "after sync_directory", ...: the name a fault's point is logged under.
std::string fault_point_name(fs_op op, fault_action action);

class faulty_file_system final : public file_system {
 public:
  faulty_file_system();
  ~faulty_file_system() override;

  // file_system
  std::error_code open(const std::filesystem::path& p, open_mode mode, std::unique_ptr<file>* out) override;
  std::error_code rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  std::error_code remove(const std::filesystem::path& p) override;
  std::error_code remove_all(const std::filesystem::path& p) override;
  std::error_code create_directories(const std::filesystem::path& p) override;
  std::error_code sync_directory(const std::filesystem::path& p) override;
  std::error_code list(const std::filesystem::path& dir, std::vector<std::string>* names) override;
  bool exists(const std::filesystem::path& p) override;
  bool is_directory(const std::filesystem::path& p) override;

  // Writes fail with ENOSPC once `bytes` more bytes have been written.
  void set_space_left(uint64_t bytes);
  void clear_space_limit();

  // Every file sync (or directory sync) fails with EIO until cleared.
  void fail_syncs(bool on);
  void fail_directory_syncs(bool on);

  void inject(fault f);
  void clear_faults();
  // The points at which injected faults fired, in order ("before rename: /d/x.tmp").
  std::vector<std::string> fired_faults() const;

  // Loses everything not made durable. Handles opened before become stale.
  void crash();
  // Ends the halt that follows an injected crash.
  void restart();
  bool halted() const;

  // What p would contain after a crash right now, without crashing; nullopt
  // if p would not exist.
  std::optional<std::string> durable_content(const std::filesystem::path& p) const;

  struct counters {
    uint64_t bytes_written = 0;
    uint64_t file_syncs = 0;
    uint64_t directory_syncs = 0;
    uint64_t renames = 0;
  };
  counters stats() const;

  struct node;
  struct state;

 private:
  std::shared_ptr<state> state_;
};

}  // namespace hw::storage
