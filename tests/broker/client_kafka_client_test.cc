// broker/network/kafka_client against a scripted peer on 127.0.0.1: typed
// round trips, answers out of order, timeouts that close the connection,
// refused connections with backoff, a peer going away, close().

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <thread>

#include "broker/network/kafka_client.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/headers.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;
namespace msg = protocol::msg;

struct request_seen {
  msg::request_header header;
  msg::api_versions_request body;
};

// A peer speaking the Kafka framing over blocking sockets on its own thread.
class scripted_peer {
 public:
  scripted_peer() : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}
  ~scripted_peer() {
    error_code ignored;
    acceptor_.close(ignored);
    if (thread_.joinable()) thread_.join();
  }
  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  // Runs script(socket) for each accepted connection, up to `connections`.
  void serve(int connections, std::function<void(tcp::socket&)> script) {
    thread_ = std::thread([this, connections, script] {
      for (int i = 0; i < connections; ++i) {
        tcp::socket s(io_);
        error_code ec;
        acceptor_.accept(s, ec);
        if (ec) return;
        ++accepted;
        script(s);
      }
    });
  }

  static std::optional<request_seen> read_request(tcp::socket& s) {
    uint8_t size_bytes[4];
    error_code ec;
    asio::read(s, asio::buffer(size_bytes), ec);
    if (ec) return std::nullopt;
    uint32_t size = (uint32_t{size_bytes[0]} << 24) | (uint32_t{size_bytes[1]} << 16) |
                    (uint32_t{size_bytes[2]} << 8) | size_bytes[3];
    std::vector<uint8_t> frame(size);
    asio::read(s, asio::buffer(frame), ec);
    if (ec) return std::nullopt;
    protocol::reader r(frame);
    request_seen seen;
    int16_t key = static_cast<int16_t>((frame[0] << 8) | frame[1]);
    int16_t version = static_cast<int16_t>((frame[2] << 8) | frame[3]);
    seen.header.decode(r, protocol::request_header_version(key, version));
    seen.body.decode(r, version);
    EXPECT_TRUE(r.ok() && r.remaining() == 0);
    return seen;
  }

  // An ApiVersions v3 answer naming one API key, so callers can tell answers apart.
  static void answer(tcp::socket& s, int32_t correlation, int16_t marker_key) {
    msg::api_versions_response resp;
    msg::api_versions_response::api_version v;
    v.api_key = marker_key;
    resp.api_keys.push_back(v);
    std::vector<uint8_t> frame;
    protocol::writer w(frame);
    w.write_int32(0);
    w.write_int32(correlation);  // ApiVersions answers with header v0
    resp.encode(w, 3);
    int32_t size = static_cast<int32_t>(frame.size() - 4);
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<uint8_t>(size >> (24 - 8 * i));
    error_code ec;
    asio::write(s, asio::buffer(frame), ec);
  }

  std::atomic<int> accepted{0};

 private:
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::thread thread_;
};

class KafkaClientTest : public ::testing::Test {
 protected:
  KafkaClientTest() : strand_(asio::make_strand(io_)) {
    thread_ = std::thread([this] { io_.run(); });
  }
  ~KafkaClientTest() override {
    if (client_) asio::post(strand_, [c = client_] { c->close(); });
    work_.reset();
    thread_.join();
  }

  void make_client(uint16_t port) {
    kafka_client_options o;
    o.host = "127.0.0.1";
    o.port = port;
    o.client_id = "test-client";
    o.connect_timeout = 2s;
    o.reconnect_backoff = 50ms;
    o.reconnect_backoff_max = 200ms;
    client_ = kafka_client::create(strand_, o);
  }

  template <typename T>
  T run(std::function<asio::awaitable<T>()> make) {
    return asio::co_spawn(strand_, make(), asio::use_future).get();
  }

  using outcome = client_outcome<msg::api_versions_response>;
  asio::awaitable<outcome> api_versions(std::string name, std::chrono::milliseconds timeout = 5s) {
    msg::api_versions_request req;
    req.client_software_name = std::move(name);
    req.client_software_version = "1";
    co_return co_await client_->call<msg::api_versions_response>(18, 3, req, timeout);
  }

  asio::io_context io_;
  asio::strand<asio::io_context::executor_type> strand_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{io_.get_executor()};
  std::thread thread_;
  std::shared_ptr<kafka_client> client_;
};

TEST_F(KafkaClientTest, TypedRoundTrip) {
  scripted_peer peer;
  std::promise<request_seen> seen;
  peer.serve(1, [&](tcp::socket& s) {
    auto req = scripted_peer::read_request(s);
    ASSERT_TRUE(req);
    seen.set_value(*req);
    scripted_peer::answer(s, req->header.correlation_id, 42);
  });
  make_client(peer.port());
  auto got = run<outcome>([this] { return api_versions("hw"); });
  ASSERT_FALSE(got.error) << got.error.message();
  ASSERT_EQ(got.response.api_keys.size(), 1u);
  EXPECT_EQ(got.response.api_keys[0].api_key, 42);
  auto req = seen.get_future().get();
  EXPECT_EQ(req.header.request_api_key, 18);
  EXPECT_EQ(req.header.request_api_version, 3);
  EXPECT_EQ(req.header.client_id, "test-client");
  EXPECT_EQ(req.body.client_software_name, "hw");
}

