// A fatal signal leaves a trace: the log names the signal (and the faulting
// address), then a backtrace naming highwater's functions, and the process
// dies of that same signal (HW_TEST_CRASH makes it crash at start-up).

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <string>

#include "broker_process.h"

namespace hw::testing {
namespace {

std::string crash_log(const char* kind, std::optional<int>* exit_code) {
  setenv("HW_TEST_CRASH", kind, 1);
  broker_process b;
  *exit_code = b.run_to_exit({}, 30s);
  unsetenv("HW_TEST_CRASH");
  return b.log();
}

TEST(CrashIT, ASegmentationFaultIsReportedWithABacktraceAndKillsWithTheSameSignal) {
  std::optional<int> code;
  const std::string log = crash_log("segv", &code);
  EXPECT_EQ(code, -SIGSEGV) << log;
  EXPECT_NE(log.find("FATAL Highwater received SIGSEGV (Segmentation fault) at address 0x10"), std::string::npos)
      << log;
  EXPECT_NE(log.find("hw::broker::crash_for_test("), std::string::npos) << log;
  EXPECT_NE(log.find("hw::broker::crash_if_requested("), std::string::npos) << log;
}

// The handler runs on its alternate stack.
TEST(CrashIT, AStackOverflowIsReported) {
  std::optional<int> code;
  const std::string log = crash_log("stack", &code);
  EXPECT_EQ(code, -SIGSEGV) << log;
  EXPECT_NE(log.find("FATAL Highwater received SIGSEGV"), std::string::npos) << log;
  EXPECT_NE(log.find("hw::broker::recurse_for_test("), std::string::npos) << log;
}

TEST(CrashIT, AFailedAssertionIsReportedAndAborts) {
  std::optional<int> code;
  const std::string log = crash_log("abort", &code);
  EXPECT_EQ(code, -SIGABRT) << log;
  EXPECT_NE(log.find("HW_TEST_CRASH=abort"), std::string::npos) << "the assertion's own message" << log;
  EXPECT_NE(log.find("FATAL Highwater received SIGABRT"), std::string::npos) << log;
  EXPECT_NE(log.find("hw::broker::crash_for_test("), std::string::npos) << log;
}

TEST(CrashIT, ADivisionByZeroIsReported) {
  std::optional<int> code;
  const std::string log = crash_log("fpe", &code);
  EXPECT_EQ(code, -SIGFPE) << log;
  EXPECT_NE(log.find("FATAL Highwater received SIGFPE"), std::string::npos) << log;
  EXPECT_NE(log.find("hw::broker::crash_for_test("), std::string::npos) << log;
}

}  // namespace
}  // namespace hw::testing
