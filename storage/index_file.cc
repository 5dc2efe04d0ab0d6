#include "storage/index_file.h"

namespace hw::storage {

std::error_code index_file::open(file_system& fs, const std::filesystem::path& path, size_t entry_bytes,
                                 std::unique_ptr<index_file>* out, std::vector<uint8_t>* contents) {
  std::unique_ptr<file> f;
  if (auto ec = fs.open(path, open_mode::read_write, &f)) return ec;
  uint64_t size = 0;
  if (auto ec = f->size(&size)) return ec;
  contents->resize(size);
  size_t read = 0;
  if (auto ec = f->read_at(0, *contents, &read)) return ec;
  contents->resize(read);
  out->reset(new index_file(std::move(f), path, entry_bytes, size));
  return {};
}

index_file::index_file(std::unique_ptr<file> f, std::filesystem::path path, size_t entry_bytes,
                       uint64_t loaded_bytes)
    : file_(std::move(f)),
      path_(std::move(path)),
      entry_bytes_(entry_bytes),
      loaded_bytes_(loaded_bytes),
      written_(loaded_bytes / entry_bytes),
      // A partial trailing entry is cut at the next write.
      stale_tail_(loaded_bytes % entry_bytes != 0) {}

void index_file::truncated_to(size_t entries) {
  if (entries < written_) {
    written_ = entries;
    stale_tail_ = true;
  }
}

std::error_code index_file::cut_stale_tail() {
  if (!stale_tail_) return {};
  if (auto ec = file_->truncate(written_ * entry_bytes_)) return ec;
  stale_tail_ = false;
  return {};
}

std::error_code index_file::write_tail(size_t entries, const std::vector<uint8_t>& bytes) {
  if (auto ec = file_->write_at(written_ * entry_bytes_, bytes)) {
    stale_tail_ = true;  // a failed write may have landed partially
    return ec;
  }
  written_ = entries;
  return {};
}

}  // namespace hw::storage
