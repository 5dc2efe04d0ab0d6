// gssapi_client: one GSSAPI exchange, client side.
#include "broker/security/gssapi_client.h"

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>

#include "broker/security/gss_buffer.h"

namespace hw::broker {

using gss::as_buffer;
using gss::take;

gssapi_client::gssapi_client(std::shared_ptr<const gss_credential> credential, std::string service, std::string host,
                             std::string authorization_id)
    : credential_(std::move(credential)),
      service_(std::move(service)),
      host_(std::move(host)),
      authorization_id_(std::move(authorization_id)) {}

gssapi_client::~gssapi_client() {
  OM_uint32 minor = 0;
  if (context_) {
    gss_ctx_id_t ctx = static_cast<gss_ctx_id_t>(context_);
    gss_delete_sec_context(&minor, &ctx, GSS_C_NO_BUFFER);
  }
  if (target_) {
    gss_name_t name = static_cast<gss_name_t>(target_);
    gss_release_name(&minor, &name);
  }
}

std::optional<std::vector<uint8_t>> gssapi_client::first(std::string* error) {
  const std::string service = service_ + "@" + host_;
  gss_buffer_desc text{service.size(), const_cast<char*>(service.data())};
  gss_name_t target = GSS_C_NO_NAME;
  OM_uint32 minor = 0;
  const OM_uint32 major = gss_import_name(&minor, &text, GSS_C_NT_HOSTBASED_SERVICE, &target);
  if (GSS_ERROR(major)) {
    stage_ = stage::failed;
    *error = "the service name " + service + " is not a GSS-API name: " + gss_status_text(major, minor);
    return std::nullopt;
  }
  target_ = target;
  return step({}, error);
}

std::optional<std::vector<uint8_t>> gssapi_client::step(std::span<const uint8_t> input, std::string* error) {
  OM_uint32 minor = 0;
  gss_buffer_desc in = as_buffer(input);
  gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
  gss_ctx_id_t ctx = static_cast<gss_ctx_id_t>(context_);
  const OM_uint32 major = gss_init_sec_context(
      &minor, static_cast<gss_cred_id_t>(credential_->handle()), &ctx, static_cast<gss_name_t>(target_),
      const_cast<gss_OID>(gss_mech_krb5), GSS_C_MUTUAL_FLAG | GSS_C_SEQUENCE_FLAG | GSS_C_INTEG_FLAG, 0,
      GSS_C_NO_CHANNEL_BINDINGS, context_ ? &in : GSS_C_NO_BUFFER, nullptr, &out, nullptr, nullptr);
  context_ = ctx;
  std::vector<uint8_t> token = take(out);
  if (GSS_ERROR(major)) {
    stage_ = stage::failed;
    *error = "GSS-API cannot log in to " + service_ + "@" + host_ + " as " + credential_->principal() + ": " +
             gss_status_text(major, minor);
    return std::nullopt;
  }
  // Set up: the server's offer comes next (after this last token, or after
  // an empty message when there is none).
  if (!(major & GSS_S_CONTINUE_NEEDED)) stage_ = stage::offer;
  return token;
}

std::optional<std::vector<uint8_t>> gssapi_client::next(std::span<const uint8_t> server_token, std::string* error) {
  switch (stage_) {
    case stage::context: return step(server_token, error);
    case stage::offer: {
      OM_uint32 minor = 0;
      gss_buffer_desc in = as_buffer(server_token);
      gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
      OM_uint32 major = gss_unwrap(&minor, static_cast<gss_ctx_id_t>(context_), &in, &out, nullptr, nullptr);
      if (GSS_ERROR(major)) {
        stage_ = stage::failed;
        *error = "cannot unwrap the server's security-layer offer: " + gss_status_text(major, minor);
        return std::nullopt;
      }
      const std::vector<uint8_t> plain = take(out);
      auto offered = sasl_gssapi::decode_layers(plain);
      if (!offered || (offered->layers & sasl_gssapi::no_security_layer) == 0) {
        stage_ = stage::failed;
        *error = "the server does not offer GSSAPI without a security layer";
        return std::nullopt;
      }
      const std::vector<uint8_t> reply =
          sasl_gssapi::encode_layers({sasl_gssapi::no_security_layer, 0, authorization_id_});
      gss_buffer_desc reply_in = as_buffer(reply);
      major = gss_wrap(&minor, static_cast<gss_ctx_id_t>(context_), 0, GSS_C_QOP_DEFAULT, &reply_in, nullptr, &out);
      if (GSS_ERROR(major)) {
        stage_ = stage::failed;
        *error = "cannot wrap the security-layer reply: " + gss_status_text(major, minor);
        return std::nullopt;
      }
      stage_ = stage::final_answer;
      return take(out);
    }
    case stage::final_answer:
      if (!server_token.empty()) {
        stage_ = stage::failed;
        *error = "the server answered the security-layer reply with data";
        return std::nullopt;
      }
      stage_ = stage::complete;
      return std::nullopt;
    case stage::complete:
    case stage::failed: break;
  }
  stage_ = stage::failed;
  *error = "a GSSAPI server message after the exchange ended";
  return std::nullopt;
}

}  // namespace hw::broker
