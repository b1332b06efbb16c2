#!/usr/bin/env python3
"""Generates the Rust bindings of the Scoria plugin ABI from scoria.h.

    python3 sdk/rust/generate.py            # rewrite the generated files
    python3 sdk/rust/generate.py --check    # exit 1, with a diff, if they are stale

It writes, from sdk/include/scoria/scoria.h alone:

    scoria-sys/src/bindings.rs          every typedef'd struct (#[repr(C)], C's field
                                        order and types), enum (a type alias and its
                                        constants), opaque handle, function-pointer
                                        typedef and #define constant, with the
                                        header's doc comments;
    scoria-sys/tests/layout/generated.c the C side of the layout test: prints sizeof
                                        and alignment of every struct, offsetof and
                                        sizeof of every field, every enum's size and
                                        signedness and every constant's value;
    scoria-sys/tests/layout/generated.rs the same table from the Rust side.

The parser relies on the header's regular formatting (one declaration per
statement, explicit enumerator values, comments in /* */ form) and stops with
the line number on anything it does not understand: a construct it skipped
would be a binding that silently drifts. Python 3 standard library only.
"""

import argparse
import difflib
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HEADER = os.path.join(HERE, "..", "include", "scoria", "scoria.h")
OUTPUTS = {
    "bindings": os.path.join("scoria-sys", "src", "bindings.rs"),
    "layout_c": os.path.join("scoria-sys", "tests", "layout", "generated.c"),
    "layout_rs": os.path.join("scoria-sys", "tests", "layout", "generated.rs"),
}
REGENERATE = "python3 sdk/rust/generate.py"

# Macros the header defines that have no Rust form of their own here, each
# with where a Rust plugin finds its counterpart. Any other macro that is not
# a plain constant stops the generator.
NOT_TRANSLATED = {
    "SCORIA_EXPORT": "a C attribute; scoria::define_plugin! exports the entry with #[no_mangle]",
    "SCORIA_HOST_HAS": "see host_has! in this crate",
    "SCORIA_DEFINE_PLUGIN_C": "for C plugins; Rust plugins use scoria::define_plugin!",
}
# Function prototypes: the entry a plugin defines. Its signature must be the
# one of the named function-pointer typedef, which the Rust side uses.
PROTOTYPES = {"scoria_plugin_entry": "scoria_entry_fn"}
INCLUDES = {"<stddef.h>", "<stdint.h>"}

# C scalar types and their Rust spelling (std::os::raw names where C's own).
SCALARS = {
    "void": "c_void",
    "char": "c_char",
    "int": "c_int",
    "double": "f64",
    "size_t": "usize",
    "uint8_t": "u8",
    "uint16_t": "u16",
    "uint32_t": "u32",
    "uint64_t": "u64",
    "int8_t": "i8",
    "int16_t": "i16",
    "int32_t": "i32",
    "int64_t": "i64",
}
RAW_TYPES = {"c_void", "c_char", "c_int", "c_uint"}

RUST_KEYWORDS = set(
    """as break const continue crate else enum extern false fn for if impl in let loop
    match mod move mut pub ref return self Self static struct super trait true type unsafe
    use where while async await dyn abstract become box do final macro override priv
    typeof unsized virtual yield try""".split()
)
NOT_RAW_IDENTS = {"self", "Self", "super", "crate"}


class HeaderError(Exception):
    def __init__(self, line, message):
        super().__init__("scoria.h:%s: %s" % (line, message))


# --------------------------------------------------------------------------
# Lexing: preprocessor lines, comments and code, in order.
# --------------------------------------------------------------------------


class Tok:
    def __init__(self, kind, text, line, col=0):
        self.kind, self.text, self.line, self.col = kind, text, line, col


def lex(src):
    toks = []
    code = []
    code_line = [1]
    i, n, line = 0, len(src), 1
    at_line_start = True

    def flush():
        if code:
            toks.append(Tok("code", "".join(code), code_line[0]))
            del code[:]

    def add_code(ch):
        if not code:
            code_line[0] = line
        code.append(ch)

    while i < n:
        c = src[i]
        if c == "\n":
            add_code(c)
            line += 1
            at_line_start = True
            i += 1
        elif at_line_start and c == "#":
            flush()
            j, start = i, line
            while True:
                end = src.find("\n", j)
                if end == -1:
                    end = n
                if src[j:end].rstrip().endswith("\\") and end < n:
                    j = end + 1
                    line += 1
                    continue
                break
            text = src[i:end]
            # A plain comment may close a directive (#endif /* GUARD */).
            text = re.sub(r"/\*[^\n]*?\*/\s*$", "", text).rstrip()
            if "/*" in text or "//" in text:
                raise HeaderError(start, "comment inside a preprocessor directive")
            toks.append(Tok("pp", text, start))
            i = end
        elif src.startswith("/*", i):
            flush()
            end = src.find("*/", i + 2)
            if end == -1:
                raise HeaderError(line, "unterminated comment")
            text = src[i : end + 2]
            col = i - (src.rfind("\n", 0, i) + 1)
            toks.append(Tok("comment", text, line, col))
            line += text.count("\n")
            i = end + 2
            at_line_start = False
        elif src.startswith("//", i):
            raise HeaderError(line, "// comment: the header uses /* */ comments only")
        elif c == '"':
            end = i + 1
            while end < n and src[end] != '"':
                if src[end] in "\\\n":
                    raise HeaderError(line, "escape or newline in a string literal")
                end += 1
            for ch in src[i : end + 1]:
                add_code(ch)
            i = end + 1
            at_line_start = False
        else:
            add_code(c)
            if c not in " \t":
                at_line_start = False
            i += 1
    flush()
    return toks


