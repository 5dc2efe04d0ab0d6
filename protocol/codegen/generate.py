#!/usr/bin/env python3
"""Generates C++ codecs from protocol/schema/*.hws (standard library only).

For every schema file `NN_name.hws` (or `name.hws`) it writes
`protocol/messages/name.h` and `.cc` in the build tree: one struct per
definition with encode / decode / encoded_size for every version, nested
structs flattened into the definition's scope. It also writes
`api_registry.{h,cc}` (the API table and generic decode/re-encode by key and
version) and, for tests, `testing/samples.{h,cc}` (deterministic sample values
for every definition and version) and `testing/dump.{h,cc}` (any request or
response as field path = value lines, for comparisons between brokers), and
for the tools `json/json.{h,cc}` (Kafka's JSON view of the data and metadata
definitions, as kafka-dump-log.sh prints them).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from schema import Field, Message, PRIMITIVES, VersionRange, load_dir  # noqa: E402

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
    "class", "const", "constexpr", "continue", "default", "delete", "do", "double", "else",
    "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr",
    "operator", "or", "private", "protected", "public", "register", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true",
    "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "while", "xor",
}
RESERVED_MEMBERS = {"decode", "encode", "encoded_size", "unknown_tagged_fields", "schema"}

FIXED = {
    "bool": ("bool", "bool", 1, "false"),
    "int8": ("int8_t", "int8", 1, "0"),
    "int16": ("int16_t", "int16", 2, "0"),
    "uint16": ("uint16_t", "uint16", 2, "0"),
    "int32": ("int32_t", "int32", 4, "0"),
    "uint32": ("uint32_t", "uint32", 4, "0"),
    "int64": ("int64_t", "int64", 8, "0"),
    "float64": ("double", "float64", 8, "0.0"),
    "uuid": ("::hw::protocol::uuid", "uuid", 16, None),
}


def snake(name: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    return s.lower()


def member_name(f: Field) -> str:
    n = snake(f.name)
    if n in CPP_KEYWORDS:
        n += "_"
    if n in RESERVED_MEMBERS:
        raise SystemExit(f"field {f.name} clashes with a generated member")
    return n


def cond(r: VersionRange | None, var: str = "version") -> str:
    """A C++ condition that `var` lies in range r."""
    if r is None:
        return "false"
    parts = []
    if r.low > 0:
        parts.append(f"{var} >= {r.low}")
    if r.high is not None:
        parts.append(f"{var} <= {r.high}")
    return " && ".join(parts) if parts else "true"


def intersect(a: VersionRange | None, b: VersionRange | None) -> VersionRange | None:
    if a is None or b is None:
        return None
    low = max(a.low, b.low)
    highs = [h for h in (a.high, b.high) if h is not None]
    high = min(highs) if highs else None
    if high is not None and high < low:
        return None
    return VersionRange(low, high)


class StructDef:
    def __init__(self, name: str, fields: list[Field], versions: VersionRange | None):
        self.name = name
        self.fields = fields
        self.versions = versions
        self.cpp = snake(name)


class MessageGen:
    """Emits one definition: its nested structs, then the definition struct."""

    def __init__(self, m: Message):
        self.m = m
        self.cpp = snake(m.name)
        self.structs: dict[str, StructDef] = {}
        for s in m.common:
            self.structs[s.name] = StructDef(s.name, s.fields, s.versions)
        self._collect(m.fields)
        top_names = {member_name(f) for f in m.fields}
        for s in self.structs.values():
            if s.cpp in top_names or s.cpp == self.cpp:
                s.cpp += "_data"
        self.order: list[StructDef] = []
        self._order(m.fields, set())
        self.root = StructDef(m.name, m.fields, m.versions)
        self.root.cpp = self.cpp

    def _collect(self, fields: list[Field]) -> None:
        for f in fields:
            if f.is_struct and f.fields:
                if f.element_type in self.structs:
                    raise SystemExit(f"{self.m.name}: struct {f.element_type} defined twice")
                self.structs[f.element_type] = StructDef(f.element_type, f.fields, f.versions)
                self._collect(f.fields)

    def _order(self, fields: list[Field], seen: set[str]) -> None:
        for f in fields:
            if not f.is_struct:
                continue
            s = self.structs.get(f.element_type)
            if s is None:
                raise SystemExit(f"{self.m.name}: unknown type {f.type}")
            if s.name in seen:
                continue
            seen.add(s.name)
            self._order(s.fields, seen)
            self.order.append(s)

    # --- types and defaults ---------------------------------------------------

    def qualified(self, s: StructDef) -> str:
        # Nested structs live at namespace scope (detail::<message>_<struct>)
        # and are aliased inside their message: a nested class's default
        # member initializers are not usable inside the enclosing class
        # definition, which std::optional<nested> members would need.
        if s.cpp.startswith(self.cpp + "_"):
            return f"detail::{s.cpp}"
        return f"detail::{self.cpp}_{s.cpp}"

    def elem_cpp(self, t: str) -> str:
        if t in FIXED:
            return FIXED[t][0]
        if t == "string":
            return "std::string"
        if t == "bytes":
            return "std::vector<uint8_t>"
        if t == "records":
            return "::hw::protocol::records_view"
        return self.qualified(self.structs[t])

    def field_cpp(self, f: Field) -> str:
        base = self.elem_cpp(f.element_type)
        if f.is_array:
            base = f"std::vector<{base}>"
        if f.nullable is not None and f.element_type != "records" and (
                f.is_array or f.element_type in ("string", "bytes") or f.is_struct):
            return f"std::optional<{base}>"
        return base

    def optional(self, f: Field) -> bool:
        return self.field_cpp(f).startswith("std::optional<")

    def default_init(self, f: Field) -> str:
        d = f.default
        t = f.element_type
        if self.optional(f):
            if is_null_default(d):
                return ""
            if t == "string" and not f.is_array:
                return f"{{{cpp_string(d or '')}}}"
            return "{std::in_place}"
        if f.is_array or f.is_struct or t in ("bytes", "records", "uuid"):
            return ""
        if t == "string":
            return f" = {cpp_string(d)}" if d else ""
        if t == "bool":
            return f" = {'true' if (d or 'false').lower() == 'true' else 'false'}"
        if t == "float64":
            return f" = {float(d) if d else 0.0!r}"
        return f" = {int_literal(t, d)}"

    # --- emission --------------------------------------------------------------

    def declare(self, s: StructDef, indent: str) -> list[str]:
        own = self.cpp if s is self.root else self.qualified(s).split("::")[-1]
        out = [f"{indent}struct {own} {{"]
        for f in s.fields:
            out.append(f"{indent}  {self.field_cpp(f)} {member_name(f)}{self.default_init(f)};")
        out.append(f"{indent}  ::hw::protocol::tagged_fields unknown_tagged_fields;")
        out.append("")
        out.append(f"{indent}  void decode(::hw::protocol::reader& r, int16_t version);")
        out.append(f"{indent}  void encode(::hw::protocol::writer& w, int16_t version) const;")
        out.append(f"{indent}  size_t encoded_size(int16_t version) const;")
        out.append(f"{indent}  bool operator==(const {own}&) const = default;")
        return out

    def header(self) -> list[str]:
        m = self.m
        out = []
        if self.order:
            out.append("namespace detail {")
            for s in self.order:
                out.extend(self.declare(s, ""))
                out.append("};")
                out.append("")
            out.append("}  // namespace detail")
            out.append("")
        out.append(f"struct {self.cpp} {{")
        flex = m.flexible.low if m.flexible is not None else -1
        key = m.api_key if m.api_key is not None else -1
        out.append(f"  static constexpr ::hw::protocol::schema_info schema{{"
                   f"{key}, {m.versions.low}, {m.versions.high if m.versions.high is not None else 32767}, "
                   f"{flex}, \"{m.name}\"}};")
        out.append("")
        for s in self.order:
            out.append(f"  using {s.cpp} = {self.qualified(s)};")
        if self.order:
            out.append("")
        body = self.declare(self.root, "")[1:]
        out.extend(body)
        out.append("};")
        return out

    def flexible_expr(self) -> str:
        return cond(self.m.flexible)

    def source(self) -> list[str]:
        out = []
        for s in self.order + [self.root]:
            q = self.cpp if s is self.root else self.qualified(s)
            out.extend(self.decode_fn(s, q))
            out.extend(self.encode_fn(s, q))
            out.extend(self.size_fn(s, q))
        return out

    def field_flex(self, f: Field) -> str:
        if f.flexible == "none":
            return "false"
        return "flexible"

    # decode -------------------------------------------------------------------

    def decode_fn(self, s: StructDef, q: str) -> list[str]:
        out = [f"void {q}::decode(::hw::protocol::reader& r, int16_t version) {{",
               f"  [[maybe_unused]] const bool flexible = {self.flexible_expr()};"]
        for f in s.fields:
            c = inline_cond(f)
            if c is None:
                continue
            body = self.read_value(f, "this->" + member_name(f), "r", self.field_flex(f), "  ")
            out.extend(wrap(c, body, "  "))
        out.append("  if (flexible) {")
        out.append("    uint32_t tag_count = r.read_uvarint();")
        out.append("    if (!r.plausible_count(tag_count, 2)) return;")
        out.append("    for (uint32_t i = 0; i < tag_count && r.ok(); ++i) {")
        out.append("      uint32_t tag = r.read_uvarint();")
        out.append("      uint32_t size = r.read_uvarint();")
        out.append("      ::hw::protocol::reader sub = r.sub(size);")
        out.append("      switch (tag) {")
        for f in sorted((f for f in s.fields if f.tag is not None), key=lambda f: f.tag):
            out.append(f"        case {f.tag}:")
            out.append(f"          if ({cond(f.tagged)}) {{")
            out.extend(self.read_value(f, "this->" + member_name(f), "sub", "true", "            ", tagged=True))
            out.append("            if (!sub.ok()) r.fail(sub.error());")
            out.append("            break;")
            out.append("          }")
            out.append("          [[fallthrough]];")
        out.append("        default:")
        out.append("          unknown_tagged_fields.push_back(::hw::protocol::codec::read_unknown_tag(tag, sub));")
        out.append("      }")
        out.append("    }")
        out.append("  }")
        out.append("}")
        out.append("")
        return out

    def read_value(self, f: Field, target: str, rd: str, flex: str, ind: str, tagged: bool = False) -> list[str]:
        t = f.element_type
        nullable_now = cond(f.nullable)
        if f.is_array:
            elem = self.elem_cpp(t)
            vec = f"{target}.emplace()" if self.optional(f) else target
            lines = [f"{ind}{{",
                     f"{ind}  int32_t n = ::hw::protocol::codec::read_count({rd}, {flex});",
                     f"{ind}  if (n < 0) {{"]
            if self.optional(f):
                lines.append(f"{ind}    if ({nullable_now}) {target}.reset(); else {rd}.fail(\"null array {f.name}\");")
            else:
                lines.append(f"{ind}    {rd}.fail(\"null array {f.name}\");")
            lines.append(f"{ind}  }} else {{")
            lines.append(f"{ind}    auto& v = {vec};")
            lines.append(f"{ind}    v.clear();")
            lines.append(f"{ind}    v.resize(static_cast<size_t>(n));")
            lines.append(f"{ind}    for ({elem}& e : v) {{")
            lines.extend(self.read_scalar(t, "e", rd, flex, ind + "      ", f.name, "false"))
            lines.append(f"{ind}      if (!{rd}.ok()) break;")
            lines.append(f"{ind}    }}")
            lines.append(f"{ind}  }}")
            lines.append(f"{ind}}}")
            return lines
        if f.is_struct:
            if self.optional(f) and tagged:
                # A tagged nullable struct starts with an unsigned varint: 0
                # for null, 1 for a struct that follows (Kafka's generator).
                return [f"{ind}if ({nullable_now} && {rd}.read_uvarint() == 0) {{",
                        f"{ind}  {target}.reset();",
                        f"{ind}}} else {{",
                        f"{ind}  {target}.emplace().decode({rd}, version);",
                        f"{ind}}}"]
            if self.optional(f):
                return [f"{ind}if ({nullable_now} && {rd}.read_int8() < 0) {{",
                        f"{ind}  {target}.reset();",
                        f"{ind}}} else {{",
                        f"{ind}  {target}.emplace().decode({rd}, version);",
                        f"{ind}}}"]
            return [f"{ind}{target}.decode({rd}, version);"]
        return self.read_scalar(t, target, rd, flex, ind, f.name,
                                nullable_now if f.nullable is not None else "false",
                                self.optional(f))

    def read_scalar(self, t: str, target: str, rd: str, flex: str, ind: str, name: str,
                    nullable_now: str, optional: bool = False) -> list[str]:
        if t in FIXED:
            return [f"{ind}{target} = {rd}.read_{FIXED[t][1]}();"]
        if t == "records":
            return [f"{ind}{target} = ::hw::protocol::codec::read_records({rd}, {flex});"]
        if t in ("string", "bytes"):
            fn = "read_string" if t == "string" else "read_bytes"
            lines = [f"{ind}{{",
                     f"{ind}  bool is_null = false;",
                     f"{ind}  auto decoded = ::hw::protocol::codec::{fn}({rd}, {flex}, is_null);"]
            if optional:
                lines.append(f"{ind}  if (is_null && !({nullable_now})) {rd}.fail(\"null {name}\");")
                lines.append(f"{ind}  if (is_null) {target}.reset(); else {target} = std::move(decoded);")
            else:
                lines.append(f"{ind}  if (is_null) {rd}.fail(\"null {name}\");")
                lines.append(f"{ind}  {target} = std::move(decoded);")
            lines.append(f"{ind}}}")
            return lines
        return [f"{ind}{target}.decode({rd}, version);"]

    # encode -------------------------------------------------------------------

    def encode_fn(self, s: StructDef, q: str) -> list[str]:
        out = [f"void {q}::encode(::hw::protocol::writer& w, int16_t version) const {{",
               f"  [[maybe_unused]] const bool flexible = {self.flexible_expr()};"]
        for f in s.fields:
            c = inline_cond(f)
            if c is None:
                continue
            out.extend(wrap(c, self.write_value(f, "this->" + member_name(f), self.field_flex(f), "  "), "  "))
        tagged = sorted((f for f in s.fields if f.tag is not None), key=lambda f: f.tag)
        out.append("  if (!flexible) return;")
        out.append("  uint32_t tag_count = static_cast<uint32_t>(unknown_tagged_fields.size());")
        for f in tagged:
            out.append(f"  const bool has_{member_name(f)} = ({cond(f.tagged)}) && {self.non_default(f)};")
            out.append(f"  tag_count += has_{member_name(f)};")
        out.append("  w.write_uvarint(tag_count);")
        out.append("  [[maybe_unused]] size_t next_unknown = 0;")
        for f in tagged:
            n = "this->" + member_name(f)
            if f.tag > 0:
                out.append(f"  while (next_unknown < unknown_tagged_fields.size() && "
                           f"unknown_tagged_fields[next_unknown].tag < {f.tag})")
                out.append("    ::hw::protocol::codec::write_unknown_tag(w, unknown_tagged_fields[next_unknown++]);")
            out.append(f"  if (has_{member_name(f)}) {{")
            out.append(f"    w.write_uvarint({f.tag});")
            out.append(f"    w.write_uvarint(static_cast<uint32_t>({self.value_size_expr(f, n, 'true')}));")
            out.extend(self.write_value(f, n, "true", "    ", tagged=True))
            out.append("  }")
        out.append("  while (next_unknown < unknown_tagged_fields.size())")
        out.append("    ::hw::protocol::codec::write_unknown_tag(w, unknown_tagged_fields[next_unknown++]);")
        out.append("}")
        out.append("")
        return out

    def non_default(self, f: Field) -> str:
        n = "this->" + member_name(f)
        t = f.element_type
        if self.optional(f):
            if is_null_default(f.default):
                return f"{n}.has_value()"
            if f.is_array or t == "bytes":
                return f"(!{n} || !{n}->empty())"
            if f.is_struct:
                return f"(!{n} || !(*{n} == {self.elem_cpp(t)}{{}}))"
            return f"(!{n} || *{n} != {cpp_string(f.default or '')})"
        if f.is_array or t == "bytes":
            return f"!{n}.empty()"
        if f.is_struct:
            return f"!({n} == {self.elem_cpp(t)}{{}})"
        if t == "uuid":
            return f"!{n}.is_zero()"
        if t == "records":
            return f"!{n}.null"
        if t == "string":
            return f"{n} != {cpp_string(f.default or '')}"
        if t == "bool":
            return f"{n} != {'true' if (f.default or 'false').lower() == 'true' else 'false'}"
        if t == "float64":
            return f"{n} != {float(f.default) if f.default else 0.0!r}"
        return f"{n} != {int_literal(t, f.default)}"

    def write_value(self, f: Field, target: str, flex: str, ind: str, tagged: bool = False) -> list[str]:
        t = f.element_type
        if f.is_array:
            lines = []
            src = target
            if self.optional(f):
                lines.append(f"{ind}if (!{target}) {{")
                lines.append(f"{ind}  ::hw::protocol::codec::write_null(w, {flex}, false);")
                lines.append(f"{ind}}} else {{")
                src = f"(*{target})"
                ind2 = ind + "  "
            else:
                ind2 = ind
            lines.append(f"{ind2}::hw::protocol::codec::write_length(w, {flex}, false, "
                         f"static_cast<int32_t>({src}.size()));")
            lines.append(f"{ind2}for (const auto& e : {src}) {{")
            lines.extend(self.write_scalar(t, "e", flex, ind2 + "  ", False))
            lines.append(f"{ind2}}}")
            if self.optional(f):
                lines.append(f"{ind}}}")
            return lines
        if f.is_struct:
            if self.optional(f) and tagged:
                return [f"{ind}if (!{target}) {{",
                        f"{ind}  w.write_uvarint(0);",
                        f"{ind}}} else {{",
                        f"{ind}  if ({cond(f.nullable)}) w.write_uvarint(1);",
                        f"{ind}  {target}->encode(w, version);",
                        f"{ind}}}"]
            if self.optional(f):
                return [f"{ind}if (!{target}) {{",
                        f"{ind}  w.write_int8(-1);",
                        f"{ind}}} else {{",
                        f"{ind}  if ({cond(f.nullable)}) w.write_int8(1);",
                        f"{ind}  {target}->encode(w, version);",
                        f"{ind}}}"]
            return [f"{ind}{target}.encode(w, version);"]
        return self.write_scalar(t, target, flex, ind, self.optional(f))

    def write_scalar(self, t: str, target: str, flex: str, ind: str, optional: bool) -> list[str]:
        if t in FIXED:
            return [f"{ind}w.write_{FIXED[t][1]}({target});"]
        if t == "records":
            return [f"{ind}::hw::protocol::codec::write_records(w, {flex}, {target});"]
        if t in ("string", "bytes"):
            fn = "write_string" if t == "string" else "write_bytes"
            if optional:
                return [f"{ind}if ({target}) ::hw::protocol::codec::{fn}(w, {flex}, *{target});",
                        f"{ind}else ::hw::protocol::codec::write_null(w, {flex}, {'true' if t == 'string' else 'false'});"]
            return [f"{ind}::hw::protocol::codec::{fn}(w, {flex}, {target});"]
        return [f"{ind}{target}.encode(w, version);"]

    # size ---------------------------------------------------------------------

    def size_fn(self, s: StructDef, q: str) -> list[str]:
        out = [f"size_t {q}::encoded_size(int16_t version) const {{",
               f"  [[maybe_unused]] const bool flexible = {self.flexible_expr()};",
               "  size_t n = 0;"]
        for f in s.fields:
            c = inline_cond(f)
            if c is None:
                continue
            out.extend(wrap(c, [f"  n += {self.value_size_expr(f, 'this->' + member_name(f), self.field_flex(f))};"], "  "))
        out.append("  if (!flexible) return n;")
        out.append("  uint32_t tag_count = static_cast<uint32_t>(unknown_tagged_fields.size());")
        out.append("  for (const auto& t : unknown_tagged_fields) n += ::hw::protocol::codec::unknown_tag_size(t);")
        for f in sorted((f for f in s.fields if f.tag is not None), key=lambda f: f.tag):
            mn = "this->" + member_name(f)
            out.append(f"  if (({cond(f.tagged)}) && {self.non_default(f)}) {{")
            out.append(f"    size_t v = {self.value_size_expr(f, mn, 'true')};")
            out.append(f"    n += ::hw::protocol::uvarint_size({f.tag}) + "
                       f"::hw::protocol::uvarint_size(static_cast<uint32_t>(v)) + v;")
            out.append("    ++tag_count;")
            out.append("  }")
        out.append("  return n + ::hw::protocol::uvarint_size(tag_count);")
        out.append("}")
        out.append("")
        return out

    def value_size_expr(self, f: Field, target: str, flex: str) -> str:
        t = f.element_type
        if f.is_array:
            src = f"(*{target})" if self.optional(f) else target
            prefix = (f"::hw::protocol::codec::length_size({flex}, false, "
                      f"static_cast<int32_t>({src}.size()))")
            if t in FIXED:
                arr = f"({prefix} + {src}.size() * {FIXED[t][2]})"
            else:
                each = self.scalar_size_expr(t, "e", flex, False)
                arr = (f"[&] {{ size_t s = {prefix}; "
                       f"for (const auto& e : {src}) s += {each}; return s; }}()")
            if self.optional(f):
                return f"({target} ? {arr} : ::hw::protocol::codec::length_size({flex}, false, -1))"
            return arr
        if f.is_struct:
            if self.optional(f):
                return (f"({target} ? ({cond(f.nullable)} ? 1 : 0) + {target}->encoded_size(version) "
                        f": size_t{{1}})")
            return f"{target}.encoded_size(version)"
        return self.scalar_size_expr(t, target, flex, self.optional(f))

    def scalar_size_expr(self, t: str, target: str, flex: str, optional: bool) -> str:
        if t in FIXED:
            return f"size_t{{{FIXED[t][2]}}}"
        if t == "records":
            return f"::hw::protocol::codec::records_size({flex}, {target})"
        if t in ("string", "bytes"):
            fn = "string_size" if t == "string" else "bytes_size"
            if optional:
                return (f"({target} ? ::hw::protocol::codec::{fn}({flex}, *{target}) : "
                        f"::hw::protocol::codec::length_size({flex}, {'true' if t == 'string' else 'false'}, -1))")
            return f"::hw::protocol::codec::{fn}({flex}, {target})"
        return f"{target}.encoded_size(version)"


def inline_cond(f: Field) -> str | None:
    """When a field sits in the body rather than the tagged section: its
    versions, minus the flexible versions where it is tagged. None when it is
    only ever tagged."""
    if f.tag is not None and f.versions == f.tagged:
        return None
    c = cond(f.versions)
    if f.tag is not None:
        c = f"({c}) && !({cond(f.tagged)} && flexible)"
    return c


def wrap(c: str, body: list[str], ind: str) -> list[str]:
    if c == "true":
        return body
    if c == "false":
        return []
    out = [f"{ind}if ({c}) {{"]
    out.extend("  " + line for line in body)
    out.append(f"{ind}}}")
    return out


def is_null_default(d: str | None) -> bool:
    # "None" is a definition's JSON null: no default given, so the type's
    # empty value (an empty struct or array), not null, as Kafka's
    # generator reads it. Only the string "null" makes null the default.
    return d == "null"


def cpp_string(s: str | None) -> str:
    s = s or ""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def int_literal(t: str, d: str | None) -> str:
    if not d:
        return "0"
    v = int(d, 0)
    if t == "int64":
        return f"INT64_C({v})" if v != -(2**63) else "INT64_MIN"
    if t == "int32" and v == -(2**31):
        return "INT32_MIN"
    return str(v)


# --- samples for tests ---------------------------------------------------------

class SampleGen:
    """Emits fill functions that give every field present in a version a
    non-trivial value drawn from a seeded generator."""

    def __init__(self, g: MessageGen):
        self.g = g

    def fns(self) -> tuple[list[str], list[str]]:
        decls, defs = [], []
        for s in self.g.order + [self.g.root]:
            q = self.g.cpp if s is self.g.root else self.g.qualified(s)
            decls.append(f"void fill(msg::{q}& m, int16_t version, sample_rng& rng);")
            defs.append(f"void fill(msg::{q}& m, int16_t version, sample_rng& rng) {{")
            defs.append(f"  [[maybe_unused]] const bool flexible = {self.g.flexible_expr()};")
            for f in s.fields:
                c = cond(f.versions)
                if f.tag is not None:
                    c = f"({c}) && (!({cond(f.tagged)}) || flexible)"
                defs.extend(wrap(c, self.fill_field(f), "  "))
            # Tags no definition uses: they must survive decode and re-encode.
            defs.append("  if (flexible && rng.chance(6)) m.unknown_tagged_fields.push_back({90, sample_bytes(rng)});")
            defs.append("  if (flexible && rng.chance(6)) m.unknown_tagged_fields.push_back({91, sample_bytes(rng)});")
            defs.append("}")
            defs.append("")
        return decls, defs

    def fill_field(self, f: Field) -> list[str]:
        n = "m." + member_name(f)
        t = f.element_type
        lines = []
        nullable = cond(f.nullable)
        if self.g.optional(f):
            lines.append(f"  if (({nullable}) && rng.chance(4)) {{ {n}.reset(); }} else {{")
            inner = f"{n}.emplace()"
        else:
            lines.append("  {")
            inner = n
        if f.is_array:
            lines.append(f"    auto& v = {inner};")
            lines.append("    v.resize(rng.below(3));")
            lines.append("    for (auto& e : v) {")
            lines.append(f"      {self.fill_scalar(t, 'e')}")
            lines.append("    }")
        elif f.is_struct:
            lines.append(f"    fill({inner}, version, rng);")
        elif t == "records":
            if f.nullable is not None:
                lines.append(f"    if (({nullable}) && rng.chance(4)) {n} = {{}}; else {n} = sample_records(rng);")
            else:
                lines.append(f"    {n} = sample_records(rng);")
        else:
            lines.append(f"    {self.fill_scalar(t, inner if not self.g.optional(f) else f'{inner}')}")
        lines.append("  }")
        return lines

    def fill_scalar(self, t: str, target: str) -> str:
        if t == "bool":
            return f"{target} = rng.chance(2);"
        if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
            return f"{target} = static_cast<{FIXED[t][0]}>(rng.next());"
        if t == "float64":
            return f"{target} = static_cast<double>(rng.below(1000)) / 8.0;"
        if t == "uuid":
            return f"{target} = sample_uuid(rng);"
        if t == "string":
            return f"{target} = sample_string(rng);"
        if t == "bytes":
            return f"{target} = sample_bytes(rng);"
        if t == "records":
            return f"{target} = sample_records(rng);"
        return f"fill({target}, version, rng);"


# --- dumps for tests ---------------------------------------------------------------

class DumpGen:
    """Emits dump functions: every field present in a version as one
    (path, value) line per scalar, for field-by-field comparisons in tests.
    Formatting and records summaries live in protocol/testing/dump_support.h."""

    SHOW = {"bool": "show_bool", "float64": "show_double", "uuid": "show_uuid",
            "string": "show_string", "bytes": "show_bytes"}

    def __init__(self, g: MessageGen):
        self.g = g

    def fns(self) -> tuple[list[str], list[str]]:
        decls, defs = [], []
        for s in self.g.order + [self.g.root]:
            q = self.g.cpp if s is self.g.root else self.g.qualified(s)
            sig = (f"void dump(const msg::{q}& m, [[maybe_unused]] int16_t version, "
                   f"const std::string& p, dump_lines& out)")
            decls.append(sig + ";")
            defs.append(sig + " {")
            defs.append(f"  [[maybe_unused]] const bool flexible = {self.g.flexible_expr()};")
            for f in s.fields:
                c = cond(f.versions)
                if f.tag is not None:
                    c = f"({c}) && (!({cond(f.tagged)}) || flexible)"
                body = [f"  const std::string q = dump_at(p, \"{member_name(f)}\");"]
                body.extend(self.value(f, "m." + member_name(f), "q", "  "))
                defs.extend(wrap(c, body, "  ") if c != "true" else ["  {", *("  " + b for b in body), "  }"])
            defs.append("  if (flexible) dump_unknown_tags(m.unknown_tagged_fields, p, out);")
            defs.append("}")
            defs.append("")
        return decls, defs

    def value(self, f: Field, expr: str, q: str, ind: str) -> list[str]:
        if not self.g.optional(f):
            return self.present(f, expr, q, ind)
        lines = [f"{ind}if (!{expr}) {{", f"{ind}  out.push_back({{{q}, \"null\"}});", f"{ind}}} else {{"]
        lines.extend(self.present(f, f"(*{expr})", q, ind + "  "))
        lines.append(f"{ind}}}")
        return lines

    def present(self, f: Field, expr: str, q: str, ind: str) -> list[str]:
        if not f.is_array:
            return [ind + self.element(f.element_type, expr, q)]
        return [f"{ind}out.push_back({{{q}, \"[\" + std::to_string({expr}.size()) + \"]\"}});",
                f"{ind}for (size_t i = 0; i < {expr}.size(); ++i) {{",
                f"{ind}  {self.element(f.element_type, f'{expr}[i]', f'dump_index({q}, i)')}",
                f"{ind}}}"]

    def element(self, t: str, expr: str, q: str) -> str:
        if t in self.SHOW:
            return f"out.push_back({{{q}, {self.SHOW[t]}({expr})}});"
        if t in FIXED:
            return f"out.push_back({{{q}, show_int({expr})}});"
        if t == "records":
            return f"dump_records({expr}, {q}, out);"
        return f"dump({expr}, version, {q}, out);"


# --- JSON for the tools ---------------------------------------------------------

class JsonGen:
    """Emits Kafka's JSON view of a data or metadata definition (what its
    generated *JsonConverter.write prints): fields in schema order under
    their camelCase names, tagged fields only when they differ from their
    default. Formatting lives in protocol/json/json_out.h; used by the tools
    only (library hw_protocol_json)."""

    def __init__(self, g: MessageGen):
        self.g = g

    def fns(self) -> tuple[list[str], list[str]]:
        decls, defs = [], []
        for s in self.g.order + [self.g.root]:
            q = self.g.cpp if s is self.g.root else self.g.qualified(s)
            sig = f"void write_json(const msg::{q}& m, [[maybe_unused]] int16_t version, json_out& out)"
            decls.append(sig + ";")
            defs.append(sig + " {")
            defs.append(f"  [[maybe_unused]] const bool flexible = {self.g.flexible_expr()};")
            defs.append("  if (flexible && !m.unknown_tagged_fields.empty()) out.unknown_tags();")
            defs.append("  out.begin_object();")
            for f in s.fields:
                defs.extend(self.field(f))
            defs.append("  out.end_object();")
            defs.append("}")
            defs.append("")
        return decls, defs

    def field(self, f: Field) -> list[str]:
        n = "m." + member_name(f)
        name = f.name[:1].lower() + f.name[1:]
        write = [f'  out.key("{name}");', *self.value(f, n, "  ")]
        untagged = cond(f.versions)
        if f.tag is None:
            return wrap(untagged, write, "  ")
        tagged = f"({cond(f.tagged)}) && flexible"
        out = []
        if untagged != "false":
            out.extend(wrap(f"({untagged}) && !({tagged})", write, "  "))
        out.extend(wrap(f"({tagged}) && {self.non_default(f, n)}", write, "  "))
        return out

    def non_default(self, f: Field, n: str) -> str:
        t = f.element_type
        if self.g.optional(f):
            if is_null_default(f.default):
                return f"{n}.has_value()"
            return f"!({n}.has_value() && {n} == decltype({n}){{{self.g.default_init(f).strip() or ''}}})"
        if f.is_array or t == "bytes":
            return f"!{n}.empty()"
        if f.is_struct:
            return f"!({n} == decltype({n}){{}})"
        if t == "uuid":
            return f"!({n} == ::hw::protocol::uuid{{}})"
        if t == "string":
            return f"{n} != {cpp_string(f.default)}"
        if t == "bool":
            return f"{n} != {'true' if (f.default or 'false').lower() == 'true' else 'false'}"
        if t == "float64":
            return f"{n} != {float(f.default) if f.default else 0.0!r}"
        return f"{n} != {int_literal(t, f.default)}"

    def value(self, f: Field, expr: str, ind: str) -> list[str]:
        if not self.g.optional(f):
            return self.present(f, expr, ind)
        lines = [f"{ind}if (!{expr}) {{", f"{ind}  out.null();", f"{ind}}} else {{"]
        lines.extend(self.present(f, f"(*{expr})", ind + "  "))
        lines.append(f"{ind}}}")
        return lines

    def present(self, f: Field, expr: str, ind: str) -> list[str]:
        if not f.is_array:
            return [ind + self.element(f.element_type, expr, f.name)]
        return [f"{ind}out.begin_array();",
                f"{ind}for (const auto& e : {expr}) {self.element(f.element_type, 'e', f.name)}",
                f"{ind}out.end_array();"]

    def element(self, t: str, expr: str, name: str) -> str:
        if t == "bool":
            return f"out.boolean({expr});"
        if t == "float64":
            return f"out.float64({expr});"
        if t == "uuid":
            return f"out.uuid({expr});"
        if t == "string":
            return f"out.string({expr});"
        if t == "bytes":
            return f'out.bytes("{name[:1].lower() + name[1:]}", {expr});'
        if t == "records":
            return "out.unknown_tags();"
        if t in FIXED:
            return f"out.integer({expr});"
        return f"write_json({expr}, version, out);"


JSON_H = """// Generated by protocol/codegen/generate.py. Do not edit.
#pragma once

