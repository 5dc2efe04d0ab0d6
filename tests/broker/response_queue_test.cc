#include "broker/listener/response_queue.h"

#include <gtest/gtest.h>

namespace hw::broker {
namespace {

response_frame frame(uint8_t tag) { return response_frame{{tag}}; }

std::vector<uint8_t> take(response_queue& q, size_t max_count = 100, size_t max_bytes = 1 << 20) {
  std::vector<response_frame> out;
  q.take_ready(out, max_count, max_bytes);
  std::vector<uint8_t> tags;
  for (auto& f : out) tags.push_back(f.bytes.at(0));
  return tags;
}

TEST(ResponseQueue, WritesInRequestOrderWhateverTheCompletionOrder) {
  response_queue q;
  uint64_t a = q.reserve(), b = q.reserve(), c = q.reserve();
  EXPECT_EQ(q.pending(), 3u);
  q.complete(c, frame(3));
  q.complete(b, frame(2));
  EXPECT_FALSE(q.ready());
  EXPECT_TRUE(take(q).empty());
  q.complete(a, frame(1));
  EXPECT_TRUE(q.ready());
  EXPECT_EQ(take(q), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(q.pending(), 0u);
}

TEST(ResponseQueue, NoResponseReleasesTheSlot) {
  response_queue q;
  uint64_t a = q.reserve(), b = q.reserve(), c = q.reserve();
  q.complete(b, std::nullopt);  // acks=0
  q.complete(c, frame(3));
  q.complete(a, frame(1));
  EXPECT_EQ(take(q), (std::vector<uint8_t>{1, 3}));
  EXPECT_EQ(q.pending(), 0u);

  uint64_t d = q.reserve();
  q.complete(d, std::nullopt);
  EXPECT_EQ(q.pending(), 0u);
  EXPECT_FALSE(q.ready());
}

TEST(ResponseQueue, BatchLimits) {
  response_queue q;
  for (int i = 0; i < 5; ++i) q.complete(q.reserve(), frame(static_cast<uint8_t>(i)));
  EXPECT_EQ(take(q, 2), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(take(q, 100, 1), (std::vector<uint8_t>{2}));  // stops once max_bytes is reached
  EXPECT_EQ(take(q), (std::vector<uint8_t>{3, 4}));
}

TEST(ResponseQueue, CloseWritesEarlierResponsesOnly) {
  response_queue q;
  uint64_t a = q.reserve(), b = q.reserve(), c = q.reserve(), d = q.reserve();
  q.complete(d, frame(4));
  q.complete_with_close(c);  // c could not be parsed
  q.complete(a, frame(1));
  EXPECT_TRUE(q.close_requested());
  EXPECT_FALSE(q.closed_and_drained());
  EXPECT_EQ(take(q), (std::vector<uint8_t>{1}));
  EXPECT_FALSE(q.closed_and_drained());  // b is still being handled
  q.complete(b, frame(2));
  EXPECT_EQ(take(q), (std::vector<uint8_t>{2}));
  EXPECT_TRUE(q.closed_and_drained());
  EXPECT_FALSE(q.ready());  // d is never written
}

TEST(ResponseQueue, EarliestCloseWins) {
  response_queue q;
  uint64_t a = q.reserve(), b = q.reserve(), c = q.reserve();
  q.complete_with_close(c);
  q.complete_with_close(b);
  q.complete(a, frame(1));
  EXPECT_EQ(take(q), (std::vector<uint8_t>{1}));
  EXPECT_TRUE(q.closed_and_drained());
}

TEST(ResponseQueue, ALastResponseIsWrittenThenTheConnectionCloses) {
  response_queue q;
  uint64_t a = q.reserve(), b = q.reserve(), c = q.reserve();
  q.complete_then_close(b, frame(2));  // a failed authentication's answer
  EXPECT_TRUE(q.close_requested());
  EXPECT_TRUE(take(q).empty());  // a first
  q.complete(a, frame(1));
  EXPECT_FALSE(q.closed_and_drained());
  EXPECT_EQ(take(q), (std::vector<uint8_t>{1, 2}));
  EXPECT_TRUE(q.closed_and_drained());
  q.complete(c, frame(3));
  EXPECT_FALSE(q.ready());  // nothing after it
}

TEST(ResponseQueue, CloseOnTheFirstRequest) {
  response_queue q;
  q.complete_with_close(q.reserve());
  EXPECT_TRUE(q.closed_and_drained());
}

}  // namespace
}  // namespace hw::broker
