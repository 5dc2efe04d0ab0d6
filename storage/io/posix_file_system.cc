#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "storage/io/file_system.h"

namespace hw::storage {
namespace {

std::error_code last_error() { return {errno, std::system_category()}; }

class posix_file final : public file {
 public:
  explicit posix_file(int fd) : fd_(fd) {}
  ~posix_file() override { ::close(fd_); }

  std::error_code write_at(uint64_t offset, std::span<const uint8_t> data) override {
    while (!data.empty()) {
      ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        return last_error();
      }
      if (n == 0) return std::make_error_code(std::errc::no_space_on_device);
      data = data.subspan(static_cast<size_t>(n));
      offset += static_cast<uint64_t>(n);
    }
    return {};
  }

  std::error_code read_at(uint64_t offset, std::span<uint8_t> out, size_t* read) override {
    size_t total = 0;
    while (total < out.size()) {
      ssize_t n = ::pread(fd_, out.data() + total, out.size() - total, static_cast<off_t>(offset + total));
      if (n < 0) {
        if (errno == EINTR) continue;
        return last_error();
      }
      if (n == 0) break;
      total += static_cast<size_t>(n);
    }
    *read = total;
    return {};
  }

  std::error_code sync() override {
    if (::fdatasync(fd_) != 0) return last_error();
    return {};
  }

  std::error_code truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return last_error();
    return {};
  }

  std::error_code size(uint64_t* out) override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return last_error();
    *out = static_cast<uint64_t>(st.st_size);
    return {};
  }

  int native_handle() const override { return fd_; }

 private:
  int fd_;
};

class posix_file_system final : public file_system {
 public:
  std::error_code open(const std::filesystem::path& p, open_mode mode,
                       std::unique_ptr<file>* out) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case open_mode::read_only: flags |= O_RDONLY; break;
      case open_mode::read_write: flags |= O_RDWR | O_CREAT; break;
      case open_mode::create_exclusive: flags |= O_RDWR | O_CREAT | O_EXCL; break;
    }
    int fd = ::open(p.c_str(), flags, 0644);
    if (fd < 0) return last_error();
    *out = std::make_unique<posix_file>(fd);
    return {};
  }

  std::error_code rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return last_error();
    return {};
  }

  std::error_code remove(const std::filesystem::path& p) override {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) return last_error();
    return {};
  }

  std::error_code remove_all(const std::filesystem::path& p) override {
    std::error_code ec;
    std::filesystem::remove_all(p, ec);
    return ec;
  }

  std::error_code create_directories(const std::filesystem::path& p) override {
    std::error_code ec;
    std::filesystem::create_directories(p, ec);
    return ec;
  }

  std::error_code sync_directory(const std::filesystem::path& p) override {
    int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return last_error();
    std::error_code ec;
    if (::fsync(fd) != 0) ec = last_error();
    ::close(fd);
    return ec;
  }

  std::error_code list(const std::filesystem::path& dir, std::vector<std::string>* names) override {
    std::error_code ec;
    names->clear();
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      names->push_back(it->path().filename().string());
    std::sort(names->begin(), names->end());
    return ec;
  }

  bool exists(const std::filesystem::path& p) override {
    std::error_code ec;
    return std::filesystem::exists(p, ec);
  }

  bool is_directory(const std::filesystem::path& p) override {
    std::error_code ec;
    return std::filesystem::is_directory(p, ec);
  }
};

}  // namespace

std::unique_ptr<file_system> make_posix_file_system() { return std::make_unique<posix_file_system>(); }

std::error_code read_whole_file(file_system& fs, const std::filesystem::path& p, std::string* out) {
  std::unique_ptr<file> f;
  if (auto ec = fs.open(p, open_mode::read_only, &f)) return ec;
  uint64_t size = 0;
  if (auto ec = f->size(&size)) return ec;
  out->resize(size);
  size_t read = 0;
  if (auto ec = f->read_at(0, {reinterpret_cast<uint8_t*>(out->data()), out->size()}, &read)) return ec;
  out->resize(read);
  return {};
}

std::error_code write_file_atomically(file_system& fs, const std::filesystem::path& p, std::string_view content,
                                      std::string_view tmp_suffix) {
  std::filesystem::path tmp = p;
  tmp += tmp_suffix;
  {
    std::unique_ptr<file> f;
    if (auto ec = fs.open(tmp, open_mode::read_write, &f)) return ec;
    if (auto ec = f->truncate(0)) return ec;
    if (auto ec = f->write_at(0, {reinterpret_cast<const uint8_t*>(content.data()), content.size()}))
      return ec;
    if (auto ec = f->sync()) return ec;
  }
  if (auto ec = fs.rename(tmp, p)) return ec;
  return fs.sync_directory(p.has_parent_path() ? p.parent_path() : std::filesystem::path("."));
}

}  // namespace hw::storage
