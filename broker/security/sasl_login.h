#pragma once
// What the broker logs in with on a SASL listener of another node: the
// mechanism and the JAAS `username`/`password` (see sasl_client.h for how
// it is found). Holds a password: never log it.

#include <string>

namespace hw::broker {

struct sasl_login {
  std::string mechanism;  // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
  std::string username;
  std::string password;
};

}  // namespace hw::broker