# --------------------------------------------------------------------------
# Comments
# --------------------------------------------------------------------------


def comment_kind(text):
    if text.startswith("/**<"):
        return "trailing"
    if text.startswith("/**") and not text.startswith("/**/"):
        return "doc"
    return "plain"


def comment_lines(tok):
    """The text of a comment as lines, without its delimiters and the
    leading ' * ' or the indentation of continuation lines."""
    text = tok.text
    opener = "/**<" if text.startswith("/**<") else ("/**" if text.startswith("/**") else "/*")
    body = text[len(opener) : -2]
    raw = body.split("\n")
    starred = all(re.match(r"\s*\*", l) for l in raw[1:] if l.strip())
    # Continuation lines without a star align under the first line's text.
    indent = tok.col + len(opener) + (len(raw[0]) - len(raw[0].lstrip(" ")))
    out = [raw[0].strip()]
    for l in raw[1:]:
        if starred:
            l = re.sub(r"^\s*\* ?", "", l)
        else:
            strip = min(indent, len(l) - len(l.lstrip(" ")))
            l = l[strip:]
        out.append(l.rstrip())
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def is_banner(lines):
    return len(lines) == 1 and re.fullmatch(r"-+", lines[0]) is not None


# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------


class Model:
    def __init__(self):
        self.items = []  # in header order
        self.types = {}  # C type name -> kind: struct, enum, opaque, fn
        self.fn_types = {}  # typedef name -> (return type, parameters)


def rust_ident(name, line):
    if name in NOT_RAW_IDENTS:
        raise HeaderError(line, "identifier %r cannot be spelled in Rust" % name)
    return "r#" + name if name in RUST_KEYWORDS else name


def parse_type(text, model, line, allow_void=False):
    """A C type made of one type name, `const` and `*` -> (its Rust spelling,
    its kind). Every type this accepts is valid as all-zero bytes (integers,
    floats, raw pointers, Option of fn, structs of those), which the Default
    impls rely on."""
    text = text.strip()
    if not re.fullmatch(r"(\s*(\*|[A-Za-z_]\w*))+\s*", text):
        raise HeaderError(line, "type %r: not a plain type, const and *" % text)
    toks = re.findall(r"\*|[A-Za-z_]\w*", text)
    base = None
    const = False
    stars = []  # for each *, whether what it points to is const
    for t in toks:
        if t == "const":
            const = True
        elif t == "*":
            if base is None:
                raise HeaderError(line, "type %r: * before the type name" % text)
            stars.append(const)
            const = False
        else:
            if base is not None:
                raise HeaderError(line, "type %r: more than one type name" % text)
            if stars:
                raise HeaderError(line, "type %r: type name after *" % text)
            base = t
    if base is None:
        raise HeaderError(line, "type %r has no type name" % text)
    if base in SCALARS:
        rust = SCALARS[base]
        kind = "scalar"
    elif base in model.types:
        rust = base
        kind = model.types[base]
    else:
        raise HeaderError(line, "unknown type %r in %r" % (base, text))
    if kind == "opaque" and not stars:
        raise HeaderError(line, "opaque type %r used by value" % base)
    if base == "void" and not stars and not allow_void:
        raise HeaderError(line, "void used as a value type")
    for pointee_const in stars:
        rust = ("*const " if pointee_const else "*mut ") + rust
    if stars:
        kind = "pointer"
    return rust, kind


def split_top(text, sep):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_params(text, model, line):
    text = text.strip()
    if text == "void":
        return []
    if not text:
        raise HeaderError(line, "empty parameter list: write (void)")
    params = []
    for p in split_top(text, ","):
        p = p.strip()
        if "(" in p or "[" in p:
            raise HeaderError(line, "parameter %r: function pointers and arrays as parameters "
                              "are not handled" % p)
        toks = re.findall(r"\*|[A-Za-z_]\w*", p)
        names = [t for t in toks if t not in ("*", "const")]
        if len(names) >= 2 and toks[-1] == names[-1]:
            name = names[-1]
            ctype = p[: p.rfind(name)]
        else:
            name = None
            ctype = p
        rust, _ = parse_type(ctype, model, line)
        params.append((name, rust))
    return params


