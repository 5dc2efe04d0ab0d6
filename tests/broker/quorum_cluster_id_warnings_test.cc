// broker/metadata/cluster_id_warnings: the refusal of another cluster's
// quorum requests is logged once per peer and cluster id per interval.

#include <gtest/gtest.h>

#include "broker/metadata/cluster_id_warnings.h"

namespace hw::broker {
namespace {

TEST(ClusterIdWarnings, OncePerPeerAndIdPerInterval) {
  cluster_id_warnings w("ours", 60'000);
  EXPECT_TRUE(w.refused("Vote", 2, "theirs", 1'000));
  EXPECT_FALSE(w.refused("Vote", 2, "theirs", 2'000));
  EXPECT_FALSE(w.refused("Fetch", 2, "theirs", 60'999)) << "per peer and id, whatever the request";
  EXPECT_TRUE(w.refused("Vote", 3, "theirs", 2'000)) << "another peer";
  EXPECT_TRUE(w.refused("Vote", 2, "another", 2'000)) << "another id";
  EXPECT_TRUE(w.refused("Vote", 2, "theirs", 61'000)) << "the interval passed";
  EXPECT_FALSE(w.refused("Vote", 2, "theirs", 61'001));
}

TEST(ClusterIdWarnings, ForgetsWhenTooManyIdsWereSeen) {
  cluster_id_warnings w("ours", 60'000);
  for (int i = 0; i < 2000; ++i) EXPECT_TRUE(w.refused("Vote", 2, "id-" + std::to_string(i), 1'000));
  // Bounded memory: an id seen long ago may be logged again; a recent one is not.
  EXPECT_FALSE(w.refused("Vote", 2, "id-1999", 1'001));
}

}  // namespace
}  // namespace hw::broker
