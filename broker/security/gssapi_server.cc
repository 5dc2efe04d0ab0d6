// gssapi_server: one GSSAPI exchange, server side.
#include "broker/security/gssapi_server.h"

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>

#include "broker/security/gss_buffer.h"
#include <krb5/krb5.h>

namespace hw::broker {

using gss::as_buffer;
using gss::take;

gssapi_server::gssapi_server(std::shared_ptr<const gss_credential> acceptor,
                             std::shared_ptr<const kerberos_short_namer> names)
    : acceptor_(std::move(acceptor)), names_(std::move(names)) {}

gssapi_server::~gssapi_server() {
  if (context_) {
    OM_uint32 minor = 0;
    gss_ctx_id_t ctx = static_cast<gss_ctx_id_t>(context_);
    gss_delete_sec_context(&minor, &ctx, GSS_C_NO_BUFFER);
  }
}

sasl_step gssapi_server::fail(std::string why) {
  stage_ = stage::failed;
  return sasl_step::fail(std::move(why));
}

sasl_step gssapi_server::evaluate(std::span<const uint8_t> response) {
  switch (stage_) {
    case stage::accept: return accept(response);
    case stage::offer:
      if (!response.empty()) return fail("the client's message after the GSS context was set up was not empty");
      return offer();
    case stage::reply: return reply(response);
    case stage::complete: return fail("a GSSAPI message after the exchange completed");
    case stage::failed: break;
  }
  return fail("a GSSAPI message after the exchange failed");
}

sasl_step gssapi_server::accept(std::span<const uint8_t> token) {
  OM_uint32 minor = 0;
  gss_buffer_desc input = as_buffer(token);
  gss_buffer_desc output = GSS_C_EMPTY_BUFFER;
  gss_name_t source = GSS_C_NO_NAME;
  gss_ctx_id_t ctx = static_cast<gss_ctx_id_t>(context_);
  const OM_uint32 major =
      gss_accept_sec_context(&minor, &ctx, static_cast<gss_cred_id_t>(acceptor_->handle()), &input,
                             GSS_C_NO_CHANNEL_BINDINGS, &source, nullptr, &output, nullptr, nullptr, nullptr);
  context_ = ctx;
  std::vector<uint8_t> answer = take(output);
  if (GSS_ERROR(major)) {
    OM_uint32 ignored = 0;
    if (source != GSS_C_NO_NAME) gss_release_name(&ignored, &source);
    std::string why = "GSS-API refused the client's token: " + gss_status_text(major, minor);
    if (static_cast<krb5_error_code>(minor) == KRB5KRB_AP_ERR_REPEAT) {
      // Kafka's clients retry a replay as a transient error.
      stage_ = stage::failed;
      return sasl_step::abort(std::move(why));
    }
    return fail(std::move(why));
  }
  if (major & GSS_S_CONTINUE_NEEDED) return sasl_step::challenge(std::move(answer));
  // Set up: who the client is.
  gss_buffer_desc shown = GSS_C_EMPTY_BUFFER;
  const OM_uint32 named = gss_display_name(&minor, source, &shown, nullptr);
  OM_uint32 ignored = 0;
  gss_release_name(&ignored, &source);
  if (GSS_ERROR(named)) return fail("the client's principal has no name: " + gss_status_text(named, minor));
  peer_.assign(static_cast<const char*>(shown.value), shown.length);
  gss_release_buffer(&ignored, &shown);
  stage_ = stage::offer;
  if (answer.empty()) return offer();
  return sasl_step::challenge(std::move(answer));
}

sasl_step gssapi_server::offer() {
  const std::vector<uint8_t> layers =
      sasl_gssapi::encode_layers({sasl_gssapi::no_security_layer, sasl_gssapi::server_max_message, {}});
  OM_uint32 minor = 0;
  gss_buffer_desc input = as_buffer(layers);
  gss_buffer_desc output = GSS_C_EMPTY_BUFFER;
  const OM_uint32 major =
      gss_wrap(&minor, static_cast<gss_ctx_id_t>(context_), 0, GSS_C_QOP_DEFAULT, &input, nullptr, &output);
  if (GSS_ERROR(major)) return fail("cannot wrap the security-layer offer: " + gss_status_text(major, minor));
  stage_ = stage::reply;
  return sasl_step::challenge(take(output));
}

sasl_step gssapi_server::reply(std::span<const uint8_t> token) {
  OM_uint32 minor = 0;
  gss_buffer_desc input = as_buffer(token);
  gss_buffer_desc output = GSS_C_EMPTY_BUFFER;
  const OM_uint32 major =
      gss_unwrap(&minor, static_cast<gss_ctx_id_t>(context_), &input, &output, nullptr, nullptr);
  if (GSS_ERROR(major)) return fail("cannot unwrap the client's security-layer reply: " + gss_status_text(major, minor));
  const std::vector<uint8_t> plain = take(output);
  auto chosen = sasl_gssapi::decode_layers(plain);
  if (!chosen) return fail("the client's security-layer reply is shorter than 4 octets");
  if ((chosen->layers & sasl_gssapi::no_security_layer) == 0)
    return fail("the client chose security layers " + std::to_string(chosen->layers) + ", which were not offered");
  authorization_id_ = chosen->authorization_id;
  std::string why;
  auto name = kerberos_name::parse(peer_, &why);
  std::optional<std::string> short_name = name ? names_->short_name(*name, &why) : std::nullopt;
  if (short_name) user_ = std::move(*short_name);
  else principal_error_ = "Failed to set name for '" + peer_ + "' based on Kerberos authentication rules: " + why;
  stage_ = stage::complete;
  return sasl_step::challenge({});
}

}  // namespace hw::broker
