#pragma once
// What the broker logs in with on a SASL listener of another node: the
// mechanism and the JAAS `username`/`password`, token source or Kerberos
// credentials (see sasl_client.h for how they are found). Holds a password:
// never log it.

#include <map>
#include <memory>
#include <string>

namespace hw::broker {

// Where the broker's OAUTHBEARER tokens come from when an identity
// provider issues them (oauth_login.h): the current one, refreshed in the
// background.
class oauth_token_source {
 public:
  virtual ~oauth_token_source() = default;
  virtual std::string token() const = 0;
};

class gss_credential;

struct sasl_login {
  std::string mechanism;  // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or GSSAPI
  std::string username;
  std::string password;
  // OAUTHBEARER: the login module's options, from which each connection
  // makes its unsecured token (unsecuredLogin*).
  std::map<std::string, std::string> oauth_options;
  // OAUTHBEARER with a token endpoint: its tokens (else unsecured ones).
  std::shared_ptr<const oauth_token_source> oauth_tokens;
  // GSSAPI: the broker's credentials (its JAAS keytab and principal, the
  // principal also in `username`) and the peers' Kerberos service name.
  std::shared_ptr<const gss_credential> gssapi_credential;
  std::string kerberos_service_name;
};

}  // namespace hw::broker