def fn_type(ret_text, params_text, model, line):
    ret, _ = parse_type(ret_text, model, line, allow_void=True)
    params = parse_params(params_text, model, line)
    used = set()
    rendered = []
    for name, rust in params:
        if name is None:
            rendered.append(rust)
        else:
            if name in used:
                raise HeaderError(line, "parameter %r named twice" % name)
            used.add(name)
            rendered.append("%s: %s" % (rust_ident(name, line), rust))
    return ret, rendered


def render_fn(ret, params, indent, prefix, suffix):
    """Option<unsafe extern "C" fn(...) -> R>, on one line when it fits in
    100 columns, else one parameter a line."""
    tail = "" if ret == "c_void" else " -> " + ret
    one = '%s%sOption<unsafe extern "C" fn(%s)%s>%s' % (indent, prefix, ", ".join(params), tail,
                                                       suffix)
    if len(one) <= 100 or not params:
        return [one]
    out = ['%s%sOption<' % (indent, prefix), '%s    unsafe extern "C" fn(' % indent]
    out += ["%s        %s," % (indent, p) for p in params]
    out += ["%s    )%s," % (indent, tail), "%s>%s" % (indent, suffix)]
    return out


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------

INT_RE = r"-?(?:0[xX][0-9a-fA-F]+|[0-9]+)[uU]?"


def int_value(text, line):
    text = text.strip()
    m = re.fullmatch(r"(%s)\s*<<\s*(%s)" % (INT_RE, INT_RE), text)
    if m:
        a, _ = int_value(m.group(1), line)
        b, _ = int_value(m.group(2), line)
        return a << b, "%s << %s" % (rust_int(m.group(1)), rust_int(m.group(2)))
    if re.fullmatch(INT_RE, text):
        return int(text.rstrip("uU"), 0), rust_int(text)
    raise HeaderError(line, "value %r: not an integer literal or a shift of two" % text)


def rust_int(text):
    text = text.strip().rstrip("uU")
    return text[:2] + text[2:].upper() if text.lower().startswith("0x") else text


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


class Stmt:
    """A statement: its code, each comment replaced by \\x00N\\x00 (and its
    newlines)."""

    def __init__(self, line):
        self.line = line
        self.parts = []
        self.comments = []

    def add_code(self, text):
        self.parts.append(text)

    def add_comment(self, tok):
        # The comment's newlines stay, so that lines can be counted in text().
        self.parts.append("\x00%d\x00" % len(self.comments) + "\n" * tok.text.count("\n"))
        self.comments.append(tok)

    def text(self):
        return "".join(self.parts)


PLACEHOLDER = re.compile(r"\x00(\d+)\x00")


def doc_of(tok):
    return comment_lines(tok)


def body_items(stmt, body, line, sep, what):
    """Splits a struct or enum body (starting on `line`) on `sep`; returns
    [(declaration, doc, comments before it, its line)], each /**< */
    attached to the item it follows."""
    items = []
    segments = split_top(body, sep)
    for idx, seg in enumerate(segments):
        seg_line = line
        line += seg.count("\n")
        pieces = PLACEHOLDER.split(seg)  # code, n, code, n, ...
        code_seen = False
        leading_doc = None
        before = []
        trailing = []
        decl = []
        for k, piece in enumerate(pieces):
            if k % 2 == 0:
                if piece.strip():
                    code_seen = True
                decl.append(piece)
                continue
            tok = stmt.comments[int(piece)]
            kind = comment_kind(tok.text)
            if kind == "trailing":
                if code_seen:
                    trailing.append(tok)
                elif items and not before and leading_doc is None:
                    items[-1][1].extend(doc_of(tok))
                else:
                    raise HeaderError(tok.line, "/**< */ comment that follows no %s" % what)
            elif code_seen:
                raise HeaderError(tok.line, "comment inside a %s declaration" % what)
            elif kind == "doc":
                if leading_doc is not None:
                    raise HeaderError(tok.line, "two doc comments before one %s" % what)
                leading_doc = tok
            else:
                if leading_doc is not None:
                    raise HeaderError(tok.line, "plain comment between a doc comment and "
                                      "its %s" % what)
                before.append(tok)
        code = PLACEHOLDER.sub("", seg)
        decl_line = seg_line + code[: len(code) - len(code.lstrip())].count("\n")
        text = " ".join("".join(decl).split())
        if not text:
            if leading_doc is not None:
                raise HeaderError(leading_doc.line, "doc comment followed by no %s" % what)
            if idx != len(segments) - 1:
                raise HeaderError(decl_line, "empty %s in the body" % what)
            if before:
                raise HeaderError(before[0].line, "comment after the last %s" % what)
            continue
        if idx == len(segments) - 1 and sep == ";":
            raise HeaderError(decl_line, "%r does not end with ';'" % text)
        doc = doc_of(leading_doc) if leading_doc is not None else []
        for t in trailing:
            doc.extend(doc_of(t))
        items.append((text, doc, [comment_lines(t) for t in before], decl_line))
    return items


