// The differential test binary: one Kafka and one Highwater for all tests
// (twin_environment.h), which is why ctest runs it as one test rather than
// one process per test case.

#include <gtest/gtest.h>

#include "twin_environment.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new hw::testing::differential::brokers_environment());
  return RUN_ALL_TESTS();
}
