// Fetch responses whose records stay in their files: the frame's bytes plus
// its file ranges, spliced in at their positions, are byte for byte the
// frame encoded with the records in memory.

#include <gtest/gtest.h>

#include <filesystem>

#include "broker/response.h"
#include "protocol/messages/fetch.h"
#include "protocol/request_header_parse.h"

namespace hw::broker {
namespace {

namespace msg = protocol::msg;

class ResponseFileRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hw-ranges-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A file holding `content` after `skip` bytes of something else.
  std::shared_ptr<storage::file> file_with(const std::string& name, const std::vector<uint8_t>& content, size_t skip) {
    std::unique_ptr<storage::file> f;
    EXPECT_FALSE(fs_->open(dir_ / name, storage::open_mode::read_write, &f));
    std::vector<uint8_t> all(skip, 0xee);
    all.insert(all.end(), content.begin(), content.end());
    EXPECT_FALSE(f->write_at(0, all));
    return std::shared_ptr<storage::file>(std::move(f));
  }

  static std::vector<uint8_t> splice(const response_frame& f) {
    std::vector<uint8_t> out;
    size_t from = 0;
    for (const auto& r : f.file_ranges) {
      out.insert(out.end(), f.bytes.begin() + static_cast<ptrdiff_t>(from), f.bytes.begin() + static_cast<ptrdiff_t>(r.at));
      std::vector<uint8_t> chunk(r.length);
      size_t got = 0;
      EXPECT_FALSE(r.file->read_at(r.position, chunk, &got));
      EXPECT_EQ(got, chunk.size());
      out.insert(out.end(), chunk.begin(), chunk.end());
      from = r.at;
    }
    out.insert(out.end(), f.bytes.begin() + static_cast<ptrdiff_t>(from), f.bytes.end());
    return out;
  }

  static msg::fetch_response two_partitions(protocol::records_view a, protocol::records_view b) {
    msg::fetch_response resp;
    auto& t = resp.responses.emplace_back();
    t.topic = "events";
    auto& p0 = t.partitions.emplace_back();
    p0.partition_index = 0;
    p0.high_watermark = 10;
    p0.records = a;
    auto& p1 = t.partitions.emplace_back();
    p1.partition_index = 1;
    p1.high_watermark = 20;
    p1.records = b;
    return resp;
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::file_system> fs_ = storage::make_posix_file_system();
};

TEST_F(ResponseFileRanges, SplicedFramesEqualFramesWithRecordsInMemory) {
  std::vector<uint8_t> a(300), b(5000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i * 7);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 13 + 1);
  auto fa = file_with("a.log", a, 100);
  auto fb = file_with("b.log", b, 0);
  for (int16_t version : {int16_t{4}, int16_t{11}, int16_t{12}, int16_t{16}}) {
    SCOPED_TRACE(version);
    const int16_t header_version = version >= 12 ? 1 : 0;
    auto inline_frame = encode_response(7, header_version,
                                        two_partitions(protocol::records_view(protocol::bytes_view(a)),
                                                       protocol::records_view(protocol::bytes_view(b))),
                                        version);
    std::vector<file_range> ranges{{0, fa, 100, a.size()}, {0, fb, 0, b.size()}};
    auto spliced = encode_response(7, header_version,
                                   two_partitions(protocol::records_view::deferred(1, a.size()),
                                                  protocol::records_view::deferred(2, b.size())),
                                   version, ranges);
    ASSERT_EQ(spliced.file_ranges.size(), 2u);
    EXPECT_LT(spliced.file_ranges[0].at, spliced.file_ranges[1].at);
    EXPECT_EQ(spliced.bytes.size(), inline_frame.bytes.size() - a.size() - b.size());
    EXPECT_EQ(spliced.wire_size(), inline_frame.bytes.size());
    EXPECT_EQ(splice(spliced), inline_frame.bytes);
  }
}

// Ranges the encoder never reached (partitions a fetch session leaves out of
// the response) are dropped, and ids may come in any order.
TEST_F(ResponseFileRanges, UnusedRangesAreDropped) {
  std::vector<uint8_t> a(64, 0xaa), b(32, 0xbb);
  auto fa = file_with("a.log", a, 0);
  auto fb = file_with("b.log", b, 0);
  // The unused range is larger than the whole frame (a partition read but left out).
  std::vector<file_range> ranges{{0, fa, 0, a.size()}, {0, fb, 0, b.size()}, {0, fa, 0, 1 << 20}};
  auto frame = encode_response(1, 1,
                               two_partitions(protocol::records_view::deferred(2, b.size()),
                                              protocol::records_view::deferred(1, a.size())),
                               12, ranges);
  ASSERT_EQ(frame.file_ranges.size(), 2u);
  EXPECT_EQ(frame.file_ranges[0].file, fb);
  EXPECT_EQ(frame.file_ranges[1].file, fa);
  auto inline_frame = encode_response(1, 1,
                                      two_partitions(protocol::records_view(protocol::bytes_view(b)),
                                                     protocol::records_view(protocol::bytes_view(a))),
                                      12);
  EXPECT_EQ(splice(frame), inline_frame.bytes);
}

}  // namespace
}  // namespace hw::broker
