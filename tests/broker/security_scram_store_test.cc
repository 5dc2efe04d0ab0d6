// scram_credential_store: lookups by (mechanism, user), whole-table
// updates, and readers on other threads that only ever see a table the
// writer published, never a half-made one.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "broker/security/scram_credential_store.h"

namespace hw::broker {
namespace {

scram_credential credential(uint8_t seed, int32_t iterations) {
  scram_credential c;
  c.salt.assign(16, seed);
  c.stored_key.assign(32, static_cast<uint8_t>(seed + 1));
  c.server_key.assign(32, static_cast<uint8_t>(seed + 2));
  c.iterations = iterations;
  return c;
}

TEST(scram_credential_store, finds_what_the_last_update_holds) {
  scram_credential_store store;
  EXPECT_FALSE(store.find(scram_mechanism::sha256, "alice"));
  protocol::scram_credential_table table;
  table[scram_mechanism::sha256]["alice"] = credential(1, 4096);
  table[scram_mechanism::sha512]["bob"] = credential(2, 8192);
  store.update(table);
  EXPECT_EQ(store.find(scram_mechanism::sha256, "alice"), credential(1, 4096));
  EXPECT_EQ(store.find(scram_mechanism::sha512, "bob"), credential(2, 8192));
  EXPECT_FALSE(store.find(scram_mechanism::sha512, "alice"));  // another mechanism
  EXPECT_FALSE(store.find(scram_mechanism::sha256, "carol"));
  // A snapshot taken before an update keeps what it saw.
  auto before = store.snapshot();
  table[scram_mechanism::sha256].erase("alice");
  store.update(table);
  EXPECT_FALSE(store.find(scram_mechanism::sha256, "alice"));
  EXPECT_EQ(before->at(scram_mechanism::sha256).at("alice"), credential(1, 4096));
}

TEST(scram_credential_store, readers_on_other_threads_see_whole_tables) {
  // The writer publishes tables where every user's credential is made
  // from one seed; a reader that saw a mix would find salt and keys apart.
  scram_credential_store store;
  constexpr int updates = 2000;
  std::atomic<bool> done{false};
  std::atomic<int> mismatches{0};
  std::atomic<int> seen{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!done.load()) {
        for (const char* user : {"alice", "bob"}) {
          auto c = store.find(scram_mechanism::sha256, user);
          if (!c) continue;
          ++seen;
          const uint8_t seed = c->salt.at(0);
          if (*c != credential(seed, 4096 + seed)) ++mismatches;
        }
      }
    });
  }
  for (int i = 0; i < updates; ++i) {
    protocol::scram_credential_table table;
    const auto seed = static_cast<uint8_t>(i % 200);
    table[scram_mechanism::sha256]["alice"] = credential(seed, 4096 + seed);
    if (i % 2) table[scram_mechanism::sha256]["bob"] = credential(seed, 4096 + seed);
    store.update(std::move(table));
  }
  done = true;
  for (auto& r : readers) r.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(store.find(scram_mechanism::sha256, "bob"), credential((updates - 1) % 200, 4096 + (updates - 1) % 200));
}

}  // namespace
}  // namespace hw::broker
