#pragma once
// GSS-API buffers to and from the bytes the SASL exchanges carry, for the
// GSSAPI client and server (gssapi_client.cc, gssapi_server.cc).

#include <gssapi/gssapi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace hw::broker::gss {

// A view of bytes as GSS-API input (GSS-API does not write to it).
inline gss_buffer_desc as_buffer(std::span<const uint8_t> bytes) {
  return gss_buffer_desc{bytes.size(), const_cast<uint8_t*>(bytes.data())};
}

// The bytes of a buffer GSS-API made, which is released.
inline std::vector<uint8_t> take(gss_buffer_desc& buffer) {
  std::vector<uint8_t> out(static_cast<const uint8_t*>(buffer.value),
                           static_cast<const uint8_t*>(buffer.value) + buffer.length);
  OM_uint32 minor = 0;
  gss_release_buffer(&minor, &buffer);
  return out;
}

}  // namespace hw::broker::gss
