"""The few Kafka requests the benchmarks send themselves, encoded by hand
(standard library only).

IncrementalAlterConfigs v1 (key 44), DescribeQuorum v2 (key 55),
CreateAcls v3 (key 30) and DescribeAcls v3 (key 29) are flexible
versions: request header v2 (client id as a classic nullable string, then
an empty tagged-field section), response header v1 (correlation id,
tagged fields), compact strings and arrays in the bodies.
Metadata v1 (key 3) and ListOffsets v1 (key 2) are classic versions, which
every broker of Kafka 4 still answers: request header v1, response header
v0, int16-length strings and int32-length arrays. A request function
returns (key, version, body, flexible). One `connection` per thread; it is
not thread-safe.
"""

import socket
import struct

NOT_CONTROLLER = 41
NOT_LEADER_OR_FOLLOWER = 6
METADATA_TOPIC = "__cluster_metadata"


def _uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _compact_str(s):
    if s is None:
        return _uvarint(0)
    raw = s.encode()
    return _uvarint(len(raw) + 1) + raw


class _reader:
    def __init__(self, buf):
        self.buf = buf
        self.pos = 0

    def take(self, n):
        if self.pos + n > len(self.buf):
            raise ValueError("short response")
        v = self.buf[self.pos:self.pos + n]
        self.pos += n
        return v

    def int8(self):
        return struct.unpack(">b", self.take(1))[0]

    def int16(self):
        return struct.unpack(">h", self.take(2))[0]

    def int32(self):
        return struct.unpack(">i", self.take(4))[0]

    def int64(self):
        return struct.unpack(">q", self.take(8))[0]

    def uvarint(self):
        shift = 0
        n = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7

    def string(self):
        n = self.int16()
        return None if n < 0 else self.take(n).decode()

    def compact_str(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def tagged_fields(self):
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self.take(self.uvarint())


def incremental_alter_configs_v1(key, value):
    """Sets `key` to `value` on the cluster-default broker resource (type 4, name "")."""
    body = bytearray()
    body += _uvarint(2)  # one resource
    body += struct.pack(">b", 4)
    body += _compact_str("")
    body += _uvarint(2)  # one config
    body += _compact_str(key)
    body += struct.pack(">b", 0)  # SET
    body += _compact_str(value)
    body += _uvarint(0)  # config tagged fields
    body += _uvarint(0)  # resource tagged fields
    body += struct.pack(">?", False)  # validate only
    body += _uvarint(0)
    return 44, 1, bytes(body), True


def describe_quorum_v2():
    body = bytearray()
    body += _uvarint(2)
    body += _compact_str(METADATA_TOPIC)
    body += _uvarint(2)
    body += struct.pack(">i", 0)
    body += _uvarint(0)  # partition tagged fields
    body += _uvarint(0)  # topic tagged fields
    body += _uvarint(0)
    return 55, 2, bytes(body), True


# ACL enums (org.apache.kafka.common.resource.ResourceType, PatternType,
# org.apache.kafka.common.acl.AclOperation, AclPermissionType codes).
RESOURCE_TYPES = {"ANY": 1, "TOPIC": 2, "GROUP": 3, "CLUSTER": 4, "TRANSACTIONAL_ID": 5}
PATTERN_TYPES = {"ANY": 1, "MATCH": 2, "LITERAL": 3, "PREFIXED": 4}
ACL_OPERATIONS = {"ANY": 1, "ALL": 2, "READ": 3, "WRITE": 4, "CREATE": 5, "DELETE": 6, "ALTER": 7, "DESCRIBE": 8,
                  "CLUSTER_ACTION": 9, "DESCRIBE_CONFIGS": 10, "ALTER_CONFIGS": 11, "IDEMPOTENT_WRITE": 12}
ACL_PERMISSIONS = {"ANY": 1, "DENY": 2, "ALLOW": 3}


def create_acls_v3(bindings):
    """One CreateAcls of every binding: (resource type, resource name,
    pattern type, principal, host, operation, permission), the enums by
    their Kafka names ("TOPIC", "PREFIXED", "READ", "ALLOW", ...)."""
    body = bytearray(_uvarint(len(bindings) + 1))
    for rtype, name, pattern, principal, host, operation, permission in bindings:
        body += struct.pack(">b", RESOURCE_TYPES[rtype])
        body += _compact_str(name)
        body += struct.pack(">b", PATTERN_TYPES[pattern])
        body += _compact_str(principal)
        body += _compact_str(host)
        body += struct.pack(">bb", ACL_OPERATIONS[operation], ACL_PERMISSIONS[permission])
        body += _uvarint(0)  # creation tagged fields
    body += _uvarint(0)
    return 30, 3, bytes(body), True


def parse_create_acls_v3(r):
    """[(error code, error message or None)], one per creation, in order."""
    r.int32()  # throttle
    out = []
    for _ in range(r.uvarint() - 1):
        err = r.int16()
        out.append((err, r.compact_str()))
        r.tagged_fields()
    r.tagged_fields()
    return out


def describe_acls_v3():
    """DescribeAcls of every binding: the filter matches any resource,
    pattern, principal, host, operation and permission."""
    body = bytearray()
    body += struct.pack(">b", RESOURCE_TYPES["ANY"])
    body += _compact_str(None)  # any resource name
    body += struct.pack(">b", PATTERN_TYPES["ANY"])
    body += _compact_str(None)  # any principal
    body += _compact_str(None)  # any host
    body += struct.pack(">bb", ACL_OPERATIONS["ANY"], ACL_PERMISSIONS["ANY"])
    body += _uvarint(0)
    return 29, 3, bytes(body), True


def parse_describe_acls_v3(r):
    """(error code, error message, [(resource type code, name, pattern type
    code, principal, host, operation code, permission code)])."""
    r.int32()  # throttle
    err = r.int16()
    message = r.compact_str()
    bindings = []
    for _ in range(r.uvarint() - 1):
        rtype = r.int8()
        name = r.compact_str()
        pattern = r.int8()
        for _ in range(r.uvarint() - 1):
            principal = r.compact_str()
            host = r.compact_str()
            operation = r.int8()
            permission = r.int8()
            r.tagged_fields()
            bindings.append((rtype, name, pattern, principal, host, operation, permission))
        r.tagged_fields()
    r.tagged_fields()
    return err, message, bindings


def _str(s):
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def metadata_v1(topics):
    """Metadata for these topics (None: every topic)."""
    if topics is None:
        return 3, 1, struct.pack(">i", -1), False
    body = struct.pack(">i", len(topics)) + b"".join(_str(t) for t in topics)
    return 3, 1, body, False


def parse_metadata_v1(r):
    """{topic: {partition: (error code, leader, replicas, isr)}}; a topic
    with an error maps to its error code (an int)."""
    for _ in range(r.int32()):  # brokers
        r.int32()
        r.string()
        r.int32()
        r.string()  # rack
    r.int32()  # controller id
    out = {}
    for _ in range(r.int32()):
        err = r.int16()
        name = r.string()
        r.int8()  # is internal
        parts = {}
        for _ in range(r.int32()):
            perr = r.int16()
            index = r.int32()
            leader = r.int32()
            replicas = [r.int32() for _ in range(r.int32())]
            isr = [r.int32() for _ in range(r.int32())]
            parts[index] = (perr, leader, replicas, isr)
        out[name] = err if err else parts
    return out


def list_offsets_v1(topic, partitions, timestamp=-1, replica_id=-2):
    """ListOffsets of these partitions of one topic: by default the latest
    offset as a tool asks any replica (replica id -2), which Kafka answers
    with that replica's log end, not its high watermark."""
    body = struct.pack(">i", replica_id) + struct.pack(">i", 1) + _str(topic) + struct.pack(">i", len(partitions))
    for p in partitions:
        body += struct.pack(">iq", p, timestamp)
    return 2, 1, body, False


def parse_list_offsets_v1(r):
    """{partition: (error code, offset)} of the single topic."""
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            p = r.int32()
            err = r.int16()
            r.int64()  # timestamp
            out[p] = (err, r.int64())
    return out


def parse_incremental_alter_configs_v1(r):
    """The error code of the single resource."""
    r.int32()  # throttle
    n = r.uvarint() - 1
    if n != 1:
        raise ValueError("expected one resource in the response, got %d" % n)
    return r.int16()


def parse_describe_quorum_v2(r):
    """(error code, leader id, leader epoch, high watermark, voter log end offsets)."""
    top = r.int16()
    r.compact_str()
    if top != 0:
        return top, -1, -1, -1, []
    if r.uvarint() - 1 < 1:
        raise ValueError("no topic in DescribeQuorum response")
    r.compact_str()
    if r.uvarint() - 1 < 1:
        raise ValueError("no partition in DescribeQuorum response")
    r.int32()  # partition index
    err = r.int16()
    r.compact_str()
    leader = r.int32()
    epoch = r.int32()
    hw = r.int64()
    ends = []
    for _ in range(r.uvarint() - 1):
        r.int32()  # replica id
        r.take(16)  # directory id
        ends.append(r.int64())
        r.int64()
        r.int64()
        r.tagged_fields()
    return err, leader, epoch, hw, ends


class connection:
    """A blocking connection to one node; owned by one thread."""

    def __init__(self, port, timeout=5.0, tls=None):
        """tls: an ssl.SSLContext for a TLS listener (its certificate must
        name 127.0.0.1), None for a plaintext one."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            self.sock = tls.wrap_socket(self.sock, server_hostname="127.0.0.1")
        self.corr = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("connection closed")
            buf += chunk
        return bytes(buf)

    def call(self, request, parse):
        key, version, body, flexible = request
        self.corr += 1
        client_id = b"hw-bench"
        header = struct.pack(">hhih", key, version, self.corr, len(client_id)) + client_id
        if flexible:
            header += _uvarint(0)
        frame = header + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", self._recv_exact(4))[0]
        r = _reader(self._recv_exact(size))
        if r.int32() != self.corr:
            raise ValueError("correlation id mismatch")
        if flexible:
            r.tagged_fields()
        return parse(r)
