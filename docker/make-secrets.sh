#!/usr/bin/env bash
# The secrets docker-compose-sasl-ssl.yml mounts at /etc/kafka/secrets:
# a CA and each node's PKCS12 key store (scripts/make-certs.sh, names
# kafka-1..3 and localhost), the password file the image's
# KAFKA_SSL_*_CREDENTIALS name, the JAAS file KAFKA_OPTS points at (PLAIN
# users admin and alice; SCRAM users are added with kafka-configs), and a
# client.properties for Kafka's tools on the host.
#
#   docker/make-secrets.sh [OUT_DIR]      # default: docker/secrets
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="${1:-$here/secrets}"
password="${HW_SECRETS_PASSWORD:-$(openssl rand -hex 12)}"

"$here/../scripts/make-certs.sh" "$out" --password "$password" --hosts kafka-1,kafka-2,kafka-3,localhost --clients alice
out=$(cd "$out" && pwd)
umask 022
printf '%s' "$password" > "$out/ssl_creds"
cat > "$out/kafka_server_jaas.conf" <<JAAS
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
    user_admin="admin-secret"
    user_alice="alice-secret";
  org.apache.kafka.common.security.scram.ScramLoginModule required;
};
JAAS
cat > "$out/client.properties" <<PROPS
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";
ssl.truststore.type=PEM
ssl.truststore.location=$out/ca.crt
PROPS
# The containers run as another user: the files must be readable by it.
chmod a+rx "$out"
chmod a+r "$out"/*
echo "Secrets for docker-compose-sasl-ssl.yml written to $out"