def parse_struct(stmt, name, body, line, doc, model):
    members = []
    fields = []
    for decl, fdoc, before, at in body_items(stmt, body, line, ";", "field"):
        for lines in before:
            members.append(("comment", lines))
        if len(split_top(decl, ",")) > 1:
            raise HeaderError(at, "%r declares more than one field" % decl)
        m = re.fullmatch(r"(.*?)\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\((.*)\)", decl)
        if m:
            ret, params = fn_type(m.group(1), m.group(3), model, at)
            fname = m.group(2)
            field = ("fn", fname, (ret, params), fdoc)
        else:
            m = re.fullmatch(r"(.*?)\b([A-Za-z_]\w*)\s*\[\s*([0-9]+)\s*\]", decl)
            if m:
                rust, kind = parse_type(m.group(1), model, at)
                fname = m.group(2)
                field = ("value", fname, "[%s; %s]" % (rust, m.group(3)), fdoc)
            else:
                m = re.fullmatch(r"(.*?)\b([A-Za-z_]\w*)", decl)
                if not m or not m.group(1).strip():
                    raise HeaderError(at, "field %r: not understood" % decl)
                rust, kind = parse_type(m.group(1), model, at)
                fname = m.group(2)
                field = ("value", fname, rust, fdoc)
        if fname in [f[1] for f in fields]:
            raise HeaderError(at, "field %s.%s declared twice" % (name, fname))
        fields.append(field)
        members.append(("field",) + field)
    # A second count, independent of the parse above: every ';' of the body
    # is one field, so a declaration the regexes misread cannot vanish.
    semicolons = PLACEHOLDER.sub("", body).count(";")
    if semicolons != len(fields):
        raise HeaderError(stmt.line, "struct %s: %d declarations but %d fields understood"
                          % (name, semicolons, len(fields)))
    if not fields:
        raise HeaderError(stmt.line, "struct %s has no fields" % name)
    sized = fields[0][1] == "struct_size" and fields[0][2] == "u32"
    return {"kind": "struct", "name": name, "doc": doc, "members": members, "fields": fields,
            "sized": sized}


def parse_enum(stmt, name, body, line, doc, model):
    consts = []
    for decl, cdoc, before, at in body_items(stmt, body, line, ",", "enumerator"):
        if before:
            raise HeaderError(at, "plain comment inside enum %s" % name)
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(.+)", decl)
        if not m:
            raise HeaderError(at, "enumerator %r: needs an explicit value" % decl)
        value, expr = int_value(m.group(2), at)
        consts.append((m.group(1), value, expr, cdoc))
    if not consts:
        raise HeaderError(stmt.line, "enum %s has no enumerators" % name)
    values = [c[1] for c in consts]
    # GCC's and Clang's rule: unsigned int unless a value is negative.
    if min(values) < 0:
        if min(values) < -(2 ** 31) or max(values) >= 2 ** 31:
            raise HeaderError(stmt.line, "enum %s does not fit an int" % name)
        underlying = "c_int"
    else:
        if max(values) >= 2 ** 32:
            raise HeaderError(stmt.line, "enum %s does not fit an unsigned int" % name)
        underlying = "c_uint"
    return {"kind": "enum", "name": name, "doc": doc, "underlying": underlying,
            "consts": consts}


