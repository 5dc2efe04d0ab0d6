#pragma once
// Certificates for a TLS test, made by scripts/make-certs.sh (a CA, PKCS12
// and PEM key stores per host and client, a trust store) in a directory of
// their own that goes away with the object. Needs HW_SOURCE_DIR.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace hw::testing {

class test_certificates {
 public:
  // hosts and clients as make-certs.sh takes them ("localhost", "alice,bob").
  test_certificates(const std::string& password, const std::string& hosts, const std::string& clients) {
    static std::atomic<int> made{0};
    dir_ = (std::filesystem::temp_directory_path() /
            ("hw-certs-" + std::to_string(getpid()) + "-" + std::to_string(made++)))
               .string();
    ok_ = add(password, hosts, clients, dir_);
  }
  ~test_certificates() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  test_certificates(const test_certificates&) = delete;
  test_certificates& operator=(const test_certificates&) = delete;

  // False when make-certs.sh failed.
  bool ok() const { return ok_; }
  const std::string& path() const { return dir_; }
  // More certificates in dir: from the same authority when dir is path(),
  // from a new one elsewhere; valid for days (negative: already expired).
  bool add(const std::string& password, const std::string& hosts, const std::string& clients,
           const std::string& dir, int days = 3650) const {
    const std::string cmd = std::string(HW_SOURCE_DIR) + "/scripts/make-certs.sh " + dir + " --password " + password +
                            " --hosts '" + hosts + "' --clients '" + clients + "' --days " + std::to_string(days) +
                            " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
  }

 private:
  std::string dir_;
  bool ok_ = false;
};

}  // namespace hw::testing