#include <cstdint>

#include "protocol/json/json_out.h"
{includes}
namespace hw::protocol::json {{

// Kafka's JSON view of a decoded definition at a version.
{decls}

// Metadata records by API key: Kafka's MetadataRecordType name
// ("TOPIC_RECORD"), or nullptr for a key the schema lacks.
const char* metadata_record_type_name(int16_t api_key);
// Decodes the metadata record body of this key at this version and writes
// its JSON. False (with the reason in *error) for an unknown key, an
// unsupported version, a body that does not decode or leaves bytes over.
bool metadata_record_json(int16_t api_key, int16_t version, reader& r, json_out& out, std::string* error);

}}  // namespace hw::protocol::json
"""


def json_files(messages: list[Message], files: dict[str, list[Message]]) -> tuple[str, str]:
    chosen = [m for m in messages if m.kind in ("data", "metadata")]
    stems = sorted({out_stem(m.source) for m in chosen})
    includes = "".join(f'#include "protocol/messages/{stem}.h"\n' for stem in stems)
    decls, defs, names, cases = [], [], [], []
    for m in chosen:
        g = MessageGen(m)
        d, f = JsonGen(g).fns()
        decls.extend(d)
        defs.extend(f)
        if m.kind == "metadata":
            upper = re.sub(r"(?<!^)([A-Z])", r"_\1", m.name).upper()
            names.append(f'    case {m.api_key}: return "{upper}";')
            high = m.versions.high if m.versions.high is not None else 32767
            cases.append(f"    case {m.api_key}: return decode_and_write<msg::{g.cpp}>(version, r, out, error);")
    h = JSON_H.format(includes=includes, decls="\n".join(decls))
    cc = f"""// Generated by protocol/codegen/generate.py. Do not edit.
