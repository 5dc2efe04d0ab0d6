// gss_credential: keytab credentials on MIT Kerberos' GSS-API.
#include "broker/security/gss_credential.h"

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace hw::broker {

namespace {

std::string one_status(OM_uint32 value, int type) {
  std::string out;
  OM_uint32 context = 0;
  do {
    OM_uint32 minor = 0;
    gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
    if (GSS_ERROR(gss_display_status(&minor, value, type, GSS_C_NO_OID, &context, &text))) break;
    if (!out.empty()) out += "; ";
    out.append(static_cast<const char*>(text.value), text.length);
    gss_release_buffer(&minor, &text);
  } while (context != 0);
  return out;
}

}  // namespace

std::string gss_status_text(uint32_t major, uint32_t minor) {
  std::string out = one_status(major, GSS_C_GSS_CODE);
  if (minor != 0) out += ": " + one_status(minor, GSS_C_MECH_CODE);
  return out;
}

gss_credential::~gss_credential() {
  OM_uint32 minor = 0;
  if (handle_) {
    gss_cred_id_t cred = static_cast<gss_cred_id_t>(handle_);
    gss_release_cred(&minor, &cred);
  }
  if (!ccache_.empty()) {
    // The memory cache holds this login's tickets; nothing else uses it.
    krb5_context context = nullptr;
    if (krb5_init_context(&context) == 0) {
      krb5_ccache cache = nullptr;
      if (krb5_cc_resolve(context, ccache_.c_str(), &cache) == 0) krb5_cc_destroy(context, cache);
      krb5_free_context(context);
    }
  }
}

std::variant<std::shared_ptr<const gss_credential>, std::string> gss_credential::from_keytab(
    const std::string& principal, const std::string& keytab, usage use) {
  if (::access(keytab.c_str(), R_OK) != 0)
    return "the keytab " + keytab + " cannot be read: " + std::strerror(errno);
  // The keytab must hold a key for the principal: asked of krb5 first, which
  // says what is wrong in its words (and spares GSS-API's refusal path).
  {
    krb5_context context = nullptr;
    if (krb5_error_code code = krb5_init_context(&context))
      return "cannot read the Kerberos configuration: " + std::string(std::strerror(code > 0 ? code : EINVAL));
    krb5_principal name = nullptr;
    krb5_keytab table = nullptr;
    krb5_keytab_entry entry{};
    krb5_error_code code = krb5_parse_name(context, principal.c_str(), &name);
    if (!code) code = krb5_kt_resolve(context, ("FILE:" + keytab).c_str(), &table);
    if (!code) code = krb5_kt_get_entry(context, table, name, 0, 0, &entry);
    std::string why;
    if (code) {
      const char* text = krb5_get_error_message(context, code);
      why = text;
      krb5_free_error_message(context, text);
    } else {
      krb5_free_keytab_entry_contents(context, &entry);
    }
    if (table) krb5_kt_close(context, table);
    if (name) krb5_free_principal(context, name);
    krb5_free_context(context);
    if (code) return "no key for " + principal + " in the keytab " + keytab + ": " + why;
  }
  std::shared_ptr<gss_credential> out(new gss_credential());
  out->principal_ = principal;
  out->keytab_ = keytab;

  OM_uint32 minor = 0;
  gss_buffer_desc name_text{principal.size(), const_cast<char*>(principal.data())};
  gss_name_t name = GSS_C_NO_NAME;
  OM_uint32 major = gss_import_name(&minor, &name_text, GSS_KRB5_NT_PRINCIPAL_NAME, &name);
  if (GSS_ERROR(major)) return "the principal " + principal + " is not a Kerberos name: " + gss_status_text(major, minor);

  std::vector<gss_key_value_element_desc> elements;
  const std::string keytab_value = "FILE:" + keytab;
  if (use == usage::accept) {
    elements.push_back({"keytab", keytab_value.c_str()});
  } else {
    static std::atomic<uint64_t> next{0};
    out->ccache_ = "MEMORY:highwater-" + std::to_string(::getpid()) + "-" + std::to_string(next++);
    elements.push_back({"client_keytab", keytab_value.c_str()});
    elements.push_back({"ccache", out->ccache_.c_str()});
  }
  gss_key_value_set_desc store{static_cast<OM_uint32>(elements.size()), elements.data()};
  gss_OID_set_desc mechs{1, const_cast<gss_OID>(gss_mech_krb5)};
  gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
  major = gss_acquire_cred_from(&minor, name, GSS_C_INDEFINITE, &mechs,
                                use == usage::accept ? GSS_C_ACCEPT : GSS_C_INITIATE, &store, &cred, nullptr,
                                nullptr);
  OM_uint32 ignored = 0;
  gss_release_name(&ignored, &name);
  if (GSS_ERROR(major))
    return "cannot use the keytab " + keytab + " for " + principal + ": " + gss_status_text(major, minor);
  out->handle_ = cred;
  return std::shared_ptr<const gss_credential>(std::move(out));
}

std::variant<krb5_login_options, std::string> krb5_login_from_jaas(const std::vector<jaas_entry>& entries) {
  for (const jaas_entry& e : entries) {
    if (e.login_module != "com.sun.security.auth.module.Krb5LoginModule") continue;
    auto option = [&](const char* key) -> std::optional<std::string> {
      auto it = e.options.find(key);
      if (it == e.options.end()) return std::nullopt;
      return it->second;
    };
    const auto use_keytab = option("useKeyTab");
    const auto keytab = option("keyTab");
    const auto principal = option("principal");
    if (!use_keytab || *use_keytab != "true" || !keytab || keytab->empty() || !principal || principal->empty())
      return std::string("the Krb5LoginModule JAAS entry must set useKeyTab=true, keyTab and principal "
                         "(logins from a ticket cache are not supported)");
    return krb5_login_options{*keytab, *principal, option("serviceName")};
  }
  return std::string("no com.sun.security.auth.module.Krb5LoginModule in the JAAS entries for GSSAPI");
}

std::variant<std::string, std::string> kerberos_service_name(const krb5_login_options& jaas,
                                                             const std::optional<std::string>& configured) {
  using result = std::variant<std::string, std::string>;
  if (jaas.service_name && configured && *jaas.service_name != *configured)
    return result(std::in_place_index<1>, "Conflicting serviceName values found in JAAS and Kafka configs value in "
                                          "JAAS file " + *jaas.service_name + ", value in Kafka config " + *configured);
  if (jaas.service_name) return result(std::in_place_index<0>, *jaas.service_name);
  if (configured) return result(std::in_place_index<0>, *configured);
  return result(std::in_place_index<1>, "No serviceName defined in either JAAS or Kafka config");
}

std::optional<std::string> kerberos_default_realm() {
  krb5_context context = nullptr;
  if (krb5_init_context(&context) != 0) return std::nullopt;
  char* realm = nullptr;
  std::optional<std::string> out;
  if (krb5_get_default_realm(context, &realm) == 0 && realm) {
    out = realm;
    krb5_free_default_realm(context, realm);
  }
  krb5_free_context(context);
  return out;
}

namespace sasl_gssapi {

std::vector<uint8_t> encode_layers(const layer_message& m) {
  std::vector<uint8_t> out{m.layers, static_cast<uint8_t>(m.max_message >> 16), static_cast<uint8_t>(m.max_message >> 8),
                           static_cast<uint8_t>(m.max_message)};
  out.insert(out.end(), m.authorization_id.begin(), m.authorization_id.end());
  return out;
}

std::optional<layer_message> decode_layers(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return std::nullopt;
  layer_message m;
  m.layers = bytes[0];
  m.max_message = (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) | bytes[3];
  m.authorization_id.assign(bytes.begin() + 4, bytes.end());
  return m;
}

}  // namespace sasl_gssapi

}  // namespace hw::broker
