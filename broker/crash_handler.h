#pragma once
// Fatal-signal reports. On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT (a
// failed assertion) the process writes to its log (stdout, the spdlog
// sink; and stderr too when that is another file) the signal, the faulting
// address where the signal has one, and a backtrace, then dies of the same
// signal with the default disposition, so that the exit status and core
// dumps are what they would have been without the handler.
//
// The report comes in two passes. The first is async-signal-safe: the
// header, then glibc's backtrace() (its unwinder loaded at install time)
// through backtrace_symbols_fd, which allocates nothing. The second is
// best effort and not async-signal-safe (dladdr, demangling, then
// /usr/bin/addr2line for file:line when it is installed): an alarm bounds
// it, and when it fires the process dies of the original signal all the
// same. Names need the binary's symbols exported (-rdynamic, set on the
// highwater target); functions with internal linkage show as offsets.
//
// Each thread gets an alternate signal stack (sigaltstack is per thread),
// so that a stack overflow is reported too: install_crash_handler() covers
// the calling thread, protect_thread_stack() the thread that calls it (the
// node's io threads do).
//
// Ownership and threads: process-wide by nature (a signal handler has no
// context to be given), so the handler's state is file-static, set once
// by install_crash_handler() on the main thread before any other thread.

#include <optional>
#include <string_view>

namespace hw::broker {

void install_crash_handler();
// An alternate signal stack for the calling thread (kept until it exits).
void protect_thread_stack();

// A test-only trigger: HW_TEST_CRASH=segv|stack|bus|fpe|ill|abort makes the
// process crash that way at start-up, after the handler is installed
// (tests/integration/crash_test.cc). Anything else is ignored.
void crash_if_requested(std::optional<std::string_view> kind);

}  // namespace hw::broker