def parse_statement(stmt, doc, model):
    text = stmt.text()
    flat = " ".join(PLACEHOLDER.sub(" ", text).split())
    m = re.fullmatch(r"\s*typedef\s+(struct|enum)\s+([A-Za-z_]\w*)\s*\{(.*)\}\s*([A-Za-z_]\w*)\s*",
                     text, re.S)
    if m:
        kind, tag, body, name = m.group(1), m.group(2), m.group(3), m.group(4)
        body_line = stmt.line + text[: m.start(3)].count("\n")
        outside = text[: text.find("{")] + text[text.rfind("}") :]
        if PLACEHOLDER.search(outside):
            raise HeaderError(stmt.line, "comment outside the body of %s" % name)
        if tag != name:
            raise HeaderError(stmt.line, "typedef %s %s names it %s" % (kind, tag, name))
        if name in model.types:
            raise HeaderError(stmt.line, "%s defined twice" % name)
        if "{" in body or "}" in body:
            raise HeaderError(stmt.line, "nested braces in %s" % name)
        if kind == "struct":
            model.types[name] = "struct"
            return parse_struct(stmt, name, body, body_line, doc, model)
        model.types[name] = "enum"
        return parse_enum(stmt, name, body, body_line, doc, model)
    if stmt.comments:
        raise HeaderError(stmt.comments[0].line, "comment inside %r" % flat[:60])
    m = re.fullmatch(r"typedef struct ([A-Za-z_]\w*) ([A-Za-z_]\w*)", flat)
    if m:
        if m.group(1) != m.group(2):
            raise HeaderError(stmt.line, "typedef struct %s %s: names differ" % m.groups())
        if m.group(1) in model.types:
            raise HeaderError(stmt.line, "%s defined twice" % m.group(1))
        model.types[m.group(1)] = "opaque"
        return {"kind": "opaque", "name": m.group(1), "doc": doc}
    m = re.fullmatch(r"typedef (.*?)\( ?\* ?([A-Za-z_]\w*) ?\) ?\((.*)\)", flat)
    if m:
        ret, params = fn_type(m.group(1), m.group(3), model, stmt.line)
        name = m.group(2)
        if name in model.types:
            raise HeaderError(stmt.line, "%s defined twice" % name)
        model.types[name] = "fn"
        model.fn_types[name] = (ret, params)
        return {"kind": "fntype", "name": name, "doc": doc, "ret": ret, "params": params}
    m = re.fullmatch(r"SCORIA_EXPORT (.*?)\b([A-Za-z_]\w*) ?\((.*)\)", flat)
    if m:
        name = m.group(2)
        if name not in PROTOTYPES:
            raise HeaderError(stmt.line, "function %s: only %s is expected as a prototype"
                              % (name, ", ".join(PROTOTYPES)))
        typedef = PROTOTYPES[name]
        sig = fn_type(m.group(1), m.group(3), model, stmt.line)
        if model.fn_types.get(typedef) != sig:
            raise HeaderError(stmt.line, "%s's prototype differs from typedef %s, which the "
                              "Rust side uses" % (name, typedef))
        return {"kind": "note", "name": name,
                "reason": "the entry a plugin defines; its type is %s (checked to agree), "
                "and scoria::define_plugin! defines it" % typedef}
    raise HeaderError(stmt.line, "statement not understood: %r" % flat[:80])


def parse_define(tok, doc, model, guard):
    m = re.fullmatch(r"#\s*define\s+([A-Za-z_]\w*)(\(?)(.*)", tok.text, re.S)
    if not m:
        raise HeaderError(tok.line, "#define not understood")
    name, paren, value = m.group(1), m.group(2), m.group(3).strip()
    if name in NOT_TRANSLATED:
        return {"kind": "note", "name": name, "reason": NOT_TRANSLATED[name]}
    if paren:
        raise HeaderError(tok.line, "function-like macro %s: translate it by hand and list it "
                          "in NOT_TRANSLATED with where its Rust form lives" % name)
    if name == guard:
        if value:
            raise HeaderError(tok.line, "include guard with a value")
        return None
    if re.fullmatch(r"[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?", value):
        item = {"kind": "const", "name": name, "doc": doc, "type": "f64", "expr": value,
                "value": float(value), "class": "f64"}
    elif re.fullmatch(r'"[^"\\]*"', value):
        s = value[1:-1]
        item = {"kind": "const", "name": name, "doc": doc, "type": "&[u8]",
                "expr": 'b"%s\\0"' % s, "value": s, "class": "str"}
    else:
        v, expr = int_value(value, tok.line)
        if v < 0:
            if v < -(2 ** 31):
                raise HeaderError(tok.line, "%s does not fit an i32" % name)
            rtype = "i32"
        else:
            if v >= 2 ** 32:
                raise HeaderError(tok.line, "%s does not fit a u32" % name)
            rtype = "u32"
        item = {"kind": "const", "name": name, "doc": doc, "type": rtype, "expr": expr,
                "value": v, "class": "int"}
    return item


