#pragma once
// What the broker itself answers about client quotas besides its image's
// DescribeClientQuotas (controller/metadata/quotas.h): the answer to an
// AlterClientQuotas refused as a whole or that no controller took. Kafka's
// AlterClientQuotasRequest.getErrorResponse answers each entry, its entity
// as the request listed it, with the error and the error's default text
// ("Cluster authorization failed.", "The request timed out."), never the
// refusal's own message.
//
// Pure; any thread.

#include "protocol/error_code.h"
#include "protocol/messages/alter_client_quotas.h"

namespace hw::broker {

protocol::msg::alter_client_quotas_response alter_client_quotas_refused(
    const protocol::msg::alter_client_quotas_request& request, protocol::error_code code);

}  // namespace hw::broker
