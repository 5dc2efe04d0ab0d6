// Process-level behaviour: configuration errors, listeners, idle connections
// and shutdown.

#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "broker_process.h"
#include "kafka_socket.h"

namespace hw::testing {
namespace {

TEST(LifecycleIT, InvalidConfigurationExitsWithOne) {
  broker_process b;
  auto code = b.run_to_exit({"--override", "socket.request.max.bytes=-1"});
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);
  EXPECT_NE(b.log().find("socket.request.max.bytes"), std::string::npos) << b.log();
  EXPECT_NE(b.log().find("Value must be at least 1"), std::string::npos) << b.log();
}

TEST(LifecycleIT, InvalidConfigurationFromEnvironment) {
  setenv("KAFKA_NUM_PARTITIONS", "zero", 1);
  broker_process b;
  auto code = b.run_to_exit({});
  unsetenv("KAFKA_NUM_PARTITIONS");
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);
  EXPECT_NE(b.log().find("Invalid value zero for configuration num.partitions"), std::string::npos) << b.log();
}

TEST(LifecycleIT, UnreadableConfigFileExitsWithOne) {
  broker_process b;
  EXPECT_EQ(b.run_to_exit({"--config", "/nonexistent/server.properties"}), 1);
}

TEST(LifecycleIT, SslListenerWithoutAKeyStoreRefusesToStart) {
  broker_process b;
  auto code = b.run_to_exit({"--override", "listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0"});
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);
  EXPECT_NE(b.log().find("Listener SSL (SSL): no key store"), std::string::npos) << b.log();
}

TEST(LifecycleIT, PortInUseRefusesToStart) {
  broker_process first;
  ASSERT_TRUE(first.start()) << first.log();
  broker_process second;
  auto code = second.run_to_exit(
      {"--override", "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(first.port())});
  EXPECT_EQ(code, 1) << second.log();
}

TEST(LifecycleIT, SeveralListeners) {
  broker_process b;
  ASSERT_TRUE(b.start({"--override", "listeners=PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0",
                       "--override", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT"}))
      << b.log();
  ASSERT_EQ(b.ports().size(), 2u);
  for (const auto& [name, port] : b.ports()) {
    EXPECT_NE(port, 0);
    EXPECT_NE(b.log().find("Listening on " + name + "://127.0.0.1:" + std::to_string(port)), std::string::npos);
    kafka_socket s(port);
    ASSERT_TRUE(s.send_frame(api_versions_frame(3, 1)));
    EXPECT_TRUE(s.read_frame()) << name;
  }
}

TEST(LifecycleIT, ConfigFileAndOverrides) {
  broker_process b;
  {
    std::ofstream f(b.dir() + "/server.properties");
    f << "# from a file\nnode.id=3\nsocket.request.max.bytes : 2048\nconnections.max.idle.ms=600000\n";
  }
  ASSERT_TRUE(b.start({"--config", b.dir() + "/server.properties", "--override", "connections.max.idle.ms=300"}))
      << b.log();
  EXPECT_NE(b.log().find("node.id=3"), std::string::npos) << b.log();
  kafka_socket s(b.port());
  ASSERT_TRUE(s.send_frame(std::vector<uint8_t>(2049, 0)));  // over the file's limit
  EXPECT_TRUE(s.closed_by_peer(5s));
}

TEST(LifecycleIT, IdleConnectionsAreClosed) {
  broker_process b;
  ASSERT_TRUE(b.start({"--override", "connections.max.idle.ms=300"})) << b.log();
  kafka_socket s(b.port());
  ASSERT_TRUE(s.send_frame(api_versions_frame(0, 1)));
  ASSERT_TRUE(s.read_frame());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(s.closed_by_peer(10s)) << b.log();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 200ms);
}

TEST(LifecycleIT, BusyConnectionsAreNotIdle) {
  broker_process b;
  ASSERT_TRUE(b.start({"--override", "connections.max.idle.ms=500"})) << b.log();
  kafka_socket s(b.port());
  auto until = std::chrono::steady_clock::now() + 1500ms;
  int i = 0;
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(s.send_frame(api_versions_frame(0, ++i))) << "closed after " << i << " requests";
    ASSERT_TRUE(s.read_frame()) << "closed after " << i << " requests";
    std::this_thread::sleep_for(100ms);  // pacing, not waiting: keeps each gap below the idle timeout
  }
}

TEST(LifecycleIT, SigtermExitsCleanlyAndQuickly) {
  broker_process b;
  ASSERT_TRUE(b.start()) << b.log();
  kafka_socket idle(b.port());  // an open connection must not hold shutdown up
  kafka_socket busy(b.port());
  ASSERT_TRUE(busy.send_frame(api_versions_frame(3, 1)));
  ASSERT_TRUE(busy.read_frame());
  auto t0 = std::chrono::steady_clock::now();
  auto code = b.stop(SIGTERM, 10s);
  ASSERT_TRUE(code) << "still running 10 s after SIGTERM\n" << b.log();
  EXPECT_EQ(*code, 0) << b.log();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(idle.closed_by_peer(1s));
}

TEST(LifecycleIT, SigintExitsCleanly) {
  broker_process b;
  ASSERT_TRUE(b.start()) << b.log();
  EXPECT_EQ(b.stop(SIGINT, 10s), 0) << b.log();
}

}  // namespace
}  // namespace hw::testing
