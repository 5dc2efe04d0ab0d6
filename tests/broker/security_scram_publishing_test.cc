// The metadata publisher's SCRAM part (broker/metadata/scram_publishing.h):
// batches replayed as the publisher replays them update the credential
// store when they add, replace or remove a credential, and only then; a
// snapshot replaces the store's table whole.
#include <gtest/gtest.h>

#include "broker/metadata/scram_publishing.h"
#include "controller/feature_control.h"
#include "protocol/sasl/scram.h"

namespace hw::broker {
namespace {

namespace msg = protocol::msg;
using controller::metadata_delta;
using controller::metadata_image;
using controller::metadata_record;

struct publisher_model {
  std::shared_ptr<const metadata_image> image = std::make_shared<const metadata_image>();
  scram_credential_store store;
  int64_t offset = 0;

  // Replays one batch and publishes, as metadata_publisher::apply does;
  // whether the store was updated.
  bool apply(const std::vector<metadata_record>& batch, bool snapshot = false) {
    metadata_delta delta(snapshot ? std::make_shared<const metadata_image>() : image);
    for (const auto& r : batch) {
      auto error = delta.replay(r);
      EXPECT_FALSE(error) << *error;
    }
    offset += static_cast<int64_t>(batch.size());
    image = delta.apply(storage::offset(offset - 1), storage::leader_epoch(1));
    return publish_scram_credentials(delta, snapshot, *image, store);
  }
};

msg::user_scram_credential_record credential(const std::string& user, protocol::scram_mechanism m,
                                             const std::string& password, int32_t iterations) {
  const auto c = protocol::scram::make_credential(m, password, iterations);
  msg::user_scram_credential_record r;
  r.name = user;
  r.mechanism = protocol::scram_mechanism_type(m);
  r.salt = c.salt;
  r.stored_key = c.stored_key;
  r.server_key = c.server_key;
  r.iterations = iterations;
  return r;
}

msg::topic_record topic(const std::string& name) {
  msg::topic_record t;
  t.name = name;
  t.topic_id = protocol::uuid{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
  return t;
}

TEST(scram_publishing, the_store_follows_the_batches_that_change_credentials) {
  publisher_model p;
  EXPECT_FALSE(p.apply(controller::feature_control::bootstrap_records(controller::latest_production_metadata_version)));
  EXPECT_FALSE(p.store.find(scram_mechanism::sha256, "alice"));

  const auto alice = credential("alice", scram_mechanism::sha256, "pw-a", 4096);
  EXPECT_TRUE(p.apply({alice}));
  auto found = p.store.find(scram_mechanism::sha256, "alice");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->stored_key, alice.stored_key);
  EXPECT_EQ(found->server_key, alice.server_key);
  EXPECT_EQ(found->iterations, 4096);

  // A batch without credentials leaves the table as it was.
  const auto table = p.store.snapshot();
  EXPECT_FALSE(p.apply({topic("orders")}));
  EXPECT_EQ(p.store.snapshot(), table);

  // Replaced (new salt and keys), then removed.
  const auto again = credential("alice", scram_mechanism::sha256, "pw-b", 8192);
  EXPECT_TRUE(p.apply({again}));
  EXPECT_EQ(p.store.find(scram_mechanism::sha256, "alice")->stored_key, again.stored_key);
  msg::remove_user_scram_credential_record gone;
  gone.name = "alice";
  gone.mechanism = alice.mechanism;
  EXPECT_TRUE(p.apply({gone}));
  EXPECT_FALSE(p.store.find(scram_mechanism::sha256, "alice"));
}

TEST(scram_publishing, a_snapshot_replaces_the_whole_table) {
  publisher_model p;
  EXPECT_TRUE(p.apply({credential("alice", scram_mechanism::sha512, "pw-a", 4096)}));
  // A snapshot without alice (a broker that fell behind the log start).
  auto records = controller::feature_control::bootstrap_records(controller::latest_production_metadata_version);
  records.push_back(credential("bob", scram_mechanism::sha512, "pw-b", 4096));
  EXPECT_TRUE(p.apply(records, true));
  EXPECT_FALSE(p.store.find(scram_mechanism::sha512, "alice"));
  EXPECT_TRUE(p.store.find(scram_mechanism::sha512, "bob"));
}

}  // namespace
}  // namespace hw::broker