def parse(src):
    model = Model()
    pending_doc = None
    stmt = None
    depth = 0
    guard = None
    guard_state = None  # None, "opened", "defined", "closed"
    block = None  # ("cplusplus" or "if", line) inside #ifdef __cplusplus or #if
    first_comment = True

    def emit(item):
        if item is not None:
            model.items.append(item)

    def take_doc():
        nonlocal pending_doc
        d = doc_of(pending_doc) if pending_doc is not None else []
        pending_doc = None
        return d

    def feed(text, line):
        """Adds code to the statement being read, ending it at a ';' outside
        braces."""
        nonlocal stmt, depth
        while text:
            if stmt is None:
                if not text.strip():
                    return
                stripped = text.lstrip()
                line += text[: len(text) - len(stripped)].count("\n")
                text = stripped
                stmt = Stmt(line)
                depth = 0
            cut = None
            for k, ch in enumerate(text):
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth < 0:
                        raise HeaderError(line, "unbalanced }")
                elif ch == ";" and depth == 0:
                    cut = k
                    break
            if cut is None:
                stmt.add_code(text)
                return
            stmt.add_code(text[:cut])
            line += text[:cut].count("\n")
            emit(parse_statement(stmt, take_doc(), model))
            stmt = None
            text = text[cut + 1 :]

    for tok in lex(src):
        if guard_state == "closed" and (tok.kind != "code" or tok.text.strip()):
            raise HeaderError(tok.line, "something after the include guard's #endif")
        if block is not None and block[0] == "cplusplus":
            if tok.kind == "pp" and re.fullmatch(r"#\s*endif", tok.text):
                block = None
            elif tok.kind == "code" and tok.text.strip() in ('extern "C" {', "}", ""):
                pass
            elif tok.kind == "comment" and tok.text == '/* extern "C" */':
                pass
            else:
                raise HeaderError(tok.line, 'only extern "C" belongs in #ifdef __cplusplus')
            continue
        if block is not None and block[0] == "if":
            if tok.kind == "pp" and re.fullmatch(r"#\s*endif", tok.text):
                block = None
            elif tok.kind == "pp" and re.fullmatch(r"#\s*else", tok.text):
                pass
            elif tok.kind == "pp" and re.match(r"#\s*define\b", tok.text):
                m = re.match(r"#\s*define\s+([A-Za-z_]\w*)", tok.text)
                if not m or m.group(1) not in NOT_TRANSLATED:
                    raise HeaderError(tok.line, "#define under #if of a macro not listed in "
                                      "NOT_TRANSLATED")
                if m.group(1) not in [i.get("name") for i in model.items]:
                    emit({"kind": "note", "name": m.group(1),
                          "reason": NOT_TRANSLATED[m.group(1)]})
            elif tok.kind == "code" and not tok.text.strip():
                pass
            else:
                raise HeaderError(tok.line, "unexpected inside #if: %r" % tok.text[:40])
            continue
        if stmt is not None:
            if tok.kind == "pp":
                raise HeaderError(tok.line, "preprocessor line inside a declaration")
            if tok.kind == "comment":
                stmt.add_comment(tok)
            else:
                feed(tok.text, tok.line)
            continue
        if tok.kind == "code":
            feed(tok.text, tok.line)
            continue
        if tok.kind == "comment":
            kind = comment_kind(tok.text)
            if kind == "doc":
                if pending_doc is not None:
                    raise HeaderError(tok.line, "two doc comments in a row")
                pending_doc = tok
            elif kind == "trailing":
                raise HeaderError(tok.line, "/**< */ comment outside a struct or enum")
            else:
                if pending_doc is not None:
                    raise HeaderError(tok.line, "plain comment after a doc comment")
                lines = comment_lines(tok)
                if first_comment:
                    emit({"kind": "moddoc", "lines": lines})
                elif not is_banner(lines):
                    emit({"kind": "comment", "lines": lines})
            first_comment = False
            continue
        # Preprocessor lines.
        first_comment = False
        t = tok.text
        m = re.fullmatch(r"#\s*ifndef\s+([A-Za-z_]\w*)", t)
        if m:
            if guard_state is not None:
                raise HeaderError(tok.line, "#ifndef other than the include guard")
            guard, guard_state = m.group(1), "opened"
            continue
        if guard_state == "opened":
            if not re.fullmatch(r"#\s*define\s+%s" % re.escape(guard), t):
                raise HeaderError(tok.line, "#ifndef %s not followed by its #define" % guard)
            guard_state = "defined"
            continue
        if guard_state != "defined":
            raise HeaderError(tok.line, "preprocessor line outside the include guard")
        m = re.fullmatch(r"#\s*include\s+(<[^>]+>)", t)
        if m:
            if m.group(1) not in INCLUDES:
                raise HeaderError(tok.line, "#include %s: not a header the generator knows"
                                  % m.group(1))
            if pending_doc is not None:
                raise HeaderError(tok.line, "doc comment before #include")
            continue
        if re.fullmatch(r"#\s*ifdef\s+__cplusplus", t):
            block = ("cplusplus", tok.line)
            continue
        if re.fullmatch(r"#\s*if\s+.*", t):
            # Only definitions of NOT_TRANSLATED macros may follow; the doc
            # comment before the #if is theirs.
            block = ("if", tok.line)
            pending_doc = None
            continue
        if re.fullmatch(r"#\s*endif", t):
            if pending_doc is not None:
                raise HeaderError(tok.line, "doc comment before #endif")
            guard_state = "closed"
            continue
        if re.match(r"#\s*define\b", t):
            emit(parse_define(tok, take_doc(), model, guard))
            continue
        raise HeaderError(tok.line, "preprocessor line not understood: %r" % t[:60])
    if stmt is not None:
        raise HeaderError(stmt.line, "declaration without ';' at the end of the header")
    if block is not None:
        raise HeaderError(block[1], "#if without #endif")
    if guard_state != "closed":
        raise HeaderError("end", "no include guard, or it is not closed")
    if pending_doc is not None:
        raise HeaderError(pending_doc.line, "doc comment followed by nothing")
    return model


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

