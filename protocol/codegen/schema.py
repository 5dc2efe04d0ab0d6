"""Reads the project's message definitions (protocol/schema/*.hws).

The format, one definition per block:

    request ApiVersionsRequest key=18 versions=0-4 flexible=3+
      ClientSoftwareName string v3+ default=""
      Topics []Topic v0+ null=1+
        Name string v0+ mapkey
      common SharedStruct v0+
        Field int32 v0+

A block header is `<kind> <Name> [key=N] versions=R flexible=R [unstable]`,
kind one of request, response, header, data, metadata. Below it, fields are
indented two spaces per nesting level: `<Name> <type> v<R>` followed by any of
null=R, tag=N@R (tag and tagged versions), default=VALUE (a JSON string when
quoted), flex=R (field-level flexible versions), ignorable, mapkey, zerocopy.
`common <Name> v<R>` declares a struct shared by several fields. Ranges are
`N`, `N-M`, `N+` or `none`. `#` starts a comment line.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Optional

PRIMITIVES = {
    "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
    "string", "bytes", "uuid", "records",
}
KINDS = {"request", "response", "header", "data", "metadata"}
NO_VERSION = None


@dataclass(frozen=True)
class VersionRange:
    """Inclusive [low, high]; high None means open-ended. A None range is 'none'."""

    low: int
    high: Optional[int]

    def contains(self, v: int) -> bool:
        return v >= self.low and (self.high is None or v <= self.high)

    def __str__(self) -> str:
        if self.high is None:
            return f"{self.low}+"
        if self.high == self.low:
            return f"{self.low}"
        return f"{self.low}-{self.high}"


def parse_range(text: str) -> Optional[VersionRange]:
    text = text.strip()
    if text == "none":
        return None
    if text.endswith("+"):
        return VersionRange(int(text[:-1]), None)
    if "-" in text:
        lo, hi = text.split("-", 1)
        return VersionRange(int(lo), int(hi))
    return VersionRange(int(text), int(text))


def range_str(r: Optional[VersionRange]) -> str:
    return "none" if r is None else str(r)


@dataclass
class Field:
    name: str
    type: str  # "int32", "string", "[]int32", "[]Topic", "Topic"
    versions: Optional[VersionRange]
    nullable: Optional[VersionRange] = None
    tag: Optional[int] = None
    tagged: Optional[VersionRange] = None
    default: Optional[str] = None
    flexible: Optional[str] = None  # field-level override, e.g. "none"
    ignorable: bool = False
    mapkey: bool = False
    zerocopy: bool = False
    fields: list["Field"] = field(default_factory=list)

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        return self.element_type not in PRIMITIVES


@dataclass
class Struct:
    name: str
    versions: Optional[VersionRange]
    fields: list[Field] = field(default_factory=list)


@dataclass
class Message:
    kind: str
    name: str
    api_key: Optional[int]
    versions: VersionRange
    flexible: Optional[VersionRange]
    unstable: bool = False
    fields: list[Field] = field(default_factory=list)
    common: list[Struct] = field(default_factory=list)
    source: str = ""


class SchemaError(Exception):
    pass


def _tokens(text: str) -> list[str]:
    """Splits on spaces, keeping a quoted default=\"...\" value whole."""
    out, i = [], 0
    while i < len(text):
        if text[i] == " ":
            i += 1
            continue
        m = re.match(r'default=("(?:[^"\\]|\\.)*")', text[i:])
        if m:
            out.append(m.group(0))
            i += len(m.group(0))
            continue
        j = text.find(" ", i)
        j = len(text) if j < 0 else j
        out.append(text[i:j])
        i = j
    return out


def _parse_field(tokens: list[str], where: str) -> Field:
    if len(tokens) < 3 or not tokens[2].startswith("v"):
        raise SchemaError(f"{where}: expected '<Name> <type> v<range> ...'")
    f = Field(name=tokens[0], type=tokens[1], versions=parse_range(tokens[2][1:]))
    for t in tokens[3:]:
        if t == "ignorable":
            f.ignorable = True
        elif t == "mapkey":
            f.mapkey = True
        elif t == "zerocopy":
            f.zerocopy = True
        elif t.startswith("null="):
            f.nullable = parse_range(t[5:])
        elif t.startswith("flex="):
            f.flexible = t[5:]
        elif t.startswith("tag="):
            tag, _, rng = t[4:].partition("@")
            f.tag = int(tag)
            f.tagged = parse_range(rng) if rng else f.versions
        elif t.startswith("default="):
            v = t[8:]
            f.default = json.loads(v) if v.startswith('"') else v
        else:
            raise SchemaError(f"{where}: unknown attribute '{t}'")
    return f