TEST_F(KafkaClientTest, AnswersInAnyOrderReachTheirCallers) {
  scripted_peer peer;
  peer.serve(1, [](tcp::socket& s) {
    std::vector<request_seen> reqs;
    for (int i = 0; i < 3; ++i) {
      auto r = scripted_peer::read_request(s);
      ASSERT_TRUE(r);
      reqs.push_back(*r);
    }
    // Answered last first; each answer names its caller.
    for (int i = 2; i >= 0; --i)
      scripted_peer::answer(s, reqs[i].header.correlation_id,
                            static_cast<int16_t>(std::stoi(reqs[i].body.client_software_name)));
  });
  make_client(peer.port());
  std::vector<std::future<outcome>> calls;
  for (int i = 0; i < 3; ++i)
    calls.push_back(asio::co_spawn(strand_, api_versions(std::to_string(100 + i)), asio::use_future));
  for (int i = 0; i < 3; ++i) {
    auto got = calls[i].get();
    ASSERT_FALSE(got.error) << got.error.message();
    ASSERT_EQ(got.response.api_keys.size(), 1u);
    EXPECT_EQ(got.response.api_keys[0].api_key, 100 + i);
  }
}

TEST_F(KafkaClientTest, ATimeoutClosesTheConnectionAndTheNextCallReconnects) {
  scripted_peer peer;
  std::promise<bool> first_closed;
  peer.serve(2, [&, n = 0](tcp::socket& s) mutable {
    auto req = scripted_peer::read_request(s);
    ASSERT_TRUE(req);
    if (n++ == 0) {
      // Never answered: the client gives up and closes; we see EOF.
      first_closed.set_value(!scripted_peer::read_request(s).has_value());
      return;
    }
    scripted_peer::answer(s, req->header.correlation_id, 7);
  });
  make_client(peer.port());
  auto timed_out = run<outcome>([this] { return api_versions("slow", 200ms); });
  EXPECT_EQ(timed_out.error, make_error_code(client_errc::timed_out));
  EXPECT_TRUE(first_closed.get_future().get());
  // After the backoff, a new connection answers.
  outcome got;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  do {
    got = run<outcome>([this] { return api_versions("again"); });
  } while (got.error == make_error_code(client_errc::connect_failed) && std::chrono::steady_clock::now() < deadline);
  ASSERT_FALSE(got.error) << got.error.message();
  EXPECT_EQ(got.response.api_keys[0].api_key, 7);
  EXPECT_EQ(peer.accepted.load(), 2);
}

TEST_F(KafkaClientTest, RefusedConnectionsBackOff) {
  uint16_t port;
  {
    scripted_peer closed_peer;  // a port nobody listens on once it is gone
    port = closed_peer.port();
  }
  make_client(port);
  auto first = run<outcome>([this] { return api_versions("a"); });
  EXPECT_EQ(first.error, make_error_code(client_errc::connect_failed));
  // Within the backoff the client does not even try.
  auto second = run<outcome>([this] { return api_versions("b"); });
  EXPECT_EQ(second.error, make_error_code(client_errc::connect_failed));
  EXPECT_FALSE(client_->connected());
}

TEST_F(KafkaClientTest, APeerGoingAwayFailsWhatIsInFlight) {
  scripted_peer peer;
  peer.serve(1, [](tcp::socket& s) {
    (void)scripted_peer::read_request(s);
    s.close();
  });
  make_client(peer.port());
  auto got = run<outcome>([this] { return api_versions("x"); });
  EXPECT_EQ(got.error, make_error_code(client_errc::disconnected));
  EXPECT_FALSE(client_->connected());
}

TEST_F(KafkaClientTest, CloseFailsWhatIsInFlightAndLaterCalls) {
  scripted_peer peer;
  std::promise<void> received;
  std::promise<void> release;
  peer.serve(1, [&](tcp::socket& s) {
    (void)scripted_peer::read_request(s);
    received.set_value();
    release.get_future().wait();
  });
  make_client(peer.port());
  auto call = asio::co_spawn(strand_, api_versions("x"), asio::use_future);
  received.get_future().wait();
  run<int>([this]() -> asio::awaitable<int> {
    client_->close();
    co_return 0;
  });
  EXPECT_EQ(call.get().error, make_error_code(client_errc::closed));
  auto later = run<outcome>([this] { return api_versions("y"); });
  EXPECT_EQ(later.error, make_error_code(client_errc::closed));
  release.set_value();
}

TEST_F(KafkaClientTest, AnAnswerToNothingAskedDropsTheConnection) {
  scripted_peer peer;
  peer.serve(1, [](tcp::socket& s) {
    auto req = scripted_peer::read_request(s);
    ASSERT_TRUE(req);
    scripted_peer::answer(s, req->header.correlation_id + 1000, 1);
    (void)scripted_peer::read_request(s);  // until the client closes
  });
  make_client(peer.port());
  auto got = run<outcome>([this] { return api_versions("x"); });
  EXPECT_EQ(got.error, make_error_code(client_errc::bad_response));
}

}  // namespace
}  // namespace hw::broker