GENERATED = "@generated by sdk/rust/generate.py from sdk/include/scoria/scoria.h: do not edit."
RUN = "Run `%s` after changing the header." % REGENERATE


def doc_lines(lines, indent=""):
    return ["%s///%s" % (indent, (" " + l) if l else "") for l in lines]


def comment_block(lines, indent=""):
    return ["%s//%s" % (indent, (" " + l) if l else "") for l in lines]


def render_bindings(model):
    out = ["// " + GENERATED, "// " + RUN, ""]
    body = []
    used = set()

    def note_raw(text):
        for name in RAW_TYPES:
            if re.search(r"\b%s\b" % name, text):
                used.add(name)

    for item in model.items:
        kind = item["kind"]
        if kind == "moddoc":
            out[:0] = ["//! " + l if l else "//!" for l in item["lines"]] + ["//!"]
            continue
        if kind == "comment":
            body += [""] + comment_block(item["lines"])
            continue
        if kind == "note":
            text = "%s is not translated: %s." % (item["name"], item["reason"])
            body += [""] + comment_block(textwrap.wrap(text, 97))
            continue
        body.append("")
        body += doc_lines(item.get("doc", []))
        if kind == "const":
            body.append("pub const %s: %s = %s;" % (item["name"], item["type"], item["expr"]))
        elif kind == "enum":
            body.append("pub type %s = %s;" % (item["name"], item["underlying"]))
            used.add(item["underlying"])
            for cname, _, expr, cdoc in item["consts"]:
                body += doc_lines(cdoc)
                body.append("pub const %s: %s = %s;" % (cname, item["name"], expr))
        elif kind == "opaque":
            body += [
                "#[repr(C)]",
                "pub struct %s {" % item["name"],
                "    _private: [u8; 0],",
                "    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,",
                "}",
            ]
        elif kind == "fntype":
            lines = render_fn(item["ret"], item["params"], "", "pub type %s = " % item["name"],
                              ";")
            for l in lines:
                note_raw(l)
            body += lines
        elif kind == "struct":
            name = item["name"]
            body += ["#[repr(C)]", "#[derive(Debug, Clone, Copy)]", "pub struct %s {" % name]
            for member in item["members"]:
                if member[0] == "comment":
                    body += comment_block(member[1], "    ")
                    continue
                _, fkind, fname, ftype, fdoc = member
                body += doc_lines(fdoc, "    ")
                ident = rust_ident(fname, "?")
                if fkind == "fn":
                    lines = render_fn(ftype[0], ftype[1], "    ", "pub %s: " % ident, ",")
                else:
                    lines = ["    pub %s: %s," % (ident, ftype)]
                for l in lines:
                    note_raw(l)
                body += lines
            body += [
                "}",
                "",
                "impl Default for %s {" % name,
                "    /// All zero: null pointers, `None` for every function, 0 elsewhere.",
                "    fn default() -> Self {",
                "        // SAFETY: every field is an integer, a float, a raw pointer, an",
                "        // Option of a function pointer, or an array or #[repr(C)] struct",
                "        // of these; all-zero bytes are a valid value of each.",
                "        unsafe { core::mem::zeroed() }",
                "    }",
                "}",
            ]
            if item["sized"]:
                body += [
                    "",
                    "impl %s {" % name,
                    "    /// All zero but `struct_size`, which is `size_of::<Self>()`: what the",
                    "    /// side that allocates the struct sets before handing it over.",
                    "    pub fn sized() -> Self {",
                    "        Self {",
                    "            struct_size: core::mem::size_of::<Self>() as u32,",
                    "            ..Default::default()",
                    "        }",
                    "    }",
                    "}",
                ]
        else:
            raise AssertionError(kind)
    header = [
        "#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]",
        "#![allow(clippy::all)]",
        "// The header's comments are C prose: `codes[i]` is no link.",
        "#![allow(rustdoc::broken_intra_doc_links)]",
        "",
    ]
    if used:
        header.append("use std::os::raw::{%s};" % ", ".join(sorted(used)))
    return "\n".join(out + header + body) + "\n"


