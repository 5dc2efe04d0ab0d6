#include "broker/crash_handler.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

namespace hw::broker {

// Exported (not in the anonymous namespace) so that the report names them.
[[gnu::noinline]] void crash_for_test(std::string_view kind);
[[gnu::noinline]] int recurse_for_test(int depth);

namespace {

constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int max_frames = 64;
// Room for the handler on a thread whose own stack overflowed.
constexpr size_t alt_stack_bytes = 64 * 1024;
// How long the best-effort pass may take before the process dies anyway.
constexpr unsigned best_effort_seconds = 5;

// The handler's state (see the header on why it is file-static).
int report_fds[2] = {STDOUT_FILENO, -1};
long utc_offset_seconds = 0;  // of local time, as the log's timestamps
char executable[4096] = {};   // the binary's path, for addr2line (not /proc/self/exe: that is addr2line's own)
volatile sig_atomic_t fatal_signal = 0;

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
  }
}

bool has_fault_address(int sig) { return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL; }

// --- async-signal-safe output --------------------------------------------------

void put(int fd, const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// A line under construction in a fixed buffer: no allocation.
struct line {
  char buf[512];
  size_t len = 0;
  line& str(const char* s) {
    while (*s && len < sizeof buf) buf[len++] = *s++;
    return *this;
  }
  line& dec(uint64_t v, int width = 0) {
    char tmp[24];
    int n = 0;
    do tmp[n++] = static_cast<char>('0' + v % 10); while ((v /= 10) && n < 24);
    while (n < width && n < 24) tmp[n++] = '0';
    while (n > 0 && len < sizeof buf) buf[len++] = tmp[--n];
    return *this;
  }
  line& signed_dec(int64_t v) {
    if (v < 0) str("-");
    return dec(v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v));
  }
  line& hex(uintptr_t v) {
    str("0x");
    char tmp[16];
    int n = 0;
    do tmp[n++] = "0123456789abcdef"[v & 15]; while ((v >>= 4) && n < 16);
    while (n > 0 && len < sizeof buf) buf[len++] = tmp[--n];
    return *this;
  }
  void emit() {
    if (len == sizeof buf) len--;
    buf[len++] = '\n';
    for (int fd : report_fds)
      if (fd >= 0) put(fd, buf, len);
  }
};

// The log's timestamp, "[2025-01-31 12:00:00,123]", without localtime()
// (not async-signal-safe): the UTC offset was taken at install time.
void timestamp(line& l) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t secs = ts.tv_sec + utc_offset_seconds;
  int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  int64_t rem = secs - days * 86400;
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  int64_t y = yoe + era * 400 + (m <= 2);
  l.str("[").dec(static_cast<uint64_t>(y), 4).str("-").dec(m, 2).str("-").dec(d, 2).str(" ");
  l.dec(rem / 3600, 2).str(":").dec(rem / 60 % 60, 2).str(":").dec(rem % 60, 2).str(",");
  l.dec(static_cast<uint64_t>(ts.tv_nsec / 1'000'000), 3).str("] FATAL ");
}

void report_header(int sig, const siginfo_t* info) {
  line l;
  timestamp(l);
  l.str("Highwater received ").str(signal_name(sig)).str(" (").str(sigdescr_np(sig) ? sigdescr_np(sig) : "?").str(")");
  if (info && has_fault_address(sig)) l.str(" at address ").hex(reinterpret_cast<uintptr_t>(info->si_addr));
  if (info) l.str(", si_code ").signed_dec(info->si_code);
  l.str(" in thread ").dec(static_cast<uint64_t>(gettid())).str("; backtrace:");
  l.emit();
}

// --- dying -------------------------------------------------------------------------

[[noreturn]] void die(int sig) {
  // The default disposition, unblocked: raise() kills at once (with a core
  // dump where the signal makes one), as it would have without us.
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);  // not reached
}

void on_alarm(int) {
  line l;
  l.str("(backtrace symbolization timed out)");
  l.emit();
  die(fatal_signal);
}

// --- best effort: names and file:line ----------------------------------------------

// addr2line wants an offset into a position-independent file, an address
// into any other.
uintptr_t file_address(const Dl_info& di, uintptr_t pc) {
  const auto* ehdr = static_cast<const ElfW(Ehdr)*>(di.dli_fbase);
  const bool relative = ehdr && std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) == 0 && ehdr->e_type == ET_DYN;
  return relative ? pc - reinterpret_cast<uintptr_t>(di.dli_fbase) : pc;
}

// `/usr/bin/addr2line -Cfipa -e <executable> ADDR...` writing straight to
// the log, for the frames in the executable.
void source_lines(const uintptr_t* addresses, int n) {
  static const char tool[] = "/usr/bin/addr2line";
  if (n == 0 || executable[0] == '\0' || ::access(tool, X_OK) != 0) return;
  static char args[max_frames][24];
  char* argv[max_frames + 6];
  int argc = 0;
  argv[argc++] = const_cast<char*>(tool);
  argv[argc++] = const_cast<char*>("-Cfipa");
  argv[argc++] = const_cast<char*>("-e");
  argv[argc++] = executable;
  for (int i = 0; i < n; ++i) {
    line l;
    l.hex(addresses[i]);
    std::memcpy(args[i], l.buf, l.len < 23 ? l.len : 23);
    args[i][l.len < 23 ? l.len : 23] = '\0';
    argv[argc++] = args[i];
  }
  argv[argc] = nullptr;
  line l;
  l.str("Source lines of the frames in highwater:");
  l.emit();
  pid_t child = _Fork();  // no atfork handlers: safe in a signal handler
  if (child == 0) {
    ::dup2(report_fds[0], STDOUT_FILENO);
    ::dup2(report_fds[0], STDERR_FILENO);
    ::execv(tool, argv);
    _exit(127);
  }
  if (child > 0) {
    int status = 0;
    ::waitpid(child, &status, 0);
  }
}