def _parse_header(tokens: list[str], where: str) -> Message:
    kind, name = tokens[0], tokens[1]
    attrs: dict[str, str] = {}
    unstable = False
    for t in tokens[2:]:
        if t == "unstable":
            unstable = True
            continue
        k, sep, v = t.partition("=")
        if not sep:
            raise SchemaError(f"{where}: bad attribute '{t}'")
        attrs[k] = v
    if "versions" not in attrs:
        raise SchemaError(f"{where}: '{name}' has no versions=")
    return Message(
        kind=kind, name=name,
        api_key=int(attrs["key"]) if "key" in attrs else None,
        versions=parse_range(attrs["versions"]),
        flexible=parse_range(attrs.get("flexible", "none")),
        unstable=unstable)


def parse_file(path: str) -> list[Message]:
    messages: list[Message] = []
    # stack of (indent, list-to-append-to) for nesting
    stack: list[tuple[int, list]] = []
    current: Optional[Message] = None
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = f"{os.path.basename(path)}:{lineno}"
            indent = len(line) - len(line.lstrip(" "))
            if indent % 2:
                raise SchemaError(f"{where}: indentation must be a multiple of two spaces")
            tokens = _tokens(line.strip())
            if indent == 0:
                if tokens[0] not in KINDS:
                    raise SchemaError(f"{where}: expected one of {sorted(KINDS)}")
                current = _parse_header(tokens, where)
                current.source = os.path.basename(path)
                messages.append(current)
                stack = [(0, current.fields)]
                continue
            if current is None:
                raise SchemaError(f"{where}: field outside a definition")
            level = indent // 2
            while stack and stack[-1][0] >= level:
                stack.pop()
            if not stack or stack[-1][0] != level - 1:
                raise SchemaError(f"{where}: unexpected indentation")
            if tokens[0] == "common":
                if level != 1:
                    raise SchemaError(f"{where}: common structs belong at the top level")
                s = Struct(name=tokens[1], versions=parse_range(tokens[2][1:]))
                current.common.append(s)
                stack.append((level, s.fields))
                continue
            f = _parse_field(tokens, where)
            stack[-1][1].append(f)
            stack.append((level, f.fields))
    return messages


def load_dir(schema_dir: str) -> list[Message]:
    out: list[Message] = []
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith(".hws"):
            out.extend(parse_file(os.path.join(schema_dir, name)))
    return out


# --- writing -----------------------------------------------------------------

def _field_line(f: Field, level: int) -> list[str]:
    parts = [f.name, f.type, "v" + range_str(f.versions)]
    if f.nullable is not None:
        parts.append("null=" + range_str(f.nullable))
    if f.tag is not None:
        tagged = "" if f.tagged == f.versions else "@" + range_str(f.tagged)
        parts.append(f"tag={f.tag}{tagged}")
    if f.default is not None:
        d = f.default
        parts.append("default=" + (json.dumps(d) if (d == "" or " " in d or '"' in d) else d))
    if f.flexible is not None:
        parts.append("flex=" + f.flexible)
    if f.ignorable:
        parts.append("ignorable")
    if f.mapkey:
        parts.append("mapkey")
    if f.zerocopy:
        parts.append("zerocopy")
    lines = ["  " * level + " ".join(parts)]
    for c in f.fields:
        lines.extend(_field_line(c, level + 1))
    return lines


def format_message(m: Message) -> str:
    head = [m.kind, m.name]
    if m.api_key is not None:
        head.append(f"key={m.api_key}")
    head.append("versions=" + range_str(m.versions))
    head.append("flexible=" + range_str(m.flexible))
    if m.unstable:
        head.append("unstable")
    lines = [" ".join(head)]
    for f in m.fields:
        lines.extend(_field_line(f, 1))
    for s in m.common:
        lines.append(f"  common {s.name} v{range_str(s.versions)}")
        for f in s.fields:
            lines.extend(_field_line(f, 2))
    return "\n".join(lines) + "\n"