C_PRELUDE = """\
/* %s
   %s

   The C compiler's view of the layout of scoria.h, one line per item; the Rust
   test tests/layout.rs prints the same table from the bindings and compares. */
#include <scoria/scoria.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STRUCT(T) printf("struct %%s size %%zu align %%zu\\n", #T, sizeof(T), _Alignof(T))
#define FIELD(T, f) \\
  printf("field %%s.%%s offset %%zu size %%zu\\n", #T, #f, offsetof(T, f), sizeof(((T*)0)->f))
#define ENUM(T) printf("enum %%s size %%zu minus_one %%lld\\n", #T, sizeof(T), (long long)(T)-1)
#define TYPE(T) printf("type %%s size %%zu\\n", #T, sizeof(T))
#define INT(c) printf("const %%s %%lld\\n", #c, (long long)(c))
#define STR(c) printf("const %%s \\"%%s\\"\\n", #c, c)
#define F64(c) f64(#c, c)

static void f64(const char* name, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  printf("const %%s f64:%%016llx\\n", name, (unsigned long long)bits);
}

int main(void) {
"""


def layout_entries(model):
    """(macro, args) in header order, for both sides of the table."""
    entries = []
    for item in model.items:
        kind = item["kind"]
        if kind == "struct":
            entries.append(("STRUCT", (item["name"],)))
            for f in item["fields"]:
                entries.append(("FIELD", (item["name"], f[1])))
        elif kind == "enum":
            entries.append(("ENUM", (item["name"],)))
            for c in item["consts"]:
                entries.append(("INT", (c[0],)))
        elif kind == "const":
            macro = {"int": "INT", "f64": "F64", "str": "STR"}[item["class"]]
            entries.append((macro, (item["name"],)))
        elif kind == "fntype":
            entries.append(("TYPE", (item["name"],)))
    return entries


def render_layout_c(model):
    out = C_PRELUDE % (GENERATED, RUN)
    for macro, args in layout_entries(model):
        out += "  %s(%s);\n" % (macro, ", ".join(args))
    out += "  return 0;\n}\n"
    return out


def render_layout_rs(model):
    out = ["// " + GENERATED, "// " + RUN, "//",
           "// The Rust side of the layout table (tests/layout/generated.c prints C's);",
           "// the macros are tests/layout.rs's.", "",
           "fn rust_layout(out: &mut Vec<String>) {"]
    names = {"STRUCT": "struct_line", "FIELD": "field_line", "ENUM": "enum_line",
             "TYPE": "type_line", "INT": "int_line", "STR": "str_line", "F64": "f64_line"}
    for macro, args in layout_entries(model):
        rargs = [args[0]] + [rust_ident(a, "?") for a in args[1:]]
        out.append("    %s!(out, %s);" % (names[macro], ", ".join(rargs)))
    out.append("}")
    return "\n".join(out) + "\n"


def generate(header_path):
    with open(header_path, encoding="utf-8") as f:
        model = parse(f.read())
    return {
        "bindings": render_bindings(model),
        "layout_c": render_layout_c(model),
        "layout_rs": render_layout_rs(model),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in the tree instead of writing them")
    ap.add_argument("--header", default=DEFAULT_HEADER, help="the header (default: the SDK's)")
    ap.add_argument("--out-dir", default=HERE,
                    help="where scoria-sys/ lies (default: next to this script)")
    args = ap.parse_args(argv)
    try:
        outputs = generate(args.header)
    except HeaderError as e:
        print("generate.py: %s" % e, file=sys.stderr)
        print("generate.py: nothing written; teach the generator this construct (or write "
              "the header as the rest of it is written)", file=sys.stderr)
        return 2
    stale = []
    for key, rel in OUTPUTS.items():
        path = os.path.join(args.out_dir, rel)
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current == outputs[key]:
            continue
        if args.check:
            stale.append(rel)
            diff = difflib.unified_diff(
                (current or "").splitlines(True), outputs[key].splitlines(True),
                "committed/" + rel, "generated/" + rel, n=2)
            lines = list(diff)
            sys.stdout.writelines(lines[:80])
            if len(lines) > 80:
                print("... (%d more diff lines)" % (len(lines) - 80))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(outputs[key])
            print("wrote %s" % rel)
    if stale:
        header = os.path.abspath(args.header)
        root = os.path.dirname(os.path.dirname(HERE))
        if header.startswith(root + os.sep):
            header = os.path.relpath(header, root)
        print("FAIL: %s out of date with %s; run `%s` and commit the result"
              % (", ".join(stale), header, REGENERATE))
        return 1
    if args.check:
        print("bindings, layout table and header agree (%s)" % ", ".join(OUTPUTS.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
