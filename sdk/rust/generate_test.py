#!/usr/bin/env python3
"""Tests of generate.py: that its drift check fails when the header changes
without the bindings, and that it refuses, naming the line, what it does not
understand instead of skipping it.

    python3 sdk/rust/generate_test.py
"""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FROZEN_V10 = os.path.join(ROOT, "tests", "abi", "frozen", "v1.0", "scoria", "scoria.h")


def header():
    with open(generate.DEFAULT_HEADER, encoding="utf-8") as f:
        return f.read()


class Generator(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="scoria-generate-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_generator(self, text, *args):
        """Runs generate.py on `text` as the header, against a copy of the
        committed outputs; returns (exit code, stdout + stderr)."""
        path = os.path.join(self.tmp, "scoria.h")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out_dir = os.path.join(self.tmp, "out")
        if not os.path.exists(out_dir):
            for rel in generate.OUTPUTS.values():
                os.makedirs(os.path.join(out_dir, os.path.dirname(rel)), exist_ok=True)
                shutil.copy(os.path.join(HERE, rel), os.path.join(out_dir, rel))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            code = generate.main(["--header", path, "--out-dir", out_dir] + list(args))
        return code, buf.getvalue()

    def with_declaration(self, decl):
        """The header with `decl` added before its closing extern "C"."""
        text = header()
        at = text.rindex("#ifdef __cplusplus")
        return text[:at] + decl + "\n\n" + text[at:], text[:at].count("\n") + 1

    # --- the drift check ---------------------------------------------------

    def test_the_committed_outputs_are_current(self):
        code, out = self.run_generator(header(), "--check")
        self.assertEqual(code, 0, out)

    def test_reordered_fields_fail_the_check_with_a_diff(self):
        text = header()
        a = "  int32_t ready;           /**< 1 if condition Ready is True */\n"
        b = "  int32_t unschedulable;   /**< spec.unschedulable */\n"
        self.assertIn(a + b, text)
        code, out = self.run_generator(text.replace(a + b, b + a), "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("scoria-sys/src/bindings.rs", out)
        self.assertIn("scoria-sys/tests/layout/generated.c", out)
        self.assertRegex(out, r"(?m)^-    pub unschedulable: i32,$")
        self.assertRegex(out, r"(?m)^\+    pub unschedulable: i32,$")
        self.assertRegex(out, r"(?m)^\+  FIELD\(scoria_node_info, unschedulable\);$")
        self.assertIn("run `python3 sdk/rust/generate.py`", out)

    def test_an_appended_host_function_fails_the_check(self):
        text = header().replace(
            "} scoria_host_api;",
            "  /** New. */\n  size_t (*node_zone_count)(const scoria_node* node);\n"
            "} scoria_host_api;")
        code, out = self.run_generator(text, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("+    pub node_zone_count: Option<unsafe extern \"C\" fn(node: "
                      "*const scoria_node) -> usize>,", out)
        self.assertIn("+  FIELD(scoria_host_api, node_zone_count);", out)

    def test_the_frozen_1_0_header_generates_too(self):
        with open(FROZEN_V10, encoding="utf-8") as f:
            code, out = self.run_generator(f.read())
        self.assertEqual(code, 0, out)
        with open(os.path.join(self.tmp, "out", generate.OUTPUTS["bindings"])) as f:
            bindings = f.read()
        self.assertIn("pub const SCORIA_ABI_VERSION_MINOR: u32 = 0;", bindings)
        self.assertNotIn("scoria_arg_spec", bindings)

    # --- refusals ----------------------------------------------------------

    def assert_refused(self, decl, message, line_offset=0):
        text, line = self.with_declaration(decl)
        line += line_offset
        code, out = self.run_generator(text)
        self.assertEqual(code, 2, out)
        self.assertRegex(out, r"scoria\.h:%d: .*%s" % (line, message))
        self.assertIn("nothing written", out)

    def test_refuses_a_union(self):
        self.assert_refused("typedef union scoria_u { int a; } scoria_u;",
                            "statement not understood")

    def test_refuses_a_bit_field(self):
        self.assert_refused("typedef struct scoria_b {\n  uint32_t flag : 1;\n} scoria_b;",
                            "field 'uint32_t flag : 1': not understood", line_offset=1)

    def test_refuses_a_type_it_does_not_know(self):
        self.assert_refused("typedef struct scoria_l {\n  long count;\n} scoria_l;",
                            "unknown type 'long'", line_offset=1)

    def test_refuses_two_fields_in_one_declaration(self):
        self.assert_refused("typedef struct scoria_t {\n  uint32_t a, b;\n} scoria_t;",
                            "declares more than one field", line_offset=1)

    def test_refuses_a_function_pointer_parameter(self):
        self.assert_refused(
            "typedef struct scoria_c {\n  void (*each)(void (*fn)(int x), void* data);\n"
            "} scoria_c;", "function pointers and arrays as parameters", line_offset=1)

    def test_refuses_an_enumerator_without_a_value(self):
        self.assert_refused("typedef enum scoria_e {\n  SCORIA_E_A = 1,\n  SCORIA_E_B\n} scoria_e;",
                            "needs an explicit value", line_offset=2)

    def test_names_the_line_of_a_field_deep_in_the_host_table(self):
        text = header()
        decl = "  size_t (*args_count)(const scoria_args* args);"
        line = text[: text.index(decl)].count("\n") + 1
        code, out = self.run_generator(text.replace(decl, decl.replace("size_t", "long"), 1))
        self.assertEqual(code, 2, out)
        self.assertIn("scoria.h:%d: unknown type 'long'" % line, out)

    def test_refuses_a_function_like_macro(self):
        self.assert_refused("#define SCORIA_MAX(a, b) ((a) > (b) ? (a) : (b))",
                            "function-like macro SCORIA_MAX")

    def test_refuses_a_constant_expression(self):
        self.assert_refused("#define SCORIA_BOTH (0x1u | 0x2u)", "not an integer literal")

    def test_refuses_an_unknown_include(self):
        self.assert_refused("#include <stdbool.h>", "not a header the generator knows")

    def test_refuses_a_line_comment(self):
        self.assert_refused("// a comment", "comments only")

    def test_refuses_another_prototype(self):
        self.assert_refused("SCORIA_EXPORT int scoria_other(void);",
                            "only scoria_plugin_entry is expected")

    def test_refuses_an_entry_prototype_that_differs_from_its_typedef(self):
        text = header()
        at = text.index("SCORIA_EXPORT const scoria_descriptor* scoria_plugin_entry(")
        text = text[:at] + text[at:].replace("const scoria_host_api* host,", "scoria_host_api* host,", 1)
        code, out = self.run_generator(text)
        self.assertEqual(code, 2, out)
        self.assertIn("prototype differs from typedef scoria_entry_fn", out)

    def test_refuses_a_doc_comment_that_documents_nothing(self):
        self.assert_refused("/** Documents an include. */\n#include <stddef.h>",
                            "doc comment before #include", line_offset=1)

    def test_refuses_a_conditional_it_does_not_know(self):
        self.assert_refused("#ifdef SCORIA_LEGACY\n#define SCORIA_OLD 1\n#endif",
                            "preprocessor line not understood")

    def test_refuses_an_inline_function(self):
        # Its braces end no statement: what follows is read into it.
        self.assert_refused("static inline int scoria_twice(int x) { return 2 * x; }",
                            "preprocessor line inside a declaration", line_offset=2)


if __name__ == "__main__":
    unittest.main(verbosity=1)
