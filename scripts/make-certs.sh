#!/usr/bin/env bash
# Makes a certificate authority and certificates for TLS listeners, in the
# forms Kafka's ssl.* keys read: PKCS12 key stores, a PKCS12 trust store
# (written with keytool when it is installed, so Java clients trust it too),
# and PEM files (encrypted PKCS#8 key + chain, the CA as trusted PEM).
#
#   scripts/make-certs.sh OUT_DIR [--password P] [--hosts h1,h2,...] [--clients c1,c2,...] [--days N]
#
# --days applies to the certificates made in this run (a negative count makes
# them already expired). Each host gets DNS and IP names for itself, localhost and 127.0.0.1 (and,
# for hosts that are addresses, an IP name). Clients get CN=<name>,OU=test,O=Highwater.
# Output, under OUT_DIR:
#   ca.crt ca.key                     the CA (PEM)
#   truststore.p12                    the CA, PKCS12, password P
#   <name>.keystore.p12               key + chain, PKCS12, password P
#   <name>.key.pem <name>.chain.pem   key (encrypted with P) and chain
#   <name>.pem                        both in one file (ssl.keystore.type=PEM)
set -euo pipefail

out="${1:?usage: make-certs.sh OUT_DIR [--password P] [--hosts h1,h2] [--clients c1,c2] [--days N]}"
shift
password="highwater-secret"
hosts="localhost"
clients="alice"
days=3650
while [ $# -gt 0 ]; do
  case "$1" in
    --password) password="$2"; shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --days) days="$2"; shift 2 ;;
    *) echo "make-certs.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$out"
cd "$out"
export HW_CERT_PASSWORD="$password"

if [ ! -f ca.key ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days "$days" \
    -subj "/CN=Highwater Test CA/O=Highwater" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi

rm -f truststore.p12
if command -v keytool >/dev/null 2>&1; then
  keytool -importcert -noprompt -alias ca -file ca.crt -keystore truststore.p12 -storetype PKCS12 \
    -storepass:env HW_CERT_PASSWORD >/dev/null 2>&1
else
  openssl pkcs12 -export -nokeys -in ca.crt -out truststore.p12 -passout env:HW_CERT_PASSWORD
fi

# sign NAME SUBJECT [SAN]
sign() {
  local name="$1" subject="$2" san="${3:-}"
  local ext=()
  [ -n "$san" ] && ext=(-addext "subjectAltName=$san")
  openssl req -newkey rsa:2048 -nodes -keyout "$name.plain.key" -out "$name.csr" -subj "$subject" "${ext[@]}" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$name.crt" -days "$days" \
    -copy_extensions copy 2>/dev/null
  cat "$name.crt" ca.crt > "$name.chain.pem"
  openssl pkcs8 -topk8 -in "$name.plain.key" -out "$name.key.pem" -v2 aes-256-cbc -passout env:HW_CERT_PASSWORD
  cat "$name.key.pem" "$name.chain.pem" > "$name.pem"
  openssl pkcs12 -export -in "$name.crt" -inkey "$name.plain.key" -certfile ca.crt -name "$name" \
    -out "$name.keystore.p12" -passout env:HW_CERT_PASSWORD
  rm -f "$name.plain.key" "$name.csr"
}

IFS=',' read -ra host_list <<< "$hosts"
for h in "${host_list[@]}"; do
  san="DNS:$h,DNS:localhost,IP:127.0.0.1"
  if [[ "$h" =~ ^[0-9.]+$ ]]; then san="IP:$h,DNS:localhost,IP:127.0.0.1"; fi
  sign "$h" "/CN=$h/OU=test/O=Highwater" "$san"
done
IFS=',' read -ra client_list <<< "$clients"
for c in "${client_list[@]}"; do
  [ -n "$c" ] && sign "$c" "/O=Highwater/OU=test/CN=$c"
done
echo "Certificates written to $out"