#include "protocol/messages/json/json.h"

namespace hw::protocol::json {{

{chr(10).join(defs)}
namespace {{

template <typename T>
bool decode_and_write(int16_t version, reader& r, json_out& out, std::string* error) {{
  if (version < T::schema.min_version || version > T::schema.max_version) {{
    *error = "unsupported version";
    return false;
  }}
  T m;
  m.decode(r, version);
  if (!r.ok()) {{
    *error = r.error();
    return false;
  }}
  if (r.remaining() != 0) {{
    *error = "trailing bytes";
    return false;
  }}
  write_json(m, version, out);
  return true;
}}

}}  // namespace

const char* metadata_record_type_name(int16_t api_key) {{
  switch (api_key) {{
{chr(10).join(names)}
    default: return nullptr;
  }}
}}

bool metadata_record_json(int16_t api_key, int16_t version, reader& r, json_out& out, std::string* error) {{
  switch (api_key) {{
{chr(10).join(cases)}
    default:
      *error = "unknown metadata record type";
      return false;
  }}
}}

}}  // namespace hw::protocol::json
"""
    return h, cc


# --- files -----------------------------------------------------------------------

PRELUDE_H = """// Generated by protocol/codegen/generate.py from protocol/schema/{src}. Do not edit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/schema_info.h"
#include "protocol/wire/codec.h"
#include "protocol/wire/uuid.h"