// Where the signal struck (a frame at this address is not a return
// address), 0 when unknown.
uintptr_t faulting_pc(const void* context) {
  if (!context) return 0;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

void readable_backtrace(void* const* frames, int n, uintptr_t fault_pc) {
  line title;
  title.str("Symbolized:");
  title.emit();
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&install_crash_handler), &self);
  uintptr_t in_executable[max_frames];
  int executable_frames = 0;
  for (int i = 0; i < n; ++i) {
    // A return address points after its call; one byte back is inside it.
    const uintptr_t at = reinterpret_cast<uintptr_t>(frames[i]);
    const uintptr_t pc = at - (i > 0 && at != fault_pc ? 1 : 0);
    line l;
    l.str("  #").dec(static_cast<uint64_t>(i)).str(" ");
    Dl_info di{};
    if (dladdr(reinterpret_cast<void*>(pc), &di) && di.dli_fname) {
      int status = -1;
      char* demangled = di.dli_sname ? abi::__cxa_demangle(di.dli_sname, nullptr, nullptr, &status) : nullptr;
      l.str(demangled ? demangled : di.dli_sname ? di.dli_sname : "??");
      std::free(demangled);
      const char* slash = std::strrchr(di.dli_fname, '/');
      l.str(" [").str(slash ? slash + 1 : di.dli_fname).str("+").hex(file_address(di, pc)).str("]");
      if (di.dli_fbase == self.dli_fbase && executable_frames < max_frames)
        in_executable[executable_frames++] = file_address(di, pc);
    } else {
      l.hex(pc);
    }
    l.emit();
  }
  source_lines(in_executable, executable_frames);
}

// --- the handler -------------------------------------------------------------------

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  // One report: a second thread crashing meanwhile waits for the first to
  // end the process.
  static std::atomic<bool> reporting{false};
  if (reporting.exchange(true)) {
    for (;;) pause();
  }
  fatal_signal = sig;
  report_header(sig, info);
  void* frames[max_frames];
  const int n = backtrace(frames, max_frames);
  for (int fd : report_fds)
    if (fd >= 0) backtrace_symbols_fd(frames, n, fd);

  struct sigaction alarm_action{};
  alarm_action.sa_handler = on_alarm;
  sigemptyset(&alarm_action.sa_mask);
  sigaction(SIGALRM, &alarm_action, nullptr);
  alarm(best_effort_seconds);
  readable_backtrace(frames, n, faulting_pc(context));
  die(sig);
}

bool same_file(int a, int b) {
  struct stat sa{}, sb{};
  if (fstat(a, &sa) != 0 || fstat(b, &sb) != 0) return true;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Freed at thread exit, after the stack is unregistered.
struct alt_stack {
  std::unique_ptr<char[]> memory;
  ~alt_stack() {
    if (!memory) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
};

}  // namespace

void protect_thread_stack() {
  thread_local alt_stack stack;
  if (stack.memory) return;
  stack.memory = std::make_unique<char[]>(alt_stack_bytes);
  stack_t ss{};
  ss.ss_sp = stack.memory.get();
  ss.ss_size = alt_stack_bytes;
  ss.ss_flags = 0;
  sigaltstack(&ss, nullptr);
}

void install_crash_handler() {
  if (!same_file(STDOUT_FILENO, STDERR_FILENO)) report_fds[1] = STDERR_FILENO;
  const ssize_t n = ::readlink("/proc/self/exe", executable, sizeof executable - 1);
  executable[n > 0 ? n : 0] = '\0';
  const time_t now = time(nullptr);
  tm local{};
  if (localtime_r(&now, &local)) utc_offset_seconds = local.tm_gmtoff;
  // backtrace() loads the unwinder (libgcc_s) on first use: not in a
  // signal handler.
  void* warm[4];
  backtrace(warm, 4);
  protect_thread_stack();
  struct sigaction action{};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int sig : fatal_signals) sigaction(sig, &action, nullptr);
}

[[gnu::noinline]] void crash_if_requested(std::optional<std::string_view> kind) {
  if (!kind || kind->empty()) return;
  crash_for_test(*kind);
}

// Overflows the stack (not a tail call: the frame is used after it).
[[gnu::no_sanitize("address", "undefined")]] int recurse_for_test(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth == -1) return 0;  // never (the stack ends first); keeps -Winfinite-recursion quiet
  return recurse_for_test(depth + 1) + frame[0];
}

// Not instrumented: under the sanitizers (the test command's build) the
// faults must reach the kernel as signals, not as sanitizer reports.
[[gnu::no_sanitize("address", "undefined")]] void crash_for_test(std::string_view kind) {
  if (kind == "segv") {
    // A store to an unmapped page (not null: the compiler may not turn it
    // into a trap).
    volatile uintptr_t where = 16;
    *reinterpret_cast<volatile int*>(where) = 1;
  } else if (kind == "stack") {
    recurse_for_test(0);
  } else if (kind == "fpe") {
    // Both operands volatile: GCC computes 1 / x without dividing.
    volatile int dividend = 1;
    volatile int zero = 0;
    volatile int quotient = dividend / zero;
    (void)quotient;
  } else if (kind == "ill") {
    __builtin_trap();
  } else if (kind == "bus") {
    if (raise(SIGBUS) != 0) abort();  // not a tail call: the report shows this frame
  } else if (kind == "abort") {
    assert(kind != "abort" && "HW_TEST_CRASH=abort");
    abort();  // should assertions ever be compiled out
  }
}

}  // namespace hw::broker