namespace hw::protocol::msg {{
"""

SCHEMA_INFO_H = """// Generated by protocol/codegen/generate.py. Do not edit.
#pragma once

#include <cstdint>

namespace hw::protocol {

// The facts of one definition: API key (-1 for non-API definitions), the
// version range, and the first flexible version (-1 if none).
struct schema_info {
  int16_t api_key;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible_version;
  const char* name;
};

}  // namespace hw::protocol
"""


def out_stem(schema_file: str) -> str:
    stem = os.path.splitext(schema_file)[0]
    return re.sub(r"^\d+_", "", stem)


def plan(messages: list[Message]) -> dict[str, list[Message]]:
    files: dict[str, list[Message]] = {}
    for m in messages:
        files.setdefault(out_stem(m.source), []).append(m)
    return files


def outputs(files: dict[str, list[Message]], out: str) -> list[str]:
    paths = [os.path.join(out, "schema_info.h"), os.path.join(out, "api_registry.h"),
             os.path.join(out, "api_registry.cc"), os.path.join(out, "testing", "samples.h"),
             os.path.join(out, "testing", "samples.cc"),
             os.path.join(out, "testing", "dump.h"), os.path.join(out, "testing", "dump.cc"),
             os.path.join(out, "json", "json.h"), os.path.join(out, "json", "json.cc")]
    for stem in files:
        paths.append(os.path.join(out, stem + ".h"))
        paths.append(os.path.join(out, stem + ".cc"))
    return paths


def write_if_changed(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def registry(messages: list[Message], files: dict[str, list[Message]]) -> tuple[str, str]:
    requests = sorted((m for m in messages if m.kind == "request"), key=lambda m: m.api_key)
    responses = {m.api_key: m for m in messages if m.kind == "response"}
    h = """// Generated by protocol/codegen/generate.py. Do not edit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/wire/reader.h"

namespace hw::protocol {

// One API as the schema defines it (not what the broker advertises).
struct api_info {
  int16_t key;
  const char* name;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible_version;  // -1 if never flexible
  // The first version whose response body starts with ThrottleTimeMs (an
  // int32 at offset 0), -1 if none does (Produce has it last).
  int16_t throttle_first_version;
};

std::span<const api_info> all_apis();
const api_info* find_api(int16_t key);
bool api_version_flexible(int16_t api_key, int16_t api_version);
// Request header v2 for flexible request versions, else v1.
int16_t request_header_version(int16_t api_key, int16_t api_version);
// Response header v1 for flexible versions, else v0; ApiVersions always v0.
int16_t response_header_version(int16_t api_key, int16_t api_version);

// Decodes a request or response body of any API and encodes it again: the
// bytes a decoder accepted and the encoder wrote back. Empty if the key or
// version is unknown or the body does not decode (reason in *error).
std::optional<std::vector<uint8_t>> reencode_request(int16_t api_key, int16_t api_version,
                                                     bytes_view body, const char** error = nullptr);
std::optional<std::vector<uint8_t>> reencode_response(int16_t api_key, int16_t api_version,
                                                      bytes_view body, const char** error = nullptr);

}  // namespace hw::protocol
"""
    includes = "".join(f'#include "protocol/messages/{stem}.h"\n' for stem in files)
    rows = []
    for m in requests:
        api = m.name[:-len("Request")]
        flex = m.flexible.low if m.flexible is not None else -1
        resp = responses.get(m.api_key)
        first = resp.fields[0] if resp is not None and resp.fields else None
        throttle = (first.versions.low if first is not None and first.name == "ThrottleTimeMs"
                    and first.type == "int32" and first.tag is None and first.versions is not None else -1)
        rows.append(f'    {{{m.api_key}, "{api}", {m.versions.low}, {m.versions.high}, {flex}, {throttle}}},')
    cases_req = "".join(
        f"    case {m.api_key}: return reencode<msg::{snake(m.name)}>(api_version, body, error);\n"
        for m in requests)
    cases_resp = "".join(
        f"    case {k}: return reencode<msg::{snake(responses[k].name)}>(api_version, body, error);\n"
        for k in sorted(responses))
    cc = f"""// Generated by protocol/codegen/generate.py. Do not edit.
#include "protocol/messages/api_registry.h"

#include <algorithm>
#include <array>

{includes}
namespace hw::protocol {{
namespace {{

constexpr std::array<api_info, {len(requests)}> kApis{{{{
{chr(10).join(rows)}
}}}};

template <typename T>
std::optional<std::vector<uint8_t>> reencode(int16_t version, bytes_view body, const char** error) {{
  if (version < T::schema.min_version || version > T::schema.max_version) {{
    if (error) *error = "unsupported version";
    return std::nullopt;
  }}
  reader r(body);
  T m;
  m.decode(r, version);
  if (r.ok() && r.remaining() != 0) r.fail("trailing bytes after the body");
  if (!r.ok()) {{
    if (error) *error = r.error();
    return std::nullopt;
  }}
  std::vector<uint8_t> out;
  out.reserve(m.encoded_size(version));
  writer w(out);
  m.encode(w, version);
  return out;
}}

}}  // namespace

std::span<const api_info> all_apis() {{ return kApis; }}

const api_info* find_api(int16_t key) {{
  auto it = std::lower_bound(kApis.begin(), kApis.end(), key,
                             [](const api_info& a, int16_t k) {{ return a.key < k; }});
  return it != kApis.end() && it->key == key ? &*it : nullptr;
}}

bool api_version_flexible(int16_t api_key, int16_t api_version) {{
  const api_info* api = find_api(api_key);
  return api && api->first_flexible_version >= 0 && api_version >= api->first_flexible_version;
}}

int16_t request_header_version(int16_t api_key, int16_t api_version) {{
  return api_version_flexible(api_key, api_version) ? 2 : 1;
}}

int16_t response_header_version(int16_t api_key, int16_t api_version) {{
  if (api_key == 18) return 0;  // ApiVersions: a client must read it before it knows our versions
  return api_version_flexible(api_key, api_version) ? 1 : 0;
}}

std::optional<std::vector<uint8_t>> reencode_request(int16_t api_key, int16_t api_version,
                                                     bytes_view body, const char** error) {{
  switch (api_key) {{
{cases_req}    default:
      if (error) *error = "unknown api key";
      return std::nullopt;
  }}
}}

std::optional<std::vector<uint8_t>> reencode_response(int16_t api_key, int16_t api_version,
                                                      bytes_view body, const char** error) {{
  switch (api_key) {{
{cases_resp}    default:
      if (error) *error = "unknown api key";
      return std::nullopt;
  }}
}}

}}  // namespace hw::protocol
"""
    return h, cc


SAMPLES_H = """// Generated by protocol/codegen/generate.py. Do not edit.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hw::protocol::testing {

// One definition at one version: fill with seeded values, encode, decode,
// compare, re-encode and compare bytes. Returns an empty string on success,
// else what went wrong.
struct roundtrip_case {
  std::string name;
  int16_t version;
  std::function<std::string(uint64_t seed)> run;
};

std::vector<roundtrip_case> all_roundtrip_cases();

}  // namespace hw::protocol::testing
"""


def samples(messages: list[Message], files: dict[str, list[Message]]) -> str:
    includes = "".join(f'#include "protocol/messages/{stem}.h"\n' for stem in files)
    decls, defs, cases = [], [], []
    for m in messages:
        g = MessageGen(m)
        d, f = SampleGen(g).fns()
        decls.extend(d)
        defs.extend(f)
        high = m.versions.high if m.versions.high is not None else m.versions.low
        cases.append(f'  for (int16_t v = {m.versions.low}; v <= {high}; ++v)\n'
                     f'    out.push_back({{"{m.name}", v, [v](uint64_t seed) '
                     f'{{ return roundtrip<msg::{g.cpp}>(v, seed, [](auto& m, int16_t ver, sample_rng& rng) '
                     f'{{ fill(m, ver, rng); }}); }}}});')
    return f"""// Generated by protocol/codegen/generate.py. Do not edit.
#include "protocol/messages/testing/samples.h"

#include "protocol/testing/sample_rng.h"
{includes}
namespace hw::protocol::testing {{
namespace {{

{chr(10).join(decls)}

{chr(10).join(defs)}
}}  // namespace

std::vector<roundtrip_case> all_roundtrip_cases() {{
  std::vector<roundtrip_case> out;
{chr(10).join(cases)}
  return out;
}}

}}  // namespace hw::protocol::testing
"""


DUMP_H = """// Generated by protocol/codegen/generate.py. Do not edit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/testing/dump_support.h"
#include "protocol/wire/reader.h"

namespace hw::protocol::testing {

// Decodes a request or response body of any API at this version and lists
// every field that version has, in schema order (see dump_support.h for the
// line format). False if the key or version is unknown, the body does not
// decode or bytes are left over (reason in *error); out then holds nothing.
bool dump_request(int16_t api_key, int16_t version, bytes_view body, dump_lines& out, std::string* error = nullptr);
bool dump_response(int16_t api_key, int16_t version, bytes_view body, dump_lines& out, std::string* error = nullptr);

// A request of any API with every field at its schema default, encoded at
// this version: the smallest request a broker must answer (often with an
// error). False if the key or version is unknown.
bool default_request(int16_t api_key, int16_t version, std::vector<uint8_t>& out);

}  // namespace hw::protocol::testing
"""


def dumps(messages: list[Message], files: dict[str, list[Message]]) -> str:
    includes = "".join(f'#include "protocol/messages/{stem}.h"\n' for stem in files)
    decls, defs = [], []
    cases = {"request": [], "response": []}
    defaults = []
    for m in messages:
        g = MessageGen(m)
        d, f = DumpGen(g).fns()
        decls.extend(d)
        defs.extend(f)
        if m.kind in cases:
            cases[m.kind].append(f"    case {m.api_key}: return dump_body<msg::{g.cpp}>(version, body, out, error);")
        if m.kind == "request":
            defaults.append(f"    case {m.api_key}: return encode_default<msg::{g.cpp}>(version, out);")
    by_key = lambda c: int(c.split()[1][:-1])  # noqa: E731
    switch = {k: "\n".join(sorted(v, key=by_key)) for k, v in cases.items()}
    default_cases = "\n".join(sorted(defaults, key=by_key))
    return f"""// Generated by protocol/codegen/generate.py. Do not edit.
#include "protocol/messages/testing/dump.h"

{includes}
namespace hw::protocol::testing {{
namespace {{

{chr(10).join(decls)}

{chr(10).join(defs)}
template <typename T>
bool dump_body(int16_t version, bytes_view body, dump_lines& out, std::string* error) {{
  out.clear();
  if (version < T::schema.min_version || version > T::schema.max_version) {{
    if (error) *error = "unsupported version";
    return false;
  }}
  reader r(body);
  T m;
  m.decode(r, version);
  if (r.ok() && r.remaining() != 0) r.fail("trailing bytes after the body");
  if (!r.ok()) {{
    if (error) *error = r.error();
    return false;
  }}
  dump(m, version, "", out);
  return true;
}}

template <typename T>
bool encode_default(int16_t version, std::vector<uint8_t>& out) {{
  if (version < T::schema.min_version || version > T::schema.max_version) return false;
  out.clear();
  writer w(out);
  T{{}}.encode(w, version);
  return true;
}}

bool unknown_key(std::string* error) {{
  if (error) *error = "unknown api key";
  return false;
}}

}}  // namespace

bool dump_request(int16_t api_key, int16_t version, bytes_view body, dump_lines& out, std::string* error) {{
  switch (api_key) {{
{switch["request"]}
    default: return unknown_key(error);
  }}
}}

bool dump_response(int16_t api_key, int16_t version, bytes_view body, dump_lines& out, std::string* error) {{
  switch (api_key) {{
{switch["response"]}
    default: return unknown_key(error);
  }}
}}

bool default_request(int16_t api_key, int16_t version, std::vector<uint8_t>& out) {{
  switch (api_key) {{
{default_cases}
    default: return false;
  }}
}}

}}  // namespace hw::protocol::testing
"""


def tool_outputs(files: dict[str, list[Message]], out: str) -> list[str]:
    paths = [os.path.join(out, "json.h"), os.path.join(out, "json.cc")]
    for stem in files:
        paths.append(os.path.join(out, stem + ".h"))
        paths.append(os.path.join(out, stem + ".cc"))
    return paths


def write_tool_json(messages: list[Message], files: dict[str, list[Message]], out: str, ns: str) -> None:
    """A tool's own copy of some definitions (say, a newer Kafka's) with their
    JSON writers, in namespace hw::protocol::<ns> and folder protocol/<ns>/,
    so that it never clashes with the project's protocol/messages."""
    def rename(text: str) -> str:
        return (text.replace("namespace hw::protocol::msg", f"namespace hw::protocol::{ns}")
                .replace('#include "protocol/messages/schema_info.h"', '#include "protocol/messages/schema_info.h"')
                .replace('#include "protocol/messages/', f'#include "protocol/{ns}/')
                .replace(f'#include "protocol/{ns}/schema_info.h"', '#include "protocol/messages/schema_info.h"'))
    for stem, ms in files.items():
        gens = [MessageGen(m) for m in ms]
        h = [PRELUDE_H.format(src=ms[0].source)]
        cc = [f"// Generated by protocol/codegen/generate.py from {ms[0].source}. "
              f"Do not edit.\n#include \"protocol/messages/{stem}.h\"\n\nnamespace hw::protocol::msg {{\n"]
        for g in gens:
            h.append("\n".join(g.header()) + "\n")
            cc.append("\n".join(g.source()))
        h.append("}  // namespace hw::protocol::msg\n")
        cc.append("}  // namespace hw::protocol::msg\n")
        write_if_changed(os.path.join(out, stem + ".h"), rename("\n".join(h)))
        write_if_changed(os.path.join(out, stem + ".cc"), rename("\n".join(cc)))
    includes = "".join(f'#include "protocol/{ns}/{stem}.h"\n' for stem in files)
    decls, defs = [], []
    for m in messages:
        d, f = JsonGen(MessageGen(m)).fns()
        decls.extend(d)
        defs.extend(f)
    fix = lambda t: t.replace("msg::", "").replace("json_out&", "::hw::protocol::json::json_out&")  # noqa: E731
    write_if_changed(os.path.join(out, "json.h"), f"""// Generated by protocol/codegen/generate.py. Do not edit.
#pragma once

#include <cstdint>

#include "protocol/json/json_out.h"
{includes}
namespace hw::protocol::{ns} {{

// Kafka's JSON view of a decoded definition at a version.
{fix(chr(10).join(decls))}

}}  // namespace hw::protocol::{ns}
""")
    write_if_changed(os.path.join(out, "json.cc"), f"""// Generated by protocol/codegen/generate.py. Do not edit.
#include "protocol/{ns}/json.h"

namespace hw::protocol::{ns} {{

{fix(chr(10).join(defs))}
}}  // namespace hw::protocol::{ns}
""")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--list-outputs", action="store_true")
    ap.add_argument("--tool-namespace", help="write only definitions and JSON writers, in hw::protocol::<this>")
    args = ap.parse_args()
    messages = load_dir(args.schema)
    files = plan(messages)
    if args.tool_namespace:
        if args.list_outputs:
            print("\n".join(tool_outputs(files, args.out)))
            return 0
        write_tool_json(messages, files, args.out, args.tool_namespace)
        with open(os.path.join(args.out, ".stamp"), "w", encoding="utf-8") as fh:
            fh.write("")
        return 0
    if args.list_outputs:
        print("\n".join(outputs(files, args.out)))
        return 0
    write_if_changed(os.path.join(args.out, "schema_info.h"), SCHEMA_INFO_H)
    for stem, ms in files.items():
        gens = [MessageGen(m) for m in ms]
        h = [PRELUDE_H.format(src=ms[0].source)]
        cc = [f"// Generated by protocol/codegen/generate.py from protocol/schema/{ms[0].source}. "
              f"Do not edit.\n#include \"protocol/messages/{stem}.h\"\n\nnamespace hw::protocol::msg {{\n"]
        for g in gens:
            h.append("\n".join(g.header()) + "\n")
            cc.append("\n".join(g.source()))
        h.append("}  // namespace hw::protocol::msg\n")
        cc.append("}  // namespace hw::protocol::msg\n")
        write_if_changed(os.path.join(args.out, stem + ".h"), "\n".join(h))
        write_if_changed(os.path.join(args.out, stem + ".cc"), "\n".join(cc))
    h, cc = registry(messages, files)
    write_if_changed(os.path.join(args.out, "api_registry.h"), h)
    write_if_changed(os.path.join(args.out, "api_registry.cc"), cc)
    write_if_changed(os.path.join(args.out, "testing", "samples.h"), SAMPLES_H)
    write_if_changed(os.path.join(args.out, "testing", "samples.cc"), samples(messages, files))
    write_if_changed(os.path.join(args.out, "testing", "dump.h"), DUMP_H)
    write_if_changed(os.path.join(args.out, "testing", "dump.cc"), dumps(messages, files))
    json_h, json_cc = json_files(messages, files)
    write_if_changed(os.path.join(args.out, "json", "json.h"), json_h)
    write_if_changed(os.path.join(args.out, "json", "json.cc"), json_cc)
    # The stamp is the build's output; the files above are byproducts that
    # keep their time stamps when unchanged, so nothing recompiles needlessly.
    with open(os.path.join(args.out, ".stamp"), "w", encoding="utf-8") as fh:
        fh.write("")
    return 0


if __name__ == "__main__":
    sys.exit(main())
